// Batched small GEMMs for the cpu backend's dot_general: our own kernels for
// products of a few dozen rows, columns and contracting elements, where a
// BLAS call per batch element costs more in call, packing and edge handling
// than the arithmetic (gm_queen5_5_3's largest step: 1.6 million 9 x 9 x 9
// f64 products, 1.9 GFLOP/s through one OpenBLAS dgemm each).
//
// One call computes one batch element, row-major:
//   C[m, n] = op(A)[m, k] B[k, n] summed over k           (plain form)
//   C[m, n] = alpha * sum + beta * C[m, n]                 (accumulating form)
// where A, B and C are read and written through any strides (each operand's
// rows and columns one stride each). op conjugates A and/or B for the
// complex dtypes. The sum runs over k in ascending order, with fused
// multiply-adds on the AVX2 and AVX-512 levels (a multiply and an add on the
// baseline): results can differ in rounding between ISA levels, never with
// the thread that runs an element or with the operands' layout. Which
// products take these kernels
// (their sides and per-dtype limits) is core/validate.h's
// tfr_dot_small_gemm, which einsum's layout planning reads too.
#ifndef TENFERRO_SRC_CPU_SMALL_GEMM_H_
#define TENFERRO_SRC_CPU_SMALL_GEMM_H_

#include <stdbool.h>
#include <stdint.h>

#include "tenferro/tensor.h"

typedef enum tfr_small_gemm_form {
  TFR_SMALL_GEMM_PLAIN = 0,  // C = sum
  TFR_SMALL_GEMM_ALPHA,      // C = alpha * sum (C not read)
  TFR_SMALL_GEMM_ALPHA_BETA  // C = alpha * sum + beta * C
} tfr_small_gemm_form;

typedef struct tfr_small_gemm {
  int64_t M, N, K;
  int64_t lsm, lsk;  // A's strides, in elements
  int64_t rsk, rsn;  // B's
  int64_t osm, osn;  // C's
  bool a_conj, b_conj;  // complex only
  tfr_small_gemm_form form;
  unsigned char alpha[16], beta[16];  // one value of the dtype each
} tfr_small_gemm;

// One batch element: A, B and C point at element (0, 0) of each.
typedef void (*tfr_small_gemm_fn)(const tfr_small_gemm *g, const char *A, const char *B, char *C);

// The kernel for f32, f64, c64 or c128 at the process's ISA level; NULL for
// other dtypes.
tfr_small_gemm_fn tfr_small_gemm_kernel(tfr_dtype dtype);

#endif  // TENFERRO_SRC_CPU_SMALL_GEMM_H_
