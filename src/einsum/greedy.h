// The greedy path optimiser (TFR_EINSUM_PATH_GREEDY) and its randomised
// form, one trial of TFR_EINSUM_PATH_RANDOM_GREEDY.
#ifndef TENFERRO_SRC_EINSUM_GREEDY_H_
#define TENFERRO_SRC_EINSUM_GREEDY_H_

#include <stdint.h>

#include "einsum/tree.h"

// How a greedy run picks its pairs. {1, 0, NULL, false} is the plain greedy.
typedef struct tfr_greedy_params {
  // A pair's cost: size(result) - costmod * (size(a) + size(b)).
  double costmod;
  // 0: always the best candidate (ties: flops, then the ids). > 0: a
  // Boltzmann choice among the TFR_GREEDY_CHOICES best, with probability
  // proportional to exp(-(cost - best) / (temperature * max(|best|, 1))).
  double temperature;
  uint64_t *rng;  // splitmix64 state, for temperature > 0
  // Pairs that share only output labels are no candidates: they are joined
  // with the tensors sharing nothing, at the end (batch labels otherwise
  // make every pair a candidate).
  bool outputs_apart;
} tfr_greedy_params;

#define TFR_GREEDY_CHOICES 8

// Runs greedy on `net`, writing n - 1 SSA steps to ssa (int[2 * (n - 1)]).
// Only pairs that share a label (a label other than an output label, with
// p->outputs_apart) are candidates (a priority queue, updated
// with the pairs of each new tensor); when none is left the remaining
// tensors are joined by outer products, the two smallest (ties: the lower
// id) first. *cost (if not NULL) receives the tree's costs. Errors:
// TFR_ERR_OUT_OF_MEMORY. Runs on a shared net may go on in parallel.
tfr_status tfr_greedy_run(const tfr_net *net, const tfr_greedy_params *p, int *ssa,
                          tfr_tree_cost *cost);

// splitmix64: the next 64 random bits of *state, and a double in [0, 1).
uint64_t tfr_greedy_rand(uint64_t *state);
double tfr_greedy_uniform(uint64_t *state);

#endif  // TENFERRO_SRC_EINSUM_GREEDY_H_
