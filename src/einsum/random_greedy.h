// Random greedy (TFR_EINSUM_PATH_RANDOM_GREEDY): many randomised greedy
// trials in parallel, the best tree kept.
#ifndef TENFERRO_SRC_EINSUM_RANDOM_GREEDY_H_
#define TENFERRO_SRC_EINSUM_RANDOM_GREEDY_H_

#include "einsum/tree.h"

// Runs o->trials (> 0) trials on `net` and writes the SSA steps of the tree
// with the least o->minimize cost (combo with o->combo_alpha > 0) to ssa
// (int[2 * (n - 1)]); trial 0 is the plain greedy, trial t > 0 draws its
// choices from a generator seeded by (o->seed, t). Ties go to the lowest
// trial, so the result does not depend on the thread count. With
// o->max_time > 0 no trial but the first starts after that many seconds.
// Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_random_greedy(const tfr_net *net, const tfr_einsum_options *o, int *ssa);

#endif  // TENFERRO_SRC_EINSUM_RANDOM_GREEDY_H_
