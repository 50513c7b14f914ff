// Profiling an einsum execution (einsum.h, "Profiling";
// tfr_einsum_plan_profile): the result is tfr_einsum_plan_execute's bit for
// bit on the cpu backend (random networks of several dtypes, sliced plans
// included); hand-built expressions get the op kinds and shapes they must
// (a matmul one GEMM of the right M, N, K; batched GEMM, GEMV, dot, batched
// dot, outer product, multiply, a transposed operand, a label summed
// alone, the final transpose); on networks whose steps are all dot_generals
// the recorded flops add up to the plan's; bad arguments, wrong shapes and
// allocation failures give errors with nothing handed out. No timing is
// asserted beyond being non-negative and consistent.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after
#include "core/validate.h"  // tfr_dot_loop_gemm
#include "support.h"
#include "tenferro/tenferro.h"

static tfr_backend *pr_backend(int threads) {
  tfr_backend *b = NULL;
  tfr_cpu_options o = {.num_threads = threads};
  TFR_ASSERT_OK(tfr_backend_create_cpu(&o, &b));
  return b;
}

static void pr_same_bits(const tfr_tensor *a, const tfr_tensor *b, const char *what) {
  assert_int_equal(tfr_tensor_dtype(a), tfr_tensor_dtype(b));
  assert_int_equal(tfr_tensor_rank(a), tfr_tensor_rank(b));
  for (int k = 0; k < tfr_tensor_rank(a); k++)
    assert_int_equal(tfr_tensor_shape(a)[k], tfr_tensor_shape(b)[k]);
  assert_true(tfr_tensor_is_contiguous(a) && tfr_tensor_is_contiguous(b));
  void *pa = NULL, *pb = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(a, &pa));
  TFR_ASSERT_OK(tfr_tensor_host_data(b, &pb));
  size_t bytes = (size_t)tfr_tensor_numel(a) * tfr_dtype_size(tfr_tensor_dtype(a));
  if (bytes && memcmp(pa, pb, bytes) != 0) fail_msg("%s: the profiled result differs", what);
}

// The profile's consistency: totals are the records added up, times are
// non-negative, the whole run at least the recorded ops.
static void pr_check_totals(const tfr_einsum_profile *p) {
  tfr_einsum_op_total sum[TFR_EINSUM_OP_NUM_KINDS];
  memset(sum, 0, sizeof sum);
  double recorded = 0;
  for (int i = 0; i < p->num_ops; i++) {
    const tfr_einsum_op_record *r = &p->ops[i];
    assert_true(r->kind >= 0 && r->kind < TFR_EINSUM_OP_NUM_KINDS);
    assert_true(r->calls >= 1);
    assert_true(r->seconds >= 0);
    assert_true(r->step >= -1);
    if (!tfr_einsum_op_kind_is_compute(r->kind))
      assert_true(r->batch == 1 && r->m == 1 && r->n == 1 && r->k == 1);
    sum[r->kind].calls += r->calls;
    sum[r->kind].seconds += r->seconds;
    sum[r->kind].flops += r->flops;
    sum[r->kind].bytes += r->bytes;
    recorded += r->seconds;
  }
  for (int k = 0; k < TFR_EINSUM_OP_NUM_KINDS; k++) {
    assert_int_equal(sum[k].calls, p->totals[k].calls);
    assert_true(sum[k].flops == p->totals[k].flops);
    assert_true(sum[k].bytes == p->totals[k].bytes);
    assert_true(fabs(sum[k].seconds - p->totals[k].seconds) <= 1e-9 * (1 + sum[k].seconds));
  }
  assert_true(p->seconds >= recorded * (1 - 1e-9) - 1e-9);
}

// Profiles `plan` on `ops` and checks the result against a plain execution.
static tfr_einsum_profile *pr_profile(tfr_session *s, const tfr_einsum_plan *plan,
                                      const tfr_tensor *const *ops, const char *what) {
  tfr_tensor *want = NULL, *got = NULL;
  tfr_einsum_profile *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, ops, &want));
  TFR_ASSERT_OK(tfr_einsum_plan_profile(s, plan, ops, &p, &got));
  assert_non_null(p);
  pr_same_bits(got, want, what);
  pr_check_totals(p);
  assert_int_equal(p->num_slices, tfr_einsum_plan_num_slices(plan));
  tfr_tensor_release(want);
  tfr_tensor_release(got);
  return p;
}

// The records of one kind: how many, and the first.
static int pr_count(const tfr_einsum_profile *p, tfr_einsum_op_kind kind,
                    const tfr_einsum_op_record **first) {
  int c = 0;
  for (int i = 0; i < p->num_ops; i++)
    if (p->ops[i].kind == kind) {
      if (c++ == 0 && first) *first = &p->ops[i];
    }
  return c;
}

// The records of the dot kinds.
static int pr_count_compute(const tfr_einsum_profile *p) {
  int c = 0;
  for (int i = 0; i < p->num_ops; i++) c += tfr_einsum_op_kind_is_compute(p->ops[i].kind);
  return c;
}

// Profiles `expr` on random operands of `dtype` (2 operands at most here).
static tfr_einsum_profile *pr_expr(tfr_session *s, const char *expr, tfr_dtype dtype, int n,
                                   const int *ranks, const int64_t *const *shapes) {
  tfr_tensor *t[4] = {0};
  for (int i = 0; i < n; i++) t[i] = tfr_test_random_tensor(dtype, ranks[i], shapes[i], 11 + (uint64_t)i);
  // follow_path: the pairwise steps even for these tiny networks (their
  // one-loop form has its own test, test_sum_of_products).
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY, .follow_path = true};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create(expr, n, ranks, shapes, &o, &plan));
  tfr_einsum_profile *p = pr_profile(s, plan, (const tfr_tensor *const *)t, expr);
  // Dot steps only (and copies): the flops are the plan's.
  bool dots_only = true;
  double flops = 0;
  for (int i = 0; i < p->num_ops; i++) {
    tfr_einsum_op_kind k = p->ops[i].kind;
    if (tfr_einsum_op_kind_is_compute(k)) flops += p->ops[i].flops;
    else if (k != TFR_EINSUM_OP_TRANSPOSE) dots_only = false;
  }
  if (dots_only && pr_count_compute(p) > 0) {
    const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
    if (fabs(flops - info->flops) > 1e-9 * info->flops)
      fail_msg("%s: profiled flops %g, the plan's %g", expr, flops, info->flops);
  }
  tfr_einsum_plan_release(plan);
  for (int i = 0; i < n; i++) tfr_tensor_release(t[i]);
  return p;
}

static void test_kinds(void **state) {
  (void)state;
  tfr_backend *b = pr_backend(2);
  tfr_session *s = tfr_test_begin(b);
  const tfr_einsum_op_record *r = NULL;
  tfr_einsum_profile *p;
  {  // a matmul: one GEMM, M x K times K x N (either operand may be lhs)
    int64_t a[2] = {3, 4}, c[2] = {4, 5};
    p = pr_expr(s, "ij,jk->ik", TFR_F64, 2, (int[]){2, 2}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count_compute(p), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, &r), 1);
    assert_int_equal(r->step, 0);
    assert_int_equal(r->calls, 1);
    assert_int_equal(r->batch, 1);
    assert_int_equal(r->k, 4);
    assert_true((r->m == 3 && r->n == 5) || (r->m == 5 && r->n == 3));
    assert_true(r->flops == 2.0 * 3 * 4 * 5);
    assert_int_equal(r->in_elements, 12 + 20);
    assert_int_equal(r->out_elements, 15);
    assert_true(r->bytes == (12 + 20 + 15) * 8.0);
    assert_int_equal(p->totals[TFR_EINSUM_OP_GEMM].calls, 1);
    tfr_einsum_profile_free(p);
  }
  {  // batched
    int64_t a[3] = {6, 3, 4}, c[3] = {6, 4, 5};
    p = pr_expr(s, "bij,bjk->bik", TFR_F32, 2, (int[]){3, 3}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count_compute(p), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_BATCHED_GEMM, &r), 1);
    assert_int_equal(r->batch, 6);
    assert_int_equal(r->k, 4);
    assert_int_equal(r->m * r->n, 15);
    assert_true(r->bytes == (72 + 120 + 90) * 4.0);
    tfr_einsum_profile_free(p);
  }
  {  // matrix-vector
    int64_t a[2] = {7, 9}, c[1] = {9};
    p = pr_expr(s, "ij,j->i", TFR_F64, 2, (int[]){2, 1}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count_compute(p), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMV, &r), 1);
    assert_int_equal(r->k, 9);
    assert_true((r->m == 7 && r->n == 1) || (r->m == 1 && r->n == 7));
    tfr_einsum_profile_free(p);
  }
  {  // dot and batched dot
    int64_t a[1] = {10};
    p = pr_expr(s, "i,i->", TFR_C128, 2, (int[]){1, 1}, (const int64_t *[]){a, a});
    assert_int_equal(pr_count_compute(p), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_DOT, &r), 1);
    assert_true(r->m == 1 && r->n == 1 && r->k == 10 && r->batch == 1);
    assert_true(r->bytes == 21 * 16.0);
    tfr_einsum_profile_free(p);
    int64_t c[2] = {5, 10};
    p = pr_expr(s, "bi,bi->b", TFR_F64, 2, (int[]){2, 2}, (const int64_t *[]){c, c});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_BATCHED_DOT, &r), 1);
    assert_true(r->m == 1 && r->n == 1 && r->k == 10 && r->batch == 5);
    tfr_einsum_profile_free(p);
  }
  {  // outer product, Hadamard product
    int64_t a[1] = {6}, c[1] = {7};
    p = pr_expr(s, "i,j->ij", TFR_F64, 2, (int[]){1, 1}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count_compute(p), 0);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_OUTER_PRODUCT, &r), 1);
    assert_int_equal(r->out_elements, 42);
    assert_int_equal(r->in_elements, 13);
    assert_true(r->flops == 42);
    tfr_einsum_profile_free(p);
    int64_t d[2] = {4, 5};
    p = pr_expr(s, "ij,ij->ij", TFR_F64, 2, (int[]){2, 2}, (const int64_t *[]){d, d});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_OUTER_PRODUCT, NULL), 0);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_MULTIPLY, &r), 1);
    assert_int_equal(r->out_elements, 20);
    tfr_einsum_profile_free(p);
  }
  {  // an operand whose free axes straddle the contracted one: copied first
    int64_t a[3] = {2, 3, 4}, c[2] = {3, 5};
    p = pr_expr(s, "abc,bd->acd", TFR_F64, 2, (int[]){3, 2}, (const int64_t *[]){a, c});
    assert_true(pr_count(p, TFR_EINSUM_OP_TRANSPOSE, &r) >= 1);
    assert_int_equal(r->step, 0);
    assert_int_equal(r->out_elements, 24);
    assert_true(r->flops == 0);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, &r), 1);
    assert_int_equal(r->k, 3);
    assert_int_equal(r->m * r->n, 40);
    tfr_einsum_profile_free(p);
  }
  {  // a looped product (validate.h): the contracting (p, r) merge in neither
     // operand, r alone in both: the cpu reads both in place, one GEMM of
     // K = 6 * 11 and no copy; beyond tfr_dot_loop_gemm's limit for f32
     // (20^3; 32^3 here) an operand is copied first
    int64_t a[3] = {6, 11, 11};
    p = pr_expr(s, "pmr,pnr->mn", TFR_F64, 2, (int[]){3, 3}, (const int64_t *[]){a, a});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_TRANSPOSE, NULL), 0);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, &r), 1);
    assert_int_equal(r->k, 66);
    assert_int_equal(r->m * r->n, 121);
    tfr_einsum_profile_free(p);
    assert_false(tfr_dot_loop_gemm(TFR_F32, 32, 32, 32));
    int64_t c[3] = {3, 32, 32};
    p = pr_expr(s, "pmr,pnr->mn", TFR_F32, 2, (int[]){3, 3}, (const int64_t *[]){c, c});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_TRANSPOSE, NULL), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, &r), 1);
    assert_int_equal(r->k, 96);
    tfr_einsum_profile_free(p);
  }
  {  // a label only one operand holds: summed before the step
    int64_t a[2] = {8, 3}, c[2] = {3, 5};
    p = pr_expr(s, "ij,jk->k", TFR_F64, 2, (int[]){2, 2}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_REDUCE, &r), 1);
    assert_int_equal(r->step, 0);
    assert_int_equal(r->in_elements, 24);
    assert_int_equal(r->out_elements, 3);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMV, &r), 1);
    assert_int_equal(r->k, 3);
    tfr_einsum_profile_free(p);
  }
  {  // one operand: the final transpose (step -1), and a final sum
    int64_t a[2] = {4, 6};
    p = pr_expr(s, "ij->ji", TFR_F64, 1, (int[]){2}, (const int64_t *[]){a});
    assert_int_equal(p->num_ops, 1);
    assert_int_equal(p->ops[0].kind, TFR_EINSUM_OP_TRANSPOSE);
    assert_int_equal(p->ops[0].step, -1);
    assert_int_equal(p->ops[0].out_elements, 24);
    tfr_einsum_profile_free(p);
    p = pr_expr(s, "ij->i", TFR_F64, 1, (int[]){2}, (const int64_t *[]){a});
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_REDUCE, &r), 1);
    assert_int_equal(r->step, -1);
    tfr_einsum_profile_free(p);
  }
  {  // bool: the logical path counts as the dot kind
    int64_t a[2] = {3, 4}, c[2] = {4, 5};
    p = pr_expr(s, "ij,jk->ik", TFR_BOOL, 2, (int[]){2, 2}, (const int64_t *[]){a, c});
    assert_int_equal(pr_count_compute(p), 1);
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, &r), 1);
    assert_true(r->bytes == 47.0);
    tfr_einsum_profile_free(p);
  }
  tfr_test_end(s);
  tfr_backend_release(b);
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_GEMM), "gemm");
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_BATCHED_GEMM), "batched_gemm");
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_OUTER_PRODUCT), "outer_product");
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_ACCUMULATE), "accumulate");
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_SUM_OF_PRODUCTS), "sum_of_products");
  assert_string_equal(tfr_einsum_op_kind_name(TFR_EINSUM_OP_NUM_KINDS), "?");
  assert_string_equal(tfr_einsum_op_kind_name((tfr_einsum_op_kind)-1), "?");
  for (int k = 0; k < TFR_EINSUM_OP_NUM_KINDS; k++) {
    assert_true(strcmp(tfr_einsum_op_kind_name((tfr_einsum_op_kind)k), "?") != 0);
    assert_int_equal(tfr_einsum_op_kind_is_compute((tfr_einsum_op_kind)k),
                     k <= TFR_EINSUM_OP_BATCHED_DOT || k == TFR_EINSUM_OP_SUM_OF_PRODUCTS);
  }
  tfr_einsum_profile_free(NULL);
}

// A random connected network: n operands, each label on exactly two of them
// (a ring through all, then random chords) or, with `open`, some labels also
// in the output and some on three operands.
typedef struct pr_net {
  int n, ranks[12];
  int64_t shapes[12][8];
  char subs[12][9];
  char expr[256];
} pr_net;

static void pr_random_net(uint64_t *rng, int n, bool open, pr_net *g) {
  memset(g, 0, sizeof *g);
  g->n = n;
  char next = 'a';
  int64_t ext[64];
  char out[32];
  int nout = 0;
  for (int i = 0; i < n; i++) {  // the ring
    char l = next++;
    ext[l - 'a'] = 2 + (int64_t)(tfr_test_rand_u64(rng) % 4);
    int j = (i + 1) % n;
    g->subs[i][g->ranks[i]++] = l;
    g->subs[j][g->ranks[j]++] = l;
  }
  for (int c = 0; c < n; c++) {  // chords
    int i = (int)(tfr_test_rand_u64(rng) % (uint64_t)n), j = (int)(tfr_test_rand_u64(rng) % (uint64_t)n);
    if (i == j || g->ranks[i] >= 5 || g->ranks[j] >= 5) continue;
    char l = next++;
    ext[l - 'a'] = 2 + (int64_t)(tfr_test_rand_u64(rng) % 3);
    g->subs[i][g->ranks[i]++] = l;
    g->subs[j][g->ranks[j]++] = l;
    if (open && tfr_test_rand_u64(rng) % 3 == 0) out[nout++] = l;  // a batch label
    int k = (int)(tfr_test_rand_u64(rng) % (uint64_t)n);
    if (open && k != i && k != j && g->ranks[k] < 6 && tfr_test_rand_u64(rng) % 2)
      g->subs[k][g->ranks[k]++] = l;  // a hyperedge
  }
  if (open) {  // an open label of one operand
    char l = next++;
    ext[l - 'a'] = 3;
    int i = (int)(tfr_test_rand_u64(rng) % (uint64_t)n);
    g->subs[i][g->ranks[i]++] = l;
    out[nout++] = l;
  }
  int w = 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < g->ranks[i]; k++) g->shapes[i][k] = ext[g->subs[i][k] - 'a'];
    w += snprintf(g->expr + w, sizeof g->expr - (size_t)w, "%s%s", i ? "," : "", g->subs[i]);
  }
  out[nout] = 0;
  snprintf(g->expr + w, sizeof g->expr - (size_t)w, "->%s", out);
}

static void test_random_networks(void **state) {
  (void)state;
  tfr_backend *b = pr_backend(2);
  tfr_session *s = tfr_test_begin(b);
  uint64_t rng = 2024;
  static const tfr_dtype dts[] = {TFR_F64, TFR_F32, TFR_C64, TFR_I32, TFR_BOOL};
  int sliced = 0, parallel = 0;
  for (int c = 0; c < 40; c++) {
    pr_net g;
    bool open = c % 2 == 1;
    pr_random_net(&rng, 3 + c % 8, open, &g);
    tfr_dtype dt = dts[c % 5];
    tfr_tensor *t[12] = {0};
    const int64_t *shapes[12];
    for (int i = 0; i < g.n; i++) {
      shapes[i] = g.shapes[i];
      t[i] = tfr_test_random_tensor(dt, g.ranks[i], g.shapes[i], 1000 * (uint64_t)c + (uint64_t)i);
    }
    const tfr_tensor *const *ops = (const tfr_tensor *const *)t;
    tfr_einsum_options o = {.path_kind = c % 3 ? TFR_EINSUM_PATH_GREEDY : TFR_EINSUM_PATH_RANDOM_GREEDY,
                            .seed = (uint64_t)c, .follow_path = true};
    tfr_einsum_plan *plan = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_create(g.expr, g.n, g.ranks, shapes, &o, &plan));
    const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
    char what[400];
    snprintf(what, sizeof what, "case %d %s (%s)", c, g.expr, tfr_dtype_name(dt));
    tfr_einsum_profile *p = pr_profile(s, plan, ops, what);
    // Steps that all sum over a shared label (closed networks whose labels
    // are on two operands): the dot flops are the plan's.
    if (!open) {
      double flops = 0;
      for (int i = 0; i < p->num_ops; i++) {
        tfr_einsum_op_kind k = p->ops[i].kind;
        if (tfr_einsum_op_kind_is_compute(k)) flops += p->ops[i].flops;
        else assert_int_equal(k, TFR_EINSUM_OP_TRANSPOSE);
        assert_true(p->ops[i].step < info->num_steps);
      }
      if (fabs(flops - info->flops) > 1e-9 * info->flops)
        fail_msg("%s: profiled flops %g, the plan's %g", what, flops, info->flops);
      int64_t dots = 0;
      for (int k = 0; k <= TFR_EINSUM_OP_BATCHED_DOT; k++) dots += p->totals[k].calls;
      assert_int_equal(dots, info->num_steps);
    }
    tfr_einsum_profile_free(p);
    // Sliced over one or two ring labels: the same result as the plain
    // (possibly parallel) execution, the slices' ops added up.
    TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, c % 4 < 2 ? "a" : "bc"));
    {
      sliced++;
      parallel += tfr_einsum_plan_slice_threads(plan, s) > 1;
      snprintf(what, sizeof what, "case %d %s (%s) in %lld slices", c, g.expr, tfr_dtype_name(dt),
               (long long)tfr_einsum_plan_num_slices(plan));
      p = pr_profile(s, plan, ops, what);
      int64_t slices = tfr_einsum_plan_num_slices(plan);
      assert_true(p->totals[TFR_EINSUM_OP_ACCUMULATE].calls >= slices);
      // Each step of each slice: one dot_general or one multiply (a step
      // whose summed labels are all sliced becomes a product).
      int64_t steps = 0;
      for (int k = 0; k <= TFR_EINSUM_OP_MULTIPLY; k++) steps += p->totals[k].calls;
      assert_int_equal(steps, slices * info->num_steps);
      tfr_einsum_profile_free(p);
    }
    tfr_einsum_plan_release(plan);
    for (int i = 0; i < g.n; i++) tfr_tensor_release(t[i]);
  }
  assert_int_equal(sliced, 40);
  assert_true(parallel >= 1);  // profiled serially, executed in parallel: the same bits
  tfr_test_end(s);
  tfr_backend_release(b);
}

static void test_errors(void **state) {
  (void)state;
  tfr_backend *b = pr_backend(2);
  tfr_session *s = tfr_test_begin(b);
  int64_t sa[2] = {3, 4}, sb[2] = {4, 5}, bad[2] = {4, 4};
  tfr_tensor *t[2] = {tfr_test_random_tensor(TFR_F64, 2, sa, 1),
                      tfr_test_random_tensor(TFR_F64, 2, sb, 2)};
  tfr_tensor *w[2] = {t[0], tfr_test_random_tensor(TFR_F64, 2, bad, 3)};
  tfr_tensor *f32 = tfr_test_random_tensor(TFR_F32, 2, sb, 4);
  tfr_tensor *mixed[2] = {t[0], f32}, *nul[2] = {t[0], NULL};
  const tfr_tensor *const *ops = (const tfr_tensor *const *)t;
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk->ik", 2, (int[]){2, 2},
                                       (const int64_t *[]){sa, sb}, NULL, &plan));
  tfr_einsum_profile *p = (tfr_einsum_profile *)1;
  tfr_tensor *out = (tfr_tensor *)1;
#define PR_RESET() (p = (tfr_einsum_profile *)1, out = (tfr_tensor *)1)
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, ops, NULL, &out), TFR_ERR_INVALID_ARGUMENT,
                   "profile");
  assert_null(out);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, ops, &p, NULL), TFR_ERR_INVALID_ARGUMENT, "out");
  assert_null(p);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, NULL, ops, &p, &out), TFR_ERR_INVALID_ARGUMENT, "plan");
  assert_null(p);
  assert_null(out);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, NULL, &p, &out), TFR_ERR_INVALID_ARGUMENT,
                   "operands");
  assert_null(p);
  assert_null(out);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, (const tfr_tensor *const *)w, &p, &out),
                   TFR_ERR_INVALID_ARGUMENT, "shape");
  assert_null(p);
  assert_null(out);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, (const tfr_tensor *const *)mixed, &p, &out),
                   TFR_ERR_INVALID_ARGUMENT, "dtype");
  assert_null(p);
  assert_null(out);
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, (const tfr_tensor *const *)nul, &p, &out),
                   TFR_ERR_INVALID_ARGUMENT, "NULL");
  assert_null(p);
  assert_null(out);
  // Allocation failures anywhere (the records, the ops, a sliced plan's
  // output): out of memory, nothing handed out (the sanitizer build checks
  // that nothing leaks); then the right result.
  for (int sl = 0; sl < 2; sl++) {
    if (sl) TFR_ASSERT_OK(tfr_einsum_plan_slice(plan, "j"));
    tfr_tensor *want = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_execute(s, plan, ops, &want));
    int failed = 0;
    for (long n = 0; n < 2000; n++) {
      PR_RESET();
      tfr_alloc_fail_after(n);
      tfr_status st = tfr_einsum_plan_profile(s, plan, ops, &p, &out);
      tfr_alloc_fail_after(-1);
      if (st == TFR_OK) {
        pr_same_bits(out, want, "after the failures");
        tfr_tensor_release(out);
        tfr_einsum_profile_free(p);
        break;
      }
      assert_int_equal(st, TFR_ERR_OUT_OF_MEMORY);
      assert_null(p);
      assert_null(out);
      failed++;
    }
    assert_true(failed >= 3);
    tfr_tensor_release(want);
  }
  tfr_test_end(s);
  // The session ended: not active on this thread.
  PR_RESET();
  TFR_ASSERT_ERROR(tfr_einsum_plan_profile(s, plan, ops, &p, &out), TFR_ERR_NO_SESSION, "session");
  assert_null(p);
  assert_null(out);
#undef PR_RESET
  tfr_einsum_plan_release(plan);
  tfr_tensor_release(t[0]);
  tfr_tensor_release(t[1]);
  tfr_tensor_release(w[1]);
  tfr_tensor_release(f32);
  tfr_backend_release(b);
}

// Plans `expr` (greedy) with or without follow_path.
static tfr_einsum_plan *pr_plan(const char *expr, int n, const int *ranks,
                                const int64_t *const *shapes, bool follow_path) {
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY, .follow_path = follow_path};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create(expr, n, ranks, shapes, &o, &plan));
  return plan;
}

// The one-loop form of tiny networks (tfr_einsum_options.follow_path): the
// values of the path's pairwise steps within rounding, for each dtype it
// takes, on diagonal, broadcast, empty, transposed and reversed operands;
// profiled as one sum_of_products op of M x N x K; not past its cost rule.
static void test_sum_of_products(void **state) {
  (void)state;
  tfr_backend *b = pr_backend(2);
  tfr_session *s = tfr_test_begin(b);
  static const struct {
    const char *expr;
    int n, ranks[3];
    int64_t shapes[3][3];
    int64_t m, k;  // output elements, terms per output element
  } cases[] = {
      {"ij,jk,kl->il", 3, {2, 2, 2}, {{2, 3}, {3, 4}, {4, 2}}, 4, 12},
      {"ij,jk->ik", 2, {2, 2}, {{5, 6}, {6, 7}}, 35, 6},
      {"i,i->", 2, {1, 1}, {{9}, {9}}, 1, 9},
      {"bij,bjk->bik", 2, {3, 3}, {{2, 3, 4}, {2, 4, 3}}, 18, 4},
      {"ii,i->i", 2, {2, 1}, {{4, 4}, {4}}, 4, 1},          // a diagonal
      {"ij,j->ij", 2, {2, 1}, {{3, 1}, {5}}, 15, 1},        // a broadcast axis
      {"abc,cd,da->b", 3, {3, 2, 2}, {{2, 3, 4}, {4, 2}, {2, 2}}, 3, 16},
      {"i,j->ij", 2, {1, 1}, {{6}, {7}}, 42, 1},
      {"ij,jk->ik", 2, {2, 2}, {{3, 0}, {0, 4}}, 12, 0},    // an empty sum: zeros
      {"ij,jk->ik", 2, {2, 2}, {{0, 3}, {3, 4}}, 0, 3},     // an empty output
  };
  static const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int d = 0; d < 4; d++) {
      const int64_t *shapes[3] = {cases[c].shapes[0], cases[c].shapes[1], cases[c].shapes[2]};
      tfr_tensor *t[3] = {0};
      for (int i = 0; i < cases[c].n; i++)
        t[i] = tfr_test_random_tensor(dts[d], cases[c].ranks[i], shapes[i], 100 * c + (uint64_t)i);
      const tfr_tensor *const *ops = (const tfr_tensor *const *)t;
      tfr_einsum_plan *one = pr_plan(cases[c].expr, cases[c].n, cases[c].ranks, shapes, false);
      tfr_einsum_plan *steps = pr_plan(cases[c].expr, cases[c].n, cases[c].ranks, shapes, true);
      char what[200];
      snprintf(what, sizeof what, "%s (%s)", cases[c].expr, tfr_dtype_name(dts[d]));
      tfr_tensor *want = NULL;
      TFR_ASSERT_OK(tfr_einsum_plan_execute(s, steps, ops, &want));
      tfr_einsum_profile *p = pr_profile(s, one, ops, what);  // bits as unprofiled
      const tfr_einsum_op_record *r = NULL;
      assert_int_equal(p->num_ops, 1);
      assert_int_equal(pr_count(p, TFR_EINSUM_OP_SUM_OF_PRODUCTS, &r), 1);
      assert_int_equal(r->step, -1);
      assert_int_equal(r->m, cases[c].m);
      assert_int_equal(r->n, cases[c].n);
      assert_int_equal(r->k, cases[c].k);
      assert_true(r->flops == (double)(cases[c].m * cases[c].n * cases[c].k));
      tfr_einsum_profile_free(p);
      tfr_tensor *got = NULL;
      TFR_ASSERT_OK(tfr_einsum_plan_execute(s, one, ops, &got));
      tfr_test_expect_close(got, want, what);
      assert_true(tfr_tensor_is_contiguous(got));
      p = pr_profile(s, steps, ops, what);  // the path's steps: no such op
      assert_int_equal(pr_count(p, TFR_EINSUM_OP_SUM_OF_PRODUCTS, NULL), 0);
      tfr_einsum_profile_free(p);
      tfr_tensor_release(got);
      tfr_tensor_release(want);
      tfr_einsum_plan_release(one);
      tfr_einsum_plan_release(steps);
      for (int i = 0; i < cases[c].n; i++) tfr_tensor_release(t[i]);
    }
  {  // a transposed and a reversed operand, a NaN and an Inf: by hand
    double av[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, bv[8] = {1, -1, 2, 0.5, -3, 4, 0, 1};
    av[4] = NAN;  // a[1][1] of the [4, 3] storage: column 1 of at (its row 1)
    bv[7] = INFINITY;
    tfr_tensor *a = tfr_test_tensor(TFR_F64, 2, (int64_t[]){4, 3}, av);
    tfr_tensor *bb = tfr_test_tensor(TFR_F64, 2, (int64_t[]){4, 2}, bv);
    tfr_tensor *at = NULL, *br = NULL, *got = NULL;
    TFR_ASSERT_OK(tfr_tensor_view_transpose(a, (int64_t[]){1, 0}, &at));  // [3, 4]
    TFR_ASSERT_OK(tfr_tensor_view_reverse(bb, 1, (int64_t[]){0}, &br));   // [4, 2], rows reversed
    TFR_ASSERT_OK(tfr_einsum(s, "ij,jk->ik", 2, (const tfr_tensor *[]){at, br}, NULL, &got));
    double rv[6];
    TFR_ASSERT_OK(tfr_tensor_read(got, rv, sizeof rv));
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 2; k++) {
        double sum = 0;
        for (int j = 0; j < 4; j++) sum += av[j * 3 + i] * bv[(3 - j) * 2 + k];
        if (isnan(sum)) assert_true(isnan(rv[i * 2 + k]));
        else assert_true(rv[i * 2 + k] == sum);  // exact: small integers, one order
      }
    assert_true(isnan(rv[2]) && isnan(rv[3]));  // row 1 meets the NaN
    assert_true(isinf(rv[1]) || isnan(rv[1]));
    tfr_tensor *objs[] = {a, bb, at, br, got};
    for (int i = 0; i < 5; i++) tfr_tensor_release(objs[i]);
  }
  {  // f64 `ij,jk->ik`: 8 x 8 x 8 (W x n = 1024) in one loop, 8 x 9 x 8 as the path's step
    for (int64_t k = 8; k <= 9; k++) {
      int64_t sa[2] = {8, k}, sb[2] = {k, 8};
      tfr_tensor *t[2] = {tfr_test_random_tensor(TFR_F64, 2, sa, 1), tfr_test_random_tensor(TFR_F64, 2, sb, 2)};
      tfr_einsum_plan *plan = pr_plan("ij,jk->ik", 2, (int[]){2, 2}, (const int64_t *[]){sa, sb}, false);
      tfr_einsum_profile *p = pr_profile(s, plan, (const tfr_tensor *const *)t, "ij,jk->ik");
      assert_int_equal(pr_count(p, TFR_EINSUM_OP_SUM_OF_PRODUCTS, NULL), k == 8 ? 1 : 0);
      assert_int_equal(pr_count(p, TFR_EINSUM_OP_GEMM, NULL), k == 8 ? 0 : 1);
      tfr_einsum_profile_free(p);
      tfr_einsum_plan_release(plan);
      tfr_tensor_release(t[0]);
      tfr_tensor_release(t[1]);
    }
  }
  {  // other dtypes take the path's steps
    int64_t sa[2] = {2, 3}, sb[2] = {3, 2};
    tfr_tensor *t[2] = {tfr_test_random_tensor(TFR_I32, 2, sa, 1), tfr_test_random_tensor(TFR_I32, 2, sb, 2)};
    tfr_einsum_plan *plan = pr_plan("ij,jk->ik", 2, (int[]){2, 2}, (const int64_t *[]){sa, sb}, false);
    tfr_einsum_profile *p = pr_profile(s, plan, (const tfr_tensor *const *)t, "ij,jk->ik (i32)");
    assert_int_equal(pr_count(p, TFR_EINSUM_OP_SUM_OF_PRODUCTS, NULL), 0);
    tfr_einsum_profile_free(p);
    tfr_einsum_plan_release(plan);
    tfr_tensor_release(t[0]);
    tfr_tensor_release(t[1]);
  }
  tfr_test_end(s);
  tfr_backend_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_names, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_kinds, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_random_networks, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_sum_of_products, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_errors, tfr_test_teardown_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
