// tenferro: command-line entry point and subcommand dispatch.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tenferro/tenferro.h"

typedef struct tfr_cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} tfr_cli_command;

static const tfr_cli_command tfr_cli_commands[] = {
    {"contract", tfr_cli_contract, "contract an einsum benchmark instance (the main job)"},
    {"einsum", tfr_cli_einsum, "numpy's einsum on .npy files"},
    {"info", tfr_cli_info, "version, backends compiled in, and what each finds at run time"},
    {"demo", tfr_cli_demo, "a small end-to-end run of cpu ops, checked against known values"},
    {"conformance", tfr_cli_conformance, "run the StableHLO conformance cases on a backend"},
};
#define TFR_CLI_NCOMMANDS (sizeof tfr_cli_commands / sizeof tfr_cli_commands[0])

static void tfr_cli_usage(FILE *f) {
  fprintf(f,
          "usage: tenferro <command> [options]\n"
          "       tenferro --help | --version\n\n"
          "commands:\n");
  for (size_t i = 0; i < TFR_CLI_NCOMMANDS; i++)
    fprintf(f, "  %-12s %s\n", tfr_cli_commands[i].name, tfr_cli_commands[i].summary);
  fprintf(f, "\n'tenferro <command> --help' describes a command.\n");
}

int tfr_cli_make_backend(const char *cmd, const char *name, int threads, tfr_backend **out,
                         bool *unavailable) {
  *out = NULL;
  if (unavailable) *unavailable = false;
  tfr_status st;
  if (strcmp(name, "cpu") == 0) {
    tfr_cpu_options o = {.num_threads = threads};
    st = tfr_backend_create_cpu(&o, out);
  } else if (strcmp(name, "webgpu") == 0) {
    st = tfr_backend_create_webgpu(NULL, out);
    if (unavailable) *unavailable = st == TFR_ERR_BACKEND_UNAVAILABLE;
  } else {
    fprintf(stderr, "tenferro %s: unknown backend '%s' (cpu or webgpu)\n", cmd, name);
    return 2;
  }
  if (st) {
    char what[64];
    snprintf(what, sizeof what, "%s backend", name);
    return tfr_cli_fail(what);
  }
  return 0;
}

int tfr_cli_to_host(tfr_session *s, const tfr_tensor *t, tfr_tensor **out) {
  *out = NULL;
  if (tfr_tensor_is_host(t)) {
    tfr_tensor_retain((tfr_tensor *)t);
    *out = (tfr_tensor *)t;
    return 0;
  }
  return tfr_download(s, t, out) == TFR_OK ? 0 : tfr_cli_fail("download");
}

char *tfr_cli_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    cap *= 2;
    char *grown = realloc(buf, cap + 1);
    if (!grown) {
      free(buf);
      buf = NULL;
    }
    buf = grown;
  }
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (buf && err) {
    free(buf);
    errno = err;
    return NULL;
  }
  if (buf) buf[n] = '\0';
  else errno = ENOMEM;
  *len = n;
  return buf;
}

int tfr_cli_fail(const char *what) {
  // Library messages start with the op ("einsum: ..."): no need to say it twice.
  const char *msg = tfr_last_error_message();
  size_t n = strlen(what);
  if (strncmp(msg, what, n) == 0 && msg[n] == ':') fprintf(stderr, "tenferro: %s\n", msg);
  else fprintf(stderr, "tenferro: %s: %s\n", what, msg);
  return 1;
}

// OpenBLAS reads its settings only while it loads, before main; two of them
// the tool wants different, so it runs itself again with them set:
// * OPENBLAS_NUM_THREADS=1: the cpu backend calls OpenBLAS single-threaded
//   (its own threads split the GEMMs), but OpenBLAS starts its worker
//   threads at load and they spin for their first tenth of a second or so,
//   stalling short runs (a 256^3 product took 8 ms instead of 0.45 in one
//   process of three on 2 cores);
// * OPENBLAS_CORETYPE when OpenBLAS runs its generic kernels on a CPU model
//   it does not know (backend.h, tfr_cpu_blas_coretype_advice); a value the
//   user set is left alone.
// A failed exec carries on as it was.
static void tfr_cli_blas_env(char **argv) {
  const char *env_nt = getenv("OPENBLAS_NUM_THREADS");
  char nt[64] = "";
  if (env_nt) snprintf(nt, sizeof nt, "%s", env_nt);
  bool threads = !env_nt || strcmp(nt, "1") != 0;
  const char *core = getenv("OPENBLAS_CORETYPE") ? NULL : tfr_cpu_blas_coretype_advice();
  if (!threads && !core) return;
  if (threads && setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
  if (core && setenv("OPENBLAS_CORETYPE", core, 1) != 0) return;
  execv("/proc/self/exe", argv);
  if (core) unsetenv("OPENBLAS_CORETYPE");
  if (threads) {
    if (env_nt) setenv("OPENBLAS_NUM_THREADS", nt, 1);
    else unsetenv("OPENBLAS_NUM_THREADS");
  }
}

int main(int argc, char **argv) {
  tfr_cli_blas_env(argv);
  if (argc < 2) {
    tfr_cli_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    tfr_cli_usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("tenferro %s\n", tfr_version_string());
    return 0;
  }
  for (size_t i = 0; i < TFR_CLI_NCOMMANDS; i++)
    if (strcmp(cmd, tfr_cli_commands[i].name) == 0) return tfr_cli_commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "tenferro: unknown command '%s'\n\n", cmd);
  tfr_cli_usage(stderr);
  return 2;
}
