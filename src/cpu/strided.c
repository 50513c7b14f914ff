// The strided iterator (see cpu.h).
#include <stdlib.h>

#include "core/plan_axes.h"
#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

void tfr_cpu_iter_init(tfr_cpu_iter *it, int nops, const tfr_tensor *const *ops) {
  const tfr_tensor *o = ops[0];
  it->nops = nops;
  it->numel = o->numel;
  for (int i = 0; i < nops; i++) it->base[i] = tfr_tensor_host_ptr(ops[i]);
  // The shared planner works in elements; the iterator steps in bytes.
  int nd;
  tfr_plan_axes(nops, ops, &nd, it->shape, &it->strides[0][0]);
  for (int i = 0; i < nops; i++) {
    int64_t es = (int64_t)tfr_dtype_size(ops[i]->dtype);
    for (int d = 0; d < nd; d++) it->strides[i][d] *= es;
  }
  it->ndim = nd;
}

// Moves the odometer `n` elements on from a position with idx[0] + n <=
// shape[0], carrying into the outer axes. Each operand pointer moves once,
// by its net delta (a step adds the axis's stride, a carry takes back the
// whole axis), so it never leaves the tensor's elements; the delta is a
// scalar per operand (summing the moves in an array let the compiler
// combine them with vector loads of freshly stored scalars: a stalled store
// forward on every run).
static void tfr_cpu_iter_advance(const tfr_cpu_iter *it, int64_t *idx, char **ptrs, int64_t n) {
  int carries = 0;
  idx[0] += n;
  while (carries < it->ndim - 1 && idx[carries] == it->shape[carries]) {
    idx[carries] = 0;
    idx[++carries]++;
  }
  for (int i = 0; i < it->nops; i++) {
    const int64_t *st = it->strides[i];
    int64_t delta = n * st[0];
    for (int d = 0; d < carries; d++) delta += st[d + 1] - it->shape[d] * st[d];
    ptrs[i] += delta;
  }
}

// Runs the elements [begin, end) in iteration order. Whole runs of axis 0
// go row by row along axis 1 with one add per operand between them:
// networks with many axes of extent 2 to 7 give inner runs of a few
// elements, where the odometer's bookkeeping per run took most of the time.
static void tfr_cpu_iter_range(const tfr_cpu_iter *it, int64_t begin, int64_t end,
                               tfr_cpu_inner_fn fn, const void *ctx) {
  int64_t idx[TFR_MAX_RANK];
  int64_t rem = begin;
  for (int d = 0; d < it->ndim; d++) {
    idx[d] = rem % it->shape[d];
    rem /= it->shape[d];
  }
  int nops = it->nops, ndim = it->ndim;
  char *ptrs[TFR_CPU_MAX_OPERANDS];
  int64_t inner[TFR_CPU_MAX_OPERANDS], row[TFR_CPU_MAX_OPERANDS];
  for (int i = 0; i < nops; i++) {
    char *p = it->base[i];
    for (int d = 0; d < ndim; d++) p += idx[d] * it->strides[i][d];
    ptrs[i] = p;
    inner[i] = it->strides[i][0];
    row[i] = ndim > 1 ? it->strides[i][1] : 0;
  }
  int64_t n0 = it->shape[0], pos = begin;
  while (pos < end) {
    int64_t n = n0 - idx[0];
    if (idx[0] == 0 && ndim > 1 && end - pos >= 2 * n0 && idx[1] + 1 < it->shape[1]) {
      // Whole rows, to the end of axis 1 or of the range; the pointers
      // move only between rows.
      int64_t rows = it->shape[1] - idx[1];
      if (rows > (end - pos) / n0) rows = (end - pos) / n0;
      for (int64_t r = 1;; r++) {
        fn(n0, ptrs, inner, ctx);
        if (r == rows) break;
        for (int i = 0; i < nops; i++) ptrs[i] += row[i];
      }
      idx[1] += rows - 1;
      pos += (rows - 1) * n0;
    } else {
      // One run, or the part of one where a thread's range starts or ends.
      if (n > end - pos) n = end - pos;
      fn(n, ptrs, inner, ctx);
    }
    pos += n;
    if (pos >= end) break;
    tfr_cpu_iter_advance(it, idx, ptrs, n);
  }
}

void tfr_cpu_iter_run(const tfr_cpu_iter *it, tfr_cpu_inner_fn fn, const void *ctx,
                      int num_threads) {
  int64_t total = it->numel;
  if (total == 0) return;
  int nt = tfr_cpu_threads_for(num_threads, total);
  if (nt <= 1) {
    tfr_cpu_iter_range(it, 0, total, fn, ctx);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    // Chunks are multiples of 64 elements so threads do not share cache lines.
    int64_t chunk = ((total + n - 1) / n + 63) & ~(int64_t)63;
    int64_t begin = (int64_t)t * chunk, end = begin + chunk;
    if (end > total) end = total;
    if (begin < end) tfr_cpu_iter_range(it, begin, end, fn, ctx);
  }
#else
  tfr_cpu_iter_range(it, 0, total, fn, ctx);
#endif
}
