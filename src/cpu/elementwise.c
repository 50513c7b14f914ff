// cpu elementwise kernels: unary, binary, compare, select and clamp, for
// every (op, dtype) of the op table (src/core/elementwise_table.c).
//
// One inner-run function per (op, dtype), generated from the lists below
// around the scalar functions of scalar_math.h. Each has a contiguous branch
// (a plain indexed loop over restrict pointers that the compiler vectorises
// for the cheap ops), branches for a stride-0 (broadcast scalar) operand where
// that is common, and a general strided branch. The strided iterator
// (strided.c) merges axes so that compact tensors arrive as one long run.
//
// In place (out is exactly an input) the output and that input alias, which
// restrict formally excludes. It is harmless here: iteration i reads element
// i before writing it and touches no other element, so no reordering the
// compiler may do on the strength of restrict changes a result.
#include "cpu/cpu.h"
#include "cpu/scalar_math.h"
#include "cpu/vector_math.h"

// gcc's -O2 cost model ("very cheap") vectorises no loop of unknown trip
// count; `omp simd` asks for it anyway (the loops carry no dependencies).
// Not for clang, which vectorises at -O2 and warns about every simd loop it
// cannot vectorise (the libm calls).
#if defined(_OPENMP) && defined(__GNUC__) && !defined(__clang__)
#define TFR_EW_SIMD _Pragma("omp simd")
#else
#define TFR_EW_SIMD
#endif

// Dtype tokens -> C type and tfr_dtype.
#define TFR_EW_T_b8 tfr_sm_b8
#define TFR_EW_T_i8 int8_t
#define TFR_EW_T_i16 int16_t
#define TFR_EW_T_i32 int32_t
#define TFR_EW_T_i64 int64_t
#define TFR_EW_T_u8 uint8_t
#define TFR_EW_T_u16 uint16_t
#define TFR_EW_T_u32 uint32_t
#define TFR_EW_T_u64 uint64_t
#define TFR_EW_T_f16 tfr_f16_bits
#define TFR_EW_T_bf16 tfr_bf16_bits
#define TFR_EW_T_f32 float
#define TFR_EW_T_f64 double
#define TFR_EW_T_c64 tfr_sm_c64
#define TFR_EW_T_c128 tfr_sm_c128
#define TFR_EW_T(dt) TFR_EW_T_##dt

#define TFR_EW_D_b8 TFR_BOOL
#define TFR_EW_D_i8 TFR_I8
#define TFR_EW_D_i16 TFR_I16
#define TFR_EW_D_i32 TFR_I32
#define TFR_EW_D_i64 TFR_I64
#define TFR_EW_D_u8 TFR_U8
#define TFR_EW_D_u16 TFR_U16
#define TFR_EW_D_u32 TFR_U32
#define TFR_EW_D_u64 TFR_U64
#define TFR_EW_D_f16 TFR_F16
#define TFR_EW_D_bf16 TFR_BF16
#define TFR_EW_D_f32 TFR_F32
#define TFR_EW_D_f64 TFR_F64
#define TFR_EW_D_c64 TFR_C64
#define TFR_EW_D_c128 TFR_C128
#define TFR_EW_D(dt) TFR_EW_D_##dt

#define TFR_EW_ES(dt) ((int64_t)sizeof(TFR_EW_T(dt)))

// Strided element access; memcpy because a strided view gives no alignment
// promise beyond the storage's.
#define TFR_EW_LOAD(dt, var, ptr)  \
  TFR_EW_T(dt) var;                \
  memcpy(&var, (ptr), sizeof var)
#define TFR_EW_STORE(ptr, val) memcpy((ptr), &(val), sizeof(val))

// ---------------------------------------------------------------------------
// Kernel generators. Operand 0 is the output, then the inputs in order.
// ---------------------------------------------------------------------------

#define TFR_EW_UNARY_BODY(FN, dt, odt)                                                  \
  if (s[0] == TFR_EW_ES(odt) && s[1] == TFR_EW_ES(dt)) {                                 \
    TFR_EW_T(odt) *restrict o = (TFR_EW_T(odt) *)(void *)p[0];                           \
    const TFR_EW_T(dt) *restrict a = (const TFR_EW_T(dt) *)(const void *)p[1];           \
    TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = FN(a[i]);                         \
    return;                                                                              \
  }                                                                                      \
  for (int64_t i = 0; i < n; i++) {                                                      \
    TFR_EW_LOAD(dt, x, p[1] + i * s[1]);                                                 \
    TFR_EW_T(odt) r = FN(x);                                                             \
    TFR_EW_STORE(p[0] + i * s[0], r);                                                    \
  }

#define TFR_EW_UNARY_KERNEL(OP, name, dt, odt)                                   \
  static void tfr_ew_##name##_##dt(int64_t n, char *const *p, const int64_t *s, \
                                   const void *ctx) {                             \
    (void)ctx;                                                                    \
    TFR_EW_UNARY_BODY(tfr_sm_##name##_##dt, dt, odt)                              \
  }

// FN(a, b) -> ODT on two inputs of dtype DT (binary ops and compare). A
// stride-0 input is a broadcast scalar (x + 1, x < 0): hoisted out of the loop
// so that the loop still vectorises.
#define TFR_EW_BINARY_BODY(FN, dt, odt)                                                    \
  const int64_t es = TFR_EW_ES(dt);                                                        \
  if (s[0] == TFR_EW_ES(odt) && (s[1] == es || s[1] == 0) && (s[2] == es || s[2] == 0)) { \
    TFR_EW_T(odt) *restrict o = (TFR_EW_T(odt) *)(void *)p[0];                             \
    const TFR_EW_T(dt) *restrict a = (const TFR_EW_T(dt) *)(const void *)p[1];             \
    const TFR_EW_T(dt) *restrict b = (const TFR_EW_T(dt) *)(const void *)p[2];             \
    if (s[1] != 0 && s[2] != 0) {                                                          \
      TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = FN(a[i], b[i]);                  \
    } else if (s[2] != 0) {                                                                \
      const TFR_EW_T(dt) av = a[0];                                                        \
      TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = FN(av, b[i]);                    \
    } else if (s[1] != 0) {                                                                \
      const TFR_EW_T(dt) bv = b[0];                                                        \
      TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = FN(a[i], bv);                    \
    } else {                                                                               \
      const TFR_EW_T(odt) r = FN(a[0], b[0]);                                              \
      for (int64_t i = 0; i < n; i++) o[i] = r;                                            \
    }                                                                                      \
    return;                                                                                \
  }                                                                                        \
  for (int64_t i = 0; i < n; i++) {                                                        \
    TFR_EW_LOAD(dt, x, p[1] + i * s[1]);                                                   \
    TFR_EW_LOAD(dt, y, p[2] + i * s[2]);                                                   \
    TFR_EW_T(odt) r = FN(x, y);                                                            \
    TFR_EW_STORE(p[0] + i * s[0], r);                                                      \
  }

#define TFR_EW_BINARY_KERNEL(OP, name, dt, odt)                                   \
  static void tfr_ew_##name##_##dt(int64_t n, char *const *p, const int64_t *s, \
                                   const void *ctx) {                             \
    (void)ctx;                                                                    \
    TFR_EW_BINARY_BODY(tfr_sm_##name##_##dt, dt, odt)                             \
  }

// Real transcendental functions (the TFR_EW_VM_* lists below) run through a
// vector routine of vector_math.h where this CPU has one adopted: every
// element of the op goes through it, a contiguous run directly, a strided one
// or one with a broadcast operand gathered into blocks on the stack. An
// element's value then depends on nothing but its input, not on the layout
// or the thread split (the layout and thread tests compare bit for bit).
// Without a routine (other CPUs, functions whose vector version was not
// accurate enough) the scalar kernel runs exactly as before.
#define TFR_EW_VM_BLOCK 256

#define TFR_EW_VM_RUNNERS(dt)                                                              \
  static void tfr_ew_vm_unary_##dt(tfr_vm_unary_##dt##_fn f, int64_t n, char *const *p,    \
                                   const int64_t *s) {                                     \
    const int64_t es = TFR_EW_ES(dt);                                                      \
    if (s[0] == es && s[1] == es) {                                                        \
      f(n, (const TFR_EW_T(dt) *)(const void *)p[1], (TFR_EW_T(dt) *)(void *)p[0]);       \
      return;                                                                              \
    }                                                                                      \
    TFR_EW_T(dt) x[TFR_EW_VM_BLOCK], y[TFR_EW_VM_BLOCK];                                   \
    for (int64_t i0 = 0; i0 < n; i0 += TFR_EW_VM_BLOCK) {                                  \
      int64_t m = n - i0 < TFR_EW_VM_BLOCK ? n - i0 : TFR_EW_VM_BLOCK;                     \
      for (int64_t k = 0; k < m; k++) memcpy(&x[k], p[1] + (i0 + k) * s[1], sizeof x[k]);  \
      f(m, x, y);                                                                          \
      for (int64_t k = 0; k < m; k++) memcpy(p[0] + (i0 + k) * s[0], &y[k], sizeof y[k]);  \
    }                                                                                      \
  }                                                                                        \
  static void tfr_ew_vm_binary_##dt(tfr_vm_binary_##dt##_fn f, int64_t n, char *const *p,  \
                                    const int64_t *s) {                                    \
    const int64_t es = TFR_EW_ES(dt);                                                      \
    if (s[0] == es && s[1] == es && s[2] == es) {                                          \
      f(n, (const TFR_EW_T(dt) *)(const void *)p[1],                                       \
        (const TFR_EW_T(dt) *)(const void *)p[2], (TFR_EW_T(dt) *)(void *)p[0]);           \
      return;                                                                              \
    }                                                                                      \
    TFR_EW_T(dt) a[TFR_EW_VM_BLOCK], b[TFR_EW_VM_BLOCK], y[TFR_EW_VM_BLOCK];               \
    for (int64_t i0 = 0; i0 < n; i0 += TFR_EW_VM_BLOCK) {                                  \
      int64_t m = n - i0 < TFR_EW_VM_BLOCK ? n - i0 : TFR_EW_VM_BLOCK;                     \
      for (int64_t k = 0; k < m; k++) {                                                    \
        memcpy(&a[k], p[1] + (i0 + k) * s[1], sizeof a[k]);                                \
        memcpy(&b[k], p[2] + (i0 + k) * s[2], sizeof b[k]);                                \
      }                                                                                    \
      f(m, a, b, y);                                                                       \
      for (int64_t k = 0; k < m; k++) memcpy(p[0] + (i0 + k) * s[0], &y[k], sizeof y[k]);  \
    }                                                                                      \
  }

TFR_EW_VM_RUNNERS(f32)
TFR_EW_VM_RUNNERS(f64)

#define TFR_EW_VM_UNARY_KERNEL(OP, name, dt, odt)                                \
  static void tfr_ew_##name##_##dt(int64_t n, char *const *p, const int64_t *s, \
                                   const void *ctx) {                             \
    (void)ctx;                                                                    \
    tfr_vm_unary_##dt##_fn f = tfr_vm_unary_##dt(OP);                             \
    if (f) {                                                                      \
      tfr_ew_vm_unary_##dt(f, n, p, s);                                           \
      return;                                                                     \
    }                                                                             \
    TFR_EW_UNARY_BODY(tfr_sm_##name##_##dt, dt, odt)                              \
  }

#define TFR_EW_VM_BINARY_KERNEL(OP, name, dt, odt)                               \
  static void tfr_ew_##name##_##dt(int64_t n, char *const *p, const int64_t *s, \
                                   const void *ctx) {                             \
    (void)ctx;                                                                    \
    tfr_vm_binary_##dt##_fn f = tfr_vm_binary_##dt(OP);                           \
    if (f) {                                                                      \
      tfr_ew_vm_binary_##dt(f, n, p, s);                                          \
      return;                                                                     \
    }                                                                             \
    TFR_EW_BINARY_BODY(tfr_sm_##name##_##dt, dt, odt)                             \
  }

#define TFR_EW_COMPARE_KERNEL(DIR, name, dt)                                         \
  static void tfr_ew_cmp_##name##_##dt(int64_t n, char *const *p, const int64_t *s, \
                                       const void *ctx) {                            \
    (void)ctx;                                                                       \
    TFR_EW_BINARY_BODY(tfr_sm_##name##_##dt, dt, b8)                                 \
  }

// select(pred, on_true, on_false). A rank-0 pred arrives as stride 0.
#define TFR_EW_SELECT_KERNEL(dt)                                                            \
  static void tfr_ew_select_##dt(int64_t n, char *const *p, const int64_t *s,              \
                                 const void *ctx) {                                         \
    (void)ctx;                                                                              \
    const int64_t es = TFR_EW_ES(dt);                                                       \
    if (s[0] == es && (s[1] == 1 || s[1] == 0) && s[2] == es && s[3] == es) {               \
      TFR_EW_T(dt) *restrict o = (TFR_EW_T(dt) *)(void *)p[0];                              \
      const tfr_sm_b8 *restrict c = (const tfr_sm_b8 *)(const void *)p[1];                  \
      const TFR_EW_T(dt) *restrict t = (const TFR_EW_T(dt) *)(const void *)p[2];            \
      const TFR_EW_T(dt) *restrict f = (const TFR_EW_T(dt) *)(const void *)p[3];            \
      if (s[1] == 1) {                                                                      \
        TFR_EW_SIMD for (int64_t i = 0; i < n; i++) {                                       \
          TFR_EW_T(dt) x = t[i], y = f[i];                                                  \
          o[i] = tfr_sm_select_##dt(c[i], x, y);                                            \
        }                                                                                   \
      } else {                                                                              \
        const TFR_EW_T(dt) *restrict src = c[0] ? t : f;                                    \
        TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = src[i];                          \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                       \
      TFR_EW_LOAD(b8, c, p[1] + i * s[1]);                                                  \
      TFR_EW_LOAD(dt, x, p[2] + i * s[2]);                                                  \
      TFR_EW_LOAD(dt, y, p[3] + i * s[3]);                                                  \
      TFR_EW_T(dt) r = tfr_sm_select_##dt(c, x, y);                                         \
      TFR_EW_STORE(p[0] + i * s[0], r);                                                     \
    }                                                                                       \
  }

// clamp(min, operand, max). Rank-0 bounds (the usual case) arrive as stride 0.
#define TFR_EW_CLAMP_KERNEL(dt)                                                             \
  static void tfr_ew_clamp_##dt(int64_t n, char *const *p, const int64_t *s,               \
                                const void *ctx) {                                          \
    (void)ctx;                                                                              \
    const int64_t es = TFR_EW_ES(dt);                                                       \
    if (s[0] == es && s[2] == es && s[1] == s[3] && (s[1] == es || s[1] == 0)) {            \
      TFR_EW_T(dt) *restrict o = (TFR_EW_T(dt) *)(void *)p[0];                              \
      const TFR_EW_T(dt) *restrict lo = (const TFR_EW_T(dt) *)(const void *)p[1];           \
      const TFR_EW_T(dt) *restrict x = (const TFR_EW_T(dt) *)(const void *)p[2];            \
      const TFR_EW_T(dt) *restrict hi = (const TFR_EW_T(dt) *)(const void *)p[3];           \
      if (s[1] == es) {                                                                     \
        TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = tfr_sm_clamp_##dt(lo[i], x[i], hi[i]); \
      } else {                                                                              \
        const TFR_EW_T(dt) l = lo[0], h = hi[0];                                            \
        TFR_EW_SIMD for (int64_t i = 0; i < n; i++) o[i] = tfr_sm_clamp_##dt(l, x[i], h);   \
      }                                                                                     \
      return;                                                                               \
    }                                                                                       \
    for (int64_t i = 0; i < n; i++) {                                                       \
      TFR_EW_LOAD(dt, l, p[1] + i * s[1]);                                                  \
      TFR_EW_LOAD(dt, v, p[2] + i * s[2]);                                                  \
      TFR_EW_LOAD(dt, h, p[3] + i * s[3]);                                                  \
      TFR_EW_T(dt) r = tfr_sm_clamp_##dt(l, v, h);                                          \
      TFR_EW_STORE(p[0] + i * s[0], r);                                                     \
    }                                                                                       \
  }

// ---------------------------------------------------------------------------
// The op lists: X(op, name, input dtype, output dtype) per kernel. They must
// cover the dtype masks of elementwise_table.c (a unit test runs every
// allowed pair through the public API).
// ---------------------------------------------------------------------------

#define TFR_EW_BOOL(X, OP, name) X(OP, name, b8, b8)
#define TFR_EW_SINT(X, OP, name) \
  X(OP, name, i8, i8) X(OP, name, i16, i16) X(OP, name, i32, i32) X(OP, name, i64, i64)
#define TFR_EW_UINT(X, OP, name) \
  X(OP, name, u8, u8) X(OP, name, u16, u16) X(OP, name, u32, u32) X(OP, name, u64, u64)
#define TFR_EW_INT(X, OP, name) TFR_EW_SINT(X, OP, name) TFR_EW_UINT(X, OP, name)
// f32 and f64 (the vector-math lists), the 16-bit floats, all floats.
#define TFR_EW_F3264(X, OP, name) X(OP, name, f32, f32) X(OP, name, f64, f64)
#define TFR_EW_HALF(X, OP, name) X(OP, name, f16, f16) X(OP, name, bf16, bf16)
#define TFR_EW_FLOAT(X, OP, name) TFR_EW_F3264(X, OP, name) TFR_EW_HALF(X, OP, name)
#define TFR_EW_CPLX(X, OP, name) X(OP, name, c64, c64) X(OP, name, c128, c128)
#define TFR_EW_CPLX_TO_REAL(X, OP, name) X(OP, name, c64, f32) X(OP, name, c128, f64)
#define TFR_EW_FC(X, OP, name) TFR_EW_FLOAT(X, OP, name) TFR_EW_CPLX(X, OP, name)
#define TFR_EW_NUM(X, OP, name) TFR_EW_INT(X, OP, name) TFR_EW_FC(X, OP, name)
#define TFR_EW_ALL(X, OP, name) TFR_EW_BOOL(X, OP, name) TFR_EW_NUM(X, OP, name)

#define TFR_EW_UNARY_OPS(X)                                                            \
  TFR_EW_NUM(X, TFR_NEGATE, negate)                                                    \
  TFR_EW_SINT(X, TFR_ABS, abs) TFR_EW_FLOAT(X, TFR_ABS, abs)                           \
  TFR_EW_CPLX_TO_REAL(X, TFR_ABS, abs)                                                 \
  TFR_EW_SINT(X, TFR_SIGN, sign) TFR_EW_FC(X, TFR_SIGN, sign)                          \
  TFR_EW_NUM(X, TFR_CONJ, conj)                                                        \
  TFR_EW_BOOL(X, TFR_NOT, not) TFR_EW_INT(X, TFR_NOT, not)                             \
  TFR_EW_FLOAT(X, TFR_FLOOR, floor)                                                    \
  TFR_EW_FLOAT(X, TFR_CEIL, ceil)                                                      \
  TFR_EW_FLOAT(X, TFR_ROUND_NEAREST_EVEN, round_nearest_even)                          \
  TFR_EW_FLOAT(X, TFR_ROUND_NEAREST_AFZ, round_nearest_afz)                            \
  X(TFR_IS_FINITE, is_finite, f32, b8) X(TFR_IS_FINITE, is_finite, f64, b8)            \
  X(TFR_IS_FINITE, is_finite, f16, b8) X(TFR_IS_FINITE, is_finite, bf16, b8)           \
  TFR_EW_FLOAT(X, TFR_REAL, real) TFR_EW_CPLX_TO_REAL(X, TFR_REAL, real)               \
  TFR_EW_FLOAT(X, TFR_IMAG, imag) TFR_EW_CPLX_TO_REAL(X, TFR_IMAG, imag)               \
  TFR_EW_CPLX(X, TFR_EXP, exp) TFR_EW_HALF(X, TFR_EXP, exp)                            \
  TFR_EW_CPLX(X, TFR_LOG, log) TFR_EW_HALF(X, TFR_LOG, log)                            \
  TFR_EW_CPLX(X, TFR_SIN, sin) TFR_EW_HALF(X, TFR_SIN, sin)                            \
  TFR_EW_CPLX(X, TFR_COS, cos) TFR_EW_HALF(X, TFR_COS, cos)                            \
  TFR_EW_CPLX(X, TFR_TAN, tan) TFR_EW_HALF(X, TFR_TAN, tan)                            \
  TFR_EW_CPLX(X, TFR_TANH, tanh) TFR_EW_HALF(X, TFR_TANH, tanh)                        \
  TFR_EW_FC(X, TFR_SQRT, sqrt)                                                         \
  TFR_EW_FC(X, TFR_RSQRT, rsqrt)                                                       \
  TFR_EW_HALF(X, TFR_CBRT, cbrt)                                                       \
  TFR_EW_CPLX(X, TFR_EXPM1, expm1) TFR_EW_HALF(X, TFR_EXPM1, expm1)                    \
  TFR_EW_CPLX(X, TFR_LOG1P, log1p) TFR_EW_HALF(X, TFR_LOG1P, log1p)                    \
  TFR_EW_HALF(X, TFR_ERF, erf)                                                         \
  TFR_EW_FC(X, TFR_LOGISTIC, logistic)                                                 \
  TFR_EW_CPLX(X, TFR_ASIN, asin) TFR_EW_HALF(X, TFR_ASIN, asin)                        \
  TFR_EW_CPLX(X, TFR_ACOS, acos) TFR_EW_HALF(X, TFR_ACOS, acos)                        \
  TFR_EW_CPLX(X, TFR_ATAN, atan) TFR_EW_HALF(X, TFR_ATAN, atan)                        \
  TFR_EW_CPLX(X, TFR_SINH, sinh) TFR_EW_HALF(X, TFR_SINH, sinh)                        \
  TFR_EW_CPLX(X, TFR_COSH, cosh) TFR_EW_HALF(X, TFR_COSH, cosh)                        \
  TFR_EW_CPLX(X, TFR_ASINH, asinh) TFR_EW_HALF(X, TFR_ASINH, asinh)                    \
  TFR_EW_CPLX(X, TFR_ACOSH, acosh) TFR_EW_HALF(X, TFR_ACOSH, acosh)                    \
  TFR_EW_CPLX(X, TFR_ATANH, atanh) TFR_EW_HALF(X, TFR_ATANH, atanh)                    \
  TFR_EW_HALF(X, TFR_ERFC, erfc)                                                       \
  TFR_EW_INT(X, TFR_POPCNT, popcnt)

// The real float transcendental functions of f32 and f64: vector routines
// where adopted (vector_math.c), else the scalar kernels. f16 and bf16 run
// the scalar f32 function per element (in the list above).
#define TFR_EW_VM_UNARY_OPS(X)                                                         \
  TFR_EW_F3264(X, TFR_EXP, exp)                                                        \
  TFR_EW_F3264(X, TFR_LOG, log)                                                        \
  TFR_EW_F3264(X, TFR_SIN, sin)                                                        \
  TFR_EW_F3264(X, TFR_COS, cos)                                                        \
  TFR_EW_F3264(X, TFR_TAN, tan)                                                        \
  TFR_EW_F3264(X, TFR_TANH, tanh)                                                      \
  TFR_EW_F3264(X, TFR_CBRT, cbrt)                                                      \
  TFR_EW_F3264(X, TFR_EXPM1, expm1)                                                    \
  TFR_EW_F3264(X, TFR_LOG1P, log1p)                                                    \
  TFR_EW_F3264(X, TFR_ERF, erf)                                                        \
  TFR_EW_F3264(X, TFR_ASIN, asin)                                                      \
  TFR_EW_F3264(X, TFR_ACOS, acos)                                                      \
  TFR_EW_F3264(X, TFR_ATAN, atan)                                                      \
  TFR_EW_F3264(X, TFR_SINH, sinh)                                                      \
  TFR_EW_F3264(X, TFR_COSH, cosh)                                                      \
  TFR_EW_F3264(X, TFR_ASINH, asinh)                                                    \
  TFR_EW_F3264(X, TFR_ACOSH, acosh)                                                    \
  TFR_EW_F3264(X, TFR_ATANH, atanh)                                                    \
  TFR_EW_F3264(X, TFR_ERFC, erfc)

#define TFR_EW_BINARY_OPS(X)                                                           \
  TFR_EW_NUM(X, TFR_ADD, add)                                                          \
  TFR_EW_NUM(X, TFR_SUBTRACT, subtract)                                                \
  TFR_EW_NUM(X, TFR_MULTIPLY, multiply)                                                \
  TFR_EW_NUM(X, TFR_DIVIDE, divide)                                                    \
  TFR_EW_INT(X, TFR_REMAINDER, remainder) TFR_EW_FLOAT(X, TFR_REMAINDER, remainder)    \
  TFR_EW_ALL(X, TFR_MAXIMUM, maximum)                                                  \
  TFR_EW_ALL(X, TFR_MINIMUM, minimum)                                                  \
  TFR_EW_INT(X, TFR_POWER, power) TFR_EW_CPLX(X, TFR_POWER, power)                     \
  TFR_EW_HALF(X, TFR_POWER, power)                                                     \
  TFR_EW_BOOL(X, TFR_AND, and) TFR_EW_INT(X, TFR_AND, and)                             \
  TFR_EW_BOOL(X, TFR_OR, or) TFR_EW_INT(X, TFR_OR, or)                                 \
  TFR_EW_BOOL(X, TFR_XOR, xor) TFR_EW_INT(X, TFR_XOR, xor)                             \
  TFR_EW_CPLX(X, TFR_ATAN2, atan2) TFR_EW_HALF(X, TFR_ATAN2, atan2)                    \
  TFR_EW_INT(X, TFR_SHIFT_LEFT, shift_left)                                            \
  TFR_EW_INT(X, TFR_SHIFT_RIGHT_ARITHMETIC, shift_right_arithmetic)                    \
  TFR_EW_INT(X, TFR_SHIFT_RIGHT_LOGICAL, shift_right_logical)                          \
  TFR_EW_FLOAT(X, TFR_NEXT_AFTER, next_after)                                          \
  X(TFR_COMPLEX, cplx, f32, c64) X(TFR_COMPLEX, cplx, f64, c128)

#define TFR_EW_VM_BINARY_OPS(X) \
  TFR_EW_F3264(X, TFR_POWER, power) TFR_EW_F3264(X, TFR_ATAN2, atan2)

// X(direction, name, dtype): EQ and NE on every dtype, orderings on the real ones.
#define TFR_EW_CMP_REAL(X, D, name)                                                    \
  X(D, name, b8) X(D, name, i8) X(D, name, i16) X(D, name, i32) X(D, name, i64)        \
  X(D, name, u8) X(D, name, u16) X(D, name, u32) X(D, name, u64) X(D, name, f16)       \
  X(D, name, bf16) X(D, name, f32) X(D, name, f64)
#define TFR_EW_CMP_ALL(X, D, name) TFR_EW_CMP_REAL(X, D, name) X(D, name, c64) X(D, name, c128)
#define TFR_EW_COMPARE_OPS(X)                                                   \
  TFR_EW_CMP_ALL(X, TFR_EQ, eq) TFR_EW_CMP_ALL(X, TFR_NE, ne)                   \
  TFR_EW_CMP_REAL(X, TFR_LT, lt) TFR_EW_CMP_REAL(X, TFR_LE, le)                 \
  TFR_EW_CMP_REAL(X, TFR_GT, gt) TFR_EW_CMP_REAL(X, TFR_GE, ge)

#define TFR_EW_CLAMP_DTYPES(X)                                                          \
  X(b8) X(i8) X(i16) X(i32) X(i64) X(u8) X(u16) X(u32) X(u64) X(f16) X(bf16) X(f32) X(f64)
#define TFR_EW_SELECT_DTYPES(X) TFR_EW_CLAMP_DTYPES(X) X(c64) X(c128)

// ---------------------------------------------------------------------------
// Kernels and dispatch tables
// ---------------------------------------------------------------------------

TFR_EW_UNARY_OPS(TFR_EW_UNARY_KERNEL)
TFR_EW_VM_UNARY_OPS(TFR_EW_VM_UNARY_KERNEL)
TFR_EW_BINARY_OPS(TFR_EW_BINARY_KERNEL)
TFR_EW_VM_BINARY_OPS(TFR_EW_VM_BINARY_KERNEL)
TFR_EW_COMPARE_OPS(TFR_EW_COMPARE_KERNEL)
TFR_EW_SELECT_DTYPES(TFR_EW_SELECT_KERNEL)
TFR_EW_CLAMP_DTYPES(TFR_EW_CLAMP_KERNEL)

#define TFR_EW_OP_ENTRY(OP, name, dt, odt) [OP][TFR_EW_D(dt)] = tfr_ew_##name##_##dt,
#define TFR_EW_CMP_ENTRY(D, name, dt) [D][TFR_EW_D(dt)] = tfr_ew_cmp_##name##_##dt,
#define TFR_EW_SELECT_ENTRY(dt) [TFR_EW_D(dt)] = tfr_ew_select_##dt,
#define TFR_EW_CLAMP_ENTRY(dt) [TFR_EW_D(dt)] = tfr_ew_clamp_##dt,

// Indexed by [op][operand dtype]; NULL where the op table rejects the dtype.
static const tfr_cpu_inner_fn tfr_ew_unary_table[TFR_UNARY_OP_COUNT][TFR_DTYPE_COUNT] = {
    TFR_EW_UNARY_OPS(TFR_EW_OP_ENTRY) TFR_EW_VM_UNARY_OPS(TFR_EW_OP_ENTRY)};
static const tfr_cpu_inner_fn tfr_ew_binary_table[TFR_BINARY_OP_COUNT][TFR_DTYPE_COUNT] = {
    TFR_EW_BINARY_OPS(TFR_EW_OP_ENTRY) TFR_EW_VM_BINARY_OPS(TFR_EW_OP_ENTRY)};
static const tfr_cpu_inner_fn tfr_ew_compare_table[TFR_GE + 1][TFR_DTYPE_COUNT] = {
    TFR_EW_COMPARE_OPS(TFR_EW_CMP_ENTRY)};
static const tfr_cpu_inner_fn tfr_ew_select_table[TFR_DTYPE_COUNT] = {
    TFR_EW_SELECT_DTYPES(TFR_EW_SELECT_ENTRY)};
static const tfr_cpu_inner_fn tfr_ew_clamp_table[TFR_DTYPE_COUNT] = {
    TFR_EW_CLAMP_DTYPES(TFR_EW_CLAMP_ENTRY)};

// The kernel of a validated descriptor; NULL only if the lists above miss a
// pair the op table allows (an internal error, not a user one).
tfr_cpu_inner_fn tfr_cpu_elementwise_kernel(tfr_ew_kind kind, int op_value, tfr_dtype dtype) {
  unsigned op = (unsigned)op_value, dt = (unsigned)dtype;
  if (dt >= TFR_DTYPE_COUNT) return NULL;
  switch (kind) {
    case TFR_EW_UNARY: return op < TFR_UNARY_OP_COUNT ? tfr_ew_unary_table[op][dt] : NULL;
    case TFR_EW_BINARY: return op < TFR_BINARY_OP_COUNT ? tfr_ew_binary_table[op][dt] : NULL;
    case TFR_EW_COMPARE: return op <= TFR_GE ? tfr_ew_compare_table[op][dt] : NULL;
    case TFR_EW_SELECT: return tfr_ew_select_table[dt];
    case TFR_EW_CLAMP: return tfr_ew_clamp_table[dt];
  }
  return NULL;
}

tfr_status tfr_cpu_elementwise(tfr_backend *b, const tfr_elementwise_desc *d) {
  tfr_cpu_inner_fn fn = tfr_cpu_elementwise_kernel(d->kind, d->op, d->dtype);
  if (!fn)
    return tfr_error(TFR_ERR_INTERNAL, "cpu elementwise: no kernel for kind %d op %d dtype %s",
                     (int)d->kind, d->op, tfr_dtype_name(d->dtype));
  if (d->out->numel == 0) return TFR_OK;
  const tfr_tensor *ops[TFR_CPU_MAX_OPERANDS] = {d->out};
  for (int i = 0; i < d->ninputs; i++) ops[1 + i] = d->inputs[i];
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, 1 + d->ninputs, ops);
  tfr_cpu_iter_run(&it, fn, NULL, tfr_cpu_cast(b)->num_threads);
  return TFR_OK;
}
