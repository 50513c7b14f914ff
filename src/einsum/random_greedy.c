// Random greedy: trials of tfr_greedy_run with random cost weights and
// Boltzmann choices, spread over the OpenMP threads.
#include "einsum/random_greedy.h"

#include <math.h>

#include "einsum/greedy.h"
#include "einsum/runs.h"

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

typedef struct tfr_rg_ctx {
  const tfr_net *net;
  const tfr_einsum_options *o;
} tfr_rg_ctx;

// One trial (tfr_run_fn).
static bool tfr_rg_trial(void *ctx, int t, int *out, double *score) {
  const tfr_net *net = ((tfr_rg_ctx *)ctx)->net;
  const tfr_einsum_options *o = ((tfr_rg_ctx *)ctx)->o;
  uint64_t rng = 0;
  tfr_greedy_params p = {1, 0, NULL, false};
  if (t > 0) tfr_rg_trial_params(o->seed, t, &rng, &p);
  tfr_tree_cost c;
  if (tfr_greedy_run(net, &p, out, &c) != TFR_OK) return false;
  *score = tfr_cost_score(o->minimize, o->combo_alpha, &c);
  return true;
}

tfr_status tfr_random_greedy(const tfr_net *net, const tfr_einsum_options *o, int *ssa) {
  int n = net->n;
  tfr_rg_ctx ctx = {net, o};
  return tfr_best_of_runs(o->trials, 2 * (size_t)(n > 1 ? n - 1 : 1), tfr_path_now(), o->max_time,
                          tfr_rg_trial, &ctx, ssa, "random-greedy");
}
