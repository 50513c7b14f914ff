// Tests of dot_general on the webgpu backend (src/webgpu/dot.c, kernels
// gemm.wgsl and gemv.wgsl): differential against the cpu backend (OpenBLAS
// for f32/c64, its own integer loop for i32) on the same random inputs.
// f32 and c64 results must lie within the conformance runner's webgpu
// "accumulate" tolerance, 64 eps M with M the largest |expected| (per part for
// complex); i32 results must be identical (both wrap).
//
// Covered: shapes that are not multiples of any tile (1, 3, 17, 65, 130...),
// K = 0, GEMV (M = 1, N = 1, both), batch dims in odd positions and more
// batch axes than the kernel walks, several contracting dims in any order,
// transposed / strided / reversed / misaligned operands, conj flags, the
// accumulating form (alpha, beta, strided and non-mergeable out, NaN in out
// with beta = 0, NaN in lhs with alpha = 0), i32 wrap-around, every tile
// configuration of the table through TFR_WEBGPU_GEMM_TILE, and the errors for
// dtypes the backend does not compute.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

// ---------------------------------------------------------------------------
// Operands: a storage tensor and a view of it, made alike on both backends
// ---------------------------------------------------------------------------

typedef enum tfr_vkind {
  TFR_V_COMPACT,
  TFR_V_PERM,     // storage axes permuted (perm[k]: logical axis of storage axis k)
  TFR_V_REVERSE,  // every axis reversed (negative strides)
  TFR_V_STEP,     // every other element along axis `ax`, from element 1
  TFR_V_OFFSET,   // one extra leading row of axis 0, skipped: odd offset
} tfr_vkind;

typedef struct tfr_opnd {
  int rank;
  int64_t shape[8];  // logical
  tfr_vkind kind;
  int64_t perm[8];
  int ax;
} tfr_opnd;

static void tfr_storage_shape(const tfr_opnd *o, int64_t *s) {
  for (int k = 0; k < o->rank; k++) s[k] = o->shape[k];
  if (o->kind == TFR_V_PERM)
    for (int k = 0; k < o->rank; k++) s[k] = o->shape[o->perm[k]];
  if (o->kind == TFR_V_STEP) s[o->ax] = 2 * o->shape[o->ax] + 1;
  if (o->kind == TFR_V_OFFSET) s[0] = o->shape[0] + 1;
}

// The logical view of `st` (a storage made with tfr_storage_shape).
static tfr_tensor *tfr_make_view(const tfr_tensor *st, const tfr_opnd *o) {
  tfr_tensor *v = NULL;
  int64_t start[8] = {0}, limit[8], step[8];
  int64_t sshape[8];
  tfr_storage_shape(o, sshape);
  for (int k = 0; k < o->rank; k++) limit[k] = sshape[k], step[k] = 1;
  switch (o->kind) {
    case TFR_V_COMPACT: TFR_ASSERT_OK(tfr_tensor_view_slice(st, start, limit, NULL, &v)); break;
    case TFR_V_PERM: {
      int64_t inv[8];
      for (int k = 0; k < o->rank; k++) inv[o->perm[k]] = k;
      TFR_ASSERT_OK(tfr_tensor_view_transpose(st, inv, &v));
      break;
    }
    case TFR_V_REVERSE: {
      int64_t axes[8];
      for (int k = 0; k < o->rank; k++) axes[k] = k;
      TFR_ASSERT_OK(tfr_tensor_view_reverse(st, o->rank, axes, &v));
      break;
    }
    case TFR_V_STEP:
      start[o->ax] = 1;
      step[o->ax] = 2;
      TFR_ASSERT_OK(tfr_tensor_view_slice(st, start, limit, step, &v));
      break;
    case TFR_V_OFFSET:
      start[0] = 1;
      TFR_ASSERT_OK(tfr_tensor_view_slice(st, start, limit, NULL, &v));
      break;
  }
  for (int k = 0; k < o->rank; k++) assert_int_equal(tfr_tensor_shape(v)[k], o->shape[k]);
  return v;
}

static tfr_opnd tfr_op(int rank, const int64_t *shape) {
  tfr_opnd o;
  memset(&o, 0, sizeof o);
  o.rank = rank;
  for (int k = 0; k < rank; k++) o.shape[k] = shape[k];
  return o;
}

static tfr_opnd tfr_op_kind(tfr_opnd o, tfr_vkind kind, int ax) {
  o.kind = kind;
  o.ax = ax;
  if (kind == TFR_V_PERM)  // storage axes reversed: the view is a full transposition
    for (int k = 0; k < o.rank; k++) o.perm[k] = o.rank - 1 - k;
  return o;
}

// ---------------------------------------------------------------------------
// One case
// ---------------------------------------------------------------------------

typedef struct tfr_case {
  tfr_dtype dt;
  tfr_opnd lhs, rhs;
  int nb, nc;
  int64_t lb[8], rb[8], lc[8], rc[8];
  bool lconj, rconj;
  // Accumulating form: out (a view per `out`, initialised randomly or with
  // NaN), alpha, beta.
  bool accumulate;
  tfr_vkind out_kind;
  int out_ax;
  bool out_nan;
  bool lhs_nan;  // lhs filled with NaN (with alpha = 0)
  double alpha[2], beta[2];
  uint64_t seed;
} tfr_case;

static void tfr_scalar(tfr_dtype dt, const double *v, unsigned char *out) {
  memset(out, 0, 16);
  if (dt == TFR_F32) {
    float f = (float)v[0];
    memcpy(out, &f, 4);
  } else if (dt == TFR_I32) {
    int32_t i = (int32_t)v[0];
    memcpy(out, &i, 4);
  } else {
    float c[2] = {(float)v[0], (float)v[1]};
    memcpy(out, c, 8);
  }
}

static void tfr_fill_nan(tfr_tensor *h) {
  void *p = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(h, &p));
  size_t n = tfr_tensor_nbytes(h) / 4;
  float *f = p;
  for (size_t i = 0; i < n; i++) f[i] = NAN;
}

// Reads a tensor (any view; host) into a compact malloc'ed buffer.
static void *tfr_read_compact(tfr_session *c, const tfr_tensor *t) {
  tfr_tensor *compact = NULL;
  TFR_ASSERT_OK(tfr_copy(c, t, &compact));
  size_t n = tfr_tensor_nbytes(compact);
  void *buf = malloc(n ? n : 1);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(compact, buf, n));
  tfr_tensor_release(compact);
  return buf;
}

// Compares `n` elements: i32 exactly, f32/c64 within 64 eps M.
static void tfr_dot_compare(tfr_dtype dt, const void *want, const void *got, int64_t n,
                        const char *what) {
  if (dt == TFR_I32) {
    const int32_t *a = want, *b = got;
    for (int64_t i = 0; i < n; i++)
      if (a[i] != b[i]) fail_msg("%s: element %lld: want %d, got %d", what, (long long)i, a[i], b[i]);
    return;
  }
  int64_t parts = dt == TFR_C64 ? 2 * n : n;
  const float *a = want, *b = got;
  double m = 0;
  for (int64_t i = 0; i < parts; i++) {
    if (isnan(a[i])) fail_msg("%s: the cpu reference has NaN at %lld", what, (long long)i);
    if (fabs(a[i]) > m) m = fabs(a[i]);
  }
  double tol = 64.0 * FLT_EPSILON * m;
  for (int64_t i = 0; i < parts; i++) {
    if (isnan(b[i]) || fabs((double)a[i] - (double)b[i]) > tol)
      fail_msg("%s: %s part %lld of element %lld: want %.9g, got %.9g (tolerance %.3g)", what,
               dt == TFR_C64 ? (i % 2 ? "imaginary" : "real") : "value", (long long)(i % 2),
               (long long)(dt == TFR_C64 ? i / 2 : i), a[i], b[i], tol);
  }
}

static void tfr_run(const tfr_case *tc, const char *what) {
  TFR_TEST_NEED_GPU();
  int64_t ls[8], rs[8];
  tfr_storage_shape(&tc->lhs, ls);
  tfr_storage_shape(&tc->rhs, rs);
  tfr_tensor *hl = tfr_test_random_tensor(tc->dt, tc->lhs.rank, ls, tc->seed);
  tfr_tensor *hr = tfr_test_random_tensor(tc->dt, tc->rhs.rank, rs, tc->seed + 1);
  if (tc->lhs_nan) tfr_fill_nan(hl);
  tfr_dot_config cfg = {tc->nb, tc->lb, tc->rb, tc->nc, tc->lc, tc->rc, tc->lconj, tc->rconj};
  unsigned char alpha[16], beta[16];
  tfr_scalar(tc->dt, tc->alpha, alpha);
  tfr_scalar(tc->dt, tc->beta, beta);

  // The result's shape, from the cpu run of the plain form.
  tfr_session *c = tfr_test_begin(tfr_test_cpu);
  tfr_tensor *lv = tfr_make_view(hl, &tc->lhs), *rv = tfr_make_view(hr, &tc->rhs);
  tfr_tensor *plain = NULL;
  tfr_status plain_st = tfr_dot_general(c, lv, rv, &cfg, &plain);
  TFR_ASSERT_OK(plain_st);
  tfr_opnd out = tfr_op(tfr_tensor_rank(plain), tfr_tensor_shape(plain));
  out = tfr_op_kind(out, tc->out_kind, tc->out_ax);
  int64_t os[8];
  tfr_storage_shape(&out, os);
  tfr_tensor *ho = tfr_test_random_tensor(tc->dt, out.rank, os, tc->seed + 2);
  if (tc->out_nan) tfr_fill_nan(ho);
  void *want;
  if (tc->accumulate) {
    // The cpu works on a copy of the out storage; `ho` stays the initial state.
    tfr_tensor *ho2 = NULL, *ov = NULL;
    TFR_ASSERT_OK(tfr_copy(c, ho, &ho2));
    ov = tfr_make_view(ho2, &out);
    TFR_ASSERT_OK(tfr_dot_general_accumulate(c, lv, rv, &cfg, alpha, beta, ov));
    want = tfr_read_compact(c, ov);
    tfr_tensor_release(ov);
    tfr_tensor_release(ho2);
  } else {
    want = tfr_read_compact(c, plain);
  }
  int64_t n = tfr_tensor_numel(plain);
  tfr_tensor_release(lv);
  tfr_tensor_release(rv);
  tfr_test_end(c);

  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *dl = tfr_test_upload(s, hl), *dr = tfr_test_upload(s, hr);
  tfr_tensor *dlv = tfr_make_view(dl, &tc->lhs), *drv = tfr_make_view(dr, &tc->rhs);
  tfr_tensor *result = NULL, *dout = NULL;
  if (tc->accumulate) {
    dout = tfr_test_upload(s, ho);
    result = tfr_make_view(dout, &out);
    TFR_ASSERT_OK(tfr_dot_general_accumulate(s, dlv, drv, &cfg, alpha, beta, result));
  } else {
    TFR_ASSERT_OK(tfr_dot_general(s, dlv, drv, &cfg, &result));
    assert_int_equal(tfr_tensor_rank(result), tfr_tensor_rank(plain));
    for (int k = 0; k < tfr_tensor_rank(plain); k++)
      assert_int_equal(tfr_tensor_shape(result)[k], tfr_tensor_shape(plain)[k]);
  }
  tfr_tensor *back = tfr_test_download(s, result);
  tfr_test_end(s);
  c = tfr_test_begin(tfr_test_cpu);
  void *got = tfr_read_compact(c, back);
  tfr_test_end(c);

  char label[256];
  snprintf(label, sizeof label, "%s (%s)", what, tfr_dtype_name(tc->dt));
  tfr_dot_compare(tc->dt, want, got, n, label);

  // Accumulating into a view: elements of the storage outside it unchanged.
  if (tc->accumulate && (tc->out_kind == TFR_V_STEP || tc->out_kind == TFR_V_OFFSET)) {
    s = tfr_test_begin(tfr_test_gpu);
    tfr_tensor *all = tfr_test_download(s, dout);
    tfr_test_end(s);
    size_t es = tfr_dtype_size(tc->dt), nb = tfr_tensor_nbytes(ho);
    unsigned char *x = malloc(nb), *y = malloc(nb);
    assert_non_null(x);
    assert_non_null(y);
    TFR_ASSERT_OK(tfr_tensor_read(ho, x, nb));
    TFR_ASSERT_OK(tfr_tensor_read(all, y, nb));
    // Storage elements outside the view: index 0 of axis 0 (OFFSET), even
    // indices along the stepped axis (STEP).
    int64_t total = (int64_t)(nb / es), outside = 0;
    for (int64_t i = 0; i < total; i++) {
      int64_t r = i, idx[8];
      for (int k = out.rank - 1; k >= 0; k--) idx[k] = r % os[k], r /= os[k];
      bool in_view = tc->out_kind == TFR_V_OFFSET ? idx[0] >= 1 : idx[out.ax] % 2 == 1;
      if (in_view) continue;
      outside++;
      if (memcmp(x + i * (int64_t)es, y + i * (int64_t)es, es) != 0)
        fail_msg("%s: storage element %lld outside the out view was changed", label,
                 (long long)i);
    }
    assert_true(outside > 0);
    free(x);
    free(y);
    tfr_tensor_release(all);
  }

  free(want);
  free(got);
  tfr_tensor_release(back);
  tfr_tensor_release(result);
  tfr_tensor_release(dout);
  tfr_tensor_release(dlv);
  tfr_tensor_release(drv);
  tfr_tensor_release(dl);
  tfr_tensor_release(dr);
  tfr_tensor_release(plain);
  tfr_tensor_release(ho);
  tfr_tensor_release(hl);
  tfr_tensor_release(hr);
}

// A plain matrix product [M, K] x [K, N] of `dt` with operand views.
static tfr_case tfr_matmul(tfr_dtype dt, int64_t M, int64_t N, int64_t K, tfr_vkind lk,
                           tfr_vkind rk, uint64_t seed) {
  tfr_case tc;
  memset(&tc, 0, sizeof tc);
  tc.dt = dt;
  int64_t ls[2] = {M, K}, rs[2] = {K, N};
  tc.lhs = tfr_op_kind(tfr_op(2, ls), lk, 1);
  tc.rhs = tfr_op_kind(tfr_op(2, rs), rk, 0);
  tc.nc = 1;
  tc.lc[0] = 1;
  tc.rc[0] = 0;
  tc.seed = seed;
  return tc;
}

static const tfr_dtype tfr_dtypes[3] = {TFR_F32, TFR_I32, TFR_C64};

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

static void test_shapes(void **state) {
  (void)state;
  static const int64_t mnk[][3] = {{1, 1, 1},   {3, 5, 7},     {17, 65, 33},  {65, 130, 17},
                                   {130, 17, 65}, {64, 64, 64}, {129, 3, 200}, {2, 2, 1},
                                   {5, 131, 4}};
  for (int d = 0; d < 3; d++)
    for (size_t i = 0; i < sizeof mnk / sizeof mnk[0]; i++) {
      char what[96];
      snprintf(what, sizeof what, "%lldx%lldx%lld", (long long)mnk[i][0], (long long)mnk[i][1],
               (long long)mnk[i][2]);
      tfr_case tc = tfr_matmul(tfr_dtypes[d], mnk[i][0], mnk[i][1], mnk[i][2], TFR_V_COMPACT,
                               TFR_V_COMPACT, 100 + i);
      tfr_run(&tc, what);
    }
}

static void test_gemv(void **state) {
  (void)state;
  // N = 1, M = 1, both; operands in place with any strides.
  static const int64_t mnk[][3] = {{77, 1, 5}, {1, 77, 5}, {1, 1, 300}, {300, 1, 67},
                                   {1, 300, 67}, {33, 1, 1}, {1, 40, 1}};
  static const tfr_vkind kinds[] = {TFR_V_COMPACT, TFR_V_PERM, TFR_V_REVERSE, TFR_V_STEP,
                                    TFR_V_OFFSET};
  for (int d = 0; d < 3; d++)
    for (size_t i = 0; i < sizeof mnk / sizeof mnk[0]; i++)
      for (size_t k = (i + d) % 5; k < 5; k += 3) {
        char what[96];
        snprintf(what, sizeof what, "gemv %lldx%lldx%lld view %d", (long long)mnk[i][0],
                 (long long)mnk[i][1], (long long)mnk[i][2], (int)kinds[k]);
        tfr_case tc = tfr_matmul(tfr_dtypes[d], mnk[i][0], mnk[i][1], mnk[i][2], kinds[k],
                                 kinds[(k + 1) % 5], 200 + i);
        tfr_run(&tc, what);
      }
}

static void test_layouts(void **state) {
  (void)state;
  // Every combination of operand views: transposed (in place along m/n),
  // reversed (negative strides), stepped (packed), misaligned offsets
  // (scalar loads), on shapes with and without multiples of 4.
  static const tfr_vkind kinds[] = {TFR_V_COMPACT, TFR_V_PERM, TFR_V_REVERSE, TFR_V_STEP,
                                    TFR_V_OFFSET};
  static const int64_t mnk[][3] = {{37, 45, 19}, {68, 36, 24}};
  for (int d = 0; d < 3; d++)
    for (size_t s = 0; s < 2; s++)
      for (size_t i = 0; i < 5; i++)
        for (size_t j = (i + s) % 5; j < 5; j += 2 + (d + i) % 3) {
          char what[96];
          snprintf(what, sizeof what, "%lldx%lldx%lld lhs view %d rhs view %d",
                   (long long)mnk[s][0], (long long)mnk[s][1], (long long)mnk[s][2], (int)kinds[i],
                   (int)kinds[j]);
          tfr_case tc = tfr_matmul(tfr_dtypes[d], mnk[s][0], mnk[s][1], mnk[s][2], kinds[i],
                                   kinds[j], 300 + 10 * i + j);
          tfr_run(&tc, what);
        }
}

static void test_k_zero(void **state) {
  (void)state;
  for (int d = 0; d < 3; d++) {
    tfr_case tc = tfr_matmul(tfr_dtypes[d], 5, 7, 0, TFR_V_COMPACT, TFR_V_COMPACT, 400);
    tfr_run(&tc, "K = 0 (zeros)");
    tc.accumulate = true;
    tc.alpha[0] = 2, tc.beta[0] = 3, tc.beta[1] = -1;
    tfr_run(&tc, "K = 0, accumulate: beta * out");
    tc.out_kind = TFR_V_PERM;
    tfr_run(&tc, "K = 0, accumulate into a transposed out");
    tc.beta[0] = 0, tc.beta[1] = 0;
    tc.out_nan = true;
    tfr_run(&tc, "K = 0, beta = 0 over NaN: zeros");
    tc = tfr_matmul(tfr_dtypes[d], 1, 9, 0, TFR_V_COMPACT, TFR_V_COMPACT, 401);
    tfr_run(&tc, "K = 0, M = 1");
  }
}

static void test_batched(void **state) {
  (void)state;
  for (int d = 0; d < 3; d++) {
    // lhs [K, B, M] (batch dim 1, contracting dim 0), rhs [N, K, B].
    tfr_case tc;
    memset(&tc, 0, sizeof tc);
    tc.dt = tfr_dtypes[d];
    int64_t ls[3] = {13, 3, 21}, rs[3] = {18, 13, 3};
    tc.lhs = tfr_op(3, ls);
    tc.rhs = tfr_op(3, rs);
    tc.nb = 1, tc.lb[0] = 1, tc.rb[0] = 2;
    tc.nc = 1, tc.lc[0] = 0, tc.rc[0] = 1;
    tc.seed = 500;
    tfr_run(&tc, "batch in odd positions");
    // Two batch dims, in different orders: lhs [B1, M, B2, K], rhs [K, B2, N, B1].
    int64_t ls2[4] = {2, 9, 3, 10}, rs2[4] = {10, 3, 11, 2};
    tc.lhs = tfr_op(4, ls2);
    tc.rhs = tfr_op(4, rs2);
    tc.nb = 2, tc.lb[0] = 0, tc.rb[0] = 3, tc.lb[1] = 2, tc.rb[1] = 1;
    tc.nc = 1, tc.lc[0] = 3, tc.rc[0] = 0;
    tc.seed = 501;
    tfr_run(&tc, "two batch dims, swapped");
    // The same as a GEMV per batch (N = 1 after merging: no rhs free axis).
    int64_t rs3[3] = {10, 3, 2};
    tc.rhs = tfr_op(3, rs3);
    tc.rb[0] = 2, tc.rb[1] = 1, tc.rc[0] = 0;
    tc.seed = 502;
    tfr_run(&tc, "batched gemv");
    // Compact bmm with a batch large enough for several tiles per element.
    int64_t ls4[3] = {4, 70, 12}, rs4[3] = {4, 12, 66};
    tc.lhs = tfr_op(3, ls4);
    tc.rhs = tfr_op(3, rs4);
    tc.nb = 1, tc.lb[0] = 0, tc.rb[0] = 0;
    tc.nc = 1, tc.lc[0] = 2, tc.rc[0] = 1;
    tc.seed = 503;
    tfr_run(&tc, "bmm");
    // Five batch axes of extent 2 in permuted orders: more than the kernel's
    // four after merging, so operands are packed and out is a temporary.
    int64_t ls5[7] = {2, 2, 5, 2, 2, 3, 2}, rs5[7] = {2, 2, 2, 3, 2, 2, 4};
    tc.lhs = tfr_op(7, ls5);  // [b0, b1, M, b2, b3, K, b4]
    tc.rhs = tfr_op(7, rs5);  // [b4, b3, b2, K, b1, b0, N]
    tc.nb = 5;
    int64_t lb[5] = {0, 1, 3, 4, 6}, rb[5] = {5, 4, 2, 1, 0};
    memcpy(tc.lb, lb, sizeof lb);
    memcpy(tc.rb, rb, sizeof rb);
    tc.nc = 1, tc.lc[0] = 5, tc.rc[0] = 3;
    tc.seed = 504;
    tfr_run(&tc, "five unmergeable batch axes");
    tc.accumulate = true;
    tc.alpha[0] = -1.5, tc.beta[0] = 0.5;
    tfr_run(&tc, "five unmergeable batch axes, accumulate");
  }
}

static void test_contracting(void **state) {
  (void)state;
  for (int d = 0; d < 3; d++) {
    // Several contracting dims in crossed orders: lhs [K1, M, K2], rhs [K2, N, K1].
    tfr_case tc;
    memset(&tc, 0, sizeof tc);
    tc.dt = tfr_dtypes[d];
    int64_t ls[3] = {5, 19, 7}, rs[3] = {7, 23, 5};
    tc.lhs = tfr_op(3, ls);
    tc.rhs = tfr_op(3, rs);
    tc.nc = 2, tc.lc[0] = 0, tc.rc[0] = 2, tc.lc[1] = 2, tc.rc[1] = 0;
    tc.seed = 600;
    tfr_run(&tc, "two contracting dims, crossed");
    // Three, with free axes split around them: lhs [M1, K1, M2, K2, K3],
    // rhs [K3, K1, N, K2].
    int64_t ls2[5] = {3, 4, 6, 3, 2}, rs2[4] = {2, 4, 17, 3};
    tc.lhs = tfr_op(5, ls2);
    tc.rhs = tfr_op(4, rs2);
    tc.nc = 3;
    int64_t lc[3] = {1, 3, 4}, rc[3] = {1, 3, 0};
    memcpy(tc.lc, lc, sizeof lc);
    memcpy(tc.rc, rc, sizeof rc);
    tc.seed = 601;
    tfr_run(&tc, "three contracting dims, split free axes");
    // No contracting dim at all: an outer product.
    int64_t ls3[1] = {33}, rs3[1] = {45};
    tc.lhs = tfr_op(1, ls3);
    tc.rhs = tfr_op(1, rs3);
    tc.nc = 0;
    tc.seed = 602;
    tfr_run(&tc, "outer product");
    // Everything contracted: a dot product of reversed vectors.
    int64_t v[1] = {1000};
    tc.lhs = tfr_op_kind(tfr_op(1, v), TFR_V_REVERSE, 0);
    tc.rhs = tfr_op(1, v);
    tc.nc = 1, tc.lc[0] = 0, tc.rc[0] = 0;
    tc.seed = 603;
    tfr_run(&tc, "dot product");
  }
}

static void test_conj(void **state) {
  (void)state;
  static const int64_t mnk[][3] = {{21, 34, 13}, {1, 30, 9}, {30, 1, 9}, {40, 44, 16}};
  for (size_t i = 0; i < 4; i++)
    for (int f = 0; f < 4; f++) {
      tfr_case tc = tfr_matmul(TFR_C64, mnk[i][0], mnk[i][1], mnk[i][2],
                               f & 1 ? TFR_V_PERM : TFR_V_COMPACT, TFR_V_COMPACT, 700 + i);
      tc.lconj = f & 1;
      tc.rconj = (f >> 1) & 1;
      char what[96];
      snprintf(what, sizeof what, "conj lhs %d rhs %d, %lldx%lldx%lld", tc.lconj, tc.rconj,
               (long long)mnk[i][0], (long long)mnk[i][1], (long long)mnk[i][2]);
      tfr_run(&tc, what);
    }
  // Conj on a real dtype is the identity.
  tfr_case tc = tfr_matmul(TFR_F32, 9, 10, 11, TFR_V_COMPACT, TFR_V_COMPACT, 710);
  tc.lconj = tc.rconj = true;
  tfr_run(&tc, "conj on f32");
}

static void test_accumulate(void **state) {
  (void)state;
  static const tfr_vkind outs[] = {TFR_V_COMPACT, TFR_V_PERM, TFR_V_REVERSE, TFR_V_STEP,
                                   TFR_V_OFFSET};
  static const int64_t mnk[][3] = {{19, 27, 14}, {1, 27, 14}, {19, 1, 14}};
  for (int d = 0; d < 3; d++)
    for (size_t i = 0; i < 3; i++)
      for (size_t o = 0; o < 5; o++) {
        tfr_case tc = tfr_matmul(tfr_dtypes[d], mnk[i][0], mnk[i][1], mnk[i][2], TFR_V_COMPACT,
                                 TFR_V_PERM, 800 + i);
        tc.accumulate = true;
        tc.out_kind = outs[o];
        tc.alpha[0] = 2, tc.alpha[1] = -0.5;
        tc.beta[0] = -3, tc.beta[1] = 1;
        char what[96];
        snprintf(what, sizeof what, "accumulate %lldx%lldx%lld out view %d",
                 (long long)mnk[i][0], (long long)mnk[i][1], (long long)mnk[i][2], (int)outs[o]);
        tfr_run(&tc, what);
        if (tfr_dtypes[d] == TFR_I32) continue;
        // beta = 0 never reads out (NaN there must not propagate).
        tc.beta[0] = tc.beta[1] = 0;
        tc.out_nan = true;
        tfr_run(&tc, "accumulate, beta = 0 over NaN");
        // alpha = 0 never reads the operands.
        tc.alpha[0] = tc.alpha[1] = 0;
        tc.beta[0] = 0.5;
        tc.out_nan = false;
        tc.lhs_nan = true;
        tfr_run(&tc, "accumulate, alpha = 0 over NaN operands");
      }
  // Out whose M axes do not merge (a slice of a larger storage along axis 1
  // of a rank-3 out): computed into a temporary and copied back.
  for (int d = 0; d < 3; d++) {
    tfr_case tc;
    memset(&tc, 0, sizeof tc);
    tc.dt = tfr_dtypes[d];
    int64_t ls[3] = {6, 7, 9}, rs[2] = {9, 11};
    tc.lhs = tfr_op(3, ls);
    tc.rhs = tfr_op(2, rs);
    tc.nc = 1, tc.lc[0] = 2, tc.rc[0] = 0;
    tc.accumulate = true;
    tc.out_kind = TFR_V_STEP;
    tc.out_ax = 1;
    tc.alpha[0] = 1, tc.beta[0] = 2;
    tc.seed = 850;
    tfr_run(&tc, "accumulate into an out of unmergeable M axes");
  }
}

static void test_i32_wrap(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  // Products and sums beyond 2^31 wrap, identically on both backends.
  int64_t M = 9, K = 70, N = 13;
  int64_t ls[2] = {M, K}, rs[2] = {K, N};
  int32_t *a = malloc((size_t)(M * K) * 4), *b = malloc((size_t)(K * N) * 4);
  assert_non_null(a);
  assert_non_null(b);
  uint64_t st = 77;
  for (int64_t i = 0; i < M * K; i++) a[i] = (int32_t)(tfr_test_rand_u64(&st) >> 33);
  for (int64_t i = 0; i < K * N; i++) b[i] = (int32_t)(tfr_test_rand_u64(&st) >> 32);
  tfr_tensor *ha = tfr_test_tensor(TFR_I32, 2, ls, a), *hb = tfr_test_tensor(TFR_I32, 2, rs, b);
  int64_t lc = 1, rc = 0;
  tfr_dot_config cfg = {0, NULL, NULL, 1, &lc, &rc, false, false};
  for (int gemv = 0; gemv < 2; gemv++) {
    tfr_tensor *hbv = hb;
    if (gemv) {
      int64_t start[2] = {0, 0}, limit[2] = {K, 1};
      TFR_ASSERT_OK(tfr_tensor_view_slice(hb, start, limit, NULL, &hbv));
    }
    tfr_session *c = tfr_test_begin(tfr_test_cpu);
    tfr_tensor *want = NULL;
    TFR_ASSERT_OK(tfr_dot_general(c, ha, hbv, &cfg, &want));
    tfr_test_end(c);
    tfr_session *s = tfr_test_begin(tfr_test_gpu);
    tfr_tensor *da = tfr_test_upload(s, ha), *db = tfr_test_upload(s, hbv), *dy = NULL;
    TFR_ASSERT_OK(tfr_dot_general(s, da, db, &cfg, &dy));
    tfr_tensor *got = tfr_test_download(s, dy);
    tfr_test_end(s);
    int64_t n = tfr_tensor_numel(want);
    int32_t *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    TFR_ASSERT_OK(tfr_tensor_read(want, x, (size_t)n * 4));
    TFR_ASSERT_OK(tfr_tensor_read(got, y, (size_t)n * 4));
    // Wrapping did happen: some exact sum is out of the i32 range.
    // The sum itself can leave int64's range: its low bits wrap in uint64,
    // its size is judged in double.
    uint64_t low = 0;
    double approx = 0;
    for (int64_t k = 0; k < K; k++) {
      int64_t prod = (int64_t)a[k] * (int64_t)b[k * N];
      low += (uint64_t)prod;
      approx += (double)prod;
    }
    assert_true(approx > INT32_MAX || approx < INT32_MIN);
    assert_int_equal(x[0], (int32_t)(uint32_t)low);
    tfr_dot_compare(TFR_I32, x, y, n, gemv ? "i32 wrap (gemv)" : "i32 wrap");
    free(x);
    free(y);
    tfr_tensor_release(got);
    tfr_tensor_release(dy);
    tfr_tensor_release(da);
    tfr_tensor_release(db);
    tfr_tensor_release(want);
    if (gemv) tfr_tensor_release(hbv);
  }
  tfr_tensor_release(ha);
  tfr_tensor_release(hb);
  free(a);
  free(b);
}

static void test_tile_configs(void **state) {
  (void)state;
  // Every configuration of the table and a few others, through the tuning
  // variable: edges in M, N and K, vec4 and scalar loads, both layouts.
  static const char *const real_cfgs[] = {"128x128x8:8x8", "128x128x16:8x8", "128x64x8:8x4",
                                          "64x128x8:4x8",  "64x64x8:4x4",    "64x64x16:4x4",
                                          "32x32x8:4x4",   "32x64x4:4x4",     "256x128x8:8x8"};
  static const char *const complex_cfgs[] = {"64x64x8:4x4", "64x32x8:4x2", "32x32x8:2x2",
                                             "64x64x4:4x4", "128x64x8:8x4", "32x32x16:2x2"};
  for (int d = 0; d < 3; d++) {
    bool cx = tfr_dtypes[d] == TFR_C64;
    size_t n = cx ? sizeof complex_cfgs / sizeof complex_cfgs[0]
                  : sizeof real_cfgs / sizeof real_cfgs[0];
    for (size_t i = 0; i < n; i++) {
      const char *cfg = cx ? complex_cfgs[i] : real_cfgs[i];
      setenv("TFR_WEBGPU_GEMM_TILE", cfg, 1);
      for (int lay = 0; lay < 3; lay += 1 + (int)(i % 2)) {
        char what[96];
        snprintf(what, sizeof what, "tile %s, layout %d", cfg, lay);
        int64_t k = lay == 2 ? 37 : 48;
        tfr_case tc = tfr_matmul(tfr_dtypes[d], 70, 90, k, lay == 1 ? TFR_V_PERM : TFR_V_COMPACT,
                                 lay == 1 ? TFR_V_PERM : TFR_V_COMPACT, 900 + i);
        tfr_run(&tc, what);
      }
    }
  }
  setenv("TFR_WEBGPU_GEMM_TILE", "12x", 1);
  tfr_case tc = tfr_matmul(TFR_F32, 30, 30, 30, TFR_V_COMPACT, TFR_V_COMPACT, 950);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  int64_t ls[2] = {30, 30};
  tfr_tensor *h = tfr_test_random_tensor(TFR_F32, 2, ls, 951), *d = tfr_test_upload(s, h), *y = NULL;
  int64_t lc = 1, rc = 0;
  tfr_dot_config cfg = {0, NULL, NULL, 1, &lc, &rc, false, false};
  TFR_ASSERT_ERROR(tfr_dot_general(s, d, d, &cfg, &y), TFR_ERR_INVALID_ARGUMENT,
                   "TFR_WEBGPU_GEMM_TILE");
  setenv("TFR_WEBGPU_GEMM_TILE", "128x128x8:3x8", 1);
  TFR_ASSERT_ERROR(tfr_dot_general(s, d, d, &cfg, &y), TFR_ERR_INVALID_ARGUMENT,
                   "TFR_WEBGPU_GEMM_TILE", "does not fit");
  unsetenv("TFR_WEBGPU_GEMM_TILE");
  tfr_test_end(s);
  tfr_tensor_release(d);
  tfr_tensor_release(h);
  (void)tc;
}

static void test_large_k(void **state) {
  (void)state;
  // Many steps along k through the double-buffered loop, full tiles.
  tfr_case tc = tfr_matmul(TFR_F32, 128, 128, 520, TFR_V_COMPACT, TFR_V_COMPACT, 1000);
  tfr_run(&tc, "128x128x520");
  tc = tfr_matmul(TFR_C64, 64, 70, 260, TFR_V_PERM, TFR_V_COMPACT, 1001);
  tc.lconj = true;
  tfr_run(&tc, "64x70x260 conj");
}

static void test_split_k(void **state) {
  (void)state;
  // Small M x N with K >= 1024: k is split into slices summed by a second
  // kernel (plain, accumulating, batched, misaligned and transposed operands).
  for (int d = 0; d < 3; d++) {
    tfr_case tc = tfr_matmul(tfr_dtypes[d], 20, 30, 1100, TFR_V_COMPACT, TFR_V_COMPACT, 1200);
    tfr_run(&tc, "split-K 20x30x1100");
    tc = tfr_matmul(tfr_dtypes[d], 9, 37, 1031, TFR_V_PERM, TFR_V_OFFSET, 1201);
    tc.accumulate = true;
    tc.out_kind = TFR_V_PERM;
    tc.alpha[0] = -1, tc.alpha[1] = 0.25;
    tc.beta[0] = 0.5, tc.beta[1] = 2;
    tfr_run(&tc, "split-K 9x37x1031, accumulate into a transposed out");
    tc.out_kind = TFR_V_STEP;
    tc.out_ax = 1;
    tfr_run(&tc, "split-K 9x37x1031, accumulate into a stepped out");
    memset(&tc, 0, sizeof tc);
    tc.dt = tfr_dtypes[d];
    int64_t ls[3] = {3, 12, 1500}, rs[3] = {3, 1500, 10};
    tc.lhs = tfr_op(3, ls);
    tc.rhs = tfr_op(3, rs);
    tc.nb = 1, tc.lb[0] = 0, tc.rb[0] = 0;
    tc.nc = 1, tc.lc[0] = 2, tc.rc[0] = 1;
    tc.seed = 1202;
    tfr_run(&tc, "split-K batched 3 x 12x10x1500");
  }
}

// The tile test sets TFR_WEBGPU_GEMM_TILE: never leave it set for the next.
static int tfr_tile_teardown(void **state) {
  unsetenv("TFR_WEBGPU_GEMM_TILE");
  return tfr_test_teardown_session(state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_shapes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gemv, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_layouts, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_k_zero, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_batched, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_contracting, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_conj, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_accumulate, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_i32_wrap, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_tile_configs, tfr_tile_teardown),
      cmocka_unit_test_teardown(test_large_k, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_split_k, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
