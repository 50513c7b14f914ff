// tenferro/ops.h: the primitive op set (StableHLO semantics).
//
// Semantics follow the StableHLO specification (openxla.org/stablehlo/spec);
// each function names its StableHLO op. Common contract of every op here:
//   * `session` is the calling thread's active session; every tensor argument
//     lives on the session's backend (host tensors on cpu). Inputs may be any
//     strided view: stride 0, negative strides, offsets.
//   * Binary elementwise ops take operands of identical shape and identical
//     dtype: no implicit promotion or broadcasting (use
//     tfr_broadcast_in_dim / tfr_convert).
//   * `out` receives a new compact row-major tensor on the session's backend;
//     the caller releases it. On error `*out` is NULL.
//   * An `_into` form writes a caller-provided tensor `out` of the result's
//     shape and dtype on the session's backend (any strides without
//     self-overlap). `out` may be one of the inputs exactly (same storage,
//     offset and strides: in place); any other overlap with an input is
//     rejected. On error `out` is unchanged.
//   * A `_shape` form (ops whose result size depends on attributes: pad,
//     concatenate, gather, dot_general, reduce_window) checks its arguments
//     exactly as the op does (the same errors, the same messages, which name
//     the op) and writes the result's shape, without allocating or computing
//     anything: a caller can bound the result's memory before asking for it.
//     On error the shape is unspecified.
//   * Common errors, not repeated per function:
//       TFR_ERR_INVALID_ARGUMENT  a NULL argument; shapes that differ (the
//                                 message gives both); an axis out of range.
//       TFR_ERR_UNSUPPORTED_DTYPE the op is not defined for the dtype (the
//                                 message names op and dtype).
//       TFR_ERR_NO_SESSION        `session` is not the thread's active session.
//       TFR_ERR_WRONG_BACKEND     a tensor of another backend instance.
//       TFR_ERR_OUT_OF_MEMORY, TFR_ERR_DEVICE_LOST.
//
// Dtype groups used below: "bool", "int" (signed i8 i16 i32 i64 and unsigned
// u8 u16 u32 u64), "float" (f16 bf16 f32 f64), "complex" (c64 c128),
// "numeric" = int + float + complex, "signed" = numeric without the unsigned
// integers, "all" = everything. Integer arithmetic wraps (two's complement);
// unsigned integers compare as unsigned. f16 and bf16 are computed in f32
// and each result is rounded once to the dtype (nearest, ties to even).
#ifndef TENFERRO_OPS_H_
#define TENFERRO_OPS_H_

#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/dtype.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// ===========================================================================
// Elementwise: unary
// ===========================================================================

// Unary elementwise ops. The result has the operand's shape and dtype unless
// the comment says otherwise. Values are stable: new ops are added at the end.
typedef enum tfr_unary_op {
  TFR_NEGATE = 0,              // StableHLO negate; numeric; integers wrap (unsigned: 0 - x)
  TFR_ABS = 1,                 // abs; signed; complex -> real dtype (|z|); INT_MIN -> INT_MIN
  TFR_SIGN = 2,                // sign; signed; -1/0/1, NaN -> NaN, +-0 kept; complex z/|z|, 0 at 0
  TFR_CONJ = 3,                // complex conjugate; numeric; identity for real dtypes
  TFR_NOT = 4,                 // not; bool, int (bitwise)
  TFR_FLOOR = 5,               // floor; float
  TFR_CEIL = 6,                // ceil; float
  TFR_ROUND_NEAREST_EVEN = 7,  // round_nearest_even; float
  TFR_ROUND_NEAREST_AFZ = 8,   // round_nearest_afz (halves away from zero); float
  TFR_IS_FINITE = 9,           // is_finite; float -> bool
  TFR_REAL = 10,               // real; float, complex -> real dtype
  TFR_IMAG = 11,               // imag; float (zeros), complex -> real dtype
  TFR_EXP = 12,                // exponential; float, complex
  TFR_LOG = 13,                // log; float, complex
  TFR_SIN = 14,                // sine; float, complex
  TFR_COS = 15,                // cosine; float, complex
  TFR_TAN = 16,                // tan; float, complex
  TFR_TANH = 17,               // tanh; float, complex
  TFR_SQRT = 18,               // sqrt; float, complex
  TFR_RSQRT = 19,              // rsqrt (1/sqrt); float, complex
  TFR_CBRT = 20,               // cbrt; float
  TFR_EXPM1 = 21,              // exponential_minus_one; float, complex
  TFR_LOG1P = 22,              // log_plus_one; float, complex
  TFR_ERF = 23,                // chlo erf; float
  TFR_LOGISTIC = 24,           // logistic 1/(1+exp(-x)); float, complex
  TFR_ASIN = 25,               // chlo asin; float, complex
  TFR_ACOS = 26,               // chlo acos; float, complex
  TFR_ATAN = 27,               // chlo atan; float, complex
  TFR_SINH = 28,               // chlo sinh; float, complex
  TFR_COSH = 29,               // chlo cosh; float, complex
  TFR_ASINH = 30,              // chlo asinh; float, complex
  TFR_ACOSH = 31,              // chlo acosh; float, complex
  TFR_ATANH = 32,              // chlo atanh; float, complex
  TFR_ERFC = 33,               // chlo erfc; float
  TFR_POPCNT = 34,             // popcnt; int (count of set bits)
  TFR_LGAMMA = 35,             // chlo lgamma, log|Gamma(x)|; float; +Inf at 0, -1, -2, ... and +-Inf
  TFR_DIGAMMA = 36,            // chlo digamma, psi(x); float; NaN at 0, -1, -2, ... and -Inf
  TFR_ERF_INV = 37,            // chlo erf_inv; float; +-Inf at +-1, NaN for |x| > 1
  TFR_BESSEL_I1E = 38,         // chlo bessel_i1e, exp(-|x|) I1(x); float; odd
} tfr_unary_op;
#define TFR_UNARY_OP_COUNT 39

// Returns the StableHLO name of `op` ("exponential"), or "invalid".
TFR_API const char *tfr_unary_op_name(tfr_unary_op op);

// Applies `op` to each element of `x`.
//   x    dtype as the op's comment says, any shape and strides.
//   out  new tensor, x's shape, dtype as the op's comment says.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for an invalid `op`.
TFR_API TFR_NODISCARD tfr_status tfr_unary(tfr_session *session, tfr_unary_op op,
                                           const tfr_tensor *x, tfr_tensor **out);
// As tfr_unary, writing into `out` (see the `_into` contract above).
TFR_API TFR_NODISCARD tfr_status tfr_unary_into(tfr_session *session, tfr_unary_op op,
                                                const tfr_tensor *x, tfr_tensor *out);

// One function per unary op: tfr_<name>(session, x, &out) == tfr_unary(session, TFR_<NAME>, x, &out).
TFR_API TFR_NODISCARD tfr_status tfr_negate(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_abs(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_sign(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_conj(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_not(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_floor(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_ceil(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_round_nearest_even(tfr_session *s, const tfr_tensor *x,
                                                        tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_round_nearest_afz(tfr_session *s, const tfr_tensor *x,
                                                       tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_is_finite(tfr_session *s, const tfr_tensor *x,
                                               tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_real(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_imag(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_exp(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_log(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_sin(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_cos(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_tan(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_tanh(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_sqrt(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_rsqrt(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_cbrt(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_expm1(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_log1p(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_erf(tfr_session *s, const tfr_tensor *x, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_logistic(tfr_session *s, const tfr_tensor *x,
                                              tfr_tensor **out);

// ===========================================================================
// Elementwise: binary
// ===========================================================================

// Binary elementwise ops: lhs and rhs of identical shape and dtype; the result
// has that shape and dtype unless the comment says otherwise.
typedef enum tfr_binary_op {
  TFR_ADD = 0,          // add; numeric; integers wrap
  TFR_SUBTRACT = 1,     // subtract; numeric
  TFR_MULTIPLY = 2,     // multiply; numeric
  TFR_DIVIDE = 3,       // divide; numeric. Integers truncate; x/0 = -1 (all bits set, also
                        // for unsigned), INT_MIN / -1 = INT_MIN (XLA's values)
  TFR_REMAINDER = 4,    // remainder; numeric except complex; sign of the dividend; float is
                        // fmod; integer x%0 = x, INT_MIN % -1 = 0
  TFR_MAXIMUM = 5,      // maximum; all; NaN-propagating; complex lexicographic (re, then im)
  TFR_MINIMUM = 6,      // minimum; all; as maximum
  TFR_POWER = 7,        // power; numeric; integers by squaring (wrapping), negative signed
                        // exponent gives 0 except for bases 1 and -1
  TFR_AND = 8,          // and; bool, int (bitwise)
  TFR_OR = 9,           // or; bool, int
  TFR_XOR = 10,         // xor; bool, int
  TFR_ATAN2 = 11,       // atan2(lhs, rhs); float, complex
  TFR_SHIFT_LEFT = 12,  // shift_left; int; counts (read as unsigned) >= bit width give 0
  TFR_SHIFT_RIGHT_ARITHMETIC = 13,  // int; counts >= width fill with the sign bit (the top
                                    // bit of the pattern, for unsigned too)
  TFR_SHIFT_RIGHT_LOGICAL = 14,     // int; counts >= width give 0
  TFR_NEXT_AFTER = 15,  // next_after(lhs, rhs); float (the next value of lhs's own dtype)
  TFR_COMPLEX = 16,     // complex(lhs = real part, rhs = imaginary part); f32 -> c64, f64 -> c128
                        // (f16 and bf16 have no complex dtype)
} tfr_binary_op;
#define TFR_BINARY_OP_COUNT 17

// Returns the StableHLO name of `op` ("add"), or "invalid".
TFR_API const char *tfr_binary_op_name(tfr_binary_op op);

// Applies `op` to each pair of elements.
//   lhs, rhs  identical shape and dtype; dtype as the op's comment says.
//   out       new tensor of that shape; dtype as the op's comment says.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for an invalid `op`.
TFR_API TFR_NODISCARD tfr_status tfr_binary(tfr_session *session, tfr_binary_op op,
                                            const tfr_tensor *lhs, const tfr_tensor *rhs,
                                            tfr_tensor **out);
// As tfr_binary, writing into `out` (see the `_into` contract above).
TFR_API TFR_NODISCARD tfr_status tfr_binary_into(tfr_session *session, tfr_binary_op op,
                                                 const tfr_tensor *lhs, const tfr_tensor *rhs,
                                                 tfr_tensor *out);

// One function per binary op: tfr_<name>(s, lhs, rhs, &out) == tfr_binary(s, TFR_<NAME>, ...).
TFR_API TFR_NODISCARD tfr_status tfr_add(tfr_session *s, const tfr_tensor *lhs,
                                         const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_subtract(tfr_session *s, const tfr_tensor *lhs,
                                              const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_multiply(tfr_session *s, const tfr_tensor *lhs,
                                              const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_divide(tfr_session *s, const tfr_tensor *lhs,
                                            const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_remainder(tfr_session *s, const tfr_tensor *lhs,
                                               const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_maximum(tfr_session *s, const tfr_tensor *lhs,
                                             const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_minimum(tfr_session *s, const tfr_tensor *lhs,
                                             const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_power(tfr_session *s, const tfr_tensor *lhs,
                                           const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_and(tfr_session *s, const tfr_tensor *lhs,
                                         const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_or(tfr_session *s, const tfr_tensor *lhs,
                                        const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_xor(tfr_session *s, const tfr_tensor *lhs,
                                         const tfr_tensor *rhs, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_complex(tfr_session *s, const tfr_tensor *lhs,
                                             const tfr_tensor *rhs, tfr_tensor **out);

// ===========================================================================
// Elementwise: compare, select, clamp
// ===========================================================================

// StableHLO comparison_direction.
typedef enum tfr_compare_direction {
  TFR_EQ = 0,
  TFR_NE = 1,
  TFR_LT = 2,
  TFR_LE = 3,
  TFR_GT = 4,
  TFR_GE = 5,
} tfr_compare_direction;

// StableHLO `compare`: lhs <direction> rhs per element, result bool.
//   lhs, rhs   identical shape and dtype; all dtypes (bool as unsigned;
//              complex: EQ and NE only). Floats follow IEEE 754: every
//              comparison with NaN is false except NE.
//   out        new bool tensor of that shape.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for an invalid direction;
//         TFR_ERR_UNSUPPORTED_DTYPE for an ordering direction on complex.
TFR_API TFR_NODISCARD tfr_status tfr_compare(tfr_session *session,
                                             tfr_compare_direction direction,
                                             const tfr_tensor *lhs, const tfr_tensor *rhs,
                                             tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_compare_into(tfr_session *session,
                                                  tfr_compare_direction direction,
                                                  const tfr_tensor *lhs, const tfr_tensor *rhs,
                                                  tfr_tensor *out);

// StableHLO `select`: pred ? on_true : on_false per element.
//   pred       bool; the shape of on_true, or rank 0 (one choice for all).
//   on_true, on_false  identical shape and dtype; all dtypes.
//   out        new tensor of that shape and dtype.
TFR_API TFR_NODISCARD tfr_status tfr_select(tfr_session *session, const tfr_tensor *pred,
                                            const tfr_tensor *on_true,
                                            const tfr_tensor *on_false, tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_select_into(tfr_session *session, const tfr_tensor *pred,
                                                 const tfr_tensor *on_true,
                                                 const tfr_tensor *on_false, tfr_tensor *out);

// StableHLO `clamp`: minimum(maximum(operand, min), max) per element.
//   min, max   operand's dtype; operand's shape or rank 0.
//   operand    bool, int, float (NaN propagates).
//   out        new tensor, operand's shape and dtype.
TFR_API TFR_NODISCARD tfr_status tfr_clamp(tfr_session *session, const tfr_tensor *min,
                                           const tfr_tensor *operand, const tfr_tensor *max,
                                           tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_clamp_into(tfr_session *session, const tfr_tensor *min,
                                                const tfr_tensor *operand,
                                                const tfr_tensor *max, tfr_tensor *out);

// ===========================================================================
// Structural
// ===========================================================================

// StableHLO `convert` to `dtype`, every pair of dtypes: int -> float and
// float -> narrower float round once to nearest even (directly: f64 -> f16
// does not pass through f32; beyond the largest finite value is infinity);
// float -> int rounds toward zero and saturates (unsigned: negative -> 0),
// NaN -> 0; int -> int wraps (keeps the low bits, sign-extended or
// zero-extended by the source's signedness, like C); complex -> real keeps
// the real part; real -> complex has imaginary part 0; -> bool is x != 0;
// bool -> number is 0 or 1.
//   x    any dtype, shape and strides.   out  new tensor, x's shape, `dtype`.
TFR_API TFR_NODISCARD tfr_status tfr_convert(tfr_session *session, const tfr_tensor *x,
                                             tfr_dtype dtype, tfr_tensor **out);
// As tfr_convert into `out`, whose dtype is the target (in place not allowed
// unless the dtypes are equal).
TFR_API TFR_NODISCARD tfr_status tfr_convert_into(tfr_session *session, const tfr_tensor *x,
                                                  tfr_tensor *out);

// StableHLO `reduce_precision`: rounds each element to a float format of
// `exponent_bits` exponent bits and `mantissa_bits` mantissa bits and back to
// x's dtype, as XLA does it: the mantissa is rounded to nearest, ties to even
// (a carry may raise the exponent); then magnitudes beyond the format's range
// become infinities of their sign and magnitudes below its smallest normal
// number become zeros of their sign (the format has no subnormals); NaN stays
// NaN (+inf when mantissa_bits is 0). Widths at least those of x's dtype
// change nothing (e.g. 11 and 52 on any float dtype; 5 and 10 give f16's
// normal range on an f32 tensor, 8 and 7 bf16's).
//   x              float dtype, any shape and strides.
//   exponent_bits  >= 1.   mantissa_bits  >= 0.
//   out            new tensor, x's shape and dtype.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for exponent_bits < 1 or
//         mantissa_bits < 0.
TFR_API TFR_NODISCARD tfr_status tfr_reduce_precision(tfr_session *session, const tfr_tensor *x,
                                                      int exponent_bits, int mantissa_bits,
                                                      tfr_tensor **out);

// A compact row-major copy of `x` (any view), on the session's backend.
TFR_API TFR_NODISCARD tfr_status tfr_copy(tfr_session *session, const tfr_tensor *x,
                                          tfr_tensor **out);
// Copies the elements of `x` into `out` (same shape and dtype, any strides).
TFR_API TFR_NODISCARD tfr_status tfr_copy_into(tfr_session *session, const tfr_tensor *x,
                                               tfr_tensor *out);

// StableHLO `transpose`: result axis k is axis permutation[k] of x, as a new
// compact tensor (tfr_tensor_view_transpose gives the view without copying).
//   permutation  int64[rank], a permutation of 0 .. rank-1.
TFR_API TFR_NODISCARD tfr_status tfr_transpose(tfr_session *session, const tfr_tensor *x,
                                               const int64_t *permutation, tfr_tensor **out);

// StableHLO `reshape` (row-major order, like numpy): a view when the strides
// allow it, else a compact copy.
//   rank, shape  the new shape, same element count.
TFR_API TFR_NODISCARD tfr_status tfr_reshape(tfr_session *session, const tfr_tensor *x,
                                             int rank, const int64_t *shape, tfr_tensor **out);

// StableHLO `broadcast_in_dim`, as a stride-0 view (no copy); arguments as
// tfr_tensor_view_broadcast_in_dim.
TFR_API TFR_NODISCARD tfr_status tfr_broadcast_in_dim(tfr_session *session, const tfr_tensor *x,
                                                      int rank, const int64_t *shape,
                                                      const int64_t *broadcast_dimensions,
                                                      tfr_tensor **out);

// Diagonal of axes `axis_a` and `axis_b` (distinct, any order): the result
// keeps the lower of the two axes with extent min(d_a, d_b) and removes the
// higher; element [.., i, ..] = x[.., i (at a), .., i (at b), ..].
//   x    all dtypes, rank >= 2.   out  new tensor of rank - 1.
TFR_API TFR_NODISCARD tfr_status tfr_extract_diagonal(tfr_session *session, const tfr_tensor *x,
                                                      int axis_a, int axis_b, tfr_tensor **out);

// Inverse of extract_diagonal: inserts a new axis at position `axis_b` of the
// result, with the extent of x's axis `axis_a`; the result is x on the diagonal
// of those two axes and zero elsewhere, so that
// extract_diagonal(embed_diagonal(x, a, b), a', b) == x, where a' = a if a < b
// else a + 1 (the position of x's axis `a` in the result).
//   x       all dtypes, rank r >= 1, r < TFR_MAX_RANK.
//   axis_a  an axis of x, in [0, r).   axis_b  in [0, r].
//   out     new tensor of rank r + 1.
TFR_API TFR_NODISCARD tfr_status tfr_embed_diagonal(tfr_session *session, const tfr_tensor *x,
                                                    int axis_a, int axis_b, tfr_tensor **out);

// numpy `tril`: keeps elements with col - row <= k of the last two axes, zero
// elsewhere. `triu` keeps col - row >= k.
//   x    all dtypes, rank >= 2.   k  any diagonal offset.
//   out  new tensor, x's shape and dtype.
TFR_API TFR_NODISCARD tfr_status tfr_tril(tfr_session *session, const tfr_tensor *x, int64_t k,
                                          tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_triu(tfr_session *session, const tfr_tensor *x, int64_t k,
                                          tfr_tensor **out);

// StableHLO `iota`: element [i0, .., ir-1] = i_{iota_dimension}, converted to
// `dtype` (bool: i != 0; complex: real part).
//   dtype  any.   rank >= 1, shape int64[rank].   iota_dimension in [0, rank).
TFR_API TFR_NODISCARD tfr_status tfr_iota(tfr_session *session, tfr_dtype dtype, int rank,
                                          const int64_t *shape, int iota_dimension,
                                          tfr_tensor **out);

// ===========================================================================
// Reductions
// ===========================================================================

// Combiners for tfr_reduce (StableHLO `reduce` with a one-op body).
typedef enum tfr_reduce_combiner {
  TFR_REDUCE_ADD = 0,       // numeric; identity 0
  TFR_REDUCE_MULTIPLY = 1,  // numeric; identity 1
  TFR_REDUCE_MAXIMUM = 2,   // bool, int, float (NaN propagates); identity lowest value (-inf)
  TFR_REDUCE_MINIMUM = 3,   // bool, int, float; identity highest value (+inf)
  TFR_REDUCE_AND = 4,       // bool, int; identity all bits set
  TFR_REDUCE_OR = 5,        // bool, int; identity 0
  TFR_REDUCE_XOR = 6,       // bool, int; identity 0
} tfr_reduce_combiner;

// StableHLO `reduce`: combines the elements along `axes` with `combiner`,
// starting from `init_value`; the reduced axes are removed. Reducing zero
// elements gives init_value. Float sums are pairwise (error O(log n)).
//   x           any shape; dtype as the combiner allows.
//   init_value  rank 0, x's dtype.
//   axes        int64[naxes], distinct, in [0, rank); naxes = 0 copies x.
//   out         new tensor of x's dtype, shape = x's without `axes`.
TFR_API TFR_NODISCARD tfr_status tfr_reduce(tfr_session *session, const tfr_tensor *x,
                                            const tfr_tensor *init_value,
                                            tfr_reduce_combiner combiner, int naxes,
                                            const int64_t *axes, tfr_tensor **out);

// tfr_reduce with the combiner's identity as init value.
TFR_API TFR_NODISCARD tfr_status tfr_reduce_sum(tfr_session *session, const tfr_tensor *x,
                                                int naxes, const int64_t *axes,
                                                tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_reduce_prod(tfr_session *session, const tfr_tensor *x,
                                                 int naxes, const int64_t *axes,
                                                 tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_reduce_max(tfr_session *session, const tfr_tensor *x,
                                                int naxes, const int64_t *axes,
                                                tfr_tensor **out);
TFR_API TFR_NODISCARD tfr_status tfr_reduce_min(tfr_session *session, const tfr_tensor *x,
                                                int naxes, const int64_t *axes,
                                                tfr_tensor **out);

// ===========================================================================
// dot_general
// ===========================================================================

// StableHLO `dot_general` dimension numbers and the conjugating variant.
// All arrays are borrowed for the duration of the call.
typedef struct tfr_dot_config {
  int num_batching_dims;                     // n_b >= 0
  const int64_t *lhs_batching_dimensions;    // int64[n_b], axes of lhs
  const int64_t *rhs_batching_dimensions;    // int64[n_b], axes of rhs, pairwise equal extents
  int num_contracting_dims;                  // n_c >= 0
  const int64_t *lhs_contracting_dimensions; // int64[n_c]
  const int64_t *rhs_contracting_dimensions; // int64[n_c], pairwise equal extents
  bool lhs_conj;  // use conj(lhs) (identity for real dtypes)
  bool rhs_conj;  // use conj(rhs)
} tfr_dot_config;

// StableHLO `dot_general`: out[b.., i.., j..] = sum over the contracting
// indices k.. of lhs[b.., i.., k..] * rhs[b.., j.., k..] (each operand's axes
// in its own order). Result axes are [batch..., lhs free..., rhs free...],
// free axes in their original order. A contraction over zero elements gives
// zeros. Floats and complex run through BLAS on the cpu backend.
//   lhs, rhs  numeric dtypes (not bool), identical dtype; any strides.
//   config    dimension numbers: every axis listed at most once per operand,
//             batching/contracting extents equal between lhs and rhs.
//   out       new compact tensor of the operands' dtype.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for a NULL config, an
//         axis out of range or listed twice, or extents that differ (the
//         message names both dims and extents).
TFR_API TFR_NODISCARD tfr_status tfr_dot_general(tfr_session *session, const tfr_tensor *lhs,
                                                 const tfr_tensor *rhs,
                                                 const tfr_dot_config *config, tfr_tensor **out);
// tfr_dot_general's result shape (the `_shape` form): *out_rank and
// out_shape[TFR_MAX_RANK] ([batch..., lhs free..., rhs free...]).
TFR_API TFR_NODISCARD tfr_status tfr_dot_general_shape(tfr_session *session,
                                                       const tfr_tensor *lhs,
                                                       const tfr_tensor *rhs,
                                                       const tfr_dot_config *config,
                                                       int *out_rank, int64_t *out_shape);

// The accumulating form: out = alpha * dot_general(lhs, rhs) + beta * out.
//   alpha, beta  pointers to one value of the operands' dtype (e.g. a
//                `double` for f64, two floats for c64). With beta zero `out`
//                is never read (NaN in it does not propagate); with alpha
//                zero lhs and rhs are not read (BLAS's convention: out =
//                beta * out even if an operand holds NaN).
//   out          a tensor of the result's shape and dtype on the session's
//                backend, any strides without self-overlap, not overlapping
//                lhs or rhs.
// Errors: as tfr_dot_general, plus those of an `_into` output.
TFR_API TFR_NODISCARD tfr_status tfr_dot_general_accumulate(
    tfr_session *session, const tfr_tensor *lhs, const tfr_tensor *rhs,
    const tfr_dot_config *config, const void *alpha, const void *beta, tfr_tensor *out);

// ===========================================================================
// Indexing: slice, dynamic_slice, dynamic_update_slice, pad, concatenate,
// reverse, gather, scatter
// ===========================================================================

// StableHLO `slice` as a new compact tensor (tfr_tensor_view_slice gives the
// view). start/limit/strides as tfr_tensor_view_slice.
TFR_API TFR_NODISCARD tfr_status tfr_slice(tfr_session *session, const tfr_tensor *operand,
                                           const int64_t *start_indices,
                                           const int64_t *limit_indices, const int64_t *strides,
                                           tfr_tensor **out);

// StableHLO `reverse` as a new compact tensor.
//   dimensions  int64[n], distinct axes.
TFR_API TFR_NODISCARD tfr_status tfr_reverse(tfr_session *session, const tfr_tensor *operand,
                                             int n, const int64_t *dimensions, tfr_tensor **out);

// StableHLO `dynamic_slice`: the slice of extents `slice_sizes` starting at
// the values of the rank-0 integer tensors start_indices[0..rank), each
// clamped to [0, extent - slice_size].
//   start_indices  `rank` rank-0 tensors of one integer dtype (signed or
//                  unsigned) on the session.
//   slice_sizes    int64[rank], 0 <= size <= extent.
TFR_API TFR_NODISCARD tfr_status tfr_dynamic_slice(tfr_session *session,
                                                   const tfr_tensor *operand,
                                                   const tfr_tensor *const *start_indices,
                                                   const int64_t *slice_sizes, tfr_tensor **out);

// StableHLO `dynamic_update_slice`: a copy of `operand` with `update`
// written at the (clamped) start indices.
//   update         operand's dtype and rank, extents <= operand's.
TFR_API TFR_NODISCARD tfr_status tfr_dynamic_update_slice(tfr_session *session,
                                                          const tfr_tensor *operand,
                                                          const tfr_tensor *update,
                                                          const tfr_tensor *const *start_indices,
                                                          tfr_tensor **out);

// StableHLO `pad`: edge padding (negative values crop) and interior padding.
//   padding_value  rank 0, operand's dtype.
//   edge_padding_low/high  int64[rank].   interior_padding  int64[rank], >= 0.
//   out  extent lo + d + max(d - 1, 0) * interior + hi per axis (must be >= 0).
TFR_API TFR_NODISCARD tfr_status tfr_pad(tfr_session *session, const tfr_tensor *operand,
                                         const tfr_tensor *padding_value,
                                         const int64_t *edge_padding_low,
                                         const int64_t *edge_padding_high,
                                         const int64_t *interior_padding, tfr_tensor **out);
// tfr_pad's result shape (the `_shape` form): out_shape[rank of operand].
TFR_API TFR_NODISCARD tfr_status tfr_pad_shape(tfr_session *session, const tfr_tensor *operand,
                                               const tfr_tensor *padding_value,
                                               const int64_t *edge_padding_low,
                                               const int64_t *edge_padding_high,
                                               const int64_t *interior_padding,
                                               int64_t *out_shape);

// StableHLO `concatenate` of n >= 1 tensors along `dimension`: same dtype,
// same extents except along `dimension`.
TFR_API TFR_NODISCARD tfr_status tfr_concatenate(tfr_session *session, int n,
                                                 const tfr_tensor *const *inputs, int dimension,
                                                 tfr_tensor **out);
// tfr_concatenate's result shape (the `_shape` form): out_shape[rank of
// the inputs] (the sum of their extents along `dimension`).
TFR_API TFR_NODISCARD tfr_status tfr_concatenate_shape(tfr_session *session, int n,
                                                       const tfr_tensor *const *inputs,
                                                       int dimension, int64_t *out_shape);

// StableHLO `gather` dimension numbers (all arrays borrowed for the call).
typedef struct tfr_gather_config {
  int num_offset_dims;
  const int64_t *offset_dims;
  int num_collapsed_slice_dims;
  const int64_t *collapsed_slice_dims;
  int num_operand_batching_dims;
  const int64_t *operand_batching_dims;
  int num_start_indices_batching_dims;
  const int64_t *start_indices_batching_dims;
  int num_start_index_map;
  const int64_t *start_index_map;
  int64_t index_vector_dim;  // may equal the rank of start_indices (implicit trailing 1)
  const int64_t *slice_sizes;  // int64[rank of operand]
  bool indices_are_sorted;   // a hint; never required for correctness
} tfr_gather_config;

// StableHLO `gather`; start indices are clamped so each slice fits.
//   operand        any dtype and shape.   start_indices  any integer dtype.
//   out            new compact tensor of operand's dtype, shape per the spec.
TFR_API TFR_NODISCARD tfr_status tfr_gather(tfr_session *session, const tfr_tensor *operand,
                                            const tfr_tensor *start_indices,
                                            const tfr_gather_config *config, tfr_tensor **out);
// tfr_gather's result shape (the `_shape` form): *out_rank and
// out_shape[TFR_MAX_RANK].
TFR_API TFR_NODISCARD tfr_status tfr_gather_shape(tfr_session *session, const tfr_tensor *operand,
                                                  const tfr_tensor *start_indices,
                                                  const tfr_gather_config *config, int *out_rank,
                                                  int64_t *out_shape);

// Scatter combiners (the body of StableHLO `scatter` reduced to one op).
typedef enum tfr_scatter_combiner {
  TFR_SCATTER_REPLACE = 0,   // the update replaces the value
  TFR_SCATTER_ADD = 1,
  TFR_SCATTER_MULTIPLY = 2,
  TFR_SCATTER_MAXIMUM = 3,
  TFR_SCATTER_MINIMUM = 4,
} tfr_scatter_combiner;

// StableHLO `scatter` dimension numbers.
typedef struct tfr_scatter_config {
  int num_update_window_dims;
  const int64_t *update_window_dims;
  int num_inserted_window_dims;
  const int64_t *inserted_window_dims;
  int num_input_batching_dims;
  const int64_t *input_batching_dims;
  int num_scatter_indices_batching_dims;
  const int64_t *scatter_indices_batching_dims;
  int num_scatter_dims_to_operand_dims;
  const int64_t *scatter_dims_to_operand_dims;
  int64_t index_vector_dim;
  tfr_scatter_combiner combiner;
  bool indices_are_sorted;  // hints only
  bool unique_indices;
} tfr_scatter_config;

// StableHLO `scatter`: a copy of `operand` with `updates` combined in at the
// windows `scatter_indices` select; a window with any element out of bounds
// is skipped whole. Duplicate indices combine in index order (row-major over
// the update scatter dims), so results are deterministic.
//   operand, updates  same dtype: replace, maximum, minimum take every dtype
//                     (bool: maximum = or, minimum = and; complex:
//                     lexicographic, real part then imaginary, NaN
//                     propagating); add and multiply take numeric dtypes.
//   scatter_indices   any integer dtype.
TFR_API TFR_NODISCARD tfr_status tfr_scatter(tfr_session *session, const tfr_tensor *operand,
                                             const tfr_tensor *scatter_indices,
                                             const tfr_tensor *updates,
                                             const tfr_scatter_config *config, tfr_tensor **out);

// ===========================================================================
// Windows and bit casts
// ===========================================================================
//
// Window arguments of tfr_reduce_window and tfr_select_and_scatter, for an
// operand of rank r (each array borrowed for the call):
//   window_dimensions  int64[r], each >= 1 (may be NULL only when r = 0).
//   window_strides     int64[r], each >= 1; NULL means all 1.
//   padding            int64[r][2] row-major, {low, high} per axis (the
//                      StableHLO `padding` attribute flattened); NULL means
//                      no padding.
// A window along axis k covers (window_dimensions[k] - 1) * window_dilation
// + 1 elements of the padded (and base-dilated) operand; the number of
// windows along k is floor((padded - dilated_window) / stride) + 1, or 0 when
// the padded extent is 0 or smaller than the dilated window.

// StableHLO `reduce_window` with a one-op body: each result element reduces
// one window of the operand, padded with init_value and base-dilated (holes
// of init_value between elements), starting from init_value. A window is
// reduced sequentially in row-major window order (acc = combiner(acc, x)),
// which fixes the rounding of float sums and products.
//   operand           any shape and strides; dtype as `combiner` allows
//                     (tfr_reduce_combiner: add/multiply numeric, maximum/
//                     minimum bool, int, float, and/or/xor bool, int).
//   init_value        rank 0, operand's dtype.
//   window_dimensions, window_strides, padding  see above. padding may be
//                     negative (crops), as long as each padded extent is >= 0.
//   base_dilations    int64[r], each >= 1; NULL means all 1.
//   window_dilations  int64[r], each >= 1; NULL means all 1.
//   out               new compact tensor of operand's dtype, rank r, extents
//                     the number of windows per axis (may be empty).
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for an invalid combiner,
//         init_value not rank 0 or of another dtype, a window dimension,
//         stride or dilation < 1, a NULL window_dimensions for r > 0, or a
//         negative padded extent (the message names the argument and axis).
TFR_API TFR_NODISCARD tfr_status tfr_reduce_window(
    tfr_session *session, const tfr_tensor *operand, const tfr_tensor *init_value,
    tfr_reduce_combiner combiner, const int64_t *window_dimensions,
    const int64_t *window_strides, const int64_t *base_dilations,
    const int64_t *window_dilations, const int64_t *padding, tfr_tensor **out);
// tfr_reduce_window's result shape (the `_shape` form): out_shape[rank of
// operand], the number of windows per axis. (The op itself may also hold the
// padded, base-dilated operand while it runs.)
TFR_API TFR_NODISCARD tfr_status tfr_reduce_window_shape(
    tfr_session *session, const tfr_tensor *operand, const tfr_tensor *init_value,
    tfr_reduce_combiner combiner, const int64_t *window_dimensions,
    const int64_t *window_strides, const int64_t *base_dilations,
    const int64_t *window_dilations, const int64_t *padding, int64_t *out_shape);

// StableHLO `select_and_scatter` (the gradient of max/min pooling) with a
// compare select body and a one-op scatter body. In each window of the padded
// operand one element is selected: the first, replaced by each following
// element e (row-major window order) unless compare(selected, e) holds under
// `select_direction` (so GE selects the first maximum, LE the first minimum;
// with NaN the comparison fails and the later element is taken). Padded
// positions are never selected; a window of padding only selects nothing.
// The result starts as init_value everywhere; each source element is combined
// into the selected position of its window, acc = scatter_combiner(acc,
// source), the windows reaching one position taken in row-major order.
//   operand           any shape r; a dtype allowed by scatter_combiner (as
//                     in tfr_reduce_window); complex only with EQ and NE.
//   source            operand's dtype, rank r, extents the number of windows
//                     per axis (no dilations).
//   init_value        rank 0, operand's dtype.
//   select_direction  the select body's comparison_direction.
//   scatter_combiner  the scatter body (tfr_reduce_combiner).
//   window_dimensions, window_strides, padding  see above; padding >= 0.
//   out               new compact tensor, operand's shape and dtype.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for an invalid direction
//         or combiner, source of another dtype, rank or extents, init_value
//         not rank 0 or of another dtype, window dimensions/strides < 1,
//         negative padding; TFR_ERR_UNSUPPORTED_DTYPE for an ordering
//         direction on complex or a combiner that excludes the dtype.
TFR_API TFR_NODISCARD tfr_status tfr_select_and_scatter(
    tfr_session *session, const tfr_tensor *operand, const tfr_tensor *source,
    const tfr_tensor *init_value, tfr_compare_direction select_direction,
    tfr_reduce_combiner scatter_combiner, const int64_t *window_dimensions,
    const int64_t *window_strides, const int64_t *padding, tfr_tensor **out);

// StableHLO `bitcast_convert`: the operand's bytes (row-major, each element
// little-endian as stored) read as `dtype`.
//   operand  any shape and strides. Complex converts only to complex and
//            real only to real (spec C2); bool only to bool (other bytes
//            would not be 0/1).
//   dtype    the result's dtype. Equal element sizes keep the shape
//            (i32 <-> f32, i64 <-> f64, c64 <-> c64, ...). A smaller target
//            adds a last axis of extent size(operand) / size(dtype) (f64 ->
//            i32[..., 2]); a larger one needs a last axis of extent
//            size(dtype) / size(operand) and removes it (c64[..., 2] -> c128).
//   out      new compact tensor of `dtype`.
// Errors: the common ones; TFR_ERR_INVALID_ARGUMENT for complex <-> real or a
//         last axis of the wrong extent (or rank 0) when widening;
//         TFR_ERR_UNSUPPORTED_DTYPE for an invalid dtype or bool <-> non-bool.
TFR_API TFR_NODISCARD tfr_status tfr_bitcast_convert(tfr_session *session,
                                                     const tfr_tensor *operand, tfr_dtype dtype,
                                                     tfr_tensor **out);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_OPS_H_
