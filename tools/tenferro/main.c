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
  tfr_cli_files_init();
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
