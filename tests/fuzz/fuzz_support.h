// What the fuzz targets share.
#ifndef TENFERRO_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define TENFERRO_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include "tenferro/tenferro.h"

// A cpu backend with one thread, made on first use and kept for the
// process (the fuzzer's many inputs need not pay for one each).
tfr_backend *tfr_fuzz_cpu(void);

// The input as a NUL-terminated string (a new buffer; free it), or NULL
// when out of memory.
char *tfr_fuzz_text(const uint8_t *data, size_t size);

#endif  // TENFERRO_TESTS_FUZZ_FUZZ_SUPPORT_H_
