// The indexing ops on the webgpu backend (src/webgpu/gather_scatter.c, and the
// copies that slice, pad, concatenate and reverse are made of), differential
// against the cpu backend: the same inputs (and the same views of them) go
// through both, and the results must be bit-identical. That includes f32 and
// c64 scatter-add with duplicate indices: the webgpu scatter applies
// duplicates in row-major batch order, like the cpu, so sums round the same
// way. (c64 multiply uses small integer values: the two products of each part
// are exact, so a driver's fused multiply-add cannot change a bit.)
//
// A few cases are also checked against hand-computed values, so that the
// reference itself is pinned down where the semantics are subtle (replace
// keeps the last duplicate, skipped and clamped windows, i64 indices whose
// low word alone would look in range).
//
// Without the Dawn provider or an adapter every test SKIPS (exit 77); with
// TFR_REQUIRE_WEBGPU=1 they fail instead.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const tfr_dtype ix_dtypes[] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
#define IX_NDTYPES 4

// ---------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------

// Asserts equal dtype, shape and bytes of two host tensors.
static void ix_same(const tfr_tensor *want, const tfr_tensor *got, const char *what) {
  assert_int_equal(tfr_tensor_dtype(want), tfr_tensor_dtype(got));
  assert_int_equal(tfr_tensor_rank(want), tfr_tensor_rank(got));
  for (int k = 0; k < tfr_tensor_rank(want); k++)
    if (tfr_tensor_shape(want)[k] != tfr_tensor_shape(got)[k])
      fail_msg("%s: axis %d has extent %" PRId64 ", want %" PRId64, what, k,
               tfr_tensor_shape(got)[k], tfr_tensor_shape(want)[k]);
  size_t n = tfr_tensor_nbytes(want);
  unsigned char *a = malloc(n + 1), *b = malloc(n + 1);
  assert_non_null(a);
  assert_non_null(b);
  TFR_ASSERT_OK(tfr_tensor_read(want, a, n));
  TFR_ASSERT_OK(tfr_tensor_read(got, b, n));
  if (memcmp(a, b, n) != 0) {
    size_t es = tfr_dtype_size(tfr_tensor_dtype(want));
    size_t i = 0;
    while (a[i] == b[i]) i++;
    char wb[40] = "", gb[40] = "";
    size_t e0 = i / es * es;
    for (size_t k = es; k-- > 0 && es <= 16;) {  // the element's bytes, most significant first
      snprintf(wb + strlen(wb), sizeof wb - strlen(wb), "%02x", a[e0 + k]);
      snprintf(gb + strlen(gb), sizeof gb - strlen(gb), "%02x", b[e0 + k]);
    }
    fail_msg("%s (%s): element %zu differs: want 0x%s, got 0x%s", what,
             tfr_dtype_name(tfr_tensor_dtype(want)), i / es, wb, gb);
  }
  free(a);
  free(b);
}

// An op on its inputs (already on the session's backend).
typedef tfr_status (*ix_op_fn)(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                               tfr_tensor **out);
// A view made alike of the host input and of its device copy.
typedef tfr_status (*ix_view_fn)(const tfr_tensor *t, tfr_tensor **out);

typedef struct ix_case {
  const char *what;
  ix_op_fn op;
  const void *cfg;
  int n;
  tfr_tensor *in[8];     // host tensors (owned by the caller)
  ix_view_fn view[8];    // NULL: the input itself
} ix_case;

// Runs the case on cpu and on webgpu, compares, and returns the cpu result
// (for hand checks; the caller releases it).
static tfr_tensor *ix_diff(const ix_case *c) {
  tfr_tensor *hv[8] = {NULL}, *dv[8] = {NULL}, *dev[8] = {NULL};
  for (int i = 0; i < c->n; i++) {
    if (c->view[i]) TFR_ASSERT_OK(c->view[i](c->in[i], &hv[i]));
    else tfr_tensor_retain(hv[i] = c->in[i]);
  }
  tfr_tensor *want = NULL, *got_dev = NULL;
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  TFR_ASSERT_OK(c->op(s, hv, c->cfg, &want));
  tfr_test_end(s);
  s = tfr_test_begin(tfr_test_gpu);
  for (int i = 0; i < c->n; i++) {
    dev[i] = tfr_test_upload(s, c->in[i]);
    if (c->view[i]) TFR_ASSERT_OK(c->view[i](dev[i], &dv[i]));
    else tfr_tensor_retain(dv[i] = dev[i]);
  }
  tfr_status st = c->op(s, dv, c->cfg, &got_dev);
  if (st) fail_msg("%s: webgpu: %s: %s", c->what, tfr_status_string(st), tfr_last_error_message());
  assert_false(tfr_tensor_is_host(got_dev));
  tfr_tensor *got = tfr_test_download(s, got_dev);
  tfr_test_end(s);
  ix_same(want, got, c->what);
  tfr_tensor_release(got);
  tfr_tensor_release(got_dev);
  for (int i = 0; i < c->n; i++) {
    tfr_tensor_release(hv[i]);
    tfr_tensor_release(dv[i]);
    tfr_tensor_release(dev[i]);
  }
  return want;
}

static void ix_diff_only(const ix_case *c) { tfr_tensor_release(ix_diff(c)); }

static void ix_release_inputs(ix_case *c) {
  for (int i = 0; i < c->n; i++) {
    tfr_tensor_release(c->in[i]);
    c->in[i] = NULL;
  }
}

// Host tensors.
static tfr_tensor *ix_rand(tfr_dtype dt, int rank, const int64_t *shape, uint64_t seed) {
  return tfr_test_random_tensor(dt, rank, shape, seed);
}

static tfr_tensor *ix_i32(int rank, const int64_t *shape, const int32_t *v) {
  return tfr_test_tensor(TFR_I32, rank, shape, v);
}

static tfr_tensor *ix_i64(int rank, const int64_t *shape, const int64_t *v) {
  return tfr_test_tensor(TFR_I64, rank, shape, v);
}

// Index tensor of `n` values uniform in [lo, hi) in the integer dtype `dt`
// (values wrap to the dtype's width, as a C conversion does).
static tfr_tensor *ix_rand_index(tfr_dtype dt, int rank, const int64_t *shape, int64_t lo,
                                 int64_t hi, uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  uint64_t st = seed * 77 + 5;
  size_t es = tfr_dtype_size(dt);
  unsigned char *v = malloc((size_t)(n ? n : 1) * es);
  assert_non_null(v);
  for (int64_t i = 0; i < n; i++) {
    uint64_t x = (uint64_t)(lo + (int64_t)(tfr_test_rand_u64(&st) % (uint64_t)(hi - lo)));
    memcpy(v + i * (int64_t)es, &x, es);  // little-endian: the low bytes
  }
  tfr_tensor *t = tfr_test_tensor(dt, rank, shape, v);
  free(v);
  return t;
}

// Small integer values (c64 and f32 products stay exact).
static tfr_tensor *ix_small(tfr_dtype dt, int rank, const int64_t *shape, uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  uint64_t st = seed * 31 + 7;
  float *v = malloc((size_t)n * 2 * sizeof *v + 8);
  static const float vals[] = {-2.0f, -1.0f, 1.0f, 2.0f};
  int parts = dt == TFR_C64 ? 2 : 1;
  for (int64_t i = 0; i < n * parts; i++) v[i] = vals[tfr_test_rand_u64(&st) % 4];
  tfr_tensor *t = tfr_test_tensor(dt, rank, shape, v);
  free(v);
  return t;
}

// Views.
static tfr_status ix_view_reverse_all(const tfr_tensor *t, tfr_tensor **out) {
  int64_t axes[TFR_MAX_RANK];
  for (int k = 0; k < tfr_tensor_rank(t); k++) axes[k] = k;
  return tfr_tensor_view_reverse(t, tfr_tensor_rank(t), axes, out);
}

static tfr_status ix_view_transpose2(const tfr_tensor *t, tfr_tensor **out) {
  int64_t perm[2] = {1, 0};
  return tfr_tensor_view_transpose(t, perm, out);
}

static tfr_status ix_view_transpose_rev(const tfr_tensor *t, tfr_tensor **out) {
  int64_t perm[TFR_MAX_RANK];
  int r = tfr_tensor_rank(t);
  for (int k = 0; k < r; k++) perm[k] = r - 1 - k;
  return tfr_tensor_view_transpose(t, perm, out);
}

// Every other element along axis 0 (a strided view).
static tfr_status ix_view_step2(const tfr_tensor *t, tfr_tensor **out) {
  int64_t start[TFR_MAX_RANK] = {0}, limit[TFR_MAX_RANK], step[TFR_MAX_RANK];
  for (int k = 0; k < tfr_tensor_rank(t); k++) {
    limit[k] = tfr_tensor_shape(t)[k];
    step[k] = k == 0 ? 2 : 1;
  }
  return tfr_tensor_view_slice(t, start, limit, step, out);
}

// All but the first row: compact strides, a non-zero offset.
static tfr_status ix_view_drop_row(const tfr_tensor *t, tfr_tensor **out) {
  int64_t start[TFR_MAX_RANK] = {1}, limit[TFR_MAX_RANK];
  for (int k = 0; k < tfr_tensor_rank(t); k++) limit[k] = tfr_tensor_shape(t)[k];
  return tfr_tensor_view_slice(t, start, limit, NULL, out);
}

// ---------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------

static tfr_status ix_op_gather(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                               tfr_tensor **out) {
  return tfr_gather(s, in[0], in[1], cfg, out);
}

static tfr_status ix_op_scatter(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                                tfr_tensor **out) {
  return tfr_scatter(s, in[0], in[1], in[2], cfg, out);
}

// ---------------------------------------------------------------------------
// gather
// ---------------------------------------------------------------------------

// Rows of a matrix, with clamped starts, i32 and i64 indices, explicit and
// implicit index vector dim, every dtype.
static void test_gather_rows(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype all[] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64, TFR_F64, TFR_I64, TFR_C128};
  int64_t oshape[2] = {7, 5};
  int64_t collapsed[1] = {0}, offset[1] = {1}, map[1] = {0}, sizes[2] = {1, 5};
  for (int d = 0; d < 7; d++) {
    for (int ivd_explicit = 0; ivd_explicit < 2; ivd_explicit++) {
      for (int i64 = 0; i64 < 2; i64++) {
        int64_t ishape[2] = {9, 1};
        int32_t v32[9] = {0, 6, 3, -1, 7, 100, INT32_MIN, INT32_MAX, 2};
        int64_t v64[9] = {0, 6, 3, -1, 7, (INT64_C(1) << 32) + 1, INT64_MIN, INT64_MAX,
                          -(INT64_C(1) << 32)};
        ix_case c = {.what = "gather rows", .op = ix_op_gather, .n = 2};
        c.in[0] = ix_rand(all[d], 2, oshape, 11 + (uint64_t)d);
        c.in[1] = i64 ? ix_i64(ivd_explicit ? 2 : 1, ishape, v64)
                      : ix_i32(ivd_explicit ? 2 : 1, ishape, v32);
        tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = offset,
                               .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                               .num_start_index_map = 1, .start_index_map = map,
                               .index_vector_dim = 1, .slice_sizes = sizes};
        c.cfg = &g;
        tfr_tensor *want = ix_diff(&c);
        if (all[d] == TFR_I32) {
          // Hand check: the clamped row of each index.
          const int32_t *o = NULL, *r = NULL;
          TFR_ASSERT_OK(tfr_tensor_host_data(c.in[0], (void **)&o));
          TFR_ASSERT_OK(tfr_tensor_host_data(want, (void **)&r));
          const int rows32[9] = {0, 6, 3, 0, 6, 6, 0, 6, 2};
          const int rows64[9] = {0, 6, 3, 0, 6, 6, 0, 6, 0};
          for (int i = 0; i < 9; i++)
            for (int k = 0; k < 5; k++)
              assert_int_equal(r[i * 5 + k], o[(i64 ? rows64[i] : rows32[i]) * 5 + k]);
        }
        tfr_tensor_release(want);
        ix_release_inputs(&c);
      }
    }
  }
}

// Windows of several axes, start components in a permuted order, collapsed
// and offset dims interleaved with batch dims, index vector not last.
static void test_gather_windows(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  for (int d = 0; d < IX_NDTYPES; d++) {
    for (int i64 = 0; i64 < 2; i64++) {
      // operand [6, 5, 4]; indices [2, 3, 2] with the vector on axis 0:
      // batch [3, 2]; start components -> operand axes 2, 0.
      int64_t oshape[3] = {6, 5, 4}, ishape[3] = {2, 3, 2};
      int64_t offset[2] = {1, 3}, collapsed[1] = {2}, map[2] = {2, 0}, sizes[3] = {3, 5, 1};
      tfr_gather_config g = {.num_offset_dims = 2, .offset_dims = offset,
                             .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                             .num_start_index_map = 2, .start_index_map = map,
                             .index_vector_dim = 0, .slice_sizes = sizes};
      ix_case c = {.what = "gather windows", .op = ix_op_gather, .cfg = &g, .n = 2};
      c.in[0] = ix_rand(ix_dtypes[d], 3, oshape, 20 + (uint64_t)d);
      c.in[1] = ix_rand_index(i64 ? TFR_I64 : TFR_I32, 3, ishape, -3, 9, 3 + (uint64_t)i64);
      ix_diff_only(&c);
      // The same on negative-stride views of the operand and of the index
      // tensor.
      c.view[0] = ix_view_reverse_all;
      c.view[1] = ix_view_reverse_all;
      ix_diff_only(&c);
      ix_release_inputs(&c);
    }
  }
}

// Batching dims (operand_batching_dims / start_indices_batching_dims).
static void test_gather_batching(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  for (int d = 0; d < IX_NDTYPES; d++) {
    // operand [3, 6, 4], batching axis 0 <-> indices axis 1; indices [5, 3, 1].
    int64_t oshape[3] = {3, 6, 4}, ishape[3] = {5, 3, 1};
    int64_t offset[1] = {2}, collapsed[1] = {1}, obatch[1] = {0}, ibatch[1] = {1}, map[1] = {1};
    int64_t sizes[3] = {1, 1, 4};
    tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = offset,
                           .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                           .num_operand_batching_dims = 1, .operand_batching_dims = obatch,
                           .num_start_indices_batching_dims = 1,
                           .start_indices_batching_dims = ibatch, .num_start_index_map = 1,
                           .start_index_map = map, .index_vector_dim = 2, .slice_sizes = sizes};
    ix_case c = {.what = "gather batching", .op = ix_op_gather, .cfg = &g, .n = 2};
    c.in[0] = ix_rand(ix_dtypes[d], 3, oshape, 40 + (uint64_t)d);
    c.in[1] = ix_rand_index(TFR_I32, 3, ishape, -2, 8, 9);
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// Strided, negative-stride and stride-0 operands and index tensors.
static tfr_status ix_view_bcast_rows(const tfr_tensor *t, tfr_tensor **out) {
  // [1, 5] -> [7, 5] (stride 0 on axis 0)
  int64_t shape[2] = {7, 5}, dims[2] = {0, 1};
  return tfr_tensor_view_broadcast_in_dim(t, 2, shape, dims, out);
}

static tfr_status ix_view_bcast_index(const tfr_tensor *t, tfr_tensor **out) {
  // [1] -> [6, 1]: every batch position reads the same index (stride 0)
  int64_t shape[2] = {6, 1}, dims[1] = {1};
  return tfr_tensor_view_broadcast_in_dim(t, 2, shape, dims, out);
}

static void test_gather_strides(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t collapsed[1] = {0}, offset[1] = {1}, map[1] = {0}, sizes[2] = {1, 5};
  tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = offset,
                         .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                         .num_start_index_map = 1, .start_index_map = map,
                         .index_vector_dim = 1, .slice_sizes = sizes};
  for (int d = 0; d < IX_NDTYPES; d++) {
    int64_t oshape[2] = {14, 5}, tshape[2] = {5, 7}, ishape[2] = {6, 1}, one[1] = {1};
    int32_t iv[6] = {1, -4, 5, 6, 3, 0};
    ix_case c = {.what = "gather strided operand", .op = ix_op_gather, .cfg = &g, .n = 2};
    c.in[0] = ix_rand(ix_dtypes[d], 2, oshape, 50 + (uint64_t)d);
    c.in[1] = ix_i32(2, ishape, iv);
    c.view[0] = ix_view_step2;  // [7, 5], row stride 10
    ix_diff_only(&c);
    c.view[0] = ix_view_reverse_all;  // negative strides
    ix_diff_only(&c);
    tfr_tensor_release(c.in[0]);
    c.in[0] = ix_rand(ix_dtypes[d], 2, tshape, 60 + (uint64_t)d);
    c.view[0] = ix_view_transpose2;  // [7, 5], column-major
    ix_diff_only(&c);
    tfr_tensor_release(c.in[0]);
    int64_t rshape[2] = {1, 5};
    c.in[0] = ix_rand(ix_dtypes[d], 2, rshape, 70 + (uint64_t)d);
    c.view[0] = ix_view_bcast_rows;  // stride 0
    ix_diff_only(&c);
    tfr_tensor_release(c.in[1]);
    int32_t five = 5;
    c.in[1] = ix_i32(1, one, &five);
    c.view[1] = ix_view_bcast_index;
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// Rank-0 operand (an index vector of extent 0), and a result that is the
// whole operand (dynamic_slice style, window of every axis).
static void test_gather_rank0(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  for (int d = 0; d < IX_NDTYPES; d++) {
    int64_t ishape[2] = {4, 0};
    tfr_gather_config g = {.index_vector_dim = 1};
    ix_case c = {.what = "gather rank 0", .op = ix_op_gather, .cfg = &g, .n = 2};
    c.in[0] = ix_rand(ix_dtypes[d], 0, NULL, 80 + (uint64_t)d);
    c.in[1] = tfr_test_tensor(TFR_I32, 2, ishape, NULL);
    tfr_tensor *want = ix_diff(&c);
    assert_int_equal(tfr_tensor_numel(want), 4);
    tfr_tensor_release(want);
    ix_release_inputs(&c);
  }
}

// Rank 12, axes that do not merge: the metadata does not fit the uniform
// parameters and goes through a storage buffer.
static void test_gather_high_rank(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t oshape[12], offset[10], collapsed[2] = {0, 1}, map[12], sizes[12];
  for (int k = 0; k < 12; k++) {
    oshape[k] = 3;
    map[k] = k;
    sizes[k] = k < 2 ? 1 : 2;
  }
  for (int k = 0; k < 10; k++) offset[k] = k + 1;
  int64_t ishape[2] = {3, 12};
  tfr_gather_config g = {.num_offset_dims = 10, .offset_dims = offset,
                         .num_collapsed_slice_dims = 2, .collapsed_slice_dims = collapsed,
                         .num_start_index_map = 12, .start_index_map = map,
                         .index_vector_dim = 1, .slice_sizes = sizes};
  for (int d = 0; d < IX_NDTYPES; d++) {
    ix_case c = {.what = "gather rank 12", .op = ix_op_gather, .cfg = &g, .n = 2};
    c.in[0] = ix_rand(ix_dtypes[d], 12, oshape, 90 + (uint64_t)d);
    c.in[1] = ix_rand_index(TFR_I64, 2, ishape, -1, 4, 17);
    c.view[0] = ix_view_transpose_rev;
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// ---------------------------------------------------------------------------
// scatter
// ---------------------------------------------------------------------------

static const tfr_scatter_combiner ix_combiners[] = {TFR_SCATTER_REPLACE, TFR_SCATTER_ADD,
                                                    TFR_SCATTER_MULTIPLY, TFR_SCATTER_MAXIMUM,
                                                    TFR_SCATTER_MINIMUM};

static bool ix_combiner_ok(tfr_scatter_combiner c, tfr_dtype dt) {
  return dt != TFR_BOOL || (c != TFR_SCATTER_ADD && c != TFR_SCATTER_MULTIPLY);
}

// Updates of `dt` for combiner `c`: small integers for multiplies (exact
// products), random values otherwise.
static tfr_tensor *ix_updates(tfr_scatter_combiner c, tfr_dtype dt, int rank,
                              const int64_t *shape, uint64_t seed) {
  if (c == TFR_SCATTER_MULTIPLY && (dt == TFR_C64 || dt == TFR_F32))
    return ix_small(dt, rank, shape, seed);
  return ix_rand(dt, rank, shape, seed);
}

// Rows of a matrix with many duplicates and out-of-bounds rows (skipped):
// the "window" path (windows equal or disjoint), every combiner and dtype.
static void test_scatter_rows(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t uwd[1] = {1}, ins[1] = {0}, map[1] = {0};
  for (int d = 0; d < IX_NDTYPES; d++)
    for (int ci = 0; ci < 5; ci++) {
      tfr_scatter_combiner cb = ix_combiners[ci];
      if (!ix_combiner_ok(cb, ix_dtypes[d])) continue;
      for (int i64 = 0; i64 < 2; i64++) {
        int64_t oshape[2] = {6, 3}, ishape[2] = {40, 1}, ushape[2] = {40, 3};
        tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd,
                                 .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                                 .num_scatter_dims_to_operand_dims = 1,
                                 .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                                 .combiner = cb};
        ix_case c = {.what = "scatter rows", .op = ix_op_scatter, .cfg = &sc, .n = 3};
        char what[64];
        snprintf(what, sizeof what, "scatter rows (combiner %d, %s indices)", (int)cb,
                 i64 ? "i64" : "i32");
        c.what = what;
        c.in[0] = ix_rand(ix_dtypes[d], 2, oshape, 100 + (uint64_t)d);
        c.in[1] = ix_rand_index(i64 ? TFR_I64 : TFR_I32, 2, ishape, -1, 8, 5 + (uint64_t)ci);
        c.in[2] = ix_updates(cb, ix_dtypes[d], 2, ushape, 200 + (uint64_t)(d * 5 + ci));
        if (cb == TFR_SCATTER_MULTIPLY && ix_dtypes[d] == TFR_C64) {
          // Few duplicates: products of small integers stay exact.
          tfr_tensor_release(c.in[1]);
          int32_t v[40];
          for (int i = 0; i < 40; i++) v[i] = i % 10;  // rows 0..5 four times, 6..9 skipped
          c.in[1] = ix_i32(2, ishape, v);
        }
        ix_diff_only(&c);
        // The same on views of the operand: with an offset (webgpu merges
        // the operand's copy into the apply, scatter_apply_tiled.wgsl),
        // strided and reversed (copied first).
        if (!i64) {
          ix_view_fn views[3] = {ix_view_drop_row, ix_view_step2, ix_view_reverse_all};
          int64_t rows[3] = {7, 11, 6};
          for (int v = 0; v < 3; v++) {
            tfr_tensor_release(c.in[0]);
            int64_t vshape[2] = {rows[v], 3};
            c.in[0] = ix_rand(ix_dtypes[d], 2, vshape, 700 + (uint64_t)(d * 3 + v));
            c.view[0] = views[v];
            ix_diff_only(&c);
          }
        }
        ix_release_inputs(&c);
      }
    }
}

// Scalars into a vector (window of one element), implicit index vector dim,
// with long runs of duplicates, and into a rank-0 operand (every update hits
// the one element, in order).
static void test_scatter_scalars(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t ins[1] = {0}, map[1] = {0};
  for (int d = 0; d < IX_NDTYPES; d++)
    for (int ci = 0; ci < 5; ci++) {
      tfr_scatter_combiner cb = ix_combiners[ci];
      if (!ix_combiner_ok(cb, ix_dtypes[d])) continue;
      if (cb == TFR_SCATTER_MULTIPLY && ix_dtypes[d] == TFR_C64) continue;  // see test_scatter_rows
      int64_t oshape[1] = {10}, ishape[1] = {3000};
      tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                               .num_scatter_dims_to_operand_dims = 1,
                               .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                               .combiner = cb};
      ix_case c = {.what = "scatter scalars", .op = ix_op_scatter, .cfg = &sc, .n = 3};
      c.in[0] = ix_rand(ix_dtypes[d], 1, oshape, 300 + (uint64_t)d);
      c.in[1] = ix_rand_index(TFR_I32, 1, ishape, -2, 12, 7 + (uint64_t)ci);
      c.in[2] = ix_updates(cb, ix_dtypes[d], 1, ishape, 400 + (uint64_t)(d * 5 + ci));
      ix_diff_only(&c);
      ix_release_inputs(&c);

      // Rank 0: indices [n, 0], updates [n].
      int64_t i0[2] = {50, 0}, u0[1] = {50};
      tfr_scatter_config s0 = {.index_vector_dim = 1, .combiner = cb};
      ix_case c0 = {.what = "scatter rank 0", .op = ix_op_scatter, .cfg = &s0, .n = 3};
      c0.in[0] = ix_rand(ix_dtypes[d], 0, NULL, 500 + (uint64_t)d);
      c0.in[1] = tfr_test_tensor(TFR_I32, 2, i0, NULL);
      c0.in[2] = ix_updates(cb, ix_dtypes[d], 1, u0, 600 + (uint64_t)ci);
      ix_diff_only(&c0);
      ix_release_inputs(&c0);
    }
}

// Partly overlapping windows (the per-element path): [3, 4] windows into an
// [8, 7] operand at random starts, some out of bounds (skipped).
static void test_scatter_overlap(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t uwd[2] = {1, 2}, map[2] = {0, 1};
  for (int d = 0; d < IX_NDTYPES; d++)
    for (int ci = 0; ci < 5; ci++) {
      tfr_scatter_combiner cb = ix_combiners[ci];
      if (!ix_combiner_ok(cb, ix_dtypes[d])) continue;
      if (cb == TFR_SCATTER_MULTIPLY && ix_dtypes[d] == TFR_C64) continue;
      int64_t oshape[2] = {8, 7}, ishape[2] = {30, 2}, ushape[3] = {30, 3, 4};
      tfr_scatter_config sc = {.num_update_window_dims = 2, .update_window_dims = uwd,
                               .num_scatter_dims_to_operand_dims = 2,
                               .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                               .combiner = cb};
      ix_case c = {.what = "scatter overlapping windows", .op = ix_op_scatter, .cfg = &sc,
                   .n = 3};
      c.in[0] = ix_rand(ix_dtypes[d], 2, oshape, 700 + (uint64_t)d);
      c.in[1] = ix_rand_index(TFR_I64, 2, ishape, -1, 6, 11 + (uint64_t)ci);
      c.in[2] = ix_updates(cb, ix_dtypes[d], 3, ushape, 800 + (uint64_t)(d * 5 + ci));
      ix_diff_only(&c);
      // Strided updates and a reversed operand.
      c.view[0] = ix_view_reverse_all;
      c.view[2] = ix_view_reverse_all;
      ix_diff_only(&c);
      ix_release_inputs(&c);
    }
}

// Batching dims, and stride-0 (broadcast) updates.
static tfr_status ix_view_bcast_updates(const tfr_tensor *t, tfr_tensor **out) {
  // [3] -> [2, 5, 3]
  int64_t shape[3] = {2, 5, 3}, dims[1] = {2};
  return tfr_tensor_view_broadcast_in_dim(t, 3, shape, dims, out);
}

static void test_scatter_batching(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  // operand [2, 6, 3]; batching axis 0 <-> indices axis 0; indices [2, 5];
  // updates [2, 5, 3].
  int64_t uwd[1] = {2}, ins[1] = {1}, ib[1] = {0}, sib[1] = {0}, map[1] = {1};
  for (int d = 0; d < IX_NDTYPES; d++)
    for (int ci = 0; ci < 5; ci++) {
      tfr_scatter_combiner cb = ix_combiners[ci];
      if (!ix_combiner_ok(cb, ix_dtypes[d])) continue;
      int64_t oshape[3] = {2, 6, 3}, ishape[2] = {2, 5}, ushape[3] = {2, 5, 3}, u1[1] = {3};
      tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd,
                               .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                               .num_input_batching_dims = 1, .input_batching_dims = ib,
                               .num_scatter_indices_batching_dims = 1,
                               .scatter_indices_batching_dims = sib,
                               .num_scatter_dims_to_operand_dims = 1,
                               .scatter_dims_to_operand_dims = map, .index_vector_dim = 2,
                               .combiner = cb};
      ix_case c = {.what = "scatter batching", .op = ix_op_scatter, .cfg = &sc, .n = 3};
      c.in[0] = ix_rand(ix_dtypes[d], 3, oshape, 900 + (uint64_t)d);
      c.in[1] = ix_rand_index(TFR_I32, 2, ishape, -1, 7, 13 + (uint64_t)ci);
      c.in[2] = ix_updates(cb, ix_dtypes[d], 3, ushape, 1000 + (uint64_t)(d * 5 + ci));
      ix_diff_only(&c);
      tfr_tensor_release(c.in[2]);
      c.in[2] = ix_updates(cb, ix_dtypes[d], 1, u1, 1100 + (uint64_t)ci);
      c.view[2] = ix_view_bcast_updates;
      ix_diff_only(&c);
      ix_release_inputs(&c);
    }
}

// Hand-checked values: replace keeps the last duplicate, add sums in order,
// out-of-bounds windows are skipped, and i64 indices whose low word alone
// would be in range are out of bounds.
static void test_scatter_known(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t ins[1] = {0}, map[1] = {0};
  int64_t oshape[1] = {4}, ishape[1] = {7};
  int32_t op[4] = {10, 20, 30, 40};
  int64_t iv[7] = {1, 3, 1, (INT64_C(1) << 32) + 2, -1, 4, 1};
  int32_t uv[7] = {1, 2, 3, 4, 5, 6, 7};
  const int32_t want_replace[4] = {10, 7, 30, 2};
  const int32_t want_add[4] = {10, 31, 30, 42};
  for (int k = 0; k < 2; k++) {
    tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = k ? TFR_SCATTER_ADD : TFR_SCATTER_REPLACE};
    ix_case c = {.what = "scatter known values", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_i32(1, oshape, op);
    c.in[1] = ix_i64(1, ishape, iv);
    c.in[2] = ix_i32(1, ishape, uv);
    tfr_tensor *want = ix_diff(&c);
    const int32_t *r = NULL;
    TFR_ASSERT_OK(tfr_tensor_host_data(want, (void **)&r));
    assert_memory_equal(r, k ? want_add : want_replace, sizeof want_add);
    tfr_tensor_release(want);
    ix_release_inputs(&c);
  }
}

// Empty index sets, and windows of extent 0.
static void test_scatter_empty(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t uwd[1] = {1}, ins[1] = {0}, map[1] = {0};
  for (int d = 0; d < IX_NDTYPES; d++) {
    int64_t oshape[2] = {4, 3}, ishape[2] = {0, 1}, ushape[2] = {0, 3};
    tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd,
                             .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_REPLACE};
    ix_case c = {.what = "scatter empty", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_rand(ix_dtypes[d], 2, oshape, 1200 + (uint64_t)d);
    c.in[1] = tfr_test_tensor(TFR_I32, 2, ishape, NULL);
    c.in[2] = tfr_test_tensor(ix_dtypes[d], 2, ushape, NULL);
    tfr_tensor *want = ix_diff(&c);
    ix_same(c.in[0], want, "scatter empty: operand unchanged");
    tfr_tensor_release(want);
    tfr_tensor_release(c.in[1]);
    tfr_tensor_release(c.in[2]);
    int64_t i2[2] = {3, 1}, u2[2] = {3, 0};
    int32_t iv[3] = {0, 1, 2};
    c.in[1] = ix_i32(2, i2, iv);
    c.in[2] = tfr_test_tensor(ix_dtypes[d], 2, u2, NULL);
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// Many updates: several radix-sort blocks and passes, both ordered paths.
static void test_scatter_large(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t ins[1] = {0}, map[1] = {0}, uwd2[1] = {1}, map2[2] = {0, 1};
  // Scalars: 20000 f32 adds into 3000 elements (12-bit keys: two passes,
  // five blocks).
  {
    int64_t oshape[1] = {3000}, ishape[1] = {20000};
    tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_ADD};
    ix_case c = {.what = "scatter large scalars", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_rand(TFR_F32, 1, oshape, 1300);
    c.in[1] = ix_rand_index(TFR_I32, 1, ishape, -10, 3010, 19);
    c.in[2] = ix_rand(TFR_F32, 1, ishape, 1301);
    ix_diff_only(&c);
    sc.combiner = TFR_SCATTER_REPLACE;
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
  // Scalars: 1100000 f32 adds into 70000 elements: more than 256 sort blocks
  // (the scan's tiles carry), 17-bit keys (three 8-bit passes, the last one
  // partial), skipped units (the largest key) among them.
  {
    int64_t oshape[1] = {70000}, ishape[1] = {1100000};
    tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_ADD};
    ix_case c = {.what = "scatter many scalars", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_rand(TFR_F32, 1, oshape, 1310);
    c.in[1] = ix_rand_index(TFR_I32, 1, ishape, -100, 70100, 31);
    c.in[2] = ix_rand(TFR_F32, 1, ishape, 1311);
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
  // Windows [1, 3, 4] of a [2000, 3, 4] result: keys are window numbers (the
  // result offset / 12), 9000 units with duplicates and skipped ones.
  {
    int64_t oshape[3] = {2000, 3, 4}, ishape[2] = {9000, 1}, ushape[3] = {9000, 3, 4};
    int64_t uwd3[2] = {1, 2};
    tfr_scatter_config sc = {.num_update_window_dims = 2, .update_window_dims = uwd3,
                             .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_ADD};
    ix_case c = {.what = "scatter large slabs", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_rand(TFR_F32, 3, oshape, 1320);
    c.in[1] = ix_rand_index(TFR_I32, 2, ishape, -5, 2005, 37);
    c.in[2] = ix_rand(TFR_F32, 3, ushape, 1321);
    ix_diff_only(&c);
    sc.combiner = TFR_SCATTER_REPLACE;
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
  // Overlapping windows [1, 5] (a window of 5 along axis 1 of extent 40):
  // per-element keys, 6000 units.
  {
    int64_t oshape[2] = {30, 40}, ishape[2] = {1200, 2}, ushape[2] = {1200, 5};
    int64_t ins2[1] = {0};
    tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd2,
                             .num_inserted_window_dims = 1, .inserted_window_dims = ins2,
                             .num_scatter_dims_to_operand_dims = 2,
                             .scatter_dims_to_operand_dims = map2, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_ADD};
    ix_case c = {.what = "scatter large windows", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = ix_rand(TFR_F32, 2, oshape, 1400);
    c.in[1] = ix_rand_index(TFR_I32, 2, ishape, 0, 37, 23);
    c.in[2] = ix_rand(TFR_F32, 2, ushape, 1401);
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// Rank 12 with 12 window axes that do not merge (result strides 3^k, updates
// 2^k): the metadata goes through a storage buffer (ordered path for f32 add,
// direct atomics for i32 maximum).
static void test_scatter_high_rank(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t oshape[12], map[12], uwd[12], ushape[13];
  for (int k = 0; k < 12; k++) {
    oshape[k] = 3;
    map[k] = k;
    uwd[k] = k + 1;
    ushape[k + 1] = 2;
  }
  ushape[0] = 4;
  int64_t ishape[2] = {4, 12};
  for (int ci = 0; ci < 2; ci++) {
    tfr_scatter_config sc = {.num_update_window_dims = 12, .update_window_dims = uwd,
                             .num_scatter_dims_to_operand_dims = 12,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = ci ? TFR_SCATTER_MAXIMUM : TFR_SCATTER_ADD};
    for (int d = 0; d < 2; d++) {
      ix_case c = {.what = "scatter rank 12", .op = ix_op_scatter, .cfg = &sc, .n = 3};
      tfr_dtype dt = d ? TFR_I32 : TFR_F32;
      c.in[0] = ix_rand(dt, 12, oshape, 1500 + (uint64_t)d);
      c.in[1] = ix_rand_index(TFR_I32, 2, ishape, 0, 2, 29);
      c.in[2] = ix_rand(dt, 13, ushape, 1501 + (uint64_t)d);
      ix_diff_only(&c);
      ix_release_inputs(&c);
    }
  }
}

// 64-bit dtypes: i64 and u64 compute with 32-bit words (carries, the high
// word of products, signed and unsigned comparison), f64 in software on its bits
// (common/f64.wgsl: add and multiply correctly rounded, in the cpu's order,
// so bit for bit; maximum/minimum with NaN, -0 == +0, infinities); values
// over the full 64-bit range.
static tfr_tensor *ix_wide(tfr_dtype dt, int rank, const int64_t *shape, uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  uint64_t st = seed * 13 + 3, *v = malloc((size_t)n * 8 + 8);
  static const double special[] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -2.5, 2.5,
                                   1e300, -1e-300};
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = tfr_test_rand_u64(&st);
    if (dt == TFR_F64) {
      double x = (r & 1) ? special[(r >> 8) % 9] : ((double)(int64_t)(r >> 12) * 1e-6);
      memcpy(&v[i], &x, 8);
    } else {
      v[i] = (r & 3) == 0 ? r >> 40 : r;  // small and full-range values
    }
  }
  tfr_tensor *t = NULL;
  if (tfr_dtype_size(dt) < 8) {  // the narrow dtypes: the low bytes, as a compact view
    tfr_tensor *flat = tfr_test_words_tensor(dt, n, v);
    int64_t strides[TFR_MAX_RANK], s = 1;
    for (int k = rank - 1; k >= 0; k--) {
      strides[k] = s;
      s *= shape[k];
    }
    TFR_ASSERT_OK(tfr_tensor_view(flat, rank, shape, strides, 0, &t));
    tfr_tensor_release(flat);
  } else {
    t = tfr_test_tensor(dt, rank, shape, v);
  }
  free(v);
  return t;
}

static void test_scatter_64bit(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t uwd[1] = {1}, ins[1] = {0}, map[1] = {0};
  // And the narrow dtypes (computed as i32 / u32 / f32: wrapped to their
  // width, f16/bf16 rounded once per combination; their bits from the same
  // 64-bit words, NaNs and infinities included).
  static const tfr_dtype wide[] = {TFR_I64, TFR_F64, TFR_U64, TFR_U32, TFR_I8,
                                   TFR_I16, TFR_U8,  TFR_U16, TFR_F16, TFR_BF16};
  for (int d = 0; d < (int)(sizeof wide / sizeof wide[0]); d++)
    for (int ci = 0; ci < 5; ci++) {
      tfr_dtype dt = wide[d];
      tfr_scatter_combiner cb = ix_combiners[ci];
      int64_t oshape[2] = {5, 3}, ishape[2] = {30, 1}, ushape[2] = {30, 3};
      tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd,
                               .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                               .num_scatter_dims_to_operand_dims = 1,
                               .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                               .combiner = cb};
      char what[64];
      snprintf(what, sizeof what, "scatter 64-bit (%s, combiner %d)", tfr_dtype_name(dt), (int)cb);
      ix_case c = {.what = what, .op = ix_op_scatter, .cfg = &sc, .n = 3};
      c.in[0] = ix_wide(dt, 2, oshape, 2200 + (uint64_t)d);
      c.in[1] = ix_rand_index(TFR_I32, 2, ishape, -1, 6, 31 + (uint64_t)ci);
      c.in[2] = ix_wide(dt, 2, ushape, 2300 + (uint64_t)(d * 5 + ci));
      ix_diff_only(&c);
      ix_release_inputs(&c);
    }
}

// c128 arithmetic (add, multiply, maximum) and replace against the cpu.
// Indices of every integer dtype (narrow ones are packed in words on the
// device, u64 beyond 2^63 must clamp high, not count as negative): gather
// windows and scatter rows against the cpu, with values out of range on
// both sides.
static void test_index_dtypes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype idt[] = {TFR_I8, TFR_I16, TFR_U8, TFR_U16, TFR_U32, TFR_U64, TFR_I32,
                                  TFR_I64};
  for (size_t k = 0; k < sizeof idt / sizeof idt[0]; k++) {
    tfr_dtype_kind kind = tfr_dtype_get_info(idt[k])->kind;
    // Unsigned: small values and ones just below the type's top (-3 .. -1
    // wrapped), which are huge and clamp to the last start.
    int64_t lo = -3, hi = 9;
    int64_t oshape[3] = {6, 5, 4}, ishape[3] = {2, 3, 2};
    int64_t offset[2] = {1, 3}, collapsed[1] = {2}, map[2] = {2, 0}, sizes[3] = {3, 5, 1};
    tfr_gather_config g = {.num_offset_dims = 2, .offset_dims = offset,
                           .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                           .num_start_index_map = 2, .start_index_map = map,
                           .index_vector_dim = 0, .slice_sizes = sizes};
    char what[96];
    snprintf(what, sizeof what, "gather with %s indices (%s)", tfr_dtype_name(idt[k]),
             kind == TFR_KIND_UINT ? "unsigned, some huge" : "signed, some negative");
    ix_case c = {.what = what, .op = ix_op_gather, .cfg = &g, .n = 2};
    c.in[0] = ix_rand(TFR_F32, 3, oshape, 70 + (uint64_t)k);
    c.in[1] = ix_rand_index(idt[k], 3, ishape, lo, hi, 90 + (uint64_t)k);
    ix_diff_only(&c);
    ix_release_inputs(&c);

    int64_t uwd[1] = {1}, ins[1] = {0}, smap[1] = {0};
    int64_t so[2] = {6, 3}, si[2] = {40, 1}, su[2] = {40, 3};
    tfr_scatter_config sc = {.num_update_window_dims = 1, .update_window_dims = uwd,
                             .num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = smap, .index_vector_dim = 1,
                             .combiner = TFR_SCATTER_ADD};
    snprintf(what, sizeof what, "scatter add with %s indices", tfr_dtype_name(idt[k]));
    ix_case d = {.what = what, .op = ix_op_scatter, .cfg = &sc, .n = 3};
    d.in[0] = ix_rand(TFR_F32, 2, so, 110 + (uint64_t)k);
    d.in[1] = ix_rand_index(idt[k], 2, si, lo, hi, 130 + (uint64_t)k);
    d.in[2] = ix_updates(TFR_SCATTER_ADD, TFR_F32, 2, su, 150 + (uint64_t)k);
    ix_diff_only(&d);
    ix_release_inputs(&d);
  }
}

static void test_unsupported_dtypes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  static const tfr_dtype dts[] = {TFR_C128, TFR_C128, TFR_C128};
  static const tfr_scatter_combiner cbs[] = {TFR_SCATTER_MULTIPLY, TFR_SCATTER_ADD,
                                             TFR_SCATTER_MAXIMUM};
  int64_t ins[1] = {0}, map[1] = {0};
  int64_t oshape[1] = {4}, ishape[1] = {3};
  int32_t iv[3] = {0, 2, 2};
  for (int d = 0; d < 3; d++) {
    tfr_tensor *op = ix_rand(dts[d], 1, oshape, 1600), *ind = ix_i32(1, ishape, iv);
    tfr_tensor *up = ix_rand(dts[d], 1, ishape, 1601);
    tfr_scatter_config sc = {.num_inserted_window_dims = 1, .inserted_window_dims = ins,
                             .num_scatter_dims_to_operand_dims = 1,
                             .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                             .combiner = cbs[d]};
    // c128 combines (common/c128.wgsl; test_webgpu_c128 compares the bits).
    ix_case e = {.what = "scatter c128 combiner", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    e.in[0] = op;
    e.in[1] = ind;
    e.in[2] = up;
    ix_diff_only(&e);
    // replace works on every dtype.
    sc.combiner = TFR_SCATTER_REPLACE;
    ix_case c = {.what = "scatter replace 64-bit", .op = ix_op_scatter, .cfg = &sc, .n = 3};
    c.in[0] = op;
    c.in[1] = ind;
    c.in[2] = up;
    ix_diff_only(&c);
    ix_release_inputs(&c);
  }
}

// ---------------------------------------------------------------------------
// slice, dynamic_slice, dynamic_update_slice, pad, concatenate, reverse
// ---------------------------------------------------------------------------

static tfr_status ix_op_slice(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                              tfr_tensor **out) {
  (void)cfg;
  int64_t start[3] = {1, 0, 2}, limit[3] = {6, 4, 5}, step[3] = {2, 3, 1};
  return tfr_slice(s, in[0], start, limit, step, out);
}

static tfr_status ix_op_reverse(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                                tfr_tensor **out) {
  (void)cfg;
  int64_t dims[2] = {2, 0};
  return tfr_reverse(s, in[0], 2, dims, out);
}

static tfr_status ix_op_pad(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                            tfr_tensor **out) {
  const int64_t *p = cfg;  // low[3], high[3], interior[3]
  return tfr_pad(s, in[0], in[1], p, p + 3, p + 6, out);
}

static tfr_status ix_op_concat(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                               tfr_tensor **out) {
  const int *dim = cfg;
  return tfr_concatenate(s, 3, (const tfr_tensor *const *)in, *dim, out);
}

static tfr_status ix_op_dynamic_slice(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                                      tfr_tensor **out) {
  return tfr_dynamic_slice(s, in[0], (const tfr_tensor *const *)(in + 1), cfg, out);
}

static tfr_status ix_op_dus(tfr_session *s, tfr_tensor *const *in, const void *cfg,
                            tfr_tensor **out) {
  (void)cfg;
  return tfr_dynamic_update_slice(s, in[0], in[1], (const tfr_tensor *const *)(in + 2), out);
}

static void test_structural_ops(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t shape[3] = {7, 5, 6};
  for (int d = 0; d < IX_NDTYPES; d++) {
    tfr_dtype dt = ix_dtypes[d];
    ix_case c = {.what = "slice", .op = ix_op_slice, .n = 1};
    c.in[0] = ix_rand(dt, 3, shape, 1700 + (uint64_t)d);
    ix_diff_only(&c);
    c.view[0] = ix_view_reverse_all;
    ix_diff_only(&c);
    c.what = "reverse";
    c.op = ix_op_reverse;
    c.view[0] = NULL;
    ix_diff_only(&c);
    c.view[0] = ix_view_step2;
    ix_diff_only(&c);
    c.view[0] = NULL;

    // pad: negative and interior padding.
    static const int64_t pads[2][9] = {{2, -1, 0, 1, 3, -2, 1, 0, 2}, {-3, 0, 1, -2, 2, 0, 0, 3, 1}};
    c.n = 2;
    c.in[1] = ix_rand(dt, 0, NULL, 1800 + (uint64_t)d);
    c.op = ix_op_pad;
    c.what = "pad";
    for (int k = 0; k < 2; k++) {
      c.cfg = pads[k];
      ix_diff_only(&c);
    }
    tfr_tensor_release(c.in[1]);

    // concatenate along each axis.
    c.n = 3;
    c.op = ix_op_concat;
    c.what = "concatenate";
    for (int dim = 0; dim < 3; dim++) {
      int64_t s1[3] = {7, 5, 6}, s2[3] = {7, 5, 6};
      s1[dim] = 2;
      s2[dim] = 0;
      c.in[1] = ix_rand(dt, 3, s1, 1900 + (uint64_t)dim);
      c.in[2] = tfr_test_tensor(dt, 3, s2, NULL);
      c.cfg = &dim;
      ix_diff_only(&c);
      tfr_tensor_release(c.in[2]);
      c.in[2] = ix_rand(dt, 3, shape, 1950 + (uint64_t)dim);
      c.view[2] = ix_view_reverse_all;
      ix_diff_only(&c);
      c.view[2] = NULL;
      tfr_tensor_release(c.in[1]);
      tfr_tensor_release(c.in[2]);
    }

    // dynamic_slice / dynamic_update_slice with clamped starts, i32 and i64.
    for (int i64 = 0; i64 < 2; i64++) {
      static const int64_t starts[3][3] = {{1, 2, 3}, {-5, 100, 2}, {6, 0, INT64_C(1) << 40}};
      int64_t sizes[3] = {3, 4, 2};
      int64_t ushape[3] = {2, 5, 3};
      for (int k = 0; k < 3; k++) {
        ix_case ds = {.what = "dynamic_slice", .op = ix_op_dynamic_slice, .cfg = sizes, .n = 4};
        ds.in[0] = ix_rand(dt, 3, shape, 2000 + (uint64_t)d);
        for (int a = 0; a < 3; a++) {
          int64_t v = starts[k][a];
          int32_t v32 = v > INT32_MAX ? INT32_MAX : (int32_t)v;
          ds.in[1 + a] = i64 ? ix_i64(0, NULL, &v) : ix_i32(0, NULL, &v32);
        }
        ix_diff_only(&ds);
        ix_case us = {.what = "dynamic_update_slice", .op = ix_op_dus, .n = 5};
        us.in[0] = ds.in[0];
        us.in[1] = ix_rand(dt, 3, ushape, 2100 + (uint64_t)d);
        for (int a = 0; a < 3; a++) us.in[2 + a] = ds.in[1 + a];
        ix_diff_only(&us);
        us.view[1] = ix_view_reverse_all;
        ix_diff_only(&us);
        tfr_tensor_release(us.in[1]);
        ix_release_inputs(&ds);
      }
    }
    tfr_tensor_release(c.in[0]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_gather_rows, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gather_windows, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gather_batching, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gather_strides, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gather_rank0, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_gather_high_rank, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_rows, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_scalars, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_overlap, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_batching, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_known, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_empty, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_large, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_high_rank, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_scatter_64bit, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_index_dtypes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_unsupported_dtypes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_structural_ops, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
