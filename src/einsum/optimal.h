// The exhaustive path optimiser (TFR_EINSUM_PATH_OPTIMAL).
#ifndef TENFERRO_SRC_EINSUM_OPTIMAL_H_
#define TENFERRO_SRC_EINSUM_OPTIMAL_H_

#include "einsum/tree.h"

// The tree of least `m` cost (combo with `alpha`) over all binary trees of
// net's operands (n <= TFR_EINSUM_OPTIMAL_MAX, checked by the caller): subset
// dynamic programming over every split of every subset (3^n / 2). Writes
// n - 1 SSA steps to ssa. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_optimal(const tfr_net *net, tfr_einsum_minimize m, double alpha, int *ssa);

#endif  // TENFERRO_SRC_EINSUM_OPTIMAL_H_
