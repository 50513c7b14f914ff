// fuzz_einsum: einsum expressions with shapes, as `tenferro einsum` takes
// them. Input: the expression up to the first '\n', then bytes that choose
// each term's ellipsis width (0-3), each axis's extent (0-3), the dtype and
// the path optimiser. Every plan the library accepts is executed on the cpu
// backend when small, along two different paths (the chosen optimiser and
// greedy, or the given-path replay of the first): the results must agree
// (bit for bit for integers and bool, to rounding for floats).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 12

typedef struct bytes {
  const uint8_t *p;
  size_t n, at;
} bytes;

static unsigned next(bytes *b) { return b->at < b->n ? b->p[b->at++] : 0; }

// Values that make every dtype's products and sums exact or nearly so.
static tfr_tensor *operand(tfr_session *s, tfr_dtype dt, int rank, const int64_t *shape,
                           unsigned seed) {
  // The element count: 0 when an extent is (the others may then multiply
  // past int64: 61 axes of extent 3 and one of 0 passed the plan's memory
  // check, corpus/einsum/crash-ee34087b...).
  int64_t n = 1;
  for (int k = 0; k < rank; k++)
    if (shape[k] == 0) n = 0;
  for (int k = 0; n > 0 && k < rank; k++)
    if (__builtin_mul_overflow(n, shape[k], &n)) return NULL;
  double *v = malloc(((size_t)n * 2 + 1) * sizeof(double));
  if (!v) return NULL;
  for (int64_t i = 0; i < 2 * n; i++) v[i] = (double)((seed + 7 * (unsigned)i) % 5) - 2.0;
  bool complex = tfr_dtype_get_info(dt)->kind == TFR_KIND_COMPLEX;
  tfr_tensor *w = NULL, *t = NULL;
  if (tfr_tensor_from_host(complex ? TFR_C128 : TFR_F64, rank, shape, v, &w) == TFR_OK &&
      tfr_convert(s, w, dt, &t) != TFR_OK)
    t = NULL;
  tfr_tensor_release(w);
  free(v);
  return t;
}

static bool same(tfr_session *s, const tfr_tensor *a, const tfr_tensor *b) {
  tfr_tensor *wa = NULL, *wb = NULL;
  bool complex = tfr_dtype_get_info(tfr_tensor_dtype(a))->kind == TFR_KIND_COMPLEX;
  tfr_dtype w = complex ? TFR_C128 : TFR_F64;
  if (tfr_convert(s, a, w, &wa) != TFR_OK || tfr_convert(s, b, w, &wb) != TFR_OK) abort();
  int64_t n = tfr_tensor_numel(wa) * (complex ? 2 : 1);
  if (n != tfr_tensor_numel(wb) * (complex ? 2 : 1)) abort();
  double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)n + 1) * sizeof(double));
  bool ok = x && y && tfr_tensor_read(wa, x, (size_t)n * sizeof(double)) == TFR_OK &&
            tfr_tensor_read(wb, y, (size_t)n * sizeof(double)) == TFR_OK;
  // Integers in [-2, 2]: float sums of at most 3^k terms of small products
  // stay exact in f64 and round alike in f32 unless they reach 2^24; f16
  // and bf16 round each step, so only a loose bound holds there.
  tfr_dtype real = tfr_dtype_get_info(tfr_tensor_dtype(a))->real;
  double tol = real == TFR_F16 || real == TFR_BF16 ? 0.1 : real == TFR_F32 ? 1e-5 : 0;
  bool narrow = real == TFR_F16 || real == TFR_BF16;
  for (int64_t i = 0; ok && i < n; i++) {
    // Narrow floats may overflow an intermediate along one path only.
    if (narrow && !(fabs(x[i]) < 1000 && fabs(y[i]) < 1000)) continue;
    double d = fabs(x[i] - y[i]);
    if (!(d <= tol * fmax(1.0, fabs(y[i]))) && !(isnan(x[i]) && isnan(y[i])) &&
        !(isinf(x[i]) && x[i] == y[i]))
      ok = false;
  }
  free(x);
  free(y);
  tfr_tensor_release(wa);
  tfr_tensor_release(wb);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nl = memchr(data, '\n', size);
  size_t elen = nl ? (size_t)(nl - data) : size;
  if (elen > 256) return 0;
  char expr[257];
  memcpy(expr, data, elen);
  expr[elen] = '\0';
  if (strlen(expr) != elen) return 0;  // a NUL inside
  bytes b = {data, size, nl ? elen + 1 : size};

  // Terms before "->" (or all of them): count each one's labels (UTF-8
  // code points other than '.' and white space).
  int n = 1, ranks[MAX_OPS] = {0};
  int64_t shapes[MAX_OPS][TFR_MAX_RANK];
  const char *arrow = strstr(expr, "->");
  size_t end = arrow ? (size_t)(arrow - expr) : elen;
  bool ellipsis[MAX_OPS] = {false};
  for (size_t i = 0; i < end; i++) {
    unsigned char c = (unsigned char)expr[i];
    if (c == ',') {
      if (++n > MAX_OPS) return 0;
    } else if (c == '.') {
      if (i + 2 < end && expr[i + 1] == '.' && expr[i + 2] == '.') ellipsis[n - 1] = true;
    } else if (c != ' ' && (c & 0xC0) != 0x80) {
      ranks[n - 1]++;
    }
  }
  for (int i = 0; i < n; i++) {
    if (ellipsis[i]) ranks[i] += (int)(next(&b) % 4);
    if (ranks[i] > TFR_MAX_RANK) return 0;
    for (int k = 0; k < ranks[i]; k++) shapes[i][k] = next(&b) % 4;
  }
  static const tfr_dtype dts[] = {TFR_F64, TFR_F32, TFR_C128, TFR_C64, TFR_I64, TFR_I32,
                                  TFR_I8,  TFR_U8,  TFR_BOOL, TFR_F16, TFR_BF16, TFR_U64};
  tfr_dtype dt = dts[next(&b) % (sizeof dts / sizeof dts[0])];
  static const tfr_einsum_path_kind kinds[] = {
      TFR_EINSUM_PATH_GREEDY, TFR_EINSUM_PATH_OPTIMAL, TFR_EINSUM_PATH_RANDOM_GREEDY,
      TFR_EINSUM_PATH_DP, TFR_EINSUM_PATH_TREESA, TFR_EINSUM_PATH_AUTO, TFR_EINSUM_PATH_PARTITION};
  tfr_einsum_options o = {.path_kind = kinds[next(&b) % 7], .trials = 2, .max_time = 0.005,
                          .seed = next(&b)};
  if (next(&b) % 4 == 0) o.max_slice_elements = 4 + next(&b) % 64;

  const int64_t *sp[MAX_OPS];
  for (int i = 0; i < n; i++) sp[i] = shapes[i];
  tfr_einsum_plan *p = NULL;
  tfr_status st = tfr_einsum_plan_create(expr, n, ranks, sp, &o, &p);
  if (st != TFR_OK) {
    if (p) abort();
    return 0;
  }
  // Sometimes more slices (tfr_einsum_plan_slice_to_count): at least as
  // many as asked, or a refusal that leaves the plan as it was; the blocks
  // lie inside the output. The execution below compares the sliced result
  // with greedy's unsliced one.
  if (next(&b) % 4 == 0) {
    int64_t want = 1 + next(&b) % 32, before = tfr_einsum_plan_num_slices(p);
    if (tfr_einsum_plan_slice_to_count(p, want) == TFR_OK) {
      if (tfr_einsum_plan_num_slices(p) < want && before > 0) abort();
    } else if (tfr_einsum_plan_num_slices(p) != before) {
      abort();
    }
  }
  int64_t num = tfr_einsum_plan_num_slices(p), blocks = tfr_einsum_plan_num_blocks(p);
  if (num > 0 && (blocks < 1 || num % blocks != 0)) abort();
  int64_t out_shape[TFR_MAX_RANK], start[TFR_MAX_RANK], bshape[TFR_MAX_RANK];
  int out_rank = tfr_einsum_plan_output_shape(p, out_shape);
  for (int64_t k = 0; k < num && k < 8; k++) {
    if (tfr_einsum_plan_slice_block(p, k, start, bshape) != TFR_OK) abort();
    for (int a = 0; a < out_rank; a++)
      if (start[a] < 0 || bshape[a] < 0 || start[a] + bshape[a] > out_shape[a]) abort();
  }
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(p);
  tfr_einsum_plan *g = NULL;
  tfr_einsum_options go = {.path_kind = TFR_EINSUM_PATH_GREEDY};
  if (tfr_einsum_plan_create(expr, n, ranks, sp, &go, &g) != TFR_OK) abort();  // same network
  if (info->peak_live_elements < 20000 && info->sliced_flops < 2e6) {
    tfr_session *s = NULL;
    if (tfr_session_begin(tfr_fuzz_cpu(), &s) != TFR_OK) abort();
    tfr_tensor *ops[MAX_OPS] = {0}, *r1 = NULL, *r2 = NULL;
    bool made = true;
    for (int i = 0; i < n; i++) made = made && (ops[i] = operand(s, dt, ranks[i], shapes[i], next(&b)));
    if (made) {
      tfr_status e1 = tfr_einsum_plan_execute(s, p, (const tfr_tensor *const *)ops, &r1);
      tfr_status e2 = tfr_einsum_plan_execute(s, g, (const tfr_tensor *const *)ops, &r2);
      if (e1 != e2) abort();  // the same network: both run or both refuse the dtype
      if (e1 == TFR_OK && !same(s, r1, r2)) abort();
    }
    for (int i = 0; i < n; i++) tfr_tensor_release(ops[i]);
    tfr_tensor_release(r1);
    tfr_tensor_release(r2);
    if (tfr_session_end(s) != TFR_OK) abort();
  }
  tfr_einsum_plan_release(g);
  tfr_einsum_plan_release(p);
  return 0;
}
