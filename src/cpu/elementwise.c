// cpu elementwise kernels: unary, binary, compare, select and clamp, for
// every (op, dtype) of the op registry (src/core/op_registry.def).
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
#include "cpu/special_math.h"
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
// The op lists: X(op, name, input dtype, output dtype) per kernel, generated
// from the op registry (src/core/op_registry.def): each UNARY or BINARY row's
// dtype group and result rule pick the list below. What the cpu adds per op
// is TFR_CPU_EW_<ID>: the name of its scalar_math.h functions and the path of
// f32/f64 (SCALAR: the scalar functions; VM: the vector routines of
// vector_math.c, f16 and bf16 still scalar).
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

// TFR_EW_G_<path>_<DTYPES>_<RESULT>: the kernels of a registry dtype group
// and result rule; the VM path leaves f32 and f64 to the vector lists.
#define TFR_EW_G_SCALAR_NUMERIC_SAME(X, OP, n) TFR_EW_NUM(X, OP, n)
#define TFR_EW_G_SCALAR_SIGNED_SAME(X, OP, n) TFR_EW_SINT(X, OP, n) TFR_EW_FC(X, OP, n)
#define TFR_EW_G_SCALAR_SIGNED_REAL(X, OP, n) \
  TFR_EW_SINT(X, OP, n) TFR_EW_FLOAT(X, OP, n) TFR_EW_CPLX_TO_REAL(X, OP, n)
#define TFR_EW_G_SCALAR_BI_SAME(X, OP, n) TFR_EW_BOOL(X, OP, n) TFR_EW_INT(X, OP, n)
#define TFR_EW_G_SCALAR_INT_SAME(X, OP, n) TFR_EW_INT(X, OP, n)
#define TFR_EW_G_SCALAR_IF_SAME(X, OP, n) TFR_EW_INT(X, OP, n) TFR_EW_FLOAT(X, OP, n)
#define TFR_EW_G_SCALAR_ALL_SAME(X, OP, n) TFR_EW_ALL(X, OP, n)
#define TFR_EW_G_SCALAR_FLOAT_SAME(X, OP, n) TFR_EW_FLOAT(X, OP, n)
#define TFR_EW_G_SCALAR_FLOAT_BOOL(X, OP, n) \
  X(OP, n, f32, b8) X(OP, n, f64, b8) X(OP, n, f16, b8) X(OP, n, bf16, b8)
#define TFR_EW_G_SCALAR_FC_SAME(X, OP, n) TFR_EW_FC(X, OP, n)
#define TFR_EW_G_SCALAR_FC_REAL(X, OP, n) TFR_EW_FLOAT(X, OP, n) TFR_EW_CPLX_TO_REAL(X, OP, n)
#define TFR_EW_G_SCALAR_F32_F64_COMPLEX(X, OP, n) X(OP, n, f32, c64) X(OP, n, f64, c128)
#define TFR_EW_G_VM_FLOAT_SAME(X, OP, n) TFR_EW_HALF(X, OP, n)
#define TFR_EW_G_VM_FC_SAME(X, OP, n) TFR_EW_HALF(X, OP, n) TFR_EW_CPLX(X, OP, n)
#define TFR_EW_G_VM_NUMERIC_SAME(X, OP, n) \
  TFR_EW_INT(X, OP, n) TFR_EW_HALF(X, OP, n) TFR_EW_CPLX(X, OP, n)
#define TFR_EW_VMPART_SCALAR(X, OP, n)
#define TFR_EW_VMPART_VM(X, OP, n) TFR_EW_F3264(X, OP, n)

// Per op: scalar_math.h name, f32/f64 path.
#define TFR_CPU_EW_NEGATE negate, SCALAR
#define TFR_CPU_EW_ABS abs, SCALAR
#define TFR_CPU_EW_SIGN sign, SCALAR
#define TFR_CPU_EW_CONJ conj, SCALAR
#define TFR_CPU_EW_NOT not, SCALAR
#define TFR_CPU_EW_FLOOR floor, SCALAR
#define TFR_CPU_EW_CEIL ceil, SCALAR
#define TFR_CPU_EW_ROUND_NEAREST_EVEN round_nearest_even, SCALAR
#define TFR_CPU_EW_ROUND_NEAREST_AFZ round_nearest_afz, SCALAR
#define TFR_CPU_EW_IS_FINITE is_finite, SCALAR
#define TFR_CPU_EW_REAL real, SCALAR
#define TFR_CPU_EW_IMAG imag, SCALAR
#define TFR_CPU_EW_EXP exp, VM
#define TFR_CPU_EW_LOG log, VM
#define TFR_CPU_EW_SIN sin, VM
#define TFR_CPU_EW_COS cos, VM
#define TFR_CPU_EW_TAN tan, VM
#define TFR_CPU_EW_TANH tanh, VM
#define TFR_CPU_EW_SQRT sqrt, SCALAR
#define TFR_CPU_EW_RSQRT rsqrt, SCALAR
#define TFR_CPU_EW_CBRT cbrt, VM
#define TFR_CPU_EW_EXPM1 expm1, VM
#define TFR_CPU_EW_LOG1P log1p, VM
#define TFR_CPU_EW_ERF erf, VM
#define TFR_CPU_EW_LOGISTIC logistic, SCALAR
#define TFR_CPU_EW_ASIN asin, VM
#define TFR_CPU_EW_ACOS acos, VM
#define TFR_CPU_EW_ATAN atan, VM
#define TFR_CPU_EW_SINH sinh, VM
#define TFR_CPU_EW_COSH cosh, VM
#define TFR_CPU_EW_ASINH asinh, VM
#define TFR_CPU_EW_ACOSH acosh, VM
#define TFR_CPU_EW_ATANH atanh, VM
#define TFR_CPU_EW_ERFC erfc, VM
#define TFR_CPU_EW_POPCNT popcnt, SCALAR
#define TFR_CPU_EW_LGAMMA lgamma, SCALAR
#define TFR_CPU_EW_DIGAMMA digamma, SCALAR
#define TFR_CPU_EW_ERF_INV erf_inv, SCALAR
#define TFR_CPU_EW_BESSEL_I1E bessel_i1e, SCALAR
#define TFR_CPU_EW_ADD add, SCALAR
#define TFR_CPU_EW_SUBTRACT subtract, SCALAR
#define TFR_CPU_EW_MULTIPLY multiply, SCALAR
#define TFR_CPU_EW_DIVIDE divide, SCALAR
#define TFR_CPU_EW_REMAINDER remainder, SCALAR
#define TFR_CPU_EW_MAXIMUM maximum, SCALAR
#define TFR_CPU_EW_MINIMUM minimum, SCALAR
#define TFR_CPU_EW_POWER power, VM
#define TFR_CPU_EW_AND and, SCALAR
#define TFR_CPU_EW_OR or, SCALAR
#define TFR_CPU_EW_XOR xor, SCALAR
#define TFR_CPU_EW_ATAN2 atan2, VM
#define TFR_CPU_EW_SHIFT_LEFT shift_left, SCALAR
#define TFR_CPU_EW_SHIFT_RIGHT_ARITHMETIC shift_right_arithmetic, SCALAR
#define TFR_CPU_EW_SHIFT_RIGHT_LOGICAL shift_right_logical, SCALAR
#define TFR_CPU_EW_NEXT_AFTER next_after, SCALAR
#define TFR_CPU_EW_COMPLEX cplx, SCALAR

// One registry row -> its kernels: K for the scalar ones, KV for the vector
// ones. TFR_EW_ROW_ expands TFR_CPU_EW_<ID> into its two arguments.
#define TFR_EW_ROW(K, KV, ID, D, R) TFR_EW_ROW_(K, KV, TFR_##ID, D, R, TFR_CPU_EW_##ID)
#define TFR_EW_ROW_(K, KV, OP, D, R, IMPL) TFR_EW_ROW__(K, KV, OP, D, R, IMPL)
#define TFR_EW_ROW__(K, KV, OP, D, R, n, PATH) \
  TFR_EW_G_##PATH##_##D##_##R(K, OP, n) TFR_EW_VMPART_##PATH(KV, OP, n)

// Registry rows by family: P_UNARY / P_BINARY of a pass P, nothing else.
#define TFR_EW_FAM_UNARY(P, ID, D, R) P##_UNARY(ID, D, R)
#define TFR_EW_FAM_BINARY(P, ID, D, R) P##_BINARY(ID, D, R)
#define TFR_EW_FAM_SELECT(P, ID, D, R) P##_SELECT(ID, D, R)
#define TFR_EW_FAM_CLAMP(P, ID, D, R) P##_CLAMP(ID, D, R)
#define TFR_EW_FAM_COMPARE(P, ID, D, R) P##_COMPARE(ID, D, R)
#define TFR_EW_FAM_CONVERT(P, ID, D, R)
#define TFR_EW_FAM_STRUCTURAL(P, ID, D, R)
#define TFR_EW_FAM_REDUCE(P, ID, D, R)
#define TFR_EW_FAM_DOT(P, ID, D, R)
#define TFR_EW_FAM_GATHER(P, ID, D, R)
#define TFR_EW_FAM_SCATTER(P, ID, D, R)
#define TFR_EW_FAM_WINDOW(P, ID, D, R)

// The dtype tokens of a registry group (select, clamp, compare):
// X(args..., dt) for each dtype dt; `...` is the leading arguments with a
// trailing comma, or empty.
#define TFR_EW_DTS_BIF(X, ...)                                                         \
  X(__VA_ARGS__ b8) X(__VA_ARGS__ i8) X(__VA_ARGS__ i16) X(__VA_ARGS__ i32)            \
  X(__VA_ARGS__ i64) X(__VA_ARGS__ u8) X(__VA_ARGS__ u16) X(__VA_ARGS__ u32)           \
  X(__VA_ARGS__ u64) X(__VA_ARGS__ f16) X(__VA_ARGS__ bf16) X(__VA_ARGS__ f32)         \
  X(__VA_ARGS__ f64)
#define TFR_EW_DTS_ALL(X, ...) TFR_EW_DTS_BIF(X, __VA_ARGS__) X(__VA_ARGS__ c64) X(__VA_ARGS__ c128)
// A group without its complex dtypes (compare's orderings).
#define TFR_EW_REAL_ALL BIF

// compare, X(direction, name, dtype): EQ and NE on the registry's dtypes of
// compare, LT LE GT GE on those without complex (its attributes).
#define TFR_EW_CMP_ROWS(X, D) TFR_EW_CMP_ROWS_(X, D, TFR_EW_REAL_##D)
#define TFR_EW_CMP_ROWS_(X, D, RD) TFR_EW_CMP_ROWS__(X, D, RD)
#define TFR_EW_CMP_ROWS__(X, D, RD)                                                    \
  TFR_EW_DTS_##D(X, TFR_EQ, eq, ) TFR_EW_DTS_##D(X, TFR_NE, ne, )                      \
  TFR_EW_DTS_##RD(X, TFR_LT, lt, ) TFR_EW_DTS_##RD(X, TFR_LE, le, )                    \
  TFR_EW_DTS_##RD(X, TFR_GT, gt, ) TFR_EW_DTS_##RD(X, TFR_GE, ge, )

// ---------------------------------------------------------------------------
// Kernels and dispatch tables
// ---------------------------------------------------------------------------

#define TFR_EW_KERN_UNARY(ID, D, R) \
  TFR_EW_ROW(TFR_EW_UNARY_KERNEL, TFR_EW_VM_UNARY_KERNEL, ID, D, R)
#define TFR_EW_KERN_BINARY(ID, D, R) \
  TFR_EW_ROW(TFR_EW_BINARY_KERNEL, TFR_EW_VM_BINARY_KERNEL, ID, D, R)
#define TFR_EW_KERN_SELECT(ID, D, R) TFR_EW_DTS_##D(TFR_EW_SELECT_KERNEL, )
#define TFR_EW_KERN_CLAMP(ID, D, R) TFR_EW_DTS_##D(TFR_EW_CLAMP_KERNEL, )
#define TFR_EW_KERN_COMPARE(ID, D, R) TFR_EW_CMP_ROWS(TFR_EW_COMPARE_KERNEL, D)
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_KERN, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X

#define TFR_EW_OP_ENTRY(OP, name, dt, odt) [OP][TFR_EW_D(dt)] = tfr_ew_##name##_##dt,
#define TFR_EW_CMP_ENTRY(D, name, dt) [D][TFR_EW_D(dt)] = tfr_ew_cmp_##name##_##dt,
#define TFR_EW_SELECT_ENTRY(dt) [TFR_EW_D(dt)] = tfr_ew_select_##dt,
#define TFR_EW_CLAMP_ENTRY(dt) [TFR_EW_D(dt)] = tfr_ew_clamp_##dt,

// Table passes over the registry: one family each.
#define TFR_EW_UTAB_UNARY(ID, D, R) TFR_EW_ROW(TFR_EW_OP_ENTRY, TFR_EW_OP_ENTRY, ID, D, R)
#define TFR_EW_UTAB_BINARY(ID, D, R)
#define TFR_EW_UTAB_SELECT(ID, D, R)
#define TFR_EW_UTAB_CLAMP(ID, D, R)
#define TFR_EW_UTAB_COMPARE(ID, D, R)
#define TFR_EW_BTAB_UNARY(ID, D, R)
#define TFR_EW_BTAB_BINARY(ID, D, R) TFR_EW_ROW(TFR_EW_OP_ENTRY, TFR_EW_OP_ENTRY, ID, D, R)
#define TFR_EW_BTAB_SELECT(ID, D, R)
#define TFR_EW_BTAB_CLAMP(ID, D, R)
#define TFR_EW_BTAB_COMPARE(ID, D, R)
#define TFR_EW_STAB_UNARY(ID, D, R)
#define TFR_EW_STAB_BINARY(ID, D, R)
#define TFR_EW_STAB_SELECT(ID, D, R) TFR_EW_DTS_##D(TFR_EW_SELECT_ENTRY, )
#define TFR_EW_STAB_CLAMP(ID, D, R)
#define TFR_EW_STAB_COMPARE(ID, D, R)
#define TFR_EW_CTAB_UNARY(ID, D, R)
#define TFR_EW_CTAB_BINARY(ID, D, R)
#define TFR_EW_CTAB_SELECT(ID, D, R)
#define TFR_EW_CTAB_CLAMP(ID, D, R) TFR_EW_DTS_##D(TFR_EW_CLAMP_ENTRY, )
#define TFR_EW_CTAB_COMPARE(ID, D, R)
#define TFR_EW_QTAB_UNARY(ID, D, R)
#define TFR_EW_QTAB_BINARY(ID, D, R)
#define TFR_EW_QTAB_SELECT(ID, D, R)
#define TFR_EW_QTAB_CLAMP(ID, D, R)
#define TFR_EW_QTAB_COMPARE(ID, D, R) TFR_EW_CMP_ROWS(TFR_EW_CMP_ENTRY, D)

// Indexed by [op][operand dtype]; NULL where the registry rejects the dtype.
static const tfr_cpu_inner_fn tfr_ew_unary_table[TFR_UNARY_OP_COUNT][TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_UTAB, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X
};
static const tfr_cpu_inner_fn tfr_ew_binary_table[TFR_BINARY_OP_COUNT][TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_BTAB, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X
};
static const tfr_cpu_inner_fn tfr_ew_compare_table[TFR_GE + 1][TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_QTAB, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X
};
static const tfr_cpu_inner_fn tfr_ew_select_table[TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_STAB, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X
};
static const tfr_cpu_inner_fn tfr_ew_clamp_table[TFR_DTYPE_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_EW_FAM_##FAMILY(TFR_EW_CTAB, ID, DTYPES, RESULT)
#include "core/op_registry.def"
#undef X
};

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
