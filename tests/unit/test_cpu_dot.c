// Tests of dot_general, its accumulating form and the cached plan
// (src/core/ops_dot.c, src/core/validate_dot.c, src/cpu/dot.c) against
// numpy: tests/ref/gen_dot.py writes the cases (operands as views of raw
// base buffers, expected results) into data/dot/manifest.txt. Validation
// errors, the plan's packing rules and allocation failures are tested
// directly.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after
#include "support.h"

// ---------------------------------------------------------------------------
// Manifest
// ---------------------------------------------------------------------------

#define TFR_MAX_TOKENS 48

typedef struct tfr_case {
  char *line;  // owned; tokens point into it
  int ntok;
  char *key[TFR_MAX_TOKENS];
  char *val[TFR_MAX_TOKENS];
} tfr_case;

static const char *tfr_get(const tfr_case *c, const char *key) {
  for (int i = 0; i < c->ntok; i++)
    if (strcmp(c->key[i], key) == 0) return c->val[i];
  fail_msg("case %s: no key %s", c->ntok ? c->val[0] : "?", key);
  return NULL;
}

static int tfr_get_int(const tfr_case *c, const char *key) { return atoi(tfr_get(c, key)); }

// Parses "1,2,3" or "-" into v; returns the count.
static int tfr_get_list(const tfr_case *c, const char *key, int64_t *v) {
  const char *s = tfr_get(c, key);
  if (strcmp(s, "-") == 0) return 0;
  int n = 0;
  while (*s) {
    char *end;
    v[n++] = strtoll(s, &end, 10);
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

static bool tfr_parse_case(char *line, tfr_case *c) {
  c->line = line;
  c->ntok = 0;
  for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
    char *eq = strchr(tok, '=');
    if (!eq || c->ntok == TFR_MAX_TOKENS) return false;
    *eq = '\0';
    c->key[c->ntok] = tok;
    c->val[c->ntok] = eq + 1;
    c->ntok++;
  }
  return c->ntok > 0;
}

static void *tfr_read_file(const char *name, size_t nbytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dot/%s", TFR_TEST_DATA_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s (run the ref_data test first)", path);
  void *buf = malloc(nbytes ? nbytes : 1);
  assert_non_null(buf);
  size_t got = fread(buf, 1, nbytes, f);
  fclose(f);
  assert_int_equal(got, nbytes);
  return buf;
}

static tfr_dtype tfr_case_dtype(const tfr_case *c) {
  tfr_dtype dt;
  TFR_ASSERT_OK(tfr_dtype_from_name(tfr_get(c, "dtype"), &dt));
  return dt;
}

// The base tensor of operand `x` ("l", "r", "o") and a view of it.
static void tfr_case_operand(const tfr_case *c, const char *x, tfr_dtype dt, tfr_tensor **base,
                             tfr_tensor **view) {
  char k[16];
  snprintf(k, sizeof k, "%snum", x);
  int64_t num = strtoll(tfr_get(c, k), NULL, 10);
  snprintf(k, sizeof k, "%sbase", x);
  void *data = tfr_read_file(tfr_get(c, k), (size_t)num * tfr_dtype_size(dt));
  TFR_ASSERT_OK(tfr_tensor_from_host(dt, 1, &num, data, base));
  free(data);
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  snprintf(k, sizeof k, "%sshape", x);
  int rank = tfr_get_list(c, k, shape);
  snprintf(k, sizeof k, "%sstrides", x);
  assert_int_equal(tfr_get_list(c, k, strides), rank);
  snprintf(k, sizeof k, "%soff", x);
  int64_t off = strtoll(tfr_get(c, k), NULL, 10);
  TFR_ASSERT_OK(tfr_tensor_view(*base, rank, rank ? shape : NULL, rank ? strides : NULL, off,
                                view));
}

// Reads a scalar "re[,im]" of dtype dt into 16 bytes.
static void tfr_case_scalar(const tfr_case *c, const char *key, tfr_dtype dt,
                            unsigned char *bytes) {
  const char *s = tfr_get(c, key);
  memset(bytes, 0, 16);
  char *end;
  switch (dt) {
    case TFR_I32: { int32_t v = (int32_t)strtoll(s, NULL, 10); memcpy(bytes, &v, 4); break; }
    case TFR_I64: { int64_t v = strtoll(s, NULL, 10); memcpy(bytes, &v, 8); break; }
    case TFR_F32: { float v = strtof(s, NULL); memcpy(bytes, &v, 4); break; }
    case TFR_F64: { double v = strtod(s, NULL); memcpy(bytes, &v, 8); break; }
    case TFR_C64: {
      float v[2] = {strtof(s, &end), 0};
      v[1] = strtof(end + 1, NULL);
      memcpy(bytes, v, 8);
      break;
    }
    case TFR_C128: {
      double v[2] = {strtod(s, &end), 0};
      v[1] = strtod(end + 1, NULL);
      memcpy(bytes, v, 16);
      break;
    }
    default: fail();
  }
}

// Compares n elements of dtype dt (absolute tolerance; NaN matches NaN).
// Returns the index of the first mismatch, or -1.
static int64_t tfr_mismatch(tfr_dtype dt, const void *got, const void *want, int64_t n,
                            double tol, double *worst) {
  *worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double gr = 0, gi = 0, wr = 0, wi = 0;
    switch (dt) {
      case TFR_I32:
        if (((const int32_t *)got)[i] != ((const int32_t *)want)[i]) return i;
        continue;
      case TFR_I64:
        if (((const int64_t *)got)[i] != ((const int64_t *)want)[i]) return i;
        continue;
      case TFR_F32: gr = ((const float *)got)[i]; wr = ((const float *)want)[i]; break;
      case TFR_F64: gr = ((const double *)got)[i]; wr = ((const double *)want)[i]; break;
      case TFR_C64:
        gr = ((const float *)got)[2 * i];
        gi = ((const float *)got)[2 * i + 1];
        wr = ((const float *)want)[2 * i];
        wi = ((const float *)want)[2 * i + 1];
        break;
      case TFR_C128:
        gr = ((const double *)got)[2 * i];
        gi = ((const double *)got)[2 * i + 1];
        wr = ((const double *)want)[2 * i];
        wi = ((const double *)want)[2 * i + 1];
        break;
      default: return i;
    }
    bool gn = isnan(gr) || isnan(gi), wn = isnan(wr) || isnan(wi);
    if (gn || wn) {
      if (gn != wn) return i;
      continue;
    }
    double e = hypot(gr - wr, gi - wi);
    if (e > *worst) *worst = e;
    if (!(e <= tol)) return i;
  }
  return -1;
}

// Asserts that `t` (any layout) holds the n elements `want` in row-major order.
static void tfr_check_tensor(const char *name, const char *what, const tfr_tensor *t,
                             const void *want, int64_t n, double tol) {
  tfr_dtype dt = tfr_tensor_dtype(t);
  assert_int_equal(tfr_tensor_numel(t), n);
  size_t nb = (size_t)n * tfr_dtype_size(dt);
  void *got = malloc(nb ? nb : 1);
  assert_non_null(got);
  TFR_ASSERT_OK(tfr_tensor_read(t, got, nb));
  double worst;
  int64_t bad = tfr_mismatch(dt, got, want, n, tol, &worst);
  free(got);
  if (bad >= 0)
    fail_msg("case %s (%s): element %lld differs (tol %g)", name, what, (long long)bad, tol);
}

static bool tfr_bitwise_equal(const tfr_tensor *a, const tfr_tensor *b) {
  size_t n = tfr_tensor_nbytes(a);
  if (n != tfr_tensor_nbytes(b)) return false;
  void *x = malloc(n + 1), *y = malloc(n + 1);
  assert_true(x && y);
  TFR_ASSERT_OK(tfr_tensor_read(a, x, n));
  TFR_ASSERT_OK(tfr_tensor_read(b, y, n));
  bool eq = memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return eq;
}

typedef struct tfr_case_run {
  tfr_session *s;
  const tfr_case *c;
  const char *name;
  tfr_dtype dt;
  tfr_tensor *lbase, *lview, *rbase, *rview;
  tfr_dot_config cfg;
  int64_t lb[TFR_MAX_RANK], rb[TFR_MAX_RANK], lc[TFR_MAX_RANK], rc[TFR_MAX_RANK];
  void *expect;
  int64_t enumel;
  double tol;
} tfr_case_run;

// A fresh out base (from the file) and its view, for the accumulating form.
static void tfr_case_out(const tfr_case_run *r, tfr_tensor **base, tfr_tensor **view) {
  tfr_case_operand(r->c, "o", r->dt, base, view);
}

static void tfr_run_plain(tfr_case_run *r) {
  tfr_session *s = r->s;
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_dot_general(s, r->lview, r->rview, &r->cfg, &out));
  tfr_check_tensor(r->name, "dot_general", out, r->expect, r->enumel, r->tol);
  assert_true(tfr_tensor_is_contiguous(out));

  // The plan: repeated executions equal the one-shot result exactly.
  tfr_dot_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, r->lview, r->rview, &r->cfg, &plan));
  assert_int_equal(tfr_dot_plan_result_rank(plan), tfr_tensor_rank(out));
  if (tfr_tensor_rank(out) > 0)
    assert_memory_equal(tfr_dot_plan_result_shape(plan), tfr_tensor_shape(out),
                        (size_t)tfr_tensor_rank(out) * sizeof(int64_t));
  for (int rep = 0; rep < 2; rep++) {
    tfr_tensor *p = NULL;
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, r->lview, r->rview, &p));
    if (!tfr_bitwise_equal(p, out)) fail_msg("case %s: plan result differs from one-shot", r->name);
    tfr_tensor_release(p);
  }
  // With both operands packed: within tolerance, and stable across calls.
  TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_LHS, r->lview));
  TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, r->rview));
  tfr_tensor *p1 = NULL, *p2 = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, r->lview, r->rview, &p1));
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, r->lview, r->rview, &p2));
  tfr_check_tensor(r->name, "plan packed", p1, r->expect, r->enumel, r->tol);
  assert_true(tfr_bitwise_equal(p1, p2));
  tfr_tensor_release(p1);
  tfr_tensor_release(p2);
  tfr_dot_plan_release(plan);
  tfr_tensor_release(out);
}

static void tfr_run_acc(tfr_case_run *r) {
  tfr_session *s = r->s;
  unsigned char alpha[16], beta[16];
  tfr_case_scalar(r->c, "alpha", r->dt, alpha);
  tfr_case_scalar(r->c, "beta", r->dt, beta);
  tfr_tensor *obase = NULL, *oview = NULL;
  tfr_case_out(r, &obase, &oview);
  TFR_ASSERT_OK(
      tfr_dot_general_accumulate(s, r->lview, r->rview, &r->cfg, alpha, beta, oview));
  tfr_check_tensor(r->name, "accumulate (whole out buffer)", obase, r->expect, r->enumel,
                   r->tol);
  tfr_tensor_release(oview);
  tfr_tensor_release(obase);

  // Through a plan, once plain and once with rhs packed.
  tfr_dot_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, r->lview, r->rview, &r->cfg, &plan));
  for (int packed = 0; packed < 2; packed++) {
    if (packed) TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, r->rview));
    tfr_case_out(r, &obase, &oview);
    TFR_ASSERT_OK(
        tfr_dot_plan_execute_accumulate(s, plan, r->lview, r->rview, alpha, beta, oview));
    tfr_check_tensor(r->name, packed ? "plan accumulate, packed" : "plan accumulate", obase,
                     r->expect, r->enumel, r->tol);
    tfr_tensor_release(oview);
    tfr_tensor_release(obase);
  }
  tfr_dot_plan_release(plan);
}

static void test_numpy_cases(void **state) {
  tfr_test_env *env = *state;
  char path[1024];
  snprintf(path, sizeof path, "%s/dot/manifest.txt", TFR_TEST_DATA_DIR);
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s (run the ref_data test first)", path);
  static char line[8192];
  int ncases = 0, nacc = 0;
  while (fgets(line, sizeof line, f)) {
    tfr_case c;
    if (!tfr_parse_case(line, &c)) continue;
    tfr_case_run r = {.s = env->session, .c = &c, .name = tfr_get(&c, "name")};
    r.dt = tfr_case_dtype(&c);
    tfr_case_operand(&c, "l", r.dt, &r.lbase, &r.lview);
    tfr_case_operand(&c, "r", r.dt, &r.rbase, &r.rview);
    int nb = tfr_get_list(&c, "lb", r.lb);
    assert_int_equal(tfr_get_list(&c, "rb", r.rb), nb);
    int nc = tfr_get_list(&c, "lc", r.lc);
    assert_int_equal(tfr_get_list(&c, "rc", r.rc), nc);
    r.cfg = (tfr_dot_config){.num_batching_dims = nb, .lhs_batching_dimensions = r.lb,
                             .rhs_batching_dimensions = r.rb, .num_contracting_dims = nc,
                             .lhs_contracting_dimensions = r.lc,
                             .rhs_contracting_dimensions = r.rc,
                             .lhs_conj = tfr_get_int(&c, "lconj") != 0,
                             .rhs_conj = tfr_get_int(&c, "rconj") != 0};
    r.enumel = strtoll(tfr_get(&c, "enum"), NULL, 10);
    r.expect = tfr_read_file(tfr_get(&c, "expect"), (size_t)r.enumel * tfr_dtype_size(r.dt));
    r.tol = strtod(tfr_get(&c, "tol"), NULL);
    if (tfr_get_int(&c, "acc")) {
      tfr_run_acc(&r);
      nacc++;
    } else {
      tfr_run_plain(&r);
    }
    free(r.expect);
    tfr_tensor_release(r.lview);
    tfr_tensor_release(r.lbase);
    tfr_tensor_release(r.rview);
    tfr_tensor_release(r.rbase);
    ncases++;
  }
  fclose(f);
  // gen_dot.py writes several hundred cases; a short manifest is a broken run.
  assert_true(ncases > 500);
  assert_true(nacc > 100);
}

// ---------------------------------------------------------------------------
// Validation: every error once, with its message
// ---------------------------------------------------------------------------

static tfr_dot_config tfr_mm_config(void) {
  static const int64_t l1[] = {1}, r0[] = {0};
  return (tfr_dot_config){.num_contracting_dims = 1, .lhs_contracting_dimensions = l1,
                          .rhs_contracting_dimensions = r0};
}

static void test_validation_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_tensor *a = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2, 3}, 1);
  tfr_tensor *b = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){4, 5}, 2);
  tfr_tensor *c = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 5}, 3);
  tfr_tensor *bt = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){3, 3, 4}, 4);
  tfr_tensor *f = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){3, 5}, 5);
  tfr_tensor *bo = tfr_test_random_tensor(TFR_BOOL, 2, (int64_t[]){2, 3}, 6);
  tfr_tensor *bo2 = tfr_test_random_tensor(TFR_BOOL, 2, (int64_t[]){3, 5}, 7);
  tfr_tensor *out = (tfr_tensor *)&out;
  tfr_dot_config mm = tfr_mm_config();

  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, NULL, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: config is NULL");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &mm, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: out is NULL");
  // The `_shape` form: the result's shape, or the op's own refusal.
  int rank = 0;
  int64_t shape[TFR_MAX_RANK];
  TFR_ASSERT_OK(tfr_dot_general_shape(s, a, c, &mm, &rank, shape));
  assert_int_equal(rank, 2);
  assert_int_equal(shape[0], 2);
  assert_int_equal(shape[1], 5);
  TFR_ASSERT_ERROR(tfr_dot_general_shape(s, a, c, NULL, &rank, shape), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: config is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general_shape(s, a, c, &mm, NULL, shape), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: out_rank or out_shape is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general_shape(s, c, b, &mm, &rank, shape), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general");
  TFR_ASSERT_ERROR(tfr_dot_general(NULL, a, c, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "session is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general(s, NULL, c, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: lhs is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, NULL, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: rhs is NULL");
  // The exact message of the issue.
  TFR_ASSERT_ERROR(tfr_dot_general(s, c, b, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: lhs contracting dim 1 has extent 5, rhs contracting dim 0 has "
                   "extent 4");
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, b, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: lhs contracting dim 1 has extent 3, rhs contracting dim 0 has "
                   "extent 4");
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, f, &mm, &out), TFR_ERR_INVALID_ARGUMENT,
                   "lhs has dtype f64, rhs has dtype f32");
  TFR_ASSERT_ERROR(tfr_dot_general(s, bo, bo2, &mm, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "dot_general", "dtype bool");

  tfr_dot_config k = mm;
  k.num_batching_dims = -1;
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "num_batching_dims is -1, must be >= 0");
  k = mm;
  k.num_contracting_dims = 3;
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "num_contracting_dims is 3, lhs has rank 2");
  k = mm;
  k.num_contracting_dims = -2;
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "num_contracting_dims is -2");
  k = mm;
  k.lhs_contracting_dimensions = (int64_t[]){2};
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "lhs contracting dim 2 (entry 0) is out of range for rank 2");
  k = mm;
  k.rhs_contracting_dimensions = (int64_t[]){-1};
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "rhs contracting dim -1 (entry 0) is out of range for rank 2");
  k = mm;
  k.rhs_contracting_dimensions = NULL;
  TFR_ASSERT_ERROR(tfr_dot_general(s, a, c, &k, &out), TFR_ERR_INVALID_ARGUMENT,
                   "rhs_contracting_dimensions is NULL");
  // Repeated within an operand: across batching and contracting, and within one list.
  tfr_dot_config rep = {.num_batching_dims = 1, .lhs_batching_dimensions = (int64_t[]){0},
                        .rhs_batching_dimensions = (int64_t[]){0}, .num_contracting_dims = 1,
                        .lhs_contracting_dimensions = (int64_t[]){1},
                        .rhs_contracting_dimensions = (int64_t[]){0}};
  TFR_ASSERT_ERROR(tfr_dot_general(s, bt, bt, &rep, &out), TFR_ERR_INVALID_ARGUMENT,
                   "rhs dim 0 is listed twice (as batching dim and as contracting dim)");
  tfr_dot_config rep2 = {.num_contracting_dims = 2,
                         .lhs_contracting_dimensions = (int64_t[]){1, 1},
                         .rhs_contracting_dimensions = (int64_t[]){0, 1}};
  TFR_ASSERT_ERROR(tfr_dot_general(s, bt, bt, &rep2, &out), TFR_ERR_INVALID_ARGUMENT,
                   "lhs dim 1 is listed twice (as contracting dim and as contracting dim)");
  // Batch extents.
  tfr_tensor *b3 = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){2, 4, 3}, 8);
  tfr_dot_config bat = {.num_batching_dims = 1, .lhs_batching_dimensions = (int64_t[]){0},
                        .rhs_batching_dimensions = (int64_t[]){0}, .num_contracting_dims = 1,
                        .lhs_contracting_dimensions = (int64_t[]){2},
                        .rhs_contracting_dimensions = (int64_t[]){1}};
  TFR_ASSERT_ERROR(tfr_dot_general(s, bt, b3, &bat, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_general: lhs batching dim 0 has extent 3, rhs batching dim 0 has "
                   "extent 2");
  // A result rank beyond TFR_MAX_RANK (outer product of two rank-40 tensors).
  int64_t ones[40];
  for (int i = 0; i < 40; i++) ones[i] = 1;
  tfr_tensor *big = tfr_test_random_tensor(TFR_F64, 40, ones, 9);
  tfr_dot_config none = {0};
  TFR_ASSERT_ERROR(tfr_dot_general(s, big, big, &none, &out), TFR_ERR_INVALID_ARGUMENT,
                   "result would have rank 80");

  // Accumulating form.
  tfr_tensor *o = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2, 5}, 10);
  double one = 1, zero = 0;
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, &mm, NULL, &zero, o),
                   TFR_ERR_INVALID_ARGUMENT, "dot_general_accumulate: alpha is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, &mm, &one, NULL, o),
                   TFR_ERR_INVALID_ARGUMENT, "beta is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, &mm, &one, &zero, NULL),
                   TFR_ERR_INVALID_ARGUMENT, "out is NULL");
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, NULL, &one, &zero, o),
                   TFR_ERR_INVALID_ARGUMENT, "dot_general_accumulate: config is NULL");
  tfr_tensor *o_bad = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){5, 2}, 11);
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, &mm, &one, &zero, o_bad),
                   TFR_ERR_INVALID_ARGUMENT, "out has shape [5, 2], the result has shape [2, 5]");
  tfr_tensor *o_f32 = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){2, 5}, 12);
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a, c, &mm, &one, &zero, o_f32),
                   TFR_ERR_INVALID_ARGUMENT, "out has dtype f32, the result is f64");
  tfr_tensor *o_bc = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(o, 3, (int64_t[]){3, 2, 5},
                                                 (int64_t[]){1, 2}, &o_bc));
  tfr_tensor *a3 = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){3, 2, 3}, 13);
  tfr_dot_config mm3 = {.num_contracting_dims = 1, .lhs_contracting_dimensions = (int64_t[]){2},
                        .rhs_contracting_dimensions = (int64_t[]){0}};
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, a3, c, &mm3, &one, &zero, o_bc),
                   TFR_ERR_INVALID_ARGUMENT, "share memory");
  // out overlapping an operand: a square product written over its lhs.
  tfr_tensor *sq = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 3}, 14);
  tfr_tensor *sq2 = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 3}, 15);
  unsigned char before[72];
  TFR_ASSERT_OK(tfr_tensor_read(sq, before, sizeof before));
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, sq, sq2, &mm, &one, &zero, sq),
                   TFR_ERR_INVALID_ARGUMENT, "out overlaps lhs");
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(s, sq2, sq, &mm, &one, &zero, sq),
                   TFR_ERR_INVALID_ARGUMENT, "out overlaps rhs");
  // Invalid input is reported before anything is written.
  unsigned char after[72];
  TFR_ASSERT_OK(tfr_tensor_read(sq, after, sizeof after));
  assert_memory_equal(before, after, sizeof before);

  tfr_tensor *list[] = {a, b, c, bt, f, bo, bo2, b3, big, o, o_bad, o_f32, o_bc, a3, sq, sq2};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
}

static void test_no_session(void **state) {
  (void)state;
  tfr_tensor *a = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2, 3}, 1);
  tfr_tensor *c = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){3, 2}, 2);
  tfr_dot_config mm = tfr_mm_config();
  // Not the thread's active session (compared, never dereferenced).
  tfr_session *bogus = (tfr_session *)&a;
  tfr_tensor *out = NULL;
  TFR_ASSERT_ERROR(tfr_dot_general(bogus, a, c, &mm, &out), TFR_ERR_NO_SESSION,
                   "dot_general", "not active");
  double one = 1, zero = 0;
  tfr_tensor *o = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2, 2}, 3);
  TFR_ASSERT_ERROR(tfr_dot_general_accumulate(bogus, a, c, &mm, &one, &zero, o),
                   TFR_ERR_NO_SESSION, "dot_general_accumulate");
  tfr_tensor_release(o);
  tfr_tensor_release(a);
  tfr_tensor_release(c);
}

// ---------------------------------------------------------------------------
// Semantics not covered by the numpy cases
// ---------------------------------------------------------------------------

// Compact [m, n] f64 matrix from a generator.
static tfr_tensor *tfr_mat(int64_t m, int64_t n, double (*g)(int64_t, int64_t)) {
  double *v = malloc((size_t)(m * n) * sizeof *v + 8);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) v[i * n + j] = g(i, j);
  tfr_tensor *t = tfr_test_tensor(TFR_F64, 2, (int64_t[]){m, n}, v);
  free(v);
  return t;
}
static double tfr_g1(int64_t i, int64_t j) { return (double)((i * 7 + j * 3) % 11) - 5; }
static double tfr_g2(int64_t i, int64_t j) { return (double)((i * 5 + j * 2) % 13) - 6; }

// beta = 0 never reads out, on every kernel path (strided loop, BLAS in
// place, BLAS into a temporary, K = 0, alpha = 0).
static void test_beta_zero_never_reads(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  const int64_t sizes[][3] = {{2, 3, 4}, {40, 30, 20}, {40, 30, 0}};
  for (int si = 0; si < 3; si++) {
    int64_t M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
    tfr_tensor *a = tfr_mat(M, K, tfr_g1), *b = tfr_mat(K, N, tfr_g2);
    tfr_dot_config mm = tfr_mm_config();
    tfr_tensor *ref = NULL;
    TFR_ASSERT_OK(tfr_dot_general(s, a, b, &mm, &ref));
    for (int layout = 0; layout < 2; layout++) {
      for (int az = 0; az < 2; az++) {
        // layout 0: compact out; 1: a transposed view (column-major).
        double *buf = malloc((size_t)(M * N) * sizeof *buf + 8);
        for (int64_t i = 0; i < M * N; i++) buf[i] = NAN;
        tfr_tensor *base = tfr_test_tensor(TFR_F64, 1, (int64_t[]){M * N}, buf);
        tfr_tensor *o = NULL;
        int64_t st[2] = {layout ? 1 : N, layout ? M : 1};
        TFR_ASSERT_OK(tfr_tensor_view(base, 2, (int64_t[]){M, N}, st, 0, &o));
        double alpha = az ? 0.0 : 2.0, beta = 0.0;
        TFR_ASSERT_OK(tfr_dot_general_accumulate(s, a, b, &mm, &alpha, &beta, o));
        size_t nb = (size_t)(M * N) * sizeof(double);
        double *got = malloc(nb + 8), *want = malloc(nb + 8);
        TFR_ASSERT_OK(tfr_tensor_read(o, got, (size_t)(M * N) * sizeof *got));
        TFR_ASSERT_OK(tfr_tensor_read(ref, want, (size_t)(M * N) * sizeof *want));
        for (int64_t i = 0; i < M * N; i++) assert_true(got[i] == alpha * want[i]);
        free(got);
        free(want);
        free(buf);
        tfr_tensor_release(o);
        tfr_tensor_release(base);
      }
    }
    tfr_tensor_release(ref);
    tfr_tensor_release(a);
    tfr_tensor_release(b);
  }
}

// NaN in an operand propagates, and the conj flags are ignored for reals.
static void test_nan_operand_and_real_conj(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  for (int big = 0; big < 2; big++) {
    int64_t n = big ? 40 : 3;
    tfr_tensor *a = tfr_mat(n, n, tfr_g1), *b = tfr_mat(n, n, tfr_g2);
    double *p;
    TFR_ASSERT_OK(tfr_tensor_host_data(a, (void **)&p));
    p[1] = NAN;  // row 0 only
    tfr_dot_config mm = tfr_mm_config(), cj = mm;
    cj.lhs_conj = cj.rhs_conj = true;
    tfr_tensor *x = NULL, *y = NULL;
    TFR_ASSERT_OK(tfr_dot_general(s, a, b, &mm, &x));
    TFR_ASSERT_OK(tfr_dot_general(s, a, b, &cj, &y));
    double *v;
    TFR_ASSERT_OK(tfr_tensor_host_data(x, (void **)&v));
    for (int64_t j = 0; j < n; j++) assert_true(isnan(v[j]));
    for (int64_t j = n; j < n * n; j++) assert_false(isnan(v[j]));
    assert_true(tfr_bitwise_equal(x, y));
    tfr_tensor_release(a);
    tfr_tensor_release(b);
    tfr_tensor_release(x);
    tfr_tensor_release(y);
  }
}

// Empty operands may have huge other extents: no overflow anywhere (UBSan
// checks), empty or zero results.
static void test_empty_huge_extents(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  const int64_t h = INT64_C(1) << 40;
  tfr_tensor *a = NULL, *b = NULL, *c = NULL, *out = NULL;
  // Views with explicit strides (compact strides of such shapes overflow in
  // the tensor module itself); the zero extent between the huge ones keeps
  // the tensor module's element count small.
  tfr_tensor *base = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F64, 1, (int64_t[]){1}, &base));
  TFR_ASSERT_OK(tfr_tensor_view(base, 3, (int64_t[]){h, 0, h}, (int64_t[]){h, h, 1}, 0, &a));
  TFR_ASSERT_OK(tfr_tensor_view(base, 3, (int64_t[]){h, 0, h}, (int64_t[]){h, h, 1}, 0, &b));
  TFR_ASSERT_OK(tfr_tensor_view(base, 3, (int64_t[]){2, 0, h}, (int64_t[]){1, 1, 1}, 0, &c));
  tfr_dot_config cfg = {.num_contracting_dims = 2, .lhs_contracting_dimensions = (int64_t[]){0, 2},
                        .rhs_contracting_dimensions = (int64_t[]){0, 2}};
  TFR_ASSERT_OK(tfr_dot_general(s, a, b, &cfg, &out));
  assert_int_equal(tfr_tensor_rank(out), 2);
  assert_int_equal(tfr_tensor_numel(out), 0);
  tfr_tensor_release(out);
  tfr_dot_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, a, b, &cfg, &plan));
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, b, &out));
  assert_int_equal(tfr_tensor_numel(out), 0);
  tfr_tensor_release(out);
  tfr_dot_plan_release(plan);
  // A plan with compact strides of such shapes (computed saturating).
  tfr_dot_config c01 = {.num_contracting_dims = 2, .lhs_contracting_dimensions = (int64_t[]){0, 1},
                        .rhs_contracting_dimensions = (int64_t[]){0, 1}};
  TFR_ASSERT_OK(tfr_dot_plan_create(s, TFR_F64, 3, (int64_t[]){h, h, 0}, NULL, 3,
                                    (int64_t[]){h, h, 0}, NULL, &c01, &plan));
  assert_int_equal(tfr_dot_plan_result_rank(plan), 2);
  assert_int_equal(tfr_dot_plan_result_shape(plan)[0], 0);
  tfr_dot_plan_release(plan);
  // K = 0 with a huge contracting partner: zeros of shape [2, 3].
  tfr_tensor *d = NULL;
  TFR_ASSERT_OK(tfr_tensor_view(base, 3, (int64_t[]){h, 0, 3}, (int64_t[]){1, 1, 1}, 0, &d));
  tfr_dot_config k0 = {.num_contracting_dims = 2, .lhs_contracting_dimensions = (int64_t[]){2, 1},
                       .rhs_contracting_dimensions = (int64_t[]){0, 1}};
  TFR_ASSERT_OK(tfr_dot_general(s, c, d, &k0, &out));
  double v[6];
  TFR_ASSERT_OK(tfr_tensor_read(out, v, sizeof v));
  for (int i = 0; i < 6; i++) assert_true(v[i] == 0.0);
  tfr_tensor_release(out);
  tfr_tensor *list[] = {a, b, c, d, base};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
}

// ---------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------

static void test_plan_basics(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_dot_config mm = tfr_mm_config();
  tfr_tensor *a = tfr_mat(50, 40, tfr_g1), *b = tfr_mat(40, 30, tfr_g2);
  tfr_tensor *ref = NULL;
  TFR_ASSERT_OK(tfr_dot_general(s, a, b, &mm, &ref));

  // Compact operands are read in place; a step-2 view needs packing.
  tfr_dot_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){50, 40}, NULL, 2,
                                    (int64_t[]){40, 30}, NULL, &mm, &plan));
  assert_int_equal(tfr_dot_plan_dtype(plan), TFR_F64);
  assert_int_equal(tfr_dot_plan_result_rank(plan), 2);
  assert_int_equal(tfr_dot_plan_result_shape(plan)[0], 50);
  assert_int_equal(tfr_dot_plan_result_shape(plan)[1], 30);
  assert_true(tfr_dot_plan_reads_in_place(plan, TFR_DOT_LHS));
  assert_true(tfr_dot_plan_reads_in_place(plan, TFR_DOT_RHS));
  assert_false(tfr_dot_plan_reads_in_place(plan, (tfr_dot_operand)7));
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, b, &out));
  assert_true(tfr_bitwise_equal(out, ref));
  tfr_tensor_release(out);
  // Other strides than planned: still correct.
  tfr_tensor *bt_base = NULL, *bt = NULL;
  TFR_ASSERT_OK(tfr_transpose(s, b, (int64_t[]){1, 0}, &bt_base));
  TFR_ASSERT_OK(tfr_tensor_view_transpose(bt_base, (int64_t[]){1, 0}, &bt));
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, bt, &out));
  assert_true(tfr_bitwise_equal(out, ref));  // integers in f64: exact
  tfr_tensor_release(out);
  tfr_dot_plan_release(plan);

  tfr_tensor *wide = tfr_mat(50, 80, tfr_g1), *as2 = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_slice(wide, (int64_t[]){0, 0}, (int64_t[]){50, 80},
                                      (int64_t[]){1, 2}, &as2));
  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, as2, bt, &mm, &plan));
  assert_false(tfr_dot_plan_reads_in_place(plan, TFR_DOT_LHS));
  assert_true(tfr_dot_plan_reads_in_place(plan, TFR_DOT_RHS));
  tfr_tensor *ref2 = NULL, *o1 = NULL;
  TFR_ASSERT_OK(tfr_dot_general(s, as2, bt, &mm, &ref2));
  TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_LHS, as2));
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, as2, bt, &o1));
  assert_true(tfr_bitwise_equal(o1, ref2));
  tfr_tensor_release(o1);
  tfr_dot_plan *tiny = NULL;  // tiny problems: the strided loop reads any layout
  TFR_ASSERT_OK(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){3, 4}, (int64_t[]){-8, 2}, 2,
                                    (int64_t[]){4, 5}, (int64_t[]){0, 3}, &mm, &tiny));
  assert_true(tfr_dot_plan_reads_in_place(tiny, TFR_DOT_LHS));
  assert_true(tfr_dot_plan_reads_in_place(tiny, TFR_DOT_RHS));
  tfr_dot_plan_release(tiny);
  // NULL-tolerant cleanups.
  tfr_dot_plan_unpack(NULL, TFR_DOT_LHS);
  tfr_dot_plan_unpack(plan, (tfr_dot_operand)5);
  tfr_dot_plan_unpack(plan, TFR_DOT_RHS);  // nothing packed there
  tfr_dot_plan_release(NULL);
  tfr_dot_plan_release(plan);

  tfr_tensor *list[] = {a, b, ref, bt_base, bt, wide, as2, ref2};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
}

// The snapshot rule: a packed operand is read from its copy while the same
// tensor object is passed, until it is packed again or unpacked.
static void test_plan_pack_invalidation(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_dot_config mm = tfr_mm_config();
  for (int big = 0; big < 2; big++) {
    int64_t n = big ? 40 : 3;
    tfr_tensor *a = tfr_mat(n, n, tfr_g1), *w = tfr_mat(n, n, tfr_g2);
    tfr_tensor *w2 = tfr_mat(n, n, tfr_g1);  // other values
    tfr_tensor *old_ref = NULL, *new_ref = NULL;
    TFR_ASSERT_OK(tfr_dot_general(s, a, w, &mm, &old_ref));
    TFR_ASSERT_OK(tfr_dot_general(s, a, w2, &mm, &new_ref));
    tfr_dot_plan *plan = NULL;
    TFR_ASSERT_OK(tfr_dot_plan_create_like(s, a, w, &mm, &plan));
    TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, w));
    // Overwrite w through an _into op: the plan still reads the snapshot.
    TFR_ASSERT_OK(tfr_copy_into(s, w2, w));
    tfr_tensor *o = NULL;
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w, &o));
    assert_true(tfr_bitwise_equal(o, old_ref));
    tfr_tensor_release(o);
    // Another tensor object with w's new values is read directly.
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w2, &o));
    assert_true(tfr_bitwise_equal(o, new_ref));
    tfr_tensor_release(o);
    // Re-packing takes a new snapshot.
    TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, w));
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w, &o));
    assert_true(tfr_bitwise_equal(o, new_ref));
    tfr_tensor_release(o);
    // Back to the old values, still packed with the new ones; unpacking
    // reads the tensor again.
    tfr_tensor *g2 = tfr_mat(n, n, tfr_g2);
    TFR_ASSERT_OK(tfr_copy_into(s, g2, w));
    tfr_tensor_release(g2);
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w, &o));
    assert_true(tfr_bitwise_equal(o, new_ref));
    tfr_tensor_release(o);
    tfr_dot_plan_unpack(plan, TFR_DOT_RHS);
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w, &o));
    assert_true(tfr_bitwise_equal(o, old_ref));
    tfr_tensor_release(o);
    // The plan keeps the packed tensor alive after the caller lets go.
    tfr_tensor *tmp = tfr_mat(n, n, tfr_g2);
    TFR_ASSERT_OK(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, tmp));
    tfr_tensor_release(tmp);
    TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, w, &o));  // w is not tmp: read directly
    assert_true(tfr_bitwise_equal(o, old_ref));
    tfr_tensor_release(o);
    tfr_dot_plan_release(plan);
    tfr_tensor *list[] = {a, w, w2, old_ref, new_ref};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
  }
}

static void test_plan_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_dot_config mm = tfr_mm_config();
  tfr_tensor *a = tfr_mat(3, 4, tfr_g1), *b = tfr_mat(4, 5, tfr_g2);
  tfr_tensor *a5 = tfr_mat(3, 5, tfr_g1);
  tfr_tensor *af = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){3, 4}, 3);
  tfr_dot_plan *plan = (tfr_dot_plan *)&plan;
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){3, 4}, NULL, 2,
                                       (int64_t[]){5, 5}, NULL, &mm, &plan),
                   TFR_ERR_INVALID_ARGUMENT,
                   "dot_plan_create: lhs contracting dim 1 has extent 4, rhs contracting dim 0 "
                   "has extent 5");
  assert_null(plan);
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_BOOL, 2, (int64_t[]){3, 4}, NULL, 2,
                                       (int64_t[]){4, 5}, NULL, &mm, &plan),
                   TFR_ERR_UNSUPPORTED_DTYPE, "dtype bool");
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){3, -4}, NULL, 2,
                                       (int64_t[]){4, 5}, NULL, &mm, &plan),
                   TFR_ERR_INVALID_ARGUMENT, "lhs extent 1 is -4");
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_F64, 2, NULL, NULL, 2, (int64_t[]){4, 5}, NULL,
                                       &mm, &plan),
                   TFR_ERR_INVALID_ARGUMENT, "lhs shape is NULL");
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){3, 4}, NULL, 65,
                                       (int64_t[]){4, 5}, NULL, &mm, &plan),
                   TFR_ERR_INVALID_ARGUMENT, "rhs rank 65 is out of range");
  TFR_ASSERT_ERROR(tfr_dot_plan_create(s, TFR_F64, 2, (int64_t[]){3, 4}, NULL, 2,
                                       (int64_t[]){4, 5}, NULL, NULL, &plan),
                   TFR_ERR_INVALID_ARGUMENT, "config is NULL");
  TFR_ASSERT_ERROR(tfr_dot_plan_create_like(s, a, af, &mm, &plan), TFR_ERR_INVALID_ARGUMENT,
                   "lhs has dtype f64, rhs has dtype f32");
  TFR_ASSERT_ERROR(tfr_dot_plan_create_like(s, a, b, &mm, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "out is NULL");

  TFR_ASSERT_OK(tfr_dot_plan_create_like(s, a, b, &mm, &plan));
  tfr_tensor *out = (tfr_tensor *)&out;
  // Differently shaped operands.
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, a5, b, &out), TFR_ERR_INVALID_ARGUMENT,
                   "dot_plan_execute: lhs has shape [3, 5], the plan was made for [3, 4]");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, a, a, &out), TFR_ERR_INVALID_ARGUMENT,
                   "rhs has shape [3, 4], the plan was made for [4, 5]");
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, af, b, &out), TFR_ERR_INVALID_ARGUMENT,
                   "lhs has dtype f32, the plan was made for f64");
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, NULL, a, b, &out), TFR_ERR_INVALID_ARGUMENT,
                   "plan is NULL");
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, a, b, NULL), TFR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, NULL, b, &out), TFR_ERR_INVALID_ARGUMENT,
                   "lhs is NULL");
  TFR_ASSERT_ERROR(tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, a), TFR_ERR_INVALID_ARGUMENT,
                   "dot_plan_pack: rhs has shape [3, 4], the plan was made for [4, 5]");
  TFR_ASSERT_ERROR(tfr_dot_plan_pack(s, plan, (tfr_dot_operand)2, a), TFR_ERR_INVALID_ARGUMENT,
                   "invalid operand value 2");
  double one = 1, zero = 0;
  tfr_tensor *o = tfr_mat(3, 4, tfr_g1);
  TFR_ASSERT_ERROR(tfr_dot_plan_execute_accumulate(s, plan, a, b, &one, &zero, o),
                   TFR_ERR_INVALID_ARGUMENT,
                   "dot_plan_execute_accumulate: out has shape [3, 4], the result has shape "
                   "[3, 5]");
  TFR_ASSERT_ERROR(tfr_dot_plan_execute_accumulate(s, plan, a, b, NULL, &zero, o),
                   TFR_ERR_INVALID_ARGUMENT, "alpha is NULL");

  // A plan belongs to its backend: using it in another backend's session fails.
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend *other = NULL;
  tfr_session *s2 = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(NULL, &other));
  TFR_ASSERT_OK(tfr_session_begin(other, &s2));
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s2, plan, a, b, &out), TFR_ERR_WRONG_BACKEND,
                   "dot_plan_execute", "another backend instance");
  TFR_ASSERT_ERROR(tfr_dot_plan_pack(s2, plan, TFR_DOT_LHS, a), TFR_ERR_WRONG_BACKEND,
                   "dot_plan_pack");
  TFR_ASSERT_OK(tfr_session_end(s2));
  // The ended session, with none active on the thread (while s2 was, the
  // allocator may have given s2 the ended session's address).
  TFR_ASSERT_ERROR(tfr_dot_plan_execute(s, plan, a, b, &out), TFR_ERR_NO_SESSION,
                   "dot_plan_execute");
  tfr_backend_release(other);
  TFR_ASSERT_OK(tfr_session_begin(env->backend, &env->session));
  s = env->session;
  TFR_ASSERT_OK(tfr_dot_plan_execute(s, plan, a, b, &out));
  tfr_tensor_release(out);
  tfr_dot_plan_release(plan);
  tfr_tensor *list[] = {a, b, a5, af, o};
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
}

// Every allocation failure on the packing, temporary and plan paths is
// reported as TFR_ERR_OUT_OF_MEMORY and leaks nothing (ASan checks leaks).
static void test_allocation_failures(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_dot_config mm = tfr_mm_config();
  // Strided operands (packing) and a strided out (temporary); small and BLAS sizes.
  for (int big = 0; big < 2; big++) {
    int64_t n = big ? 30 : 4;
    tfr_tensor *wide = tfr_mat(n, 2 * n, tfr_g1), *a = NULL;
    TFR_ASSERT_OK(tfr_tensor_view_slice(wide, (int64_t[]){0, 0}, (int64_t[]){n, 2 * n},
                                        (int64_t[]){1, 2}, &a));
    tfr_tensor *b = tfr_mat(n, n, tfr_g2);
    tfr_tensor *obase = tfr_mat(n, 2 * n, tfr_g2), *o = NULL;
    TFR_ASSERT_OK(tfr_tensor_view_slice(obase, (int64_t[]){0, 0}, (int64_t[]){n, 2 * n},
                                        (int64_t[]){1, 2}, &o));
    double alpha = 2, beta = 0.5;
    for (int op = 0; op < 4; op++) {
      bool done = false;
      for (long k = 0; k < 200 && !done; k++) {
        tfr_tensor *out = NULL;
        tfr_dot_plan *plan = NULL;
        tfr_alloc_fail_after(k);
        tfr_status r;
        switch (op) {
          case 0: r = tfr_dot_general(s, a, b, &mm, &out); break;
          case 1: r = tfr_dot_general_accumulate(s, a, b, &mm, &alpha, &beta, o); break;
          case 2:
            r = tfr_dot_plan_create_like(s, a, b, &mm, &plan);
            if (!r) r = tfr_dot_plan_pack(s, plan, TFR_DOT_LHS, a);
            if (!r) r = tfr_dot_plan_execute(s, plan, a, b, &out);
            break;
          default:
            r = tfr_dot_plan_create_like(s, a, b, &mm, &plan);
            if (!r) r = tfr_dot_plan_execute_accumulate(s, plan, a, b, &alpha, &beta, o);
            break;
        }
        tfr_alloc_fail_after(-1);
        tfr_dot_plan_release(plan);
        if (r == TFR_OK) {
          done = true;
        } else {
          assert_int_equal(r, TFR_ERR_OUT_OF_MEMORY);
          assert_null(out);
        }
        tfr_tensor_release(out);
      }
      assert_true(done);
    }
    tfr_tensor *list[] = {wide, a, b, obase, o};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
  }
}

// GEMMs big enough to be split over threads (blocks of result columns, or
// rows, src/cpu/dot.c) on 1 to 4 threads, against a long double reference:
// batches smaller than the team, transposed operands, matrix-vector shapes
// split along their long side, conjugation.
typedef struct tfr_split_case {
  int64_t b, m, n, k;
  bool lhs_km, rhs_nk;  // lhs stored [b, K, M] / rhs stored [b, N, K]
} tfr_split_case;

// Element (bi, i, j) of an operand stored [b, r, c] as long double re/im.
static void tfr_split_get(const unsigned char *v, tfr_dtype dt, int64_t idx, long double *re,
                          long double *im) {
  *im = 0;
  switch (dt) {
    case TFR_F32: *re = ((const float *)v)[idx]; break;
    case TFR_F64: *re = ((const double *)v)[idx]; break;
    case TFR_C64: *re = ((const float *)v)[2 * idx], *im = ((const float *)v)[2 * idx + 1]; break;
    default: *re = ((const double *)v)[2 * idx], *im = ((const double *)v)[2 * idx + 1]; break;
  }
}

// Element idx of a compact buffer of dtype dt (f32, f64, c64, c128) set from
// long double re/im, rounded once (the imaginary part dropped for reals).
static void tfr_split_put(void *v, tfr_dtype dt, int64_t idx, long double re, long double im) {
  switch (dt) {
    case TFR_F32: ((float *)v)[idx] = (float)re; break;
    case TFR_F64: ((double *)v)[idx] = (double)re; break;
    case TFR_C64: ((float *)v)[2 * idx] = (float)re, ((float *)v)[2 * idx + 1] = (float)im; break;
    default: ((double *)v)[2 * idx] = (double)re, ((double *)v)[2 * idx + 1] = (double)im; break;
  }
}

static void test_split_gemm_threads(void **state) {
  (void)state;
  const tfr_split_case cases[] = {
      {1, 300, 257, 40, false, false}, {2, 300, 257, 40, true, false}, {3, 190, 70, 64, false, true},
      {1, 1, 5000, 400, false, false}, {1, 5000, 1, 400, true, true},  {1, 70, 3000, 33, true, true},
  };
  const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  uint64_t seed = 100;
  for (int threads = 1; threads <= 4; threads++) {
    tfr_backend *be = NULL;
    TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = threads}, &be));
    tfr_session *s = tfr_test_begin(be);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      const tfr_split_case *c = &cases[ci];
      for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        tfr_dtype dt = dts[di];
        bool cplx = dt == TFR_C64 || dt == TFR_C128, conj = cplx && (ci & 1);
        int64_t ls[3] = {c->b, c->lhs_km ? c->k : c->m, c->lhs_km ? c->m : c->k};
        int64_t rs[3] = {c->b, c->rhs_nk ? c->n : c->k, c->rhs_nk ? c->k : c->n};
        tfr_tensor *l = tfr_test_random_tensor(dt, 3, ls, seed++);
        tfr_tensor *r = tfr_test_random_tensor(dt, 3, rs, seed++);
        int64_t lb = 0, rb = 0, lc = c->lhs_km ? 1 : 2, rc = c->rhs_nk ? 2 : 1;
        tfr_dot_config cfg = {1, &lb, &rb, 1, &lc, &rc, conj, false};
        tfr_tensor *got = NULL;
        TFR_ASSERT_OK(tfr_dot_general(s, l, r, &cfg, &got));
        size_t es = tfr_dtype_size(dt);
        const unsigned char *lv, *rv;
        TFR_ASSERT_OK(tfr_tensor_host_data(l, (void **)&lv));
        TFR_ASSERT_OK(tfr_tensor_host_data(r, (void **)&rv));
        int64_t on = c->b * c->m * c->n;
        unsigned char *want = malloc((size_t)on * es);
        assert_non_null(want);
        for (int64_t bi = 0; bi < c->b; bi++)
          for (int64_t i = 0; i < c->m; i++)
            for (int64_t j = 0; j < c->n; j++) {
              long double sr = 0, si = 0;
              for (int64_t q = 0; q < c->k; q++) {
                long double ar, ai, br, bim;
                tfr_split_get(lv, dt, bi * c->m * c->k + (c->lhs_km ? q * c->m + i : i * c->k + q),
                              &ar, &ai);
                tfr_split_get(rv, dt, bi * c->n * c->k + (c->rhs_nk ? j * c->k + q : q * c->n + j),
                              &br, &bim);
                if (conj) ai = -ai;
                sr += ar * br - ai * bim;
                si += ar * bim + ai * br;
              }
              int64_t o = (bi * c->m + i) * c->n + j;
              tfr_split_put(want, dt, o, sr, si);
            }
        tfr_tensor *w = tfr_test_tensor(dt, 3, (int64_t[]){c->b, c->m, c->n}, want);
        char what[96];
        snprintf(what, sizeof what, "split gemm case %zu %s on %d thread(s)", ci, tfr_dtype_name(dt),
                 threads);
        tfr_test_expect_close(got, w, what);
        free(want);
        tfr_tensor *list[] = {l, r, got, w};
        for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
      }
    }
    tfr_test_end(s);
    tfr_backend_release(be);
  }
}

// Batched small products (src/cpu/small_gemm.c: up to 64 per side and a
// dtype's limit of multiply-adds per batch element; larger ones here go
// through BLAS) on 1 and 3 threads against a long double
// reference read through each operand's strides: compact operands, batch
// axes in the middle and innermost, negative strides, a stepped slice, the
// accumulating form into a column-major view, conjugation of either side,
// gemv-like shapes.

// Element idx[0..rank) of a host tensor or view as long double re/im.
static void tfr_view_get(const tfr_tensor *t, const int64_t *idx, long double *re,
                         long double *im) {
  void *p = NULL;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, &p));
  const int64_t *st = tfr_tensor_strides(t);
  int64_t off = 0;
  for (int k = 0; k < tfr_tensor_rank(t); k++) off += idx[k] * st[k];
  tfr_split_get(p, tfr_tensor_dtype(t), off, re, im);
}

// A random [d0, d1, d2] view of layout `v`: 0 compact, 1 stored with axes
// (2, 0, 1) (the first axis in the middle), 2 axes 1 and 2 reversed,
// 3 every other element of a stored [d0, d1, 2 * d2] along the last axis,
// 4 stored [d2, d1, d0] (the first axis innermost).
static tfr_tensor *tfr_small_operand(tfr_dtype dt, const int64_t *d, int v, uint64_t seed) {
  tfr_tensor *base = NULL, *view = NULL;
  switch (v) {
    case 1: {
      base = tfr_test_random_tensor(dt, 3, (int64_t[]){d[2], d[0], d[1]}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_transpose(base, (int64_t[]){1, 2, 0}, &view));
      break;
    }
    case 2: {
      base = tfr_test_random_tensor(dt, 3, d, seed);
      TFR_ASSERT_OK(tfr_tensor_view_reverse(base, 2, (int64_t[]){1, 2}, &view));
      break;
    }
    case 3: {
      base = tfr_test_random_tensor(dt, 3, (int64_t[]){d[0], d[1], 2 * d[2]}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_slice(base, (int64_t[]){0, 0, 1},
                                          (int64_t[]){d[0], d[1], 2 * d[2]},
                                          (int64_t[]){1, 1, 2}, &view));
      break;
    }
    case 4: {
      base = tfr_test_random_tensor(dt, 3, (int64_t[]){d[2], d[1], d[0]}, seed);
      TFR_ASSERT_OK(tfr_tensor_view_transpose(base, (int64_t[]){2, 1, 0}, &view));
      break;
    }
    default: return tfr_test_random_tensor(dt, 3, d, seed);
  }
  tfr_tensor_release(base);
  return view;
}

// The reference of a batched product of rank-3 views l [b, m, k] and
// r [b, k, n] (conjugated as asked) as a compact [b, m, n] tensor of l's
// dtype; with `old` (a view of the result's shape) alpha * product + beta *
// old, else the plain product.
static tfr_tensor *tfr_small_reference(const tfr_tensor *l, const tfr_tensor *r, bool conj,
                                       bool rconj, const tfr_tensor *old, const long double *al,
                                       const long double *bt) {
  tfr_dtype dt = tfr_tensor_dtype(l);
  int64_t b = tfr_tensor_shape(l)[0], m = tfr_tensor_shape(l)[1], k = tfr_tensor_shape(l)[2];
  int64_t n = tfr_tensor_shape(r)[2];
  unsigned char *want = malloc((size_t)(b * m * n) * tfr_dtype_size(dt));
  assert_non_null(want);
  for (int64_t bi = 0; bi < b; bi++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        long double sr = 0, si = 0;
        for (int64_t q = 0; q < k; q++) {
          long double ar, ai, br, bim;
          tfr_view_get(l, (int64_t[]){bi, i, q}, &ar, &ai);
          tfr_view_get(r, (int64_t[]){bi, q, j}, &br, &bim);
          if (conj) ai = -ai;
          if (rconj) bim = -bim;
          sr += ar * br - ai * bim;
          si += ar * bim + ai * br;
        }
        if (old) {
          long double cr, cim;
          tfr_view_get(old, (int64_t[]){bi, i, j}, &cr, &cim);
          long double tr = al[0] * sr - al[1] * si + bt[0] * cr - bt[1] * cim;
          long double ti = al[0] * si + al[1] * sr + bt[0] * cim + bt[1] * cr;
          sr = tr;
          si = ti;
        }
        int64_t o = (bi * m + i) * n + j;
        tfr_split_put(want, dt, o, sr, si);
      }
  tfr_tensor *w = tfr_test_tensor(dt, 3, (int64_t[]){b, m, n}, want);
  free(want);
  return w;
}

// One value of dtype dt (re, im) into bytes[16].
static void tfr_loop_scalar(tfr_dtype dt, long double re, long double im, unsigned char *b) {
  memset(b, 0, 16);
  tfr_split_put(b, dt, 0, re, im);
}

static void test_small_gemm(void **state) {
  (void)state;
  const int64_t cases[][4] = {  // b, m, n, k
      {257, 9, 9, 9}, {5, 64, 8, 64}, {40, 3, 50, 7}, {33, 17, 33, 5},
      {1, 20, 20, 20}, {100, 1, 9, 27}, {64, 12, 1, 40}, {7, 64, 64, 8},
      // <= 9^3, within every dtype's limit: panel widths 32, 24, 16, 12, 4
      {30, 5, 30, 4}, {40, 3, 20, 12}, {20, 7, 13, 8}, {9, 11, 11, 6}, {25, 15, 3, 16},
      // over 2^21 multiply-adds: split over all 3 threads
      {3000, 9, 9, 9},
  };
  const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  uint64_t seed = 900;
  for (int threads = 1; threads <= 3; threads += 2) {
    tfr_backend *be = NULL;
    TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = threads}, &be));
    tfr_session *s = tfr_test_begin(be);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      int64_t b = cases[ci][0], m = cases[ci][1], n = cases[ci][2], k = cases[ci][3];
      for (int v = 0; v < 5; v++) {
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
          tfr_dtype dt = dts[di];
          bool cplx = dt == TFR_C64 || dt == TFR_C128, conj = cplx && ((ci + (size_t)v) & 1);
          bool rconj = cplx && (ci + (size_t)v) % 3 == 0;
          bool acc = v >= 3;  // the accumulating form into a column-major out
          // lhs [b, m, k], rhs [b, k, n] in layout v (rhs in layout 4 - v).
          tfr_tensor *l = tfr_small_operand(dt, (int64_t[]){b, m, k}, v, seed++);
          tfr_tensor *r = tfr_small_operand(dt, (int64_t[]){b, k, n}, 4 - v, seed++);
          int64_t lb = 0, rb = 0, lc = 2, rc = 1;
          tfr_dot_config cfg = {1, &lb, &rb, 1, &lc, &rc, conj, rconj};
          long double al[2] = {1, 0}, bt[2] = {0, 0};
          tfr_tensor *got = NULL, *obase = NULL;
          if (acc) {
            al[0] = 0.5L, al[1] = cplx ? 0.25L : 0;
            bt[0] = -2, bt[1] = cplx ? 0.5L : 0;
            obase = tfr_test_random_tensor(dt, 3, (int64_t[]){n, m, b}, seed++);
            TFR_ASSERT_OK(tfr_tensor_view_transpose(obase, (int64_t[]){2, 1, 0}, &got));
          }
          // The reference, before out is overwritten.
          tfr_tensor *w = tfr_small_reference(l, r, conj, rconj, acc ? got : NULL, al, bt);
          if (acc) {
            unsigned char a8[16], b8[16];
            tfr_loop_scalar(dt, al[0], al[1], a8);
            tfr_loop_scalar(dt, bt[0], bt[1], b8);
            TFR_ASSERT_OK(tfr_dot_general_accumulate(s, l, r, &cfg, a8, b8, got));
          } else {
            TFR_ASSERT_OK(tfr_dot_general(s, l, r, &cfg, &got));
          }
          char what[112];
          snprintf(what, sizeof what, "small gemm %lldx%lldx%lldx%lld layout %d %s on %d thread(s)",
                   (long long)b, (long long)m, (long long)n, (long long)k, v, tfr_dtype_name(dt),
                   threads);
          tfr_test_expect_close(got, w, what);
          tfr_tensor *list[] = {l, r, got, obase, w};
          for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
        }
      }
    }
    tfr_test_end(s);
    tfr_backend_release(be);
  }
}

// The small kernels read B's rows in place with whole vector panels: on
// operands in buffers of exactly their size (wrapped, not pooled, so that
// AddressSanitizer sees any read past the end), narrow B of every panel
// width (M x N x K over TFR_DOT_SMALL_MNK, within every dtype's limit)
// against the long double reference.
static void tfr_free_buffer(void *ctx, void *data) {
  (void)ctx;
  free(data);
}

static tfr_tensor *tfr_exact_copy(const tfr_tensor *t) {
  size_t nbytes = (size_t)tfr_tensor_numel(t) * tfr_dtype_size(tfr_tensor_dtype(t));
  void *buf = malloc(nbytes);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(t, buf, nbytes));
  tfr_tensor *w = NULL;
  TFR_ASSERT_OK(tfr_tensor_wrap_host(tfr_tensor_dtype(t), tfr_tensor_rank(t), tfr_tensor_shape(t),
                                     NULL, buf, nbytes, tfr_free_buffer, NULL, &w));
  return w;
}

static void test_small_gemm_exact_buffers(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  const int64_t cases[][4] = {  // b, m, n, k
      {3, 12, 1, 20}, {2, 9, 2, 9}, {4, 9, 3, 9}, {2, 7, 5, 5}, {3, 4, 9, 6},
      {2, 3, 13, 4}, {2, 2, 17, 4}, {2, 3, 33, 2}, {1, 2, 45, 3}, {2, 20, 7, 1},
  };
  const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  uint64_t seed = 4200;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    int64_t b = cases[ci][0], m = cases[ci][1], n = cases[ci][2], k = cases[ci][3];
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
      tfr_dtype dt = dts[di];
      tfr_tensor *l0 = tfr_test_random_tensor(dt, 3, (int64_t[]){b, m, k}, seed++);
      tfr_tensor *r0 = tfr_test_random_tensor(dt, 3, (int64_t[]){b, k, n}, seed++);
      tfr_tensor *l = tfr_exact_copy(l0), *r = tfr_exact_copy(r0);
      int64_t lb = 0, rb = 0, lc = 2, rc = 1;
      tfr_dot_config cfg = {1, &lb, &rb, 1, &lc, &rc, false, false};
      tfr_tensor *got = NULL;
      TFR_ASSERT_OK(tfr_dot_general(s, l, r, &cfg, &got));
      tfr_tensor *w = tfr_small_reference(l, r, false, false, NULL, NULL, NULL);
      char what[96];
      snprintf(what, sizeof what, "small gemm, exact buffers, %lldx%lldx%lldx%lld %s", (long long)b,
               (long long)m, (long long)n, (long long)k, tfr_dtype_name(dt));
      tfr_test_expect_close(got, w, what);
      tfr_tensor *list[] = {l0, r0, l, r, got, w};
      for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) tfr_tensor_release(list[i]);
    }
  }
}

// Looped products (validate.h, tfr_dot_loop_contracting): contracting axes
// that merge in no order, their innermost ones in both operands, summed as
// one small GEMM per index of the outer ones. Against a long double
// reference read through the views' strides, on 1 and 3 threads (batches
// large enough to split over 2), f32 and f64: batch axes outermost and in
// the middle, reversed axes, the looped axis innermost in one operand, two
// looped axes, an inner K of two merged axes. Each case runs in the plain
// form, and in the accumulating form into a preallocated out with every host
// allocation failing (a looped product reads and writes in place; a packed
// copy would fail): alpha 1, beta 0 into an out of NaNs (never read), or
// alpha 0.5, beta -2 into a transposed out. c64 and c128 (left to packing:
// validate.h) run the same cases in the plain form.

// A random view with logical shape `shape` stored in the axis order `store`
// (stored axis k is logical axis store[k]), then the logical axes with a bit
// set in `rev` reversed.
static tfr_tensor *tfr_loop_operand(tfr_dtype dt, int rank, const int64_t *shape,
                                    const int *store, unsigned rev, uint64_t seed) {
  int64_t sshape[TFR_MAX_RANK] = {0}, perm[TFR_MAX_RANK] = {0}, raxes[TFR_MAX_RANK];
  for (int k = 0; k < rank; k++) {
    sshape[k] = shape[store[k]];
    perm[store[k]] = k;
  }
  tfr_tensor *base = tfr_test_random_tensor(dt, rank, sshape, seed), *t = NULL, *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_transpose(base, perm, &t));
  int nr = 0;
  for (int k = 0; k < rank; k++)
    if (rev & (1u << k)) raxes[nr++] = k;
  if (nr) {
    TFR_ASSERT_OK(tfr_tensor_view_reverse(t, nr, raxes, &v));
    tfr_tensor_release(t);
    t = v;
  }
  tfr_tensor_release(base);
  return t;
}

// The reference of a contraction written with one letter per axis: lhs
// labels ll, rhs labels rl, result labels ol (a compact tensor of l's dtype);
// every label not in ol is summed. With `old`: alpha * sum + beta * old.
static tfr_tensor *tfr_label_reference(const char *ll, const tfr_tensor *l, const char *rl,
                                       const tfr_tensor *r, const char *ol, bool lconj,
                                       bool rconj, const tfr_tensor *old, const long double *al,
                                       const long double *bt) {
  tfr_dtype dt = tfr_tensor_dtype(l);
  char labels[16];
  int64_t ext[16];
  int nl = 0;
  const char *srcs[2] = {ll, rl};
  const tfr_tensor *ts[2] = {l, r};
  for (int i = 0; i < 2; i++)
    for (int k = 0; srcs[i][k]; k++)
      if (!memchr(labels, srcs[i][k], (size_t)nl)) {
        labels[nl] = srcs[i][k];
        ext[nl++] = tfr_tensor_shape(ts[i])[k];
      }
  int no = (int)strlen(ol);
  int64_t oshape[TFR_MAX_RANK], onum = 1, total = 1;
  for (int k = 0; k < no; k++) {
    oshape[k] = ext[(const char *)memchr(labels, ol[k], (size_t)nl) - labels];
    onum *= oshape[k];
  }
  for (int k = 0; k < nl; k++) total *= ext[k];
  long double *acc = calloc((size_t)(2 * onum), sizeof *acc);
  assert_non_null(acc);
  int64_t val[16] = {0};
  for (int64_t it = 0; it < total; it++) {
    int64_t rem = it;
    for (int k = nl - 1; k >= 0; k--) {
      val[k] = rem % ext[k];
      rem /= ext[k];
    }
    int64_t li[TFR_MAX_RANK], ri[TFR_MAX_RANK], o = 0;
    for (int k = 0; ll[k]; k++) li[k] = val[(const char *)memchr(labels, ll[k], (size_t)nl) - labels];
    for (int k = 0; rl[k]; k++) ri[k] = val[(const char *)memchr(labels, rl[k], (size_t)nl) - labels];
    for (int k = 0; k < no; k++)
      o = o * oshape[k] + val[(const char *)memchr(labels, ol[k], (size_t)nl) - labels];
    long double ar, ai, br, bim;
    tfr_view_get(l, li, &ar, &ai);
    tfr_view_get(r, ri, &br, &bim);
    if (lconj) ai = -ai;
    if (rconj) bim = -bim;
    acc[2 * o] += ar * br - ai * bim;
    acc[2 * o + 1] += ar * bim + ai * br;
  }
  unsigned char *want = malloc((size_t)onum * tfr_dtype_size(dt));
  assert_non_null(want);
  for (int64_t o = 0; o < onum; o++) {
    long double sr = acc[2 * o], si = acc[2 * o + 1];
    if (old) {
      int64_t idx[TFR_MAX_RANK], rem = o;
      for (int k = no - 1; k >= 0; k--) {
        idx[k] = rem % oshape[k];
        rem /= oshape[k];
      }
      long double cr, cim;
      tfr_view_get(old, idx, &cr, &cim);
      long double tr = al[0] * sr - al[1] * si + bt[0] * cr - bt[1] * cim;
      long double ti = al[0] * si + al[1] * sr + bt[0] * cim + bt[1] * cr;
      sr = tr;
      si = ti;
    }
    tfr_split_put(want, dt, o, sr, si);
  }
  tfr_tensor *w = tfr_test_tensor(dt, no, oshape, want);
  free(want);
  free(acc);
  return w;
}

typedef struct tfr_loop_case {
  const char *ll, *rl, *ol;   // labels: lhs, rhs, result (batch labels first)
  int64_t ext[8];             // extents of labels 'a' + i
  int lstore[5], rstore[5];   // storage orders
  unsigned lrev, rrev;        // reversed logical axes
  bool acc;                   // accumulating form into a transposed out
} tfr_loop_case;

static void test_looped_products(void **state) {
  (void)state;
  // labels: a batch (12), b looped (5), c lhs free (9), d rhs free (11),
  // e inner (13), f a second looped or inner axis (2)
  const tfr_loop_case cases[] = {
      {"abce", "abde", "acd", {12, 5, 9, 11, 13}, {0, 1, 2, 3}, {0, 1, 2, 3}, 0, 0, false},
      {"abce", "abde", "acd", {12, 5, 9, 11, 13}, {1, 0, 2, 3}, {0, 1, 2, 3}, 0, 0, false},
      {"abce", "abde", "acd", {12, 5, 9, 11, 13}, {0, 1, 2, 3}, {0, 1, 2, 3}, 0xc, 0x8, false},
      {"abce", "abde", "acd", {12, 5, 9, 11, 13}, {0, 1, 2, 3}, {0, 3, 2, 1}, 0, 0, false},
      {"abce", "abde", "acd", {12, 5, 9, 11, 13}, {0, 1, 2, 3}, {0, 1, 2, 3}, 0, 0, true},
      {"bcfe", "fdbe", "cd", {1, 5, 9, 11, 13, 2}, {0, 1, 2, 3}, {0, 1, 2, 3}, 0, 0, false},
      {"bcfe", "bdfe", "cd", {1, 5, 9, 11, 7, 2}, {0, 1, 2, 3}, {0, 1, 2, 3}, 0, 0, true},
  };
  const tfr_dtype dts[] = {TFR_F32, TFR_F64, TFR_C64, TFR_C128};
  uint64_t seed = 7100;
  for (int threads = 1; threads <= 3; threads += 2) {
    tfr_backend *be = NULL;
    TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = threads}, &be));
    tfr_session *s = tfr_test_begin(be);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      const tfr_loop_case *c = &cases[ci];
      int lr = (int)strlen(c->ll), rr = (int)strlen(c->rl), orr = (int)strlen(c->ol);
      int64_t ls[TFR_MAX_RANK], rs[TFR_MAX_RANK], os[TFR_MAX_RANK];
      for (int k = 0; k < lr; k++) ls[k] = c->ext[c->ll[k] - 'a'];
      for (int k = 0; k < rr; k++) rs[k] = c->ext[c->rl[k] - 'a'];
      for (int k = 0; k < orr; k++) os[k] = c->ext[c->ol[k] - 'a'];
      // The config: labels in both operands are batch when the result
      // keeps them, else contracting.
      int64_t lb[4], rb[4], lc[4], rc[4];
      int nb = 0, nc = 0;
      for (int k = 0; k < lr; k++) {
        const char *q = strchr(c->rl, c->ll[k]);
        if (!q) continue;
        if (strchr(c->ol, c->ll[k])) lb[nb] = k, rb[nb++] = q - c->rl;
        else lc[nc] = k, rc[nc++] = q - c->rl;
      }
      for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
        tfr_dtype dt = dts[di];
        bool cplx = dt == TFR_C64 || dt == TFR_C128;
        bool lconj = cplx && (ci & 1), rconj = cplx && (ci % 3 == 0);
        tfr_tensor *l = tfr_loop_operand(dt, lr, ls, c->lstore, c->lrev, seed++);
        tfr_tensor *r = tfr_loop_operand(dt, rr, rs, c->rstore, c->rrev, seed++);
        tfr_dot_config cfg = {nb, lb, rb, nc, lc, rc, lconj, rconj};
        char what[160];
        snprintf(what, sizeof what, "looped product %s,%s->%s case %zu %s on %d thread(s)",
                 c->ll, c->rl, c->ol, ci, tfr_dtype_name(dt), threads);
        // The plain form.
        tfr_tensor *got = NULL, *w = tfr_label_reference(c->ll, l, c->rl, r, c->ol, lconj, rconj,
                                                         NULL, NULL, NULL);
        TFR_ASSERT_OK(tfr_dot_general(s, l, r, &cfg, &got));
        tfr_test_expect_close(got, w, what);
        tfr_tensor_release(got);
        tfr_tensor_release(w);
        got = NULL;
        if (!cplx) {  // the accumulating form, in place
          long double al[2] = {1, 0}, bt[2] = {0, 0};
          tfr_tensor *obase = NULL;
          if (c->acc) {  // out stored with its axes reversed
            al[0] = 0.5L;
            bt[0] = -2;
            int64_t rev_shape[TFR_MAX_RANK], perm[TFR_MAX_RANK];
            for (int k = 0; k < orr; k++) {
              rev_shape[k] = os[orr - 1 - k];
              perm[k] = orr - 1 - k;
            }
            obase = tfr_test_random_tensor(dt, orr, rev_shape, seed++);
            TFR_ASSERT_OK(tfr_tensor_view_transpose(obase, perm, &got));
          } else {  // NaNs, which beta 0 never reads
            TFR_ASSERT_OK(tfr_tensor_zeros_host(dt, orr, os, &got));
            void *p = NULL;
            TFR_ASSERT_OK(tfr_tensor_host_data(got, &p));
            for (int64_t i = 0; i < tfr_tensor_numel(got); i++) {
              if (dt == TFR_F32) ((float *)p)[i] = NAN;
              else ((double *)p)[i] = NAN;
            }
          }
          w = tfr_label_reference(c->ll, l, c->rl, r, c->ol, false, false, c->acc ? got : NULL,
                                  al, bt);
          unsigned char a8[16], b8[16];
          tfr_loop_scalar(dt, al[0], al[1], a8);
          tfr_loop_scalar(dt, bt[0], bt[1], b8);
          tfr_alloc_fail_after(0);
          tfr_status st = tfr_dot_general_accumulate(s, l, r, &cfg, a8, b8, got);
          tfr_alloc_fail_after(-1);
          if (st) fail_msg("%s, accumulating: %s", what, tfr_last_error_message());
          tfr_test_expect_close(got, w, what);
          tfr_tensor_release(got);
          tfr_tensor_release(obase);
          tfr_tensor_release(w);
        }
        tfr_tensor_release(l);
        tfr_tensor_release(r);
      }
    }
    tfr_test_end(s);
    tfr_backend_release(be);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_cases),
      cmocka_unit_test(test_validation_errors),
      cmocka_unit_test(test_no_session),
      cmocka_unit_test(test_beta_zero_never_reads),
      cmocka_unit_test(test_nan_operand_and_real_conj),
      cmocka_unit_test(test_empty_huge_extents),
      cmocka_unit_test(test_plan_basics),
      cmocka_unit_test(test_plan_pack_invalidation),
      cmocka_unit_test(test_plan_errors),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_small_gemm_exact_buffers),
  };
  // Outside the group's session: these make backends of their own.
  const struct CMUnitTest own_backends[] = {
      cmocka_unit_test(test_split_gemm_threads),
      cmocka_unit_test(test_small_gemm),
      cmocka_unit_test(test_looped_products),
  };
  int failed = cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
  return failed + cmocka_run_group_tests(own_backends, NULL, NULL);
}
