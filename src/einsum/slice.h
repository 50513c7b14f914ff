// Slicing internals shared with the joint search (slice_search.c): the
// figures of a sliced path and the greedy label picker (slice.c).
#ifndef TENFERRO_SRC_EINSUM_SLICE_H_
#define TENFERRO_SRC_EINSUM_SLICE_H_

#include <stdbool.h>

#include "einsum/einsum_impl.h"

// The figures of a path sliced over some labels: the flops of all slices,
// the largest intermediate of one, and one slice's memory (every operand,
// the output when sliced, the intermediates alive at the slice's worst step;
// tfr_einsum_path_info.sliced_peak_live_elements) and that worst step (-1:
// none).
typedef struct tfr_slice_figures {
  double flops, largest, peak;
  int peak_step;
} tfr_slice_figures;

// The figures of the plan's path sliced over label ids sl[0 .. ns). Reads
// only plan->expr, num_steps, step_flops, node_labels, node_count and
// consumer (a skeleton plan of those fields will do).
void tfr_slice_eval(const tfr_einsum_plan *plan, const int *sl, int ns, tfr_slice_figures *f);

// Adds labels to sl[0 .. *ns) (room for TFR_EINSUM_MAX_SLICED) while one
// slice needs more than max_elements: each time, of the labels of the
// largest intermediate alive at the worst step that lower the memory and
// are not banned (bool[num_labels], NULL: none), the one of least
// log(flops factor) / log(memory factor)^alpha (alpha 1: flops per memory
// saved, tfr_einsum_plan_slice_to_fit's rule; 0: the fewest flops added),
// ties to the smaller memory. *f receives the final figures. Returns
// whether the labels fit (false: no label lowers the memory any more, or
// TFR_EINSUM_MAX_SLICED are sliced).
bool tfr_slice_extend(const tfr_einsum_plan *plan, double max_elements, const bool *banned,
                      double alpha, int *sl, int *ns, tfr_slice_figures *f);

#endif  // TENFERRO_SRC_EINSUM_SLICE_H_
