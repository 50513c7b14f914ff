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

// Runs the elements [begin, end) in iteration order. The operand pointers
// follow the odometer incrementally (a step adds the axis's stride, a carry
// takes back the whole axis): networks with many axes of extent 2 or 3 give
// inner runs of a few elements, where recomputing every pointer from the
// full index (operands x axes multiply-adds per run) took most of the time.
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
  int64_t inner[TFR_CPU_MAX_OPERANDS];
  for (int i = 0; i < nops; i++) {
    char *p = it->base[i];
    for (int d = 0; d < ndim; d++) p += idx[d] * it->strides[i][d];
    ptrs[i] = p;
    inner[i] = it->strides[i][0];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t n = it->shape[0] - idx[0];
    if (n > end - pos) n = end - pos;
    fn(n, ptrs, inner, ctx);
    pos += n;
    if (pos >= end) break;
    // The next run's first element: one move per operand (the pointers
    // never leave the tensors' elements).
    int64_t delta[TFR_CPU_MAX_OPERANDS];
    idx[0] += n;
    for (int i = 0; i < nops; i++) delta[i] = n * inner[i];
    for (int d = 0; d < ndim - 1 && idx[d] == it->shape[d]; d++) {
      idx[d] = 0;
      idx[d + 1]++;
      for (int i = 0; i < nops; i++)
        delta[i] += it->strides[i][d + 1] - it->shape[d] * it->strides[i][d];
    }
    for (int i = 0; i < nops; i++) ptrs[i] += delta[i];
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
