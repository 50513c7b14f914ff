// The host allocator, with a failure-injection hook for tests.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

void *tfr_alloc_aligned(size_t nbytes) {
  if (!tfr_alloc_allowed()) return NULL;
  size_t rounded;
  // aligned_alloc wants a multiple of the alignment.
  if (!tfr_add_size(nbytes ? nbytes : 1, 63, &rounded)) return NULL;
  rounded &= ~(size_t)63;
  return aligned_alloc(64, rounded);
}

void tfr_free_aligned(void *ptr) { free(ptr); }

char *tfr_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = tfr_alloc(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}
