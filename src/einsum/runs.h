// Independent seeded runs of a randomised optimiser over the OpenMP
// threads, the best kept deterministically.
#ifndef TENFERRO_SRC_EINSUM_RUNS_H_
#define TENFERRO_SRC_EINSUM_RUNS_H_

#include <stdbool.h>
#include <stddef.h>

#include "einsum/einsum_impl.h"

// One run: writes its tree (len ints) to out and its score to *score (NaN
// counts as infinite); false when out of memory. Runs may go on in parallel.
typedef bool (*tfr_run_fn)(void *ctx, int r, int *out, double *score);

// Calls run for r = 0 .. runs - 1 (runs > 0) over the threads and writes
// the out of the least score to best, ties to the lowest r, so the result
// does not depend on the thread count. With max_time > 0 no run but the
// first starts more than max_time seconds after `start` (tfr_path_now).
// Errors: TFR_ERR_OUT_OF_MEMORY, the message naming `what`.
tfr_status tfr_best_of_runs(int runs, size_t len, double start, double max_time, tfr_run_fn run,
                            void *ctx, int *best, const char *what);

#endif  // TENFERRO_SRC_EINSUM_RUNS_H_
