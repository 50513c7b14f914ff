// `tenferro conformance`: runs the StableHLO conformance corpus
// (tests/conformance/stablehlo/*.jsonl) through the public API on one backend.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "conformance/conformance.h"
#include "path_file.h"
#include "tenferro/tenferro.h"

static void tfr_conf_usage(FILE *f) {
  fprintf(f,
          "usage: tenferro conformance [--backend cpu|webgpu] [--op NAME]... [--case NAME]...\n"
          "                            [--threads N] [--max-memory BYTES] [--verbose] PATH...\n"
          "       tenferro conformance --tolerances\n\n"
          "Runs the conformance cases in PATH (.jsonl files, or folders of them) on a backend\n"
          "and compares each result with the expected one. A case whose op, dtype or attribute\n"
          "the library does not have is skipped with its reason; a case that errors or whose\n"
          "result differs fails. Prints a table per family and ends with the line\n"
          "'N passed, M failed, K skipped'. Exit status: 0 when nothing failed, 1 when\n"
          "something failed, 2 for a usage error, an unreadable path or no case at all,\n"
          "77 when the backend is not available on this machine (1 with TFR_REQUIRE_WEBGPU=1).\n\n"
          "  --backend B    cpu (default) or webgpu\n"
          "  --op NAME      only cases of family NAME or whose program uses op NAME\n"
          "                 (\"chlo.erf\" or \"erf\"); repeatable\n"
          "  --case NAME    only the case called NAME; repeatable\n"
          "  --threads N    cpu backend threads (default: OpenMP's)\n"
          "  --max-memory BYTES  what one case's values may take (its inputs and the\n"
          "                 declared results of the ops the output depends on; K, M, G,\n"
          "                 T or KiB .. TiB): a case that needs more fails before it\n"
          "                 allocates; default: half the memory available. Ops whose\n"
          "                 results nothing uses are not run\n"
          "  --verbose, -v  details of each failure (first differing index, got vs expected,\n"
          "                 tolerance, program) and a line per skipped case\n"
          "  --tolerances   print the tolerance table and exit\n");
}

// Creates the backend the run asked for. No provider or no adapter is a
// property of the machine, not a conformance failure: exit 77, the
// automake/ctest "skipped" status.
static int tfr_conf_make_backend(const char *name, int threads, tfr_conf_backend *kind,
                                 tfr_backend **out) {
  *kind = strcmp(name, "webgpu") == 0 ? TFR_CONF_BACKEND_WEBGPU : TFR_CONF_BACKEND_CPU;
  bool unavailable = false;
  int rc = tfr_cli_make_backend("conformance", name, threads, 0, out, &unavailable);
  if (rc && unavailable) {
    // TFR_REQUIRE_WEBGPU=1 (CI) makes a missing device a failure.
    const char *req = getenv("TFR_REQUIRE_WEBGPU");
    if (req && strcmp(req, "1") == 0) {
      fprintf(stderr, "tenferro conformance: TFR_REQUIRE_WEBGPU=1: a missing device fails\n");
      return 1;
    }
    return 77;
  }
  return rc;
}

int tfr_cli_conformance(int argc, char **argv) {
  const char *backend_name = "cpu";
  int threads = 0;
  bool verbose = false;
  double max_memory = 0;
  // Filters and paths point into argv; at most argc of each.
  const char **ops = calloc((size_t)argc + 1, sizeof *ops);
  const char **cases = calloc((size_t)argc + 1, sizeof *cases);
  char **paths = calloc((size_t)argc + 1, sizeof *paths);
  int nops = 0, ncases = 0, npaths = 0, rc = 0;
  if (!ops || !cases || !paths) {
    fprintf(stderr, "tenferro conformance: out of memory\n");
    rc = 1;
    goto done;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      tfr_conf_usage(stdout);
      goto done;
    } else if (strcmp(a, "--tolerances") == 0) {
      tfr_conf_print_tolerances(stdout);
      goto done;
    } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
      verbose = true;
    } else if (strcmp(a, "--backend") == 0 && has_value) {
      backend_name = argv[++i];
    } else if (strcmp(a, "--op") == 0 && has_value) {
      ops[nops++] = argv[++i];
    } else if (strcmp(a, "--case") == 0 && has_value) {
      cases[ncases++] = argv[++i];
    } else if (strcmp(a, "--max-memory") == 0 && has_value) {
      max_memory = tfr_cli_parse_bytes(argv[++i]);
      if (!(max_memory > 0)) {
        tfr_cli_bad_max_memory("conformance", argv[i]);
        rc = 2;
        goto done;
      }
    } else if (strcmp(a, "--threads") == 0 && has_value) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 0 || v > 4096) {
        fprintf(stderr, "tenferro conformance: --threads takes a count, got '%s'\n", argv[i]);
        rc = 2;
        goto done;
      }
      threads = (int)v;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "tenferro conformance: unknown or incomplete option '%s'\n\n", a);
      tfr_conf_usage(stderr);
      rc = 2;
      goto done;
    } else {
      paths[npaths++] = argv[i];
    }
  }
  if (npaths == 0) {
    fprintf(stderr, "tenferro conformance: no PATH given\n\n");
    tfr_conf_usage(stderr);
    rc = 2;
    goto done;
  }

  // A path that is not there: one line, before any work or output.
  for (int i = 0; i < npaths; i++) {
    struct stat sb;
    if (stat(paths[i], &sb) != 0) {
      fprintf(stderr, "tenferro conformance: %s: %s\n", paths[i], strerror(errno));
      rc = 2;
      goto done;
    }
  }
  tfr_conf_options opt = {0};
  rc = tfr_conf_make_backend(backend_name, threads, &opt.backend_kind, &opt.backend);
  if (rc) goto done;
  opt.ops = ops;
  opt.nops = nops;
  opt.cases = cases;
  opt.ncases = ncases;
  opt.verbose = verbose;
  opt.log = stdout;
  opt.max_memory = max_memory > 0 ? max_memory : tfr_cli_default_max_memory();
  opt.max_memory_default = !(max_memory > 0);
  tfr_conf_report *r = tfr_conf_report_create();
  if (!r) {
    fprintf(stderr, "tenferro conformance: out of memory\n");
    rc = 1;
  } else {
    printf("tenferro conformance: backend %s, tenferro %s\n", backend_name, tfr_version_string());
    bool read_ok = tfr_conf_run_paths(&opt, npaths, paths, r);
    if (read_ok && tfr_conf_report_total(r) == 0)
      fprintf(stderr, "tenferro conformance: no case %s\n",
              nops || ncases ? "matches the filters" : "found");
    tfr_conf_report_print(r, stdout);
    // No case at all means a wrong path or filter, never a clean run.
    rc = !read_ok || tfr_conf_report_total(r) == 0 ? 2 : tfr_conf_report_failed(r) > 0 ? 1 : 0;
    tfr_conf_report_free(r);
  }
  tfr_backend_release(opt.backend);
done:
  free(ops);
  free(cases);
  free(paths);
  return rc;
}
