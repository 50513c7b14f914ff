// The axis planner of elementwise-shaped work, shared by the backends
// (src/cpu/strided.c's iterator, src/webgpu/binding.c's kernels): extent-1
// axes dropped, the rest ordered by ops[0]'s |stride| ascending (ties: later
// axes first, keeping row-major order for broadcast outputs), neighbours
// merged when every operand steps over the inner axis exactly.
#ifndef TENFERRO_SRC_CORE_PLAN_AXES_H_
#define TENFERRO_SRC_CORE_PLAN_AXES_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/backend_impl.h"

// Plans the axes of `nops` operands, all of the shape of ops[0]. Fills *out_nd
// (>= 1; axis 0 innermost), shape[nd] and stride[i * TFR_MAX_RANK + axis] in
// elements of operand i (a rank-0 or all-extent-1 operand: one axis of
// extent 1, stride 1).
static inline void tfr_plan_axes(int nops, const tfr_tensor *const *ops, int *out_nd,
                                 int64_t *shape, int64_t *stride) {
  const tfr_tensor *o = ops[0];
  int axes[TFR_MAX_RANK];
  int n = 0;
  for (int k = o->rank - 1; k >= 0; k--) {
    if (o->shape[k] == 1) continue;
    int64_t a = llabs(o->strides[k]);
    int j = n++;
    while (j > 0 && llabs(o->strides[axes[j - 1]]) > a) {
      axes[j] = axes[j - 1];
      j--;
    }
    axes[j] = k;
  }
  int nd = 0;
  for (int j = 0; j < n; j++) {
    int k = axes[j];
    if (nd > 0) {
      bool merge = true;
      for (int i = 0; i < nops && merge; i++)
        merge = ops[i]->strides[k] == stride[i * TFR_MAX_RANK + nd - 1] * shape[nd - 1];
      if (merge) {
        shape[nd - 1] *= o->shape[k];
        continue;
      }
    }
    shape[nd] = o->shape[k];
    for (int i = 0; i < nops; i++) stride[i * TFR_MAX_RANK + nd] = ops[i]->strides[k];
    nd++;
  }
  if (nd == 0) {
    shape[0] = 1;
    for (int i = 0; i < nops; i++) stride[i * TFR_MAX_RANK] = 1;
    nd = 1;
  }
  *out_nd = nd;
}

#endif  // TENFERRO_SRC_CORE_PLAN_AXES_H_
