// `tenferro einsum EXPR A.npy B.npy ... -o OUT.npy`: numpy's einsum on .npy files.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "path_file.h"
#include "path_options.h"
#include "tenferro/tenferro.h"

static void tfr_einsum_usage(FILE *f) {
  fprintf(f,
          "usage: tenferro einsum EXPR A.npy [B.npy ...] -o OUT.npy [--backend cpu|webgpu]\n"
          "                       [--path auto|greedy|random-greedy|dp|optimal|treesa|\n"
          "                               partition|FILE]\n"
          "                       [--minimize flops|size|write|combo] [--seed N] [--trials N]\n"
          "                       [--optimize-time SECONDS] [--subtree K] [--save-path F.json]\n"
          "                       [--path-file F.json] [--max-memory BYTES] [--quiet]\n"
          "                       [--profile[=all]]\n\n"
          "Evaluates numpy's einsum EXPR (e.g. 'ij,jk->ik'; labels are any UTF-8 characters)\n"
          "on the operands and writes the result. All operands must have one dtype (convert\n"
          "them first).\n"
          "  --path NAME    the path optimiser (docs/paths.md): auto (default: the others\n"
          "                 within --optimize-time, 3 s by default, stopping early once the\n"
          "                 path would contract faster than the search took), greedy,\n"
          "                 random-greedy (seeded randomised greedy trials, the best kept), dp\n"
          "                 (dynamic programming over connected subsets, a few dozen\n"
          "                 operands), optimal (exhaustive, <= 12 operands), treesa\n"
          "                 (simulated annealing on the tree, seeded runs, the best kept),\n"
          "                 partition (recursive bisection by METIS, seeded trials, the best\n"
          "                 kept)\n"
          "  --path FILE    a pair list such as [[0, 1], [0, 1]] (numpy/opt_einsum format)\n"
          "  --seed N       seeds random-greedy, treesa and partition (default 0)\n"
          "  --profile      contract with every op timed and print where the time went\n"
          "                 (as tenferro contract --profile: the 30 slowest ops, the\n"
          "                 totals by kind); --profile=all lists every op\n");
  tfr_cli_search_usage(f);
  tfr_cli_path_io_usage(f);
}

// Reads "[[a, b], [c, d], ...]" from a file into int32 pairs.
static int tfr_read_path_file(const char *file, int32_t **out, int *len) {
  const char *why = NULL;
  FILE *f = tfr_cli_open_input(file, &why);
  if (!f) {
    fprintf(stderr, "tenferro einsum: --path '%s' is neither an optimiser (auto, greedy, "
                    "random-greedy, dp, optimal, treesa, partition) nor a readable path file: %s\n", file,
            why);
    return 1;
  }
  int cap = 64, n = 0;
  int32_t *v = malloc((size_t)cap * sizeof *v);
  int c;
  long cur = -1;
  while (v && (c = fgetc(f)) != EOF) {
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
      if (cur > 1000000) break;
    } else {
      if (cur >= 0) {
        if (n == cap) {
          cap *= 2;
          int32_t *g = realloc(v, (size_t)cap * sizeof *v);
          if (!g) break;
          v = g;
        }
        v[n++] = (int32_t)cur;
        cur = -1;
      }
      if (!(c == '[' || c == ']' || c == ',' || c == '(' || c == ')' || c == ' ' || c == '\n' ||
            c == '\t' || c == '\r')) {
        fprintf(stderr, "tenferro einsum: %s: unexpected character '%c' in the path\n", file, c);
        fclose(f);
        free(v);
        return 1;
      }
    }
  }
  fclose(f);
  if (!v || n % 2 != 0 || cur >= 0) {
    fprintf(stderr, "tenferro einsum: %s: the path must be a list of pairs of positions\n", file);
    free(v);
    return 1;
  }
  *out = v;
  *len = n / 2;
  return 0;
}

int tfr_cli_einsum(int argc, char **argv) {
  const char *expr = NULL, *out_path = NULL, *path_arg = "auto", *backend = "cpu";
  const char **files = calloc((size_t)argc + 1, sizeof(char *));
  int nfiles = 0, profile = 0;  // profile: 1 --profile, 2 --profile=all
  tfr_einsum_options opts = {0};
  tfr_cli_path_io io = {0};
  bool bad = false, path_set = false;
  if (!files) return 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      tfr_einsum_usage(stdout);
      free(files);
      return 0;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out_path = argv[++i];
    else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      path_arg = argv[++i];
      path_set = true;
    } else if (tfr_cli_path_io_option(argc, argv, &i, &io)) continue;
    else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend = argv[++i];
    else if (strcmp(argv[i], "--profile") == 0) profile = 1;
    else if (strcmp(argv[i], "--profile=all") == 0) profile = 2;
    else if (tfr_cli_search_option("einsum", argc, argv, &i, &opts, &bad)) {
      if (bad) {
        free(files);
        return 2;
      }
    }
    else if (argv[i][0] == '-' && argv[i][1] == '-') {
      fprintf(stderr, "tenferro einsum: unknown or incomplete option '%s'\n", argv[i]);
      free(files);
      return 2;
    } else if (!expr) expr = argv[i];
    else files[nfiles++] = argv[i];
  }
  if (!expr || nfiles == 0 || !out_path) {
    fprintf(stderr, "tenferro einsum: missing %s\n\n",
            !expr ? "the expression" : nfiles == 0 ? "operand files" : "-o OUT.npy");
    tfr_einsum_usage(stderr);
    free(files);
    return 2;
  }
  if (strcmp(backend, "cpu") != 0 && strcmp(backend, "webgpu") != 0) {
    fprintf(stderr, "tenferro einsum: unknown --backend '%s' (cpu or webgpu)\n", backend);
    free(files);
    return 2;
  }
  if (io.max_memory_bad) {
    tfr_cli_bad_max_memory("einsum", io.max_memory_text);
    free(files);
    return 2;
  }
  if (io.path_file && path_set) {
    fprintf(stderr, "tenferro einsum: --path and --path-file exclude each other\n");
    free(files);
    return 2;
  }
  // Every target is checked before anything is read or computed: a run
  // that fails leaves no output at all (docs/cli.md, "Outputs").
  if (tfr_cli_check_output("einsum", "-o", out_path) != 0 ||
      (io.save_path && tfr_cli_check_output("einsum", "--save-path", io.save_path) != 0)) {
    free(files);
    return 1;
  }
  int32_t *path = NULL;
  if (!io.path_file && tfr_einsum_path_kind_from_name(path_arg, &opts.path_kind) != TFR_OK) {
    if (tfr_read_path_file(path_arg, &path, &opts.path_len) != 0) {
      free(files);
      return 1;
    }
    opts.path_kind = TFR_EINSUM_PATH_GIVEN;
    opts.path = path;
  }
  int rc = 1;
  tfr_tensor **ops = calloc((size_t)nfiles, sizeof *ops);
  int *ranks = calloc((size_t)nfiles, sizeof *ranks);
  const int64_t **shapes = calloc((size_t)nfiles, sizeof *shapes);
  tfr_npy_info *infos = calloc((size_t)nfiles, sizeof *infos);
  tfr_tensor *result = NULL, *host_result = NULL;
  tfr_backend *be = NULL;
  tfr_session *s = NULL;
  tfr_einsum_plan *plan = NULL;
  tfr_cli_progress prog;
  if (!ops || !ranks || !shapes || !infos) goto done;
  // The headers first: the plan and the memory check need only the shapes,
  // and a run refused for memory has read no data.
  for (int i = 0; i < nfiles; i++) {
    if (tfr_npy_read_info(files[i], &infos[i]) != TFR_OK) {
      rc = tfr_cli_fail("einsum");
      goto done;
    }
    ranks[i] = infos[i].rank;
    shapes[i] = infos[i].shape;
  }
  tfr_cli_network net = {expr, nfiles, ranks, (const int64_t *const *)shapes};
  double max_memory = io.max_memory > 0 ? io.max_memory : tfr_cli_default_max_memory();
  size_t es = tfr_dtype_size(infos[0].dtype);
  if (tfr_cli_plan("einsum", expr, &net, &io, max_memory, es, &opts, &prog, &plan) != 0) goto done;
  for (int i = 0; i < nfiles; i++) {
    if (tfr_npy_load(files[i], &ops[i]) != TFR_OK) {
      rc = tfr_cli_fail("einsum");
      goto done;
    }
    // The file changed since its header was read: the plan is not for it.
    const int64_t *sh = tfr_tensor_shape(ops[i]);
    bool same = tfr_tensor_rank(ops[i]) == infos[i].rank &&
                tfr_tensor_dtype(ops[i]) == infos[i].dtype;
    for (int k = 0; same && k < infos[i].rank; k++) same = sh[k] == infos[i].shape[k];
    if (!same) {
      fprintf(stderr, "tenferro einsum: %s: the file changed while it was read\n", files[i]);
      goto done;
    }
  }
  if (tfr_cli_make_backend("einsum", backend, 0, 0, &be, NULL) != 0) goto done;
  if (tfr_session_begin(be, &s) != TFR_OK) {
    rc = tfr_cli_fail("session");
    goto done;
  }
  if (strcmp(backend, "webgpu") == 0)
    for (int i = 0; i < nfiles; i++) {
      tfr_tensor *d = NULL;
      tfr_status ust = tfr_upload(s, ops[i], &d);
      tfr_tensor_release(ops[i]);
      ops[i] = d;
      if (ust) {
        rc = tfr_cli_fail(files[i]);
        goto done;
      }
    }
  tfr_cli_progress_begin(&prog, plan);
  tfr_einsum_profile *prof = NULL;
  tfr_status est =
      profile ? tfr_einsum_plan_profile(s, plan, (const tfr_tensor *const *)ops, &prof, &result)
              : tfr_einsum_plan_execute(s, plan, (const tfr_tensor *const *)ops, &result);
  tfr_cli_progress_end(&prog);
  if (est != TFR_OK) {
    rc = tfr_cli_fail("einsum");
    goto done;
  }
  if (prof) {
    int prc = tfr_cli_print_profile(prof, 0, profile == 2);
    tfr_einsum_profile_free(prof);
    if (prc != 0) goto done;
  }
  if (tfr_cli_to_host(s, result, &host_result) != 0) goto done;
  // The writes, last: only a failing -o (disk full) leaves --save-path written.
  if (io.save_path && tfr_cli_save_path("einsum", io.save_path, &net, plan) != 0) goto done;
  if (tfr_cli_npy_save(out_path, host_result) != TFR_OK) {
    rc = tfr_cli_fail("einsum");
    goto done;
  }
  rc = 0;
done:
  for (int i = 0; ops && i < nfiles; i++) tfr_tensor_release(ops[i]);
  free(ops);
  free(ranks);
  free(shapes);
  free(infos);
  tfr_einsum_plan_release(plan);
  tfr_tensor_release(result);
  tfr_tensor_release(host_result);
  if (s && tfr_session_end(s) != TFR_OK) rc = 1;
  tfr_backend_release(be);
  free(path);
  free(files);
  return rc;
}
