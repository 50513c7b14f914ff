// Dynamic programming over connected subsets (TFR_EINSUM_PATH_DP).
#ifndef TENFERRO_SRC_EINSUM_DP_H_
#define TENFERRO_SRC_EINSUM_DP_H_

#include "einsum/tree.h"

// The most subsets the search keeps before it gives up (a clear error
// rather than exhausting the machine's memory).
#define TFR_DP_MAX_SUBSETS (1 << 24)

// Finds the tree of least `m` cost (combo with `alpha`) among those that
// contract each connected component (operands linked by labels that are not
// output labels) by pairs that share such a label, the components then joined by
// outer products, the smallest results first; networks of at most
// TFR_EINSUM_DP_OUTER_MAX operands are one component with outer products
// allowed (the least cost over all trees). Writes n - 1 SSA steps to ssa.
// Errors: TFR_ERR_INVALID_ARGUMENT for a component of more than
// TFR_EINSUM_DP_MAX operands, a search of more than TFR_DP_MAX_SUBSETS
// subsets or longer than max_time seconds (0: no limit),
// TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_dp(const tfr_net *net, tfr_einsum_minimize m, double alpha, double max_time,
                  int *ssa);

#endif  // TENFERRO_SRC_EINSUM_DP_H_
