// The host allocator, with a failure-injection hook for tests.
#define _DEFAULT_SOURCE 1  // madvise's MADV_HUGEPAGE (Linux)
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/core.h"

// < 0: never fail; otherwise the number of allocations still allowed.
static atomic_long tfr_alloc_budget = -1;

void tfr_alloc_fail_after(long n) { atomic_store(&tfr_alloc_budget, n); }

static bool tfr_alloc_allowed(void) {
  long budget = atomic_load(&tfr_alloc_budget);
  while (budget >= 0) {
    if (budget == 0) return false;
    if (atomic_compare_exchange_weak(&tfr_alloc_budget, &budget, budget - 1)) return true;
  }
  return true;
}

void *tfr_alloc(size_t nbytes) {
  if (!tfr_alloc_allowed()) return NULL;
  return malloc(nbytes ? nbytes : 1);
}

void *tfr_calloc(size_t count, size_t size) {
  if (!tfr_alloc_allowed()) return NULL;
  if (count == 0 || size == 0) return calloc(1, 1);
  return calloc(count, size);
}

void *tfr_realloc(void *ptr, size_t nbytes) {
  if (!tfr_alloc_allowed()) return NULL;
  return realloc(ptr, nbytes ? nbytes : 1);
}

void tfr_free(void *ptr) { free(ptr); }

// Buffers of at least this size are backed by transparent huge pages where
// the kernel offers them ("madvise" mode, Debian's default): a first touch of
// a fresh 80 MB tensor then costs 40 page faults instead of 20000, which was
// most of the time of a chain of elementwise ops on 10^7 doubles
// (bench/ chain5_unfused: 327 ms before). numpy does the same.
#define TFR_HUGE_PAGE ((size_t)2 << 20)
#define TFR_HUGE_PAGE_MIN ((size_t)4 << 20)

void *tfr_alloc_aligned(size_t nbytes) {
  if (!tfr_alloc_allowed()) return NULL;
  size_t rounded;
  // aligned_alloc wants a multiple of the alignment.
  if (!tfr_add_size(nbytes ? nbytes : 1, 63, &rounded)) return NULL;
  rounded &= ~(size_t)63;
#ifdef MADV_HUGEPAGE
  if (rounded >= TFR_HUGE_PAGE_MIN) {
    size_t huge;
    if (!tfr_add_size(rounded, TFR_HUGE_PAGE - 1, &huge)) return NULL;
    huge &= ~(TFR_HUGE_PAGE - 1);
    void *p = aligned_alloc(TFR_HUGE_PAGE, huge);
    if (p) (void)madvise(p, huge, MADV_HUGEPAGE);  // a hint: failure is harmless
    return p;
  }
#endif
  return aligned_alloc(64, rounded);
}

void tfr_free_aligned(void *ptr) { free(ptr); }

char *tfr_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = tfr_alloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}
