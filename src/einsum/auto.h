// The `auto` path optimiser: the others within a time budget (auto.c).
#ifndef TENFERRO_SRC_EINSUM_AUTO_H_
#define TENFERRO_SRC_EINSUM_AUTO_H_

#include "einsum/tree.h"

// Finds a tree for `e` (whose network is `net`) with the options' cost,
// seed and time budget (max_time; 0: TFR_EINSUM_AUTO_DEFAULT_TIME), writing
// its SSA steps to ssa. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_auto(const tfr_einsum_expr *e, const tfr_net *net, const tfr_einsum_options *o,
                    int *ssa);

#endif  // TENFERRO_SRC_EINSUM_AUTO_H_
