// Sliced contraction (einsum.h, src/einsum/slice.c): on the 300 random numpy
// expressions of tests/ref/gen_einsum.py (every dtype, open and summed
// labels, diagonals, broadcast axes, ellipses) and the bool ones of
// gen_einsum_grammar.py, slicing 1 to 3 random labels gives numpy's result
// (as the unsliced plan does) through tfr_einsum_plan_execute, and the
// slices run one by one with tfr_einsum_plan_execute_slice and combined here
// (written into their blocks, summed where they share one) give it too. The
// statistics: slices = the product of the extents, sliced flops >= flops, the
// largest intermediate no larger. Bad slicings are refused.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "core/core.h"             // tfr_alloc_fail_after
#include "einsum/einsum_impl.h"   // tfr_einsum_slice_schedule
#include "support.h"

static const void *sl_data(const tfr_tensor *t) {
  void *p = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, &p));
  return p;
}

// Combines the slices of `plan` on the host: each block written at its
// start, or added (OR for bool) to what earlier slices of the block wrote.
static tfr_tensor *sl_combine(tfr_session *s, const tfr_einsum_plan *plan, int n,
                              const tfr_tensor *const *ops, const tfr_tensor *like) {
  int rank = tfr_tensor_rank(like);
  tfr_dtype dt = tfr_tensor_dtype(like);
  size_t es = tfr_dtype_size(dt);
  tfr_tensor *acc = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(dt, rank, tfr_tensor_shape(like), &acc));
  char *a = (char *)sl_data(acc);
  int64_t total = tfr_einsum_plan_num_slices(plan);
  (void)n;
  for (int64_t k = 0; k < total; k++) {
    int64_t start[TFR_MAX_RANK];
    tfr_tensor *part = NULL, *compact = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_execute_slice(s, plan, ops, k, start, &part));
    assert_int_equal(tfr_tensor_rank(part), rank);
    // The block's start without contracting, the same for every slice of
    // the block (consecutive slices, S / B of them).
    int64_t blocks = tfr_einsum_plan_num_blocks(plan), first[TFR_MAX_RANK], again[TFR_MAX_RANK];
    assert_true(blocks >= 1 && total % blocks == 0);
    int64_t bshape[TFR_MAX_RANK];
    TFR_ASSERT_OK(tfr_einsum_plan_slice_block(plan, k, again, bshape));
    TFR_ASSERT_OK(tfr_einsum_plan_slice_block(plan, k - k % (total / blocks), first, NULL));
    for (int d = 0; d < rank; d++) {
      assert_int_equal(again[d], start[d]);
      assert_int_equal(first[d], start[d]);
      assert_int_equal(bshape[d], tfr_tensor_shape(part)[d]);
    }
    TFR_ASSERT_OK(tfr_copy(s, part, &compact));
    const char *p = sl_data(compact);
    const int64_t *ps = tfr_tensor_shape(part), *os = tfr_tensor_shape(like);
    int64_t idx[TFR_MAX_RANK] = {0};
    for (int64_t e = 0; e < tfr_tensor_numel(part); e++) {
      int64_t flat = 0;
      for (int d = 0; d < rank; d++) flat = flat * os[d] + start[d] + idx[d];
      char *dst = a + (size_t)flat * es;
      const char *src = p + (size_t)e * es;
      switch (dt) {
        case TFR_F64: *(double *)dst += *(const double *)src; break;
        case TFR_F32: *(float *)dst += *(const float *)src; break;
        case TFR_C128: ((double *)dst)[0] += ((const double *)src)[0];
                       ((double *)dst)[1] += ((const double *)src)[1]; break;
        case TFR_C64: ((float *)dst)[0] += ((const float *)src)[0];
                      ((float *)dst)[1] += ((const float *)src)[1]; break;
        case TFR_I32: *(int32_t *)dst += *(const int32_t *)src; break;
        case TFR_I64: *(int64_t *)dst += *(const int64_t *)src; break;
        case TFR_BOOL: *(uint8_t *)dst |= *(const uint8_t *)src; break;
        default: fail_msg("dtype %s", tfr_dtype_name(dt));
      }
      for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < ps[d]) break;
        idx[d] = 0;
      }
    }
    tfr_tensor_release(part);
    tfr_tensor_release(compact);
  }
  return acc;
}

static void sl_expect(const tfr_tensor *got, const tfr_tensor *want, const char *what) {
  if (tfr_tensor_dtype(want) == TFR_BOOL) {
    assert_int_equal(tfr_tensor_numel(got), tfr_tensor_numel(want));
    const uint8_t *g = sl_data(got), *w = sl_data(want);
    for (int64_t i = 0; i < tfr_tensor_numel(want); i++)
      if (g[i] != w[i]) fail_msg("%s: element %lld", what, (long long)i);
    return;
  }
  tfr_test_expect_close(got, want, what);
}

// Cases whose plan had more than one slice; cases sliced to fit a quarter of
// their memory.
static int sl_multi, sl_fitted;

// One data set: cases.txt lines "ID DTYPE N EXPR [UNICODE]".
static int sl_run_set(const char *sub, int fields) {
  char dir[1024], path[1200];
  snprintf(dir, sizeof dir, "%s/%s", TFR_TEST_DATA_DIR, sub);
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char id[32], dt[16], expr[256], uni[512];
  int n, count = 0;
  uint64_t rng = 20261201;
  while (fscanf(f, "%31s %15s %d %255s", id, dt, &n, expr) == 4) {
    if (fields == 5) assert_int_equal(fscanf(f, "%511s", uni), 1);
    if (strcmp(expr, "-") == 0) expr[0] = '\0';
    tfr_tensor *ops[8] = {0}, *want = NULL;
    int ranks[8];
    const int64_t *shapes[8];
    for (int k = 0; k < n; k++) {
      snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, id, k);
      TFR_ASSERT_OK(tfr_npy_load(path, &ops[k]));
      ranks[k] = tfr_tensor_rank(ops[k]);
      shapes[k] = tfr_tensor_shape(ops[k]);
    }
    snprintf(path, sizeof path, "%s/%s_out.npy", dir, id);
    TFR_ASSERT_OK(tfr_npy_load(path, &want));
    // 1 to 3 distinct labels of the expression (letters), at random.
    char letters[16] = {0}, pick[8] = {0};
    int nl = 0;
    for (const char *c = expr; *c && *c != '-'; c++)
      if (*c >= 'a' && *c <= 'z' && !strchr(letters, *c)) letters[nl++] = *c;
    int np_ = nl ? 1 + (int)(tfr_test_rand_u64(&rng) % 3) : 0;
    if (np_ > nl) np_ = nl;
    for (int q = 0; q < np_; q++) {
      int at = (int)(tfr_test_rand_u64(&rng) % (uint64_t)(nl - q));
      pick[q] = letters[at];
      letters[at] = letters[nl - q - 1];
      letters[nl - q - 1] = pick[q];
    }
    tfr_einsum_plan *plan = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_create(expr, n, ranks, shapes, NULL, &plan));
    tfr_einsum_path_info flat = *tfr_einsum_plan_info(plan);
    assert_int_equal(flat.num_slices, 1);
    assert_true(flat.sliced_peak_live_elements == flat.peak_live_elements);
    // Slicing to fit a quarter of the unsliced memory (when the operands and
    // output leave room), or an impossible limit: refused, plan unchanged.
    // The operands and the output are held whole: a quarter of the rest.
    double held = (double)tfr_tensor_numel(want);
    for (int k = 0; k < n; k++) held += (double)tfr_tensor_numel(ops[k]);
    double target = held + (flat.peak_live_elements - held + (double)tfr_tensor_numel(want)) / 4;
    tfr_status fit = tfr_einsum_plan_slice_to_fit(plan, target);
    const tfr_einsum_path_info *fi = tfr_einsum_plan_info(plan);
    if (fit == TFR_OK) {
      assert_true(fi->sliced_peak_live_elements <= target);
      sl_fitted++;
      tfr_session *s0 = tfr_test_begin(tfr_test_cpu);
      tfr_tensor *r0 = NULL;
      TFR_ASSERT_OK(tfr_einsum_plan_execute(s0, plan, (const tfr_tensor *const *)ops, &r0));
      char w0[400];
      snprintf(w0, sizeof w0, "case %s %s (%s) sliced to fit %.0f elements", id, expr, dt, target);
      sl_expect(r0, want, w0);
      tfr_tensor_release(r0);
      tfr_test_end(s0);
    } else {
      assert_int_equal(fit, TFR_ERR_INVALID_ARGUMENT);
      assert_non_null(strstr(tfr_last_error_message(), "no slicing fits"));
      assert_int_equal(fi->num_slices, 1);
    }
    TFR_ASSERT_ERROR(tfr_einsum_plan_slice_to_fit(plan, 0), TFR_ERR_INVALID_ARGUMENT, "positive");
    TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, pick));
    const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
    assert_int_equal(info->num_slices, tfr_einsum_plan_num_slices(plan));
    sl_multi += info->num_slices > 1;
    if (info->num_slices > 0) {
      assert_true(info->sliced_flops >= flat.flops * (1 - 1e-12));
      assert_true(info->sliced_largest_intermediate <= flat.largest_intermediate);
    }
    tfr_session *s = tfr_test_begin(tfr_test_cpu);
    tfr_tensor *got = NULL;
    tfr_status st = tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &got);
    if (st) fail_msg("case %s %s sliced over \"%s\": %s", id, expr, pick, tfr_last_error_message());
    char what[400];
    snprintf(what, sizeof what, "case %s %s (%s) sliced over \"%s\"", id, expr, dt, pick);
    sl_expect(got, want, what);
    if (info->num_slices > 0) {
      tfr_tensor *comb = sl_combine(s, plan, n, (const tfr_tensor *const *)ops, want);
      snprintf(what, sizeof what, "case %s %s (%s), slices over \"%s\" combined", id, expr, dt, pick);
      sl_expect(comb, want, what);
      tfr_tensor_release(comb);
    }
    tfr_test_end(s);
    tfr_tensor_release(got);
    tfr_einsum_plan_release(plan);
    for (int k = 0; k < n; k++) tfr_tensor_release(ops[k]);
    tfr_tensor_release(want);
    count++;
  }
  fclose(f);
  return count;
}

static void test_numpy_cases(void **state) {
  (void)state;
  assert_int_equal(sl_run_set("einsum", 5), 300);
  assert_int_equal(sl_run_set("einsum_grammar", 4), 180);
  print_message("%d of 480 plans had more than one slice; %d fitted a quarter of their memory\n",
                sl_multi, sl_fitted);
  assert_true(sl_multi >= 300);
  assert_true(sl_fitted >= 30);
}

// A hand-derived case: C = A B with A, B 4x4, sliced over the summed label j
// (4 slices, each a rank-1 update) and the open label i (4 row blocks).
static void test_hand_derived_and_errors(void **state) {
  (void)state;
  int64_t sh[2] = {4, 4};
  double av[16], bv[16], cv[16] = {0};
  for (int i = 0; i < 16; i++) {
    av[i] = i + 1;
    bv[i] = 16 - i;
  }
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 4; j++) cv[i * 4 + k] += av[i * 4 + j] * bv[j * 4 + k];
  tfr_tensor *a = tfr_test_tensor(TFR_F64, 2, sh, av), *b = tfr_test_tensor(TFR_F64, 2, sh, bv);
  tfr_tensor *c = tfr_test_tensor(TFR_F64, 2, sh, cv);
  const tfr_tensor *ops[2] = {a, b};
  int ranks[2] = {2, 2};
  const int64_t *shapes[2] = {sh, sh};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk->ik", 2, ranks, shapes, NULL, &plan));
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "j i"));
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 16);
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  assert_true(info->sliced_flops == info->flops);  // 16 slices of 2*1*1*4 flops
  assert_int_equal(info->sliced_largest_intermediate, 4);
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  tfr_tensor *r = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, ops, &r));
  const double *rv = sl_data(r), *want = sl_data(c);
  for (int i = 0; i < 16; i++) assert_true(rv[i] == want[i]);
  tfr_tensor_release(r);
  // Slice 6: i = 1, j = 2 (the output's label first, the last fastest).
  // Four blocks (i's values), each of four consecutive slices (j's).
  int64_t start[2] = {-1, -1};
  assert_int_equal(tfr_einsum_plan_num_blocks(plan), 4);
  for (int k = 0; k < 16; k++) {
    int64_t bshape[2];
    TFR_ASSERT_OK(tfr_einsum_plan_slice_block(plan, k, start, bshape));
    assert_int_equal(start[0], k / 4);
    assert_int_equal(start[1], 0);
    assert_int_equal(bshape[0], 1);
    assert_int_equal(bshape[1], 4);
  }
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_block(plan, 16, start, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "slice 16", "16 slice");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_block(plan, 0, NULL, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "out_start");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_block(NULL, 0, start, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "plan");
  assert_int_equal(tfr_einsum_plan_num_blocks(NULL), 0);
  TFR_ASSERT_OK(tfr_einsum_plan_execute_slice(s, plan, ops, 6, start, &r));
  assert_int_equal(start[0], 1);
  assert_int_equal(start[1], 0);
  assert_int_equal(tfr_tensor_shape(r)[0], 1);
  assert_int_equal(tfr_tensor_shape(r)[1], 4);
  tfr_tensor *rc = NULL;
  TFR_ASSERT_OK(tfr_copy(s, r, &rc));
  rv = sl_data(rc);
  for (int k = 0; k < 4; k++) assert_true(rv[k] == av[1 * 4 + 2] * bv[2 * 4 + k]);
  tfr_tensor_release(rc);
  tfr_tensor_release(r);
  // Errors: the plan stays as it was.
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice(plan, "x"), TFR_ERR_INVALID_ARGUMENT, "not a label");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice(plan, "jj"), TFR_ERR_INVALID_ARGUMENT, "twice");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice(plan, "\xff"), TFR_ERR_INVALID_ARGUMENT, "UTF-8");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice(NULL, "i"), TFR_ERR_INVALID_ARGUMENT, "plan");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_labels(plan, -1, NULL), TFR_ERR_INVALID_ARGUMENT, "-1");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_labels(plan, 65, (int32_t[65]){0}),
                   TFR_ERR_INVALID_ARGUMENT, "65");
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 16);
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute_slice(s, plan, ops, 16, start, &r),
                   TFR_ERR_INVALID_ARGUMENT, "slice 16", "16 slice");
  assert_null(r);
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute_slice(s, plan, ops, -1, start, &r),
                   TFR_ERR_INVALID_ARGUMENT, "slice -1");
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute_slice(s, plan, ops, 0, NULL, &r),
                   TFR_ERR_INVALID_ARGUMENT, "out_start");
  // Only the summed label: one block of all 4 slices.
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "j"));
  assert_int_equal(tfr_einsum_plan_num_blocks(plan), 1);
  // "" removes the slicing.
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, ""));
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 1);
  assert_int_equal(tfr_einsum_plan_num_blocks(plan), 1);
  assert_int_equal(tfr_einsum_plan_info(plan)->num_slices, 1);
  tfr_test_end(s);
  tfr_einsum_plan_release(plan);
  tfr_tensor_release(a);
  tfr_tensor_release(b);
  tfr_tensor_release(c);
}

// A random network: n operands of 2 to 4 labels drawn from `nl` labels of
// extents 2 to 5 (every label in at least one operand), output the labels
// held once (open) or none (closed).
typedef struct sl_net {
  int n, ranks[12], num_out;
  int64_t shape_v[12][4];
  int32_t label_v[12][4], out[8];
  const int64_t *shapes[12];
  const int32_t *labels[12];
} sl_net;

static void sl_random_net(uint64_t *rng, int n, int nl, bool open, sl_net *g) {
  memset(g, 0, sizeof *g);
  g->n = n;
  int64_t ext[32];
  int count[32] = {0};
  for (int l = 0; l < nl; l++) ext[l] = 2 + (int64_t)(tfr_test_rand_u64(rng) % 4);
  for (int i = 0; i < n; i++) {
    g->ranks[i] = 2 + (int)(tfr_test_rand_u64(rng) % 3);
    for (int k = 0; k < g->ranks[i]; k++) {
      int l;
      bool dup;
      do {  // distinct labels within an operand; operand i starts with label i % nl
        l = k == 0 ? i % nl : (int)(tfr_test_rand_u64(rng) % (uint64_t)nl);
        dup = false;
        for (int q = 0; q < k; q++) dup = dup || g->label_v[i][q] == l;
      } while (dup);
      g->label_v[i][k] = l;
      g->shape_v[i][k] = ext[l];
      count[l]++;
    }
    g->shapes[i] = g->shape_v[i];
    g->labels[i] = g->label_v[i];
  }
  for (int l = 0; open && l < nl && g->num_out < 3; l++)
    if (count[l] == 1) g->out[g->num_out++] = l;
}

// Asserts that two plans have the same path, sliced labels and sliced flops.
static void sl_expect_same_plan(const tfr_einsum_plan *a, const tfr_einsum_plan *b) {
  const tfr_einsum_path_info *ia = tfr_einsum_plan_info(a), *ib = tfr_einsum_plan_info(b);
  assert_int_equal(ia->num_steps, ib->num_steps);
  assert_true(ia->sliced_flops == ib->sliced_flops);
  for (int k = 0; k < 2 * ia->num_steps; k++)
    assert_int_equal(tfr_einsum_plan_path(a)[k], tfr_einsum_plan_path(b)[k]);
  int32_t la[TFR_EINSUM_MAX_SLICED], lb[TFR_EINSUM_MAX_SLICED];
  int na = tfr_einsum_plan_sliced_labels(a, la), nb = tfr_einsum_plan_sliced_labels(b, lb);
  assert_int_equal(na, nb);
  for (int j = 0; j < na; j++) assert_int_equal(la[j], lb[j]);
}

static tfr_status sl_plan(const sl_net *g, const tfr_einsum_options *o, tfr_einsum_plan **p) {
  return tfr_einsum_plan_create_labels(g->n, g->ranks, g->shapes, g->labels, g->num_out, g->out,
                                       o, p);
}

// With max_slice_elements the plan fits, costs no more sliced flops than the
// same optimiser's tree sliced by slice_to_fit, and computes the unsliced
// result (f64 and c128, open and closed outputs).
static void test_budget_search(void **state) {
  (void)state;
  uint64_t rng = 1717;
  const tfr_einsum_path_kind kinds[] = {TFR_EINSUM_PATH_GREEDY, TFR_EINSUM_PATH_RANDOM_GREEDY,
                                        TFR_EINSUM_PATH_TREESA, TFR_EINSUM_PATH_AUTO};
  int searched = 0, better = 0;
  for (int c = 0; c < 24; c++) {
    sl_net g;
    sl_random_net(&rng, 7 + c % 6, 9 + c % 5, c % 2 == 0, &g);
    tfr_einsum_options o = {0};
    o.path_kind = kinds[c % 4];
    o.seed = (uint64_t)c;
    o.trials = 2;
    tfr_einsum_plan *flat = NULL, *ref = NULL, *cut = NULL;
    TFR_ASSERT_OK(sl_plan(&g, &o, &flat));
    TFR_ASSERT_OK(sl_plan(&g, &o, &ref));
    const tfr_einsum_path_info *fi = tfr_einsum_plan_info(flat);
    // The operands and the output, held whole by every slice.
    double held = 0, out = 1;
    for (int i = 0; i < g.n; i++) {
      double x = 1;
      for (int k = 0; k < g.ranks[i]; k++) {
        x *= (double)g.shape_v[i][k];
        for (int j = 0; j < g.num_out; j++)  // each output label is held once
          if (g.label_v[i][k] == g.out[j]) out *= (double)g.shape_v[i][k];
      }
      held += x;
    }
    double budget = held + out + (fi->peak_live_elements - held) / 8;
    // The reference: the tree found without a limit, sliced to fit.
    bool ref_ok = tfr_einsum_plan_slice_to_fit(ref, budget) == TFR_OK;
    o.max_slice_elements = budget;
    tfr_status st = sl_plan(&g, &o, &cut);
    if (st != TFR_OK) {
      // Only when the reference failed too.
      assert_false(ref_ok);
      assert_int_equal(st, TFR_ERR_INVALID_ARGUMENT);
      assert_non_null(strstr(tfr_last_error_message(), "no slicing fits"));
      assert_null(cut);
    } else {
      const tfr_einsum_path_info *ci = tfr_einsum_plan_info(cut);
      assert_true(ci->sliced_peak_live_elements <= budget);
      if (ref_ok) {
        const tfr_einsum_path_info *ri = tfr_einsum_plan_info(ref);
        assert_true(ci->sliced_flops <= ri->sliced_flops * (1 + 1e-12));
        better += ci->sliced_flops < ri->sliced_flops * (1 - 1e-9);
      }
      searched += ci->num_slices > 1;
      // The result equals the unsliced plan's, in f64 and c128.
      for (int d = 0; d < 2; d++) {
        tfr_dtype dt = d == 0 ? TFR_F64 : TFR_C128;
        tfr_tensor *ops[12] = {0}, *want = NULL, *got = NULL;
        for (int i = 0; i < g.n; i++)
          ops[i] = tfr_test_random_tensor(dt, g.ranks[i], g.shape_v[i], (uint64_t)(100 * c + i));
        tfr_session *s = tfr_test_begin(tfr_test_cpu);
        TFR_ASSERT_OK(tfr_einsum_plan_execute(s, flat, (const tfr_tensor *const *)ops, &want));
        TFR_ASSERT_OK(tfr_einsum_plan_execute(s, cut, (const tfr_tensor *const *)ops, &got));
        tfr_tensor *hw = NULL, *hg = NULL;
        TFR_ASSERT_OK(tfr_copy(s, want, &hw));
        TFR_ASSERT_OK(tfr_copy(s, got, &hg));
        char what[160];
        snprintf(what, sizeof what, "network %d (%s, %lld slices)", c, tfr_dtype_name(dt),
                 (long long)ci->num_slices);
        tfr_test_expect_close(hg, hw, what);
        tfr_tensor_release(hw);
        tfr_tensor_release(hg);
        tfr_tensor_release(want);
        tfr_tensor_release(got);
        tfr_test_end(s);
        for (int i = 0; i < g.n; i++) tfr_tensor_release(ops[i]);
      }
    }
    // Without max_time the search is deterministic for a seed (auto: its clock).
    if (st == TFR_OK && o.path_kind != TFR_EINSUM_PATH_AUTO) {
      tfr_einsum_plan *again = NULL;
      TFR_ASSERT_OK(sl_plan(&g, &o, &again));
      sl_expect_same_plan(again, cut);
      tfr_einsum_plan_release(again);
    }
    // A budget the unsliced tree fits: the plan is the unbudgeted one.
    tfr_einsum_plan_release(cut);
    cut = NULL;
    o.max_slice_elements = fi->peak_live_elements;
    TFR_ASSERT_OK(sl_plan(&g, &o, &cut));
    assert_int_equal(tfr_einsum_plan_num_slices(cut), 1);
    if (o.path_kind != TFR_EINSUM_PATH_AUTO)  // auto's search depends on the clock
      assert_true(tfr_einsum_plan_info(cut)->flops == fi->flops);
    // Errors: a negative or NaN budget, an impossible one; nothing is made.
    tfr_einsum_plan_release(cut);
    cut = NULL;
    o.max_slice_elements = -1;
    TFR_ASSERT_ERROR(sl_plan(&g, &o, &cut), TFR_ERR_INVALID_ARGUMENT, "max_slice_elements");
    assert_null(cut);
    o.max_slice_elements = NAN;
    TFR_ASSERT_ERROR(sl_plan(&g, &o, &cut), TFR_ERR_INVALID_ARGUMENT, "max_slice_elements");
    o.max_slice_elements = held / 2;
    TFR_ASSERT_ERROR(sl_plan(&g, &o, &cut), TFR_ERR_INVALID_ARGUMENT, "no slicing fits",
                     "operands");
    assert_null(cut);
    tfr_einsum_plan_release(flat);
    tfr_einsum_plan_release(ref);
  }
  print_message("%d of 24 budgeted plans sliced, %d below slice_to_fit's flops\n", searched,
                better);
  assert_true(searched >= 12);
}

// A given path with a budget is only sliced, as slice_to_fit slices it.
static void test_budget_given_path(void **state) {
  (void)state;
  uint64_t rng = 99;
  sl_net g;
  sl_random_net(&rng, 9, 10, true, &g);
  tfr_einsum_options o = {0};
  tfr_einsum_plan *a = NULL, *b = NULL;
  TFR_ASSERT_OK(sl_plan(&g, &o, &a));
  o.path_kind = TFR_EINSUM_PATH_GIVEN;
  o.path = tfr_einsum_plan_path(a);
  o.path_len = tfr_einsum_plan_info(a)->num_steps;
  double peak = tfr_einsum_plan_info(a)->peak_live_elements;
  double budget = peak * 0.6;
  o.max_slice_elements = budget;
  tfr_status st = sl_plan(&g, &o, &b);
  tfr_status st2 = tfr_einsum_plan_slice_to_fit(a, budget);
  assert_int_equal(st, st2);
  if (st == TFR_OK) sl_expect_same_plan(a, b);
  tfr_einsum_plan_release(a);
  tfr_einsum_plan_release(b);
}

// ---------------------------------------------------------------------------
// Slices on several threads (slice_parallel.c): on cpu backends of 1, 2 and
// 4 threads a sliced plan gives bit for bit the same result (the slices'
// groups and their order do not depend on the threads), equal to the
// unsliced plan's within rounding; progress comes from the calling thread
// only; a failure in any slice is returned with nothing handed out.
// ---------------------------------------------------------------------------

static pthread_t pl_caller;
static int pl_calls, pl_last, pl_total, pl_foreign;

static void pl_progress(void *ctx, int done, int total, double flops) {
  (void)ctx;
  (void)flops;
  if (!pthread_equal(pthread_self(), pl_caller)) pl_foreign++;
  if (done <= pl_last) fail_msg("progress went from %d to %d", pl_last, done);
  pl_last = done;
  pl_total = total;
  pl_calls++;
}

// The plan executed on a new cpu backend of `threads` threads.
static tfr_tensor *pl_execute(const tfr_einsum_plan *plan, const tfr_tensor *const *ops,
                              int threads) {
  tfr_backend *b = NULL;
  tfr_cpu_options o = {.num_threads = threads};
  TFR_ASSERT_OK(tfr_backend_create_cpu(&o, &b));
  tfr_session *s = tfr_test_begin(b);
  tfr_tensor *r = NULL;
  pl_caller = pthread_self();
  pl_calls = pl_last = pl_total = pl_foreign = 0;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, ops, &r));
  tfr_test_end(s);
  tfr_backend_release(b);
  return r;
}

static void pl_same_bits(const tfr_tensor *a, const tfr_tensor *b, const char *what) {
  assert_int_equal(tfr_tensor_numel(a), tfr_tensor_numel(b));
  size_t bytes = (size_t)tfr_tensor_numel(a) * tfr_dtype_size(tfr_tensor_dtype(a));
  if (bytes && memcmp(sl_data(a), sl_data(b), bytes) != 0) fail_msg("%s: results differ", what);
}

static void test_parallel_slices(void **state) {
  (void)state;
  // "ij,jk,kl->il" with extents i j k l, sliced over `slice`; `parallel`:
  // whether 2 threads run the slices in parallel.
  static const struct {
    int64_t i, j, k, l;
    const char *slice;
    bool parallel;
  } cases[] = {
      {6, 7, 96, 5, "k", true},     // 96 summed slices: one block, 16 groups
      {70, 7, 9, 5, "i", true},     // 70 open slices, each its own block
      {4, 7, 40, 5, "ik", true},    // 160 slices: 4 blocks of 40, 4 groups each
      {6, 8, 12, 5, "jk", true},    // 96 summed slices over two labels
      {64, 3, 5, 4, "il", true},    // 256 open slices
      {6, 7, 64, 0, "k", true},     // an empty output: 64 slices of nothing
      {6, 7, 0, 5, "k", false},     // no slices (k is empty): zeros
      {1, 7, 1, 5, "k", false},     // one slice
  };
  static const tfr_dtype dts[] = {TFR_F64, TFR_F32, TFR_C128, TFR_I64, TFR_BOOL};
  int parallel_runs = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
      tfr_dtype dt = dts[d];
      int64_t sa[2] = {cases[c].i, cases[c].j}, sb[2] = {cases[c].j, cases[c].k},
              sc[2] = {cases[c].k, cases[c].l};
      tfr_tensor *t[3] = {tfr_test_random_tensor(dt, 2, sa, 100 * c + d),
                          tfr_test_random_tensor(dt, 2, sb, 100 * c + d + 7),
                          tfr_test_random_tensor(dt, 2, sc, 100 * c + d + 13)};
      const tfr_tensor *const *ops = (const tfr_tensor *const *)t;
      int ranks[3] = {2, 2, 2};
      const int64_t *shapes[3] = {sa, sb, sc};
      tfr_einsum_options opt = {.path_kind = TFR_EINSUM_PATH_GREEDY, .progress = pl_progress};
      tfr_einsum_plan *plan = NULL, *flat = NULL;
      TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &plan));
      TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &flat));
      TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, cases[c].slice));
      int64_t slices = tfr_einsum_plan_num_slices(plan), groups = 0;
      char what[200];
      snprintf(what, sizeof what, "case %zu (%s sliced over %s)", c, tfr_dtype_name(dt),
               cases[c].slice);
      if (slices > 0) {
        int used = tfr_einsum_slice_schedule(plan, 2, &groups);
        if ((used == 2) != cases[c].parallel) fail_msg("%s: %d thread(s)", what, used);
        int64_t g4 = 0;
        assert_int_equal(tfr_einsum_slice_schedule(plan, 1, &g4), 1);
        assert_int_equal(g4, groups);  // the groups do not depend on the threads
        parallel_runs += used == 2;
      }
      tfr_tensor *want = pl_execute(flat, ops, 1);
      tfr_tensor *r1 = pl_execute(plan, ops, 1);
      assert_int_equal(pl_foreign, 0);
      if (slices > 0) {
        assert_int_equal(pl_last, slices);
        assert_int_equal(pl_total, slices);
      }
      sl_expect(r1, want, what);
      for (int threads = 2; threads <= 4; threads += 2) {
        tfr_tensor *rt = pl_execute(plan, ops, threads);
        assert_int_equal(pl_foreign, 0);
        if (slices > 0) assert_int_equal(pl_last, slices);
        pl_same_bits(rt, r1, what);
        tfr_tensor_release(rt);
      }
      tfr_tensor_release(r1);
      tfr_tensor_release(want);
      tfr_einsum_plan_release(plan);
      tfr_einsum_plan_release(flat);
      for (int q = 0; q < 3; q++) tfr_tensor_release(t[q]);
    }
  }
  assert_int_equal(parallel_runs, 6 * 5);
  // Large slices (2^25 multiply-adds in one step each) run one after
  // another, the kernels threaded; one thread never goes parallel.
  int64_t ba[2] = {2, 4096}, bb[2] = {4096, 8192};
  const int64_t *bshapes[2] = {ba, bb};
  int branks[2] = {2, 2};
  tfr_einsum_plan *bp = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk->ik", 2, branks, bshapes, NULL, &bp));
  TFR_ASSERT_OK(tfr_einsum_plan_slice(bp, "i"));
  int64_t groups = 0;
  assert_int_equal(tfr_einsum_slice_schedule(bp, 4, &groups), 1);
  assert_int_equal(groups, 1);
  TFR_ASSERT_OK(tfr_einsum_plan_slice(bp, "j"));  // 4096 summed slices of 2^14 multiply-adds
  assert_int_equal(tfr_einsum_slice_schedule(bp, 4, &groups), 4);
  assert_int_equal(groups, 16);
  assert_int_equal(tfr_einsum_slice_schedule(bp, 1, &groups), 1);
  assert_int_equal(groups, 16);
  tfr_einsum_plan_release(bp);
}

// Allocation failures anywhere in a parallel run (in the workers' slices,
// the partials, the output): TFR_ERR_OUT_OF_MEMORY, out untouched, nothing
// leaked (the sanitizer build checks); otherwise the right result.
static void test_parallel_slice_failures(void **state) {
  (void)state;
  int64_t sa[2] = {4, 5}, sb[2] = {5, 40}, sc[2] = {40, 3};
  tfr_tensor *t[3] = {tfr_test_random_tensor(TFR_F64, 2, sa, 1),
                      tfr_test_random_tensor(TFR_F64, 2, sb, 2),
                      tfr_test_random_tensor(TFR_F64, 2, sc, 3)};
  const tfr_tensor *const *ops = (const tfr_tensor *const *)t;
  int ranks[3] = {2, 2, 2};
  const int64_t *shapes[3] = {sa, sb, sc};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, NULL, &plan));
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "ik"));  // 160 slices, 4 blocks, 4 groups
  int64_t groups = 0;
  assert_int_equal(tfr_einsum_slice_schedule(plan, 2, &groups), 2);
  assert_int_equal(groups, 4);
  tfr_tensor *want = pl_execute(plan, ops, 1);
  tfr_backend *b = NULL;
  tfr_cpu_options o = {.num_threads = 2, .disable_pool = true};
  TFR_ASSERT_OK(tfr_backend_create_cpu(&o, &b));
  tfr_session *s = tfr_test_begin(b);
  // The public query: what the schedule says, for this session.
  assert_int_equal(tfr_einsum_plan_slice_threads(plan, s), 2);
  assert_int_equal(tfr_einsum_plan_slice_threads(NULL, s), 0);
  assert_int_equal(tfr_einsum_plan_slice_threads(plan, NULL), 0);
  int failed = 0;
  for (long n = 0; n < 4000; n += 1 + n / 8) {
    tfr_tensor *r = NULL;
    tfr_alloc_fail_after(n);
    tfr_status st = tfr_einsum_plan_execute(s, plan, ops, &r);
    tfr_alloc_fail_after(-1);
    if (st == TFR_OK) {
      pl_same_bits(r, want, "after the failures");
      tfr_tensor_release(r);
      break;
    }
    assert_int_equal(st, TFR_ERR_OUT_OF_MEMORY);
    assert_non_null(strstr(tfr_last_error_message(), "memory"));
    assert_null(r);
    failed++;
  }
  assert_true(failed > 10);
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, ""));
  assert_int_equal(tfr_einsum_plan_slice_threads(plan, s), 1);  // no slicing
  tfr_test_end(s);
  assert_int_equal(tfr_einsum_plan_slice_threads(plan, s), 0);  // the session ended
  tfr_backend_release(b);
  tfr_tensor_release(want);
  tfr_einsum_plan_release(plan);
  for (int q = 0; q < 3; q++) tfr_tensor_release(t[q]);
}

// slice_to_count on a batched chain bi,ij,jk->bk (b = 64, i = j = k = 4,
// path ((0, 1), (0, 1))): slicing j or b adds no flops (each is in both
// steps), i or k does. Hand-derived choices: 4 slices -> j (the smaller of
// the free ones); 16 -> j, then b; an earlier slicing is kept; errors leave
// the plan as it was. The sliced result equals the unsliced one.
static void test_slice_to_count(void **state) {
  (void)state;
  int64_t s0[2] = {64, 4}, s1[2] = {4, 4}, s2[2] = {4, 4};
  const int64_t *shapes[3] = {s0, s1, s2};
  int ranks[3] = {2, 2, 2};
  tfr_einsum_options o;
  memset(&o, 0, sizeof o);
  o.path_kind = TFR_EINSUM_PATH_GIVEN;
  int32_t path[4] = {0, 1, 0, 1};
  o.path = path;
  o.path_len = 2;
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("bi,ij,jk->bk", 3, ranks, shapes, &o, &plan));
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  int32_t labels[TFR_EINSUM_MAX_SLICED];
  TFR_ASSERT_OK(tfr_einsum_plan_slice_to_count(plan, 4));
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 4);
  assert_int_equal(tfr_einsum_plan_sliced_labels(plan, labels), 1);
  assert_int_equal(labels[0], 'j');
  assert_true(info->sliced_flops == info->flops);
  TFR_ASSERT_OK(tfr_einsum_plan_slice_to_count(plan, 16));
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 256);
  assert_int_equal(tfr_einsum_plan_sliced_labels(plan, labels), 2);
  assert_int_equal(labels[0], 'b');  // the output's first
  assert_int_equal(labels[1], 'j');
  assert_true(info->sliced_flops == info->flops);
  // Enough slices already: unchanged. An earlier slicing is kept.
  TFR_ASSERT_OK(tfr_einsum_plan_slice_to_count(plan, 100));
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 256);
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "i"));
  TFR_ASSERT_OK(tfr_einsum_plan_slice_to_count(plan, 16));
  assert_int_equal(tfr_einsum_plan_sliced_labels(plan, labels), 2);
  assert_int_equal(labels[0], 'i');
  assert_int_equal(labels[1], 'j');
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 16);
  // The sliced contraction against the unsliced one.
  tfr_tensor *ops[3];
  for (int q = 0; q < 3; q++) ops[q] = tfr_test_random_tensor(TFR_F64, 2, shapes[q], 40 + (uint64_t)q);
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  tfr_tensor *sliced = NULL, *whole = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &sliced));
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, ""));
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &whole));
  const double *x = sl_data(sliced), *y = sl_data(whole);
  for (int q = 0; q < 64 * 4; q++) assert_true(fabs(x[q] - y[q]) <= 1e-12 * (1 + fabs(y[q])));
  tfr_tensor_release(sliced);
  tfr_tensor_release(whole);
  tfr_test_end(s);
  // Errors, the plan unchanged.
  TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "j"));
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_to_count(plan, 0), TFR_ERR_INVALID_ARGUMENT, "0 slices");
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_to_count(plan, INT64_C(1) << 40), TFR_ERR_INVALID_ARGUMENT,
                   "cannot be cut", "4096 at most");
  assert_int_equal(tfr_einsum_plan_num_slices(plan), 4);
  TFR_ASSERT_ERROR(tfr_einsum_plan_slice_to_count(NULL, 2), TFR_ERR_INVALID_ARGUMENT, "plan");
  for (int q = 0; q < 3; q++) tfr_tensor_release(ops[q]);
  tfr_einsum_plan_release(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_numpy_cases, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_hand_derived_and_errors, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_budget_search, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_budget_given_path, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_parallel_slices, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_parallel_slice_failures, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_slice_to_count, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);  // sets up tfr_test_cpu (the webgpu device goes unused)
}
