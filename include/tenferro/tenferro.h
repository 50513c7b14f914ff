// tenferro: dense tensor computation in C11 on interchangeable backends.
//
// The umbrella header. See README.md for a worked example; every function is
// documented in the header that declares it:
//   status.h   status codes, error messages, version
//   dtype.h    element types
//   tensor.h   tensors, host buffers, views
//   backend.h  backends, sessions, upload/download
//   webgpu.h   the webgpu backend: options, adapters, native handles, stats
//   ops.h      the primitive op set (StableHLO semantics)
//   dot_plan.h cached dot_general plans for repeated contractions
//   io.h       .npy files
//   einsum.h   einsum and tensor-network contraction
//   fusion.h   elementwise fusion plans
//   registry.h the op registry: op names, dtypes, what each backend runs
#ifndef TENFERRO_TENFERRO_H_
#define TENFERRO_TENFERRO_H_

#include "tenferro/status.h"
#include "tenferro/dtype.h"
#include "tenferro/tensor.h"
#include "tenferro/backend.h"
#include "tenferro/webgpu.h"
#include "tenferro/ops.h"
#include "tenferro/dot_plan.h"
#include "tenferro/io.h"
#include "tenferro/einsum.h"
#include "tenferro/fusion.h"
#include "tenferro/registry.h"

#endif  // TENFERRO_TENFERRO_H_
