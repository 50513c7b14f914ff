// Subtree reconfiguration: a refinement pass over any contraction tree that
// re-optimises every subtree of up to k leaves exactly (optimal.c).
#ifndef TENFERRO_SRC_EINSUM_SUBTREE_H_
#define TENFERRO_SRC_EINSUM_SUBTREE_H_

#include "einsum/tree.h"

// Refines the tree of the SSA steps in ssa (int[2 * (n - 1)], valid for
// net's operands) in place: for every internal node, the subtree below it
// cut at up to k (3..TFR_EINSUM_SUBTREE_MAX) frontier tensors (expanding the
// largest intermediate first) is re-contracted by the tree of least `m` cost
// (combo with `alpha`) over its frontier, when that lowers the subtree's
// cost; passes repeat until one improves nothing. The result is never worse
// than the input in `m` (checked by replaying both). With max_time > 0 no
// subtree is started after that many seconds from `start` (a
// tfr_path_now time). Errors: TFR_ERR_OUT_OF_MEMORY
// (ssa is then unchanged).
tfr_status tfr_subtree_refine(const tfr_net *net, tfr_einsum_minimize m, double alpha, int k,
                              double start, double max_time, int *ssa);

#endif  // TENFERRO_SRC_EINSUM_SUBTREE_H_
