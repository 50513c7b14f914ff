// Slicing to a memory budget: the search of a tree and its sliced labels
// together (tfr_einsum_options.max_slice_elements).
#ifndef TENFERRO_SRC_EINSUM_SLICE_SEARCH_H_
#define TENFERRO_SRC_EINSUM_SLICE_SEARCH_H_

#include "einsum/einsum_impl.h"

// The joint search of a tree and its sliced labels for o->max_slice_elements
// (> 0) elements (einsum.h, docs/paths.md "Slicing"). `ssa` holds the
// optimiser's tree (SSA steps for e's operands) and receives the chosen one;
// sl (room for TFR_EINSUM_MAX_SLICED label ids) and *ns the labels to slice
// (0 when the tree fits unsliced: it is then kept as it is). The result
// costs no more sliced flops than the optimiser's tree sliced by
// tfr_einsum_plan_slice_to_fit. Errors: TFR_ERR_INVALID_ARGUMENT when no
// slicing fits (the message says why), TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_slice_search(const tfr_einsum_expr *e, const tfr_einsum_options *o, int *ssa,
                            int *sl, int *ns);

#endif  // TENFERRO_SRC_EINSUM_SLICE_SEARCH_H_
