// Independent tasks spread over the cpu backend's threads, each task's ops
// single-threaded (the sliced einsum executor's parallel slices,
// src/einsum/slice_parallel.c).
#ifndef TENFERRO_SRC_CPU_TASKS_H_
#define TENFERRO_SRC_CPU_TASKS_H_

#include <stdint.h>

#include "core/backend_impl.h"

// One task: `thread` is the OpenMP thread running it, 0 being the caller's
// (the only one that may call back into the user, e.g. progress).
typedef void (*tfr_cpu_task_fn)(void *ctx, int64_t task, int thread);

// The number of threads of the session's backend when it is a cpu backend
// (its tfr_cpu_options num_threads, resolved), 0 for any other backend or
// a session that is not active on this thread.
int tfr_cpu_session_threads(tfr_session *session);

// Runs fn(ctx, i, thread) for every i in [0, num_tasks), taken one at a time
// in ascending order by up to `threads` OpenMP threads (1: a plain loop on
// the calling thread). `session` is the caller's active session on a cpu
// backend; every worker acts in it meanwhile (tfr_session_adopt). The ops a
// task issues run on its thread alone: OpenBLAS is set to one thread for the
// duration (and set back), and the kernels' own OpenMP regions, nested in
// ours, are inactive (OpenMP's default of one active level; with nesting
// enabled by the user they would still be correct, only oversubscribed).
// (openblas_set_num_threads is process-wide: BLAS calls of other threads
// meanwhile run single-threaded too.) Tasks report their failures through
// ctx; this returns when all are done.
void tfr_cpu_run_tasks(tfr_session *session, int64_t num_tasks, int threads, tfr_cpu_task_fn fn,
                       void *ctx);

// Runs fn(ctx, i, 0) for every i in [0, num_tasks), in ascending order on
// the calling thread, each task's ops single-threaded as tfr_cpu_run_tasks
// runs them (OpenBLAS at one thread, every OpenMP region of the kernels
// inactive: max-active-levels 0 meanwhile, then set back): the results of a
// parallel run, one task at a time (the profiled execution of slices that
// would run in parallel).
void tfr_cpu_run_tasks_alone(int64_t num_tasks, tfr_cpu_task_fn fn, void *ctx);

#endif  // TENFERRO_SRC_CPU_TASKS_H_
