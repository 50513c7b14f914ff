// `tenferro contract INSTANCE.json`: the main job. Reads an einsum benchmark
// instance, makes seeded random operands, contracts them along a path and
// reports the path statistics, the time per repeat, GFLOP/s, peak memory and
// a checksum of the result.
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "path_file.h"
#include "path_options.h"
#include "tenferro/tenferro.h"

static void tfr_contract_usage(FILE *f) {
  fprintf(f,
          "usage: tenferro contract INSTANCE.json [--backend cpu|webgpu] [--path NAME]\n"
          "                         [--minimize flops|size|write|combo] [--trials N]\n"
          "                         [--optimize-time SECONDS] [--subtree K] [--plan-only]\n"
          "                         [--seed N] [--dtype f64|c128|f32|c64] [--repeat N] "
          "[--warmup N]\n"
          "                         [--threads N]"
          " [--save-inputs DIR] [-o OUT.npy]\n"
          "                         [--save-path F.json] [--path-file F.json]\n"
          "                         [--max-memory BYTES] [--quiet] [--profile[=all]]\n\n"
          "Contracts an einsum benchmark instance (examples/instances/*.json) with seeded\n"
          "random operands (uniform in [-1, 1), complex parts likewise, never zero).\n"
          "  --path NAME    a path found here (docs/paths.md): auto (default: the others\n"
          "                 within --optimize-time, 3 s by default, stopping early once the\n"
          "                 path would contract faster than the search took), greedy,\n"
          "                 random-greedy (seeded\n"
          "                 randomised greedy trials, the best kept), dp (dynamic programming\n"
          "                 over connected subsets, a few dozen operands), optimal (exhaustive,\n"
          "                 <= 12 operands), treesa (simulated annealing on the tree, seeded\n"
          "                 runs, the best kept), partition (recursive bisection by METIS,\n"
          "                 seeded trials, the best kept); or the instance's stored opt_flops\n"
          "                 or opt_size path\n"
          "  --plan-only    print the path and stop (no operands, no contraction)\n"
          "  --seed N       operand i is made from seed N + i, and N seeds the path search\n"
          "                 (default 0)\n"
          "  --backend      cpu (default) or webgpu: operands are uploaded, intermediates\n"
          "                 stay on the device, the result is downloaded\n"
          "  --dtype        default: the instance's dtype (on webgpu, which has no 64-bit\n"
          "                 types yet, f64 and c128 instances run as f32 and c64)\n"
          "  --repeat N     timed repeats (default 1); the median is reported\n"
          "  --warmup N     untimed runs before them (default 0): the first runs of a\n"
          "                 process pay for first-touch page faults, thread start-up and\n"
          "                 the buffer pool filling\n"
          "  --profile      after the timed repeats, one more run with every op timed: a\n"
          "                 table of the ops by time (step, kind - gemm, batched_gemm, gemv,\n"
          "                 dot, outer_product, multiply, transpose, reduce, ...; shapes,\n"
          "                 calls, ms, GFLOP/s or GB/s, %% of the run), the 30 slowest only,\n"
          "                 then the totals by kind and the profiled total against the\n"
          "                 timed median (on webgpu each op is waited for: slower)\n"
          "  --profile=all  the same with every op, in execution order\n"
          "  --save-inputs  writes operand i as DIR/operand_<iii>.npy\n"
          "  -o OUT.npy     writes the result\n");
  tfr_cli_search_usage(f);
  tfr_cli_path_io_usage(f);
}

// The instance as read from JSON.
typedef struct tfr_instance {
  char *subscripts;
  int n;
  int *ranks;
  int64_t **shapes;
  tfr_dtype dtype;
  int32_t *path;  // the chosen stored path, or NULL
  int path_len;
  double json_log10_flops, json_log2_size;
} tfr_instance;

static void tfr_instance_free(tfr_instance *in) {
  for (int i = 0; in->shapes && i < in->n; i++) free(in->shapes[i]);
  free(in->shapes);
  free(in->ranks);
  free(in->subscripts);
  free(in->path);
}

static int tfr_instance_error(const char *path, const char *what) {
  fprintf(stderr, "tenferro contract: %s: %s\n", path, what);
  return 1;
}

static int tfr_instance_load(const char *file, const char *path_name, tfr_instance *in) {
  memset(in, 0, sizeof *in);
  size_t len;
  char *text = tfr_cli_read_file(file, &len);
  if (!text) {
    fprintf(stderr, "tenferro contract: %s: %s\n", file, strerror(errno));
    return 1;
  }
  // The whole file must be one JSON value: trailing bytes are an error.
  cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);
  free(text);
  if (!root) return tfr_instance_error(file, "not valid JSON");
  int rc = 1;
  const cJSON *fs = cJSON_GetObjectItemCaseSensitive(root, "format_string");
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "shapes");
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(root, "dtype");
  if (!cJSON_IsString(fs) || !cJSON_IsArray(shapes) || !cJSON_IsString(dtype)) {
    tfr_instance_error(file, "needs \"format_string\" (string), \"shapes\" (array), \"dtype\" (string)");
    goto done;
  }
  in->subscripts = strdup(fs->valuestring);
  if (strcmp(dtype->valuestring, "float64") == 0) in->dtype = TFR_F64;
  else if (strcmp(dtype->valuestring, "complex128") == 0) in->dtype = TFR_C128;
  else if (tfr_dtype_from_name(dtype->valuestring, &in->dtype) != TFR_OK) {
    tfr_instance_error(file, "unknown \"dtype\"");
    goto done;
  }
  in->n = cJSON_GetArraySize(shapes);
  if (in->n < 1) {
    tfr_instance_error(file, "\"shapes\" is empty");
    goto done;
  }
  in->ranks = calloc((size_t)in->n, sizeof(int));
  in->shapes = calloc((size_t)in->n, sizeof(int64_t *));
  if (!in->ranks || !in->shapes || !in->subscripts) goto done;
  for (int i = 0; i < in->n; i++) {
    const cJSON *sh = cJSON_GetArrayItem(shapes, i);
    if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > TFR_MAX_RANK) {
      fprintf(stderr, "tenferro contract: %s: shapes[%d] is not a list of at most %d extents\n",
              file, i, TFR_MAX_RANK);
      goto done;
    }
    in->ranks[i] = cJSON_GetArraySize(sh);
    in->shapes[i] = calloc((size_t)in->ranks[i] + 1, sizeof(int64_t));
    if (!in->shapes[i]) goto done;
    for (int k = 0; k < in->ranks[i]; k++) {
      const cJSON *d = cJSON_GetArrayItem(sh, k);
      if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble != floor(d->valuedouble) ||
          d->valuedouble > 9e15) {
        fprintf(stderr, "tenferro contract: %s: shapes[%d][%d] is not a non-negative integer\n",
                file, i, k);
        goto done;
      }
      in->shapes[i][k] = (int64_t)d->valuedouble;
    }
  }
  if (path_name) {
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(paths, path_name);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "path");
    if (!cJSON_IsArray(list)) {
      fprintf(stderr,
              "tenferro contract: %s: no \"paths\".\"%s\".\"path\" list (use --path greedy, "
              "random-greedy or dp to find one)\n",
              file, path_name);
      goto done;
    }
    in->path_len = cJSON_GetArraySize(list);
    in->path = calloc(2 * (size_t)in->path_len + 2, sizeof(int32_t));
    if (!in->path) goto done;
    for (int s = 0; s < in->path_len; s++) {
      const cJSON *pair = cJSON_GetArrayItem(list, s);
      const cJSON *a = cJSON_GetArrayItem(pair, 0), *b = cJSON_GetArrayItem(pair, 1);
      if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
          a->valuedouble != floor(a->valuedouble) || b->valuedouble != floor(b->valuedouble) ||
          fabs(a->valuedouble) > 1e9 || fabs(b->valuedouble) > 1e9) {
        fprintf(stderr, "tenferro contract: %s: path step %d is not a pair of integer positions\n",
                file, s);
        goto done;
      }
      in->path[2 * s] = (int32_t)a->valuedouble;
      in->path[2 * s + 1] = (int32_t)b->valuedouble;
    }
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(p, "log10_flops");
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(p, "log2_size");
    in->json_log10_flops = cJSON_IsNumber(fl) ? fl->valuedouble : NAN;
    in->json_log2_size = cJSON_IsNumber(sz) ? sz->valuedouble : NAN;
  }
  rc = 0;
done:
  cJSON_Delete(root);
  return rc;
}

// Seeded operand: uniform in [-1, 1) per real part, never zero (splitmix64).
static tfr_status tfr_make_operand(tfr_dtype dtype, int rank, const int64_t *shape, uint64_t seed,
                                   tfr_tensor **out) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++)
    if (__builtin_mul_overflow(n, shape[k], &n) || n > (INT64_C(1) << 50)) {
      fprintf(stderr, "tenferro contract: an operand's shape has more than 2^50 elements\n");
      return TFR_ERR_INVALID_ARGUMENT;
    }
  int parts = (dtype == TFR_C64 || dtype == TFR_C128) ? 2 : 1;
  bool single = dtype == TFR_F32 || dtype == TFR_C64;
  size_t es = tfr_dtype_size(dtype);
  void *buf = malloc((size_t)n * es + 16);
  if (!buf) {
    fprintf(stderr, "tenferro contract: cannot allocate %.3g bytes for an operand\n",
            (double)n * (double)es);
    return TFR_ERR_OUT_OF_MEMORY;
  }
  uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  for (int64_t i = 0; i < n * parts; i++) {
    double v;
    do {
      uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      v = (double)(z >> 11) * 0x1.0p-52 - 1.0;
    } while (v == 0.0 || (single && (float)v == 0.0f));
    if (single) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
  }
  tfr_status s = tfr_tensor_from_host(dtype, rank, shape, buf, out);
  free(buf);
  return s;
}

static int tfr_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct tfr_contract_args {
  const char *instance, *path_kind, *save_dir, *out_path, *backend;
  int repeat, warmup, threads;
  bool have_dtype, plan_only, path_set;
  int profile;  // 0: no --profile, 1: the slowest ops, 2: every op (--profile=all)
  tfr_dtype dtype;
  tfr_einsum_options search;  // minimize, trials, max_time, seed (also the operands')
  tfr_cli_path_io io;         // --save-path, --path-file, --quiet
} tfr_contract_args;

static int tfr_contract_run(const tfr_contract_args *a) {
  if (a->io.max_memory_bad) {
    fprintf(stderr, "tenferro contract: --max-memory needs a positive number of bytes (e.g. "
                    "1GiB, 512M, 1e9)\n");
    return 2;
  }
  if (a->io.path_file && a->path_set) {
    fprintf(stderr, "tenferro contract: --path and --path-file exclude each other\n");
    return 2;
  }
  bool stored = !a->io.path_file && (strcmp(a->path_kind, "opt_flops") == 0 ||
                                     strcmp(a->path_kind, "opt_size") == 0);
  tfr_einsum_options opts = a->search;
  if (!stored && !a->io.path_file && tfr_einsum_path_kind_from_name(a->path_kind, &opts.path_kind) != TFR_OK) {
    fprintf(stderr, "tenferro contract: unknown --path '%s' (auto, opt_flops, opt_size, greedy, "
                    "random-greedy, dp, optimal, treesa, partition)\n", a->path_kind);
    return 2;
  }
  bool device = strcmp(a->backend, "webgpu") == 0;
  if (!device && strcmp(a->backend, "cpu") != 0) {
    fprintf(stderr, "tenferro contract: unknown --backend '%s' (cpu or webgpu)\n", a->backend);
    return 2;
  }
  if (device && a->have_dtype && (a->dtype == TFR_F64 || a->dtype == TFR_C128)) {
    fprintf(stderr, "tenferro contract: --dtype %s: the webgpu backend has no 64-bit types yet; "
                    "use --dtype f32 or c64\n", tfr_dtype_name(a->dtype));
    return 2;
  }
  tfr_instance in;
  if (tfr_instance_load(a->instance, stored ? a->path_kind : NULL, &in) != 0) {
    tfr_instance_free(&in);
    return 1;
  }
  tfr_dtype dtype = a->have_dtype ? a->dtype : in.dtype;
  // On webgpu an f64 / c128 instance runs in single precision.
  bool narrowed = false;
  if (device && !a->have_dtype && (dtype == TFR_F64 || dtype == TFR_C128)) {
    dtype = dtype == TFR_F64 ? TFR_F32 : TFR_C64;
    narrowed = true;
  }
  if (stored) {
    opts.path_kind = TFR_EINSUM_PATH_GIVEN;
    opts.path = in.path;
    opts.path_len = in.path_len;
  }
  tfr_cli_progress prog;
  int rc = 1;
  tfr_einsum_plan *plan = NULL;
  tfr_backend *backend = NULL;
  tfr_session *s = NULL;
  tfr_tensor **ops = NULL, *result = NULL, *host_result = NULL;
  double *times = NULL;
  double t0 = tfr_cli_seconds();
  tfr_cli_network net = {in.subscripts, in.n, in.ranks, (const int64_t *const *)in.shapes};
  double max_memory = a->io.max_memory > 0 ? a->io.max_memory : tfr_cli_default_max_memory();
  if (tfr_cli_plan("contract", a->instance, &net, &a->io, max_memory, tfr_dtype_size(dtype), &opts,
                   &prog, &plan) != 0)
    goto done;
  double plan_s = tfr_cli_seconds() - t0;
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  printf("instance  %s\n", a->instance);
  printf("operands  %d, dtype %s%s, path %s (%d steps, planned in %.3f ms)\n", in.n,
         tfr_dtype_name(dtype), narrowed ? " (the instance's is 64-bit; webgpu computes in single precision)" : "",
         a->io.path_file ? a->io.path_file : a->path_kind, info->num_steps, plan_s * 1e3);
  printf("path      log10(flops) %.4f, log2(largest intermediate) %.4f", info->log10_flops,
         info->log2_largest);
  if (stored && !isnan(in.json_log10_flops))
    printf("  (instance file: %.4f, %.4f)", in.json_log10_flops, in.json_log2_size);
  printf("\n");
  if (info->num_slices != 1) {
    int32_t sl[TFR_EINSUM_MAX_SLICED];
    int ns = tfr_einsum_plan_sliced_labels(plan, sl);
    printf("slices    %" PRId64 " over %d label(s), flops x%.3f (log10 %.4f), one slice's "
           "memory %.1f MiB (limit %.1f MiB)\n",
           info->num_slices, ns, info->sliced_flops / info->flops, log10(info->sliced_flops),
           info->sliced_peak_live_elements * (double)tfr_dtype_size(dtype) / 1048576.0,
           max_memory / 1048576.0);
  }
  if (a->plan_only) {
    rc = 0;
    goto done;
  }
  // Refuse before allocating when the largest intermediate (of one slice)
  // cannot fit.
  double need = (double)info->sliced_largest_intermediate * (double)tfr_dtype_size(dtype);
  double operand_bytes = 0;
  for (int i = 0; i < in.n; i++) {
    double n = (double)tfr_dtype_size(dtype);
    for (int k = 0; k < in.ranks[i]; k++) n *= (double)in.shapes[i][k];
    operand_bytes += n;
  }
  double avail = device ? 0 : tfr_cli_mem_available();
  // The operands live throughout; the largest step result comes on top
  // (a lower bound of the peak: its inputs are alive too).
  if (avail > 0 && operand_bytes + need > avail) {
    fprintf(stderr,
            "tenferro contract: %s: the operands (%.3g bytes) and the largest intermediate "
            "(%.3g bytes) need more than the %.3g bytes available\n",
            a->instance, operand_bytes, need, avail);
    goto done;
  }
  if (tfr_cli_make_backend("contract", a->backend, a->threads, &backend, NULL) != 0) goto done;
  if (device) {
    tfr_webgpu_adapter_info ai;
    if (tfr_webgpu_get_adapter_info(backend, &ai) != TFR_OK) {
      rc = tfr_cli_fail("webgpu backend");
      goto done;
    }
    printf("device    %s (%s)\n", ai.name, ai.driver);
    // Kernels bind a whole tensor at once: the largest intermediate must fit
    // one binding.
    if (need > (double)ai.max_storage_buffer_binding_size) {
      fprintf(stderr,
              "tenferro contract: %s: the largest intermediate (%.3g bytes) exceeds what the "
              "device binds at once (maxStorageBufferBindingSize, %.3g bytes)\n",
              a->instance, need, (double)ai.max_storage_buffer_binding_size);
      goto done;
    }
  }
  if (tfr_session_begin(backend, &s) != TFR_OK) {
    rc = tfr_cli_fail("session");
    goto done;
  }
  ops = calloc((size_t)in.n, sizeof *ops);
  times = calloc((size_t)a->repeat, sizeof *times);
  if (!ops || !times) goto done;
  if (a->save_dir && mkdir(a->save_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "tenferro contract: %s: %s\n", a->save_dir, strerror(errno));
    goto done;
  }
  for (int i = 0; i < in.n; i++) {
    tfr_status mst = tfr_make_operand(dtype, in.ranks[i], in.shapes[i], a->search.seed + (uint64_t)i, &ops[i]);
    if (mst == TFR_ERR_OUT_OF_MEMORY || mst == TFR_ERR_INVALID_ARGUMENT) goto done;  // reported
    if (mst != TFR_OK) {
      rc = tfr_cli_fail("making operands");
      goto done;
    }
    if (a->save_dir) {
      char name[4096];
      snprintf(name, sizeof name, "%s/operand_%03d.npy", a->save_dir, i);
      if (tfr_npy_save(name, ops[i]) != TFR_OK) {
        rc = tfr_cli_fail("--save-inputs");
        goto done;
      }
    }
    if (device) {
      tfr_tensor *d = NULL;
      tfr_status ust = tfr_upload(s, ops[i], &d);
      tfr_tensor_release(ops[i]);
      ops[i] = d;
      if (ust) {
        rc = tfr_cli_fail("upload");
        goto done;
      }
    }
  }
  for (int r = -a->warmup; r < a->repeat; r++) {
    tfr_tensor_release(result);
    result = NULL;
    tfr_cli_progress_begin(&prog, plan);
    double start = tfr_cli_seconds();
    bool ok = tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &result) == TFR_OK &&
              tfr_session_synchronize(s) == TFR_OK;
    tfr_cli_progress_end(&prog);
    if (!ok) {
      rc = tfr_cli_fail("contract");
      goto done;
    }
    if (r >= 0) times[r] = tfr_cli_seconds() - start;
  }
  qsort(times, (size_t)a->repeat, sizeof(double), tfr_cmp_d);
  double med = times[a->repeat / 2];
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("time      median %.3f ms over %d repeat(s), %.2f GFLOP/s", med * 1e3, a->repeat,
         info->sliced_flops / med * 1e-9);
  if (info->num_slices > 1) {
    int st = tfr_einsum_plan_slice_threads(plan, s);
    if (st > 1) printf(", slices on %d threads at once", st);
    else printf(", slices one after another");
  }
  printf("\n");
  printf("memory    peak RSS %.1f MiB, largest intermediate %.1f MiB, path's live peak %.1f MiB%s",
         (double)ru.ru_maxrss / 1024.0, need / 1048576.0,
         info->sliced_peak_live_elements * (double)tfr_dtype_size(dtype) / 1048576.0,
         info->num_slices != 1 ? " (one slice)" : "");
  if (device) {
    tfr_webgpu_stats ws;
    if (tfr_webgpu_get_stats(backend, &ws) == TFR_OK)
      printf(", device memory now %.1f MiB", (double)ws.device_bytes / 1048576.0);
  }
  printf("\n");
  if (a->profile) {
    // One more run, every op timed; its result replaces the timed runs'.
    tfr_einsum_profile *prof = NULL;
    tfr_tensor_release(result);
    result = NULL;
    tfr_cli_progress_begin(&prog, plan);
    tfr_status pst = tfr_einsum_plan_profile(s, plan, (const tfr_tensor *const *)ops, &prof, &result);
    tfr_cli_progress_end(&prog);
    if (pst != TFR_OK) {
      rc = tfr_cli_fail("contract --profile");
      goto done;
    }
    int prc = tfr_cli_print_profile(prof, med, a->profile == 2);
    tfr_einsum_profile_free(prof);
    if (prc != 0) goto done;
  }
  if (tfr_cli_to_host(s, result, &host_result) != 0) goto done;
  // Checksum: the sum of the elements (re, im) and of their magnitudes, read
  // on the host in the result's own dtype.
  {
    int64_t n = tfr_tensor_numel(host_result);
    size_t es = tfr_dtype_size(dtype);
    unsigned char *v = malloc((size_t)n * es + 16);
    if (!v || tfr_tensor_read(host_result, v, (size_t)n * es) != TFR_OK) {
      free(v);
      goto done;
    }
    double re = 0, im = 0, mag = 0;
    for (int64_t i = 0; i < n; i++) {
      double x = 0, y = 0;
      switch (dtype) {
        case TFR_F32: x = ((const float *)v)[i]; break;
        case TFR_F64: x = ((const double *)v)[i]; break;
        case TFR_C64: x = ((const float *)v)[2 * i], y = ((const float *)v)[2 * i + 1]; break;
        default: x = ((const double *)v)[2 * i], y = ((const double *)v)[2 * i + 1]; break;
      }
      re += x;
      im += y;
      mag += hypot(x, y);
    }
    free(v);
    printf("result    shape [");
    for (int k = 0; k < tfr_tensor_rank(result); k++)
      printf(k ? ", %lld" : "%lld", (long long)tfr_tensor_shape(result)[k]);
    printf("], checksum sum %.17g", re);
    if (dtype == TFR_C64 || dtype == TFR_C128) printf(" %+.17gi", im);
    printf(", sum|x| %.17g\n", mag);
  }
  if (a->out_path && tfr_npy_save(a->out_path, host_result) != TFR_OK) {
    rc = tfr_cli_fail("-o");
    goto done;
  }
  rc = 0;
done:
  if (ops)
    for (int i = 0; i < in.n; i++) tfr_tensor_release(ops[i]);
  free(ops);
  free(times);
  tfr_tensor_release(result);
  tfr_tensor_release(host_result);
  if (s && tfr_session_end(s) != TFR_OK) rc = 1;
  tfr_backend_release(backend);
  tfr_einsum_plan_release(plan);
  tfr_instance_free(&in);
  return rc;
}

int tfr_cli_contract(int argc, char **argv) {
  tfr_contract_args a = {.path_kind = "auto", .backend = "cpu", .repeat = 1};
  bool bad = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      tfr_contract_usage(stdout);
      return 0;
    } else if (strcmp(arg, "--path") == 0 && has_value) {
      a.path_kind = argv[++i];
      a.path_set = true;
    } else if (tfr_cli_path_io_option(argc, argv, &i, &a.io)) continue;
    else if (strcmp(arg, "--plan-only") == 0) a.plan_only = true;
    else if (strcmp(arg, "--profile") == 0) a.profile = 1;
    else if (strcmp(arg, "--profile=all") == 0) a.profile = 2;
    else if (strcmp(arg, "--backend") == 0 && has_value) a.backend = argv[++i];
    else if (strcmp(arg, "--save-inputs") == 0 && has_value) a.save_dir = argv[++i];
    else if (strcmp(arg, "-o") == 0 && has_value) a.out_path = argv[++i];
    else if ((strcmp(arg, "--repeat") == 0 || strcmp(arg, "--warmup") == 0 ||
              strcmp(arg, "--threads") == 0) &&
             has_value) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      bool rep = strcmp(arg, "--repeat") == 0, warm = strcmp(arg, "--warmup") == 0;
      long least = rep ? 1 : 0, most = rep || warm ? 100000 : TFR_CPU_MAX_THREADS;
      if (*end || v < least || v > most) {
        fprintf(stderr, "tenferro contract: %s needs an integer in [%ld, %ld]\n", arg, least,
                most);
        return 2;
      }
      if (rep) a.repeat = (int)v;
      else if (warm) a.warmup = (int)v;
      else a.threads = (int)v;
    } else if (tfr_cli_search_option("contract", argc, argv, &i, &a.search, &bad)) {
      if (bad) return 2;
    } else if (strcmp(arg, "--dtype") == 0 && has_value) {
      if (tfr_dtype_from_name(argv[++i], &a.dtype) != TFR_OK ||
          !(a.dtype == TFR_F32 || a.dtype == TFR_F64 || a.dtype == TFR_C64 || a.dtype == TFR_C128)) {
        fprintf(stderr, "tenferro contract: --dtype must be f32, f64, c64 or c128\n");
        return 2;
      }
      a.have_dtype = true;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      fprintf(stderr, "tenferro contract: unknown or incomplete option '%s'\n\n", arg);
      tfr_contract_usage(stderr);
      return 2;
    } else if (!a.instance) {
      a.instance = arg;
    } else {
      fprintf(stderr, "tenferro contract: more than one instance given ('%s')\n", arg);
      return 2;
    }
  }
  if (!a.instance) {
    tfr_contract_usage(stderr);
    return 2;
  }
  return tfr_contract_run(&a);
}
