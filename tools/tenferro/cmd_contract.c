// `tenferro contract INSTANCE.json`: the main job. Reads an einsum benchmark
// instance, makes seeded random operands, contracts them along a path and
// reports the path statistics, the time per repeat, GFLOP/s, peak memory and
// a checksum of the result.
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
#include "distributed.h"
#include "instance.h"
#include "path_file.h"
#include "path_options.h"
#include "tenferro/tenferro.h"

static void tfr_contract_usage(FILE *f) {
  fprintf(f,
          "usage: tenferro contract INSTANCE.json [--backend cpu|webgpu] [--path NAME]\n"
          "                         [--minimize flops|size|write|combo] [--trials N]\n"
          "                         [--optimize-time SECONDS] [--subtree K] [--plan-only]\n"
          "                         [--seed N] [--dtype DTYPE] [--repeat N] "
          "[--warmup N] [--adapter N]\n"
          "                         [--threads N]"
          " [--save-inputs DIR] [-o OUT.npy]\n"
          "                         [--save-path F.json] [--path-file F.json]\n"
          "                         [--max-memory BYTES] [--quiet] [--profile[=all]]\n"
          "                         [--slices K] [--schedule static|dynamic] [--deterministic]\n"
          "   or: mpirun -np N tenferro contract INSTANCE.json ... (slices across ranks)\n\n"
          "Contracts an einsum benchmark instance (examples/instances/*.json) with seeded\n"
          "random operands in its \"dtype\" (any of the library's, by its name or numpy's):\n"
          "floats uniform in [-1, 1), complex parts likewise, never zero; signed integers\n"
          "from -3..3 without 0, unsigned from 1..3, bool 0 or 1.\n"
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
          "  --adapter N    webgpu: entry N of `tenferro info`'s adapters (default: the\n"
          "                 one Dawn picks; under mpirun, the node's GPUs in turn by\n"
          "                 node-local rank)\n"
          "  --dtype        f32, f64, c64, c128, bf16, f16, i8..i64, u8..u64, bool; default:\n"
          "                 the instance's, on webgpu too: it computes every dtype, f64\n"
          "                 and c128 in software (exact IEEE binary64); --dtype f32 runs\n"
          "                 an f64 instance in single precision\n"
          "  --repeat N     timed repeats (default 1); the median is reported; on webgpu\n"
          "                 also the host's time recording them (per step, before the\n"
          "                 wait) and, when the plan ran before (--warmup or a repeat),\n"
          "                 what its last repeat created: 0 pipelines, bind groups and\n"
          "                 buffers is a replay of what the first run made\n"
          "  --threads N    cpu backend threads, 0 to 1024 (0, the default: OpenMP's,\n"
          "                 i.e. OMP_NUM_THREADS or every core)\n"
          "  --warmup N     untimed runs before them (default 0): the first runs of a\n"
          "                 process pay for first-touch page faults, thread start-up and\n"
          "                 the buffer pool filling\n"
          "  --profile      after the timed repeats, one more run with every op timed: a\n"
          "                 table of the ops by time (step, kind - gemm, batched_gemm, gemv,\n"
          "                 dot, outer_product, multiply, transpose, reduce,\n"
          "                 sum_of_products, ...; shapes, calls, ms, GFLOP/s or GB/s, %% of\n"
          "                 the run), the 30 slowest only,\n"
          "                 then the totals by kind and the profiled total against the\n"
          "                 timed median (on webgpu each op is waited for: slower)\n"
          "  --profile=all  the same with every op, in execution order\n"
          "  --save-inputs  writes operand i as DIR/operand_<iii>.npy\n"
          "  -o OUT.npy     writes the result\n"
          "  --slices K     slice the plan into at least K slices (after --max-memory's):\n"
          "                 one label at a time, the one that adds the fewest flops per\n"
          "                 factor of slices gained\n"
          );
  fprintf(f,
          "Under mpirun (a build with MPI; docs/distributed.md): rank 0 reads the instance\n"
          "and plans, every rank contracts its share of the slices, rank 0 combines the\n"
          "partial results and prints; the report adds a \"ranks\" line.\n"
          "  --schedule     static (default: equal slice counts per rank) or dynamic (a\n"
          "                 rank takes the next slice when it is done)\n"
          "  --deterministic  a fixed order of every addition: the same bits on any\n"
          "                 number of ranks (blocks gathered, or chunks of slices summed\n"
          "                 in order)\n");
  tfr_cli_search_usage(f);
  tfr_cli_path_io_usage(f);
}

// Seeded operand (splitmix64) in the instance's dtype (f16 and bf16 made in
// f32 and converted by the library, StableHLO convert): floats
// uniform in [-1, 1) per real part, never zero in the dtype (f16 and bf16:
// magnitudes from 2^-14); signed integers from {-3, .., 3} without 0,
// unsigned from {1, 2, 3}; bool 0 or 1. `hs` is a cpu session. Returns 0, or
// 1 with the error printed.
static int tfr_make_operand(tfr_session *hs, tfr_dtype dtype, int rank,
                                   const int64_t *shape, uint64_t seed, tfr_tensor **out) {
  *out = NULL;
  int64_t n = 1;
  for (int k = 0; k < rank; k++)
    if (__builtin_mul_overflow(n, shape[k], &n) || n > (INT64_C(1) << 50)) {
      fprintf(stderr, "tenferro contract: an operand's shape has more than 2^50 elements\n");
      return 1;
    }
  const tfr_dtype_info *di = tfr_dtype_get_info(dtype);
  bool complex = di->kind == TFR_KIND_COMPLEX;
  int parts = complex ? 2 : 1;
  bool single = di->real == TFR_F32, narrow = di->real == TFR_F16 || di->real == TFR_BF16;
  // Written in the dtype itself (f16 and bf16: in f32, then converted by the
  // library, which rounds once): no wider copy than the operand needs.
  tfr_dtype made = narrow ? TFR_F32 : dtype;
  size_t es = tfr_dtype_size(made) / (size_t)parts;  // one part
  unsigned char *buf = malloc((size_t)n * (size_t)parts * es + 16);
  if (!buf) {
    fprintf(stderr, "tenferro contract: cannot allocate %.3g bytes for an operand\n",
            (double)n * (double)parts * (double)es);
    return 1;
  }
  uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  for (int64_t i = 0; i < n * parts; i++) {
    uint64_t z;
    double v;
    do {
      z = (st += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      v = (double)(z >> 11) * 0x1.0p-52 - 1.0;
    } while (v == 0.0 || (single && (float)v == 0.0f) || (narrow && fabs(v) < 0x1.0p-14));
    int64_t q = (int64_t)((z >> 32) % 6);
    int64_t sgn = q - 3 + (q >= 3), uns = 1 + (int64_t)((z >> 32) % 3);
    void *at = buf + (size_t)i * es;
    switch (made) {
      case TFR_BOOL: *(uint8_t *)at = (uint8_t)(z >> 63); break;
      case TFR_I8: *(int8_t *)at = (int8_t)sgn; break;
      case TFR_I16: *(int16_t *)at = (int16_t)sgn; break;
      case TFR_I32: *(int32_t *)at = (int32_t)sgn; break;
      case TFR_I64: *(int64_t *)at = sgn; break;
      case TFR_U8: *(uint8_t *)at = (uint8_t)uns; break;
      case TFR_U16: *(uint16_t *)at = (uint16_t)uns; break;
      case TFR_U32: *(uint32_t *)at = (uint32_t)uns; break;
      case TFR_U64: *(uint64_t *)at = (uint64_t)uns; break;
      case TFR_F32: case TFR_C64: *(float *)at = (float)v; break;
      default: *(double *)at = v; break;  // f64, c128
    }
  }
  tfr_tensor *t = NULL;
  tfr_status s = tfr_tensor_from_host(made, rank, shape, buf, &t);
  free(buf);
  if (s == TFR_OK && dtype != made) {
    s = tfr_convert(hs, t, dtype, out);
    tfr_tensor_release(t);
  } else {
    *out = t;
  }
  return s == TFR_OK ? 0 : tfr_cli_fail("making operands");
}

static int tfr_cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// webgpu: the host's cost of recording the timed repeats (tfr_einsum_plan_execute
// up to its return, before the wait: the calling thread's CPU time and the wall
// time, medians, per step) and what the last repeat created (replay: NULL when
// there was no earlier run of the plan).
static void tfr_contract_print_host(int repeat, double *cpu, double *wall, int64_t steps,
                                    const tfr_webgpu_stats *before, const tfr_webgpu_stats *after) {
  qsort(cpu, (size_t)repeat, sizeof(double), tfr_cmp_d);
  qsort(wall, (size_t)repeat, sizeof(double), tfr_cmp_d);
  double per = steps > 0 ? 1e6 / (double)steps : 0;
  printf("host      recording %.2f us per step (thread CPU time; wall %.2f us) over %" PRId64
         " steps, median of %d\n",
         cpu[repeat / 2] * per, wall[repeat / 2] * per, steps, repeat);
  if (before)
    printf("replay    the last repeat created %" PRIu64 " pipelines, %" PRIu64
           " bind groups, %" PRIu64 " buffers (%" PRIu64 " dispatches, %" PRIu64
           " bind groups reused, %" PRIu64 " submits)\n",
           after->pipelines - before->pipelines,
           after->bind_groups_created - before->bind_groups_created,
           after->buffers_created - before->buffers_created, after->dispatches - before->dispatches,
           after->bind_group_hits - before->bind_group_hits, after->submits - before->submits);
}

typedef struct tfr_contract_args {
  const char *instance, *path_kind, *save_dir, *out_path, *backend;
  int repeat, warmup, threads;
  int adapter;                // --adapter (-1: not given)
  bool have_dtype, plan_only, path_set;
  int profile;  // 0: no --profile, 1: the slowest ops, 2: every op (--profile=all)
  tfr_dtype dtype;
  tfr_einsum_options search;  // minimize, trials, max_time, seed (also the operands')
  tfr_cli_path_io io;         // --save-path, --path-file, --quiet
  int64_t slices;             // --slices (0: as memory needs)
  bool schedule_set;          // --schedule or --deterministic given
  tfr_cli_mpi_options mpi;    // --schedule, --deterministic
} tfr_contract_args;

// The webgpu adapter: --adapter's; else, under mpirun, the GPUs of the node
// shared by its ranks (GPU i for node-local rank r with r % GPUs == i; every
// rank the default adapter when the node has no GPU); else 0, Dawn's choice.
static int tfr_contract_adapter(const tfr_contract_args *a) {
  if (a->adapter >= 0) return a->adapter;
  if (!tfr_cli_mpi_active() || strcmp(a->backend, "webgpu") != 0) return 0;
  tfr_webgpu_adapter_info *infos = NULL;
  int n = 0, gpus = 0, pick = 0;
  if (tfr_webgpu_enumerate_adapters(NULL, &infos, &n) != TFR_OK) return 0;
  for (int i = 0; i < n; i++)
    gpus += strstr(infos[i].adapter_type, "GPU") != NULL;
  for (int i = 0, g = 0; gpus > 0 && i < n; i++)
    if (strstr(infos[i].adapter_type, "GPU") && g++ == tfr_cli_mpi_local_rank() % gpus) pick = infos[i].index;
  tfr_webgpu_adapter_infos_free(infos);
  return pick;
}

// The file --save-inputs writes operand i to (name[4096]).
static void tfr_contract_input_name(const char *dir, int i, char *name) {
  snprintf(name, 4096, "%s/operand_%03d.npy", dir, i);
}

// Checks -o, --save-path and --save-inputs (for n operands) before the run;
// with --plan-only only --save-path, the one written then.
static int tfr_contract_check_outputs(const tfr_contract_args *a, int n) {
  if (a->io.save_path && tfr_cli_check_output("contract", "--save-path", a->io.save_path) != 0)
    return 1;
  if (a->plan_only) return 0;
  if (a->out_path && tfr_cli_check_output("contract", "-o", a->out_path) != 0) return 1;
  if (!a->save_dir) return 0;
  char *names = malloc((size_t)n * 4096);
  const char **list = calloc((size_t)n + 1, sizeof *list);
  int rc = 1;
  if (!names || !list) {
    fprintf(stderr, "tenferro contract: --save-inputs: out of memory\n");
  } else {
    for (int i = 0; i < n; i++) {
      tfr_contract_input_name(a->save_dir, i, names + (size_t)i * 4096);
      list[i] = names + (size_t)i * 4096;
    }
    rc = tfr_cli_check_output_dir("contract", "--save-inputs", a->save_dir, list, n);
  }
  free(names);
  free(list);
  return rc;
}

// Writes the n host operands to DIR/operand_<iii>.npy, making DIR if needed.
static int tfr_contract_save_inputs(const char *dir, int n, tfr_tensor *const *ops) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "tenferro contract: --save-inputs %s: %s\n", dir, strerror(errno));
    return 1;
  }
  for (int i = 0; i < n; i++) {
    char name[4096];
    tfr_contract_input_name(dir, i, name);
    if (tfr_cli_npy_save(name, ops[i]) != TFR_OK) return tfr_cli_fail("--save-inputs");
  }
  return 0;
}

// Reads the instance; under MPI rank 0 reads and checks it, then every other
// rank parses the same text (so that bad input is reported once, by rank 0).
static int tfr_contract_load(const tfr_contract_args *a, const char *path_name, bool mpi,
                             tfr_instance *in) {
  if (!mpi) return tfr_instance_load(a->instance, path_name, in);
  memset(in, 0, sizeof *in);
  char *text = NULL;
  size_t len = 0;
  if (tfr_cli_mpi_rank() == 0) {
    const char *why = NULL;
    text = tfr_cli_read_file(a->instance, &len, &why);
    if (!text) {
      fprintf(stderr, "tenferro contract: %s: %s\n", a->instance, why);
      return 1;
    }
    if (tfr_instance_parse(a->instance, text, len, path_name, in) != 0) {
      free(text);
      return 1;
    }
    tfr_instance_free(in);
  }
  int rc = tfr_cli_mpi_share_text(&text, &len);
  if (rc == 0) rc = tfr_instance_parse(a->instance, text, len, path_name, in);
  free(text);
  return rc;
}

// --slices K: slices the plan further until it has at least K slices
// (tfr_einsum_plan_slice_to_count: the labels that add the fewest flops).
static int tfr_contract_slice_more(const tfr_contract_args *a, tfr_einsum_plan *plan) {
  if (tfr_einsum_plan_slice_to_count(plan, a->slices) == TFR_OK) return 0;
  fprintf(stderr, "tenferro contract: --slices %" PRId64 ": %s\n", a->slices, tfr_last_error_message());
  return 1;
}

static int tfr_contract_body(const tfr_contract_args *a, bool mpi) {
  if (a->io.max_memory_bad) {
    tfr_cli_bad_max_memory("contract", a->io.max_memory_text);
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
  if (mpi && a->profile) {
    fprintf(stderr, "tenferro contract: --profile runs in one process only (not under mpirun)\n");
    return 2;
  }
  bool root = tfr_cli_mpi_rank() == 0;
  tfr_instance in;
  if (tfr_contract_load(a, stored ? a->path_kind : NULL, mpi, &in) != 0) {
    tfr_instance_free(&in);
    return 1;
  }
  // Every target is checked before anything is computed or written: a run
  // that fails leaves no output at all (docs/cli.md, "Outputs"). Only rank 0
  // writes.
  if (root && tfr_contract_check_outputs(a, in.n) != 0) {
    tfr_instance_free(&in);
    return 1;
  }
  // The instance's dtype (or --dtype), on webgpu too: f64 and c128 run in
  // software there (docs/webgpu.md).
  tfr_dtype dtype = a->have_dtype ? a->dtype : in.dtype;
  if (stored) {
    opts.path_kind = TFR_EINSUM_PATH_GIVEN;
    opts.path = in.path;
    opts.path_len = in.path_len;
  }
  // tfr_cli_plan sets it up on the rank that plans; the others draw no progress.
  tfr_cli_progress prog;
  memset(&prog, 0, sizeof prog);
  int rc = 1;
  tfr_einsum_plan *plan = NULL;
  tfr_backend *backend = NULL;
  tfr_session *s = NULL;
  // The operands are made and the checksum read on the host: a cpu session
  // (the contraction's own on the cpu backend).
  tfr_backend *host_backend = NULL;
  tfr_session *hs = NULL, *hs_own = NULL;
  tfr_tensor **ops = NULL, *result = NULL, *host_result = NULL, *wide_result = NULL;
  tfr_tensor **saved = NULL;  // --save-inputs: the host operands (cpu: ops' own)
  double *times = NULL, *record_cpu = NULL, *record_wall = NULL;
  tfr_webgpu_stats stats0 = {0}, stats1 = {0};
  bool have_replay = false;
  double t0 = tfr_cli_seconds();
  tfr_cli_network net = {in.subscripts, in.n, in.ranks, (const int64_t *const *)in.shapes};
  double max_memory = a->io.max_memory > 0 ? a->io.max_memory : tfr_cli_default_max_memory();
  // Under MPI rank 0 plans and every other rank takes its plan.
  if (root && tfr_cli_plan("contract", a->instance, &net, &a->io, max_memory, tfr_dtype_size(dtype),
                           &opts, &prog, &plan) != 0)
    goto done;
  if (root && a->slices > 0 && tfr_contract_slice_more(a, plan) != 0) goto done;
  if (mpi && tfr_cli_mpi_share_plan(&net, &plan) != 0) goto done;
  double plan_s = tfr_cli_seconds() - t0;
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  printf("instance  %s\n", a->instance);
  printf("operands  %d, dtype %s, path %s (%d steps, planned in %.3f ms)\n", in.n,
         tfr_dtype_name(dtype), a->io.path_file ? a->io.path_file : a->path_kind, info->num_steps, plan_s * 1e3);
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
    rc = root && a->io.save_path ? tfr_cli_save_path("contract", a->io.save_path, &net, plan) : 0;
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
  if (tfr_cli_make_backend("contract", a->backend, a->threads, tfr_contract_adapter(a), &backend,
                           NULL) != 0)
    goto done;
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
  // A thread has one session at a time: on webgpu the cpu session makes
  // the operands, then the device session contracts, then a cpu session
  // reads the checksum.
  if (device) {
    if (tfr_cli_make_backend("contract", "cpu", 1, 0, &host_backend, NULL) != 0) goto done;
    if (tfr_session_begin(host_backend, &hs_own) != TFR_OK) {
      rc = tfr_cli_fail("session");
      goto done;
    }
    hs = hs_own;
  } else {
    if (tfr_session_begin(backend, &s) != TFR_OK) {
      rc = tfr_cli_fail("session");
      goto done;
    }
    hs = s;
  }
  ops = calloc((size_t)in.n, sizeof *ops);
  saved = calloc((size_t)in.n, sizeof *saved);
  times = calloc((size_t)a->repeat, sizeof *times);
  record_cpu = calloc((size_t)a->repeat, sizeof *record_cpu);
  record_wall = calloc((size_t)a->repeat, sizeof *record_wall);
  if (!ops || !saved || !times || !record_cpu || !record_wall) goto done;
  for (int i = 0; i < in.n; i++) {
    if (tfr_make_operand(hs, dtype, in.ranks[i], in.shapes[i], a->search.seed + (uint64_t)i,
                         &ops[i]) != 0)
      goto done;
    // Saved once the run has succeeded: the host copies are kept until then.
    if (a->save_dir && device) {
      tfr_tensor_retain(ops[i]);
      saved[i] = ops[i];
    } else if (a->save_dir) {
      saved[i] = ops[i];
    }
  }
  if (device) {
    tfr_status est = tfr_session_end(hs_own);
    hs_own = hs = NULL;
    if (est != TFR_OK || tfr_session_begin(backend, &s) != TFR_OK) {
      rc = tfr_cli_fail("session");
      goto done;
    }
  }
  for (int i = 0; device && i < in.n; i++) {
    tfr_tensor *d = NULL;
    tfr_status ust = tfr_upload(s, ops[i], &d);
    tfr_tensor_release(ops[i]);
    ops[i] = d;
    if (ust) {
      rc = tfr_cli_fail("upload");
      goto done;
    }
  }
  for (int r = -a->warmup; r < a->repeat; r++) {
    tfr_tensor_release(result);
    result = NULL;
    tfr_cli_progress_begin(&prog, plan);
    // webgpu: what the last repeat creates, when the plan ran before it (a
    // replay; the report's "replay" line).
    bool replay_probe = device && r == a->repeat - 1 && r + a->warmup > 0;
    if (replay_probe && tfr_webgpu_get_stats(backend, &stats0) != TFR_OK) replay_probe = false;
    double start = tfr_cli_seconds(), cpu0 = tfr_cli_thread_seconds();
    bool ok;
    if (mpi) {
      ok = tfr_cli_mpi_execute(s, plan, (const tfr_tensor *const *)ops, &a->mpi, &result) == 0;
      tfr_cli_progress_end(&prog);
      if (!ok) goto done;  // rank 0 printed the failure every rank agreed on
      if (r >= 0) times[r] = tfr_cli_seconds() - start;
    } else {
      ok = tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &result) == TFR_OK;
      if (ok && r >= 0 && device) {
        record_cpu[r] = tfr_cli_thread_seconds() - cpu0;
        record_wall[r] = tfr_cli_seconds() - start;
      }
      ok = ok && tfr_session_synchronize(s) == TFR_OK;
      if (ok && r >= 0) times[r] = tfr_cli_seconds() - start;
      if (ok && replay_probe && tfr_webgpu_get_stats(backend, &stats1) == TFR_OK) have_replay = true;
      tfr_cli_progress_end(&prog);
      if (!ok) {
        rc = tfr_cli_fail("contract");
        goto done;
      }
    }
  }
  if (!root) {  // the result, the report and the outputs are rank 0's
    rc = 0;
    goto done;
  }
  qsort(times, (size_t)a->repeat, sizeof(double), tfr_cmp_d);
  double med = times[a->repeat / 2];
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("time      median %.3f ms over %d repeat(s), %.2f GFLOP/s", med * 1e3, a->repeat,
         info->sliced_flops / med * 1e-9);
  if (mpi) {
    printf("\n");
    tfr_cli_mpi_print_report(&a->mpi);
  } else if (info->num_slices > 1) {
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
  if (device && !mpi)
    tfr_contract_print_host(a->repeat, record_cpu, record_wall,
                            (int64_t)info->num_steps * (info->num_slices > 0 ? info->num_slices : 1),
                            have_replay ? &stats0 : NULL, &stats1);
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
  if (device) {
    for (int i = 0; i < in.n; i++) tfr_tensor_release(ops[i]), ops[i] = NULL;
    tfr_tensor_release(result);
    result = NULL;
    tfr_status est = tfr_session_end(s);
    s = NULL;
    if (est != TFR_OK || tfr_session_begin(host_backend, &hs_own) != TFR_OK) {
      rc = tfr_cli_fail("session");
      goto done;
    }
    hs = hs_own;
  }
  // Checksum: the sum of the elements (re, im) and of their magnitudes, read
  // on the host after widening to f64 (c128 for complex dtypes; exact but
  // for 64-bit integers beyond 2^53).
  {
    bool complex = tfr_dtype_get_info(dtype)->kind == TFR_KIND_COMPLEX;
    tfr_dtype wide = complex ? TFR_C128 : TFR_F64;
    if (tfr_convert(hs, host_result, wide, &wide_result) != TFR_OK) {
      rc = tfr_cli_fail("checksum");
      goto done;
    }
    int64_t n = tfr_tensor_numel(wide_result);
    int parts = complex ? 2 : 1;
    double *v = malloc((size_t)n * (size_t)parts * sizeof(double) + 16);
    if (!v || tfr_tensor_read(wide_result, v, (size_t)n * (size_t)parts * sizeof(double)) != TFR_OK) {
      free(v);
      rc = tfr_cli_fail("checksum");
      goto done;
    }
    double re = 0, im = 0, mag = 0;
    for (int64_t i = 0; i < n; i++) {
      double x = v[parts * i], y = complex ? v[2 * i + 1] : 0;
      re += x;
      im += y;
      mag += hypot(x, y);
    }
    free(v);
    printf("result    shape [");
    for (int k = 0; k < tfr_tensor_rank(host_result); k++)
      printf(k ? ", %lld" : "%lld", (long long)tfr_tensor_shape(host_result)[k]);
    printf("], checksum sum %.17g", re);
    if (complex) printf(" %+.17gi", im);
    printf(", sum|x| %.17g\n", mag);
  }
  // The writes, last: --save-path, --save-inputs, -o. Only a failing write
  // (disk full, a file-size limit) can leave the earlier ones written.
  if (a->io.save_path && tfr_cli_save_path("contract", a->io.save_path, &net, plan) != 0)
    goto done;
  if (a->save_dir && tfr_contract_save_inputs(a->save_dir, in.n, saved) != 0) goto done;
  if (a->out_path && tfr_cli_npy_save(a->out_path, host_result) != TFR_OK) {
    rc = tfr_cli_fail("-o");
    goto done;
  }
  rc = 0;
done:
  if (ops)
    for (int i = 0; i < in.n; i++) {
      if (device && saved) tfr_tensor_release(saved[i]);
      tfr_tensor_release(ops[i]);
    }
  free(ops);
  free(saved);
  free(times);
  free(record_cpu);
  free(record_wall);
  tfr_tensor_release(result);
  tfr_tensor_release(host_result);
  tfr_tensor_release(wide_result);
  if (hs_own && tfr_session_end(hs_own) != TFR_OK) rc = 1;
  tfr_backend_release(host_backend);
  if (s && tfr_session_end(s) != TFR_OK) rc = 1;
  tfr_backend_release(backend);
  tfr_einsum_plan_release(plan);
  tfr_instance_free(&in);
  return rc;
}

// Under mpirun (or with --schedule / --deterministic) MPI runs around the
// body; a failure of one rank alone ends every rank (tfr_cli_mpi_finish).
static int tfr_contract_run(const tfr_contract_args *a) {
  bool mpi = tfr_cli_mpi_launched() || a->schedule_set;
  if (mpi && tfr_cli_mpi_start("contract") != 0) return 1;
  return tfr_cli_mpi_finish(tfr_contract_body(a, mpi));
}

static int tfr_contract_parse(int argc, char **argv, tfr_contract_args *out);

int tfr_cli_contract(int argc, char **argv) {
  tfr_contract_args a;
  int quiet = tfr_cli_mpi_quiet_begin();
  int rc = tfr_contract_parse(argc, argv, &a);
  tfr_cli_mpi_quiet_end(quiet);
  return rc < 0 ? tfr_contract_run(&a) : rc;
}

// Reads the arguments into *out: returns -1 to run, or the exit status
// (0 after --help, 2 after a message).
static int tfr_contract_parse(int argc, char **argv, tfr_contract_args *out) {
  tfr_contract_args a = {.path_kind = "auto", .backend = "cpu", .repeat = 1, .adapter = -1};
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
    else if (strcmp(arg, "--deterministic") == 0) a.mpi.deterministic = a.schedule_set = true;
    else if (strcmp(arg, "--schedule") == 0 && has_value) {
      const char *v = argv[++i];
      if (strcmp(v, "static") != 0 && strcmp(v, "dynamic") != 0) {
        fprintf(stderr, "tenferro contract: --schedule '%s': static or dynamic\n", v);
        return 2;
      }
      a.mpi.dynamic = strcmp(v, "dynamic") == 0;
      a.schedule_set = true;
    } else if (strcmp(arg, "--slices") == 0 && has_value) {
      char *end;
      errno = 0;
      long long v = strtoll(argv[++i], &end, 10);
      if (*end || end == argv[i] || argv[i][0] == ' ' || errno || v < 1) {
        fprintf(stderr, "tenferro contract: --slices needs a positive integer, got '%s'\n", argv[i]);
        return 2;
      }
      a.slices = (int64_t)v;
    }
    else if ((strcmp(arg, "--repeat") == 0 || strcmp(arg, "--warmup") == 0 ||
              strcmp(arg, "--threads") == 0 || strcmp(arg, "--adapter") == 0) &&
             has_value) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      bool rep = strcmp(arg, "--repeat") == 0, warm = strcmp(arg, "--warmup") == 0;
      bool adapter = strcmp(arg, "--adapter") == 0;
      long least = rep ? 1 : 0, most = rep || warm ? 100000 : adapter ? 1023 : TFR_CPU_MAX_THREADS;
      if (*end || end == argv[i] || argv[i][0] == ' ' || v < least || v > most) {
        fprintf(stderr, "tenferro contract: %s needs an integer in [%ld, %ld], got '%s'\n",
                arg, least, most, argv[i]);
        return 2;
      }
      if (rep) a.repeat = (int)v;
      else if (warm) a.warmup = (int)v;
      else if (adapter) a.adapter = (int)v;
      else a.threads = (int)v;
    } else if (tfr_cli_search_option("contract", argc, argv, &i, &a.search, &bad)) {
      if (bad) return 2;
    } else if (strcmp(arg, "--dtype") == 0 && has_value) {
      if (tfr_dtype_from_name(argv[++i], &a.dtype) != TFR_OK) {
        fprintf(stderr, "tenferro contract: --dtype '%s' is no dtype (f32, f64, c64, c128, "
                        "bf16, f16, i8, i16, i32, i64, u8, u16, u32, u64, bool)\n", argv[i]);
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
  *out = a;
  return -1;
}
