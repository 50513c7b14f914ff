// The tenferro command-line tool: one function per subcommand.
#ifndef TENFERRO_TOOLS_TENFERRO_CLI_H_
#define TENFERRO_TOOLS_TENFERRO_CLI_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tenferro/tenferro.h"

// Each returns the process exit status (0 success, 1 failure, 2 usage error).
int tfr_cli_info(int argc, char **argv);
int tfr_cli_demo(int argc, char **argv);
int tfr_cli_conformance(int argc, char **argv);
int tfr_cli_contract(int argc, char **argv);
int tfr_cli_einsum(int argc, char **argv);

// Prints "tenferro: <what>: <library message>" to stderr; returns 1.
int tfr_cli_fail(const char *what);

// Prints "tenferro CMD: WHERE: <formatted>" and a newline to stderr;
// returns 1. `where` names the file or option at fault.
int tfr_cli_errorf(const char *cmd, const char *where, const char *fmt, ...) TFR_PRINTF(3, 4);

// Creates the backend called `name`: "cpu" (`threads` threads, 0 = all
// cores) or "webgpu" (on adapter `adapter`: tfr_webgpu_options.adapter_index,
// 0 for Dawn's choice), for subcommand `cmd` (messages name it). Returns 0; 2
// for an unknown name; 1 when creation failed, with the library's message
// printed, and *unavailable (if not NULL) true when the machine has no
// WebGPU provider or adapter.
int tfr_cli_make_backend(const char *cmd, const char *name, int threads, int adapter,
                         tfr_backend **out, bool *unavailable);

// Copies a tensor to the host when it is on a device (a new reference to
// it when it is host memory already). Returns 0, or 1 with the error printed.
int tfr_cli_to_host(tfr_session *s, const tfr_tensor *t, tfr_tensor **out);

// Opens a file the user named for reading: a regular file only (a FIFO
// or a device is refused at once, without waiting for a writer). NULL
// with *why saying what was wrong (static text) when it cannot.
FILE *tfr_cli_open_input(const char *path, const char **why);

// Reads a whole regular file into a new NUL-terminated buffer (its length
// in *len); NULL with *why set as tfr_cli_open_input does when it cannot.
char *tfr_cli_read_file(const char *path, size_t *len, const char **why);

// Checks, before anything is computed, that a result can be written to
// `path` (`option` names it in messages: "-o", "--save-path"): nothing but a
// regular file stands there (a directory, FIFO, device or symbolic link is
// refused, as the writers refuse it), and the folder it goes into exists,
// is a folder and may be written. Returns 0, or 1 with one line "tenferro
// CMD: OPTION PATH: why" on stderr. A write can still fail later (disk full,
// a file-size limit, the folder changed meanwhile).
int tfr_cli_check_output(const char *cmd, const char *option, const char *path);

// The same for a folder of results (--save-inputs DIR): `dir` is a folder
// (or a symbolic link to one), each of its n entries `names` (full paths in
// it) passing tfr_cli_check_output; or nothing stands at `dir` and its own
// folder may be written (it is made when the results are written). Returns
// 0, or 1 with the message on stderr.
int tfr_cli_check_output_dir(const char *cmd, const char *option, const char *dir,
                             const char *const *names, int n);

// Called once at start: a file-size limit (SIGXFSZ) turns into a failed
// write (EFBIG) that the writer cleans up, not a killed process.
void tfr_cli_files_init(void);

// tfr_npy_save with the catchable terminating signals (SIGINT, SIGTERM,
// SIGHUP, ...) held off until the file is complete or its temporary file
// removed; a signal that came meanwhile is raised then. Returns what
// tfr_npy_save returns.
TFR_NODISCARD tfr_status tfr_cli_npy_save(const char *path, const tfr_tensor *t);

// Runs write(ctx) (a writer that removes its own temporary file on
// failure) with the same signals held off; returns what it returns.
int tfr_cli_write_held(int (*write)(void *ctx), void *ctx);

// Prints a profile to stdout: one line per op record (step, kind, shapes,
// calls, ms, GFLOP/s or GB/s, % of the profiled run), the 30 slowest first
// and a line for the rest, or with `all` every record in execution order;
// then the totals by kind and the profiled total, against `median` (the
// timed runs' median, seconds) when it is positive. Returns 0, 1 when out
// of memory.
int tfr_cli_print_profile(const tfr_einsum_profile *p, double median, bool all);

#endif  // TENFERRO_TOOLS_TENFERRO_CLI_H_
