// The differential suite of every backend, driven by the op registry
// (tenferro/registry.h, src/core/op_registry.def; issue #16).
//
// For every backend (the cpu always; webgpu when an adapter exists: without
// one the webgpu part skips, or fails under TFR_REQUIRE_WEBGPU=1), every op of
// the registry (tfr_op_count) and every dtype it lists (tfr_op_dtypes):
//   * tfr_backend_supports says no: running the op must give
//     TFR_ERR_UNSUPPORTED_DTYPE and leave *out NULL (so must every dtype the
//     op is not defined for);
//   * yes: the family's case builder (bo_families) makes seeded inputs of
//     the dtype (random non-zero values after special ones: NaN, +-Inf, +-0,
//     subnormals, the largest finite value; integer edge values) and the op's
//     attributes, in each layout of the inputs (compact; strided: a step-2
//     slice of a larger tensor; stride 0: a broadcast_in_dim view; negative
//     strides: a reverse view; transposed: the last two axes of a transpose
//     view, the copy kernels' tiled path; rank 0; empty), and the op runs through the
//     public API. The reference is the cpu backend's result on the same
//     values as compact tensors: on the cpu this checks layout invariance, on
//     webgpu agreement with the cpu. Some builders have variants (comparison
//     directions, convert targets, combiners, axes, index dtypes).
//   * the elementwise unary and binary ops also run on the numpy reference
//     data of tests/ref/gen_elementwise.py (build/tests/data/elementwise) for
//     f32, f64, i32 and c64, compared with numpy's values.
// Tolerances come from the registry's tolerance class (bo_tolerance, the one
// place they are set). A family without a builder fails the test: a new op
// row of a known family, a new dtype or a new backend gets tested from the
// registry, without a new test file.
//
// BO_VERBOSE=1 in the environment prints every case as it runs.
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/op_registry.h"
#include "support.h"

// ---------------------------------------------------------------------------
// Known failures: (backend, op, dtype, layout) mismatches that are reported
// bugs. A case listed here still runs; its mismatch is printed and counted,
// not failed. Keep this list short and each entry explained.
// ---------------------------------------------------------------------------

typedef struct bo_known_failure {
  const char *backend;  // tfr_backend_name
  const char *op;       // tfr_op_name
  tfr_dtype dtype;
  const char *layout;   // bo_layout_names; NULL: every layout
  const char *why;
} bo_known_failure;

static const bo_known_failure bo_known_failures[] = {
    {NULL, NULL, TFR_BOOL, NULL, NULL},  // (end)
};

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

enum { K_NORMAL, K_RANK0, K_EMPTY };  // the shapes a builder makes
enum { L_COMPACT, L_STRIDED, L_STRIDE0, L_NEGATIVE, L_TRANSPOSED, L_RANK0, L_EMPTY, L_COUNT };
static const char *const bo_layout_names[L_COUNT] = {"compact", "strided", "stride0", "negative",
                                                     "transposed", "rank0", "empty"};

#define BO_MAXIN 3
#define BO_MAXAUX 3

typedef struct bo_case {
  tfr_dtype dt;
  int kind;
  int variant;
  // Data operands: their values are generated, and they take each layout.
  int nin;
  tfr_dtype in_dt[BO_MAXIN];
  int in_rank[BO_MAXIN];
  int64_t in_shape[BO_MAXIN][4];
  bool accum_values;  // special values that keep sums order-independent
  // Other operands (indices, init and padding values): compact host tensors.
  int naux;
  tfr_tensor *aux[BO_MAXAUX];
  // Attributes (their meaning is the family's).
  int iattr[4];
  int64_t a[6][4];
  tfr_dtype target;
  // Comparison.
  tfr_tol_class tol;
  int64_t nterms;  // terms accumulated into one result element
  char desc[64];   // the variant, for messages
} bo_case;

static void bo_in(bo_case *c, tfr_dtype dt, int rank, const int64_t *shape) {
  assert_true(c->nin < BO_MAXIN);
  c->in_dt[c->nin] = dt;
  c->in_rank[c->nin] = rank;
  for (int k = 0; k < rank; k++) c->in_shape[c->nin][k] = shape[k];
  c->nin++;
}

// An operand of the case's dtype in the case's kind of shape: `normal` for
// K_NORMAL, rank 0, or `normal` with its first extent 0 for K_EMPTY.
static void bo_in_kind(bo_case *c, int rank, const int64_t *normal) {
  int64_t sh[4];
  for (int k = 0; k < rank; k++) sh[k] = normal[k];
  if (c->kind == K_EMPTY) sh[0] = 0;
  bo_in(c, c->dt, c->kind == K_RANK0 ? 0 : rank, sh);
}

static void bo_aux(bo_case *c, tfr_dtype dt, int rank, const int64_t *shape, const void *data) {
  assert_true(c->naux < BO_MAXAUX);
  c->aux[c->naux++] = tfr_test_tensor(dt, rank, shape, data);
}

// A rank-0 aux value of the case's dtype (init and padding values).
static void bo_aux_scalar(bo_case *c, uint64_t seed) {
  assert_true(c->naux < BO_MAXAUX);
  c->aux[c->naux++] = tfr_test_random_tensor(c->dt, 0, NULL, seed);
}

// A rank-0 integer index of dtype `dt` holding `v`.
static void bo_aux_index(bo_case *c, tfr_dtype dt, int64_t v) {
  unsigned char b[8];
  memcpy(b, &v, 8);  // little-endian: the low bytes are the narrower value
  bo_aux(c, dt, 0, NULL, b);
}

static void bo_case_free(bo_case *c) {
  for (int i = 0; i < c->naux; i++) tfr_tensor_release(c->aux[i]);
  c->naux = 0;
}

// Whether the op (by public name) is defined for `dt`.
static bool bo_defined(const char *name, tfr_dtype dt) {
  tfr_op_id op = 0;
  uint32_t mask = 0;
  TFR_ASSERT_OK(tfr_op_lookup(name, &op));
  TFR_ASSERT_OK(tfr_op_dtypes(op, &mask));
  return (mask & (1u << dt)) != 0;
}

static bool bo_is_complex(tfr_dtype dt) { return dt == TFR_C64 || dt == TFR_C128; }

// Builders return 1 (built), 0 (the variant does not apply to this kind of
// shape) or -1 (no such variant: the last one was variant - 1).
typedef int (*bo_build_fn)(const tfr_op_info *info, bo_case *c);
typedef tfr_status (*bo_run_fn)(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out);

// ---- UNARY, BINARY ----

static int bo_build_elementwise(const tfr_op_info *info, bo_case *c) {
  if (c->variant > 0) return -1;
  const int64_t sh[2] = {6, 11};
  for (int i = 0; i < info->arity; i++) bo_in_kind(c, 2, sh);
  return 1;
}

static tfr_status bo_run_unary(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                               tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  (void)c, (void)aux;
  return tfr_unary(s, (tfr_unary_op)info->param, in[0], out);
}

static tfr_status bo_run_binary(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  (void)c, (void)aux;
  return tfr_binary(s, (tfr_binary_op)info->param, in[0], in[1], out);
}

// ---- COMPARE: every direction the dtype takes ----

static int bo_build_compare(const tfr_op_info *info, bo_case *c) {
  (void)info;
  static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  if (c->variant >= (bo_is_complex(c->dt) ? 2 : 6)) return -1;
  const int64_t sh[2] = {6, 11};
  bo_in_kind(c, 2, sh);
  bo_in_kind(c, 2, sh);
  c->iattr[0] = c->variant;
  snprintf(c->desc, sizeof c->desc, "%s", names[c->variant]);
  return 1;
}

static tfr_status bo_run_compare(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                 tfr_tensor *const *in, tfr_tensor *const *aux,
                                 tfr_tensor **out) {
  (void)info, (void)aux;
  return tfr_compare(s, (tfr_compare_direction)c->iattr[0], in[0], in[1], out);
}

// ---- SELECT (pred of the operands' shape, or rank 0), CLAMP (bounds of the
// operand's shape, or rank 0) ----

static int bo_build_ternary(const tfr_op_info *info, bo_case *c) {
  if (c->variant > 1) return -1;
  const int64_t sh[2] = {6, 11};
  bool select = info->family == TFR_FAMILY_SELECT;
  int scalar = c->variant == 1 ? 0 : (c->kind == K_RANK0 ? 0 : 2);
  int64_t ssh[2] = {sh[0], sh[1]};
  if (c->kind == K_EMPTY) ssh[0] = 0;
  if (select) {
    bo_in(c, TFR_BOOL, scalar, ssh);
    bo_in_kind(c, 2, sh);
    bo_in_kind(c, 2, sh);
  } else {
    bo_in(c, c->dt, scalar, ssh);
    bo_in_kind(c, 2, sh);
    bo_in(c, c->dt, scalar, ssh);
  }
  if (c->variant == 1) snprintf(c->desc, sizeof c->desc, "rank-0 %s", select ? "pred" : "bounds");
  return 1;
}

static tfr_status bo_run_select(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  (void)info, (void)c, (void)aux;
  return tfr_select(s, in[0], in[1], in[2], out);
}

static tfr_status bo_run_clamp(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                               tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  (void)info, (void)c, (void)aux;
  return tfr_clamp(s, in[0], in[1], in[2], out);
}

// ---- CONVERT: to every dtype; variant 0 converts to another dtype (what
// tfr_backend_supports answers for), the last one to the same dtype ----

static int bo_build_convert(const tfr_op_info *info, bo_case *c) {
  (void)info;
  if (c->variant >= TFR_DTYPE_COUNT) return -1;
  const int64_t sh[2] = {6, 11};
  bo_in_kind(c, 2, sh);
  c->target = (tfr_dtype)((c->dt + 1 + c->variant) % TFR_DTYPE_COUNT);
  snprintf(c->desc, sizeof c->desc, "to %s", tfr_dtype_name(c->target));
  return 1;
}

static tfr_status bo_run_convert(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                 tfr_tensor *const *in, tfr_tensor *const *aux,
                                 tfr_tensor **out) {
  (void)info, (void)aux;
  return tfr_convert(s, in[0], c->target, out);
}

// ---- STRUCTURAL: one case per op, by its registry name ----

static int bo_build_structural(const tfr_op_info *info, bo_case *c) {
  const char *n = info->name;
  const int64_t sh2[2] = {4, 6}, sh3[3] = {3, 4, 5};
  bool rank0 = c->kind == K_RANK0;
  if (!strcmp(n, "reduce_precision")) {
    static const int bits[3][2] = {{5, 10}, {8, 7}, {3, 2}};
    if (c->variant >= 3) return -1;
    c->iattr[0] = bits[c->variant][0];
    c->iattr[1] = bits[c->variant][1];
    snprintf(c->desc, sizeof c->desc, "e%dm%d", c->iattr[0], c->iattr[1]);
    bo_in_kind(c, 2, sh2);
    return 1;
  }
  if (!strcmp(n, "bitcast_convert")) {
    // Every target of the same element size and the same kind (bool, real,
    // complex), the dtype itself included.
    int found = -1;
    size_t es = tfr_dtype_size(c->dt);
    for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
      tfr_dtype t = (tfr_dtype)d;
      bool same_kind = (t == TFR_BOOL) == (c->dt == TFR_BOOL) &&
                       bo_is_complex(t) == bo_is_complex(c->dt);
      if (same_kind && tfr_dtype_size(t) == es && ++found == c->variant) {
        c->target = t;
        snprintf(c->desc, sizeof c->desc, "to %s", tfr_dtype_name(t));
        bo_in_kind(c, 2, sh2);
        return 1;
      }
    }
    return -1;
  }
  // Variants: two index dtypes for the dynamic slices; three permutations,
  // four axis pairs for the diagonals.
  bool dyn = !strcmp(n, "dynamic_slice") || !strcmp(n, "dynamic_update_slice");
  int nvariants = dyn ? 2 : !strcmp(n, "transpose") ? 3
                  : (!strcmp(n, "extract_diagonal") || !strcmp(n, "embed_diagonal")) ? 4 : 1;
  if (c->variant >= nvariants) return -1;
  if (!strcmp(n, "copy") || !strcmp(n, "reverse")) {
    bo_in_kind(c, 3, sh3);
  } else if (!strcmp(n, "transpose") || !strcmp(n, "reshape") ||
             !strcmp(n, "broadcast_in_dim") || !strcmp(n, "slice") || !strcmp(n, "pad")) {
    bo_in_kind(c, 3, sh3);
    if (!strcmp(n, "pad")) bo_aux_scalar(c, 77);
  } else if (!strcmp(n, "concatenate")) {
    if (rank0) return 0;
    bo_in_kind(c, 2, sh2);
    const int64_t other[2] = {c->kind == K_EMPTY ? 0 : 4, 3};
    bo_in(c, c->dt, 2, other);  // along axis 1
  } else if (!strcmp(n, "dynamic_slice") || !strcmp(n, "dynamic_update_slice")) {
    bo_in_kind(c, 2, sh2);
    if (!strcmp(n, "dynamic_update_slice")) {
      const int64_t upd[2] = {2, 3};
      bo_in_kind(c, 2, upd);
    }
    // Start indices: i32 {1, 9} (9 clamps to 6 - 3), u8 {200, 0}: clamped.
    tfr_dtype idt = c->variant ? TFR_U8 : TFR_I32;
    if (!rank0) {
      bo_aux_index(c, idt, c->variant ? 200 : 1);
      bo_aux_index(c, idt, c->variant ? 0 : 9);
    }
    snprintf(c->desc, sizeof c->desc, "%s starts", tfr_dtype_name(idt));
  } else if (!strcmp(n, "extract_diagonal") || !strcmp(n, "embed_diagonal") ||
             !strcmp(n, "tril") || !strcmp(n, "triu")) {
    if (rank0) return 0;
    bo_in_kind(c, 3, sh3);
  } else if (!strcmp(n, "iota")) {
    if (rank0) return 0;
    c->a[0][0] = c->kind == K_EMPTY ? 0 : 4;
    c->a[0][1] = 5;
  } else {
    fail_msg("no case builder for structural op %s: add one to bo_build_structural", n);
  }
  if (nvariants > 1 && !dyn) snprintf(c->desc, sizeof c->desc, "attributes %d", c->variant);
  return 1;
}

static tfr_status bo_run_structural(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                    tfr_tensor *const *in, tfr_tensor *const *aux,
                                    tfr_tensor **out) {
  const char *n = info->name;
  tfr_tensor *x = in[0];
  int r = c->nin > 0 ? c->in_rank[0] : 0;
  const int64_t *sh = c->nin > 0 ? c->in_shape[0] : NULL;
  const int64_t all[3] = {0, 1, 2};
  if (!strcmp(n, "reduce_precision"))
    return tfr_reduce_precision(s, x, c->iattr[0], c->iattr[1], out);
  if (!strcmp(n, "bitcast_convert")) return tfr_bitcast_convert(s, x, c->target, out);
  if (!strcmp(n, "copy")) return tfr_copy(s, x, out);
  if (!strcmp(n, "reverse")) return tfr_reverse(s, x, r == 0 ? 0 : 2, (const int64_t[]){0, 2}, out);
  if (!strcmp(n, "transpose")) {
    static const int64_t perms[3][3] = {{2, 0, 1}, {1, 0, 2}, {0, 2, 1}};
    return tfr_transpose(s, x, r == 0 ? all : perms[c->variant], out);
  }
  if (!strcmp(n, "reshape")) {
    if (r == 0) return tfr_reshape(s, x, 1, (const int64_t[]){1}, out);
    return tfr_reshape(s, x, 2, (const int64_t[]){sh[2], sh[0] * sh[1]}, out);
  }
  if (!strcmp(n, "broadcast_in_dim")) {
    if (r == 0) return tfr_broadcast_in_dim(s, x, 2, (const int64_t[]){2, 3}, all, out);
    return tfr_broadcast_in_dim(s, x, 4, (const int64_t[]){sh[0], 2, sh[1], sh[2]},
                                (const int64_t[]){0, 2, 3}, out);
  }
  if (!strcmp(n, "slice")) {
    if (r == 0) return tfr_slice(s, x, all, all, all, out);
    return tfr_slice(s, x, (const int64_t[]){0, 1, 0}, (const int64_t[]){sh[0], 4, 5},
                     (const int64_t[]){2, 2, 1}, out);
  }
  if (!strcmp(n, "pad")) {
    if (r == 0) return tfr_pad(s, x, aux[0], all, all, all, out);
    return tfr_pad(s, x, aux[0], (const int64_t[]){1, -1, 0}, (const int64_t[]){0, 2, 1},
                   (const int64_t[]){1, 0, 2}, out);
  }
  if (!strcmp(n, "concatenate")) {
    const tfr_tensor *ins[2] = {in[0], in[1]};
    return tfr_concatenate(s, 2, ins, 1, out);
  }
  if (!strcmp(n, "dynamic_slice")) {
    const tfr_tensor *starts[2] = {r ? aux[0] : NULL, r ? aux[1] : NULL};
    const int64_t sizes[2] = {sh ? (sh[0] < 2 ? sh[0] : 2) : 0, 3};
    return tfr_dynamic_slice(s, x, starts, r ? sizes : all, out);
  }
  if (!strcmp(n, "dynamic_update_slice")) {
    const tfr_tensor *starts[2] = {r ? aux[0] : NULL, r ? aux[1] : NULL};
    return tfr_dynamic_update_slice(s, x, in[1], starts, out);
  }
  static const int diags[4][2] = {{2, 1}, {0, 1}, {2, 0}, {0, 2}};
  static const int embeds[4][2] = {{1, 3}, {0, 0}, {2, 1}, {0, 2}};
  if (!strcmp(n, "extract_diagonal"))
    return tfr_extract_diagonal(s, x, diags[c->variant][0], diags[c->variant][1], out);
  if (!strcmp(n, "embed_diagonal"))
    return tfr_embed_diagonal(s, x, embeds[c->variant][0], embeds[c->variant][1], out);
  if (!strcmp(n, "tril")) return tfr_tril(s, x, 1, out);
  if (!strcmp(n, "triu")) return tfr_triu(s, x, -1, out);
  if (!strcmp(n, "iota")) return tfr_iota(s, c->dt, 2, c->a[0], 1, out);
  fail_msg("no runner for structural op %s", n);
  return TFR_ERR_INTERNAL;
}

// ---- REDUCE: several axis sets, the identity or a given init value ----

static int bo_build_reduce(const tfr_op_info *info, bo_case *c) {
  (void)info;
  // Variants: axes {1}, {0, 2}, {0, 1, 2}, {} with the combiner's identity;
  // axes {2} with a random init value.
  static const int naxes[5] = {1, 2, 3, 0, 1};
  static const int64_t axes[5][3] = {{1}, {0, 2}, {0, 1, 2}, {0}, {2}};
  if (c->variant >= 5) return -1;
  const int64_t sh[3] = {3, 4, 5};
  if (c->kind == K_RANK0 && naxes[c->variant] != 0) return 0;
  bo_in_kind(c, 3, sh);
  c->accum_values = true;
  c->iattr[0] = naxes[c->variant];
  c->nterms = 1;
  for (int k = 0; k < naxes[c->variant]; k++) {
    c->a[0][k] = axes[c->variant][k];
    c->nterms *= sh[axes[c->variant][k]];
  }
  if (c->variant == 4) bo_aux_scalar(c, 55);
  snprintf(c->desc, sizeof c->desc, "%d axes%s", naxes[c->variant],
           c->variant == 4 ? ", init value" : "");
  return 1;
}

static tfr_status bo_run_reduce(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  return tfr_reduce(s, in[0], c->naux ? aux[0] : NULL, (tfr_reduce_combiner)info->param,
                    c->iattr[0], c->a[0], out);
}

// ---- DOT: a matrix product, a batched one, conjugated operands, an outer
// product; rank 0: a scalar product; empty: a contraction over 0 terms ----

static int bo_build_dot(const tfr_op_info *info, bo_case *c) {
  (void)info;
  if (c->variant >= 4) return -1;
  c->accum_values = true;
  c->iattr[0] = c->variant;
  int64_t k = c->kind == K_EMPTY ? 0 : 5;
  if (c->kind == K_RANK0) {
    if (c->variant != 0) return 0;
    bo_in(c, c->dt, 0, NULL);
    bo_in(c, c->dt, 0, NULL);
    c->nterms = 1;
    return 1;
  }
  switch (c->variant) {
    case 0: case 2:
      bo_in(c, c->dt, 2, (const int64_t[]){3, k});
      bo_in(c, c->dt, 2, (const int64_t[]){k, 4});
      break;
    case 1:
      bo_in(c, c->dt, 3, (const int64_t[]){2, 3, k});
      bo_in(c, c->dt, 3, (const int64_t[]){2, k, 4});
      break;
    case 3:
      if (c->kind == K_EMPTY) return 0;
      bo_in(c, c->dt, 1, (const int64_t[]){3});
      bo_in(c, c->dt, 1, (const int64_t[]){4});
      k = 1;
      break;
  }
  c->nterms = k > 0 ? k : 1;
  static const char *const names[4] = {"matmul", "batched", "conj", "outer"};
  snprintf(c->desc, sizeof c->desc, "%s", names[c->variant]);
  return 1;
}

static tfr_status bo_run_dot(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                             tfr_tensor *const *in, tfr_tensor *const *aux, tfr_tensor **out) {
  (void)info, (void)aux;
  tfr_dot_config cfg = {0};
  const int64_t one[1] = {1}, zero[1] = {0}, two[1] = {2};
  if (c->in_rank[0] == 2) {
    cfg = (tfr_dot_config){.num_contracting_dims = 1, .lhs_contracting_dimensions = one,
                           .rhs_contracting_dimensions = zero};
    cfg.lhs_conj = cfg.rhs_conj = c->iattr[0] == 2;
  } else if (c->in_rank[0] == 3) {
    cfg = (tfr_dot_config){.num_batching_dims = 1, .lhs_batching_dimensions = zero,
                           .rhs_batching_dimensions = zero, .num_contracting_dims = 1,
                           .lhs_contracting_dimensions = two, .rhs_contracting_dimensions = one};
  }
  return tfr_dot_general(s, in[0], in[1], &cfg, out);
}

// ---- GATHER: rows by an i32 index vector (one of them clamped); 2-D
// windows by i64 index pairs; rows by u16 indices ----

static int bo_build_gather(const tfr_op_info *info, bo_case *c) {
  (void)info;
  if (c->variant >= 3) return -1;
  if (c->kind == K_RANK0) return 0;
  int64_t cols = c->kind == K_EMPTY ? 0 : 6;
  bo_in(c, c->dt, 2, (const int64_t[]){5, cols});
  if (c->variant == 1) {
    const int64_t idx[6] = {0, 0, 3, 2, 1, 5};  // [3, 2]; (1, 5) clamps to (1, cols - 3)
    bo_aux(c, TFR_I64, 2, (const int64_t[]){3, 2}, idx);
    if (c->kind == K_EMPTY) return 0;
  } else if (c->variant == 0) {
    const int32_t idx[4] = {0, 4, 2, 7};  // 7 clamps to 4
    bo_aux(c, TFR_I32, 2, (const int64_t[]){4, 1}, idx);
  } else {
    const uint16_t idx[3] = {3, 1, 3};
    bo_aux(c, TFR_U16, 1, (const int64_t[]){3}, idx);
  }
  c->iattr[0] = c->variant;
  snprintf(c->desc, sizeof c->desc, "%s indices", tfr_dtype_name(tfr_tensor_dtype(c->aux[0])));
  return 1;
}

static tfr_status bo_run_gather(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux,
                                tfr_tensor **out) {
  (void)info;
  int64_t cols = c->in_shape[0][1];
  const int64_t offset1[1] = {1}, collapsed[1] = {0}, map1[1] = {0};
  const int64_t rows[2] = {1, cols}, offset2[2] = {1, 2}, map2[2] = {0, 1}, win[2] = {2, 3};
  tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = offset1,
                         .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                         .num_start_index_map = 1, .start_index_map = map1,
                         .index_vector_dim = 1, .slice_sizes = rows};
  if (c->iattr[0] == 1) {
    g = (tfr_gather_config){.num_offset_dims = 2, .offset_dims = offset2,
                            .num_start_index_map = 2, .start_index_map = map2,
                            .index_vector_dim = 1, .slice_sizes = win};
  }
  return tfr_gather(s, in[0], aux[0], &g, out);
}

// ---- SCATTER: rows at i32 indices with a repeated one, every combiner the
// dtype takes ----

static const char *const bo_scatter_names[5] = {"replace", "add", "multiply", "maximum",
                                                "minimum"};

static int bo_build_scatter(const tfr_op_info *info, bo_case *c) {
  (void)info;
  if (c->variant >= 5) return -1;
  if (c->kind == K_RANK0) return 0;
  // replace takes every dtype; the others the binary op of the same name's.
  if (c->variant > 0 && !bo_defined(bo_scatter_names[c->variant], c->dt)) return 0;
  int64_t cols = c->kind == K_EMPTY ? 0 : 6;
  bo_in(c, c->dt, 2, (const int64_t[]){5, cols});
  bo_in(c, c->dt, 2, (const int64_t[]){4, cols});
  const int32_t idx[4] = {1, 3, 1, 0};
  bo_aux(c, TFR_I32, 2, (const int64_t[]){4, 1}, idx);
  c->accum_values = true;
  c->iattr[0] = c->variant;
  c->nterms = 3;
  c->tol = (c->variant == TFR_SCATTER_ADD || c->variant == TFR_SCATTER_MULTIPLY)
               ? TFR_TOL_ACCUMULATE : TFR_TOL_EXACT;
  snprintf(c->desc, sizeof c->desc, "%s", bo_scatter_names[c->variant]);
  return 1;
}

static tfr_status bo_run_scatter(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                 tfr_tensor *const *in, tfr_tensor *const *aux,
                                 tfr_tensor **out) {
  (void)info;
  const int64_t window[1] = {1}, inserted[1] = {0}, map[1] = {0};
  tfr_scatter_config cfg = {.num_update_window_dims = 1, .update_window_dims = window,
                            .num_inserted_window_dims = 1, .inserted_window_dims = inserted,
                            .num_scatter_dims_to_operand_dims = 1,
                            .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                            .combiner = (tfr_scatter_combiner)c->iattr[0]};
  return tfr_scatter(s, in[0], aux[0], in[1], &cfg, out);
}

// ---- WINDOW: reduce_window with every combiner the dtype takes (strides,
// both dilations, padding); select_and_scatter with GE / LE (EQ / NE on
// complex) and the first / second combiner the dtype takes ----

static const char *const bo_reduce_names[7] = {"reduce_add", "reduce_multiply",
                                               "reduce_maximum", "reduce_minimum",
                                               "reduce_and", "reduce_or", "reduce_xor"};

// The n-th reduce combiner defined for dt, or -1.
static int bo_nth_combiner(tfr_dtype dt, int n) {
  for (int k = 0; k < 7; k++)
    if (bo_defined(bo_reduce_names[k], dt) && n-- == 0) return k;
  return -1;
}

static int bo_build_window(const tfr_op_info *info, bo_case *c) {
  bool rw = !strcmp(info->name, "reduce_window");
  if (!rw && strcmp(info->name, "select_and_scatter"))
    fail_msg("no case builder for window op %s: add one to bo_build_window", info->name);
  int comb = bo_nth_combiner(c->dt, rw ? c->variant : c->variant % 2);
  if (comb < 0 || (!rw && c->variant >= 2)) return -1;
  const int64_t sh[2] = {6, 7};
  bo_in_kind(c, 2, sh);
  if (!rw) {
    int64_t src[2] = {c->kind == K_EMPTY ? 0 : 3, 3};
    bo_in(c, c->dt, c->kind == K_RANK0 ? 0 : 2, src);
  }
  bo_aux_scalar(c, 99);
  c->accum_values = true;
  c->iattr[0] = comb;
  c->iattr[1] = bo_is_complex(c->dt) ? (c->variant ? TFR_NE : TFR_EQ)
                                     : (c->variant ? TFR_LE : TFR_GE);
  c->nterms = rw ? 6 : 4;
  if (rw) c->tol = comb <= TFR_REDUCE_MULTIPLY ? TFR_TOL_ACCUMULATE : TFR_TOL_EXACT;
  snprintf(c->desc, sizeof c->desc, "%s%s", rw ? "" : (c->variant ? "LE/NE, " : "GE/EQ, "),
           bo_reduce_names[comb] + strlen("reduce_"));
  return 1;
}

static tfr_status bo_run_window(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                                tfr_tensor *const *in, tfr_tensor *const *aux,
                                tfr_tensor **out) {
  bool r0 = c->in_rank[0] == 0;
  if (!strcmp(info->name, "reduce_window")) {
    const int64_t wd[2] = {2, 3}, ws[2] = {2, 1}, bd[2] = {1, 2}, wdl[2] = {2, 1};
    const int64_t pad[4] = {1, 0, 0, 1};
    return tfr_reduce_window(s, in[0], aux[0], (tfr_reduce_combiner)c->iattr[0], r0 ? NULL : wd,
                             r0 ? NULL : ws, r0 ? NULL : bd, r0 ? NULL : wdl, r0 ? NULL : pad,
                             out);
  }
  const int64_t wd[2] = {2, 2}, ws[2] = {2, 2};
  return tfr_select_and_scatter(s, in[0], in[1], aux[0], (tfr_compare_direction)c->iattr[1],
                                (tfr_reduce_combiner)c->iattr[0], r0 ? NULL : wd,
                                r0 ? NULL : ws, NULL, out);
}

// ---- The family table: every family of the registry needs a row ----

typedef struct bo_family {
  tfr_op_family family;
  bo_build_fn build;
  bo_run_fn run;
} bo_family;

static const bo_family bo_families[] = {
    {TFR_FAMILY_UNARY, bo_build_elementwise, bo_run_unary},
    {TFR_FAMILY_BINARY, bo_build_elementwise, bo_run_binary},
    {TFR_FAMILY_COMPARE, bo_build_compare, bo_run_compare},
    {TFR_FAMILY_SELECT, bo_build_ternary, bo_run_select},
    {TFR_FAMILY_CLAMP, bo_build_ternary, bo_run_clamp},
    {TFR_FAMILY_CONVERT, bo_build_convert, bo_run_convert},
    {TFR_FAMILY_STRUCTURAL, bo_build_structural, bo_run_structural},
    {TFR_FAMILY_REDUCE, bo_build_reduce, bo_run_reduce},
    {TFR_FAMILY_DOT, bo_build_dot, bo_run_dot},
    {TFR_FAMILY_GATHER, bo_build_gather, bo_run_gather},
    {TFR_FAMILY_SCATTER, bo_build_scatter, bo_run_scatter},
    {TFR_FAMILY_WINDOW, bo_build_window, bo_run_window},
};

static const bo_family *bo_family_of(const tfr_op_info *info) {
  for (size_t i = 0; i < sizeof bo_families / sizeof bo_families[0]; i++)
    if (bo_families[i].family == info->family) return &bo_families[i];
  return NULL;
}

// Builds variant `variant` of op `info` on `dt` for shape kind `kind`.
static int bo_build(const tfr_op_info *info, tfr_dtype dt, int kind, int variant, bo_case *c) {
  memset(c, 0, sizeof *c);
  c->dt = dt;
  c->kind = kind;
  c->variant = variant;
  c->tol = info->tol;
  c->nterms = 1;
  const bo_family *f = bo_family_of(info);
  if (!f) fail_msg("op %s: family %s has no case builder in bo_families", info->name,
                   tfr_op_family_name(info->family));
  int r = f->build(info, c);
  if (r <= 0) bo_case_free(c);
  return r;
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

// Special float values (as doubles, rounded to the dtype by the caller).
// `accum`: only those whose sums and products do not depend on the order.
static int bo_float_specials(tfr_dtype dt, bool accum, double *v) {
  double tiny, dmax, dmin;
  switch (dt) {
    case TFR_F16: tiny = 0x1p-24; dmin = 0x1p-14; dmax = 65504.0; break;
    case TFR_BF16: tiny = 0x1p-133; dmin = 0x1p-126; dmax = 0x1.fep127; break;
    case TFR_F32: case TFR_C64: tiny = 0x1p-149; dmin = FLT_MIN; dmax = FLT_MAX; break;
    default: tiny = 0x1p-1074; dmin = DBL_MIN; dmax = DBL_MAX; break;
  }
  int n = 0;
  v[n++] = NAN;
  v[n++] = INFINITY;
  v[n++] = -0.0;
  v[n++] = 0.0;
  if (accum) return n;
  v[n++] = -INFINITY;
  v[n++] = 1.0;
  v[n++] = -1.0;
  v[n++] = 0.5;
  v[n++] = 2.5;
  v[n++] = -1.5;
  v[n++] = tiny;
  v[n++] = -tiny * 3;
  v[n++] = dmin;
  v[n++] = dmin - tiny;  // the largest subnormal
  v[n++] = dmax;
  v[n++] = -dmax;
  v[n++] = 100.0;
  v[n++] = -NAN;
  return n;
}

static void bo_put_real(tfr_dtype dt, double x, unsigned char *p) {
  switch (dt) {
    case TFR_F16: { uint16_t h = tfr_f64_to_f16(x); memcpy(p, &h, 2); break; }
    case TFR_BF16: { uint16_t h = tfr_f64_to_bf16(x); memcpy(p, &h, 2); break; }
    case TFR_F32: case TFR_C64: { float f = (float)x; memcpy(p, &f, 4); break; }
    default: memcpy(p, &x, 8); break;
  }
}

// Integer edge values of an integer dtype, as the low bytes of an int64.
static int bo_int_specials(tfr_dtype dt, bool accum, int64_t *v) {
  int bits = (int)tfr_dtype_size(dt) * 8;
  bool is_signed = dt == TFR_I8 || dt == TFR_I16 || dt == TFR_I32 || dt == TFR_I64;
  uint64_t mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  int64_t smax = (int64_t)(mask >> 1), smin = -smax - 1;
  int n = 0;
  v[n++] = 0;
  v[n++] = 1;
  v[n++] = is_signed ? smin : (int64_t)mask;
  if (accum) return n;
  v[n++] = -1;
  v[n++] = smax;
  v[n++] = is_signed ? smin + 1 : (int64_t)(mask - 1);
  v[n++] = bits - 1;
  v[n++] = bits;
  v[n++] = bits + 1;
  v[n++] = 2;
  v[n++] = -2;
  v[n++] = 7;
  return n;
}

// A compact host tensor of dtype dt: special values first (as many as fit
// in a third of the elements), then random non-zero ones.
static tfr_tensor *bo_values(tfr_dtype dt, int rank, const int64_t *shape, uint64_t seed,
                             bool accum, bool flush) {
  tfr_tensor *t = tfr_test_random_tensor(dt, rank, shape, seed);
  int64_t n = tfr_tensor_numel(t);
  unsigned char *p = NULL;
  if (n > 0) TFR_ASSERT_OK(tfr_tensor_host_data(t, (void **)&p));
  size_t es = tfr_dtype_size(dt);
  int64_t room = n / 3;
  if (dt == TFR_F16 || dt == TFR_BF16 || dt == TFR_F32 || dt == TFR_F64) {
    double v[32];
    int ns = bo_float_specials(dt, accum, v);
    for (int64_t i = 0; i < ns && i < room; i++) bo_put_real(dt, v[i], p + (size_t)i * es);
  } else if (bo_is_complex(dt)) {
    // Accumulated complex products of infinities and NaNs depend on the
    // order (Annex G's recovery of infinities): only the zeros there.
    double v[32];
    int ns = bo_float_specials(dt, accum, v);
    if (accum) ns = 0;
    if (accum) v[ns++] = -0.0, v[ns++] = 0.0;
    size_t hs = es / 2;
    for (int64_t i = 0; i < room && i < 2 * ns; i++) {
      // (special, random), (random, special), then pairs of specials.
      int64_t k = i % ns;
      if (i < ns) bo_put_real(dt, v[k], p + (size_t)i * es);
      else bo_put_real(dt, v[k], p + (size_t)i * es + hs);
      if (i >= ns && !accum) bo_put_real(dt, v[(k * 7 + 3) % ns], p + (size_t)i * es);
    }
  } else if (dt != TFR_BOOL) {
    int64_t v[16];
    int ns = bo_int_specials(dt, accum, v);
    for (int64_t i = 0; i < ns && i < room; i++) memcpy(p + (size_t)i * es, &v[i], es);
  }
  if (flush) tfr_test_flush_subnormals(t);
  return t;
}

// ---------------------------------------------------------------------------
// Layouts: for each data operand, the compact host tensor of its logical
// values (the reference's input), and how the backend's view of them is made
// (a host tensor to upload, then a view of it)
// ---------------------------------------------------------------------------

typedef struct bo_input {
  tfr_tensor *logical;  // compact host tensor: the values the op sees
  tfr_tensor *base;     // host tensor uploaded to the backend
  int layout;           // the view made of the uploaded base
  int rank;
  int64_t shape[4];
} bo_input;

static tfr_tensor *bo_compact_of(const tfr_tensor *view) {
  size_t nb = tfr_tensor_nbytes(view);
  void *buf = malloc(nb + 1);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(view, buf, nb + 1));
  tfr_tensor *t = tfr_test_tensor(tfr_tensor_dtype(view), tfr_tensor_rank(view),
                                  tfr_tensor_shape(view), buf);
  free(buf);
  return t;
}

static void bo_input_make(bo_input *in, const bo_case *c, int i, int layout, uint64_t seed,
                          bool flush) {
  tfr_dtype dt = c->in_dt[i];
  int r = c->in_rank[i];
  const int64_t *sh = c->in_shape[i];
  in->rank = r;
  memcpy(in->shape, sh, sizeof in->shape);
  tfr_tensor *v = bo_values(dt, r, sh, seed, c->accum_values, flush);
  in->layout = r == 0 ? L_COMPACT : layout;
  switch (in->layout) {
    case L_STRIDED: {
      // v at the even positions of a tensor twice as large along every axis.
      int64_t big[4];
      for (int k = 0; k < r; k++) big[k] = 2 * sh[k];
      in->base = bo_values(dt, r, big, seed + 1000, c->accum_values, flush);
      int64_t n = tfr_tensor_numel(v);
      size_t es = tfr_dtype_size(dt);
      unsigned char *src = NULL, *dst = NULL;
      if (n > 0) {
        TFR_ASSERT_OK(tfr_tensor_host_data(v, (void **)&src));
        TFR_ASSERT_OK(tfr_tensor_host_data(in->base, (void **)&dst));
      }
      for (int64_t e = 0; e < n; e++) {
        int64_t rem = e, off = 0, stride = 1;
        for (int k = r - 1; k >= 0; k--) {
          off += 2 * (rem % sh[k]) * stride;
          rem /= sh[k];
          stride *= big[k];
        }
        memcpy(dst + (size_t)off * es, src + (size_t)e * es, es);
      }
      in->logical = v;
      break;
    }
    case L_STRIDE0: {
      // The first row of v along axis 0, broadcast over the axis.
      int64_t row[4];
      memcpy(row, sh, sizeof row);
      row[0] = 1;
      tfr_tensor *first = NULL, *b = NULL;
      const int64_t zero[4] = {0, 0, 0, 0}, dims[4] = {0, 1, 2, 3};
      TFR_ASSERT_OK(tfr_tensor_view_slice(v, zero, row, NULL, &first));
      in->base = bo_compact_of(first);
      TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(in->base, r, sh, dims, &b));
      in->logical = bo_compact_of(b);
      tfr_tensor_release(first);
      tfr_tensor_release(b);
      tfr_tensor_release(v);
      break;
    }
    case L_NEGATIVE: {
      const int64_t axes[4] = {0, 1, 2, 3};
      tfr_tensor *rev = NULL;
      TFR_ASSERT_OK(tfr_tensor_view_reverse(v, r, axes, &rev));
      in->base = bo_compact_of(rev);
      tfr_tensor_release(rev);
      in->logical = v;
      break;
    }
    case L_TRANSPOSED: {
      // v's last two axes swapped in memory (rank 1: compact).
      if (r < 2) {
        in->layout = L_COMPACT;
        in->logical = v;
        tfr_tensor_retain(v);
        in->base = v;
        break;
      }
      int64_t perm[4] = {0, 1, 2, 3};
      perm[r - 2] = r - 1;
      perm[r - 1] = r - 2;
      tfr_tensor *tr = NULL;
      TFR_ASSERT_OK(tfr_tensor_view_transpose(v, perm, &tr));
      in->base = bo_compact_of(tr);
      tfr_tensor_release(tr);
      in->logical = v;
      break;
    }
    default:
      in->logical = v;
      tfr_tensor_retain(v);
      in->base = v;
      in->layout = L_COMPACT;
      break;
  }
}

static void bo_input_free(bo_input *in) {
  tfr_tensor_release(in->logical);
  tfr_tensor_release(in->base);
  in->logical = in->base = NULL;
}

// The backend's view: base uploaded, then the layout's view function.
static tfr_tensor *bo_input_view(tfr_session *s, const bo_input *in) {
  tfr_tensor *d = tfr_test_upload(s, in->base), *v = NULL;
  const int64_t zero[4] = {0, 0, 0, 0}, two[4] = {2, 2, 2, 2}, dims[4] = {0, 1, 2, 3};
  int64_t big[4];
  for (int k = 0; k < in->rank; k++) big[k] = 2 * in->shape[k];
  switch (in->layout) {
    case L_STRIDED: TFR_ASSERT_OK(tfr_tensor_view_slice(d, zero, big, two, &v)); break;
    case L_STRIDE0:
      TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(d, in->rank, in->shape, dims, &v));
      break;
    case L_NEGATIVE: TFR_ASSERT_OK(tfr_tensor_view_reverse(d, in->rank, dims, &v)); break;
    case L_TRANSPOSED: {
      int64_t perm[4] = {0, 1, 2, 3};
      perm[in->rank - 2] = in->rank - 1;
      perm[in->rank - 1] = in->rank - 2;
      TFR_ASSERT_OK(tfr_tensor_view_transpose(d, perm, &v));
      break;
    }
    default: return d;
  }
  tfr_tensor_release(d);
  return v;
}

// ---------------------------------------------------------------------------
// Tolerances: the one place they are set
// ---------------------------------------------------------------------------

typedef struct bo_tol {
  bool exact;          // bit for bit (any NaN matches any NaN)
  int64_t ulp;         // FUNCTION: ulps of the result dtype
  double cplx_rel;     // FUNCTION, complex: or within this times the larger part
  double accum_rel;    // ACCUMULATE: within this times max(|expected|, largest |expected|)
  bool power;          // complex power: cplx_rel times 1 + |b log a| of the element's operands
  double abs;          // FUNCTION, f32: or within this absolutely (tfr_test_abs_floor_f32)
} bo_tol;

static double bo_eps(tfr_dtype dt) {
  switch (dt) {
    case TFR_F16: return 0x1p-10;
    case TFR_BF16: return 0x1p-7;
    case TFR_F32: case TFR_C64: return 0x1p-23;
    default: return 0x1p-52;
  }
}

// The tolerance of registry class `cls` for a result of dtype `dt` (operands
// of dtype `in_dt`), `nterms` terms accumulated per element.
//   EXACT, and every class on integer and bool results: bit for bit.
//   FUNCTION / COMPLEX_FUNCTION (on complex) / INEXACT_FUNCTION (on float and
//   complex): f16/bf16 1 ulp (both backends compute in f32 and round once);
//   f32 4 ulp (docs/accuracy.md: the webgpu math library is within 1-2 ulp
//   of the correctly rounded result, the cpu within 1), or for lgamma and
//   digamma the absolute allowance of tfr_test_abs_floor_f32; f64 4 ulp (cpu vector
//   and scalar routines); complex parts 8 ulp or 8 eps of the element's
//   larger part (docs/accuracy.md's complex bound, 8 x 2^-24 |w|; complex
//   power: times 1 + |b log a|, the bound's sensitivity term).
//   ACCUMULATE / COMBINER (the builders resolve COMBINER): 4 n eps relative
//   to the larger of |expected| and the largest |expected| of the result.
static bo_tol bo_tolerance(const tfr_op_info *info, tfr_tol_class cls, tfr_dtype dt,
                           tfr_dtype in_dt, int64_t nterms) {
  bo_tol t = {.exact = true};
  bool is_float = dt == TFR_F16 || dt == TFR_BF16 || dt == TFR_F32 || dt == TFR_F64 ||
                  bo_is_complex(dt);
  if (!is_float) return t;
  switch (cls) {
    case TFR_TOL_EXACT: return t;
    case TFR_TOL_COMPLEX_FUNCTION:
      if (!bo_is_complex(in_dt)) return t;
      break;
    case TFR_TOL_ACCUMULATE:
    case TFR_TOL_COMBINER:
      t.exact = false;
      t.ulp = (dt == TFR_F16 || dt == TFR_BF16) ? 1 : 0;
      t.accum_rel = 4.0 * (double)(nterms > 1 ? nterms : 1) * bo_eps(dt);
      return t;
    default: break;
  }
  t.exact = false;
  switch (dt) {
    case TFR_F16: case TFR_BF16: t.ulp = 1; break;
    case TFR_F32: case TFR_F64: t.ulp = 4; break;
    default: t.ulp = 8; t.cplx_rel = 8.0 * bo_eps(dt); break;
  }
  // Complex power a^b = exp(b log a): the error of the logarithm is
  // multiplied by |b log a| (the "sensitivity" term of docs/accuracy.md's
  // complex bound): 8 eps (1 + |b log a|) of the element's larger part.
  t.power = bo_is_complex(dt) && !strcmp(info->name, "power");
  // lgamma, digamma at x < 0: a few ulps of the reflection formula's largest term.
  if (dt == TFR_F32 && info->family == TFR_FAMILY_UNARY) t.abs = tfr_test_abs_floor_f32(info->param);
  return t;
}

// ---------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------

// The ulp distance of two 16-bit floats (f16: 10 mantissa bits, bf16: 7).
static int64_t bo_ulp16(uint16_t a, uint16_t b, tfr_dtype dt) {
  double x = dt == TFR_F16 ? tfr_f16_to_f64(a) : tfr_bf16_to_f64(a);
  double y = dt == TFR_F16 ? tfr_f16_to_f64(b) : tfr_bf16_to_f64(b);
  if (isnan(x) && isnan(y)) return 0;
  if (isnan(x) || isnan(y)) return INT64_MAX;
  if (x == y) return 0;
  if (isinf(x) || isinf(y)) return INT64_MAX;
  int64_t ia = (a & 0x8000) ? -(int64_t)(a & 0x7fff) : (int64_t)a;
  int64_t ib = (b & 0x8000) ? -(int64_t)(b & 0x7fff) : (int64_t)b;
  return ia > ib ? ia - ib : ib - ia;
}

// Part k of element i as a double, and its ulp distance to the other's.
static double bo_part(tfr_dtype dt, const unsigned char *p, int64_t k) {
  switch (dt) {
    case TFR_F16: { uint16_t h; memcpy(&h, p + 2 * k, 2); return tfr_f16_to_f64(h); }
    case TFR_BF16: { uint16_t h; memcpy(&h, p + 2 * k, 2); return tfr_bf16_to_f64(h); }
    case TFR_F32: case TFR_C64: { float f; memcpy(&f, p + 4 * k, 4); return f; }
    default: { double d; memcpy(&d, p + 8 * k, 8); return d; }
  }
}

static int64_t bo_part_ulp(tfr_dtype dt, const unsigned char *a, const unsigned char *b,
                           int64_t k) {
  switch (dt) {
    case TFR_F16: case TFR_BF16: {
      uint16_t x, y;
      memcpy(&x, a + 2 * k, 2);
      memcpy(&y, b + 2 * k, 2);
      return bo_ulp16(x, y, dt);
    }
    case TFR_F32: case TFR_C64:
      return tfr_test_ulp_f32((float)bo_part(dt, a, k), (float)bo_part(dt, b, k));
    default: return tfr_test_ulp_f64(bo_part(dt, a, k), bo_part(dt, b, k));
  }
}

// Whether part k of `got` matches `want` under `t`. `m`: the largest finite
// |expected| part of the result (ACCUMULATE). `flush`: the device flushes
// subnormals, so a subnormal expected value may come back as a zero.
static bool bo_part_ok(tfr_dtype dt, const unsigned char *w, const unsigned char *g, int64_t k,
                       const bo_tol *t, double m, double sens, bool flush) {
  size_t ps = bo_is_complex(dt) ? tfr_dtype_size(dt) / 2 : tfr_dtype_size(dt);
  double x = bo_part(dt, w, k), y = bo_part(dt, g, k);
  if (!memcmp(w + ps * k, g + ps * k, ps) || (isnan(x) && isnan(y))) return true;
  if (flush && fpclassify(x) == FP_SUBNORMAL && y == 0.0 && ps == 4) return true;
  if (t->exact) return false;
  if (bo_part_ulp(dt, w, g, k) <= t->ulp) return true;
  if (t->abs > 0 && isfinite(x) && isfinite(y) && fabs(x - y) <= t->abs) return true;
  if (t->accum_rel > 0)
    return isfinite(x) && isfinite(y) && fabs(x - y) <= t->accum_rel * fmax(fabs(x), m);
  if (bo_is_complex(dt)) {
    int64_t o = k ^ 1;  // the element's other part
    double xo = bo_part(dt, w, o), yo = bo_part(dt, g, o);
    double big = fmax(fabs(x), fabs(xo));
    if (isfinite(x) && isfinite(y) && isfinite(big) && fabs(x - y) <= t->cplx_rel * sens * big)
      return true;
    // C99 Annex G leaves the sign of an infinite part unspecified when the
    // other part is NaN, or infinite too.
    if (isinf(x) && isinf(y) && ((isnan(xo) && isnan(yo)) || (isinf(xo) && isinf(yo))))
      return true;
  }
  return false;
}

static void bo_format(tfr_dtype dt, const unsigned char *p, char *buf, size_t n) {
  if (dt == TFR_BOOL || (dt != TFR_F16 && dt != TFR_BF16 && dt != TFR_F32 && dt != TFR_F64 &&
                         !bo_is_complex(dt))) {
    uint64_t u = 0;
    memcpy(&u, p, tfr_dtype_size(dt));
    snprintf(buf, n, "0x%" PRIx64, u);
  } else if (bo_is_complex(dt)) {
    snprintf(buf, n, "(%.17g, %.17g)", bo_part(dt, p, 0), bo_part(dt, p, 1));
  } else {
    snprintf(buf, n, "%.17g (%a)", bo_part(dt, p, 0), bo_part(dt, p, 0));
  }
}

// 1 + |b log a| for element i of complex operands a, b (host buffers).
static double bo_power_sensitivity(tfr_dtype dt, const unsigned char *a, const unsigned char *b,
                                   int64_t i) {
  size_t es = tfr_dtype_size(dt);
  double ar = bo_part(dt, a + i * es, 0), ai = bo_part(dt, a + i * es, 1);
  double br = bo_part(dt, b + i * es, 0), bi = bo_part(dt, b + i * es, 1);
  double s = 1.0 + hypot(br, bi) * hypot(log(hypot(ar, ai)), atan2(ai, ar));
  return isfinite(s) ? s : 1.0;
}

static unsigned char *bo_read(const tfr_tensor *t) {
  size_t nb = tfr_tensor_nbytes(t);
  unsigned char *p = malloc(nb + 1);
  assert_non_null(p);
  TFR_ASSERT_OK(tfr_tensor_read(t, p, nb + 1));
  return p;
}

// Compares got with want (host tensors); prints up to 3 mismatching elements.
// `skip` (may be NULL): elements not to compare. `ins`: the operands (host
// tensors of want's shape; read for complex power). Returns the mismatches.
static int64_t bo_compare(const tfr_tensor *want, const tfr_tensor *got, const bo_tol *t,
                          bool flush, const bool *skip, tfr_tensor *const *ins,
                          const char *what) {
  if (tfr_tensor_dtype(want) != tfr_tensor_dtype(got) ||
      tfr_tensor_rank(want) != tfr_tensor_rank(got) ||
      tfr_tensor_numel(want) != tfr_tensor_numel(got)) {
    print_error("%s: result is %s rank %d (%" PRId64 " elements), expected %s rank %d (%" PRId64
                ")\n", what, tfr_dtype_name(tfr_tensor_dtype(got)), tfr_tensor_rank(got),
                tfr_tensor_numel(got), tfr_dtype_name(tfr_tensor_dtype(want)),
                tfr_tensor_rank(want), tfr_tensor_numel(want));
    return 1;
  }
  for (int k = 0; k < tfr_tensor_rank(want); k++)
    if (tfr_tensor_shape(want)[k] != tfr_tensor_shape(got)[k]) {
      print_error("%s: result extent %d is %" PRId64 ", expected %" PRId64 "\n", what, k,
                  tfr_tensor_shape(got)[k], tfr_tensor_shape(want)[k]);
      return 1;
    }
  tfr_dtype dt = tfr_tensor_dtype(want);
  int64_t n = tfr_tensor_numel(want);
  size_t es = tfr_dtype_size(dt);
  unsigned char *w = bo_read(want), *g = bo_read(got), *pa = NULL, *pb = NULL;
  if (t->power) {
    assert_non_null(ins);
    pa = bo_read(ins[0]);
    pb = bo_read(ins[1]);
  }
  int parts = bo_is_complex(dt) ? 2 : 1;
  bool is_float = dt == TFR_F16 || dt == TFR_BF16 || dt == TFR_F32 || dt == TFR_F64 ||
                  parts == 2;
  double m = 0;
  if (is_float)
    for (int64_t i = 0; i < n * parts; i++) {
      double x = fabs(bo_part(dt, w, i));
      if (isfinite(x) && x > m) m = x;
    }
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    if (skip && skip[i]) continue;
    bool ok = true;
    if (!is_float) {
      ok = !memcmp(w + i * es, g + i * es, es);
    } else {
      double sens = t->power ? bo_power_sensitivity(dt, pa, pb, i) : 1.0;
      for (int k = 0; k < parts; k++)
        ok = ok && bo_part_ok(dt, w + i * es, g + i * es, k, t, m, sens, flush);
    }
    if (!ok && ++bad <= 3) {
      char a[96], b[96];
      bo_format(dt, w + i * es, a, sizeof a);
      bo_format(dt, g + i * es, b, sizeof b);
      print_error("%s: element %" PRId64 ": expected %s, got %s\n", what, i, a, b);
    }
  }
  if (bad > 3) print_error("%s: %" PRId64 " mismatching elements in all\n", what, bad);
  free(w);
  free(g);
  free(pa);
  free(pb);
  return bad;
}

// ---------------------------------------------------------------------------
// The differential run
// ---------------------------------------------------------------------------

typedef struct bo_stats {
  int ops, pairs, unsupported, undefined, cases, not_applicable, refused, failed, known;
  bool layouts_seen[L_COUNT];
} bo_stats;

static bool bo_verbose;

static const bo_known_failure *bo_known(const char *backend, const char *op, tfr_dtype dt,
                                        int layout) {
  for (const bo_known_failure *k = bo_known_failures; k->op; k++)
    if (!strcmp(k->backend, backend) && !strcmp(k->op, op) && k->dtype == dt &&
        (!k->layout || !strcmp(k->layout, bo_layout_names[layout])))
      return k;
  return NULL;
}

// Runs case c with inputs `ins` (already views of backend s's tensors) and
// returns the result as a host tensor, or NULL with *st the error.
static tfr_tensor *bo_exec(tfr_session *s, const tfr_op_info *info, const bo_case *c,
                           const bo_family *f, tfr_tensor *const *ins, tfr_status *st) {
  tfr_tensor *aux[BO_MAXAUX] = {NULL}, *out = NULL, *host = NULL;
  for (int i = 0; i < c->naux; i++) aux[i] = tfr_test_upload(s, c->aux[i]);
  *st = f->run(s, info, c, ins, aux, &out);
  for (int i = 0; i < c->naux; i++) tfr_tensor_release(aux[i]);
  if (*st == TFR_OK) {
    *st = tfr_download(s, out, &host);
    tfr_tensor_release(out);
  } else {
    assert_null(out);
  }
  return host;
}

// The f64 analytic functions of the webgpu backend (software f64,
// src/webgpu/kernels/common/math_f64.wgsl, math_f64_erf.wgsl) and its c128
// ops of many f64 steps (divide, abs, sign, sqrt, rsqrt:
// common/c128_steps.wgsl): each kernel compiles for seconds on lavapipe, so
// they run in a ctest entry of their own (test_backend_ops_f64math:
// BO_PART=f64math, below), and off the cpu in the layouts of the compact
// kernel only (compact, rank 0, empty); tests/unit/test_webgpu_math_f64.c
// runs the strided kernel, test_webgpu_c128.c views.
static bool bo_f64_math(const tfr_op_info *info, tfr_dtype dt) {
  if (dt == TFR_C128) {
    if (info->family == TFR_FAMILY_BINARY) return info->param == TFR_DIVIDE;
    if (info->family != TFR_FAMILY_UNARY) return false;
    return info->param == TFR_ABS || info->param == TFR_SIGN || info->param == TFR_SQRT ||
           info->param == TFR_RSQRT;
  }
  if (dt != TFR_F64) return false;
  if (info->family == TFR_FAMILY_BINARY) return info->param == TFR_ATAN2;
  if (info->family != TFR_FAMILY_UNARY) return false;
  switch (info->param) {
    case TFR_EXP: case TFR_EXPM1: case TFR_LOG: case TFR_LOG1P: case TFR_TANH: case TFR_SINH:
    case TFR_COSH: case TFR_LOGISTIC: case TFR_SIN: case TFR_COS: case TFR_TAN: case TFR_ATAN:
    case TFR_ASIN: case TFR_ACOS: case TFR_CBRT: case TFR_ERF: case TFR_ERFC:
      return true;
    default: return false;
  }
}

// The ctest entries share the work (each under its time limit on a cold
// shader cache): without BO_PART the cpu, numpy and webgpu's ops of even id;
// BO_PART=odd webgpu's ops of odd id; BO_PART=f64math webgpu's f64 analytic
// functions (none of them in the other two).
enum { BO_PART_MAIN, BO_PART_ODD, BO_PART_F64MATH };
static int bo_entry = BO_PART_MAIN;

static bool bo_compact_only(const tfr_backend *b, const tfr_op_info *info, tfr_dtype dt,
                            int layout) {
  if (tfr_backend_get_kind(b) == TFR_BACKEND_CPU || !bo_f64_math(info, dt)) return false;
  return !(layout == L_COMPACT || layout == L_RANK0 || layout == L_EMPTY);
}

// One op x dtype x variant in every layout on backend b, against the cpu
// (all the references in one cpu session, then all the runs in one session
// of b). Returns false when the variant does not exist. A variant b refuses
// with TFR_ERR_UNSUPPORTED_DTYPE (tfr_backend_supports answers for the op
// and dtype, not for every combiner or target) is named in `refused`.
static bool bo_check_variant(tfr_backend *b, tfr_backend *cpu, bool flush,
                             const tfr_op_info *info, tfr_dtype dt, int variant, bo_stats *st,
                             int *ran, char *refused, size_t refused_size) {
  bo_case c[L_COUNT];
  bool live[L_COUNT] = {false};
  bo_input ins[L_COUNT][BO_MAXIN];
  tfr_tensor *want[L_COUNT] = {NULL}, *got[L_COUNT] = {NULL};
  tfr_status rs[L_COUNT], gs[L_COUNT];
  char what[L_COUNT][256];
  const bo_family *f = bo_family_of(info);
  for (int l = 0; l < L_COUNT; l++) {
    int kind = l == L_RANK0 ? K_RANK0 : l == L_EMPTY ? K_EMPTY : K_NORMAL;
    int r = bo_build(info, dt, kind, variant, &c[l]);
    if (r < 0) {
      assert_int_equal(l, 0);  // a variant exists for every kind of shape or none
      return false;
    }
    if (r == 0 || (c[l].nin == 0 && l != L_COMPACT && l != L_EMPTY) ||
        bo_compact_only(b, info, dt, l)) {
      if (r > 0) bo_case_free(&c[l]);
      st->not_applicable++;
      continue;
    }
    live[l] = true;
    snprintf(what[l], sizeof what[l], "%s: %s on %s%s%s, %s", tfr_backend_name(b), info->name,
             tfr_dtype_name(dt), c[l].desc[0] ? ", " : "", c[l].desc, bo_layout_names[l]);
    if (bo_verbose) print_message("  %s\n", what[l]);
    uint64_t seed = (uint64_t)variant * 1000003u + (uint64_t)dt * 101u + 17u * (uint64_t)l;
    for (int i = 0; i < c[l].nin; i++)
      bo_input_make(&ins[l][i], &c[l], i, l, seed + 7919u * (uint64_t)i, flush);
  }
  // The references: the cpu on the logical values, compact.
  tfr_session *s = tfr_test_begin(cpu);
  for (int l = 0; l < L_COUNT; l++) {
    if (!live[l]) continue;
    tfr_tensor *logical[BO_MAXIN] = {NULL};
    for (int i = 0; i < c[l].nin; i++) logical[i] = ins[l][i].logical;
    want[l] = bo_exec(s, info, &c[l], f, logical, &rs[l]);
  }
  if (b != cpu) {
    tfr_test_end(s);
    s = tfr_test_begin(b);
  }
  for (int l = 0; l < L_COUNT; l++) {
    if (!live[l]) continue;
    tfr_tensor *views[BO_MAXIN] = {NULL};
    for (int i = 0; i < c[l].nin; i++) views[i] = bo_input_view(s, &ins[l][i]);
    got[l] = bo_exec(s, info, &c[l], f, views, &gs[l]);
    for (int i = 0; i < c[l].nin; i++) tfr_tensor_release(views[i]);
  }
  tfr_test_end(s);
  bool noted = false;
  for (int l = 0; l < L_COUNT; l++) {
    if (!live[l]) continue;
    const bo_known_failure *known = bo_known(tfr_backend_name(b), info->name, dt, l);
    if (rs[l] != TFR_OK && known) {
      print_message("[  KNOWN   ] %s: the cpu reference failed: %s\n", what[l], known->why);
      st->known++;
    } else if (rs[l] != TFR_OK) {
      print_error("%s: the cpu reference failed: %s\n", what[l], tfr_last_error_message());
      st->failed++;
    } else if (gs[l] == TFR_ERR_UNSUPPORTED_DTYPE && b != cpu) {
      st->refused++;
      if (!noted) {
        size_t len = strlen(refused);
        snprintf(refused + len, refused_size - len, "%s%s", len ? ", " : "",
                 c[l].desc[0] ? c[l].desc : "-");
        noted = true;
      }
    } else if (gs[l] != TFR_OK) {
      print_error("%s: %s: %s\n", what[l], tfr_status_string(gs[l]), tfr_last_error_message());
      st->failed++;
    } else {
      st->cases++;
      (*ran)++;
      st->layouts_seen[l] = true;
      bo_tol t = bo_tolerance(info, c[l].tol, tfr_tensor_dtype(want[l]), dt, c[l].nterms);
      tfr_tensor *logical[BO_MAXIN] = {NULL};
      for (int i = 0; i < c[l].nin; i++) logical[i] = ins[l][i].logical;
      if (bo_compare(want[l], got[l], &t, flush, NULL, logical, what[l]) > 0) {
        if (known) {
          print_message("[  KNOWN   ] %s: %s\n", what[l], known->why);
          st->known++;
        } else {
          st->failed++;
        }
      }
    }
    tfr_tensor_release(want[l]);
    tfr_tensor_release(got[l]);
    for (int i = 0; i < c[l].nin; i++) bo_input_free(&ins[l][i]);
    bo_case_free(&c[l]);
  }
  return true;
}

// What tfr_backend_supports says no to must be refused.
static void bo_check_refused(tfr_backend *b, const tfr_op_info *info, tfr_dtype dt,
                             bo_stats *st) {
  bo_case c;
  assert_true(bo_build(info, dt, K_NORMAL, 0, &c) > 0);
  bo_input ins[BO_MAXIN];
  static tfr_tensor *const sentinel = (tfr_tensor *)&bo_known_failures;  // never released
  tfr_tensor *views[BO_MAXIN] = {NULL}, *aux[BO_MAXAUX] = {NULL}, *out = sentinel;
  for (int i = 0; i < c.nin; i++) bo_input_make(&ins[i], &c, i, L_COMPACT, 5u + (uint64_t)i, false);
  tfr_session *s = tfr_test_begin(b);
  for (int i = 0; i < c.nin; i++) views[i] = bo_input_view(s, &ins[i]);
  for (int i = 0; i < c.naux; i++) aux[i] = tfr_test_upload(s, c.aux[i]);
  tfr_status rs = bo_family_of(info)->run(s, info, &c, views, aux, &out);
  for (int i = 0; i < c.nin; i++) tfr_tensor_release(views[i]);
  for (int i = 0; i < c.naux; i++) tfr_tensor_release(aux[i]);
  tfr_test_end(s);
  if (rs != TFR_ERR_UNSUPPORTED_DTYPE || out) {
    print_error("%s: %s on %s: tfr_backend_supports says no, running it gives %s%s\n",
                tfr_backend_name(b), info->name, tfr_dtype_name(dt), tfr_status_string(rs),
                out == sentinel ? " and leaves *out as it was" : out ? " and a result" : "");
    st->failed++;
  }
  st->unsupported++;
  if (out != sentinel) tfr_tensor_release(out);
  for (int i = 0; i < c.nin; i++) bo_input_free(&ins[i]);
  bo_case_free(&c);
}

static void bo_check_backend(tfr_backend *b, tfr_backend *cpu, bool flush) {
  bo_stats st = {0};
  for (tfr_op_id op = 0; op < tfr_op_count(); op++) {
    const tfr_op_info *info = tfr_op_info_of(op);
    uint32_t mask = 0;
    TFR_ASSERT_OK(tfr_op_dtypes(op, &mask));
    st.ops++;
    for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
      int part = BO_PART_MAIN;
      if (tfr_backend_get_kind(b) != TFR_BACKEND_CPU)
        part = bo_f64_math(info, (tfr_dtype)d) ? BO_PART_F64MATH
                                               : (op % 2 ? BO_PART_ODD : BO_PART_MAIN);
      if (part != bo_entry) continue;  // another ctest entry's
      if (!(mask & (1u << d))) {  // not defined for d: refused on every backend
        bo_check_refused(b, info, (tfr_dtype)d, &st);
        st.undefined++;
        continue;
      }
      bool ok = false;
      TFR_ASSERT_OK(tfr_backend_supports(b, op, (tfr_dtype)d, &ok));
      if (!ok) {
        bo_check_refused(b, info, (tfr_dtype)d, &st);
        continue;
      }
      st.pairs++;
      int ran = 0;
      char refused[1024] = "";
      for (int v = 0; bo_check_variant(b, cpu, flush, info, (tfr_dtype)d, v, &st, &ran, refused,
                                       sizeof refused);
           v++) {
      }
      if (refused[0])
        print_message("[  INFO    ] %s refuses %s on %s for: %s\n", tfr_backend_name(b),
                      info->name, tfr_dtype_name((tfr_dtype)d), refused);
      if (ran == 0) {
        print_error("%s: %s on %s: tfr_backend_supports says yes, but no case ran\n",
                    tfr_backend_name(b), info->name, tfr_dtype_name((tfr_dtype)d));
        st.failed++;
      }
    }
  }
  int nlayouts = 0;
  for (int l = 0; l < L_COUNT; l++) nlayouts += st.layouts_seen[l];
  print_message("%s: %d ops, %d (op, dtype) pairs run x %d layouts: %d cases compared with "
                "the cpu (variants included; %d not applicable to a layout, %d variants "
                "refused), %d (op, dtype) pairs refused as unsupported by the backend and %d "
                "as not defined; %d known failures, %d failures\n",
                tfr_backend_name(b), st.ops, st.pairs, nlayouts, st.cases, st.not_applicable,
                st.refused, st.unsupported - st.undefined, st.undefined, st.known, st.failed);
  assert_int_equal(st.failed, 0);
}

static void test_cpu(void **state) {
  (void)state;
  bo_check_backend(tfr_test_cpu, tfr_test_cpu, false);
}

static void test_webgpu(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  bo_check_backend(tfr_test_gpu, tfr_test_cpu, tfr_test_gpu_flushes_subnormals());
}

// ---------------------------------------------------------------------------
// numpy reference data (tests/ref/gen_elementwise.py): the unary and binary
// cases of f32, f64, i32 and c64 on each backend
// ---------------------------------------------------------------------------

static unsigned char *bo_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *size = (size_t)n;
  return buf;
}

// Marks the elements with a subnormal f32 operand part (a flushing device
// reads them as zeros, numpy did not).
static void bo_mark_subnormal(tfr_dtype dt, const unsigned char *p, int64_t n, bool *skip) {
  if (dt != TFR_F32 && dt != TFR_C64) return;
  int parts = dt == TFR_C64 ? 2 : 1;
  for (int64_t i = 0; i < n * parts; i++) {
    float f;
    memcpy(&f, p + 4 * i, 4);
    if (fpclassify(f) == FP_SUBNORMAL) skip[i / parts] = true;
  }
}

static void bo_check_numpy(tfr_backend *b, bool flush) {
  size_t msize = 0, dsize = 0;
  char *manifest = (char *)bo_read_file(TFR_TEST_DATA_DIR "/elementwise/manifest.txt", &msize);
  unsigned char *data = bo_read_file(TFR_TEST_DATA_DIR "/elementwise/data.bin", &dsize);
  if (!manifest || !data) {
    free(manifest);
    free(data);
    fail_msg("cannot read %s/elementwise (run the ref_data ctest fixture)", TFR_TEST_DATA_DIR);
  }
  static const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_I32, TFR_C64};
  int ncases = 0, failed = 0;
  int64_t nelem = 0;
  char *save = NULL;
  for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[96], kind[16], opname[48], dts_in[16], dts_out[16], tol[16];
    int64_t n = 0;
    size_t off = 0;
    tfr_dtype dt = TFR_BOOL, odt = TFR_BOOL;
    if (sscanf(line, "%95s %15s %47s %15s %15s %" SCNd64 " %15s %zu", name, kind, opname,
               dts_in, dts_out, &n, tol, &off) != 8 ||
        tfr_dtype_from_name(dts_in, &dt) != TFR_OK || tfr_dtype_from_name(dts_out, &odt) != TFR_OK)
      fail_msg("bad manifest line: %s", line);
    if (strcmp(kind, "unary") && strcmp(kind, "binary")) continue;
    bool wanted = false;
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) wanted |= dts[k] == dt;
    tfr_op_id op = 0;
    bool ok = false;
    TFR_ASSERT_OK(tfr_op_lookup(opname, &op));
    TFR_ASSERT_OK(tfr_backend_supports(b, op, dt, &ok));
    if (!wanted || !ok) continue;
    const tfr_op_info *info = tfr_op_info_of(op);
    int nin = info->arity;
    size_t es = tfr_dtype_size(dt);
    assert_true(off + (size_t)n * (es * (size_t)nin + tfr_dtype_size(odt)) <= dsize);
    tfr_tensor *host[2] = {NULL, NULL}, *dev[2] = {NULL, NULL}, *out = NULL;
    bool *skip = calloc((size_t)n + 1, 1);
    assert_non_null(skip);
    for (int i = 0; i < nin; i++) {
      const unsigned char *p = data + off + (size_t)i * (size_t)n * es;
      host[i] = tfr_test_tensor(dt, 1, &n, p);
      if (flush) bo_mark_subnormal(dt, p, n, skip);
    }
    tfr_tensor *want = tfr_test_tensor(odt, 1, &n, data + off + (size_t)nin * (size_t)n * es);
    tfr_session *s = tfr_test_begin(b);
    for (int i = 0; i < nin; i++) dev[i] = tfr_test_upload(s, host[i]);
    tfr_status st = nin == 1 ? tfr_unary(s, (tfr_unary_op)info->param, dev[0], &out)
                             : tfr_binary(s, (tfr_binary_op)info->param, dev[0], dev[1], &out);
    tfr_tensor *got = NULL;
    if (st == TFR_OK) got = tfr_test_download(s, out);
    tfr_test_end(s);
    char what[256];
    snprintf(what, sizeof what, "%s: numpy case %s", tfr_backend_name(b), name);
    if (st != TFR_OK) {
      print_error("%s: %s: %s\n", what, tfr_status_string(st), tfr_last_error_message());
      failed++;
    } else {
      // The class tolerance, or the reference data's own when it is wider
      // (numpy's value is rounded from a wider type: ulpN, cplxN).
      bo_tol t = bo_tolerance(info, info->tol, odt, dt, 1);
      int tn = atoi(tol + (tol[0] == 'u' ? 3 : 4));
      if (strcmp(tol, "exact") && tn > t.ulp) {
        t.exact = false;
        t.ulp = tn;
        if (tol[0] == 'c') t.cplx_rel = fmax(t.cplx_rel, tn * bo_eps(odt));
      }
      failed += bo_compare(want, got, &t, flush, skip, host, what) > 0;
      nelem += n;
      ncases++;
    }
    free(skip);
    tfr_tensor_release(got);
    tfr_tensor_release(out);
    tfr_tensor_release(want);
    for (int i = 0; i < nin; i++) {
      tfr_tensor_release(host[i]);
      tfr_tensor_release(dev[i]);
    }
  }
  free(manifest);
  free(data);
  print_message("%s: %d numpy reference cases (unary, binary; f32 f64 i32 c64), %" PRId64
                " elements, %d failures\n", tfr_backend_name(b), ncases, nelem, failed);
  assert_true(ncases > 0);
  assert_int_equal(failed, 0);
}

static void test_cpu_numpy(void **state) {
  (void)state;
  bo_check_numpy(tfr_test_cpu, false);
}

static void test_webgpu_numpy(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  bo_check_numpy(tfr_test_gpu, tfr_test_gpu_flushes_subnormals());
}

// Every family of the registry has a builder (a missing one fails here
// before anything runs).
static void test_every_family_has_a_builder(void **state) {
  (void)state;
  for (tfr_op_id op = 0; op < tfr_op_count(); op++) {
    const tfr_op_info *info = tfr_op_info_of(op);
    if (!bo_family_of(info))
      fail_msg("op %s: family %s has no case builder in bo_families", info->name,
               tfr_op_family_name(info->family));
  }
}

int main(void) {
  const char *v = getenv("BO_VERBOSE");
  bo_verbose = v && !strcmp(v, "1");
  const char *part = getenv("BO_PART");
  if (part && !strcmp(part, "odd")) bo_entry = BO_PART_ODD;
  if (part && !strcmp(part, "f64math")) bo_entry = BO_PART_F64MATH;
  if (bo_entry != BO_PART_MAIN) {
    const struct CMUnitTest only[] = {
        cmocka_unit_test_teardown(test_webgpu, tfr_test_teardown_session),
    };
    return cmocka_run_group_tests(only, tfr_test_setup_webgpu, tfr_test_teardown_webgpu);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_family_has_a_builder),
      cmocka_unit_test_teardown(test_cpu, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_cpu_numpy, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_webgpu, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_webgpu_numpy, tfr_test_teardown_session),
  };
  // Not TFR_TEST_RUN_WEBGPU: without an adapter the cpu part still counts
  // (the webgpu tests skip, or fail under TFR_REQUIRE_WEBGPU=1).
  return cmocka_run_group_tests(tests, tfr_test_setup_webgpu, tfr_test_teardown_webgpu);
}
