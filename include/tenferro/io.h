// tenferro/io.h: reading and writing tensors as numpy .npy files.
#ifndef TENFERRO_IO_H_
#define TENFERRO_IO_H_

#include <stddef.h>

#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// (declarations follow in this session)

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_IO_H_
