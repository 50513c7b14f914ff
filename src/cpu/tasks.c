// Independent tasks over the cpu backend's threads (tasks.h).
#include "cpu/tasks.h"

#include <cblas.h>

#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int tfr_cpu_session_threads(tfr_session *session) {
  tfr_backend *b = tfr_session_backend(session);
  if (!b || b->kind != TFR_BACKEND_CPU) return 0;
  return tfr_cpu_cast(b)->num_threads;
}

void tfr_cpu_run_tasks(tfr_session *session, int64_t num_tasks, int threads, tfr_cpu_task_fn fn,
                       void *ctx) {
  if (threads > num_tasks) threads = (int)num_tasks;
  if (threads <= 1) {
    for (int64_t i = 0; i < num_tasks; i++) fn(ctx, i, 0);
    return;
  }
#ifdef _OPENMP
  // OpenBLAS (the pthreads build) would otherwise start its own threads for
  // a large GEMM inside our region and oversubscribe the cores.
  int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
#pragma omp parallel num_threads(threads)
  {
    tfr_session *previous = tfr_session_adopt(session);  // the caller's thread already has it
    int t = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < num_tasks; i++) fn(ctx, i, t);
    (void)tfr_session_adopt(previous);
  }
  openblas_set_num_threads(blas_threads);
#else
  (void)session;
  for (int64_t i = 0; i < num_tasks; i++) fn(ctx, i, 0);
#endif
}

void tfr_cpu_run_tasks_alone(int64_t num_tasks, tfr_cpu_task_fn fn, void *ctx) {
#ifdef _OPENMP
  int blas_threads = openblas_get_num_threads();
  int levels = omp_get_max_active_levels();
  openblas_set_num_threads(1);
  omp_set_max_active_levels(0);  // every parallel region of the kernels: one thread
  for (int64_t i = 0; i < num_tasks; i++) fn(ctx, i, 0);
  omp_set_max_active_levels(levels);
  openblas_set_num_threads(blas_threads);
#else
  for (int64_t i = 0; i < num_tasks; i++) fn(ctx, i, 0);
#endif
}
