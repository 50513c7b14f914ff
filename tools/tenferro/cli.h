// The tenferro command-line tool: one function per subcommand.
#ifndef TENFERRO_TOOLS_TENFERRO_CLI_H_
#define TENFERRO_TOOLS_TENFERRO_CLI_H_

#include <stdbool.h>
#include <stddef.h>

#include "tenferro/tenferro.h"

// Each returns the process exit status (0 success, 1 failure, 2 usage error).
int tfr_cli_info(int argc, char **argv);
int tfr_cli_demo(int argc, char **argv);
int tfr_cli_conformance(int argc, char **argv);
int tfr_cli_contract(int argc, char **argv);
int tfr_cli_einsum(int argc, char **argv);

// Prints "tenferro: <what>: <library message>" to stderr; returns 1.
int tfr_cli_fail(const char *what);

// Creates the backend called `name`: "cpu" (`threads` threads, 0 = all
// cores) or "webgpu", for subcommand `cmd` (messages name it). Returns 0; 2
// for an unknown name; 1 when creation failed, with the library's message
// printed, and *unavailable (if not NULL) true when the machine has no
// WebGPU provider or adapter.
int tfr_cli_make_backend(const char *cmd, const char *name, int threads, tfr_backend **out,
                         bool *unavailable);

// Copies a tensor to the host when it is on a device (a new reference to
// it when it is host memory already). Returns 0, or 1 with the error printed.
int tfr_cli_to_host(tfr_session *s, const tfr_tensor *t, tfr_tensor **out);

// Reads a whole file into a new NUL-terminated buffer (its length in
// *len); NULL with errno set when it cannot be read.
char *tfr_cli_read_file(const char *path, size_t *len);

// Prints a profile to stdout: one line per op record (step, kind, shapes,
// calls, ms, GFLOP/s or GB/s, % of the profiled run), the 30 slowest first
// and a line for the rest, or with `all` every record in execution order;
// then the totals by kind and the profiled total, against `median` (the
// timed runs' median, seconds) when it is positive. Returns 0, 1 when out
// of memory.
int tfr_cli_print_profile(const tfr_einsum_profile *p, double median, bool all);

#endif  // TENFERRO_TOOLS_TENFERRO_CLI_H_
