// Seeded runs over the OpenMP threads, the best kept (runs.h).
#include "einsum/runs.h"

#include <math.h>
#include <string.h>

#include "einsum/tree.h"

tfr_status tfr_best_of_runs(int runs, size_t len, double start, double max_time, tfr_run_fn run,
                            void *ctx, int *best, const char *what) {
  double best_score = INFINITY;
  int best_run = -1;
  bool failed = false;
#pragma omp parallel
  {
    int *cur = tfr_alloc((len + 1) * sizeof(int)), *mine = tfr_alloc((len + 1) * sizeof(int));
    double my_score = INFINITY;
    int my_run = -1;
    if (!cur || !mine) {
#pragma omp atomic write
      failed = true;
    }
#pragma omp for schedule(dynamic, 1)
    for (int r = 0; r < runs; r++) {
      bool stop;
#pragma omp atomic read
      stop = failed;
      if (stop || (r > 0 && max_time > 0 && tfr_path_now() - start > max_time)) continue;
      double score;
      if (!run(ctx, r, cur, &score)) {
#pragma omp atomic write
        failed = true;
        continue;
      }
      if (isnan(score)) score = INFINITY;
      if (my_run < 0 || score < my_score || (score == my_score && r < my_run)) {
        int *x = mine;
        mine = cur;
        cur = x;
        my_score = score;
        my_run = r;
      }
    }
#pragma omp critical(tfr_best_of_runs)
    if (my_run >= 0 && (best_run < 0 || my_score < best_score ||
                        (my_score == best_score && my_run < best_run))) {
      best_score = my_score;
      best_run = my_run;
      memcpy(best, mine, len * sizeof(int));
    }
    tfr_free(cur);
    tfr_free(mine);
  }
  if (failed || best_run < 0)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (%s path search)", what);
  return TFR_OK;
}
