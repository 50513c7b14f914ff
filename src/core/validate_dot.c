// Validation and layout analysis of dot_general (see validate.h). The layout
// helpers live here, beside the checks, because the public op, the cached
// plan (ops_dot.c) and the cpu kernel (src/cpu/dot.c) must agree on them:
// a plan packs an operand exactly when the kernel would.
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "core/op_registry.h"
#include "core/validate.h"

// Checks one operand's list of `n` axes of kind `kind`, marking them in
// `used` (shared between the batching and contracting lists of an operand).
static tfr_status tfr_dot_check_axes(const char *op, const char *side, const char *kind,
                                     int rank, int n, const int64_t *axes, const char **used) {
  if (n > 0 && !axes)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s_%s_dimensions is NULL for %d dims", op,
                     side, kind, n);
  for (int i = 0; i < n; i++) {
    int64_t a = axes[i];
    if (a < 0 || a >= rank)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s %s dim %" PRId64 " (entry %d) is out of range for rank %d", op,
                       side, kind, a, i, rank);
    if (used[a])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s dim %" PRId64 " is listed twice (as %s dim and as %s dim)", op,
                       side, a, used[a], kind);
    used[a] = kind;
  }
  return TFR_OK;
}

static tfr_status tfr_dot_check_count(const char *op, const char *what, int n, int lrank,
                                      int rrank) {
  if (n < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is %d, must be >= 0", op, what, n);
  if (n > lrank || n > rrank)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s is %d, %s has rank %d", op, what, n,
                     n > lrank ? "lhs" : "rhs", n > lrank ? lrank : rrank);
  return TFR_OK;
}

tfr_status tfr_validate_dot_dims(const char *op, tfr_dtype ldtype, int lrank,
                                 const int64_t *lshape, tfr_dtype rdtype, int rrank,
                                 const int64_t *rshape, const tfr_dot_config *config,
                                 tfr_dot_desc *d, int *out_rank, int64_t *out_shape) {
  if (ldtype != rdtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: lhs has dtype %s, rhs has dtype %s (no implicit promotion: use "
                     "tfr_convert)",
                     op, tfr_dtype_name(ldtype), tfr_dtype_name(rdtype));
  TFR_RETURN_IF_ERROR(tfr_validate_dtype(op, ldtype, tfr_op_info_of(TFR_OPID_DOT_GENERAL)->dtypes));
  if (!config) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: config is NULL", op);
  int nb = config->num_batching_dims, nc = config->num_contracting_dims;
  TFR_RETURN_IF_ERROR(tfr_dot_check_count(op, "num_batching_dims", nb, lrank, rrank));
  TFR_RETURN_IF_ERROR(tfr_dot_check_count(op, "num_contracting_dims", nc, lrank, rrank));
  if (lrank < 0 || lrank > TFR_MAX_RANK || rrank < 0 || rrank > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: ranks %d and %d, each must be 0 to %d", op,
                     lrank, rrank, TFR_MAX_RANK);
  const char *lused[TFR_MAX_RANK], *rused[TFR_MAX_RANK];
  memset(lused, 0, (size_t)lrank * sizeof *lused);
  memset(rused, 0, (size_t)rrank * sizeof *rused);
  TFR_RETURN_IF_ERROR(tfr_dot_check_axes(op, "lhs", "batching", lrank, nb,
                                         config->lhs_batching_dimensions, lused));
  TFR_RETURN_IF_ERROR(tfr_dot_check_axes(op, "rhs", "batching", rrank, nb,
                                         config->rhs_batching_dimensions, rused));
  TFR_RETURN_IF_ERROR(tfr_dot_check_axes(op, "lhs", "contracting", lrank, nc,
                                         config->lhs_contracting_dimensions, lused));
  TFR_RETURN_IF_ERROR(tfr_dot_check_axes(op, "rhs", "contracting", rrank, nc,
                                         config->rhs_contracting_dimensions, rused));
  for (int i = 0; i < nb; i++) {
    int64_t la = config->lhs_batching_dimensions[i], ra = config->rhs_batching_dimensions[i];
    if (lshape[la] != rshape[ra])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: lhs batching dim %" PRId64 " has extent %" PRId64
                       ", rhs batching dim %" PRId64 " has extent %" PRId64,
                       op, la, lshape[la], ra, rshape[ra]);
  }
  for (int i = 0; i < nc; i++) {
    int64_t la = config->lhs_contracting_dimensions[i],
            ra = config->rhs_contracting_dimensions[i];
    if (lshape[la] != rshape[ra])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: lhs contracting dim %" PRId64 " has extent %" PRId64
                       ", rhs contracting dim %" PRId64 " has extent %" PRId64,
                       op, la, lshape[la], ra, rshape[ra]);
  }
  int rank = nb + (lrank - nb - nc) + (rrank - nb - nc);
  if (rank > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: the result would have rank %d, more than TFR_MAX_RANK (%d)", op, rank,
                     TFR_MAX_RANK);

  // Every field but the six axis lists, which are written below up to their
  // counts and never read past them: zeroing their 3 KB was a tenth of a
  // tiny contraction's instructions.
  memset(d, 0, offsetof(tfr_dot_desc, lhs_batch));
  memset(&d->lhs_conj, 0, sizeof *d - offsetof(tfr_dot_desc, lhs_conj));
  d->dtype = ldtype;
  d->nbatch = nb;
  d->ncontract = nc;
  int r = 0;
  for (int i = 0; i < nb; i++) {
    d->lhs_batch[i] = config->lhs_batching_dimensions[i];
    d->rhs_batch[i] = config->rhs_batching_dimensions[i];
    out_shape[r++] = lshape[d->lhs_batch[i]];
  }
  for (int i = 0; i < nc; i++) {
    d->lhs_contract[i] = config->lhs_contracting_dimensions[i];
    d->rhs_contract[i] = config->rhs_contracting_dimensions[i];
  }
  for (int k = 0; k < lrank; k++)
    if (!lused[k]) {
      d->lhs_free[d->nlhs_free++] = k;
      out_shape[r++] = lshape[k];
    }
  for (int k = 0; k < rrank; k++)
    if (!rused[k]) {
      d->rhs_free[d->nrhs_free++] = k;
      out_shape[r++] = rshape[k];
    }
  int64_t numel;
  TFR_RETURN_IF_ERROR(tfr_shape_numel(op, rank, out_shape, &numel));
  bool complex = tfr_dtype_get_info(ldtype)->kind == TFR_KIND_COMPLEX;
  d->lhs_conj = complex && config->lhs_conj;
  d->rhs_conj = complex && config->rhs_conj;
  *out_rank = rank;
  // The plain form's alpha = 1, beta = 0.
  tfr_scalar_set(ldtype, 1.0, 1, d->alpha);
  d->beta_zero = true;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------

static int64_t tfr_dot_mul_sat(int64_t a, int64_t b) {
  int64_t r;
  return tfr_mul_i64(a, b, &r) ? r : INT64_MAX;
}

// The largest M * N * K per dtype that the small GEMM kernels run faster
// than a per-element OpenBLAS 0.3.21 call (its Haswell kernels; square
// batches of 0.3-0.6 GFLOP on one core of an AVX-512 AMD EPYC, the median of
// 15 runs): f64 0.57-0.83x the BLAS time from 6^3 to 24^3, 1.14x at 32^3;
// c128 0.50-0.93x up to 32^3; f32 0.61-0.86x up to 9^3, 1.19x at 12^3 and
// above; c64 0.64-0.78x to 8^3 and at 16^3, 1.02-1.2x at 9^3, 12^3 and 20^3.
static int64_t tfr_dot_small_gemm_max_mnk(tfr_dtype dtype) {
  switch (dtype) {
    case TFR_F32: return 9 * 9 * 9;
    case TFR_F64: return 24 * 24 * 24;
    case TFR_C64: return 16 * 16 * 16;
    case TFR_C128: return 32 * 32 * 32;
    default: return 0;
  }
}

bool tfr_dot_small_gemm(tfr_dtype dtype, int64_t M, int64_t N, int64_t K) {
  return M <= TFR_DOT_SMALL_GEMM_MAX_SIDE && N <= TFR_DOT_SMALL_GEMM_MAX_SIDE &&
         K <= TFR_DOT_SMALL_GEMM_MAX_SIDE && M * N * K <= tfr_dot_small_gemm_max_mnk(dtype);
}

// The largest inner M * N * K per dtype of a looped product (one small GEMM
// per looped contracting index instead of packed copies and one BLAS call),
// measured on one core of the development machine's AMD EPYC: products
// [P, M, R] . [P, N, R] over (P, R) with M = N = R from 12 to 64, warm in
// cache, were as fast either way up to about 20^3 (f32) and 32^3 (f64), and
// slower beyond (f32 32^3 0.075 -> 0.102 ms, 64^3 0.10 -> 0.19; f64 64^3
// 0.22 -> 0.26). In a network, where the operands come from memory, the loop
// reads them once (str_mps_varying_inner_product_200, 19^3 per call, one
// thread: f64 14.4 -> 10.1 ms, f32 10.2 -> 5.0). Complex products are left to
// packing: c64 gained 10% there and c128 nothing (26.9 -> 27.4 ms), and their
// sums would be added with beta = 1 + 0i, which turns an infinite part into
// NaN in the other part (0 * inf).
static int64_t tfr_dot_loop_max_mnk(tfr_dtype dtype) {
  switch (dtype) {
    case TFR_F32: return 20 * 20 * 20;
    case TFR_F64: return 32 * 32 * 32;
    default: return 0;
  }
}

bool tfr_dot_loop_gemm(tfr_dtype dtype, int64_t M, int64_t N, int64_t K) {
  if (M > TFR_DOT_SMALL_GEMM_MAX_SIDE || N > TFR_DOT_SMALL_GEMM_MAX_SIDE ||
      K > TFR_DOT_SMALL_GEMM_MAX_SIDE)
    return false;
  int64_t mnk = M * N * K;
  return mnk >= TFR_DOT_LOOP_MIN_MNK && mnk <= tfr_dot_loop_max_mnk(dtype);
}

int64_t tfr_dot_mnk(const tfr_dot_desc *d, const int64_t *lshape, const int64_t *rshape) {
  int64_t n = 1;
  for (int i = 0; i < d->nlhs_free; i++) n = tfr_dot_mul_sat(n, lshape[d->lhs_free[i]]);
  for (int i = 0; i < d->nrhs_free; i++) n = tfr_dot_mul_sat(n, rshape[d->rhs_free[i]]);
  for (int i = 0; i < d->ncontract; i++) n = tfr_dot_mul_sat(n, lshape[d->lhs_contract[i]]);
  return n;
}

bool tfr_dot_merge_axes(int n, const int64_t *axes, const int64_t *shape, const int64_t *strides,
                        int64_t *extent, int64_t *stride) {
  int64_t e = 1, s = 1;
  bool any = false;
  // Walk inner to outer: each outer axis must step exactly over the inner span.
  for (int i = n - 1; i >= 0; i--) {
    int64_t ext = shape[axes[i]];
    if (ext == 1) continue;
    if (ext == 0) {
      *extent = 0;
      *stride = 1;
      return true;
    }
    int64_t st = strides[axes[i]], span;
    if (!any) {
      s = st;
      any = true;
    } else if (!tfr_mul_i64(s, e, &span) || st != span) {
      return false;
    }
    // Extents of an empty tensor's other axes are unbounded: no overflow.
    if (!tfr_mul_i64(e, ext, &e)) return false;
  }
  *extent = e;
  *stride = s;
  return true;
}

// Row-major BLAS-style strided matrix [rows, cols] with row stride rs and
// column stride cs: usable in place when one stride is 1 and the other
// (the leading dimension) covers a whole row/column, all within `int`.
// An extent of 1 makes its stride irrelevant; it is then chosen to fit.
bool tfr_dot_blas_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans,
                         int64_t *ld) {
  if (rows > INT_MAX || cols > INT_MAX) return false;
  int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
  if (rows <= 1) rs = c1;  // free: pick the compact value
  if (cols <= 1) cs = 1;
  if (cs == 1 && rs >= c1 && rs <= INT_MAX) {
    *trans = false;
    *ld = rs;
    return true;
  }
  // Transposed storage: [cols, rows] row-major with leading dimension cs.
  if (rows <= 1) rs = 1;
  if (cols <= 1) cs = r1;
  if (rs == 1 && cs >= r1 && cs <= INT_MAX) {
    *trans = true;
    *ld = cs;
    return true;
  }
  return false;
}

// Rows and columns of an operand's matrix: lhs is [free, contract], rhs is
// [contract, free] (the rhs orientation of a row-major GEMM).
static bool tfr_dot_operand_matrix(const tfr_dot_desc *d, int which, const int64_t *shape,
                                   const int64_t *strides, int64_t *rows, int64_t *cols,
                                   int64_t *rs, int64_t *cs) {
  if (which == TFR_DOT_SIDE_LHS)
    return tfr_dot_merge_axes(d->nlhs_free, d->lhs_free, shape, strides, rows, rs) &&
           tfr_dot_merge_axes(d->ncontract, d->lhs_contract, shape, strides, cols, cs);
  return tfr_dot_merge_axes(d->ncontract, d->rhs_contract, shape, strides, rows, rs) &&
         tfr_dot_merge_axes(d->nrhs_free, d->rhs_free, shape, strides, cols, cs);
}

bool tfr_dot_operand_direct(const tfr_dot_desc *d, int which, const int64_t *shape,
                            const int64_t *strides) {
  int64_t rows, cols, rs, cs, ld;
  bool trans;
  if (!tfr_dot_operand_matrix(d, which, shape, strides, &rows, &cols, &rs, &cs)) return false;
  tfr_dtype_kind kind = tfr_dtype_get_info(d->dtype)->kind;
  if (kind == TFR_KIND_INT || kind == TFR_KIND_UINT) {
    // The integer kernel reads lhs elements one by one (any strides) and
    // streams rhs rows, which must be contiguous.
    return which == TFR_DOT_SIDE_LHS || cols <= 1 || cs == 1;
  }
  return tfr_dot_blas_matrix(rows, cols, rs, cs, &trans, &ld);
}

// |stride| of an axis as a sort key; axes of extent <= 1 count as 0 (their
// stride is meaningless, possibly INT64_MIN).
static int64_t tfr_dot_key(const int64_t *shape, const int64_t *strides, int64_t axis) {
  int64_t st = strides[axis];
  if (shape[axis] <= 1) return 0;
  return st == INT64_MIN ? INT64_MAX : llabs(st);
}

// Sorts contracting pairs (positions into d's lists) by |stride| of one
// operand, descending; stable so ties keep the config order.
static void tfr_dot_sort_pairs(int n, int *order, const int64_t *axes, const int64_t *shape,
                               const int64_t *strides) {
  for (int i = 1; i < n; i++) {
    int v = order[i];
    int64_t a = tfr_dot_key(shape, strides, axes[v]);
    int j = i;
    while (j > 0 && tfr_dot_key(shape, strides, axes[order[j - 1]]) < a) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = v;
  }
}

static bool tfr_dot_merges_in(const tfr_dot_desc *d, const int *order, bool lhs,
                              const int64_t *shape, const int64_t *strides) {
  int64_t axes[TFR_MAX_RANK], e, s;
  for (int i = 0; i < d->ncontract; i++)
    axes[i] = lhs ? d->lhs_contract[order[i]] : d->rhs_contract[order[i]];
  return tfr_dot_merge_axes(d->ncontract, axes, shape, strides, &e, &s);
}

// Puts d's contracting pairs in the order `order` (positions into d's lists).
static void tfr_dot_apply_order(tfr_dot_desc *d, const int *order) {
  int n = d->ncontract;
  int64_t la[TFR_MAX_RANK], ra[TFR_MAX_RANK];
  for (int i = 0; i < n; i++) {
    la[i] = d->lhs_contract[order[i]];
    ra[i] = d->rhs_contract[order[i]];
  }
  memcpy(d->lhs_contract, la, (size_t)n * sizeof la[0]);
  memcpy(d->rhs_contract, ra, (size_t)n * sizeof ra[0]);
}

void tfr_dot_order_contracting(tfr_dot_desc *d, const int64_t *lshape, const int64_t *lstrides,
                               const int64_t *rshape, const int64_t *rstrides) {
  int n = d->ncontract;
  if (n < 2) return;
  int by_l[TFR_MAX_RANK], by_r[TFR_MAX_RANK];
  for (int i = 0; i < n; i++) by_l[i] = by_r[i] = i;
  tfr_dot_sort_pairs(n, by_l, d->lhs_contract, lshape, lstrides);
  tfr_dot_sort_pairs(n, by_r, d->rhs_contract, rshape, rstrides);
  bool ll = tfr_dot_merges_in(d, by_l, true, lshape, lstrides);
  bool lr = tfr_dot_merges_in(d, by_l, false, rshape, rstrides);
  bool rl = tfr_dot_merges_in(d, by_r, true, lshape, lstrides);
  bool rr = tfr_dot_merges_in(d, by_r, false, rshape, rstrides);
  // Prefer an order in which both merge; else keep the one operand that can
  // be read in place (the other is packed in that order anyway).
  const int *order = (ll && lr) ? by_l : (rl && rr) ? by_r : ll ? by_l : rr ? by_r : by_l;
  tfr_dot_apply_order(d, order);
}

// The smallest number of leading contracting pairs of d after which the rest
// merge into one stride in both operands (a single pair always does); *k:
// the rest's product of extents.
static int tfr_dot_loop_at(const tfr_dot_desc *d, const int64_t *lshape, const int64_t *lstrides,
                           const int64_t *rshape, const int64_t *rstrides, int64_t *k) {
  int n = d->ncontract, outer = 0;
  const int64_t *la = d->lhs_contract, *ra = d->rhs_contract;
  int64_t e, s;
  while (outer < n - 1 && !(tfr_dot_merge_axes(n - outer, la + outer, lshape, lstrides, k, &s) &&
                            tfr_dot_merge_axes(n - outer, ra + outer, rshape, rstrides, &e, &s)))
    outer++;
  if (outer == n - 1) *k = lshape[la[n - 1]];
  return outer;
}

int tfr_dot_loop_contracting(tfr_dot_desc *d, const int64_t *lshape, const int64_t *lstrides,
                             const int64_t *rshape, const int64_t *rstrides) {
  int n = d->ncontract;
  if (n < 2 || tfr_dot_loop_max_mnk(d->dtype) == 0) return 0;
  int64_t M, N, s;
  if (!tfr_dot_merge_axes(d->nlhs_free, d->lhs_free, lshape, lstrides, &M, &s) ||
      !tfr_dot_merge_axes(d->nrhs_free, d->rhs_free, rshape, rstrides, &N, &s))
    return 0;
  // Candidate orders: each operand's memory order (outer first); the one
  // whose inner product qualifies with the longer inner K.
  int by[2][TFR_MAX_RANK];
  for (int i = 0; i < n; i++) by[0][i] = by[1][i] = i;
  tfr_dot_sort_pairs(n, by[0], d->lhs_contract, lshape, lstrides);
  tfr_dot_sort_pairs(n, by[1], d->rhs_contract, rshape, rstrides);
  int best = -1, best_outer = 0;
  int64_t best_k = 0;
  for (int c = 0; c < 2; c++) {
    tfr_dot_desc t = *d;
    tfr_dot_apply_order(&t, by[c]);
    int64_t k = 1;
    int outer = tfr_dot_loop_at(&t, lshape, lstrides, rshape, rstrides, &k);
    if (outer == 0) return 0;  // they merge: not a looped product
    if (!tfr_dot_loop_gemm(d->dtype, M, N, k) || k <= best_k) continue;
    best = c;
    best_k = k;
    best_outer = outer;
  }
  if (best < 0) return 0;
  tfr_dot_apply_order(d, by[best]);
  return best_outer;
}

void tfr_dot_pack_permutation(const tfr_dot_desc *d, int which, int64_t *perm) {
  int r = 0;
  if (which == TFR_DOT_SIDE_LHS) {
    for (int i = 0; i < d->nbatch; i++) perm[r++] = d->lhs_batch[i];
    for (int i = 0; i < d->nlhs_free; i++) perm[r++] = d->lhs_free[i];
    for (int i = 0; i < d->ncontract; i++) perm[r++] = d->lhs_contract[i];
  } else {
    for (int i = 0; i < d->nbatch; i++) perm[r++] = d->rhs_batch[i];
    for (int i = 0; i < d->ncontract; i++) perm[r++] = d->rhs_contract[i];
    for (int i = 0; i < d->nrhs_free; i++) perm[r++] = d->rhs_free[i];
  }
}

void tfr_dot_use_packed(tfr_dot_desc *d, int which, const tfr_tensor *packed) {
  int nb = d->nbatch, nc = d->ncontract;
  if (which == TFR_DOT_SIDE_LHS) {
    int nf = d->nlhs_free;
    d->lhs = packed;
    for (int i = 0; i < nb; i++) d->lhs_batch[i] = i;
    for (int i = 0; i < nf; i++) d->lhs_free[i] = nb + i;
    for (int i = 0; i < nc; i++) d->lhs_contract[i] = nb + nf + i;
  } else {
    int nf = d->nrhs_free;
    d->rhs = packed;
    for (int i = 0; i < nb; i++) d->rhs_batch[i] = i;
    for (int i = 0; i < nc; i++) d->rhs_contract[i] = nb + i;
    for (int i = 0; i < nf; i++) d->rhs_free[i] = nb + nc + i;
  }
}

tfr_status tfr_dot_pack(tfr_backend *b, const tfr_dot_desc *d, int which, tfr_tensor **out) {
  *out = NULL;
  const tfr_tensor *t = which == TFR_DOT_SIDE_LHS ? d->lhs : d->rhs;
  int64_t perm[TFR_MAX_RANK];
  tfr_dot_pack_permutation(d, which, perm);
  tfr_tensor *view = NULL, *packed = NULL;
  tfr_status st = tfr_tensor_view_transpose(t, perm, &view);
  if (!st) st = tfr_tensor_alloc(b, t->dtype, view->rank, view->shape, false, &packed);
  if (!st) {
    tfr_structural_desc sd = {.kind = TFR_STRUCT_CONVERT, .in = view, .out = packed};
    st = b->vtable->structural(b, &sd);
  }
  tfr_tensor_release(view);
  if (st) {
    tfr_tensor_release(packed);
    return st;
  }
  *out = packed;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Tensor-level checks
// ---------------------------------------------------------------------------

tfr_status tfr_validate_dot(const char *op, tfr_session *s, const tfr_tensor *lhs,
                            const tfr_tensor *rhs, const tfr_dot_config *config,
                            tfr_dot_desc *d, int *out_rank, int64_t *out_shape) {
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "lhs", s, lhs));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "rhs", s, rhs));
  TFR_RETURN_IF_ERROR(tfr_validate_dot_dims(op, lhs->dtype, lhs->rank, lhs->shape, rhs->dtype,
                                            rhs->rank, rhs->shape, config, d, out_rank,
                                            out_shape));
  d->lhs = lhs;
  d->rhs = rhs;
  tfr_dot_order_contracting(d, lhs->shape, lhs->strides, rhs->shape, rhs->strides);
  return TFR_OK;
}

// Element range [lo, hi] of storage a non-empty tensor reaches.
static void tfr_dot_range(const tfr_tensor *t, int64_t *lo, int64_t *hi) {
  int64_t l = t->offset, h = t->offset;
  for (int k = 0; k < t->rank; k++) {
    int64_t reach = (t->shape[k] - 1) * t->strides[k];
    if (reach < 0) l += reach;
    else h += reach;
  }
  *lo = l;
  *hi = h;
}

tfr_status tfr_validate_dot_accumulate(const char *op, tfr_session *s, tfr_dot_desc *d,
                                       const tfr_tensor *lhs, const tfr_tensor *rhs,
                                       const void *alpha, const void *beta, tfr_tensor *out,
                                       int rank, const int64_t *shape) {
  if (!alpha) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: alpha is NULL", op);
  if (!beta) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: beta is NULL", op);
  TFR_RETURN_IF_ERROR(tfr_validate_output(op, s, out, d->dtype, rank, shape, NULL, 0));
  // BLAS forbids the output to alias an operand, even exactly: reject any
  // shared element range (a conservative test on the storage's span).
  const tfr_tensor *ins[2] = {lhs, rhs};
  if (out->numel > 0)
    for (int i = 0; i < 2; i++) {
      const tfr_tensor *in = ins[i];
      if (in->storage != out->storage || in->numel == 0) continue;
      int64_t lo, hi, olo, ohi;
      tfr_dot_range(in, &lo, &hi);
      tfr_dot_range(out, &olo, &ohi);
      if (lo <= ohi && olo <= hi)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "%s: out overlaps %s (the accumulating form needs an output that "
                         "shares no memory with the operands)",
                         op, i == 0 ? "lhs" : "rhs");
    }
  size_t es = tfr_dtype_size(d->dtype);
  d->accumulate = true;
  memcpy(d->alpha, alpha, es);
  memset(d->beta, 0, sizeof d->beta);
  memcpy(d->beta, beta, es);
  d->alpha_zero = tfr_scalar_is_zero(d->dtype, d->alpha);
  d->beta_zero = tfr_scalar_is_zero(d->dtype, d->beta);
  d->out = out;
  return TFR_OK;
}
