// The live-object counts (tfr_live_objects, include/tenferro/tensor.h).
#include "core/live.h"

atomic_llong tfr_live_counts[TFR_OBJECT_KIND_COUNT];

static const char *const tfr_object_kind_names[TFR_OBJECT_KIND_COUNT] = {
    [TFR_OBJECT_TENSOR] = "tensor",           [TFR_OBJECT_STORAGE] = "storage",
    [TFR_OBJECT_SESSION] = "session",         [TFR_OBJECT_EINSUM_PLAN] = "einsum_plan",
    [TFR_OBJECT_DOT_PLAN] = "dot_plan",       [TFR_OBJECT_FUSION_PLAN] = "fusion_plan",
};

int64_t tfr_live_objects(tfr_object_kind kind) {
  if (kind == TFR_OBJECT_ALL) {
    int64_t sum = 0;
    for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++)
      sum += atomic_load_explicit(&tfr_live_counts[k], memory_order_relaxed);
    return sum;
  }
  if ((int)kind < 0 || (int)kind >= TFR_OBJECT_KIND_COUNT) return -1;
  return atomic_load_explicit(&tfr_live_counts[kind], memory_order_relaxed);
}

const char *tfr_object_kind_name(tfr_object_kind kind) {
  if (kind == TFR_OBJECT_ALL) return "all";
  if ((int)kind < 0 || (int)kind >= TFR_OBJECT_KIND_COUNT) return NULL;
  return tfr_object_kind_names[kind];
}
