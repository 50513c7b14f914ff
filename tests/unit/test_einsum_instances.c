// The einsum benchmark instances of examples/instances/ against numpy: each
// instance is contracted along its stored opt_flops path (TFR_EINSUM_PATH_GIVEN)
// with the operands tests/ref/gen_einsum_instances.py made, and must match
// numpy's pairwise contraction along the same path within 1e-10, relative to
// the largest |element| of numpy's result (a closed network gives one scalar:
// then it is the plain relative error). One cmocka test per case, named
// after it; each prints its error and time. Each instance is also planned
// by greedy, random-greedy, dp, treesa and greedy + subtree
// reconfiguration: valid trees (dp refuses components of more than 64
// operands), none but dp above greedy's flops. And greedy with a memory
// budget (tfr_einsum_options.max_slice_elements, a quarter of what the
// stored path needs beyond the operands and the output): the plan fits, its
// sliced flops are no more than greedy's tree sliced by slice_to_fit, and
// (up to 2e8 sliced flops) it gives the result.
//
// The plan's statistics are checked too, by a replay of the path written
// here (labels as Unicode code points, straight from the JSON):
//   * ours: flops = sum over steps of 2 * (product of the extents of every
//     label of the pair), the largest intermediate = the largest step result;
//   * the file's log10_flops (rounded to 4 decimals) follows two conventions:
//     for the 2-operand bin_* instances it is the plain product, one flop per
//     multiply-add (matmul 256: 256^3 = 10^7.2247; ours is twice that), and
//     for the network instances it is opt_einsum's flop_count: the product
//     times 2 when the step sums over some label, times 1 when it sums over
//     none (Hadamard and outer products; opt_einsum would give matmul 256
//     2 * 256^3, so the bin_* files do not use it). Ours is the file's number
//     plus log10(2) on every bin_* instance, equal to it on the networks but
//     gm_queen5_5_3.wcsp, where 146 of 159 steps sum over nothing (file
//     9.7454, ours 9.7732). The replay computes the file's number by these
//     rules and must agree to 1e-4; log2_size is the largest step result in
//     both conventions.
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

#define TFR_INST_MAX_OPERANDS 1024

// One case of cases.txt.
typedef struct tfr_inst_case {
  char id[128];
  char file[128];
  char dtype[8];
} tfr_inst_case;

static tfr_test_env *tfr_inst_env;

// The environment lives in a global: cmocka hands a group state to every
// test in place of its initial_state, and each test's state is its case.
static int tfr_inst_group_setup(void **state) {
  void *env = NULL;
  int rc = tfr_test_setup_cpu(&env);
  tfr_inst_env = env;
  *state = NULL;
  return rc;
}

static int tfr_inst_group_teardown(void **state) {
  (void)state;
  void *env = tfr_inst_env;
  tfr_inst_env = NULL;
  return tfr_test_teardown_cpu(&env);
}

static double tfr_inst_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *tfr_inst_read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)len + 1);
  if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[len] = '\0';
  fclose(f);
  return buf;
}

// Decodes the UTF-8 of one term (up to ',' / "->" / end) into code points;
// returns the count and advances *s. The instances are plain: no ellipsis,
// no white space, valid UTF-8 (asserted).
static int tfr_inst_term(const char **s, int32_t *cps, int cap) {
  const unsigned char *p = (const unsigned char *)*s;
  int n = 0;
  while (*p && *p != ',' && !(p[0] == '-' && p[1] == '>')) {
    int32_t cp;
    int len;
    if (p[0] < 0x80) { cp = p[0]; len = 1; }
    else if ((p[0] & 0xE0) == 0xC0) { cp = p[0] & 0x1F; len = 2; }
    else if ((p[0] & 0xF0) == 0xE0) { cp = p[0] & 0x0F; len = 3; }
    else { cp = p[0] & 0x07; len = 4; }
    for (int i = 1; i < len; i++) {
      assert_int_equal(p[i] & 0xC0, 0x80);
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    assert_true(cp != '.' && cp != ' ');
    assert_true(n < cap);
    cps[n++] = cp;
    p += len;
  }
  *s = (const char *)p;
  return n;
}

// A tensor of the replay: its labels (code points) and their extents.
typedef struct tfr_inst_node {
  int count;
  int32_t labels[64];
  int64_t extents[64];
} tfr_inst_node;

static bool tfr_inst_has(const tfr_inst_node *n, int32_t l) {
  for (int k = 0; k < n->count; k++)
    if (n->labels[k] == l) return true;
  return false;
}

// Replays `path` over the operands' labels: our flops (2 per multiply-add),
// the file's convention (see the top comment), the largest step result.
static void tfr_inst_replay(int n, tfr_inst_node *nodes, int nout, const int32_t *out,
                            const int32_t *path, double *ours, double *file_conv,
                            double *largest) {
  *ours = *file_conv = *largest = 0;
  for (int step = 0; step < n - 1; step++) {
    int pa = path[2 * step], pb = path[2 * step + 1];
    int len = n - step;
    assert_true(pa >= 0 && pb >= 0 && pa < len && pb < len && pa != pb);
    tfr_inst_node a = nodes[pa], b = nodes[pb], r = {0};
    double all = 1, size = 1;
    bool sums = false;
    tfr_inst_node u = a;  // a ∪ b
    for (int k = 0; k < b.count; k++)
      if (!tfr_inst_has(&u, b.labels[k])) {
        assert_true(u.count < 64);
        u.labels[u.count] = b.labels[k];
        u.extents[u.count++] = b.extents[k];
      }
    for (int k = 0; k < u.count; k++) {
      int32_t l = u.labels[k];
      bool needed = false;
      for (int j = 0; j < nout && !needed; j++) needed = out[j] == l;
      for (int q = 0; q < len && !needed; q++)
        if (q != pa && q != pb) needed = tfr_inst_has(&nodes[q], l);
      all *= (double)u.extents[k];
      if (needed) {
        r.labels[r.count] = l;
        r.extents[r.count++] = u.extents[k];
        size *= (double)u.extents[k];
      } else {
        sums = true;
      }
    }
    *ours += 2 * all;
    *file_conv += n == 2 ? all : (sums ? 2 : 1) * all;
    if (size > *largest) *largest = size;
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    memmove(&nodes[hi], &nodes[hi + 1], (size_t)(len - hi - 1) * sizeof *nodes);
    memmove(&nodes[lo], &nodes[lo + 1], (size_t)(len - lo - 2) * sizeof *nodes);
    nodes[len - 2] = r;
  }
}

// max |got - want| / max |want| (moduli for complex) and the largest
// elementwise relative error over elements with want != 0 (information only).
static void tfr_inst_errors(const tfr_tensor *got, const tfr_tensor *want, double *normwise,
                            double *elementwise) {
  int64_t n = tfr_tensor_numel(want);
  bool cplx = tfr_tensor_dtype(want) == TFR_C128;
  size_t bytes = (size_t)n * (cplx ? 16 : 8);
  double *g = malloc(bytes + 16), *w = malloc(bytes + 16);
  assert_non_null(g);
  assert_non_null(w);
  TFR_ASSERT_OK(tfr_tensor_read(got, g, bytes));
  TFR_ASSERT_OK(tfr_tensor_read(want, w, bytes));
  double maxw = 0, maxd = 0, maxrel = 0;
  for (int64_t i = 0; i < n; i++) {
    double wr = cplx ? w[2 * i] : w[i], wi = cplx ? w[2 * i + 1] : 0;
    double gr = cplx ? g[2 * i] : g[i], gi = cplx ? g[2 * i + 1] : 0;
    double aw = hypot(wr, wi), d = hypot(gr - wr, gi - wi);
    if (!(d <= maxd)) maxd = d;  // NaN propagates into maxd
    if (aw > maxw) maxw = aw;
    if (aw > 0 && d / aw > maxrel) maxrel = d / aw;
  }
  free(g);
  free(w);
  *normwise = maxw > 0 ? maxd / maxw : maxd;
  *elementwise = maxrel;
}

static void test_instance(void **state) {
  const tfr_inst_case *c = *state;
  tfr_test_env *env = tfr_inst_env;
  char path[1024];
  snprintf(path, sizeof path, "%s/../examples/instances/%s", TFR_TEST_SOURCE_DIR, c->file);
  char *text = tfr_inst_read_text(path);
  assert_non_null(text);
  cJSON *root = cJSON_Parse(text);
  free(text);
  assert_non_null(root);
  const cJSON *fs = cJSON_GetObjectItemCaseSensitive(root, "format_string");
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "shapes");
  const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths");
  const cJSON *of = cJSON_GetObjectItemCaseSensitive(paths, "opt_flops");
  const cJSON *plist = cJSON_GetObjectItemCaseSensitive(of, "path");
  const cJSON *jflops = cJSON_GetObjectItemCaseSensitive(of, "log10_flops");
  const cJSON *jsize = cJSON_GetObjectItemCaseSensitive(of, "log2_size");
  assert_true(cJSON_IsString(fs) && cJSON_IsArray(shapes) && cJSON_IsArray(plist));
  assert_true(cJSON_IsNumber(jflops) && cJSON_IsNumber(jsize));
  int n = cJSON_GetArraySize(shapes);
  assert_true(n >= 2 && n <= TFR_INST_MAX_OPERANDS);
  assert_int_equal(cJSON_GetArraySize(plist), n - 1);
  tfr_dtype dt = strcmp(c->dtype, "c128") == 0 ? TFR_C128 : TFR_F64;

  int *ranks = calloc((size_t)n, sizeof *ranks);
  int64_t **shp = calloc((size_t)n, sizeof *shp);
  int32_t *pairs = calloc(2 * (size_t)n, sizeof *pairs);
  tfr_tensor **ops = calloc((size_t)n, sizeof *ops);
  tfr_inst_node *nodes = calloc((size_t)n, sizeof *nodes);
  assert_true(ranks && shp && pairs && ops && nodes);
  const char *s = fs->valuestring;
  for (int i = 0; i < n; i++) {
    const cJSON *sh = cJSON_GetArrayItem(shapes, i);
    ranks[i] = cJSON_GetArraySize(sh);
    shp[i] = calloc((size_t)ranks[i] + 1, sizeof(int64_t));
    assert_non_null(shp[i]);
    for (int k = 0; k < ranks[i]; k++) shp[i][k] = (int64_t)cJSON_GetArrayItem(sh, k)->valuedouble;
    nodes[i].count = tfr_inst_term(&s, nodes[i].labels, 64);
    assert_int_equal(nodes[i].count, ranks[i]);
    for (int k = 0; k < ranks[i]; k++) nodes[i].extents[k] = shp[i][k];
    if (i < n - 1) assert_int_equal(*s++, ',');
    // Operand i as numpy made it: same shape as the instance says.
    snprintf(path, sizeof path, "%s/einsum_instances/%s/in_%03d.npy", TFR_TEST_DATA_DIR, c->id, i);
    TFR_ASSERT_OK(tfr_npy_load(path, &ops[i]));
    assert_int_equal(tfr_tensor_dtype(ops[i]), dt);
    assert_int_equal(tfr_tensor_rank(ops[i]), ranks[i]);
    for (int k = 0; k < ranks[i]; k++) assert_int_equal(tfr_tensor_shape(ops[i])[k], shp[i][k]);
  }
  assert_true(s[0] == '-' && s[1] == '>');
  s += 2;
  int32_t out_labels[64];
  int nout = tfr_inst_term(&s, out_labels, 64);
  assert_int_equal(*s, '\0');
  for (int step = 0; step < n - 1; step++) {
    const cJSON *pr = cJSON_GetArrayItem(plist, step);
    assert_int_equal(cJSON_GetArraySize(pr), 2);
    pairs[2 * step] = (int32_t)cJSON_GetArrayItem(pr, 0)->valuedouble;
    pairs[2 * step + 1] = (int32_t)cJSON_GetArrayItem(pr, 1)->valuedouble;
  }

  tfr_einsum_options opts = {.path_kind = TFR_EINSUM_PATH_GIVEN, .path = pairs, .path_len = n - 1};
  tfr_einsum_plan *plan = NULL;
  TFR_ASSERT_OK(tfr_einsum_plan_create(fs->valuestring, n, ranks, (const int64_t *const *)shp,
                                       &opts, &plan));
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  assert_int_equal(info->num_steps, n - 1);
  double ours, file_conv, largest;
  tfr_inst_replay(n, nodes, nout, out_labels, pairs, &ours, &file_conv, &largest);
  if (fabs(info->flops - ours) > 1e-12 * ours || (double)info->largest_intermediate != largest ||
      fabs(log10(file_conv) - jflops->valuedouble) > 1e-4 ||
      fabs(info->log2_largest - jsize->valuedouble) > 1e-4) {
    print_error("%s: plan flops %.17g (replay %.17g), largest %lld (replay %.0f); "
                "file log10_flops %.4f vs replay in its convention %.6f, file log2_size %.4f "
                "vs plan %.6f\n",
                c->id, info->flops, ours, (long long)info->largest_intermediate, largest,
                jflops->valuedouble, log10(file_conv), jsize->valuedouble, info->log2_largest);
    fail();
  }

  // The optimisers find valid trees here too (plan creation replays and
  // checks them); random-greedy, treesa and greedy refined by subtree
  // reconfiguration never need more flops than greedy (they start from its
  // tree); dp refuses components of more than 64 operands.
  double greedy_flops = 0;
  const tfr_einsum_options kinds[] = {
      {.path_kind = TFR_EINSUM_PATH_GREEDY},
      {.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .trials = 8, .seed = 1},
      {.path_kind = TFR_EINSUM_PATH_DP},
      {.path_kind = TFR_EINSUM_PATH_TREESA, .trials = 2, .seed = 1},
      {.path_kind = TFR_EINSUM_PATH_GREEDY, .subtree_size = 6},
  };
  for (int k = 0; k < 5; k++) {
    tfr_einsum_plan *p = NULL;
    tfr_status pst = tfr_einsum_plan_create(fs->valuestring, n, ranks, (const int64_t *const *)shp,
                                            &kinds[k], &p);
    if (pst != TFR_OK && kinds[k].path_kind == TFR_EINSUM_PATH_DP && n > 64) {
      TFR_ASSERT_ERROR(pst, TFR_ERR_INVALID_ARGUMENT, "at most 64");
      continue;
    }
    TFR_ASSERT_OK(pst);
    const tfr_einsum_path_info *pi = tfr_einsum_plan_info(p);
    assert_int_equal(pi->num_steps, n - 1);
    if (k == 0) greedy_flops = pi->flops;
    if (k != 0 && k != 2) assert_true(pi->flops <= greedy_flops);
    print_message("%-44s %-14s%s flops %.3gx the stored path's\n", c->id,
                  tfr_einsum_path_kind_name(kinds[k].path_kind),
                  kinds[k].subtree_size ? "+subtree" : "", pi->flops / info->flops);
    tfr_einsum_plan_release(p);
  }

  tfr_tensor *want = NULL, *got = NULL;
  snprintf(path, sizeof path, "%s/einsum_instances/%s/out.npy", TFR_TEST_DATA_DIR, c->id);
  TFR_ASSERT_OK(tfr_npy_load(path, &want));

  // A memory budget (a quarter of what the stored path needs beyond the
  // operands and the output): greedy's tree and its labels searched
  // together fit it with no more sliced flops than greedy's tree sliced by
  // slice_to_fit, and (when small enough to run here) give the result.
  {
    tfr_einsum_options g = {.path_kind = TFR_EINSUM_PATH_GREEDY};
    tfr_einsum_plan *ref = NULL, *cut = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_create(fs->valuestring, n, ranks, (const int64_t *const *)shp,
                                         &g, &ref));
    double held = (double)tfr_tensor_numel(want);
    for (int i = 0; i < n; i++) held += (double)tfr_tensor_numel(ops[i]);
    double peak = info->peak_live_elements;
    g.max_slice_elements = held + (peak - held) / 4;
    bool ref_ok = tfr_einsum_plan_slice_to_fit(ref, g.max_slice_elements) == TFR_OK;
    tfr_status bst = tfr_einsum_plan_create(fs->valuestring, n, ranks,
                                            (const int64_t *const *)shp, &g, &cut);
    if (ref_ok) TFR_ASSERT_OK(bst);
    if (bst == TFR_OK) {
      const tfr_einsum_path_info *ci = tfr_einsum_plan_info(cut);
      assert_true(ci->sliced_peak_live_elements <= g.max_slice_elements);
      if (ref_ok)
        assert_true(ci->sliced_flops <= tfr_einsum_plan_info(ref)->sliced_flops * (1 + 1e-12));
      print_message("%-44s budget %.3g elements: %lld slices, sliced flops %.3gx slice_to_fit's "
                    "on greedy's tree\n", c->id, g.max_slice_elements,
                    (long long)ci->num_slices,
                    ref_ok ? ci->sliced_flops / tfr_einsum_plan_info(ref)->sliced_flops : NAN);
      if (ci->sliced_flops <= 2e8) {
        tfr_tensor *r = NULL;
        TFR_ASSERT_OK(tfr_einsum_plan_execute(env->session, cut, (const tfr_tensor *const *)ops, &r));
        double nw, ew;
        tfr_inst_errors(r, want, &nw, &ew);
        if (!(nw <= 1e-10)) {
          print_error("%s: sliced to a budget: relative error %.3e above 1e-10\n", c->id, nw);
          fail();
        }
        tfr_tensor_release(r);
      }
    }
    tfr_einsum_plan_release(ref);
    tfr_einsum_plan_release(cut);
  }
  double t0 = tfr_inst_now();
  TFR_ASSERT_OK(tfr_einsum_plan_execute(env->session, plan, (const tfr_tensor *const *)ops, &got));
  double secs = tfr_inst_now() - t0;
  assert_int_equal(tfr_tensor_dtype(got), dt);
  assert_int_equal(tfr_tensor_rank(got), tfr_tensor_rank(want));
  for (int k = 0; k < tfr_tensor_rank(want); k++)
    assert_int_equal(tfr_tensor_shape(got)[k], tfr_tensor_shape(want)[k]);
  double normwise, elementwise;
  tfr_inst_errors(got, want, &normwise, &elementwise);
  print_message("%-44s %4d operands  log10 flops %.4f (file %.4f)  %9.1f ms  "
                "rel. error %.2e (elementwise max %.2e)\n",
                c->id, n, info->log10_flops, jflops->valuedouble, secs * 1e3, normwise,
                elementwise);
  if (!(normwise <= 1e-10)) {
    print_error("%s: relative error %.3e above 1e-10\n", c->id, normwise);
    fail();
  }
  tfr_tensor_release(got);
  tfr_tensor_release(want);
  for (int i = 0; i < n; i++) {
    tfr_tensor_release(ops[i]);
    free(shp[i]);
  }
  tfr_einsum_plan_release(plan);
  free(ranks);
  free(shp);
  free(pairs);
  free(ops);
  free(nodes);
  cJSON_Delete(root);
}

int main(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/einsum_instances/cases.txt", TFR_TEST_DATA_DIR);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: missing (made by tests/ref/gen_einsum_instances.py)\n", path);
    return 1;
  }
  tfr_inst_case *cases = calloc(64, sizeof *cases);
  struct CMUnitTest *tests = calloc(64, sizeof *tests);
  int n = 0;
  while (n < 64 && cases && tests &&
         fscanf(f, "%127s %127s %7s", cases[n].id, cases[n].file, cases[n].dtype) == 3) {
    tests[n] = (struct CMUnitTest){cases[n].id, test_instance, NULL, NULL, &cases[n]};
    n++;
  }
  fclose(f);
  // Every instance file has its case: none is left out silently.
  snprintf(path, sizeof path, "%s/../examples/instances", TFR_TEST_SOURCE_DIR);
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "%s: cannot list\n", path);
    return 1;
  }
  int missing = 0, files = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    files++;
    bool found = false;
    for (int i = 0; i < n && !found; i++) found = strcmp(cases[i].file, e->d_name) == 0;
    if (!found) {
      fprintf(stderr, "%s/%s has no reference case\n", path, e->d_name);
      missing++;
    }
  }
  closedir(dir);
  if (missing || files == 0) return 1;
  int rc = _cmocka_run_group_tests("einsum_instances", tests, (size_t)n, tfr_inst_group_setup,
                                   tfr_inst_group_teardown);
  free(tests);
  free(cases);
  return rc;
}
