// The axes of a reduction in canonical form, shared by the backends' planners
// (src/cpu/reduce.c in bytes, src/webgpu/reduce.c in elements): each backend
// sorts the kept and the reduced axes by input stride and merges neighbours
// that step over each other.
#ifndef TENFERRO_SRC_CORE_REDUCE_AXES_H_
#define TENFERRO_SRC_CORE_REDUCE_AXES_H_

#include <stdbool.h>
#include <stdint.h>

typedef struct tfr_red_axis {
  int64_t n;   // extent (> 1)
  int64_t s;   // input stride (>= 0), in the planner's unit
  int64_t os;  // output stride (kept axes), in the same unit
} tfr_red_axis;

// Sort key of a stride: broadcast (stride-0) axes go outermost, so that the
// innermost axis is a real one whenever there is one.
static inline int64_t tfr_red_key(int64_t s) { return s == 0 ? INT64_MAX : s; }

// Inserts `a` into `list` (n entries sorted by key), after equal keys.
static inline void tfr_red_insert(tfr_red_axis *list, int *n, tfr_red_axis a) {
  int j = (*n)++;
  while (j > 0 && tfr_red_key(list[j - 1].s) > tfr_red_key(a.s)) {
    list[j] = list[j - 1];
    j--;
  }
  list[j] = a;
}

// Merges each axis into the previous (inner) one where it steps over it
// exactly (the output too, for kept axes); returns the new count.
static inline int tfr_red_merge_axes(tfr_red_axis *list, int n, bool kept) {
  int nd = 0;
  for (int j = 0; j < n; j++) {
    if (nd > 0) {
      tfr_red_axis *p = &list[nd - 1];
      if (list[j].s == p->s * p->n && (!kept || list[j].os == p->os * p->n)) {
        p->n *= list[j].n;
        continue;
      }
    }
    list[nd++] = list[j];
  }
  return nd;
}

#endif  // TENFERRO_SRC_CORE_REDUCE_AXES_H_
