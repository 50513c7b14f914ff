// The live-object counts (tfr_live_objects, include/tenferro/tensor.h): one
// block of counters per thread (core/live.h), found through a thread-local
// pointer; a thread's block goes back to a spare list when the thread ends,
// its counts folded into tfr_live_retired.
#include <pthread.h>

#include "core/core.h"
#include "core/live.h"

_Thread_local tfr_live_block *tfr_live_mine;
tfr_live_block tfr_live_shared;

static pthread_mutex_t tfr_live_lock = PTHREAD_MUTEX_INITIALIZER;
static tfr_live_block *tfr_live_used;   // blocks of running threads (under the lock)
static tfr_live_block *tfr_live_spare;  // zeroed blocks of ended threads (under the lock)
static int64_t tfr_live_retired[TFR_OBJECT_KIND_COUNT];  // ended threads' counts (the lock)
static pthread_key_t tfr_live_key;      // its destructor hands a thread's block back
static pthread_once_t tfr_live_once = PTHREAD_ONCE_INIT;
static bool tfr_live_key_ok;

// Runs on a thread that ends holding a block: its counts go to
// tfr_live_retired, the block to the spare list, and whatever the thread
// still frees from here on (other thread-local destructors) counts in
// tfr_live_shared.
static void tfr_live_thread_end(void *p) {
  tfr_live_block *b = p;
  pthread_mutex_lock(&tfr_live_lock);
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++) {
    tfr_live_retired[k] += atomic_load_explicit(&b->n[k], memory_order_relaxed);
    atomic_store_explicit(&b->n[k], 0, memory_order_relaxed);
  }
  for (tfr_live_block **at = &tfr_live_used; *at; at = &(*at)->next)
    if (*at == b) {
      *at = b->next;
      break;
    }
  b->next = tfr_live_spare;
  tfr_live_spare = b;
  pthread_mutex_unlock(&tfr_live_lock);
  tfr_live_mine = &tfr_live_shared;
}

static void tfr_live_make_key(void) {
  tfr_live_key_ok = pthread_key_create(&tfr_live_key, tfr_live_thread_end) == 0;
}

tfr_live_block *tfr_live_block_get(void) {
  pthread_once(&tfr_live_once, tfr_live_make_key);
  tfr_live_block *b = NULL;
  if (tfr_live_key_ok) {
    pthread_mutex_lock(&tfr_live_lock);
    if (tfr_live_spare) {
      b = tfr_live_spare;
      tfr_live_spare = b->next;
    } else {
      b = tfr_calloc(1, sizeof *b);
    }
    if (b && pthread_setspecific(tfr_live_key, b) != 0) {
      b->next = tfr_live_spare;
      tfr_live_spare = b;
      b = NULL;
    }
    if (b) {
      b->next = tfr_live_used;
      tfr_live_used = b;
    }
    pthread_mutex_unlock(&tfr_live_lock);
  }
  tfr_live_mine = b ? b : &tfr_live_shared;
  return tfr_live_mine;
}

static const char *const tfr_object_kind_names[TFR_OBJECT_KIND_COUNT] = {
    [TFR_OBJECT_TENSOR] = "tensor",           [TFR_OBJECT_STORAGE] = "storage",
    [TFR_OBJECT_SESSION] = "session",         [TFR_OBJECT_EINSUM_PLAN] = "einsum_plan",
    [TFR_OBJECT_DOT_PLAN] = "dot_plan",       [TFR_OBJECT_FUSION_PLAN] = "fusion_plan",
};

// The sum of kind k over the retired counts, the shared block and every
// thread's block. Call with the lock held.
static int64_t tfr_live_sum(int k) {
  int64_t sum = tfr_live_retired[k] + atomic_load_explicit(&tfr_live_shared.n[k],
                                                           memory_order_relaxed);
  for (tfr_live_block *b = tfr_live_used; b; b = b->next)
    sum += atomic_load_explicit(&b->n[k], memory_order_relaxed);
  return sum;
}

int64_t tfr_live_objects(tfr_object_kind kind) {
  if (kind != TFR_OBJECT_ALL && ((int)kind < 0 || (int)kind >= TFR_OBJECT_KIND_COUNT))
    return -1;
  int64_t sum = 0;
  pthread_mutex_lock(&tfr_live_lock);
  for (int k = 0; k < TFR_OBJECT_KIND_COUNT; k++)
    if (kind == TFR_OBJECT_ALL || kind == (tfr_object_kind)k) {
      // A thread's block may show a free before another's shows the making:
      // a count read while other threads work is never shown below 0.
      int64_t n = tfr_live_sum(k);
      sum += n > 0 ? n : 0;
    }
  pthread_mutex_unlock(&tfr_live_lock);
  return sum;
}

const char *tfr_object_kind_name(tfr_object_kind kind) {
  if (kind == TFR_OBJECT_ALL) return "all";
  if ((int)kind < 0 || (int)kind >= TFR_OBJECT_KIND_COUNT) return NULL;
  return tfr_object_kind_names[kind];
}
