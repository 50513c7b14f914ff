// Tests of src/einsum: 300 random expressions against numpy.einsum
// (tests/ref/gen_einsum.py) along every optimiser's path, paths, integer
// labels and every error.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static void test_numpy_random_expressions(void **state) {
  tfr_test_env *env = *state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/einsum", TFR_TEST_DATA_DIR);
  char path[1200];
  snprintf(path, sizeof path, "%s/cases.txt", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char id[32], dt[16], ascii[256], uni[512];
  int n, count = 0;
  while (fscanf(f, "%31s %15s %d %255s %511s", id, dt, &n, ascii, uni) == 5) {
    const char *expr = strcmp(uni, "-") == 0 ? "" : uni;
    tfr_tensor *ops[8] = {0}, *want = NULL, *got = NULL;
    for (int k = 0; k < n; k++) {
      snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, id, k);
      TFR_ASSERT_OK(tfr_npy_load(path, &ops[k]));
    }
    snprintf(path, sizeof path, "%s/%s_out.npy", dir, id);
    TFR_ASSERT_OK(tfr_npy_load(path, &want));
    // Every optimiser's path must give numpy's answer.
    const tfr_einsum_path_kind kinds[] = {TFR_EINSUM_PATH_GREEDY, TFR_EINSUM_PATH_OPTIMAL,
                                          TFR_EINSUM_PATH_RANDOM_GREEDY, TFR_EINSUM_PATH_DP};
    for (int kind = 0; kind < 4; kind++) {
      tfr_einsum_options opts = {.path_kind = kinds[kind], .trials = 4, .seed = (uint64_t)count};
      tfr_status st = tfr_einsum(env->session, expr, n, (const tfr_tensor *const *)ops, &opts, &got);
      if (st != TFR_OK) {
        print_error("case %s (%s, %s), %s path: %s\n", id, ascii, dt,
                    tfr_einsum_path_kind_name(kinds[kind]), tfr_last_error_message());
        fail();
      }
      char what[400];
      snprintf(what, sizeof what, "case %s %s (%s)", id, ascii, dt);
      tfr_test_expect_close(got, want, what);
      assert_true(tfr_tensor_is_contiguous(got));
      tfr_tensor_release(got);
      got = NULL;
    }
    for (int k = 0; k < n; k++) tfr_tensor_release(ops[k]);
    tfr_tensor_release(want);
    count++;
  }
  fclose(f);
  assert_int_equal(count, 300);
}

// Strided and negative-stride views as operands.
static void test_views_as_operands(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *a = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){6, 5}, 1);
  tfr_tensor *b = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){5, 4}, 2);
  tfr_tensor *at = NULL, *br = NULL, *r1 = NULL, *r2 = NULL, *ac = NULL, *bc = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_transpose(a, (int64_t[]){1, 0}, &at));    // [5, 6]
  TFR_ASSERT_OK(tfr_tensor_view_reverse(b, 1, (int64_t[]){0}, &br));      // [5, 4]
  TFR_ASSERT_OK(tfr_einsum(env->session, "ji,jk->ik", 2, (const tfr_tensor *[]){at, br}, NULL, &r1));
  TFR_ASSERT_OK(tfr_copy(env->session, at, &ac));
  TFR_ASSERT_OK(tfr_copy(env->session, br, &bc));
  TFR_ASSERT_OK(tfr_einsum(env->session, "ji,jk->ik", 2, (const tfr_tensor *[]){ac, bc}, NULL, &r2));
  tfr_test_expect_close(r1, r2, "views");
  // By hand: r[i][k] = sum_j a[i][j] * b[4 - j][k].
  double av[30], bv[20], rv[24];
  TFR_ASSERT_OK(tfr_tensor_read(a, av, sizeof av));
  TFR_ASSERT_OK(tfr_tensor_read(b, bv, sizeof bv));
  TFR_ASSERT_OK(tfr_tensor_read(r1, rv, sizeof rv));
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 4; k++) {
      double s = 0;
      for (int j = 0; j < 5; j++) s += av[i * 5 + j] * bv[(4 - j) * 4 + k];
      assert_true(fabs(rv[i * 4 + k] - s) < 1e-12);
    }
  tfr_tensor *objs[] = {a, b, at, br, r1, r2, ac, bc};
  for (int i = 0; i < 8; i++) tfr_tensor_release(objs[i]);
}

static void test_paths_and_statistics(void **state) {
  (void)state;
  // Matrix chain [10x100][100x5][5x50]: (AB)C costs 2*(10*100*5 + 10*5*50) = 15000,
  // A(BC) costs 2*(100*5*50 + 10*100*50) = 150000.
  const int ranks[3] = {2, 2, 2};
  const int64_t s0[2] = {10, 100}, s1[2] = {100, 5}, s2[2] = {5, 50};
  const int64_t *shapes[3] = {s0, s1, s2};
  tfr_einsum_plan *p = NULL;
  tfr_einsum_options opt = {.path_kind = TFR_EINSUM_PATH_OPTIMAL};
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p));
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(p);
  assert_int_equal(info->num_steps, 2);
  assert_true(info->flops == 15000.0);
  assert_int_equal(info->largest_intermediate, 500);
  // Live at once: the operands (1000 + 500 + 250) with AB (50) and, at the
  // last step, AB and the result (500).
  assert_true(info->peak_live_elements == 1750.0 + 50.0 + 500.0);
  const int32_t *path = tfr_einsum_plan_path(p);
  assert_int_equal(path[0], 0);
  assert_int_equal(path[1], 1);
  tfr_einsum_plan_release(p);
  opt.path_kind = TFR_EINSUM_PATH_GREEDY;
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p));
  assert_true(tfr_einsum_plan_info(p)->flops == 15000.0);
  tfr_einsum_plan_release(p);
  // A given path, the expensive one: its statistics are reported as given.
  opt = (tfr_einsum_options){.path_kind = TFR_EINSUM_PATH_GIVEN, .path = (int32_t[]){1, 2, 0, 1}, .path_len = 2};
  TFR_ASSERT_OK(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p));
  assert_true(tfr_einsum_plan_info(p)->flops == 150000.0);
  assert_int_equal(tfr_einsum_plan_info(p)->largest_intermediate, 5000);
  assert_true(tfr_einsum_plan_info(p)->peak_live_elements == 1750.0 + 5000.0 + 500.0);
  tfr_einsum_plan_release(p);
  // Operands count whole, every axis of them: a repeated label (a diagonal)
  // and an extent-1 axis that broadcasts as held, not as the labels' extents
  // (fuzz_einsum, corpus/einsum/oom-d0d5031aa7c85067: a rank-17 operand with
  // seven distinct labels counted 3^7 instead of 3^17 and passed a memory
  // check). "iij,j->i" on (4, 4, 3) and (1): 48 + 1 held, then the step's
  // result (4).
  {
    const int dr[2] = {3, 1};
    const int64_t d0[3] = {4, 4, 3}, d1[1] = {1};
    const int64_t *ds[2] = {d0, d1};
    TFR_ASSERT_OK(tfr_einsum_plan_create("iij,j->i", 2, dr, ds, NULL, &p));
    assert_true(tfr_einsum_plan_info(p)->peak_live_elements == 48.0 + 1.0 + 4.0);
    tfr_einsum_plan_release(p);
  }
  // Bad given paths.
  opt.path = (int32_t[]){0, 0, 0, 1};
  TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p),
                   TFR_ERR_INVALID_ARGUMENT, "step 0", "(0, 0)");
  opt.path = (int32_t[]){0, 1, 0, 2};
  TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p),
                   TFR_ERR_INVALID_ARGUMENT, "step 1", "list of 2");
  opt.path_len = 1;
  TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p),
                   TFR_ERR_INVALID_ARGUMENT, "1 step", "need 2");
  // The intermediate limit is checked from the path, before anything runs.
  opt = (tfr_einsum_options){.path_kind = TFR_EINSUM_PATH_GREEDY, .max_intermediate_elements = 100};
  TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk,kl->il", 3, ranks, shapes, &opt, &p),
                   TFR_ERR_INVALID_ARGUMENT, "500", "limit of 100");
  assert_null(p);
}

// Optimal never needs more flops than greedy, on random networks.
static void test_optimal_beats_greedy(void **state) {
  (void)state;
  uint64_t rng = 99;
  for (int t = 0; t < 30; t++) {
    int n = 3 + (int)(tfr_test_rand_u64(&rng) % 6);
    int ranks[10];
    int64_t ext[10][4];
    int32_t lab[10][4];
    const int64_t *shapes[10];
    const int32_t *labels[10];
    for (int i = 0; i < n; i++) {
      ranks[i] = 1 + (int)(tfr_test_rand_u64(&rng) % 3);
      for (int k = 0; k < ranks[i]; k++) {
        lab[i][k] = (int32_t)(tfr_test_rand_u64(&rng) % 7) * 1000 + 7;  // any int32 values
        ext[i][k] = 2 + (int64_t)(lab[i][k] % 5);
      }
      for (int k = 0; k < ranks[i]; k++) ext[i][k] = 2 + (lab[i][k] / 1000) % 5;
      shapes[i] = ext[i];
      labels[i] = lab[i];
    }
    int32_t out[1] = {7};
    int nout = 0;
    for (int i = 0; i < n && !nout; i++)
      for (int k = 0; k < ranks[i]; k++)
        if (lab[i][k] == 7) nout = 1;
    tfr_einsum_plan *g = NULL, *o = NULL;
    tfr_einsum_options og = {.path_kind = TFR_EINSUM_PATH_GREEDY}, oo = {.path_kind = TFR_EINSUM_PATH_OPTIMAL};
    TFR_ASSERT_OK(tfr_einsum_plan_create_labels(n, ranks, shapes, labels, nout, out, &og, &g));
    TFR_ASSERT_OK(tfr_einsum_plan_create_labels(n, ranks, shapes, labels, nout, out, &oo, &o));
    assert_true(tfr_einsum_plan_info(o)->flops <= tfr_einsum_plan_info(g)->flops * (1 + 1e-12));
    tfr_einsum_plan_release(g);
    tfr_einsum_plan_release(o);
  }
}

static void test_integer_labels(void **state) {
  tfr_test_env *env = *state;
  // out[b, i, k] = sum_j x[b, i, j] * y[b, j, k], labels 1000.. instead of letters.
  tfr_tensor *x = tfr_test_random_tensor(TFR_C128, 3, (int64_t[]){3, 4, 5}, 5);
  tfr_tensor *y = tfr_test_random_tensor(TFR_C128, 3, (int64_t[]){3, 5, 2}, 6);
  const int ranks[2] = {3, 3};
  const int64_t *shapes[2] = {tfr_tensor_shape(x), tfr_tensor_shape(y)};
  const int32_t lx[3] = {1000, -5, 77}, ly[3] = {1000, 77, 123456}, lo[3] = {1000, -5, 123456};
  const int32_t *labels[2] = {lx, ly};
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create_labels(2, ranks, shapes, labels, 3, lo, NULL, &p));
  tfr_tensor *r = NULL, *r2 = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_execute(env->session, p, (const tfr_tensor *[]){x, y}, &r));
  TFR_ASSERT_OK(tfr_einsum(env->session, "bij,bjk->bik", 2, (const tfr_tensor *[]){x, y}, NULL, &r2));
  tfr_test_expect_close(r, r2, "integer labels");
  tfr_tensor_release(r2);
  // Executing a plan with other shapes is refused.
  TFR_ASSERT_ERROR(tfr_einsum_plan_execute(env->session, p, (const tfr_tensor *[]){y, x}, &r2),
                   TFR_ERR_INVALID_ARGUMENT, "operand 0");
  assert_null(r2);
  tfr_einsum_plan_release(p);
  TFR_ASSERT_ERROR(tfr_einsum_plan_create_labels(2, ranks, shapes, labels, 1, (int32_t[]){9}, NULL, &p),
                   TFR_ERR_INVALID_ARGUMENT, "label 9");
  assert_null(p);
  tfr_tensor_release(r);
  tfr_tensor_release(x);
  tfr_tensor_release(y);
}

static void test_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *m = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 4}, 1);
  tfr_tensor *v = tfr_test_random_tensor(TFR_F64, 1, (int64_t[]){3}, 2);
  tfr_tensor *vf = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){4}, 2);
  tfr_tensor *r = NULL;
  const tfr_tensor *mv[2] = {m, v};
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,j->i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "extent 3", "extent 4");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij->i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "1 operand term", "2 operands");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,i,k->i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "more operand terms");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ijk,i->i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "rank 2", "3 label");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,i->x", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "U+0078", "no operand");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,i->ii", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "twice");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,i-i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "stray '-'");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "i.j,i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "ellipsis");
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "i\xff,i", 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "UTF-8", "byte 1");
  const tfr_tensor *mf[2] = {m, vf};
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "ij,j->i", 2, mf, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "f32", "f64");
  // An implicit output of 70 single labels (two operands of 35 each: the
  // letters, then Greek ones) would exceed TFR_MAX_RANK axes (a fuzzer's
  // finding: the plan was made and its output shape overflowed a caller's
  // TFR_MAX_RANK array). The same through explicit integer labels.
  {
    char expr[512];
    int len = 0, ranks[2] = {35, 35};
    int64_t ones[35];
    int32_t lab[2][35], out[70];
    for (int k = 0; k < 70; k++) {
      unsigned cp = k < 52 ? (unsigned)(k < 26 ? 'a' + k : 'A' + k - 26) : 0x3b1u + (unsigned)(k - 52);
      if (k == 35) expr[len++] = ',';
      if (cp < 0x80) {
        expr[len++] = (char)cp;
      } else {
        expr[len++] = (char)(0xc0 | (cp >> 6));
        expr[len++] = (char)(0x80 | (cp & 0x3f));
      }
      lab[k / 35][k % 35] = k;
      out[k] = k;
    }
    expr[len] = '\0';
    for (int k = 0; k < 35; k++) ones[k] = 1;
    const int64_t *shapes[2] = {ones, ones};
    const int32_t *labels[2] = {lab[0], lab[1]};
    tfr_einsum_plan *p = NULL;
    TFR_ASSERT_ERROR(tfr_einsum_plan_create(expr, 2, ranks, shapes, NULL, &p),
                     TFR_ERR_INVALID_ARGUMENT, "output would have 70 axes");
    assert_null(p);
    TFR_ASSERT_ERROR(tfr_einsum_plan_create_labels(2, ranks, shapes, labels, 70, out, NULL, &p),
                     TFR_ERR_INVALID_ARGUMENT, "output would have 70 axes");
    assert_null(p);
    // 64 axes are a tensor's limit and still a plan.
    TFR_ASSERT_OK(tfr_einsum_plan_create_labels(2, ranks, shapes, labels, 64, out, NULL, &p));
    assert_int_equal(tfr_einsum_plan_output_shape(p, NULL), 64);
    tfr_einsum_plan_release(p);
  }
  TFR_ASSERT_ERROR(tfr_einsum(env->session, NULL, 2, mv, NULL, &r), TFR_ERR_INVALID_ARGUMENT,
                   "subscripts");
  // A label repeated within one operand needs equal extents: extent 1 does
  // not broadcast there (numpy refuses "ii->i" on shape (1, 3); #22), in the
  // string and in the integer-label interface; across operands it does.
  {
    tfr_tensor *row = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){1, 3}, 3);
    tfr_tensor *sq = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 3}, 4);
    tfr_tensor *one = tfr_test_random_tensor(TFR_F64, 1, (int64_t[]){1}, 5);
    TFR_ASSERT_ERROR(tfr_einsum(env->session, "ii->i", 1, (const tfr_tensor *[]){row}, NULL, &r),
                     TFR_ERR_INVALID_ARGUMENT, "operand 0", "axes 0 and 1", "1 and 3");
    assert_null(r);
    tfr_einsum_plan *lp = NULL;
    TFR_ASSERT_ERROR(tfr_einsum_plan_create_labels(1, (int[]){2},
                                                   (const int64_t *[]){(int64_t[]){3, 1}},
                                                   (const int32_t *[]){(int32_t[]){7, 7}}, 1,
                                                   (int32_t[]){7}, NULL, &lp),
                     TFR_ERR_INVALID_ARGUMENT, "axes 0 and 1", "3 and 1");
    assert_null(lp);
    // "ii,i->i" on (3, 3) and (1,): the diagonal times the one element.
    assert_int_equal(tfr_einsum(env->session, "ii,i->i", 2, (const tfr_tensor *[]){sq, one}, NULL,
                                &r), TFR_OK);
    double d[9], o, got[3];
    assert_int_equal(tfr_tensor_read(sq, d, sizeof d), TFR_OK);
    assert_int_equal(tfr_tensor_read(one, &o, sizeof o), TFR_OK);
    assert_int_equal(tfr_tensor_read(r, got, sizeof got), TFR_OK);
    for (int i = 0; i < 3; i++) assert_true(fabs(got[i] - d[4 * i] * o) <= 1e-15 * fabs(d[4 * i] * o));
    tfr_tensor_release(r);
    r = NULL;
    tfr_tensor_release(row);
    tfr_tensor_release(sq);
    tfr_tensor_release(one);
  }
  tfr_einsum_options big = {.path_kind = TFR_EINSUM_PATH_OPTIMAL};
  tfr_tensor *many[13];
  for (int i = 0; i < 13; i++) many[i] = v;
  TFR_ASSERT_ERROR(tfr_einsum(env->session, "i,i,i,i,i,i,i,i,i,i,i,i,i->i", 13,
                              (const tfr_tensor *const *)many, &big, &r),
                   TFR_ERR_INVALID_ARGUMENT, "at most 12");
  assert_null(r);
  tfr_tensor_release(m);
  tfr_tensor_release(v);
  tfr_tensor_release(vf);
}

// An empty operand with a label on 40 axes (a diagonal) and saturated
// compact strides: the diagonal's view must not sum them past the view's
// limit (fuzz_einsum, corpus/einsum/crash-dc9616d1...). Along the pairwise
// path (i64) and the one loop (f64).
static void test_empty_operand_long_diagonal(void **state) {
  tfr_test_env *env = *state;
  char expr[64];
  int64_t shape[41];
  for (int k = 0; k < 40; k++) {
    expr[k] = 'a';
    shape[k] = 3;
  }
  shape[40] = 0;
  memcpy(expr + 40, "b,a->ab", 8);
  const tfr_dtype dts[2] = {TFR_I64, TFR_F64};
  for (int d = 0; d < 2; d++) {
    tfr_tensor *x = NULL, *y = NULL, *r = NULL;
    TFR_ASSERT_OK(tfr_tensor_zeros_host(dts[d], 41, shape, &x));
    TFR_ASSERT_OK(tfr_tensor_zeros_host(dts[d], 1, (int64_t[]){3}, &y));
    TFR_ASSERT_OK(tfr_einsum(env->session, expr, 2, (const tfr_tensor *[]){x, y}, NULL, &r));
    assert_int_equal(tfr_tensor_rank(r), 2);
    assert_int_equal(tfr_tensor_shape(r)[0], 3);
    assert_int_equal(tfr_tensor_shape(r)[1], 0);
    tfr_tensor_release(r);
    tfr_tensor_release(x);
    tfr_tensor_release(y);
  }
}

// tfr_einsum_plan_view_axes / tfr_einsum_plan_view: one-operand rearrangements
// as views, checked against the plan's own execution (a compact copy) and by
// hand, on compact, transposed and reversed operands; sums are not views.
static void tfr_check_view(tfr_test_env *env, const char *eq, const tfr_tensor *x, int want_rank,
                           const int32_t *want_axes) {
  int rank = tfr_tensor_rank(x);
  const int64_t *shape = tfr_tensor_shape(x);
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create(eq, 1, &rank, &shape, NULL, &p));
  int32_t axes[TFR_MAX_RANK];
  assert_int_equal(tfr_einsum_plan_view_axes(p, axes), want_rank);
  for (int k = 0; k < rank; k++) assert_int_equal(axes[k], want_axes[k]);
  tfr_tensor *v = NULL, *r = NULL, *vc = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_view(p, x, &v));
  TFR_ASSERT_OK(tfr_einsum_plan_execute(env->session, p, (const tfr_tensor *[]){x}, &r));
  assert_int_equal(tfr_tensor_rank(v), tfr_tensor_rank(r));
  for (int j = 0; j < tfr_tensor_rank(r); j++)
    assert_int_equal(tfr_tensor_shape(v)[j], tfr_tensor_shape(r)[j]);
  TFR_ASSERT_OK(tfr_copy(env->session, v, &vc));
  tfr_test_expect_close(vc, r, eq);
  tfr_tensor_release(vc);
  tfr_tensor_release(v);
  tfr_tensor_release(r);
  tfr_einsum_plan_release(p);
}

static void test_plan_view(void **state) {
  tfr_test_env *env = *state;
  tfr_tensor *a = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){4, 3, 5}, 7);
  tfr_tensor *sq = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){4, 4, 3}, 8);
  tfr_tensor *at = NULL, *sr = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_transpose(a, (int64_t[]){2, 0, 1}, &at));  // [5, 4, 3]
  TFR_ASSERT_OK(tfr_tensor_view_reverse(sq, 1, (int64_t[]){1}, &sr));      // [4, 4, 3]
  tfr_check_view(env, "ijk->kij", a, 3, (int32_t[]){1, 2, 0});
  tfr_check_view(env, "ijk->kij", at, 3, (int32_t[]){1, 2, 0});
  tfr_check_view(env, "ijk", a, 3, (int32_t[]){0, 1, 2});
  tfr_check_view(env, "...k->k...", a, 3, (int32_t[]){1, 2, 0});
  tfr_check_view(env, "iij->ji", sq, 2, (int32_t[]){1, 1, 0});
  tfr_check_view(env, "iij->ji", sr, 2, (int32_t[]){1, 1, 0});
  tfr_check_view(env, "iij->ij", sr, 2, (int32_t[]){0, 0, 1});
  // By hand: the diagonal of a reversed operand, d[i][j] = sq[i][3 - i][j].
  int rank = 3;
  const int64_t *shape = tfr_tensor_shape(sr);
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create("iij->ij", 1, &rank, &shape, NULL, &p));
  tfr_tensor *d = NULL, *dc = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_view(p, sr, &d));
  TFR_ASSERT_OK(tfr_copy(env->session, d, &dc));
  double sv[48], dv[12];
  TFR_ASSERT_OK(tfr_tensor_read(sq, sv, sizeof sv));
  TFR_ASSERT_OK(tfr_tensor_read(dc, dv, sizeof dv));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) assert_true(dv[i * 3 + j] == sv[(i * 4 + (3 - i)) * 3 + j]);
  // The view shares the operand's memory: a write to sq[2][1][0] shows as d[2][0].
  void *sp = NULL, *dp = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(sq, &sp));
  TFR_ASSERT_OK(tfr_tensor_host_data(d, &dp));
  ((double *)sp)[(2 * 4 + 1) * 3] = 42.0;
  const int64_t *ds = tfr_tensor_strides(d);
  assert_true(((double *)dp)[2 * ds[0]] == 42.0);
  // Errors: not a view (a sum; two operands), another shape, NULL arguments.
  tfr_tensor *v = NULL;
  TFR_ASSERT_ERROR(tfr_einsum_plan_view(p, a, &v), TFR_ERR_INVALID_ARGUMENT, "shape differs");
  assert_null(v);
  TFR_ASSERT_ERROR(tfr_einsum_plan_view(NULL, a, &v), TFR_ERR_INVALID_ARGUMENT, "plan is NULL");
  TFR_ASSERT_ERROR(tfr_einsum_plan_view(p, NULL, &v), TFR_ERR_INVALID_ARGUMENT, "operand is NULL");
  TFR_ASSERT_ERROR(tfr_einsum_plan_view(p, a, NULL), TFR_ERR_INVALID_ARGUMENT, "out is NULL");
  tfr_einsum_plan_release(p);
  TFR_ASSERT_OK(tfr_einsum_plan_create("iij->j", 1, &rank, &shape, NULL, &p));
  assert_int_equal(tfr_einsum_plan_view_axes(p, NULL), -1);
  TFR_ASSERT_ERROR(tfr_einsum_plan_view(p, sr, &v), TFR_ERR_INVALID_ARGUMENT, "not a rearrangement");
  tfr_einsum_plan_release(p);
  int ranks[2] = {3, 3};
  const int64_t *shapes[2] = {shape, shape};
  TFR_ASSERT_OK(tfr_einsum_plan_create("ijk,ijk->ijk", 2, ranks, shapes, NULL, &p));
  assert_int_equal(tfr_einsum_plan_view_axes(p, NULL), -1);
  tfr_einsum_plan_release(p);
  assert_int_equal(tfr_einsum_plan_view_axes(NULL, NULL), -1);
  // An empty operand: zero strides, the right shape.
  tfr_tensor *e = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 3, (int64_t[]){0, 0, 2}, &e));
  shape = tfr_tensor_shape(e);
  TFR_ASSERT_OK(tfr_einsum_plan_create("iij->ji", 1, &rank, &shape, NULL, &p));
  TFR_ASSERT_OK(tfr_einsum_plan_view(p, e, &v));
  assert_int_equal(tfr_tensor_shape(v)[0], 2);
  assert_int_equal(tfr_tensor_shape(v)[1], 0);
  assert_int_equal(tfr_tensor_strides(v)[0], 0);
  tfr_einsum_plan_release(p);
  tfr_tensor *objs[] = {a, sq, at, sr, d, dc, e, v};
  for (int i = 0; i < 8; i++) tfr_tensor_release(objs[i]);
}

// An MPS inner product, E0[a,b] A1[p,a,c] B1[p,b,d] A2[q,c,e] B2[q,d,f]
// F[e,f], along the path that contracts it site by site: its steps
// T[p,c,b] . B1[p,b,d] over (p, b) are looped products on the cpu in f32
// and f64 (validate.h, tfr_dot_loop_contracting: one small GEMM per physical
// index, the operands read in place; c64 and c128 pack). Against a long
// double reference computed site by site here, every float and complex
// dtype, B1 also as a view with its physical axis reversed.

// Element idx of a rank <= 3 tensor or view as long double re/im.
static void mps_get(const tfr_tensor *t, int64_t i, int64_t j, int64_t k, long double *re,
                    long double *im) {
  void *p = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, &p));
  const int64_t *st = tfr_tensor_strides(t);
  int64_t idx[3] = {i, j, k}, off = 0;
  for (int a = 0; a < tfr_tensor_rank(t); a++) off += idx[a] * st[a];
  *im = 0;
  switch (tfr_tensor_dtype(t)) {
    case TFR_F32: *re = ((const float *)p)[off]; break;
    case TFR_F64: *re = ((const double *)p)[off]; break;
    case TFR_C64: *re = ((const float *)p)[2 * off], *im = ((const float *)p)[2 * off + 1]; break;
    default: *re = ((const double *)p)[2 * off], *im = ((const double *)p)[2 * off + 1]; break;
  }
}

// E'[c,d] = sum over p, a, b of A[p,a,c] E[a,b] B[p,b,d] (n x n, complex
// as re/im pairs).
static void mps_site(const tfr_tensor *A, const tfr_tensor *B, int64_t P, int64_t n,
                     const long double *E, long double *out) {
  for (int64_t c = 0; c < n; c++)
    for (int64_t d = 0; d < n; d++) {
      long double sr = 0, si = 0;
      for (int64_t p = 0; p < P; p++)
        for (int64_t a = 0; a < n; a++)
          for (int64_t b = 0; b < n; b++) {
            long double ar, ai, br, bi;
            mps_get(A, p, a, c, &ar, &ai);
            mps_get(B, p, b, d, &br, &bi);
            long double er = E[2 * (a * n + b)], ei = E[2 * (a * n + b) + 1];
            long double tr = ar * er - ai * ei, ti = ar * ei + ai * er;
            sr += tr * br - ti * bi;
            si += tr * bi + ti * br;
          }
      out[2 * (c * n + d)] = sr;
      out[2 * (c * n + d) + 1] = si;
    }
}

static void test_mps_chain(void **state) {
  tfr_test_env *env = *state;
  const int64_t P = 6, n = 11;
  const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  // opt_einsum's format: pairs of positions in the current list, the result appended.
  const int32_t path[10] = {0, 1, 0, 4, 0, 3, 0, 2, 0, 1};
  uint64_t seed = 300;
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
    for (int rev = 0; rev < 2; rev++) {
      tfr_dtype dt = dts[di];
      tfr_tensor *E0 = tfr_test_random_tensor(dt, 2, (int64_t[]){n, n}, seed++);
      tfr_tensor *F = tfr_test_random_tensor(dt, 2, (int64_t[]){n, n}, seed++);
      tfr_tensor *site[4];
      for (int k = 0; k < 4; k++) site[k] = tfr_test_random_tensor(dt, 3, (int64_t[]){P, n, n}, seed++);
      if (rev) {  // B1 read backwards along its physical axis
        tfr_tensor *v = NULL;
        TFR_ASSERT_OK(tfr_tensor_view_reverse(site[1], 1, (int64_t[]){0}, &v));
        tfr_tensor_release(site[1]);
        site[1] = v;
      }
      const tfr_tensor *ops[6] = {E0, site[0], site[1], site[2], site[3], F};
      tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GIVEN, .path = path, .path_len = 5};
      tfr_tensor *got = NULL;
      TFR_ASSERT_OK(tfr_einsum(env->session, "ab,pac,pbd,qce,qdf,ef->", 6, ops, &o, &got));
      long double E[2 * 11 * 11], E1[2 * 11 * 11], E2[2 * 11 * 11];
      for (int64_t a = 0; a < n; a++)
        for (int64_t b = 0; b < n; b++) mps_get(E0, a, b, 0, &E[2 * (a * n + b)], &E[2 * (a * n + b) + 1]);
      mps_site(site[0], site[1], P, n, E, E1);
      mps_site(site[2], site[3], P, n, E1, E2);
      long double wr = 0, wi = 0;
      for (int64_t e = 0; e < n; e++)
        for (int64_t f = 0; f < n; f++) {
          long double fr, fi;
          mps_get(F, e, f, 0, &fr, &fi);
          long double er = E2[2 * (e * n + f)], ei = E2[2 * (e * n + f) + 1];
          wr += er * fr - ei * fi;
          wi += er * fi + ei * fr;
        }
      double wd[2] = {(double)wr, (double)wi};
      float wf[2] = {(float)wr, (float)wi};
      bool single = dt == TFR_F32 || dt == TFR_C64;
      tfr_tensor *want = tfr_test_tensor(dt, 0, NULL, single ? (const void *)wf : (const void *)wd);
      char what[64];
      snprintf(what, sizeof what, "mps chain %s%s", tfr_dtype_name(dt), rev ? ", B1 reversed" : "");
      tfr_test_expect_close(got, want, what);
      tfr_tensor *list[] = {E0, F, site[0], site[1], site[2], site[3], got, want};
      for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_random_expressions),
      cmocka_unit_test(test_views_as_operands),
      cmocka_unit_test(test_paths_and_statistics),
      cmocka_unit_test(test_optimal_beats_greedy),
      cmocka_unit_test(test_integer_labels),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_empty_operand_long_diagonal),
      cmocka_unit_test(test_plan_view),
      cmocka_unit_test(test_mps_chain),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
