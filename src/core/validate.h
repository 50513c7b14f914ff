// The one validation layer. Every op's argument checks live here, run before
// any output is allocated or written, and infer the result dtype and shape;
// backends receive the filled descriptors and never re-check them.
#ifndef TENFERRO_SRC_CORE_VALIDATE_H_
#define TENFERRO_SRC_CORE_VALIDATE_H_

#include "core/backend_impl.h"

// Elementwise descriptors. On success `d` is filled except `out`; call
// tfr_elementwise_desc_cleanup once done (also after a later failure).
tfr_status tfr_validate_unary(tfr_session *s, tfr_unary_op op, const tfr_tensor *x,
                              tfr_elementwise_desc *d);
tfr_status tfr_validate_binary(tfr_session *s, tfr_binary_op op, const tfr_tensor *lhs,
                               const tfr_tensor *rhs, tfr_elementwise_desc *d);
tfr_status tfr_validate_compare(tfr_session *s, tfr_compare_direction dir, const tfr_tensor *lhs,
                                const tfr_tensor *rhs, tfr_elementwise_desc *d);
tfr_status tfr_validate_select(tfr_session *s, const tfr_tensor *pred, const tfr_tensor *on_true,
                               const tfr_tensor *on_false, tfr_elementwise_desc *d);
tfr_status tfr_validate_clamp(tfr_session *s, const tfr_tensor *min, const tfr_tensor *operand,
                              const tfr_tensor *max, tfr_elementwise_desc *d);
void tfr_elementwise_desc_cleanup(tfr_elementwise_desc *d);

// The dtype rule of one elementwise op: checks the operand dtypes
// (dtypes[ndtypes], in operand order) and gives the result dtype. Used by the
// validators above and by fusion plans.
tfr_status tfr_elementwise_result_dtype(tfr_ew_kind kind, int op, int ndtypes,
                                        const tfr_dtype *dtypes, tfr_dtype *out_dtype);

// Checks a caller-provided output of an `_into` op: placement, `dtype`,
// `rank`/`shape`, no self-overlap, and no overlap with the `ninputs` inputs
// other than being one of them exactly.
tfr_status tfr_validate_output(const char *op, const tfr_session *s, const tfr_tensor *out,
                               tfr_dtype dtype, int rank, const int64_t *shape,
                               const tfr_tensor *const *inputs, int ninputs);

// Checks an axis list: each in [0, rank), distinct. Writes them sorted to
// `sorted` (int64[naxes]).
tfr_status tfr_validate_axes(const char *op, int rank, int naxes, const int64_t *axes,
                             int64_t *sorted);

// Checks that `dtype` is in the `mask` (TFR_DT_* bits) of op `op`.
tfr_status tfr_validate_dtype(const char *op, tfr_dtype dtype, uint32_t mask);

// reduce_precision: session, placement, a float dtype, exponent_bits >= 1,
// mantissa_bits >= 0.
tfr_status tfr_validate_reduce_precision(tfr_session *s, const tfr_tensor *x, int exponent_bits,
                                         int mantissa_bits);

// Reductions: fills `d` (except out) and the result shape.
tfr_status tfr_validate_reduce(tfr_session *s, const tfr_tensor *x, const tfr_tensor *init,
                               tfr_reduce_combiner combiner, int naxes, const int64_t *axes,
                               tfr_reduce_desc *d, int *out_rank, int64_t *out_shape);

// ---- Indexing (src/core/validate_indexing.c) ----
// Each checks the StableHLO constraints of its op (messages name the op, the
// argument, the value and the spec's constraint label) and writes the
// result's shape (rank: the operand's, unless an out_rank is given).

// slice: `strides` NULL means all 1.
tfr_status tfr_validate_slice(tfr_session *s, const tfr_tensor *operand, const int64_t *start,
                              const int64_t *limit, const int64_t *strides, int64_t *out_shape);
tfr_status tfr_validate_reverse(tfr_session *s, const tfr_tensor *operand, int n,
                                const int64_t *dimensions);
// dynamic_slice / dynamic_update_slice: `rank` start tensors, rank 0, one
// integer dtype (any, signed or unsigned) for all, on the session's backend.
tfr_status tfr_validate_dynamic_slice(tfr_session *s, const tfr_tensor *operand,
                                      const tfr_tensor *const *start_indices,
                                      const int64_t *slice_sizes);
tfr_status tfr_validate_dynamic_update_slice(tfr_session *s, const tfr_tensor *operand,
                                             const tfr_tensor *update,
                                             const tfr_tensor *const *start_indices);
tfr_status tfr_validate_pad(tfr_session *s, const tfr_tensor *operand,
                            const tfr_tensor *padding_value, const int64_t *low,
                            const int64_t *high, const int64_t *interior, int64_t *out_shape);
tfr_status tfr_validate_concatenate(tfr_session *s, int n, const tfr_tensor *const *inputs,
                                    int dimension, int64_t *out_shape);
// gather / scatter: fill `d` except `out`.
tfr_status tfr_validate_gather(tfr_session *s, const tfr_tensor *operand,
                               const tfr_tensor *start_indices, const tfr_gather_config *config,
                               tfr_gather_desc *d, int *out_rank, int64_t *out_shape);
tfr_status tfr_validate_scatter(tfr_session *s, const tfr_tensor *operand,
                                const tfr_tensor *scatter_indices, const tfr_tensor *updates,
                                const tfr_scatter_config *config, tfr_scatter_desc *d);

// ---------------------------------------------------------------------------
// dot_general (src/core/validate_dot.c)
// ---------------------------------------------------------------------------

// Operand sides of a dot_general, for the layout helpers below.
enum { TFR_DOT_SIDE_LHS = 0, TFR_DOT_SIDE_RHS = 1 };

// Checks dtypes, config and shapes of a dot_general given only the
// operands' dtypes and shapes (the cached plan has no tensors yet). `op`
// names the caller in messages. On success fills `d`'s dtype, conj flags and
// axis lists (contracting pairs in config order; lhs, rhs and out NULL; the
// plain form: alpha 1, beta 0) and writes the result's rank and shape
// (int64[TFR_MAX_RANK]).
tfr_status tfr_validate_dot_dims(const char *op, tfr_dtype ldtype, int lrank,
                                 const int64_t *lshape, tfr_dtype rdtype, int rrank,
                                 const int64_t *rshape, const tfr_dot_config *config,
                                 tfr_dot_desc *d, int *out_rank, int64_t *out_shape);

// tfr_validate_dot_dims for tensors, plus session and placement checks; sets
// d->lhs, d->rhs and orders the contracting pairs for their strides.
tfr_status tfr_validate_dot(const char *op, tfr_session *s, const tfr_tensor *lhs,
                            const tfr_tensor *rhs, const tfr_dot_config *config,
                            tfr_dot_desc *d, int *out_rank, int64_t *out_shape);

// Checks the accumulating form's out (placement, dtype, the result's
// rank/shape, no self-overlap, no memory shared with lhs or rhs) and its
// scalars (alpha, beta: one value of d->dtype each, not NULL), and sets
// d->out, accumulate, alpha, beta and their zero flags.
tfr_status tfr_validate_dot_accumulate(const char *op, tfr_session *s, tfr_dot_desc *d,
                                       const tfr_tensor *lhs, const tfr_tensor *rhs,
                                       const void *alpha, const void *beta, tfr_tensor *out,
                                       int rank, const int64_t *shape);

// 1 of `dtype` into bytes[16] (rest zero); whether bytes hold 0 (+-0 too).

// Per batch element, dot products of at most this many multiply-adds run in
// the cpu backend's strided loop, which reads every layout in place (no
// packing, no BLAS call). Measured in src/cpu/dot.c.
#define TFR_DOT_SMALL_MNK 128

// The longest side (M, N or K per batch element) of the cpu backend's small
// GEMM kernels (src/cpu/small_gemm.c).
#define TFR_DOT_SMALL_GEMM_MAX_SIDE 64

// Whether the cpu backend runs floats or complex products of M x N x K per
// batch element of `dtype` through its small GEMM kernels (sides up to
// TFR_DOT_SMALL_GEMM_MAX_SIDE and a limit on M * N * K per dtype, where they
// beat a BLAS call per batch element), which read and write every operand
// whose batch, free and contracting axis groups each merge into one stride in
// place, whatever those strides are. False for other dtypes.
bool tfr_dot_small_gemm(tfr_dtype dtype, int64_t M, int64_t N, int64_t K);

// M * N * K per batch element (saturating at INT64_MAX: an empty operand's
// other extents are unbounded), from the operands' shapes and d's lists.
int64_t tfr_dot_mnk(const tfr_dot_desc *d, const int64_t *lshape, const int64_t *rshape);

// Layout helpers shared by the op, the plan and the cpu kernel.
//
// Merges axes[0..n) (outer to inner) of a tensor of `shape`/`strides` into
// one axis: true when every non-unit axis steps exactly over the span of the
// inner ones; then *extent is their product and *stride the innermost stride.
bool tfr_dot_merge_axes(int n, const int64_t *axes, const int64_t *shape, const int64_t *strides,
                        int64_t *extent, int64_t *stride);
// Whether the strided row-major matrix [rows, cols] (row stride rs, column
// stride cs) is a BLAS operand as is: *trans false with leading dimension
// *ld = row stride (column stride 1), or *trans true (row stride 1, *ld the
// column stride). Extents and ld must fit a BLAS `int`.
bool tfr_dot_blas_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans,
                         int64_t *ld);
// Whether the cpu kernel reads operand `which` of `d`, with this shape and
// strides, in place (else it packs a copy for sizeable problems). lhs is the
// matrix [free, contracting], rhs [contracting, free], each group merged.
bool tfr_dot_operand_direct(const tfr_dot_desc *d, int which, const int64_t *shape,
                            const int64_t *strides);
// Reorders d's contracting pairs so that both operands' contracting axes
// merge into one stride when some order allows it (else so that one does).
void tfr_dot_order_contracting(tfr_dot_desc *d, const int64_t *lshape, const int64_t *lstrides,
                               const int64_t *rshape, const int64_t *rstrides);
// Looped products (a loop over GEMMs, "LoG" in Di Napoli et al., 2014):
// when the contracting axes merge into one stride in no order but their
// innermost ones do in both operands (str_mps_varying_inner_product_200:
// T[p, l, r] . B[p, l', r] over (p, r), the bond r contiguous in both, the
// physical p outermost), the cpu backend adds one small GEMM per index of
// the outer contracting axes into the result, every operand read in place,
// instead of packing copies. tfr_dot_loop_contracting reorders d's
// contracting pairs (the looped ones first) and returns how many are looped,
// or 0 when d is not a looped product: its free groups must each merge into
// one stride, its contracting pairs must not all merge, and the inner
// product (M x N x the inner K) must pass tfr_dot_loop_gemm. Einsum's layout
// planning and the dot_general plan ask the same question, so that neither
// copies an operand the cpu reads in place. lshape/lstrides and
// rshape/rstrides: the operands' geometry (d's tensors are not read).
int tfr_dot_loop_contracting(tfr_dot_desc *d, const int64_t *lshape, const int64_t *lstrides,
                             const int64_t *rshape, const int64_t *rstrides);
#define TFR_DOT_LOOP_MIN_MNK 1024
// Whether the cpu backend runs a looped product whose inner product per
// looped index is M x N x K of `dtype`: sides up to
// TFR_DOT_SMALL_GEMM_MAX_SIDE, at least TFR_DOT_LOOP_MIN_MNK multiply-adds
// (a call's fixed cost) and at most a per-dtype limit (beyond it packing for
// BLAS is faster); f32 and f64 only (complex sums would be added with
// beta = 1 + 0i, whose product with an infinite part gives NaN in the other
// part where one sum keeps it finite).
bool tfr_dot_loop_gemm(tfr_dtype dtype, int64_t M, int64_t N, int64_t K);
// The axis permutation of the packed (compact) copy of operand `which`:
// lhs [batch..., free..., contracting...], rhs [batch..., contracting...,
// free...], batching and contracting axes in d's pair order.
void tfr_dot_pack_permutation(const tfr_dot_desc *d, int which, int64_t *perm);
// Packs operand `which` of `d` into a new compact tensor on `b` in that
// order (values unchanged: conj stays a flag).
tfr_status tfr_dot_pack(tfr_backend *b, const tfr_dot_desc *d, int which, tfr_tensor **out);
// Points operand `which` of `d` at `packed` (made by tfr_dot_pack with the
// same d) and renumbers that operand's axis lists.
void tfr_dot_use_packed(tfr_dot_desc *d, int which, const tfr_tensor *packed);

// ---------------------------------------------------------------------------
// Windows and bit casts (src/core/validate_window.c)
// ---------------------------------------------------------------------------
// Each checks the StableHLO constraints of its op (messages name the op, the
// argument, the value and the spec's constraint label). Optional arrays may
// be NULL: window_strides, base_dilations, window_dilations (all 1) and
// padding (all 0); window_dimensions only for rank 0.

// reduce_window: writes the result shape (operand's rank) to out_shape.
tfr_status tfr_validate_reduce_window(tfr_session *s, const tfr_tensor *operand,
                                      const tfr_tensor *init_value, tfr_reduce_combiner combiner,
                                      const int64_t *window_dimensions,
                                      const int64_t *window_strides,
                                      const int64_t *base_dilations,
                                      const int64_t *window_dilations, const int64_t *padding,
                                      int64_t *out_shape);
// select_and_scatter: the result has the operand's shape.
tfr_status tfr_validate_select_and_scatter(tfr_session *s, const tfr_tensor *operand,
                                           const tfr_tensor *source,
                                           const tfr_tensor *init_value,
                                           tfr_compare_direction select_direction,
                                           tfr_reduce_combiner scatter_combiner,
                                           const int64_t *window_dimensions,
                                           const int64_t *window_strides,
                                           const int64_t *padding);
// bitcast_convert: writes the result rank and shape (int64[TFR_MAX_RANK]).
tfr_status tfr_validate_bitcast_convert(tfr_session *s, const tfr_tensor *operand,
                                        tfr_dtype dtype, int *out_rank, int64_t *out_shape);

#endif  // TENFERRO_SRC_CORE_VALIDATE_H_
