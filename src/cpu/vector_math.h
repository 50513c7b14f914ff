// Vector libm for the contiguous runs of the real f32/f64 transcendental
// elementwise kernels: glibc's libmvec (x86_64, glibc >= 2.35), picked once
// per process by the CPU's ISA, or nothing (NULL: the caller keeps its scalar
// libm loop).
//
// A routine is offered only where its accuracy was measured to meet the bound
// tests/unit/test_cpu_elementwise.c holds the scalar function to (mostly 1
// ulp); vector_math.c lists the measurements and what was left out.
//
// Results are a function of the input element alone (libmvec is elementwise;
// tails are padded to a full vector), so a caller that sends every element of
// an (op, dtype) through the routine, contiguous or gathered, gets values that
// do not depend on layout, thread count or chunk boundaries. They can differ
// from the scalar libm result (within the bound) and from one ISA level to
// another.
#ifndef TENFERRO_SRC_CPU_VECTOR_MATH_H_
#define TENFERRO_SRC_CPU_VECTOR_MATH_H_

#include <stdint.h>

#include "tenferro/ops.h"

// y[i] = f(x[i]) (unary) or f(x[i], z[i]) (binary) for 0 <= i < n. y may be
// x or z exactly (in place), not otherwise overlap them.
typedef void (*tfr_vm_unary_f32_fn)(int64_t n, const float *x, float *y);
typedef void (*tfr_vm_unary_f64_fn)(int64_t n, const double *x, double *y);
typedef void (*tfr_vm_binary_f32_fn)(int64_t n, const float *x, const float *z, float *y);
typedef void (*tfr_vm_binary_f64_fn)(int64_t n, const double *x, const double *z, double *y);

// ISA levels, each a variant of the x86 vector function ABI.
typedef enum tfr_vm_level {
  TFR_VM_SCALAR = 0,  // no routine: the scalar libm loop
  TFR_VM_AVX2 = 1,    // 'd' variants (4 doubles); needs AVX2 and FMA
  TFR_VM_AVX512 = 2,  // 'e' variants (8 doubles); needs AVX512F and AVX512DQ
  TFR_VM_LEVEL_COUNT
} tfr_vm_level;

// The level this process uses (the CPU's best, detected once).
tfr_vm_level tfr_vm_cpu_level(void);

// The routine for `op` at the process's level; NULL where none is adopted
// (or the op is not a real transcendental function).
tfr_vm_unary_f32_fn tfr_vm_unary_f32(tfr_unary_op op);
tfr_vm_unary_f64_fn tfr_vm_unary_f64(tfr_unary_op op);
tfr_vm_binary_f32_fn tfr_vm_binary_f32(tfr_binary_op op);
tfr_vm_binary_f64_fn tfr_vm_binary_f64(tfr_binary_op op);

// The same at a given level (tests compare every level the CPU has); NULL
// also when the CPU lacks `level`.
tfr_vm_unary_f32_fn tfr_vm_unary_f32_at(tfr_vm_level level, tfr_unary_op op);
tfr_vm_unary_f64_fn tfr_vm_unary_f64_at(tfr_vm_level level, tfr_unary_op op);
tfr_vm_binary_f32_fn tfr_vm_binary_f32_at(tfr_vm_level level, tfr_binary_op op);
tfr_vm_binary_f64_fn tfr_vm_binary_f64_at(tfr_vm_level level, tfr_binary_op op);

#endif  // TENFERRO_SRC_CPU_VECTOR_MATH_H_
