// Counting live library objects for tfr_live_objects (include/tenferro/tensor.h):
// every place that creates an object of a counted kind calls tfr_live_add
// once it exists, and the place that frees it tfr_live_sub. Relaxed atomics:
// the counts order nothing, they are only read as totals.
#ifndef TENFERRO_SRC_CORE_LIVE_H_
#define TENFERRO_SRC_CORE_LIVE_H_

#include <stdatomic.h>

#include "tenferro/tensor.h"

// One counter per tfr_object_kind (src/core/live.c).
extern atomic_llong tfr_live_counts[TFR_OBJECT_KIND_COUNT];

static inline void tfr_live_add(tfr_object_kind kind) {
  atomic_fetch_add_explicit(&tfr_live_counts[kind], 1, memory_order_relaxed);
}

static inline void tfr_live_sub(tfr_object_kind kind) {
  atomic_fetch_sub_explicit(&tfr_live_counts[kind], 1, memory_order_relaxed);
}

#endif  // TENFERRO_SRC_CORE_LIVE_H_
