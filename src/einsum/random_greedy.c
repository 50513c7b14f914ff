// Random greedy: trials of tfr_greedy_run with random cost weights and
// Boltzmann choices, spread over the OpenMP threads.
#include "einsum/random_greedy.h"

#include <math.h>
#include <time.h>

#include "einsum/greedy.h"

// The parameters of trial t > 0: a generator seeded by (seed, t), the
// weight of the inputs' sizes uniform in [0.5, 2], the temperature
// log-uniform in [0.001, 1]; odd trials keep pairs that share only output
// labels apart.
static void tfr_rg_trial_params(uint64_t seed, int t, uint64_t *rng, tfr_greedy_params *p) {
  uint64_t s = seed;
  *rng = tfr_greedy_rand(&s) ^ ((uint64_t)t * 0xd1b54a32d192ed03ULL);
  tfr_greedy_rand(rng);
  p->costmod = 0.5 + 1.5 * tfr_greedy_uniform(rng);
  p->temperature = exp(log(0.001) + tfr_greedy_uniform(rng) * log(1000.0));
  p->rng = rng;
  p->outputs_apart = t % 2 == 1;
}

tfr_status tfr_random_greedy(const tfr_net *net, const tfr_einsum_options *o, int *ssa) {
  int n = net->n, trials = o->trials;
  size_t steps = 2 * (size_t)(n > 1 ? n - 1 : 1);
  double start = tfr_path_now(), best_score = INFINITY;
  int best_trial = -1;
  bool failed = false;
#pragma omp parallel
  {
    int *cur = tfr_alloc(steps * sizeof(int)), *mine = tfr_alloc(steps * sizeof(int));
    double my_score = INFINITY;
    int my_trial = -1;
    if (!cur || !mine) {
#pragma omp atomic write
      failed = true;
    }
#pragma omp for schedule(dynamic, 1)
    for (int t = 0; t < trials; t++) {
      bool stop;
#pragma omp atomic read
      stop = failed;
      if (stop || (t > 0 && o->max_time > 0 && tfr_path_now() - start > o->max_time)) continue;
      uint64_t rng = 0;
      tfr_greedy_params p = {1, 0, NULL, false};
      if (t > 0) tfr_rg_trial_params(o->seed, t, &rng, &p);
      tfr_tree_cost c;
      if (tfr_greedy_run(net, &p, cur, &c) != TFR_OK) {
#pragma omp atomic write
        failed = true;
        continue;
      }
      double score = tfr_cost_score(o->minimize, o->combo_alpha, &c);
      if (isnan(score)) score = INFINITY;
      if (my_trial < 0 || score < my_score || (score == my_score && t < my_trial)) {
        int *x = mine;
        mine = cur;
        cur = x;
        my_score = score;
        my_trial = t;
      }
    }
#pragma omp critical(tfr_random_greedy_best)
    if (my_trial >= 0 && (best_trial < 0 || my_score < best_score ||
                          (my_score == best_score && my_trial < best_trial))) {
      best_score = my_score;
      best_trial = my_trial;
      memcpy(ssa, mine, steps * sizeof(int));
    }
    tfr_free(cur);
    tfr_free(mine);
  }
  if (failed || best_trial < 0)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (random-greedy path search)");
  return TFR_OK;
}
