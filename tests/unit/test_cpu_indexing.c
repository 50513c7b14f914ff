// Tests of the indexing ops on the cpu backend (src/core/ops_indexing.c,
// src/core/validate_indexing.c, src/cpu/gather_scatter.c).
//
// Values are checked against tests/ref/gen_indexing.py, which computes
// gather and scatter by a transcription of the StableHLO spec in Python loops
// and the other ops with numpy indexing. Every case runs with its tensor
// inputs compact, as gapped views with a negative stride, and in
// column-major storage; index tensors as i64 and (where the values fit) i32;
// dynamic_slice / dynamic_update_slice also through the lowering to
// gather / scatter that device backends take. Stride-0 inputs, every
// validation error and the allocation-failure paths have their own tests.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after
#include "support.h"

void tfr_indexing_force_lowering_for_tests(bool on);

// ---------------------------------------------------------------------------
// The reference manifest
// ---------------------------------------------------------------------------

enum { IX_MAX_ATTRS = 12, IX_MAX_TENSORS = 8, IX_MAX_VALUES = 16 };

typedef struct ix_attr {
  char key[48];
  int n;
  int64_t v[IX_MAX_VALUES];
} ix_attr;

typedef struct ix_ref {
  char role[16];
  tfr_dtype dtype;
  int rank;
  int64_t shape[IX_MAX_VALUES];
  long off, nbytes;
} ix_ref;

typedef struct ix_case {
  char name[80];
  char op[32];
  int nattr, ntensor;
  ix_attr attr[IX_MAX_ATTRS];
  ix_ref t[IX_MAX_TENSORS];
} ix_case;

typedef struct ix_data {
  ix_case *cases;
  int ncases;
  unsigned char *bin;
  long binsize;
} ix_data;

static tfr_dtype ix_dtype_of(const char *name) {
  for (int d = 0; d < TFR_DTYPE_COUNT; d++)
    if (strcmp(tfr_dtype_name((tfr_dtype)d), name) == 0) return (tfr_dtype)d;
  fail_msg("unknown dtype %s in the manifest", name);
  return TFR_BOOL;
}

// "1,2,3" or "-" into v; returns the count.
static int ix_parse_list(const char *s, int64_t *v) {
  if (strcmp(s, "-") == 0) return 0;
  int n = 0;
  const char *p = s;
  while (*p) {
    assert_true(n < IX_MAX_VALUES);
    char *end;
    v[n++] = strtoll(p, &end, 10);
    assert_true(end != p);
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

static void ix_load(ix_data *d) {
  const char *dir = TFR_TEST_DATA_DIR "/indexing";
  char path[512];
  snprintf(path, sizeof path, "%s/data.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s (run the ref_data test first)", path);
  fseek(f, 0, SEEK_END);
  d->binsize = ftell(f);
  fseek(f, 0, SEEK_SET);
  d->bin = malloc((size_t)d->binsize + 1);
  assert_non_null(d->bin);
  assert_int_equal(fread(d->bin, 1, (size_t)d->binsize, f), (size_t)d->binsize);
  fclose(f);
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  int cap = 64;
  d->cases = calloc((size_t)cap, sizeof *d->cases);
  d->ncases = 0;
  char line[1024];
  ix_case *c = NULL;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char a[128], b[128], e[128];
    if (strncmp(line, "case ", 5) == 0) {
      if (d->ncases == cap) {
        cap *= 2;
        d->cases = realloc(d->cases, (size_t)cap * sizeof *d->cases);
        assert_non_null(d->cases);
      }
      c = &d->cases[d->ncases++];
      memset(c, 0, sizeof *c);
      assert_int_equal(sscanf(line, "case %79s %31s", c->name, c->op), 2);
    } else if (strncmp(line, "attr ", 5) == 0) {
      assert_non_null(c);
      assert_true(c->nattr < IX_MAX_ATTRS);
      ix_attr *at = &c->attr[c->nattr++];
      assert_int_equal(sscanf(line, "attr %47s %127s", at->key, a), 2);
      at->n = ix_parse_list(a, at->v);
    } else if (strncmp(line, "tensor ", 7) == 0) {
      assert_non_null(c);
      assert_true(c->ntensor < IX_MAX_TENSORS);
      ix_ref *t = &c->t[c->ntensor++];
      assert_int_equal(sscanf(line, "tensor %15s %127s %127s %ld %ld", t->role, a, b, &t->off,
                              &t->nbytes),
                       5);
      t->dtype = ix_dtype_of(a);
      t->rank = ix_parse_list(b, t->shape);
      assert_true(t->off + t->nbytes <= d->binsize);
    } else if (strcmp(line, "end") == 0) {
      c = NULL;
    } else if (sscanf(line, "%127s", e) == 1) {
      fail_msg("bad manifest line: %s", line);
    }
  }
  fclose(f);
  assert_true(d->ncases > 300);
}

static void ix_unload(ix_data *d) {
  free(d->cases);
  free(d->bin);
}

static const ix_attr *ix_attr_find(const ix_case *c, const char *key) {
  for (int i = 0; i < c->nattr; i++)
    if (strcmp(c->attr[i].key, key) == 0) return &c->attr[i];
  return NULL;
}

static const ix_attr *ix_attr_get(const ix_case *c, const char *key) {
  const ix_attr *a = ix_attr_find(c, key);
  if (!a) fail_msg("case %s has no attribute %s", c->name, key);
  return a;
}

static const ix_ref *ix_ref_get(const ix_case *c, const char *role) {
  for (int i = 0; i < c->ntensor; i++)
    if (strcmp(c->t[i].role, role) == 0) return &c->t[i];
  return NULL;
}

static tfr_tensor *ix_ref_tensor(const ix_data *d, const ix_ref *r) {
  return tfr_test_tensor(r->dtype, r->rank, r->shape, d->bin + r->off);
}

// ---------------------------------------------------------------------------
// Layouts and comparison
// ---------------------------------------------------------------------------

enum { IX_LAYOUTS = 3 };

// A tensor with t's values: 0 compact (t itself, retained); 1 every other
// element of a larger buffer with axis 0 reversed and an offset; 2 stored
// column-major.
static tfr_tensor *ix_layout(tfr_session *s, tfr_tensor *t, int layout) {
  int r = tfr_tensor_rank(t);
  int64_t n = tfr_tensor_numel(t);
  if (layout == 0 || r == 0 || n == 0) {
    tfr_tensor_retain(t);
    return t;
  }
  const int64_t *shape = tfr_tensor_shape(t);
  int64_t strides[TFR_MAX_RANK], offset = 0, base_n;
  if (layout == 1) {
    int64_t step = 1;
    for (int k = r - 1; k >= 0; k--) {
      strides[k] = 2 * step;
      step *= shape[k];
    }
    offset = (shape[0] - 1) * strides[0] + 3;
    strides[0] = -strides[0];
    base_n = 2 * n + 8;
  } else {
    int64_t step = 1;
    for (int k = 0; k < r; k++) {
      strides[k] = step;
      step *= shape[k];
    }
    base_n = n;
  }
  tfr_tensor *base = NULL, *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_zeros_host(tfr_tensor_dtype(t), 1, &base_n, &base));
  TFR_ASSERT_OK(tfr_tensor_view(base, r, shape, strides, offset, &v));
  tfr_tensor_release(base);
  TFR_ASSERT_OK(tfr_copy_into(s, t, v));
  return v;
}

// The i64 index tensor as i32, or NULL when a value does not fit.
static tfr_tensor *ix_to_i32(tfr_tensor *t) {
  int64_t n = tfr_tensor_numel(t);
  int64_t *v = malloc((size_t)(n + 1) * sizeof *v);
  int32_t *w = malloc((size_t)(n + 1) * sizeof *w);
  assert_true(v && w);
  TFR_ASSERT_OK(tfr_tensor_read(t, v, (size_t)n * sizeof *v));
  bool fits = true;
  for (int64_t i = 0; i < n; i++) {
    if (v[i] < INT32_MIN || v[i] > INT32_MAX) fits = false;
    w[i] = (int32_t)v[i];
  }
  tfr_tensor *r = fits ? tfr_test_tensor(TFR_I32, tfr_tensor_rank(t), tfr_tensor_shape(t), w)
                       : NULL;
  free(v);
  free(w);
  return r;
}

static bool ix_same_elem(tfr_dtype dt, const unsigned char *a, const unsigned char *b) {
  switch (dt) {
    case TFR_F32:
    case TFR_C64:
      for (size_t i = 0; i < tfr_dtype_size(dt); i += 4) {
        float x, y;
        memcpy(&x, a + i, 4);
        memcpy(&y, b + i, 4);
        if (!(isnan(x) && isnan(y)) && memcmp(a + i, b + i, 4) != 0) return false;
      }
      return true;
    case TFR_F64:
    case TFR_C128:
      for (size_t i = 0; i < tfr_dtype_size(dt); i += 8) {
        double x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (!(isnan(x) && isnan(y)) && memcmp(a + i, b + i, 8) != 0) return false;
      }
      return true;
    default:
      return memcmp(a, b, tfr_dtype_size(dt)) == 0;
  }
}

// The conformance corpus's check for accumulating ops (its README): a float
// part passes within 16 ULP or within 64 eps M, M the largest finite |part|
// of the expected tensor.
static bool ix_close_parts(tfr_dtype dt, const unsigned char *a, const unsigned char *b,
                           double m) {
  bool single = dt == TFR_F32 || dt == TFR_C64;
  size_t ps = single ? 4 : 8;
  double eps = single ? 0x1p-23 : 0x1p-52;
  for (size_t i = 0; i < tfr_dtype_size(dt); i += ps) {
    double x, y;
    int64_t ulp;
    if (single) {
      float fx, fy;
      memcpy(&fx, a + i, 4);
      memcpy(&fy, b + i, 4);
      x = fx;
      y = fy;
      ulp = tfr_test_ulp_f32(fx, fy);
    } else {
      memcpy(&x, a + i, 8);
      memcpy(&y, b + i, 8);
      ulp = tfr_test_ulp_f64(x, y);
    }
    if (ulp <= 16) continue;
    if (isfinite(x) && isfinite(y) && fabs(x - y) <= 64 * eps * m) continue;
    return false;
  }
  return true;
}

// Largest finite |part| of a float/complex buffer (at least the smallest
// normal f32).
static double ix_max_abs(tfr_dtype dt, const unsigned char *p, size_t nb) {
  bool single = dt == TFR_F32 || dt == TFR_C64;
  double m = 0x1p-126;
  for (size_t i = 0; i < nb; i += single ? 4 : 8) {
    double v;
    if (single) {
      float f;
      memcpy(&f, p + i, 4);
      v = f;
    } else {
      memcpy(&v, p + i, 8);
    }
    if (isfinite(v) && fabs(v) > m) m = fabs(v);
  }
  return m;
}

// Asserts `got` has want's dtype, shape and values (bit for bit, any NaN
// matching any NaN; with `tol`, float parts as ix_close_parts).
static void ix_expect_tol(const char *label, const tfr_tensor *got, const tfr_tensor *want,
                          bool tol) {
  tfr_dtype dt = tfr_tensor_dtype(want);
  int r = tfr_tensor_rank(want);
  if (tfr_tensor_dtype(got) != dt || tfr_tensor_rank(got) != r)
    fail_msg("%s: result dtype %s rank %d, expected %s rank %d", label,
             tfr_dtype_name(tfr_tensor_dtype(got)), tfr_tensor_rank(got), tfr_dtype_name(dt), r);
  for (int k = 0; k < r; k++)
    if (tfr_tensor_shape(got)[k] != tfr_tensor_shape(want)[k])
      fail_msg("%s: result extent %" PRId64 " on axis %d, expected %" PRId64, label,
               tfr_tensor_shape(got)[k], k, tfr_tensor_shape(want)[k]);
  size_t nb = tfr_tensor_nbytes(want), es = tfr_dtype_size(dt);
  unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
  assert_true(a && b);
  TFR_ASSERT_OK(tfr_tensor_read(got, a, nb));
  TFR_ASSERT_OK(tfr_tensor_read(want, b, nb));
  tol = tol && dt >= TFR_F32;
  double m = tol ? ix_max_abs(dt, b, nb) : 0;
  for (size_t i = 0; i < nb; i += es)
    if (!(tol ? ix_close_parts(dt, a + i, b + i, m) : ix_same_elem(dt, a + i, b + i))) {
      free(a);
      free(b);
      fail_msg("%s: element %zu differs", label, i / es);
    }
  free(a);
  free(b);
}

static void ix_expect(const char *label, const tfr_tensor *got, const tfr_tensor *want) {
  ix_expect_tol(label, got, want, false);
}

// ---------------------------------------------------------------------------
// Running the reference cases
// ---------------------------------------------------------------------------

typedef struct ix_run {
  const ix_data *d;
  const ix_case *c;
  tfr_session *s;
  int layout;
  tfr_dtype index_dtype;
  bool lowered;
  bool skipped;  // the index values do not fit in the run's index dtype
  char label[200];
  tfr_tensor *owned[16];
  int nowned;
} ix_run;

static tfr_tensor *ix_keep(ix_run *run, tfr_tensor *t) {
  assert_true(run->nowned < 16);
  run->owned[run->nowned++] = t;
  return t;
}

// Input `role` of the case in the run's layout.
static tfr_tensor *ix_input(ix_run *run, const char *role) {
  const ix_ref *r = ix_ref_get(run->c, role);
  if (!r) fail_msg("case %s has no tensor %s", run->c->name, role);
  tfr_tensor *t = ix_ref_tensor(run->d, r);
  tfr_tensor *v = ix_layout(run->s, t, run->layout);
  tfr_tensor_release(t);
  return ix_keep(run, v);
}

// The index tensor in the run's dtype and layout; NULL when the values do
// not fit in i32.
static tfr_tensor *ix_indices(ix_run *run) {
  tfr_tensor *t = ix_ref_tensor(run->d, ix_ref_get(run->c, "indices"));
  if (run->index_dtype == TFR_I32) {
    tfr_tensor *n = ix_to_i32(t);
    tfr_tensor_release(t);
    if (!n) return NULL;
    t = n;
  }
  tfr_tensor *v = ix_layout(run->s, t, run->layout);
  tfr_tensor_release(t);
  return ix_keep(run, v);
}

// The start indices as rank-0 tensors of the run's dtype; in layout 1 each is
// a rank-0 view into a larger tensor.
static bool ix_starts(ix_run *run, tfr_tensor **starts) {
  const ix_ref *r = ix_ref_get(run->c, "starts");
  int64_t n = r->rank ? r->shape[0] : 0;
  for (int k = 0; k < n; k++) {
    int64_t v;
    memcpy(&v, run->d->bin + r->off + 8 * k, 8);
    int64_t three = 3;
    unsigned char buf[24] = {0};
    size_t es = run->index_dtype == TFR_I32 ? 4 : 8;
    if (es == 4) {
      int32_t v32 = (int32_t)v;
      memcpy(buf + 2 * es, &v32, 4);
    } else {
      memcpy(buf + 2 * es, &v, 8);
    }
    tfr_tensor *s = NULL;
    if (run->layout == 1) {
      tfr_tensor *base = tfr_test_tensor(run->index_dtype, 1, &three, buf);
      TFR_ASSERT_OK(tfr_tensor_view(base, 0, NULL, NULL, 2, &s));
      tfr_tensor_release(base);
    } else {
      s = tfr_test_tensor(run->index_dtype, 0, NULL, buf + 2 * es);
    }
    starts[k] = ix_keep(run, s);
  }
  return true;
}

// The `_shape` form of an op (status sst, rank, shape) agrees with the op
// itself (status st, result *out): the same status, and on success the
// result's shape.
static tfr_status ix_same_shape(tfr_status sst, int rank, const int64_t *shape, tfr_status st,
                                tfr_tensor *const *out) {
  assert_int_equal(sst, st);
  if (st != TFR_OK) return st;
  assert_int_equal(rank, tfr_tensor_rank(*out));
  for (int k = 0; k < rank; k++) assert_int_equal(shape[k], tfr_tensor_shape(*out)[k]);
  return st;
}

static tfr_status ix_exec(ix_run *run, tfr_tensor **out) {
  const ix_case *c = run->c;
  tfr_session *s = run->s;
  const char *op = c->op;
  if (strcmp(op, "slice") == 0) {
    return tfr_slice(s, ix_input(run, "operand"), ix_attr_get(c, "start")->v,
                     ix_attr_get(c, "limit")->v, ix_attr_get(c, "strides")->v, out);
  }
  if (strcmp(op, "reverse") == 0) {
    const ix_attr *a = ix_attr_get(c, "dims");
    return tfr_reverse(s, ix_input(run, "operand"), a->n, a->v, out);
  }
  if (strcmp(op, "pad") == 0) {
    int64_t shape[TFR_MAX_RANK];
    tfr_status sst = tfr_pad_shape(s, ix_input(run, "operand"), ix_input(run, "padding"),
                                   ix_attr_get(c, "low")->v, ix_attr_get(c, "high")->v,
                                   ix_attr_get(c, "interior")->v, shape);
    tfr_status st = tfr_pad(s, ix_input(run, "operand"), ix_input(run, "padding"),
                            ix_attr_get(c, "low")->v, ix_attr_get(c, "high")->v,
                            ix_attr_get(c, "interior")->v, out);
    return ix_same_shape(sst, tfr_tensor_rank(ix_input(run, "operand")), shape, st, out);
  }
  if (strcmp(op, "concatenate") == 0) {
    int n = (int)ix_attr_get(c, "n")->v[0];
    const tfr_tensor *ins[4];
    for (int i = 0; i < n; i++) {
      char role[16];
      snprintf(role, sizeof role, "input%d", i);
      ins[i] = ix_input(run, role);
    }
    int dim = (int)ix_attr_get(c, "dim")->v[0];
    int64_t shape[TFR_MAX_RANK];
    tfr_status sst = tfr_concatenate_shape(s, n, ins, dim, shape);
    tfr_status st = tfr_concatenate(s, n, ins, dim, out);
    return ix_same_shape(sst, tfr_tensor_rank(ins[0]), shape, st, out);
  }
  if (strcmp(op, "dynamic_slice") == 0) {
    tfr_tensor *starts[TFR_MAX_RANK];
    ix_starts(run, starts);
    return tfr_dynamic_slice(s, ix_input(run, "operand"), (const tfr_tensor *const *)starts,
                             ix_attr_get(c, "sizes")->v, out);
  }
  if (strcmp(op, "dynamic_update_slice") == 0) {
    tfr_tensor *starts[TFR_MAX_RANK];
    ix_starts(run, starts);
    return tfr_dynamic_update_slice(s, ix_input(run, "operand"), ix_input(run, "update"),
                                    (const tfr_tensor *const *)starts, out);
  }
  if (strcmp(op, "gather") == 0) {
    tfr_tensor *idx = ix_indices(run);
    if (!idx) {
      run->skipped = true;
      return TFR_OK;
    }
    const ix_attr *od = ix_attr_get(c, "offset_dims"), *cd = ix_attr_get(c, "collapsed_slice_dims"),
                  *ob = ix_attr_get(c, "operand_batching_dims"),
                  *sb = ix_attr_get(c, "start_indices_batching_dims"),
                  *sm = ix_attr_get(c, "start_index_map");
    tfr_gather_config cfg = {
        .num_offset_dims = od->n,
        .offset_dims = od->v,
        .num_collapsed_slice_dims = cd->n,
        .collapsed_slice_dims = cd->v,
        .num_operand_batching_dims = ob->n,
        .operand_batching_dims = ob->v,
        .num_start_indices_batching_dims = sb->n,
        .start_indices_batching_dims = sb->v,
        .num_start_index_map = sm->n,
        .start_index_map = sm->v,
        .index_vector_dim = ix_attr_get(c, "index_vector_dim")->v[0],
        .slice_sizes = ix_attr_get(c, "slice_sizes")->v,
    };
    int rank = -1;
    int64_t shape[TFR_MAX_RANK];
    tfr_status sst = tfr_gather_shape(s, ix_input(run, "operand"), idx, &cfg, &rank, shape);
    tfr_status st = tfr_gather(s, ix_input(run, "operand"), idx, &cfg, out);
    return ix_same_shape(sst, rank, shape, st, out);
  }
  if (strcmp(op, "scatter") == 0) {
    tfr_tensor *idx = ix_indices(run);
    if (!idx) {
      run->skipped = true;
      return TFR_OK;
    }
    const ix_attr *uw = ix_attr_get(c, "update_window_dims"),
                  *iw = ix_attr_get(c, "inserted_window_dims"),
                  *ib = ix_attr_get(c, "input_batching_dims"),
                  *sb = ix_attr_get(c, "scatter_indices_batching_dims"),
                  *sd = ix_attr_get(c, "scatter_dims_to_operand_dims");
    tfr_scatter_config cfg = {
        .num_update_window_dims = uw->n,
        .update_window_dims = uw->v,
        .num_inserted_window_dims = iw->n,
        .inserted_window_dims = iw->v,
        .num_input_batching_dims = ib->n,
        .input_batching_dims = ib->v,
        .num_scatter_indices_batching_dims = sb->n,
        .scatter_indices_batching_dims = sb->v,
        .num_scatter_dims_to_operand_dims = sd->n,
        .scatter_dims_to_operand_dims = sd->v,
        .index_vector_dim = ix_attr_get(c, "index_vector_dim")->v[0],
        .combiner = (tfr_scatter_combiner)ix_attr_get(c, "combiner")->v[0],
    };
    return tfr_scatter(s, ix_input(run, "operand"), idx, ix_input(run, "updates"), &cfg, out);
  }
  fail_msg("unknown op %s", op);
  return TFR_ERR_INTERNAL;
}

static void ix_run_one(ix_run *run, int *count) {
  snprintf(run->label, sizeof run->label, "%s (layout %d, index %s%s)", run->c->name,
           run->layout, tfr_dtype_name(run->index_dtype), run->lowered ? ", lowered" : "");
  run->nowned = 0;
  tfr_indexing_force_lowering_for_tests(run->lowered);
  tfr_tensor *out = NULL;
  tfr_status st = ix_exec(run, &out);
  tfr_indexing_force_lowering_for_tests(false);
  if (!run->skipped) {
    if (st != TFR_OK)
      fail_msg("%s failed: %s: %s", run->label, tfr_status_string(st), tfr_last_error_message());
    tfr_tensor *want = ix_ref_tensor(run->d, ix_ref_get(run->c, "expected"));
    ix_expect_tol(run->label, out, want, ix_attr_find(run->c, "tol") != NULL);
    tfr_tensor_release(want);
    tfr_tensor_release(out);
    (*count)++;
  }
  for (int i = 0; i < run->nowned; i++) tfr_tensor_release(run->owned[i]);
}

static void test_reference_cases(void **state) {
  tfr_test_env *env = *state;
  ix_data d;
  ix_load(&d);
  int count = 0, gathers = 0, scatters = 0;
  for (int i = 0; i < d.ncases; i++) {
    const ix_case *c = &d.cases[i];
    bool indexed = strcmp(c->op, "gather") == 0 || strcmp(c->op, "scatter") == 0;
    bool dynamic = strncmp(c->op, "dynamic_", 8) == 0;
    gathers += strcmp(c->op, "gather") == 0;
    scatters += strcmp(c->op, "scatter") == 0;
    for (int layout = 0; layout < IX_LAYOUTS; layout++)
      for (int it = 0; it < (indexed || dynamic ? 2 : 1); it++)
        for (int low = 0; low < (dynamic ? 2 : 1); low++) {
          ix_run run = {.d = &d, .c = c, .s = env->session, .layout = layout,
                        .index_dtype = it ? TFR_I32 : TFR_I64, .lowered = low};
          ix_run_one(&run, &count);
        }
  }
  assert_true(gathers >= 90);
  assert_true(scatters >= 100);
  print_message("indexing: %d reference runs over %d cases\n", count, d.ncases);
  ix_unload(&d);
}

// ---------------------------------------------------------------------------
// Stride-0 inputs: every op on broadcast views equals the op on compact
// copies of them (those are checked against the references above).
// ---------------------------------------------------------------------------

static tfr_tensor *ix_compact(tfr_session *s, const tfr_tensor *t) {
  tfr_tensor *c = NULL;
  TFR_ASSERT_OK(tfr_copy(s, t, &c));
  return c;
}

static tfr_tensor *ix_bcast(const tfr_tensor *t, int rank, const int64_t *shape,
                            const int64_t *dims) {
  tfr_tensor *v = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(t, rank, shape, dims, &v));
  return v;
}

static void test_broadcast_inputs(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  for (int dt = 0; dt < TFR_DTYPE_COUNT; dt++) {
    // operand [4, 3] broadcast from [1, 3]; indices [5, 1] broadcast from [1].
    tfr_tensor *row = tfr_test_random_tensor((tfr_dtype)dt, 2, (int64_t[]){1, 3}, 7 + dt);
    tfr_tensor *op = ix_bcast(row, 2, (int64_t[]){4, 3}, (int64_t[]){0, 1});
    int64_t two = 2;
    tfr_tensor *i0 = tfr_test_tensor(TFR_I64, 1, (int64_t[]){1}, &two);
    tfr_tensor *idx = ix_bcast(i0, 2, (int64_t[]){5, 1}, (int64_t[]){1});
    tfr_tensor *opc = ix_compact(s, op), *idxc = ix_compact(s, idx);
    tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = (int64_t[]){1},
                           .num_collapsed_slice_dims = 1, .collapsed_slice_dims = (int64_t[]){0},
                           .num_start_index_map = 1, .start_index_map = (int64_t[]){0},
                           .index_vector_dim = 1, .slice_sizes = (int64_t[]){1, 3}};
    tfr_tensor *a = NULL, *b = NULL;
    TFR_ASSERT_OK(tfr_gather(s, op, idx, &g, &a));
    TFR_ASSERT_OK(tfr_gather(s, opc, idxc, &g, &b));
    ix_expect("gather of broadcast views", a, b);
    tfr_tensor_release(a);
    tfr_tensor_release(b);

    // scatter: updates [5, 3] broadcast from a scalar, duplicate index 2.
    tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = (int64_t[]){1},
                             .num_inserted_window_dims = 1,
                             .inserted_window_dims = (int64_t[]){0},
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = (int64_t[]){0},
                             .index_vector_dim = 1};
    tfr_tensor *one = tfr_test_random_tensor((tfr_dtype)dt, 0, NULL, 11 + dt);
    tfr_tensor *upd = ix_bcast(one, 2, (int64_t[]){5, 3}, NULL);
    tfr_tensor *updc = ix_compact(s, upd);
    for (int comb = 0; comb <= TFR_SCATTER_MINIMUM; comb++) {
      if (dt == TFR_BOOL && (comb == TFR_SCATTER_ADD || comb == TFR_SCATTER_MULTIPLY)) continue;
      sc.combiner = (tfr_scatter_combiner)comb;
      TFR_ASSERT_OK(tfr_scatter(s, op, idx, upd, &sc, &a));
      TFR_ASSERT_OK(tfr_scatter(s, opc, idxc, updc, &sc, &b));
      ix_expect("scatter of broadcast views", a, b);
      tfr_tensor_release(a);
      tfr_tensor_release(b);
    }

    // pad, concatenate, slice, reverse, dynamic ops of the broadcast operand.
    TFR_ASSERT_OK(tfr_pad(s, op, one, (int64_t[]){-1, 2}, (int64_t[]){1, -1},
                          (int64_t[]){1, 2}, &a));
    TFR_ASSERT_OK(tfr_pad(s, opc, one, (int64_t[]){-1, 2}, (int64_t[]){1, -1},
                          (int64_t[]){1, 2}, &b));
    ix_expect("pad of a broadcast view", a, b);
    tfr_tensor_release(a);
    tfr_tensor_release(b);
    const tfr_tensor *ins[3] = {op, opc, op}, *insc[3] = {opc, opc, opc};
    TFR_ASSERT_OK(tfr_concatenate(s, 3, ins, 1, &a));
    TFR_ASSERT_OK(tfr_concatenate(s, 3, insc, 1, &b));
    ix_expect("concatenate of broadcast views", a, b);
    tfr_tensor_release(a);
    tfr_tensor_release(b);
    TFR_ASSERT_OK(tfr_reverse(s, op, 2, (int64_t[]){1, 0}, &a));
    TFR_ASSERT_OK(tfr_reverse(s, opc, 2, (int64_t[]){1, 0}, &b));
    ix_expect("reverse of a broadcast view", a, b);
    tfr_tensor_release(a);
    tfr_tensor_release(b);
    int64_t m1 = -1;
    tfr_tensor *st = tfr_test_tensor(TFR_I64, 0, NULL, &m1);
    const tfr_tensor *starts[2] = {st, st};
    for (int low = 0; low < 2; low++) {
      tfr_indexing_force_lowering_for_tests(low);
      TFR_ASSERT_OK(tfr_dynamic_slice(s, op, starts, (int64_t[]){2, 2}, &a));
      TFR_ASSERT_OK(tfr_dynamic_slice(s, opc, starts, (int64_t[]){2, 2}, &b));
      ix_expect("dynamic_slice of a broadcast view", a, b);
      tfr_tensor_release(a);
      tfr_tensor_release(b);
      tfr_tensor *u = ix_bcast(one, 2, (int64_t[]){2, 2}, NULL), *uc = ix_compact(s, u);
      TFR_ASSERT_OK(tfr_dynamic_update_slice(s, op, u, starts, &a));
      TFR_ASSERT_OK(tfr_dynamic_update_slice(s, opc, uc, starts, &b));
      ix_expect("dynamic_update_slice of broadcast views", a, b);
      tfr_tensor_release(a);
      tfr_tensor_release(b);
      tfr_tensor_release(u);
      tfr_tensor_release(uc);
      tfr_indexing_force_lowering_for_tests(false);
    }
    tfr_tensor_release(st);
    tfr_tensor_release(one);
    tfr_tensor_release(upd);
    tfr_tensor_release(updc);
    tfr_tensor_release(row);
    tfr_tensor_release(op);
    tfr_tensor_release(opc);
    tfr_tensor_release(i0);
    tfr_tensor_release(idx);
    tfr_tensor_release(idxc);
  }
}

// ---------------------------------------------------------------------------
// Allocation failures: every failing allocation is reported as
// TFR_ERR_OUT_OF_MEMORY and leaks nothing (the sanitizer build checks).
// ---------------------------------------------------------------------------

static void test_out_of_memory(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){4, 3}, 3);
  tfr_tensor *pv = tfr_test_random_tensor(TFR_F64, 0, NULL, 4);
  tfr_tensor *idx = tfr_test_tensor(TFR_I32, 2, (int64_t[]){2, 1}, (int32_t[]){1, 3});
  tfr_tensor *upd = tfr_test_random_tensor(TFR_F64, 2, (int64_t[]){2, 3}, 5);
  int64_t one = 1;
  tfr_tensor *st = tfr_test_tensor(TFR_I64, 0, NULL, &one);
  const tfr_tensor *starts[2] = {st, st};
  const tfr_tensor *ins[2] = {x, x};
  tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = (int64_t[]){1},
                         .num_collapsed_slice_dims = 1, .collapsed_slice_dims = (int64_t[]){0},
                         .num_start_index_map = 1, .start_index_map = (int64_t[]){0},
                         .index_vector_dim = 1, .slice_sizes = (int64_t[]){1, 3}};
  tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = (int64_t[]){1},
                           .num_inserted_window_dims = 1, .inserted_window_dims = (int64_t[]){0},
                           .num_scatter_dims_to_operand_dims = 1,
                           .scatter_dims_to_operand_dims = (int64_t[]){0},
                           .index_vector_dim = 1, .combiner = TFR_SCATTER_ADD};
  for (int op = 0; op < 10; op++) {
    bool done = false;
    for (long n = 0; n < 100 && !done; n++) {
      tfr_tensor *out = (tfr_tensor *)&out;  // must become NULL on failure
      tfr_indexing_force_lowering_for_tests(op >= 8);
      tfr_alloc_fail_after(n);
      tfr_status r;
      switch (op) {
        case 0: r = tfr_slice(s, x, (int64_t[]){0, 1}, (int64_t[]){4, 3}, NULL, &out); break;
        case 1: r = tfr_reverse(s, x, 1, (int64_t[]){1}, &out); break;
        case 2:
          r = tfr_pad(s, x, pv, (int64_t[]){1, -1}, (int64_t[]){0, 2}, (int64_t[]){1, 0}, &out);
          break;
        case 3: r = tfr_concatenate(s, 2, ins, 0, &out); break;
        case 4: r = tfr_gather(s, x, idx, &g, &out); break;
        case 5: r = tfr_scatter(s, x, idx, upd, &sc, &out); break;
        case 6:
        case 8: r = tfr_dynamic_slice(s, x, starts, (int64_t[]){2, 2}, &out); break;
        default: r = tfr_dynamic_update_slice(s, x, upd, starts, &out); break;
      }
      tfr_alloc_fail_after(-1);
      tfr_indexing_force_lowering_for_tests(false);
      if (r == TFR_OK) {
        assert_non_null(out);
        tfr_tensor_release(out);
        done = true;
      } else {
        assert_int_equal(r, TFR_ERR_OUT_OF_MEMORY);
        assert_null(out);
      }
    }
    assert_true(done);
  }
  tfr_tensor_release(x);
  tfr_tensor_release(pv);
  tfr_tensor_release(idx);
  tfr_tensor_release(upd);
  tfr_tensor_release(st);
}

// ---------------------------------------------------------------------------
// Validation: every error once, with its message
// ---------------------------------------------------------------------------

typedef struct ix_gather_args {
  int64_t offset_dims[4], collapsed[4], obatch[4], sibatch[4], sim[4], slice_sizes[4];
  tfr_gather_config c;
} ix_gather_args;

// A valid gather of a [2, 3, 4] operand with [2, 5, 2] indices: operand
// batching dim 0 with index dim 0, start_index_map [2, 1], collapsed dim 1,
// offset dim 2 (window of 2 along operand axis 2), index_vector_dim 2.
static void ix_gather_default(ix_gather_args *a) {
  memset(a, 0, sizeof *a);
  a->offset_dims[0] = 2;
  a->collapsed[0] = 1;
  a->obatch[0] = 0;
  a->sibatch[0] = 0;
  a->sim[0] = 2;
  a->sim[1] = 1;
  a->slice_sizes[0] = 1;
  a->slice_sizes[1] = 1;
  a->slice_sizes[2] = 2;
  a->c = (tfr_gather_config){
      .num_offset_dims = 1, .offset_dims = a->offset_dims,
      .num_collapsed_slice_dims = 1, .collapsed_slice_dims = a->collapsed,
      .num_operand_batching_dims = 1, .operand_batching_dims = a->obatch,
      .num_start_indices_batching_dims = 1, .start_indices_batching_dims = a->sibatch,
      .num_start_index_map = 2, .start_index_map = a->sim,
      .index_vector_dim = 2, .slice_sizes = a->slice_sizes};
}

typedef struct ix_scatter_args {
  int64_t uwd[4], inserted[4], ibatch[4], sibatch[4], sdod[4];
  tfr_scatter_config c;
} ix_scatter_args;

// The matching scatter: operand [2, 3, 4], indices [2, 5, 2], updates
// [2, 5, 2].
static void ix_scatter_default(ix_scatter_args *a) {
  memset(a, 0, sizeof *a);
  a->uwd[0] = 2;
  a->inserted[0] = 1;
  a->ibatch[0] = 0;
  a->sibatch[0] = 0;
  a->sdod[0] = 2;
  a->sdod[1] = 1;
  a->c = (tfr_scatter_config){
      .num_update_window_dims = 1, .update_window_dims = a->uwd,
      .num_inserted_window_dims = 1, .inserted_window_dims = a->inserted,
      .num_input_batching_dims = 1, .input_batching_dims = a->ibatch,
      .num_scatter_indices_batching_dims = 1, .scatter_indices_batching_dims = a->sibatch,
      .num_scatter_dims_to_operand_dims = 2, .scatter_dims_to_operand_dims = a->sdod,
      .index_vector_dim = 2, .combiner = TFR_SCATTER_ADD};
}

#define IX_EXPECT_ERR(expr, code, ...)                 \
  do {                                                 \
    tfr_tensor *o_ = (tfr_tensor *)&o_;                \
    tfr_tensor **out = &o_;                            \
    TFR_ASSERT_ERROR((expr), (code), __VA_ARGS__);     \
    assert_null(o_);                                   \
  } while (0)

static void test_gather_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 3, 4}, 1);
  int64_t iv[20] = {0};
  tfr_tensor *idx = tfr_test_tensor(TFR_I64, 3, (int64_t[]){2, 5, 2}, iv);
  tfr_tensor *fidx = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 5, 2}, 2);
  ix_gather_args a;
  const int E = TFR_ERR_INVALID_ARGUMENT;

  ix_gather_default(&a);
  {
    tfr_tensor *o = NULL;
    TFR_ASSERT_OK(tfr_gather(s, x, idx, &a.c, &o));  // the baseline is valid
    assert_int_equal(tfr_tensor_rank(o), 3);
    assert_int_equal(tfr_tensor_shape(o)[0], 2);
    assert_int_equal(tfr_tensor_shape(o)[1], 5);
    assert_int_equal(tfr_tensor_shape(o)[2], 2);
    tfr_tensor_release(o);
  }
  TFR_ASSERT_ERROR(tfr_gather(s, x, idx, &a.c, NULL), E, "gather: out is NULL");
  IX_EXPECT_ERR(tfr_gather(NULL, x, idx, &a.c, out), E, "gather: session is NULL");
  IX_EXPECT_ERR(tfr_gather(s, NULL, idx, &a.c, out), E, "gather: operand is NULL");
  IX_EXPECT_ERR(tfr_gather(s, x, NULL, &a.c, out), E, "gather: start_indices is NULL");
  IX_EXPECT_ERR(tfr_gather(s, x, idx, NULL, out), E, "gather: config is NULL");
  IX_EXPECT_ERR(tfr_gather(s, x, fidx, &a.c, out), E, "start_indices has dtype f32",
                "must be an integer dtype");
  a.c.offset_dims = NULL;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "offset_dims is NULL with 1 entries");
  ix_gather_default(&a);
  a.c.num_start_index_map = -1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "start_index_map has -1 entries");
  ix_gather_default(&a);
  a.c.slice_sizes = NULL;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "slice_sizes is NULL");
  ix_gather_default(&a);
  a.c.index_vector_dim = 4;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "index_vector_dim = 4 is out of range [0, 3]",
                "(C2)");
  ix_gather_default(&a);
  a.c.num_start_index_map = 1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "start_index_map has 1 entries",
                "index vector has 2 components", "(C3)");
  ix_gather_default(&a);
  a.c.num_collapsed_slice_dims = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "rank(operand) = 3", "1 + 0 + 1", "(C1)");
  // Two offset dims need a window of two axes: collapse nothing, batch dim 0.
  ix_gather_default(&a);
  a.c.num_collapsed_slice_dims = 0;
  a.c.num_offset_dims = 2;
  a.offset_dims[0] = 2;
  a.offset_dims[1] = 1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "offset_dims is not sorted", "(C4)");
  a.offset_dims[1] = 2;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "offset_dims[1] = 2 is repeated", "(C4)");
  a.offset_dims[1] = 4;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "offset_dims[1] = 4 is out of range [0, 4)",
                "(C5)");
  ix_gather_default(&a);
  a.collapsed[0] = 3;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "collapsed_slice_dims[0] = 3 is out of range",
                "(C8)");
  ix_gather_default(&a);
  a.obatch[0] = -1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "operand_batching_dims[0] = -1 is out of range", "(C11)");
  ix_gather_default(&a);
  a.collapsed[0] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "operand_batching_dims[0] = 0 repeats collapsed_slice_dims[0]", "(C6)");
  // Collapse two axes (0 and 1 in the wrong order), no batching dims.
  ix_gather_default(&a);
  a.c.num_operand_batching_dims = 0;
  a.c.num_start_indices_batching_dims = 0;
  a.c.num_collapsed_slice_dims = 2;
  a.collapsed[0] = 1;
  a.collapsed[1] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "collapsed_slice_dims is not sorted", "(C7)");
  ix_gather_default(&a);
  a.c.num_collapsed_slice_dims = 0;
  a.c.num_operand_batching_dims = 2;
  a.c.num_start_indices_batching_dims = 2;
  a.obatch[0] = 1;
  a.obatch[1] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "operand_batching_dims is not sorted",
                "(C10)");
  ix_gather_default(&a);
  a.sibatch[0] = 3;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "start_indices_batching_dims[0] = 3 is out of range", "(C14)");
  ix_gather_default(&a);
  a.c.num_collapsed_slice_dims = 0;
  a.c.num_operand_batching_dims = 2;
  a.c.num_start_indices_batching_dims = 2;
  a.obatch[1] = 1;
  a.sibatch[1] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "start_indices_batching_dims[1] = 0 repeats start_indices_batching_dims[0]",
                "(C13)");
  ix_gather_default(&a);
  a.sibatch[0] = 2;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "start_indices_batching_dims[0] = 2 is index_vector_dim", "(C15)");
  ix_gather_default(&a);
  a.c.num_start_indices_batching_dims = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "operand_batching_dims has 1 entries",
                "start_indices_batching_dims has 0", "(C16)");
  ix_gather_default(&a);
  a.sibatch[0] = 1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "has operand extent 2",
                "has index extent 5", "(C17)");
  ix_gather_default(&a);
  a.sim[1] = 3;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "start_index_map[1] = 3 is out of range",
                "(C19)");
  a.sim[1] = 2;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "start_index_map[1] = 2 repeats start_index_map[0]", "(C18)");
  a.sim[1] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "operand_batching_dims[0] = 0 repeats start_index_map[1]", "(C18)");
  ix_gather_default(&a);
  a.slice_sizes[2] = 5;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "gather: slice_sizes[2] = 5 exceeds operand extent 4", "(C21)");
  a.slice_sizes[2] = -1;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "slice_sizes[2] = -1 is negative", "(C21)");
  ix_gather_default(&a);
  a.slice_sizes[1] = 2;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "slice_sizes[1] = 2 on collapsed_slice_dims[0] must be <= 1", "(C9)");
  ix_gather_default(&a);
  a.slice_sizes[0] = 2;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E,
                "slice_sizes[0] = 2 on operand_batching_dims[0] must be <= 1", "(C12)");
  ix_gather_default(&a);
  a.slice_sizes[1] = 0;
  IX_EXPECT_ERR(tfr_gather(s, x, idx, &a.c, out), E, "slice_sizes[1] = 0 on a collapsed");
  // Rank of the result beyond TFR_MAX_RANK: 64 batch axes + 1 offset axis.
  {
    int64_t ones[TFR_MAX_RANK];
    for (int k = 0; k < TFR_MAX_RANK; k++) ones[k] = 1;
    int64_t zero = 0;
    tfr_tensor *big = tfr_test_tensor(TFR_I64, TFR_MAX_RANK, ones, &zero);
    tfr_tensor *v = tfr_test_random_tensor(TFR_F32, 1, (int64_t[]){3}, 1);
    tfr_gather_config c = {.num_offset_dims = 1, .offset_dims = (int64_t[]){0},
                           .num_start_index_map = 1, .start_index_map = (int64_t[]){0},
                           .index_vector_dim = TFR_MAX_RANK, .slice_sizes = (int64_t[]){2}};
    IX_EXPECT_ERR(tfr_gather(s, v, big, &c, out), E, "the result would have rank 65");
    tfr_tensor_release(big);
    tfr_tensor_release(v);
  }
  tfr_tensor_release(x);
  tfr_tensor_release(idx);
  tfr_tensor_release(fidx);
}

static void test_scatter_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_tensor *x = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 3, 4}, 1);
  tfr_tensor *xb = tfr_test_random_tensor(TFR_BOOL, 3, (int64_t[]){2, 3, 4}, 1);
  int64_t iv[20] = {0};
  tfr_tensor *idx = tfr_test_tensor(TFR_I64, 3, (int64_t[]){2, 5, 2}, iv);
  tfr_tensor *fidx = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 5, 2}, 2);
  tfr_tensor *upd = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 5, 2}, 3);
  tfr_tensor *updb = tfr_test_random_tensor(TFR_BOOL, 3, (int64_t[]){2, 5, 2}, 3);
  tfr_tensor *upd64 = tfr_test_random_tensor(TFR_F64, 3, (int64_t[]){2, 5, 2}, 3);
  tfr_tensor *upd4 = tfr_test_random_tensor(TFR_F32, 4, (int64_t[]){2, 5, 2, 1}, 3);
  tfr_tensor *updx = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 4, 2}, 3);
  tfr_tensor *updw = tfr_test_random_tensor(TFR_F32, 3, (int64_t[]){2, 5, 5}, 3);
  ix_scatter_args a;
  const int E = TFR_ERR_INVALID_ARGUMENT;

  ix_scatter_default(&a);
  {
    tfr_tensor *o = NULL;
    TFR_ASSERT_OK(tfr_scatter(s, x, idx, upd, &a.c, &o));
    tfr_tensor_release(o);
  }
  TFR_ASSERT_ERROR(tfr_scatter(s, x, idx, upd, &a.c, NULL), E, "scatter: out is NULL");
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, NULL, &a.c, out), E, "scatter: updates is NULL");
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, NULL, out), E, "scatter: config is NULL");
  a.c.combiner = (tfr_scatter_combiner)9;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "invalid combiner value 9");
  ix_scatter_default(&a);
  IX_EXPECT_ERR(tfr_scatter(s, xb, idx, updb, &a.c, out), TFR_ERR_UNSUPPORTED_DTYPE,
                "scatter (add): not defined for dtype bool");
  a.c.combiner = TFR_SCATTER_MULTIPLY;
  IX_EXPECT_ERR(tfr_scatter(s, xb, idx, updb, &a.c, out), TFR_ERR_UNSUPPORTED_DTYPE,
                "scatter (multiply): not defined for dtype bool");
  ix_scatter_default(&a);
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd64, &a.c, out), E, "updates has dtype f64",
                "operand has dtype f32", "(C6)");
  IX_EXPECT_ERR(tfr_scatter(s, x, fidx, upd, &a.c, out), E, "scatter_indices has dtype f32");
  a.c.inserted_window_dims = NULL;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "inserted_window_dims is NULL");
  ix_scatter_default(&a);
  a.c.num_input_batching_dims = TFR_MAX_RANK + 1;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "input_batching_dims has 65 entries");
  ix_scatter_default(&a);
  a.c.index_vector_dim = -1;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "index_vector_dim = -1", "(C22)");
  ix_scatter_default(&a);
  a.c.num_scatter_dims_to_operand_dims = 3;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "scatter_dims_to_operand_dims has 3 entries", "(C19)");
  ix_scatter_default(&a);
  a.c.num_inserted_window_dims = 2;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "rank(operand) = 3", "(C2)");
  ix_scatter_default(&a);
  a.c.num_inserted_window_dims = 0;
  a.c.num_update_window_dims = 2;
  a.uwd[0] = 2;
  a.uwd[1] = 1;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "update_window_dims is not sorted",
                "(C7)");
  ix_scatter_default(&a);
  a.uwd[0] = 3;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "update_window_dims[0] = 3 is out of range [0, 3)", "(C8)");
  ix_scatter_default(&a);
  a.inserted[0] = 5;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "inserted_window_dims[0] = 5 is out of range", "(C11)");
  ix_scatter_default(&a);
  a.ibatch[0] = 3;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "input_batching_dims[0] = 3 is out of range", "(C13)");
  ix_scatter_default(&a);
  a.inserted[0] = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "input_batching_dims[0] = 0 repeats inserted_window_dims[0]", "(C9)");
  ix_scatter_default(&a);
  a.c.num_input_batching_dims = 0;
  a.c.num_scatter_indices_batching_dims = 0;
  a.c.num_inserted_window_dims = 2;
  a.inserted[0] = 1;
  a.inserted[1] = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "inserted_window_dims is not sorted",
                "(C10)");
  ix_scatter_default(&a);
  a.c.num_inserted_window_dims = 0;
  a.c.num_input_batching_dims = 2;
  a.c.num_scatter_indices_batching_dims = 2;
  a.ibatch[0] = 1;
  a.ibatch[1] = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "input_batching_dims is not sorted",
                "(C12)");
  ix_scatter_default(&a);
  a.sibatch[0] = 7;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "scatter_indices_batching_dims[0] = 7 is out of range", "(C15)");
  ix_scatter_default(&a);
  a.c.num_inserted_window_dims = 0;
  a.c.num_input_batching_dims = 2;
  a.c.num_scatter_indices_batching_dims = 2;
  a.ibatch[1] = 1;
  a.sibatch[1] = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "scatter_indices_batching_dims[1] = 0 repeats", "(C14)");
  ix_scatter_default(&a);
  a.sibatch[0] = 2;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "is index_vector_dim", "(C16)");
  ix_scatter_default(&a);
  a.c.num_scatter_indices_batching_dims = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "input_batching_dims has 1 entries",
                "(C17)");
  ix_scatter_default(&a);
  a.sibatch[0] = 1;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E, "has operand extent 2",
                "has index extent 5", "(C18)");
  ix_scatter_default(&a);
  a.sdod[0] = 3;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "scatter_dims_to_operand_dims[0] = 3 is out of range", "(C21)");
  a.sdod[0] = 0;
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd, &a.c, out), E,
                "input_batching_dims[0] = 0 repeats scatter_dims_to_operand_dims[0]", "(C20)");
  ix_scatter_default(&a);
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, upd4, &a.c, out), E, "updates has rank 4, expected 3",
                "(C4)");
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, updx, &a.c, out), E,
                "updates extent 4 of axis 1 differs from the extent 5", "(C4)");
  IX_EXPECT_ERR(tfr_scatter(s, x, idx, updw, &a.c, out), E,
                "updates extent 5 of window axis 2 exceeds operand extent 4", "(C4)");
  tfr_tensor *tensors[] = {x, xb, idx, fidx, upd, updb, upd64, upd4, updx, updw};
  for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) tfr_tensor_release(tensors[i]);
}

// Start indices of every integer dtype, clamped by value: negative i8/i16
// to 0, u8 200 and u64 2^64 - 1 (beyond INT64_MAX) to the last start that
// fits, in dynamic_slice (host read) and gather (kernel read). Hand-derived.
static void test_index_dtypes(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  const float xv[6] = {0, 1, 2, 3, 4, 5};
  int64_t n6 = 6;
  tfr_tensor *x = tfr_test_tensor(TFR_F32, 1, &n6, xv);
  struct {
    tfr_dtype dt;
    uint64_t bits;  // the start's pattern (low bytes)
    float first;    // expected first element of the 2-element slice
  } cases[] = {
      {TFR_I8, 0xfb, 0},  {TFR_I8, 3, 3},         {TFR_I16, 0xfffe, 0}, {TFR_U8, 200, 4},
      {TFR_U8, 2, 2},     {TFR_U16, 60000, 4},    {TFR_U32, 1, 1},      {TFR_U64, ~0ull, 4},
      {TFR_I32, 7, 4},    {TFR_I64, (uint64_t)-1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char b[8];
    memcpy(b, &cases[i].bits, 8);  // little-endian host
    tfr_tensor *st = tfr_test_tensor(cases[i].dt, 0, NULL, b);
    tfr_tensor *o = NULL;
    TFR_ASSERT_OK(tfr_dynamic_slice(s, x, (const tfr_tensor *[]){st}, (int64_t[]){2}, &o));
    float got[2];
    TFR_ASSERT_OK(tfr_tensor_read(o, got, sizeof got));
    assert_true(got[0] == cases[i].first && got[1] == cases[i].first + 1);
    tfr_tensor_release(o);
    // gather with the same start as a rank-1 index vector.
    int64_t one = 1;
    tfr_tensor *iv = tfr_test_tensor(cases[i].dt, 1, &one, b);
    tfr_gather_config c = {.num_offset_dims = 1,
                           .offset_dims = (int64_t[]){0},
                           .num_start_index_map = 1,
                           .start_index_map = (int64_t[]){0},
                           .index_vector_dim = 0,
                           .slice_sizes = (int64_t[]){2}};
    TFR_ASSERT_OK(tfr_gather(s, x, iv, &c, &o));
    TFR_ASSERT_OK(tfr_tensor_read(o, got, sizeof got));
    assert_true(got[0] == cases[i].first && got[1] == cases[i].first + 1);
    tfr_tensor_release(o);
    tfr_tensor_release(iv);
    tfr_tensor_release(st);
  }
  tfr_tensor_release(x);
}

// fuzz_api (corpus/api/crash-a753e383ced2225a): pad into an empty result
// whose first axis is long. The copy's offset multiplied that axis's padded
// position (2^20) by the empty result's saturated stride (2^50): a signed
// overflow (UBSan). Nothing is copied into an empty result.
static void test_pad_empty_result_long_axis(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  tfr_tensor *op = NULL, *one = tfr_test_random_tensor(TFR_F32, 0, NULL, 5), *out = NULL;
  // Result (2^20 + 1, 0, 2^50): axis 0's compact stride saturates at 2^50.
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 3, (int64_t[]){1, 0, 1}, &op));
  int64_t big = (int64_t)1 << 50;
  TFR_ASSERT_OK(tfr_pad(s, op, one, (int64_t[]){1 << 20, 0, 0}, (int64_t[]){0, 0, big - 1},
                        (int64_t[]){0, 0, 0}, &out));
  assert_int_equal(tfr_tensor_shape(out)[0], (1 << 20) + 1);
  assert_int_equal(tfr_tensor_shape(out)[2], big);
  assert_int_equal(tfr_tensor_numel(out), 0);
  tfr_tensor_release(out);
  tfr_tensor_release(op);
  // The same with two operand elements interior-padded apart on the long
  // axis: the stride times the interior step is never formed (fuzz_api).
  TFR_ASSERT_OK(tfr_tensor_zeros_host(TFR_F32, 3, (int64_t[]){2, 0, 1}, &op));
  TFR_ASSERT_OK(tfr_pad(s, op, one, (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, big - 1},
                        (int64_t[]){1 << 20, 0, 0}, &out));
  assert_int_equal(tfr_tensor_shape(out)[0], (1 << 20) + 2);
  assert_int_equal(tfr_tensor_numel(out), 0);
  tfr_tensor_release(out);
  tfr_tensor_release(op);
  tfr_tensor_release(one);
}

static void test_other_errors(void **state) {
  tfr_test_env *env = *state;
  tfr_session *s = env->session;
  const int E = TFR_ERR_INVALID_ARGUMENT;
  tfr_tensor *x = tfr_test_random_tensor(TFR_I32, 2, (int64_t[]){3, 4}, 1);
  tfr_tensor *y = tfr_test_random_tensor(TFR_F32, 2, (int64_t[]){3, 4}, 1);
  tfr_tensor *v = tfr_test_random_tensor(TFR_I32, 1, (int64_t[]){3}, 1);
  tfr_tensor *p = tfr_test_random_tensor(TFR_I32, 0, NULL, 1);
  tfr_tensor *pf = tfr_test_random_tensor(TFR_F32, 0, NULL, 1);
  int64_t one = 1;
  int32_t one32 = 1;
  tfr_tensor *s64 = tfr_test_tensor(TFR_I64, 0, NULL, &one);
  tfr_tensor *s32 = tfr_test_tensor(TFR_I32, 0, NULL, &one32);
  tfr_tensor *sv = tfr_test_tensor(TFR_I64, 1, &one, &one);
  float onef = 1;
  tfr_tensor *sf = tfr_test_tensor(TFR_F32, 0, NULL, &onef);

  // The `_shape` forms: a result far beyond memory is only a shape; NULL
  // outputs and the op's own refusals.
  int64_t shape[TFR_MAX_RANK];
  TFR_ASSERT_OK(tfr_pad_shape(s, x, p, (int64_t[]){INT64_C(1) << 40, 0}, (int64_t[]){0, 0},
                              (int64_t[]){0, 0}, shape));
  assert_int_equal(shape[0], (INT64_C(1) << 40) + 3);
  assert_int_equal(shape[1], 4);
  TFR_ASSERT_ERROR(tfr_pad_shape(s, x, p, (int64_t[]){0, 0}, (int64_t[]){0, 0},
                                 (int64_t[]){0, 0}, NULL), E, "pad: out_shape is NULL");
  TFR_ASSERT_ERROR(tfr_pad_shape(s, x, pf, (int64_t[]){0, 0}, (int64_t[]){0, 0},
                                 (int64_t[]){0, 0}, shape), E, "pad");
  const tfr_tensor *many[64];
  for (int i = 0; i < 64; i++) many[i] = x;
  TFR_ASSERT_OK(tfr_concatenate_shape(s, 64, many, 1, shape));
  assert_int_equal(shape[0], 3);
  assert_int_equal(shape[1], 256);
  TFR_ASSERT_ERROR(tfr_concatenate_shape(s, 1, many, 0, NULL), E,
                   "concatenate: out_shape is NULL");
  TFR_ASSERT_ERROR(tfr_concatenate_shape(s, 1, many, 2, shape), E, "concatenate");
  int rank;
  TFR_ASSERT_ERROR(tfr_gather_shape(s, x, v, NULL, &rank, shape), E, "gather");
  TFR_ASSERT_ERROR(tfr_gather_shape(s, x, v, NULL, NULL, shape), E, "gather: out_rank is NULL");

  // slice
  TFR_ASSERT_ERROR(tfr_slice(s, x, (int64_t[]){0, 0}, (int64_t[]){1, 1}, NULL, NULL), E,
                   "slice: out is NULL");
  IX_EXPECT_ERR(tfr_slice(s, x, NULL, (int64_t[]){1, 1}, NULL, out), E,
                "slice: start_indices is NULL");
  IX_EXPECT_ERR(tfr_slice(s, x, (int64_t[]){0, 0}, (int64_t[]){1, 1}, (int64_t[]){1, 0}, out), E,
                "slice: strides[1] = 0 must be > 0 (C4)");
  IX_EXPECT_ERR(tfr_slice(s, x, (int64_t[]){0, -1}, (int64_t[]){1, 1}, NULL, out), E,
                "slice: start_indices[1] = -1 is negative (C3)");
  IX_EXPECT_ERR(tfr_slice(s, x, (int64_t[]){2, 0}, (int64_t[]){1, 1}, NULL, out), E,
                "slice: start_indices[0] = 2 exceeds limit_indices[0] = 1 (C3)");
  IX_EXPECT_ERR(tfr_slice(s, x, (int64_t[]){0, 0}, (int64_t[]){1, 5}, NULL, out), E,
                "slice: limit_indices[1] = 5 exceeds operand extent 4 (C3)");
  // reverse
  IX_EXPECT_ERR(tfr_reverse(s, x, 1, NULL, out), E, "reverse: dimensions is NULL");
  IX_EXPECT_ERR(tfr_reverse(s, x, 1, (int64_t[]){2}, out), E,
                "reverse: dimensions[0] = 2 is out of range [0, 2)", "(C3)");
  IX_EXPECT_ERR(tfr_reverse(s, x, 2, (int64_t[]){1, 1}, out), E,
                "reverse: dimensions[1] = 1 repeats dimensions[0] (C2)");
  // dynamic_slice
  const tfr_tensor *st2[2] = {s64, s64};
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, NULL, (int64_t[]){1, 1}, out), E,
                "dynamic_slice: start_indices is NULL");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, (const tfr_tensor *[]){s64, NULL}, (int64_t[]){1, 1}, out),
                E, "dynamic_slice: start_indices[1] is NULL");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, (const tfr_tensor *[]){s64, sv}, (int64_t[]){1, 1}, out),
                E, "dynamic_slice: start_indices[1] has rank 1, must be 0");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, (const tfr_tensor *[]){sf, s64}, (int64_t[]){1, 1}, out),
                E, "dynamic_slice: start_indices[0] has dtype f32, must be an integer dtype");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, (const tfr_tensor *[]){s64, s32}, (int64_t[]){1, 1}, out),
                E, "start_indices[1] has dtype i32, start_indices[0] has i64");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, st2, NULL, out), E, "dynamic_slice: slice_sizes is NULL");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, st2, (int64_t[]){-1, 1}, out), E,
                "dynamic_slice: slice_sizes[0] = -1 is negative (C4)");
  IX_EXPECT_ERR(tfr_dynamic_slice(s, x, st2, (int64_t[]){1, 5}, out), E,
                "dynamic_slice: slice_sizes[1] = 5 exceeds operand extent 4 (C4)");
  // dynamic_update_slice
  IX_EXPECT_ERR(tfr_dynamic_update_slice(s, x, y, st2, out), E,
                "dynamic_update_slice: update has dtype f32, operand has dtype i32", "(C2)");
  IX_EXPECT_ERR(tfr_dynamic_update_slice(s, x, v, st2, out), E,
                "dynamic_update_slice: update has rank 1, operand has rank 2 (C3)");
  {
    tfr_tensor *big = tfr_test_random_tensor(TFR_I32, 2, (int64_t[]){4, 1}, 1);
    IX_EXPECT_ERR(tfr_dynamic_update_slice(s, x, big, st2, out), E,
                  "update extent 4 of axis 0 exceeds operand extent 3 (C6)");
    tfr_tensor_release(big);
  }
  IX_EXPECT_ERR(tfr_dynamic_update_slice(s, x, x, (const tfr_tensor *[]){s64, sf}, out), E,
                "dynamic_update_slice: start_indices[1] has dtype f32");
  // pad
  int64_t z2[2] = {0, 0};
  IX_EXPECT_ERR(tfr_pad(s, x, v, z2, z2, z2, out), E, "pad: padding_value has rank 1, must be 0");
  IX_EXPECT_ERR(tfr_pad(s, x, pf, z2, z2, z2, out), E,
                "pad: padding_value has dtype f32, operand has dtype i32", "(C1)");
  IX_EXPECT_ERR(tfr_pad(s, x, NULL, z2, z2, z2, out), E, "pad: padding_value is NULL");
  IX_EXPECT_ERR(tfr_pad(s, x, p, z2, NULL, z2, out), E, "pad: edge_padding_high is NULL");
  IX_EXPECT_ERR(tfr_pad(s, x, p, z2, z2, (int64_t[]){0, -1}, out), E,
                "pad: interior_padding[1] = -1 is negative (C3)");
  IX_EXPECT_ERR(tfr_pad(s, x, p, (int64_t[]){-2, 0}, (int64_t[]){-2, 0}, z2, out), E,
                "pad: axis 0: result extent", "= -1 is negative");
  IX_EXPECT_ERR(tfr_pad(s, x, p, (int64_t[]){0, INT64_MAX}, z2, z2, out), E,
                "pad: the result extent of axis 1 overflows");
  IX_EXPECT_ERR(tfr_pad(s, x, p, z2, z2, (int64_t[]){INT64_MAX / 2, 0}, out), E,
                "pad: the result extent of axis 0 overflows");
  // concatenate
  const tfr_tensor *xy[2] = {x, y}, *xv[2] = {x, v}, *xx[2] = {x, x};
  IX_EXPECT_ERR(tfr_concatenate(s, 0, xx, 0, out), E,
                "concatenate: 0 inputs, needs at least 1 (C3)");
  IX_EXPECT_ERR(tfr_concatenate(s, 2, NULL, 0, out), E, "concatenate: inputs is NULL");
  IX_EXPECT_ERR(tfr_concatenate(s, 2, (const tfr_tensor *[]){x, NULL}, 0, out), E,
                "concatenate: inputs[1] is NULL");
  IX_EXPECT_ERR(tfr_concatenate(s, 2, xx, 2, out), E,
                "concatenate: dimension = 2 is out of range [0, 2)", "(C4)");
  IX_EXPECT_ERR(tfr_concatenate(s, 1, (const tfr_tensor *[]){p}, 0, out), E,
                "concatenate: dimension = 0 is out of range [0, 0)");
  IX_EXPECT_ERR(tfr_concatenate(s, 2, xy, 0, out), E,
                "concatenate: inputs[1] has dtype f32, inputs[0] has dtype i32", "(C1)");
  IX_EXPECT_ERR(tfr_concatenate(s, 2, xv, 0, out), E,
                "concatenate: inputs[1] has rank 1, inputs[0] has rank 2 (C2)");
  {
    tfr_tensor *w = tfr_test_random_tensor(TFR_I32, 2, (int64_t[]){3, 5}, 1);
    const tfr_tensor *xw[2] = {x, w};
    IX_EXPECT_ERR(tfr_concatenate(s, 2, xw, 0, out), E,
                  "concatenate: inputs[1] has extent 5 on axis 1, inputs[0] has 4", "(C2)");
    tfr_tensor *r = NULL;
    TFR_ASSERT_OK(tfr_concatenate(s, 2, xw, 1, &r));  // the differing axis is fine
    assert_int_equal(tfr_tensor_shape(r)[1], 9);
    tfr_tensor_release(r);
    tfr_tensor_release(w);
  }
  tfr_tensor *tensors[] = {x, y, v, p, pf, s64, s32, sv, sf};
  for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) tfr_tensor_release(tensors[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_cases), cmocka_unit_test(test_broadcast_inputs),
      cmocka_unit_test(test_out_of_memory),   cmocka_unit_test(test_gather_errors),
      cmocka_unit_test(test_scatter_errors),  cmocka_unit_test(test_other_errors),
      cmocka_unit_test(test_index_dtypes), cmocka_unit_test(test_pad_empty_result_long_axis),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
