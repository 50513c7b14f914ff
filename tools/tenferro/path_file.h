// Paths as files (`--save-path F.json`, `--path-file F.json`) and the
// progress bar (`--quiet`), shared by `tenferro contract` and `tenferro
// einsum`. The file format is described in docs/paths.md ("Path files").
#ifndef TENFERRO_TOOLS_TENFERRO_PATH_FILE_H_
#define TENFERRO_TOOLS_TENFERRO_PATH_FILE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tenferro/tenferro.h"

// The options --save-path FILE, --path-file FILE, --max-memory BYTES and
// --quiet.
typedef struct tfr_cli_path_io {
  const char *save_path;  // NULL: none
  const char *path_file;  // NULL: none
  bool quiet;
  // --max-memory in bytes (0: not given, the command's default applies);
  // max_memory_bad: the value given was not a positive size.
  double max_memory;
  bool max_memory_bad;
  const char *max_memory_text;  // the value as given (for messages)
} tfr_cli_path_io;

// When argv[*i] is one of the options above (with its value), stores it in
// `io`, advances *i past the value and returns true; false otherwise.
bool tfr_cli_path_io_option(int argc, char **argv, int *i, tfr_cli_path_io *io);

// Prints the help lines of --save-path, --path-file and --quiet.
void tfr_cli_path_io_usage(FILE *f);

// The network a plan is made for.
typedef struct tfr_cli_network {
  const char *subscripts;
  int n;
  const int *ranks;
  const int64_t *const *shapes;
} tfr_cli_network;

// A path file as read: the pairs (numpy/opt_einsum's pair list) and the
// sliced labels.
typedef struct tfr_path_read {
  int32_t *pairs;
  int len;
  char *sliced;  // the sliced labels, concatenated ("" for none)
} tfr_path_read;

// Reads the text of a path file (`len` bytes, text[len] == '\0'; `file`
// names it in messages, `cmd` is the subcommand) for network `net`: a
// plain pair list, or an object of --save-path whose network must be `net`.
// Returns 0 with *p filled (free p->pairs and p->sliced), or 1 with the
// message printed and *p empty.
int tfr_cli_path_parse(const char *cmd, const char *file, const char *text, size_t len,
                       const tfr_cli_network *net, tfr_path_read *p);

// Progress of a contraction on stderr: a bar redrawn at most 10 times a
// second, carriage-return based, only when stderr is a terminal and not
// --quiet.
typedef struct tfr_cli_progress {
  bool on, slices, drawn;
  double start, last, total_flops;
  int width;  // characters of the last line drawn
} tfr_cli_progress;

// Seconds on a monotonic clock.
double tfr_cli_seconds(void);
// The calling thread's CPU time, seconds (CLOCK_THREAD_CPUTIME_ID).
double tfr_cli_thread_seconds(void);

// The memory this machine has available (MemAvailable), in bytes, or 0 when
// unknown.
double tfr_cli_mem_available(void);

// Half the memory this machine has available (MemAvailable), in bytes, or
// 0 when unknown: the default of --max-memory.
double tfr_cli_default_max_memory(void);

// A number of bytes as --max-memory takes it: a decimal number ("1e9",
// "1.5G"; no sign, no hex, no inf or nan) with an optional unit K, M, G or T
// (lower case too), alone or followed by B or iB, every one a power of 1024
// ("512M", "512MB" and "512MiB" are all 2^29 bytes); a fraction of a byte
// is dropped. Returns the bytes (at least 1), or -1 for anything else
// (trailing text, less than one byte, infinite).
double tfr_cli_parse_bytes(const char *v);

// Prints the message for a --max-memory value `value` that
// tfr_cli_parse_bytes refused, naming subcommand `cmd`.
void tfr_cli_bad_max_memory(const char *cmd, const char *value);

// How messages name the budget: "--max-memory" when it was given, else "the
// default budget (half of available memory)".
const char *tfr_cli_budget_name(const tfr_cli_path_io *io);

// Plans `net` for subcommand `cmd`: with io->path_file, along the file's
// path (checked against the network; the file's sliced labels applied)
// instead of the search `opts` asks for. One slice's memory
// (tfr_einsum_path_info.sliced_peak_live_elements x element_size) is kept
// within `max_memory` bytes (0: no limit): a searched path is searched with
// that budget (tfr_einsum_options.max_slice_elements: the tree and its
// sliced labels together), a given one (opts->path_kind
// TFR_EINSUM_PATH_GIVEN, or the file's) above it is sliced to fit
// (tfr_einsum_plan_slice_to_fit). (io->save_path is not written here: the
// command calls tfr_cli_save_path once nothing can fail but the writes.)
// Sets opts' progress callback to `progress` when
// stderr is a terminal and not io->quiet. Returns 0, or 1 with one error
// line on stderr (`what` names the network in planning errors) and *out
// NULL.
int tfr_cli_plan(const char *cmd, const char *what, const tfr_cli_network *net,
                 const tfr_cli_path_io *io, double max_memory, size_t element_size,
                 tfr_einsum_options *opts, tfr_cli_progress *progress, tfr_einsum_plan **out);

// Writes the path of `plan` (for network `net`) to `file` as --save-path
// does (docs/paths.md, "Path files"): to a temporary file next to it, then
// renamed over it, with the terminating signals held off meanwhile. Returns
// 0, or 1 with one error line on stderr and `file` as it was.
int tfr_cli_save_path(const char *cmd, const char *file, const tfr_cli_network *net,
                      const tfr_einsum_plan *plan);

// Call before executing `plan` (resets the clock and the totals) and after
// (clears the bar).
void tfr_cli_progress_begin(tfr_cli_progress *p, const tfr_einsum_plan *plan);
void tfr_cli_progress_end(tfr_cli_progress *p);

#endif  // TENFERRO_TOOLS_TENFERRO_PATH_FILE_H_
