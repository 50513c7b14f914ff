// Counting live library objects for tfr_live_objects (include/tenferro/tensor.h):
// every place that creates an object of a counted kind calls tfr_live_add
// once it exists, and the place that frees it tfr_live_sub.
//
// The counts are kept per thread, so that counting costs no locked
// instruction: each thread adds to a block of C11 atomics that only it
// writes (a relaxed load and store), and tfr_live_objects sums the blocks of
// every thread, plus what threads that have ended left (src/core/live.c). An
// object made on one thread and freed on another counts +1 on the first and
// -1 on the second; the sum is exact whenever no thread is in the middle of
// making or freeing one.
#ifndef TENFERRO_SRC_CORE_LIVE_H_
#define TENFERRO_SRC_CORE_LIVE_H_

#include <stdatomic.h>

#include "tenferro/tensor.h"

typedef struct tfr_live_block {
  atomic_llong n[TFR_OBJECT_KIND_COUNT];
  struct tfr_live_block *next;  // in live.c's list of blocks in use, or of spare ones
} tfr_live_block;

// The calling thread's block, NULL until its first count.
extern _Thread_local tfr_live_block *tfr_live_mine;
// The block every thread without one of its own adds to with atomic
// read-modify-writes (when a block could not be had, and after the thread's
// own block was handed back at its end).
extern tfr_live_block tfr_live_shared;
// Finds the calling thread a block (a spare one, or a new one) and sets
// tfr_live_mine; tfr_live_shared when that fails.
tfr_live_block *tfr_live_block_get(void);

static inline void tfr_live_change(tfr_object_kind kind, long long delta) {
  tfr_live_block *b = tfr_live_mine;
  if (!b) b = tfr_live_block_get();
  if (b == &tfr_live_shared) {
    atomic_fetch_add_explicit(&b->n[kind], delta, memory_order_relaxed);
  } else {  // only this thread writes b
    long long v = atomic_load_explicit(&b->n[kind], memory_order_relaxed);
    atomic_store_explicit(&b->n[kind], v + delta, memory_order_relaxed);
  }
}

static inline void tfr_live_add(tfr_object_kind kind) { tfr_live_change(kind, 1); }
static inline void tfr_live_sub(tfr_object_kind kind) { tfr_live_change(kind, -1); }

#endif  // TENFERRO_SRC_CORE_LIVE_H_
