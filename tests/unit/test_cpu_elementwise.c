// Tests of the cpu elementwise kernels (src/cpu/elementwise.c).
//
// Values: every case of tests/ref/gen_elementwise.py (numpy/stdlib reference,
// every op x every allowed dtype, random and edge inputs) on compact tensors.
// Layouts: the random cases again on strided, reversed, broadcast, transposed,
// rank-0 and empty views and into strided / reversed / in-place outputs,
// compared bit for bit with the compact run on copies of the same views.
// Threads: large tensors (OpenMP path) against the same op on slices small
// enough for one thread, and the strided iterator's rows and carries on 1-3
// threads against index arithmetic. Plus the validation errors and a few literal values.
// EW_VERBOSE=1 in the environment prints every failing element, not 5 a case.
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/op_registry.h"
#include "core/half.h"
#include "support.h"

// ---------------------------------------------------------------------------
// Reference data
// ---------------------------------------------------------------------------

typedef enum ew_tol_kind { EW_EXACT, EW_ULP, EW_CPLX } ew_tol_kind;

typedef struct ew_case {
  char name[96];
  char kind[16];
  char op[48];
  tfr_dtype dtype, odtype;
  int64_t n;
  ew_tol_kind tol;
  int tol_n;
  size_t offset;
  // Decoded.
  int opid;  // tfr_unary_op, tfr_binary_op or tfr_compare_direction
  int ninputs;
  tfr_dtype in_dtypes[3];
} ew_case;

static ew_case *g_cases;
static int g_ncases;
static unsigned char *g_blob;
static size_t g_blob_size;
static int64_t g_checked;  // elements compared, for the summary

static const char *const ew_dir_names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

static bool ew_dtype_from_name(const char *s, tfr_dtype *out) {
  for (int d = 0; d < TFR_DTYPE_COUNT; d++)
    if (!strcmp(s, tfr_dtype_name((tfr_dtype)d))) {
      *out = (tfr_dtype)d;
      return true;
    }
  return false;
}

static bool ew_decode(ew_case *c, const char *tol) {
  c->opid = -1;
  if (!strcmp(c->kind, "unary")) {
    for (int i = 0; i < TFR_UNARY_OP_COUNT; i++)
      if (!strcmp(c->op, tfr_unary_op_name((tfr_unary_op)i))) c->opid = i;
    c->ninputs = 1;
  } else if (!strcmp(c->kind, "binary")) {
    for (int i = 0; i < TFR_BINARY_OP_COUNT; i++)
      if (!strcmp(c->op, tfr_binary_op_name((tfr_binary_op)i))) c->opid = i;
    c->ninputs = 2;
  } else if (!strcmp(c->kind, "compare")) {
    for (int i = 0; i < 6; i++)
      if (!strcmp(c->op, ew_dir_names[i])) c->opid = i;
    c->ninputs = 2;
  } else if (!strcmp(c->kind, "select") || !strcmp(c->kind, "clamp")) {
    c->opid = 0;
    c->ninputs = 3;
  }
  if (c->opid < 0) return false;
  for (int i = 0; i < 3; i++) c->in_dtypes[i] = c->dtype;
  if (!strcmp(c->kind, "select")) c->in_dtypes[0] = TFR_BOOL;
  if (!strcmp(tol, "exact")) {
    c->tol = EW_EXACT;
    c->tol_n = 0;
  } else if (!strncmp(tol, "ulp", 3)) {
    c->tol = EW_ULP;
    c->tol_n = atoi(tol + 3);
  } else if (!strncmp(tol, "cplx", 4)) {
    c->tol = EW_CPLX;
    c->tol_n = atoi(tol + 4);
  } else {
    return false;
  }
  return true;
}

static int ew_group_setup(void **state) {
  const char *dir = TFR_TEST_DATA_DIR "/elementwise";
  char path[1024];
  snprintf(path, sizeof path, "%s/data.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s (run the ref_data ctest fixture)\n", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  g_blob = malloc((size_t)size + 1);
  if (!g_blob || fread(g_blob, 1, (size_t)size, f) != (size_t)size) return -1;
  g_blob_size = (size_t)size;
  fclose(f);

  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  f = fopen(path, "r");
  if (!f) return -1;
  int cap = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (g_ncases == cap) {
      cap = cap ? 2 * cap : 256;
      g_cases = realloc(g_cases, (size_t)cap * sizeof *g_cases);
      if (!g_cases) return -1;
    }
    ew_case *c = &g_cases[g_ncases];
    memset(c, 0, sizeof *c);
    char dt[16], odt[16], tol[16];
    if (sscanf(line, "%95s %15s %47s %15s %15s %" SCNd64 " %15s %zu", c->name, c->kind, c->op,
               dt, odt, &c->n, tol, &c->offset) != 8 ||
        !ew_dtype_from_name(dt, &c->dtype) || !ew_dtype_from_name(odt, &c->odtype) ||
        !ew_decode(c, tol)) {
      fprintf(stderr, "bad manifest line: %s", line);
      return -1;
    }
    g_ncases++;
  }
  fclose(f);
  if (g_ncases == 0) return -1;
  return tfr_test_setup_cpu(state);
}

static int ew_group_teardown(void **state) {
  free(g_cases);
  free(g_blob);
  print_message("elementwise: %d reference cases, %" PRId64 " elements compared\n", g_ncases,
                g_checked);
  return tfr_test_teardown_cpu(state);
}

// Host pointer to input i (i = ninputs: the expected output) of a case.
static const unsigned char *ew_case_data(const ew_case *c, int i) {
  size_t off = c->offset;
  for (int k = 0; k < i; k++) off += (size_t)c->n * tfr_dtype_size(c->in_dtypes[k]);
  tfr_dtype dt = i < c->ninputs ? c->in_dtypes[i] : c->odtype;
  assert_true(off + (size_t)c->n * tfr_dtype_size(dt) <= g_blob_size);
  return g_blob + off;
}

// ---------------------------------------------------------------------------
// Running a case on given input tensors
// ---------------------------------------------------------------------------

static tfr_status ew_run(tfr_session *s, const ew_case *c, tfr_tensor *const *in,
                         tfr_tensor **out) {
  switch (c->kind[0] == 'c' && c->kind[1] == 'l' ? 'C' : c->kind[0]) {
    case 'u': return tfr_unary(s, (tfr_unary_op)c->opid, in[0], out);
    case 'b': return tfr_binary(s, (tfr_binary_op)c->opid, in[0], in[1], out);
    case 'c': return tfr_compare(s, (tfr_compare_direction)c->opid, in[0], in[1], out);
    case 's': return tfr_select(s, in[0], in[1], in[2], out);
    case 'C': return tfr_clamp(s, in[0], in[1], in[2], out);
  }
  return TFR_ERR_INTERNAL;
}

static tfr_status ew_run_into(tfr_session *s, const ew_case *c, tfr_tensor *const *in,
                              tfr_tensor *out) {
  switch (c->kind[0] == 'c' && c->kind[1] == 'l' ? 'C' : c->kind[0]) {
    case 'u': return tfr_unary_into(s, (tfr_unary_op)c->opid, in[0], out);
    case 'b': return tfr_binary_into(s, (tfr_binary_op)c->opid, in[0], in[1], out);
    case 'c': return tfr_compare_into(s, (tfr_compare_direction)c->opid, in[0], in[1], out);
    case 's': return tfr_select_into(s, in[0], in[1], in[2], out);
    case 'C': return tfr_clamp_into(s, in[0], in[1], in[2], out);
  }
  return TFR_ERR_INTERNAL;
}

// ---------------------------------------------------------------------------
// Element comparison
// ---------------------------------------------------------------------------

static void ew_format(tfr_dtype dt, const unsigned char *p, char *buf, size_t size) {
  switch (dt) {
    case TFR_BOOL: snprintf(buf, size, "%u", p[0]); break;
    case TFR_I32: {
      int32_t v;
      memcpy(&v, p, 4);
      snprintf(buf, size, "%" PRId32, v);
      break;
    }
    case TFR_I64: {
      int64_t v;
      memcpy(&v, p, 8);
      snprintf(buf, size, "%" PRId64, v);
      break;
    }
    case TFR_F32: {
      float v;
      memcpy(&v, p, 4);
      snprintf(buf, size, "%.9g (%a)", (double)v, (double)v);
      break;
    }
    case TFR_F64: {
      double v;
      memcpy(&v, p, 8);
      snprintf(buf, size, "%.17g (%a)", v, v);
      break;
    }
    case TFR_C64: {
      float v[2];
      memcpy(v, p, 8);
      snprintf(buf, size, "(%.9g, %.9g)", (double)v[0], (double)v[1]);
      break;
    }
    case TFR_C128: {
      double v[2];
      memcpy(v, p, 16);
      snprintf(buf, size, "(%.17g, %.17g)", v[0], v[1]);
      break;
    }
    case TFR_I8: snprintf(buf, size, "%d", (int)(int8_t)p[0]); break;
    case TFR_U8: snprintf(buf, size, "%u", (unsigned)p[0]); break;
    case TFR_I16:
    case TFR_U16: {
      uint16_t v;
      memcpy(&v, p, 2);
      snprintf(buf, size, "%d", dt == TFR_I16 ? (int)(int16_t)v : (int)v);
      break;
    }
    case TFR_U32: {
      uint32_t v;
      memcpy(&v, p, 4);
      snprintf(buf, size, "%" PRIu32, v);
      break;
    }
    case TFR_U64: {
      uint64_t v;
      memcpy(&v, p, 8);
      snprintf(buf, size, "%" PRIu64, v);
      break;
    }
    case TFR_F16:
    case TFR_BF16: {
      uint16_t v;
      memcpy(&v, p, 2);
      double x = dt == TFR_F16 ? tfr_f16_to_f64(v) : tfr_bf16_to_f64(v);
      snprintf(buf, size, "%.5g (0x%04x)", x, v);
      break;
    }
  }
}

// ULP distance of two 16-bit float patterns (sign-magnitude; +0 and -0 are
// 0 apart); INT64_MAX for NaN against a number or for an infinity against
// anything else. Both NaN: 0.
static int64_t ew_ulp16(uint16_t a, uint16_t b, int mbits) {
  uint16_t emask = (uint16_t)(0x7fffu & ~((1u << mbits) - 1u));
  bool an = (a & emask) == emask && (a & ((1u << mbits) - 1u));
  bool bn = (b & emask) == emask && (b & ((1u << mbits) - 1u));
  if (an || bn) return an && bn ? 0 : INT64_MAX;
  if (a == b) return 0;
  if ((a & 0x7fffu) == emask || (b & 0x7fffu) == emask) return INT64_MAX;
  int64_t x = a & 0x7fff, y = b & 0x7fff;
  return ((a ^ b) & 0x8000u) ? x + y : llabs(x - y);
}

static bool ew_same_bits_f64(double a, double b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}
static bool ew_same_bits_f32(float a, float b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

// One part of a complex result: within n ulp, or within n eps of `scale`
// (the larger part: a tiny part of a large result carries no relative
// accuracy in any implementation). Infinities must match, NaN only NaN.
static bool ew_part_ok(double got, double want, int64_t ulp, int n, double eps, double scale) {
  if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
  if (isinf(got) || isinf(want)) return got == want;
  return ulp <= n || fabs(got - want) <= n * eps * scale;
}

static double ew_scale(double re, double im) {
  double s = 0;
  if (isfinite(re)) s = fabs(re);
  if (isfinite(im) && fabs(im) > s) s = fabs(im);
  return s;
}

// Element `g` against `w` of dtype dt under the tolerance.
static bool ew_elem_ok(tfr_dtype dt, ew_tol_kind tol, int n, const unsigned char *g,
                       const unsigned char *w) {
  switch (dt) {
    case TFR_BOOL: return g[0] == w[0];
    case TFR_I8:
    case TFR_I16:
    case TFR_I32:
    case TFR_I64:
    case TFR_U8:
    case TFR_U16:
    case TFR_U32:
    case TFR_U64: return !memcmp(g, w, tfr_dtype_size(dt));
    case TFR_F16:
    case TFR_BF16: {
      uint16_t a, b;
      memcpy(&a, g, 2);
      memcpy(&b, w, 2);
      return ew_ulp16(a, b, dt == TFR_F16 ? 10 : 7) <= (tol == EW_EXACT ? 0 : n);
    }
    case TFR_F32: {
      float a, b;
      memcpy(&a, g, 4);
      memcpy(&b, w, 4);
      return tol == EW_EXACT ? ew_same_bits_f32(a, b) : tfr_test_ulp_f32(a, b) <= n;
    }
    case TFR_F64: {
      double a, b;
      memcpy(&a, g, 8);
      memcpy(&b, w, 8);
      return tol == EW_EXACT ? ew_same_bits_f64(a, b) : tfr_test_ulp_f64(a, b) <= n;
    }
    case TFR_C64: {
      float a[2], b[2];
      memcpy(a, g, 8);
      memcpy(b, w, 8);
      if (tol == EW_EXACT) return ew_same_bits_f32(a[0], b[0]) && ew_same_bits_f32(a[1], b[1]);
      if (tol == EW_ULP)
        return tfr_test_ulp_f32(a[0], b[0]) <= n && tfr_test_ulp_f32(a[1], b[1]) <= n;
      double sc = ew_scale(b[0], b[1]);
      return ew_part_ok(a[0], b[0], tfr_test_ulp_f32(a[0], b[0]), n, 0x1p-23, sc) &&
             ew_part_ok(a[1], b[1], tfr_test_ulp_f32(a[1], b[1]), n, 0x1p-23, sc);
    }
    case TFR_C128: {
      double a[2], b[2];
      memcpy(a, g, 16);
      memcpy(b, w, 16);
      if (tol == EW_EXACT) return ew_same_bits_f64(a[0], b[0]) && ew_same_bits_f64(a[1], b[1]);
      if (tol == EW_ULP)
        return tfr_test_ulp_f64(a[0], b[0]) <= n && tfr_test_ulp_f64(a[1], b[1]) <= n;
      double sc = ew_scale(b[0], b[1]);
      return ew_part_ok(a[0], b[0], tfr_test_ulp_f64(a[0], b[0]), n, 0x1p-52, sc) &&
             ew_part_ok(a[1], b[1], tfr_test_ulp_f64(a[1], b[1]), n, 0x1p-52, sc);
    }
  }
  return false;
}

// Compares n elements; prints the first few failures (with the inputs when
// `inputs` is given) and returns the number of failures.
static int64_t ew_compare(const ew_case *c, const char *what, const unsigned char *got,
                          const unsigned char *want, int64_t n, ew_tol_kind tol, int tol_n,
                          const unsigned char *const *inputs) {
  size_t es = tfr_dtype_size(c->odtype);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    if (ew_elem_ok(c->odtype, tol, tol_n, got + (size_t)i * es, want + (size_t)i * es)) continue;
    if (bad++ < 5 || getenv("EW_VERBOSE")) {
      char g[96], w[96], in[3][96] = {"", "", ""};
      ew_format(c->odtype, got + (size_t)i * es, g, sizeof g);
      ew_format(c->odtype, want + (size_t)i * es, w, sizeof w);
      for (int k = 0; inputs && k < c->ninputs; k++)
        ew_format(c->in_dtypes[k], inputs[k] + (size_t)i * tfr_dtype_size(c->in_dtypes[k]),
                  in[k], sizeof in[k]);
      print_error("%s [%s] element %" PRId64 ": got %s, want %s; inputs %s %s %s\n", c->name,
                  what, i, g, w, in[0], in[1], in[2]);
    }
  }
  g_checked += n;
  return bad;
}

// Reads a host tensor into a new row-major buffer.
static unsigned char *ew_read(const tfr_tensor *t) {
  size_t nb = tfr_tensor_nbytes(t);
  unsigned char *buf = malloc(nb + 1);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(t, buf, nb));
  return buf;
}

static void ew_release_all(tfr_tensor **t, int n) {
  for (int i = 0; i < n; i++) {
    tfr_tensor_release(t[i]);
    t[i] = NULL;
  }
}

// ---------------------------------------------------------------------------
// Coverage: every (op, dtype) the op table allows has random and edge cases
// ---------------------------------------------------------------------------

static bool ew_has_case(const char *prefix, const char *kind, const char *op, tfr_dtype dt) {
  for (int i = 0; i < g_ncases; i++) {
    const ew_case *c = &g_cases[i];
    if (!strcmp(c->kind, kind) && !strcmp(c->op, op) && c->dtype == dt &&
        !strncmp(c->name, prefix, strlen(prefix)))
      return true;
  }
  return false;
}

// Whether gen_elementwise.py lists `op` as one without a numpy reference
// (no_reference.txt; those are checked against mpmath by test_special_math).
static bool ew_no_reference(const char *op) {
  FILE *f = fopen(TFR_TEST_DATA_DIR "/elementwise/no_reference.txt", "r");
  if (!f) return false;
  char line[128];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    found = !strcmp(line, op);
  }
  fclose(f);
  return found;
}

static void ew_expect_cases(const char *kind, const char *op, tfr_dtype dt, int *missing) {
  if (!strcmp(kind, "unary") && ew_no_reference(op)) return;
  if (!ew_has_case("rnd_", kind, op, dt) || !ew_has_case("edge_", kind, op, dt)) {
    print_error("no reference case for %s %s %s\n", kind, op, tfr_dtype_name(dt));
    (*missing)++;
  }
}

static void test_coverage(void **state) {
  (void)state;
  int missing = 0;
  for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
    uint32_t bit = TFR_DT(d);
    for (int u = 0; u < TFR_UNARY_OP_COUNT; u++)
      if (tfr_unary_info((tfr_unary_op)u)->dtypes & bit)
        ew_expect_cases("unary", tfr_unary_op_name((tfr_unary_op)u), (tfr_dtype)d, &missing);
    for (int o = 0; o < TFR_BINARY_OP_COUNT; o++)
      if (tfr_binary_info((tfr_binary_op)o)->dtypes & bit)
        ew_expect_cases("binary", tfr_binary_op_name((tfr_binary_op)o), (tfr_dtype)d, &missing);
    bool ordered = !(bit & TFR_DT_COMPLEX);
    for (int k = 0; k < 6; k++)
      if (k < 2 || ordered) ew_expect_cases("compare", ew_dir_names[k], (tfr_dtype)d, &missing);
    ew_expect_cases("select", "-", (tfr_dtype)d, &missing);
    if (ordered) ew_expect_cases("clamp", "-", (tfr_dtype)d, &missing);
  }
  assert_int_equal(missing, 0);
}

// ---------------------------------------------------------------------------
// Values against the reference (compact tensors)
// ---------------------------------------------------------------------------

static void ew_make_inputs(const ew_case *c, tfr_tensor **in) {
  for (int k = 0; k < c->ninputs; k++)
    in[k] = tfr_test_tensor(c->in_dtypes[k], 1, &c->n, ew_case_data(c, k));
}

static void test_reference(void **state) {
  tfr_test_env *env = *state;
  int64_t bad_cases = 0;
  for (int i = 0; i < g_ncases; i++) {
    const ew_case *c = &g_cases[i];
    tfr_tensor *in[3] = {NULL, NULL, NULL}, *out = NULL;
    ew_make_inputs(c, in);
    TFR_ASSERT_OK(ew_run(env->session, c, in, &out));
    assert_int_equal(tfr_tensor_dtype(out), c->odtype);
    assert_int_equal(tfr_tensor_numel(out), c->n);
    unsigned char *got = ew_read(out);
    const unsigned char *ins[3];
    for (int k = 0; k < c->ninputs; k++) ins[k] = ew_case_data(c, k);
    if (ew_compare(c, "compact", got, ew_case_data(c, c->ninputs), c->n, c->tol, c->tol_n, ins))
      bad_cases++;
    free(got);
    tfr_tensor_release(out);
    ew_release_all(in, c->ninputs);
  }
  assert_int_equal(bad_cases, 0);
}

// ---------------------------------------------------------------------------
// Layouts: views of the random cases' inputs, against the compact run on
// copies of the same views (bit for bit)
// ---------------------------------------------------------------------------

typedef enum ew_layout {
  EW_STRIDED,      // every input a step-2 slice
  EW_REVERSED,     // every input a reversed view
  EW_BCAST0,       // input 0 a stride-0 broadcast of its first element
  EW_BCAST1,       // input 1 likewise (binary and ternary kinds)
  EW_BCAST_ALL,    // all inputs broadcast
  EW_BCAST_OUTER,  // 2-D [15, 17]: input 0 a row broadcast down the columns
  EW_TRANSPOSED,   // 2-D [15, 17]: input 0 a transposed view, others compact
  EW_MIXED,        // 2-D: input 0 reversed on axis 1, input 1 step-2 columns
  EW_RANK0,        // rank 0: element 0
  EW_LAYOUT_COUNT,
} ew_layout;

static const char *const ew_layout_names[] = {"strided", "reversed", "bcast0", "bcast1",
                                              "bcast_all", "bcast_outer", "transposed", "mixed",
                                              "rank0"};

// A host tensor holding `base` (n elements of dt) at the even indices of a
// 2n buffer; the odd ones get the elements reversed (valid values, so the
// bool check passes, but wrong ones).
static tfr_tensor *ew_interleaved(tfr_dtype dt, int64_t n, const unsigned char *base) {
  size_t es = tfr_dtype_size(dt);
  unsigned char *buf = malloc(2 * (size_t)n * es + 1);
  assert_non_null(buf);
  for (int64_t i = 0; i < n; i++) {
    memcpy(buf + (size_t)(2 * i) * es, base + (size_t)i * es, es);
    memcpy(buf + (size_t)(2 * i + 1) * es, base + (size_t)(n - 1 - i) * es, es);
  }
  int64_t n2 = 2 * n;
  tfr_tensor *t = tfr_test_tensor(dt, 1, &n2, buf);
  free(buf);
  return t;
}

// `base` reversed in a buffer, seen through a reversed view (logical order = base).
static tfr_tensor *ew_reversed(tfr_dtype dt, int rank, const int64_t *shape,
                               const unsigned char *base, int64_t n) {
  size_t es = tfr_dtype_size(dt);
  unsigned char *buf = malloc((size_t)n * es + 1);
  assert_non_null(buf);
  for (int64_t i = 0; i < n; i++) memcpy(buf + (size_t)i * es, base + (size_t)(n - 1 - i) * es, es);
  tfr_tensor *flat = tfr_test_tensor(dt, rank, shape, buf);
  free(buf);
  int64_t axes[2] = {0, 1};
  tfr_tensor *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_reverse(flat, rank, axes, &v));
  tfr_tensor_release(flat);
  return v;
}

// The first element of `base` broadcast to `shape` (stride 0 everywhere).
static tfr_tensor *ew_broadcast_first(tfr_dtype dt, int rank, const int64_t *shape,
                                      const unsigned char *base) {
  tfr_tensor *s = tfr_test_tensor(dt, 0, NULL, base), *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(s, rank, shape, NULL, &v));
  tfr_tensor_release(s);
  return v;
}

static tfr_tensor *ew_layout_input(const ew_case *c, ew_layout layout, int k) {
  tfr_dtype dt = c->in_dtypes[k];
  const unsigned char *base = ew_case_data(c, k);
  int64_t n = c->n;
  int64_t shape2[2] = {15, 17};
  tfr_tensor *t = NULL, *v = NULL;
  switch (layout) {
    case EW_STRIDED: {
      t = ew_interleaved(dt, n, base);
      int64_t start = 0, limit = 2 * n, step = 2;
      TFR_ASSERT_OK(tfr_tensor_view_slice(t, &start, &limit, &step, &v));
      tfr_tensor_release(t);
      return v;
    }
    case EW_REVERSED: return ew_reversed(dt, 1, &n, base, n);
    case EW_BCAST0:
    case EW_BCAST1:
      if (k == (layout == EW_BCAST0 ? 0 : 1)) return ew_broadcast_first(dt, 1, &n, base);
      return tfr_test_tensor(dt, 1, &n, base);
    case EW_BCAST_ALL: return ew_broadcast_first(dt, 1, &n, base);
    case EW_BCAST_OUTER:
      if (k == 0) {
        tfr_tensor *row = tfr_test_tensor(dt, 1, &shape2[1], base);
        int64_t dims[1] = {1};
        TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(row, 2, shape2, dims, &v));
        tfr_tensor_release(row);
        return v;
      }
      return tfr_test_tensor(dt, 2, shape2, base);
    case EW_TRANSPOSED:
      if (k == 0) {
        int64_t tshape[2] = {17, 15}, perm[2] = {1, 0};
        t = tfr_test_tensor(dt, 2, tshape, base);
        TFR_ASSERT_OK(tfr_tensor_view_transpose(t, perm, &v));
        tfr_tensor_release(t);
        return v;
      }
      return tfr_test_tensor(dt, 2, shape2, base);
    case EW_MIXED:
      if (k == 0) {
        t = tfr_test_tensor(dt, 2, shape2, base);
        int64_t axis = 1;
        TFR_ASSERT_OK(tfr_tensor_view_reverse(t, 1, &axis, &v));
        tfr_tensor_release(t);
        return v;
      }
      if (k == 1) {
        int64_t wide[2] = {15, 34}, start[2] = {0, 0}, limit[2] = {15, 34}, step[2] = {1, 2};
        t = ew_interleaved(dt, n, base);
        tfr_tensor *r = NULL;
        TFR_ASSERT_OK(tfr_tensor_view_reshape(t, 2, wide, &r));
        TFR_ASSERT_OK(tfr_tensor_view_slice(r, start, limit, step, &v));
        tfr_tensor_release(r);
        tfr_tensor_release(t);
        return v;
      }
      return tfr_test_tensor(dt, 2, shape2, base);
    case EW_RANK0: return tfr_test_tensor(dt, 0, NULL, base);
    case EW_LAYOUT_COUNT: break;
  }
  fail();
  return NULL;
}

// Runs `c` on views `in` and on compact copies of them; the results must agree
// bit for bit (NaN payloads aside). Returns the failures.
static int64_t ew_check_views(tfr_test_env *env, const ew_case *c, const char *what,
                              tfr_tensor *const *in) {
  tfr_tensor *copies[3] = {NULL, NULL, NULL}, *got = NULL, *want = NULL;
  for (int k = 0; k < c->ninputs; k++) TFR_ASSERT_OK(tfr_copy(env->session, in[k], &copies[k]));
  TFR_ASSERT_OK(ew_run(env->session, c, in, &got));
  TFR_ASSERT_OK(ew_run(env->session, c, copies, &want));
  unsigned char *g = ew_read(got), *w = ew_read(want);
  int64_t bad = ew_compare(c, what, g, w, tfr_tensor_numel(want), EW_EXACT, 0, NULL);
  free(g);
  free(w);
  tfr_tensor_release(got);
  tfr_tensor_release(want);
  ew_release_all(copies, c->ninputs);
  return bad;
}

// `_into` forms on compact inputs: a step-2 output (gaps must stay as they
// were), a reversed output, and in place (out = an input of the result's
// dtype, exactly).
static int64_t ew_check_into(tfr_test_env *env, const ew_case *c) {
  tfr_session *s = env->session;
  int64_t bad = 0, n = c->n;
  size_t es = tfr_dtype_size(c->odtype);
  tfr_tensor *in[3] = {NULL, NULL, NULL}, *want = NULL;
  ew_make_inputs(c, in);
  TFR_ASSERT_OK(ew_run(s, c, in, &want));
  unsigned char *w = ew_read(want);

  // Step-2 output over a buffer of sentinel bytes.
  int64_t n2 = 2 * n, start = 1, limit = 2 * n, step = 2;
  unsigned char *sentinel = calloc((size_t)n2, es);
  assert_non_null(sentinel);
  tfr_tensor *big = tfr_test_tensor(c->odtype, 1, &n2, sentinel), *view = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_slice(big, &start, &limit, &step, &view));
  TFR_ASSERT_OK(ew_run_into(s, c, in, view));
  unsigned char *all = ew_read(big), *g = malloc((size_t)n * es + 1);
  assert_non_null(g);
  for (int64_t i = 0; i < n; i++) {
    memcpy(g + (size_t)i * es, all + (size_t)(2 * i + 1) * es, es);
    if (memcmp(all + (size_t)(2 * i) * es, sentinel, es)) bad++;  // gap written
  }
  bad += ew_compare(c, "into step-2", g, w, n, EW_EXACT, 0, NULL);
  free(all);
  free(g);
  tfr_tensor_release(view);
  tfr_tensor_release(big);
  free(sentinel);

  // Reversed output.
  tfr_tensor *flat = NULL, *rev = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(c->odtype, 1, &n, &flat));
  int64_t axis = 0;
  TFR_ASSERT_OK(tfr_tensor_view_reverse(flat, 1, &axis, &rev));
  TFR_ASSERT_OK(ew_run_into(s, c, in, rev));
  g = ew_read(rev);
  bad += ew_compare(c, "into reversed", g, w, n, EW_EXACT, 0, NULL);
  free(g);
  tfr_tensor_release(rev);
  tfr_tensor_release(flat);

  // In place: out is input k itself (a fresh copy, since it is overwritten).
  for (int k = 0; k < c->ninputs; k++) {
    if (c->in_dtypes[k] != c->odtype) continue;
    tfr_tensor *saved = in[k], *mine = NULL;
    TFR_ASSERT_OK(tfr_copy(s, saved, &mine));
    in[k] = mine;
    TFR_ASSERT_OK(ew_run_into(s, c, in, mine));
    g = ew_read(mine);
    bad += ew_compare(c, "in place", g, w, n, EW_EXACT, 0, NULL);
    free(g);
    in[k] = saved;
    tfr_tensor_release(mine);
  }
  free(w);
  tfr_tensor_release(want);
  ew_release_all(in, c->ninputs);
  return bad;
}

static void test_layouts(void **state) {
  tfr_test_env *env = *state;
  int64_t bad = 0;
  int ran = 0;
  for (int i = 0; i < g_ncases; i++) {
    const ew_case *c = &g_cases[i];
    if (strncmp(c->name, "rnd_", 4)) continue;
    assert_int_equal(c->n, 15 * 17);
    for (int l = 0; l < EW_LAYOUT_COUNT; l++) {
      if (l == EW_BCAST1 && c->ninputs < 2) continue;
      tfr_tensor *in[3] = {NULL, NULL, NULL};
      for (int k = 0; k < c->ninputs; k++) in[k] = ew_layout_input(c, (ew_layout)l, k);
      bad += ew_check_views(env, c, ew_layout_names[l], in);
      ew_release_all(in, c->ninputs);
    }
    bad += ew_check_into(env, c);

    // Empty tensors: nothing to compute, a valid empty result.
    int64_t shapes[2][2] = {{0, 0}, {3, 0}};
    for (int e = 0; e < 2; e++) {
      int rank = e + 1;
      tfr_tensor *in[3] = {NULL, NULL, NULL}, *out = NULL;
      for (int k = 0; k < c->ninputs; k++)
        TFR_ASSERT_OK(tfr_tensor_zeros_host(c->in_dtypes[k], rank, shapes[e], &in[k]));
      TFR_ASSERT_OK(ew_run(env->session, c, in, &out));
      assert_int_equal(tfr_tensor_numel(out), 0);
      assert_int_equal(tfr_tensor_rank(out), rank);
      assert_int_equal(tfr_tensor_dtype(out), c->odtype);
      tfr_tensor_release(out);
      ew_release_all(in, c->ninputs);
    }
    ran++;
  }
  print_message("layouts: %d random cases x %d layouts + into forms\n", ran, EW_LAYOUT_COUNT);
  assert_int_equal(bad, 0);
}

// ---------------------------------------------------------------------------
// Large tensors: the multi-threaded run against slices run on one thread
// ---------------------------------------------------------------------------

// Rows [r0, r1) of a rank-2 tensor as a view.
static tfr_tensor *ew_rows(const tfr_tensor *t, int64_t r0, int64_t r1) {
  const int64_t *shape = tfr_tensor_shape(t);
  int64_t start[2] = {r0, 0}, limit[2] = {r1, shape[1]};
  tfr_tensor *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_slice(t, start, limit, NULL, &v));
  return v;
}

static int64_t ew_check_large(tfr_test_env *env, const ew_case *c, bool transposed, uint64_t seed) {
  // 200 x 201 = 40200 elements: above TFR_CPU_PARALLEL_MIN (32768); each
  // half is below it and so runs on one thread.
  int64_t rows = 200, cols = 201;
  int64_t shape[2] = {rows, cols}, tshape[2] = {cols, rows}, perm[2] = {1, 0};
  tfr_tensor *in[3] = {NULL, NULL, NULL}, *full = NULL;
  for (int k = 0; k < c->ninputs; k++) {
    if (transposed && k == 0) {
      tfr_tensor *t = tfr_test_random_tensor(c->in_dtypes[k], 2, tshape, seed + (uint64_t)k);
      TFR_ASSERT_OK(tfr_tensor_view_transpose(t, perm, &in[k]));
      tfr_tensor_release(t);
    } else {
      in[k] = tfr_test_random_tensor(c->in_dtypes[k], 2, shape, seed + (uint64_t)k);
    }
  }
  TFR_ASSERT_OK(ew_run(env->session, c, in, &full));
  unsigned char *want = ew_read(full);
  int64_t bad = 0;
  size_t es = tfr_dtype_size(c->odtype);
  for (int h = 0; h < 2; h++) {
    tfr_tensor *part[3] = {NULL, NULL, NULL}, *out = NULL;
    for (int k = 0; k < c->ninputs; k++) part[k] = ew_rows(in[k], h * rows / 2, (h + 1) * rows / 2);
    TFR_ASSERT_OK(ew_run(env->session, c, part, &out));
    unsigned char *got = ew_read(out);
    bad += ew_compare(c, transposed ? "large transposed" : "large", got,
                      want + (size_t)(h * rows / 2 * cols) * es, tfr_tensor_numel(out), EW_EXACT,
                      0, NULL);
    free(got);
    tfr_tensor_release(out);
    ew_release_all(part, c->ninputs);
  }
  free(want);
  tfr_tensor_release(full);
  ew_release_all(in, c->ninputs);
  return bad;
}

static void test_large(void **state) {
  tfr_test_env *env = *state;
  int64_t bad = 0;
  for (int i = 0; i < g_ncases; i++) {
    const ew_case *c = &g_cases[i];
    if (strncmp(c->name, "rnd_", 4)) continue;
    bad += ew_check_large(env, c, false, 1000 + (uint64_t)i * 7);
    bad += ew_check_large(env, c, true, 5000 + (uint64_t)i * 7);
  }
  assert_int_equal(bad, 0);
}

// ---------------------------------------------------------------------------
// The strided iterator (src/cpu/strided.c): whole rows of axis 0 along axis
// 1, carries into the outer axes, thread ranges that start and end inside
// rows. Operands whose axes do not merge (a transposed and reversed view, a
// broadcast one), rank 4 and rank 7 with small extents, on 1 to 3 threads,
// against index arithmetic on the operands' storage.
// ---------------------------------------------------------------------------

static void test_odometer_threads(void **state) {
  (void)state;
  // The third case runs on 3 threads whose ranges start and end inside
  // rows (ranges are multiples of 64 elements, rows 3); the others on 1.
  static const int64_t shapes[4][7] = {
      {3, 5, 331, 7}, {2, 3, 4, 5, 6, 7, 8}, {3, 5, 331, 7, 3}, {1, 40000, 1, 2}};
  static const int ranks[4] = {4, 7, 5, 4};
  uint64_t seed = 77;
  for (int threads = 1; threads <= 3; threads++) {
    tfr_backend *be = NULL;
    TFR_ASSERT_OK(tfr_backend_create_cpu(&(tfr_cpu_options){.num_threads = threads}, &be));
    tfr_session *s = tfr_test_begin(be);
    for (int c = 0; c < 4; c++) {
      int r = ranks[c];
      const int64_t *sh = shapes[c];
      // a: storage axis k is view axis r-1-k, and view axis 0 is reversed.
      int64_t perm[7], sa[7], sb[7], dims[7], rev = 0;
      for (int k = 0; k < r; k++) {
        perm[k] = r - 1 - k;
        sa[k] = sh[r - 1 - k];
        sb[k] = k % 2 ? 1 : sh[k];  // b: extent 1 (stride 0) on odd axes
        dims[k] = k;
      }
      tfr_tensor *a0 = tfr_test_random_tensor(TFR_F64, r, sa, seed++), *at = NULL, *a = NULL;
      tfr_tensor *b0 = tfr_test_random_tensor(TFR_F64, r, sb, seed++), *b = NULL, *out = NULL;
      TFR_ASSERT_OK(tfr_tensor_view_transpose(a0, perm, &at));
      TFR_ASSERT_OK(tfr_tensor_view_reverse(at, 1, &rev, &a));
      TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(b0, r, sh, dims, &b));
      TFR_ASSERT_OK(tfr_binary(s, TFR_SUBTRACT, a, b, &out));
      const double *av, *bv, *ov;
      TFR_ASSERT_OK(tfr_tensor_host_data(a0, (void **)&av));
      TFR_ASSERT_OK(tfr_tensor_host_data(b0, (void **)&bv));
      TFR_ASSERT_OK(tfr_tensor_host_data(out, (void **)&ov));
      int64_t numel = tfr_tensor_numel(out), bad = 0;
      for (int64_t e = 0; e < numel; e++) {
        int64_t idx[7], rem = e;
        for (int k = r - 1; k >= 0; k--) {
          idx[k] = rem % sh[k];
          rem /= sh[k];
        }
        int64_t ai = 0, bi = 0;
        for (int k = 0; k < r; k++) {  // row-major over a's and b's storage
          int v = r - 1 - k;
          ai = ai * sa[k] + (v == 0 ? sh[0] - 1 - idx[0] : idx[v]);
          bi = bi * sb[k] + (k % 2 ? 0 : idx[k]);
        }
        double want = av[ai] - bv[bi];
        if (!(ov[e] == want) && bad++ < 5)
          print_message("odometer case %d, %d thread(s): element %" PRId64 " is %.17g, want %.17g\n",
                        c, threads, e, ov[e], want);
      }
      assert_int_equal(bad, 0);
      tfr_tensor *all[] = {a0, at, a, b0, b, out};
      ew_release_all(all, 6);
    }
    tfr_test_end(s);
    tfr_backend_release(be);
  }
}

// ---------------------------------------------------------------------------
// Literal values of the documented semantics (ops.h), as plain examples
// ---------------------------------------------------------------------------

static void ew_expect_binary_i32(tfr_session *s, tfr_binary_op op, int32_t a, int32_t b,
                                 int32_t want) {
  tfr_tensor *x = tfr_test_tensor(TFR_I32, 0, NULL, &a), *y = tfr_test_tensor(TFR_I32, 0, NULL, &b);
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_binary(s, op, x, y, &out));
  int32_t got;
  TFR_ASSERT_OK(tfr_tensor_read(out, &got, sizeof got));
  if (got != want)
    fail_msg("%s(%" PRId32 ", %" PRId32 ") = %" PRId32 ", want %" PRId32, tfr_binary_op_name(op),
             a, b, got, want);
  tfr_tensor_release(out);
  tfr_tensor_release(x);
  tfr_tensor_release(y);
}

static double ew_unary_f64(tfr_session *s, tfr_unary_op op, double a) {
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 0, NULL, &a), *out = NULL;
  TFR_ASSERT_OK(tfr_unary(s, op, x, &out));
  double got;
  TFR_ASSERT_OK(tfr_tensor_read(out, &got, sizeof got));
  tfr_tensor_release(out);
  tfr_tensor_release(x);
  return got;
}

static void ew_binary_c128(tfr_session *s, tfr_binary_op op, double ar, double ai, double br,
                           double bi, double *out) {
  double a[2] = {ar, ai}, b[2] = {br, bi};
  tfr_tensor *x = tfr_test_tensor(TFR_C128, 0, NULL, a), *y = tfr_test_tensor(TFR_C128, 0, NULL, b);
  tfr_tensor *r = NULL;
  TFR_ASSERT_OK(tfr_binary(s, op, x, y, &r));
  TFR_ASSERT_OK(tfr_tensor_read(r, out, 2 * sizeof(double)));
  tfr_tensor_release(r);
  tfr_tensor_release(x);
  tfr_tensor_release(y);
}

static void test_semantics(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  ew_expect_binary_i32(s, TFR_DIVIDE, INT32_MIN, -1, INT32_MIN);
  ew_expect_binary_i32(s, TFR_DIVIDE, 7, 0, -1);
  ew_expect_binary_i32(s, TFR_DIVIDE, -7, 2, -3);
  ew_expect_binary_i32(s, TFR_REMAINDER, 7, 0, 7);
  ew_expect_binary_i32(s, TFR_REMAINDER, INT32_MIN, -1, 0);
  ew_expect_binary_i32(s, TFR_REMAINDER, -7, 2, -1);
  ew_expect_binary_i32(s, TFR_ADD, INT32_MAX, 1, INT32_MIN);
  ew_expect_binary_i32(s, TFR_POWER, 3, 4, 81);
  ew_expect_binary_i32(s, TFR_POWER, -1, -3, -1);
  ew_expect_binary_i32(s, TFR_POWER, 2, -1, 0);
  ew_expect_binary_i32(s, TFR_POWER, 2, 32, 0);
  ew_expect_binary_i32(s, TFR_SHIFT_LEFT, 1, 32, 0);
  ew_expect_binary_i32(s, TFR_SHIFT_LEFT, 1, 31, INT32_MIN);
  ew_expect_binary_i32(s, TFR_SHIFT_RIGHT_ARITHMETIC, -8, 1, -4);
  ew_expect_binary_i32(s, TFR_SHIFT_RIGHT_ARITHMETIC, -8, 40, -1);
  ew_expect_binary_i32(s, TFR_SHIFT_RIGHT_ARITHMETIC, 8, -1, 0);
  ew_expect_binary_i32(s, TFR_SHIFT_RIGHT_LOGICAL, -1, 28, 15);
  ew_expect_binary_i32(s, TFR_SHIFT_RIGHT_LOGICAL, -1, 32, 0);

  double v = ew_unary_f64(s, TFR_SIGN, -0.0);
  assert_true(v == 0 && signbit(v));
  assert_true(isnan(ew_unary_f64(s, TFR_SIGN, NAN)));
  assert_true(ew_unary_f64(s, TFR_ROUND_NEAREST_EVEN, 2.5) == 2.0);
  assert_true(ew_unary_f64(s, TFR_ROUND_NEAREST_EVEN, -0.5) == 0.0);
  assert_true(signbit(ew_unary_f64(s, TFR_ROUND_NEAREST_EVEN, -0.5)));
  assert_true(ew_unary_f64(s, TFR_ROUND_NEAREST_AFZ, 2.5) == 3.0);
  assert_true(ew_unary_f64(s, TFR_ROUND_NEAREST_AFZ, -0.5) == -1.0);
  assert_true(ew_unary_f64(s, TFR_IMAG, 5.0) == 0.0);
  // logistic keeps the relative accuracy of tiny results: 1/(1 + e^700) ~ e^-700.
  v = ew_unary_f64(s, TFR_LOGISTIC, -700.0);
  assert_true(tfr_test_ulp_f64(v, exp(-700.0)) <= 2);
  assert_true(ew_unary_f64(s, TFR_LOGISTIC, 800.0) == 1.0);

  // maximum/minimum: NaN propagates; +0 > -0.
  double a[4] = {0.0, -0.0, NAN, 1.0}, b[4] = {-0.0, 0.0, 1.0, NAN};
  int64_t n = 4;
  tfr_tensor *x = tfr_test_tensor(TFR_F64, 1, &n, a), *y = tfr_test_tensor(TFR_F64, 1, &n, b);
  tfr_tensor *mx = NULL, *mn = NULL;
  TFR_ASSERT_OK(tfr_maximum(s, x, y, &mx));
  TFR_ASSERT_OK(tfr_minimum(s, x, y, &mn));
  double r[4], q[4];
  TFR_ASSERT_OK(tfr_tensor_read(mx, r, sizeof r));
  TFR_ASSERT_OK(tfr_tensor_read(mn, q, sizeof q));
  assert_true(r[0] == 0 && !signbit(r[0]) && r[1] == 0 && !signbit(r[1]));
  assert_true(q[0] == 0 && signbit(q[0]) && q[1] == 0 && signbit(q[1]));
  assert_true(isnan(r[2]) && isnan(r[3]) && isnan(q[2]) && isnan(q[3]));
  tfr_tensor_release(mx);
  tfr_tensor_release(mn);
  tfr_tensor_release(x);
  tfr_tensor_release(y);

  // Complex division follows C99 Annex G where numpy's does not (the
  // reference data leaves these out): finite / infinite = 0, x / 0 infinite.
  double z[2];
  ew_binary_c128(s, TFR_DIVIDE, 1, 1, INFINITY, INFINITY, z);
  assert_true(z[0] == 0 && z[1] == 0);
  ew_binary_c128(s, TFR_DIVIDE, 1, 0, 0, 0, z);
  assert_true(isinf(z[0]) || isinf(z[1]));
  // Complex power: a^0 = 1 for every a, 0^b = 0 for Re b > 0.
  ew_binary_c128(s, TFR_POWER, 0, 0, 0, 0, z);
  assert_true(z[0] == 1 && z[1] == 0);
  ew_binary_c128(s, TFR_POWER, NAN, 1, 0, 0, z);
  assert_true(z[0] == 1 && z[1] == 0);
  ew_binary_c128(s, TFR_POWER, 0, 0, 2, 1, z);
  assert_true(z[0] == 0 && z[1] == 0);
  // Complex maximum: lexicographic, NaN propagates.
  ew_binary_c128(s, TFR_MAXIMUM, 1, 5, 1, 7, z);
  assert_true(z[0] == 1 && z[1] == 7);
  ew_binary_c128(s, TFR_MINIMUM, 2, -5, 1, 7, z);
  assert_true(z[0] == 1 && z[1] == 7);
  ew_binary_c128(s, TFR_MAXIMUM, 1, NAN, 3, 0, z);
  assert_true(isnan(z[1]));
}

// ---------------------------------------------------------------------------
// Scalar operands of select and clamp (rank 0, broadcast by validation)
// ---------------------------------------------------------------------------

static void test_rank0_operands(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t n = 5;
  float xs[5] = {-3.0f, -0.5f, 0.25f, 2.0f, NAN}, ys[5] = {9, 8, 7, 6, 5};
  tfr_tensor *x = tfr_test_tensor(TFR_F32, 1, &n, xs), *y = tfr_test_tensor(TFR_F32, 1, &n, ys);
  for (uint8_t p = 0; p < 2; p++) {
    tfr_tensor *pred = tfr_test_tensor(TFR_BOOL, 0, NULL, &p), *out = NULL;
    TFR_ASSERT_OK(tfr_select(s, pred, x, y, &out));
    float got[5];
    TFR_ASSERT_OK(tfr_tensor_read(out, got, sizeof got));
    assert_memory_equal(got, p ? xs : ys, sizeof got);
    tfr_tensor_release(out);
    tfr_tensor_release(pred);
  }
  float lo = -1.0f, hi = 1.0f;
  tfr_tensor *tlo = tfr_test_tensor(TFR_F32, 0, NULL, &lo), *thi = tfr_test_tensor(TFR_F32, 0, NULL, &hi);
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_clamp(s, tlo, x, thi, &out));
  float got[5];
  TFR_ASSERT_OK(tfr_tensor_read(out, got, sizeof got));
  assert_true(got[0] == -1.0f && got[1] == -0.5f && got[2] == 0.25f && got[3] == 1.0f);
  assert_true(isnan(got[4]));
  tfr_tensor_release(out);
  // Mixed: rank-0 min, full max.
  TFR_ASSERT_OK(tfr_clamp(s, tlo, x, y, &out));
  TFR_ASSERT_OK(tfr_tensor_read(out, got, sizeof got));
  assert_true(got[0] == -1.0f && got[1] == -0.5f && got[3] == 2.0f && isnan(got[4]));
  tfr_tensor_release(out);
  tfr_tensor_release(tlo);
  tfr_tensor_release(thi);
  tfr_tensor_release(x);
  tfr_tensor_release(y);
}

// ---------------------------------------------------------------------------
// Validation errors (each documented error once) and `_into` rules
// ---------------------------------------------------------------------------

static void test_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  int64_t n3 = 3, n4 = 4;
  tfr_tensor *i3 = tfr_test_random_tensor(TFR_I32, 1, &n3, 1);
  tfr_tensor *f3 = tfr_test_random_tensor(TFR_F32, 1, &n3, 2);
  tfr_tensor *f3b = tfr_test_random_tensor(TFR_F32, 1, &n3, 3);
  tfr_tensor *f4 = tfr_test_random_tensor(TFR_F32, 1, &n4, 4);
  tfr_tensor *d3 = tfr_test_random_tensor(TFR_F64, 1, &n3, 5);
  tfr_tensor *c3 = tfr_test_random_tensor(TFR_C64, 1, &n3, 6);
  tfr_tensor *b3 = tfr_test_random_tensor(TFR_BOOL, 1, &n3, 7);
  tfr_tensor *out = (tfr_tensor *)(uintptr_t)1;  // must become NULL on error

  TFR_ASSERT_ERROR(tfr_floor(s, i3, &out), TFR_ERR_UNSUPPORTED_DTYPE, "floor", "i32");
  assert_null(out);
  TFR_ASSERT_ERROR(tfr_unary(s, TFR_POPCNT, f3, &out), TFR_ERR_UNSUPPORTED_DTYPE, "popcnt", "f32");
  TFR_ASSERT_ERROR(tfr_binary(s, TFR_SHIFT_LEFT, f3, f3b, &out), TFR_ERR_UNSUPPORTED_DTYPE,
                   "shift_left", "f32");
  TFR_ASSERT_ERROR(tfr_remainder(s, c3, c3, &out), TFR_ERR_UNSUPPORTED_DTYPE, "remainder", "c64");
  TFR_ASSERT_ERROR(tfr_compare(s, TFR_LT, c3, c3, &out), TFR_ERR_UNSUPPORTED_DTYPE, "compare",
                   "c64");
  TFR_ASSERT_ERROR(tfr_clamp(s, c3, c3, c3, &out), TFR_ERR_UNSUPPORTED_DTYPE, "clamp", "c64");
  TFR_ASSERT_ERROR(tfr_add(s, f3, f4, &out), TFR_ERR_INVALID_ARGUMENT, "add", "[3]", "[4]");
  TFR_ASSERT_ERROR(tfr_add(s, f3, d3, &out), TFR_ERR_INVALID_ARGUMENT, "add", "f32", "f64");
  TFR_ASSERT_ERROR(tfr_compare(s, TFR_EQ, f3, f4, &out), TFR_ERR_INVALID_ARGUMENT, "compare",
                   "[3]", "[4]");
  TFR_ASSERT_ERROR(tfr_select(s, f3, f3, f3b, &out), TFR_ERR_INVALID_ARGUMENT, "select", "pred",
                   "f32");
  TFR_ASSERT_ERROR(tfr_select(s, b3, f3, f4, &out), TFR_ERR_INVALID_ARGUMENT, "select", "[3]",
                   "[4]");
  TFR_ASSERT_ERROR(tfr_select(s, b3, f3, d3, &out), TFR_ERR_INVALID_ARGUMENT, "select", "f32",
                   "f64");
  TFR_ASSERT_ERROR(tfr_clamp(s, f4, f3, f3b, &out), TFR_ERR_INVALID_ARGUMENT, "clamp", "min");
  TFR_ASSERT_ERROR(tfr_clamp(s, f3, f3b, d3, &out), TFR_ERR_INVALID_ARGUMENT, "clamp", "max",
                   "f64");
  TFR_ASSERT_ERROR(tfr_unary(s, (tfr_unary_op)99, f3, &out), TFR_ERR_INVALID_ARGUMENT, "99");
  TFR_ASSERT_ERROR(tfr_binary(s, (tfr_binary_op)-1, f3, f3, &out), TFR_ERR_INVALID_ARGUMENT,
                   "-1");
  TFR_ASSERT_ERROR(tfr_compare(s, (tfr_compare_direction)6, f3, f3, &out),
                   TFR_ERR_INVALID_ARGUMENT, "compare", "6");
  TFR_ASSERT_ERROR(tfr_add(s, f3, f3b, NULL), TFR_ERR_INVALID_ARGUMENT, "add");
  TFR_ASSERT_ERROR(tfr_add(s, NULL, f3b, &out), TFR_ERR_INVALID_ARGUMENT, "add");
  assert_null(out);

  // _into: wrong shape, wrong dtype, a broadcast (self-overlapping) output,
  // an output overlapping an input without being it; in place is fine.
  tfr_tensor *o4 = NULL, *od = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 1, &n4, &o4));
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F64, 1, &n3, &od));
  TFR_ASSERT_ERROR(tfr_binary_into(s, TFR_ADD, f3, f3b, o4), TFR_ERR_INVALID_ARGUMENT, "add",
                   "out has shape [4]", "[3]");
  TFR_ASSERT_ERROR(tfr_unary_into(s, TFR_EXP, f3, od), TFR_ERR_INVALID_ARGUMENT, "exponential",
                   "f64", "f32");
  TFR_ASSERT_ERROR(tfr_compare_into(s, TFR_LT, f3, f3b, od), TFR_ERR_INVALID_ARGUMENT, "compare",
                   "bool");
  tfr_tensor *bc = NULL, *shifted = NULL;
  float one = 1.0f;
  tfr_tensor *scalar = tfr_test_tensor(TFR_F32, 0, NULL, &one);
  TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(scalar, 1, &n3, NULL, &bc));
  TFR_ASSERT_ERROR(tfr_unary_into(s, TFR_NEGATE, f3, bc), TFR_ERR_INVALID_ARGUMENT, "negate",
                   "share memory");
  int64_t start = 1, limit = 4;
  TFR_ASSERT_OK(tfr_tensor_view_slice(o4, &start, &limit, NULL, &shifted));
  tfr_tensor *o4head = NULL;
  int64_t s0 = 0, l3 = 3;
  TFR_ASSERT_OK(tfr_tensor_view_slice(o4, &s0, &l3, NULL, &o4head));
  TFR_ASSERT_ERROR(tfr_binary_into(s, TFR_ADD, o4head, f3, shifted), TFR_ERR_INVALID_ARGUMENT,
                   "add", "overlaps input 0");
  TFR_ASSERT_ERROR(tfr_select_into(s, b3, f3, f3b, NULL), TFR_ERR_INVALID_ARGUMENT, "select");
  TFR_ASSERT_ERROR(tfr_clamp_into(s, f3, f3b, f3b, o4), TFR_ERR_INVALID_ARGUMENT, "clamp");
  // Exactly in place: allowed, and computes from the old values.
  float before[3], after[3];
  TFR_ASSERT_OK(tfr_tensor_read(o4head, before, sizeof before));
  TFR_ASSERT_OK(tfr_binary_into(s, TFR_ADD, o4head, f3, o4head));
  TFR_ASSERT_OK(tfr_tensor_read(o4head, after, sizeof after));
  float f3v[3];
  TFR_ASSERT_OK(tfr_tensor_read(f3, f3v, sizeof f3v));
  for (int i = 0; i < 3; i++) assert_true(after[i] == before[i] + f3v[i]);

  tfr_tensor *all[] = {i3, f3, f3b, f4, d3, c3, b3, o4, od, bc, shifted, o4head, scalar};
  ew_release_all(all, (int)(sizeof all / sizeof all[0]));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_coverage),   cmocka_unit_test(test_reference),
      cmocka_unit_test(test_layouts),    cmocka_unit_test(test_large),
      cmocka_unit_test(test_semantics),  cmocka_unit_test(test_rank0_operands),
      cmocka_unit_test(test_errors),
  };
  // Tests that make backends of their own, outside the group's session.
  const struct CMUnitTest own_backend[] = {cmocka_unit_test(test_odometer_threads)};
  int failed = cmocka_run_group_tests(tests, ew_group_setup, ew_group_teardown);
  return failed + cmocka_run_group_tests(own_backend, NULL, NULL);
}
