// tenferro-bench: times ops on a backend (warm-up, repeats, median/min/max)
// and prints a table plus, with --json, a JSON file that bench/compare.py
// sets beside a peer's numbers measured in the same run (numpy on the cpu,
// PyTorch on the GPU machine).
//
// usage: tenferro-bench [--backend cpu|webgpu] [--threads N] [--repeat R]
//                       [--warmup W] [--warmup-ms MS] [--json FILE] [--stats]
//                       [--list] [CASE ...]
// A CASE is NAME:DTYPE:SHAPE, e.g. add:f64:4096x4096 (see --list); with no
// CASE the default cpu suite runs.
//
// Timing. cpu: each repeat is one op, timed on the host (ops are complete
// when they return). webgpu: ops only record work, so each repeat is a batch
// of k back-to-back ops followed by tfr_session_synchronize, and the time
// per op is the batch's time / k: device time plus whatever host time the
// device does not hide (the per-op cost of small ops). k is chosen from the
// warm-up so that a batch lasts about 20 ms (1 <= k <= 1000); then batches
// run for --warmup-ms more (default 300 ms on a device) before timing: a GPU
// left idle while the inputs were uploaded lowers its clocks (the H200 drops
// from 1980 to 345 MHz within seconds) and raises them only under sustained
// load. The peer (bench/peers/torch_gpu.py) times the same way with CUDA
// events, with the same warm-up. Inputs are uploaded before timing; outputs
// stay on the device.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenferro/tenferro.h"

#include "bench_util.h"

typedef struct tfr_bench_case {
  char name[32];
  tfr_dtype dtype;
  int rank;
  int64_t shape[8];
  int64_t numel;
} tfr_bench_case;

// One op as it is timed: `run` does the op once, `bytes` is what it must
// move through memory (read + written) for the GB/s column.
typedef struct tfr_bench_op {
  const char *name;
  const char *what;  // numpy equivalent, for the reader
  int ninputs;
  tfr_status (*run)(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out);
  double read_factor, write_factor;  // bytes per element, relative to the dtype size
  // Input 1 is an i32 index vector of shape[0] rows picked at random (with
  // repeats) in [0, shape[0]); the other inputs have the case's shape.
  bool index_input;
} tfr_bench_op;

static tfr_status tfr_b_add(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_add(s, in[0], in[1], out);
}
static tfr_status tfr_b_multiply(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_multiply(s, in[0], in[1], out);
}
static tfr_status tfr_b_exp(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_exp(s, in[0], out);
}
static tfr_status tfr_b_divide(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_divide(s, in[0], in[1], out);
}
static tfr_status tfr_b_sqrt(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_sqrt(s, in[0], out);
}
static tfr_status tfr_b_sum_all(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  int64_t axes[TFR_MAX_RANK];
  for (int k = 0; k < tfr_tensor_rank(in[0]); k++) axes[k] = k;
  return tfr_reduce_sum(s, in[0], tfr_tensor_rank(in[0]), axes, out);
}
static tfr_status tfr_b_sum_axis0(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_reduce_sum(s, in[0], 1, (int64_t[]){0}, out);
}
static tfr_status tfr_b_sum_last(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_reduce_sum(s, in[0], 1, (int64_t[]){tfr_tensor_rank(in[0]) - 1}, out);
}
static tfr_status tfr_b_max_all(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  int64_t axes[TFR_MAX_RANK];
  for (int k = 0; k < tfr_tensor_rank(in[0]); k++) axes[k] = k;
  return tfr_reduce_max(s, in[0], tfr_tensor_rank(in[0]), axes, out);
}
static tfr_status tfr_b_transpose(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  int64_t perm[TFR_MAX_RANK];
  int r = tfr_tensor_rank(in[0]);
  for (int k = 0; k < r; k++) perm[k] = r - 1 - k;
  return tfr_transpose(s, in[0], perm, out);
}
static tfr_status tfr_b_convert_f32(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  return tfr_convert(s, in[0], TFR_F32, out);
}
// compare + select: where(a > b, a, b), two ops as numpy does it.
static tfr_status tfr_b_compare_select(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_tensor *mask = NULL;
  tfr_status st = tfr_compare(s, TFR_GT, in[0], in[1], &mask);
  if (!st) st = tfr_select(s, mask, in[0], in[1], out);
  tfr_tensor_release(mask);
  return st;
}

// The 5-op chain y = exp(a * b + c) * a - b, fused into one pass and as five
// separate ops (numpy: np.exp(a * b + c) * a - b, also five passes).
static tfr_status tfr_b_chain_unfused(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_tensor *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;
  tfr_status st = tfr_multiply(s, in[0], in[1], &t1);
  if (!st) st = tfr_add(s, t1, in[2], &t2);
  if (!st) st = tfr_exp(s, t2, &t3);
  if (!st) st = tfr_multiply(s, t3, in[0], &t4);
  if (!st) st = tfr_subtract(s, t4, in[1], out);
  tfr_tensor_release(t1);
  tfr_tensor_release(t2);
  tfr_tensor_release(t3);
  tfr_tensor_release(t4);
  return st;
}
static tfr_status tfr_b_chain_fused(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_dtype dt = tfr_tensor_dtype(in[0]);
  tfr_fusion_plan *p = NULL;
  int v1, v2, v3, v4, v5;
  tfr_status st = tfr_fusion_plan_create(3, (tfr_dtype[]){dt, dt, dt}, &p);
  if (!st) st = tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &v1);
  if (!st) st = tfr_fusion_plan_binary(p, TFR_ADD, v1, 2, &v2);
  if (!st) st = tfr_fusion_plan_unary(p, TFR_EXP, v2, &v3);
  if (!st) st = tfr_fusion_plan_binary(p, TFR_MULTIPLY, v3, 0, &v4);
  if (!st) st = tfr_fusion_plan_binary(p, TFR_SUBTRACT, v4, 1, &v5);
  if (!st) st = tfr_fusion_plan_output(p, v5);
  if (!st) st = tfr_fusion_execute(s, p, (const tfr_tensor *const *)in, out);
  tfr_fusion_plan_release(p);
  return st;
}

// Indexing: rows of a matrix picked by an index vector (i32, the second
// input; see tfr_bench_op.index_input), numpy's a[idx] and np.add.at.
static tfr_status tfr_b_gather_rows(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  int64_t d = tfr_tensor_shape(in[0])[1];
  tfr_gather_config c = {.num_offset_dims = 1,
                         .offset_dims = (int64_t[]){1},
                         .num_collapsed_slice_dims = 1,
                         .collapsed_slice_dims = (int64_t[]){0},
                         .num_start_index_map = 1,
                         .start_index_map = (int64_t[]){0},
                         .index_vector_dim = 1,
                         .slice_sizes = (int64_t[]){1, d}};
  return tfr_gather(s, in[0], in[1], &c, out);
}
static tfr_status tfr_b_scatter_add_rows(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_scatter_config c = {.num_update_window_dims = 1,
                          .update_window_dims = (int64_t[]){1},
                          .num_inserted_window_dims = 1,
                          .inserted_window_dims = (int64_t[]){0},
                          .num_scatter_dims_to_operand_dims = 1,
                          .scatter_dims_to_operand_dims = (int64_t[]){0},
                          .index_vector_dim = 1,
                          .combiner = TFR_SCATTER_ADD};
  return tfr_scatter(s, in[0], in[1], in[2], &c, out);
}

// dot_general cases (bench/dot_cases.md): every input has the case's shape.
static tfr_status tfr_b_matmul(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_dot_config c = {.num_contracting_dims = 1,
                      .lhs_contracting_dimensions = (int64_t[]){1},
                      .rhs_contracting_dimensions = (int64_t[]){0}};
  return tfr_dot_general(s, in[0], in[1], &c, out);
}
static tfr_status tfr_b_matmul_lhsT(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_tensor *at = NULL;
  tfr_status st = tfr_tensor_view_transpose(in[0], (int64_t[]){1, 0}, &at);
  if (!st) st = tfr_b_matmul(s, (tfr_tensor *const[]){at, in[1]}, out);
  tfr_tensor_release(at);
  return st;
}
static tfr_status tfr_b_bmm(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_dot_config c = {.num_batching_dims = 1,
                      .lhs_batching_dimensions = (int64_t[]){0},
                      .rhs_batching_dimensions = (int64_t[]){0},
                      .num_contracting_dims = 1,
                      .lhs_contracting_dimensions = (int64_t[]){2},
                      .rhs_contracting_dimensions = (int64_t[]){1}};
  return tfr_dot_general(s, in[0], in[1], &c, out);
}
// Rank 4 x rank 4 over two axes: abcd,cdef->abef.
static tfr_status tfr_b_rank4(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  tfr_dot_config c = {.num_contracting_dims = 2,
                      .lhs_contracting_dimensions = (int64_t[]){2, 3},
                      .rhs_contracting_dimensions = (int64_t[]){0, 1}};
  return tfr_dot_general(s, in[0], in[1], &c, out);
}
// Matrix-vector: a @ b[0] (the vector is the first row of the second input).
static tfr_status tfr_b_gemv(tfr_session *s, tfr_tensor *const *in, tfr_tensor **out) {
  const int64_t *sh = tfr_tensor_shape(in[1]);
  tfr_tensor *row = NULL;
  tfr_status st = tfr_tensor_view(in[1], 1, (int64_t[]){sh[1]}, NULL, 0, &row);
  tfr_dot_config c = {.num_contracting_dims = 1,
                      .lhs_contracting_dimensions = (int64_t[]){1},
                      .rhs_contracting_dimensions = (int64_t[]){0}};
  if (!st) st = tfr_dot_general(s, in[0], row, &c, out);
  tfr_tensor_release(row);
  return st;
}

static const tfr_bench_op tfr_bench_ops[] = {
    {"add", "np.add(a, b)", 2, tfr_b_add, 2, 1, false},
    {"multiply", "np.multiply(a, b)", 2, tfr_b_multiply, 2, 1, false},
    {"exp", "np.exp(a)", 1, tfr_b_exp, 1, 1, false},
    {"divide", "np.divide(a, b)", 2, tfr_b_divide, 2, 1, false},
    {"sqrt", "np.sqrt(a)", 1, tfr_b_sqrt, 1, 1, false},
    {"sum_all", "a.sum()", 1, tfr_b_sum_all, 1, 0, false},
    {"sum_axis0", "a.sum(axis=0)", 1, tfr_b_sum_axis0, 1, 0, false},
    {"sum_last", "a.sum(axis=-1)", 1, tfr_b_sum_last, 1, 0, false},
    {"max_all", "a.max()", 1, tfr_b_max_all, 1, 0, false},
    {"transpose", "np.ascontiguousarray(a.T)", 1, tfr_b_transpose, 1, 1, false},
    {"convert_f32", "a.astype(np.float32)", 1, tfr_b_convert_f32, 1, 0.5, false},
    {"compare_select", "np.where(a > b, a, b)", 2, tfr_b_compare_select, 2, 1, false},
    {"chain5_unfused", "np.exp(a * b + c) * a - b", 3, tfr_b_chain_unfused, 3, 1, false},
    {"chain5_fused", "np.exp(a * b + c) * a - b", 3, tfr_b_chain_fused, 3, 1, false},
    {"matmul", "np.matmul(a, b)", 2, tfr_b_matmul, 2, 1, false},
    {"matmul_lhsT", "np.matmul(a.T, b)", 2, tfr_b_matmul_lhsT, 2, 1, false},
    {"bmm", "np.matmul(a, b)", 2, tfr_b_bmm, 2, 1, false},
    {"rank4", "np.tensordot(a, b, ([2, 3], [0, 1]))", 2, tfr_b_rank4, 2, 0, false},
    {"gemv", "a @ b[0]", 2, tfr_b_gemv, 1, 0, false},
    {"gather_rows", "a[idx]", 2, tfr_b_gather_rows, 1, 1, true},
    {"scatter_add_rows", "np.add.at(a.copy(), idx, b)", 3, tfr_b_scatter_add_rows, 3, 1, true},
};
#define TFR_BENCH_NOPS (sizeof tfr_bench_ops / sizeof tfr_bench_ops[0])

static const char *const tfr_default_suite[] = {
    "add:f64:4096x4096",      "add:f32:4096x4096",      "multiply:f64:4096x4096",
    "exp:f64:4096x4096",      "exp:f32:4096x4096",      "sum_all:f64:4096x4096",
    "sum_axis0:f64:4096x4096", "sum_last:f64:4096x4096", "max_all:f64:4096x4096",
    "transpose:f64:4096x4096", "convert_f32:f64:4096x4096", "compare_select:f64:4096x4096",
    "add:f64:1000",           "exp:f64:1000",          "chain5_unfused:f64:10000000",
    "chain5_fused:f64:10000000",
};

// Floating-point operations of the dot_general cases (a multiply-add is 2,
// a complex one 8), 0 for the others: the GFLOP/s column.
static double tfr_bench_flops(const tfr_bench_case *c) {
  const int64_t *d = c->shape;
  double cx = (c->dtype == TFR_C64 || c->dtype == TFR_C128) ? 4.0 : 1.0, f = 0;
  if (strcmp(c->name, "matmul") == 0 || strcmp(c->name, "matmul_lhsT") == 0) {
    if (c->rank == 2) f = 2.0 * (double)d[0] * (double)d[1] * (double)d[1];
  } else if (strcmp(c->name, "bmm") == 0) {
    if (c->rank == 3) f = 2.0 * (double)d[0] * (double)d[1] * (double)d[2] * (double)d[2];
  } else if (strcmp(c->name, "rank4") == 0) {
    if (c->rank == 4) f = 2.0 * (double)d[0] * (double)d[1] * (double)(d[2] * d[3]) * (double)(d[2] * d[3]);
  } else if (strcmp(c->name, "gemv") == 0) {
    if (c->rank == 2) f = 2.0 * (double)d[0] * (double)d[1];
  }
  return f * cx;
}

static int tfr_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static const tfr_bench_op *tfr_find_op(const char *name) {
  for (size_t i = 0; i < TFR_BENCH_NOPS; i++)
    if (strcmp(tfr_bench_ops[i].name, name) == 0) return &tfr_bench_ops[i];
  return NULL;
}

static int tfr_parse_case(const char *spec, tfr_bench_case *c, const tfr_bench_op **op) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", spec);
  char *name = strtok(buf, ":"), *dt = strtok(NULL, ":"), *shape = strtok(NULL, ":");
  if (!name || !dt || !shape) return -1;
  *op = tfr_find_op(name);
  if (!*op) return -1;
  snprintf(c->name, sizeof c->name, "%s", name);
  if (tfr_dtype_from_name(dt, &c->dtype) != TFR_OK) return -1;
  if (c->dtype > TFR_C128) return -1;  // the input filler knows the first seven dtypes
  c->rank = 0;
  c->numel = 1;
  for (char *tok = strtok(shape, "x"); tok && c->rank < 8; tok = strtok(NULL, "x")) {
    c->shape[c->rank] = strtoll(tok, NULL, 10);
    if (c->shape[c->rank] <= 0) return -1;
    c->numel *= c->shape[c->rank++];
  }
  return c->rank > 0 ? 0 : -1;
}

// Fills `host` with case inputs: values in [-1, 1), never zero (an LCG), or
// for an index input row numbers in [0, rows).
static void tfr_bench_fill(tfr_dtype dt, int64_t n, int k, bool index, int64_t rows,
                           unsigned char *host) {
  uint64_t st = 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1);
  for (int64_t i = 0; i < n; i++) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    if (index) {
      int32_t r = (int32_t)((st >> 33) % (uint64_t)rows);
      memcpy(host + i * 4, &r, 4);
      continue;
    }
    double v = ((double)(st >> 11) * 0x1.0p-53) * 1.98 - 0.99;
    if (v == 0) v = 0.5;
    switch (dt) {
      case TFR_F64: memcpy(host + i * 8, &v, 8); break;
      case TFR_F32: { float f = (float)v; memcpy(host + i * 4, &f, 4); break; }
      case TFR_I32: { int32_t x = (int32_t)(v * 1000); memcpy(host + i * 4, &x, 4); break; }
      case TFR_I64: { int64_t x = (int64_t)(v * 1000); memcpy(host + i * 8, &x, 8); break; }
      case TFR_C64: { float f[2] = {(float)v, (float)-v}; memcpy(host + i * 8, f, 8); break; }
      case TFR_C128: { double d[2] = {v, -v}; memcpy(host + i * 16, d, 16); break; }
      case TFR_BOOL: host[i] = v > 0; break;
      default: memset(host + i * tfr_dtype_size(dt), 0, tfr_dtype_size(dt)); break;
    }
  }
}

// Runs `op` k times (releasing the results) and, on a device, waits for the
// device; returns the time per op in seconds, or -1 after an error.
static double tfr_bench_batch(tfr_session *s, bool device, const tfr_bench_op *op,
                              tfr_tensor *const *in, int k, const char *spec) {
  double t0 = tfr_now();
  tfr_status st = TFR_OK;
  for (int i = 0; i < k && !st; i++) {
    tfr_tensor *out = NULL;
    st = op->run(s, in, &out);
    tfr_tensor_release(out);
  }
  if (!st && device) st = tfr_session_synchronize(s);
  double t1 = tfr_now();
  if (st) {
    fprintf(stderr, "tenferro-bench: %s: %s\n", spec, tfr_last_error_message());
    return -1;
  }
  return (t1 - t0) / k;
}

static void tfr_bench_usage(void) {
  fprintf(stderr, "usage: tenferro-bench [--backend cpu|webgpu] [--threads N] [--repeat R] "
                  "[--warmup W] [--warmup-ms MS] [--json FILE] [--stats] [--list] "
                  "[NAME:DTYPE:SHAPE ...]\n");
}

int main(int argc, char **argv) {
  int threads = 0, repeat = 10, warmup = 2;
  double warmup_ms = -1;  // default: 300 on a device, 0 on the cpu
  const char *json_path = NULL, *backend_name = "cpu";
  bool stats = false;  // webgpu: buffers created and pool hits of each case's timed batches
  const char *specs[256];
  int nspecs = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) warmup = atoi(argv[++i]);
    else if (strcmp(argv[i], "--warmup-ms") == 0 && i + 1 < argc) warmup_ms = atof(argv[++i]);
    else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
    else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend_name = argv[++i];
    else if (strcmp(argv[i], "--stats") == 0) stats = true;
    else if (strcmp(argv[i], "--list") == 0) {
      for (size_t k = 0; k < TFR_BENCH_NOPS; k++)
        printf("%-16s %s\n", tfr_bench_ops[k].name, tfr_bench_ops[k].what);
      return 0;
    } else if (argv[i][0] == '-') {
      tfr_bench_usage();
      return 2;
    } else if (nspecs < 256) specs[nspecs++] = argv[i];
  }
  if (repeat < 1) repeat = 1;
  if (warmup < 1) warmup = 1;
  if (nspecs == 0) {
    nspecs = (int)(sizeof tfr_default_suite / sizeof tfr_default_suite[0]);
    for (int i = 0; i < nspecs; i++) specs[i] = tfr_default_suite[i];
  }
  bool device = false;
  tfr_backend *b = NULL;
  tfr_status bst;
  if (strcmp(backend_name, "cpu") == 0) {
    tfr_cpu_options opts = {.num_threads = threads};
    bst = tfr_backend_create_cpu(&opts, &b);
  } else if (strcmp(backend_name, "webgpu") == 0) {
    device = true;
    bst = tfr_backend_create_webgpu(NULL, &b);
  } else {
    fprintf(stderr, "tenferro-bench: unknown backend '%s' (cpu or webgpu)\n", backend_name);
    return 2;
  }
  if (bst != TFR_OK) {
    fprintf(stderr, "tenferro-bench: %s\n", tfr_last_error_message());
    return 1;
  }
  tfr_session *s = NULL;
  if (tfr_session_begin(b, &s) != TFR_OK) {
    fprintf(stderr, "tenferro-bench: %s\n", tfr_last_error_message());
    return 1;
  }
  char where[512];
  int used_threads = 0;
  if (device) {
    tfr_webgpu_adapter_info info;
    if (tfr_webgpu_get_adapter_info(b, &info) != TFR_OK) return 1;
    snprintf(where, sizeof where, "webgpu backend on %s (%s)", info.name, info.driver);
  } else {
    void *native = NULL;
    if (tfr_session_native(s, TFR_BACKEND_CPU, &native) != TFR_OK) return 1;
    used_threads = ((tfr_cpu_native *)native)->num_threads;
    snprintf(where, sizeof where, "cpu backend, %d threads", used_threads);
  }
  FILE *json = json_path ? fopen(json_path, "w") : NULL;
  if (json_path && !json) {
    perror(json_path);
    return 1;
  }
  if (json)
    fprintf(json, "{\"backend\": \"%s\", \"threads\": %d, \"where\": \"%s\", \"results\": [\n",
            backend_name, used_threads, where);
  printf("tenferro %s, %s, %d repeats (median, min, max)%s\n", tfr_version_string(), where,
         repeat, device ? "; time per op over batches of k ops" : "");
  printf("%-16s %-5s %-12s %10s %10s %10s %9s %9s%s\n", "op", "dtype", "shape", "median_ms",
         "min_ms", "max_ms", "GB/s", "GFLOP/s", device ? "      k" : "");
  int rc = 0, written = 0;
  for (int ci = 0; ci < nspecs; ci++) {
    tfr_bench_case c;
    const tfr_bench_op *op;
    if (tfr_parse_case(specs[ci], &c, &op) != 0 || (op->index_input && c.rank != 2)) {
      fprintf(stderr, "tenferro-bench: bad case '%s' (NAME:DTYPE:SHAPE, see --list; indexing "
                      "cases take a matrix shape)\n", specs[ci]);
      rc = 2;
      continue;
    }
    tfr_tensor *in[3] = {NULL, NULL, NULL};
    // Inputs are filled on the host (making them with the library's own ops
    // would depend on the ops under test), then uploaded to a device.
    size_t es = tfr_dtype_size(c.dtype);
    unsigned char *host = malloc((size_t)c.numel * (es > 4 ? es : 4));
    if (!host) return 1;
    bool ok = true;
    for (int k = 0; k < op->ninputs && ok; k++) {
      bool index = op->index_input && k == 1;
      tfr_tensor *h = NULL;
      tfr_bench_fill(c.dtype, index ? c.shape[0] : c.numel, k, index, c.shape[0], host);
      tfr_status st = index ? tfr_tensor_from_host(TFR_I32, 1, c.shape, host, &h)
                            : tfr_tensor_from_host(c.dtype, c.rank, c.shape, host, &h);
      if (!st && device) {
        st = tfr_upload(s, h, &in[k]);
        tfr_tensor_release(h);
      } else {
        in[k] = h;
      }
      if (st) {
        fprintf(stderr, "tenferro-bench: %s: %s\n", specs[ci], tfr_last_error_message());
        ok = false;
        rc = 1;
      }
    }
    free(host);
    double *times = malloc(sizeof(double) * (size_t)repeat);
    if (!times) return 1;
    // Warm-up (pipelines compile, pools fill); on a device it also picks k.
    int k = 1;
    double first_op = 0;
    for (int r = 0; r < warmup && ok; r++) {
      double t = tfr_bench_batch(s, device, op, in, 1, specs[ci]);
      if (r == 0) first_op = t;
      if (t < 0) {
        ok = false;
        rc = 1;
      } else if (device && r == warmup - 1) {
        double kk = 0.02 / (t > 1e-9 ? t : 1e-9);
        k = kk < 1 ? 1 : kk > 1000 ? 1000 : (int)kk;
      }
    }
    double warm_s = (warmup_ms >= 0 ? warmup_ms : device ? 300 : 0) * 1e-3;
    for (double t0 = tfr_now(); ok && tfr_now() - t0 < warm_s;)
      if (tfr_bench_batch(s, device, op, in, k, specs[ci]) < 0) {
        ok = false;
        rc = 1;
      }
    tfr_webgpu_stats st0, st1;
    bool have_stats = stats && device && tfr_webgpu_get_stats(b, &st0) == TFR_OK;
    for (int r = 0; r < repeat && ok; r++) {
      times[r] = tfr_bench_batch(s, device, op, in, k, specs[ci]);
      if (times[r] < 0) {
        ok = false;
        rc = 1;
      }
    }
    if (have_stats && tfr_webgpu_get_stats(b, &st1) == TFR_OK)
      fprintf(stderr, "stats %s: first op %.1f ms; %d timed ops: %llu buffers created, %llu pool "
              "hits, %llu dispatches, %llu submits, %llu bind groups created (%llu reused); "
              "%.1f MiB on the device (%.1f MiB pooled)\n",
              specs[ci], first_op * 1e3, repeat * k,
              (unsigned long long)(st1.buffers_created - st0.buffers_created),
              (unsigned long long)(st1.pool_hits - st0.pool_hits),
              (unsigned long long)(st1.dispatches - st0.dispatches),
              (unsigned long long)(st1.submits - st0.submits),
              (unsigned long long)(st1.bind_groups_created - st0.bind_groups_created),
              (unsigned long long)(st1.bind_group_hits - st0.bind_group_hits),
              st1.device_bytes / 1048576.0, st1.pooled_bytes / 1048576.0);
    if (ok) {
      qsort(times, (size_t)repeat, sizeof(double), tfr_cmp_double);
      double med = times[repeat / 2], mn = times[0], mx = times[repeat - 1];
      double bytes = (op->read_factor + op->write_factor) * (double)c.numel * (double)es;
      char shape[64] = "";
      size_t n = 0;
      for (int d = 0; d < c.rank; d++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, d ? "x%lld" : "%lld", (long long)c.shape[d]);
      double flops = tfr_bench_flops(&c);
      printf("%-16s %-5s %-12s %10.3f %10.3f %10.3f %9.2f %9.1f", c.name, tfr_dtype_name(c.dtype),
             shape, med * 1e3, mn * 1e3, mx * 1e3, bytes / med * 1e-9, flops / med * 1e-9);
      if (device) printf(" %6d", k);
      printf("\n");
      if (json)
        fprintf(json,
                "%s  {\"case\": \"%s\", \"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", "
                "\"median_s\": %.9g, \"min_s\": %.9g, \"max_s\": %.9g, \"bytes\": %.0f, "
                "\"flops\": %.0f, \"batch\": %d}",
                written++ ? ",\n" : "", specs[ci], c.name, tfr_dtype_name(c.dtype), shape, med, mn,
                mx, bytes, flops, k);
    }
    free(times);
    for (int j = 0; j < 3; j++) tfr_tensor_release(in[j]);
  }
  if (json) {
    fprintf(json, "\n]}\n");
    fclose(json);
  }
  if (tfr_session_end(s) != TFR_OK) rc = 1;
  tfr_backend_release(b);
  return rc;
}
