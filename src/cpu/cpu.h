// The cpu backend's internal interface: its object, the strided iterator
// every kernel runs on, and the op-family entry points (one file each).
#ifndef TENFERRO_SRC_CPU_CPU_H_
#define TENFERRO_SRC_CPU_CPU_H_

#include "core/backend_impl.h"

// Buffer size classes: four per power of two (at most 19% unused bytes).
#define TFR_CPU_POOL_CLASSES 256
// Buffers of at least this many bytes are pooled by the large-buffer rules
// (tfr_cpu_backend.large), at most TFR_CPU_LARGE_SLOTS of them.
#define TFR_CPU_LARGE_MIN ((size_t)4 << 20)
#define TFR_CPU_LARGE_SLOTS 32

typedef struct tfr_cpu_backend {
  tfr_backend base;  // first
  int num_threads;   // resolved (>= 1)
  // Buffer pool: freed buffers kept by size class for reuse.
  pthread_mutex_t pool_lock;
  size_t pool_cap;     // bytes kept at most
  size_t pool_bytes;   // bytes kept now
  void *pool[TFR_CPU_POOL_CLASSES];  // free lists by size class; the next
                                    // pointer is stored in each free buffer
  // Large buffers (TFR_CPU_LARGE_MIN bytes and more) are kept apart, any
  // size, and reused by a request of at least half their size: a fresh
  // buffer costs the kernel's zeroing of every page on first touch, which
  // was half the time of networks whose steps make gigabyte intermediates.
  // What they keep is bounded by the peak of the large buffers in use at
  // once (so the process never holds more than it did at that peak) and by
  // pool_cap when the caller set one.
  size_t large_cap;    // bytes kept at most (SIZE_MAX: only the peak bounds it)
  size_t large_bytes;  // bytes kept now
  size_t large_live;   // bytes of large buffers in use
  size_t large_peak;   // the most large_live + large_bytes so far
  int num_large;
  void *large[TFR_CPU_LARGE_SLOTS];
  size_t large_size[TFR_CPU_LARGE_SLOTS];
  tfr_cpu_native native;
} tfr_cpu_backend;

static inline tfr_cpu_backend *tfr_cpu_cast(tfr_backend *b) { return (tfr_cpu_backend *)b; }

// Work below this many elements runs on one thread: thread start-up costs
// more than it saves (measured with bench/, 2-core machine).
#define TFR_CPU_PARALLEL_MIN 32768

// Up to this many threads, work takes one thread per unit of it; a larger
// team only when every thread gets TFR_CPU_WIDE_FACTOR units. On the GPU
// machine's 16 virtual cores, waking the whole team cost more than a small
// op's work: ops of 0.1-0.2 ms on 8-15 threads took 3-7 ms at times, and
// lm_batch_likelihood_brackets_4_4d ran 26.7 ms on 16 threads against 12.7
// on 4.
#define TFR_CPU_NARROW_TEAM 4
#define TFR_CPU_WIDE_FACTOR 8

// The threads work of `work` units deserves, `unit` a thread up to
// TFR_CPU_NARROW_TEAM threads and TFR_CPU_WIDE_FACTOR units a thread beyond;
// at least 1, at most `threads`.
static inline int tfr_cpu_threads_per(int threads, int64_t work, int64_t unit) {
  int64_t t = work / unit;
  if (t > TFR_CPU_NARROW_TEAM) {
    int64_t wide = work / unit / TFR_CPU_WIDE_FACTOR;
    t = wide > TFR_CPU_NARROW_TEAM ? wide : TFR_CPU_NARROW_TEAM;
  }
  return t < 1 ? 1 : t < threads ? (int)t : threads;
}

// The threads an op over `work` elements (or multiply-adds) deserves: one
// per TFR_CPU_PARALLEL_MIN of it, at most `threads`, wider teams as above. A
// small op no longer takes the whole team: on 16 threads, steps of 40
// thousand elements each woke 16 threads and many-step networks ran slower
// on 16 threads than on 4 (lm_batch_likelihood_brackets_4_4d 52 ms vs 18 ms).
static inline int tfr_cpu_threads_for(int threads, int64_t work) {
  return tfr_cpu_threads_per(threads, work, TFR_CPU_PARALLEL_MIN);
}

// ---------------------------------------------------------------------------
// Strided iteration
//
// An iterator covers up to TFR_CPU_MAX_OPERANDS tensors of one shape
// (operand 0 is the output). Axes are ordered by the output's strides
// (innermost = smallest |stride|) and adjacent axes that are contiguous for
// every operand are merged, so a compact or simply-strided tensor becomes a
// single long inner run. Kernels see only inner runs:
//   fn(n, ptrs, strides, ctx): n elements; ptrs[i] points at operand i's
//   first element; strides[i] is operand i's step in bytes.
// ---------------------------------------------------------------------------

// Enough for a fusion plan's outputs and inputs (TFR_FUSION_MAX_*).
#define TFR_CPU_MAX_OPERANDS 24

typedef void (*tfr_cpu_inner_fn)(int64_t n, char *const *ptrs, const int64_t *strides,
                                 const void *ctx);

typedef struct tfr_cpu_iter {
  int nops;
  int ndim;                 // merged axes; axis 0 is the innermost
  int64_t numel;
  int64_t shape[TFR_MAX_RANK];
  int64_t strides[TFR_CPU_MAX_OPERANDS][TFR_MAX_RANK];  // bytes
  char *base[TFR_CPU_MAX_OPERANDS];
} tfr_cpu_iter;

// Builds an iterator over `ops[0..nops)`, all of the shape of ops[0].
void tfr_cpu_iter_init(tfr_cpu_iter *it, int nops, const tfr_tensor *const *ops);

// Runs fn over every inner run, on up to `num_threads` threads when the
// iterator has at least TFR_CPU_PARALLEL_MIN elements.
void tfr_cpu_iter_run(const tfr_cpu_iter *it, tfr_cpu_inner_fn fn, const void *ctx,
                      int num_threads);

// The inner kernel of one elementwise op on operands of `dtype` (the
// operands' dtype, on_true's for select); NULL when the op table has no such
// pair. Used by elementwise.c and by fusion.c.
tfr_cpu_inner_fn tfr_cpu_elementwise_kernel(tfr_ew_kind kind, int op, tfr_dtype dtype);

// Converts (or copies) `in` into `out` of the same shape, any dtypes and
// strides: the kernel of StableHLO convert (src/cpu/structural.c).
tfr_status tfr_cpu_convert(tfr_cpu_backend *cpu, const tfr_tensor *in, tfr_tensor *out);

// Op families (src/cpu/<family>.c).
tfr_status tfr_cpu_elementwise(tfr_backend *b, const tfr_elementwise_desc *d);
tfr_status tfr_cpu_structural(tfr_backend *b, const tfr_structural_desc *d);
tfr_status tfr_cpu_reduction(tfr_backend *b, const tfr_reduce_desc *d);
tfr_status tfr_cpu_dot_general(tfr_backend *b, const tfr_dot_desc *d);
tfr_status tfr_cpu_gather(tfr_backend *b, const tfr_gather_desc *d);
tfr_status tfr_cpu_scatter(tfr_backend *b, const tfr_scatter_desc *d);
tfr_status tfr_cpu_fusion(tfr_backend *b, const tfr_fusion_desc *d);
tfr_status tfr_cpu_sum_of_products(tfr_backend *b, const tfr_sum_of_products_desc *d);

#endif  // TENFERRO_SRC_CPU_CPU_H_
