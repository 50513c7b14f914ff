// Fused elementwise plans on the cpu: one pass over memory. Each inner run
// of the strided iterator is cut into blocks of TFR_FUSION_BLOCK elements;
// every instruction runs its ordinary elementwise kernel on the block, reading
// inputs in place and writing to a cache-resident scratch row (or straight
// into an output), so nothing bigger than a block is ever materialised.
#include <string.h>

#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

// 256 elements x 16 bytes x 64 instructions = 256 KiB of scratch at most per
// thread; typical plans (a handful of instructions) stay in L1/L2.
#define TFR_FUSION_BLOCK 256

typedef struct tfr_fusion_ctx {
  const tfr_fusion_plan *plan;
  tfr_cpu_inner_fn fns[TFR_FUSION_MAX_INSTRUCTIONS];
  int output_of[TFR_FUSION_MAX_INSTRUCTIONS];  // first output writing this instruction, or -1
  char *scratch;                               // per thread: num_instructions rows
  size_t scratch_per_thread;
} tfr_fusion_ctx;

static void tfr_fusion_inner(int64_t n, char *const *ptrs, const int64_t *strides,
                             const void *opaque) {
  const tfr_fusion_ctx *c = opaque;
  const tfr_fusion_plan *p = c->plan;
  int nout = p->num_outputs, nin = p->num_inputs;
  int thread = 0;
#ifdef _OPENMP
  thread = omp_get_thread_num();
#endif
  char *scratch = c->scratch + (size_t)thread * c->scratch_per_thread;
  char *vp[TFR_FUSION_MAX_INPUTS + TFR_FUSION_MAX_INSTRUCTIONS];
  int64_t vs[TFR_FUSION_MAX_INPUTS + TFR_FUSION_MAX_INSTRUCTIONS];
  for (int64_t off = 0; off < n; off += TFR_FUSION_BLOCK) {
    int64_t m = n - off < TFR_FUSION_BLOCK ? n - off : TFR_FUSION_BLOCK;
    for (int i = 0; i < nin; i++) {
      vp[i] = ptrs[nout + i] + off * strides[nout + i];
      vs[i] = strides[nout + i];
    }
    for (int k = 0; k < p->num_instructions; k++) {
      const tfr_fusion_instr *in = &p->instr[k];
      int v = nin + k, o = c->output_of[k];
      if (o >= 0) {
        vp[v] = ptrs[o] + off * strides[o];
        vs[v] = strides[o];
      } else {
        vp[v] = scratch + (size_t)k * TFR_FUSION_BLOCK * 16;
        vs[v] = (int64_t)tfr_dtype_size(in->out_dtype);
      }
      char *kp[4] = {vp[v]};
      int64_t ks[4] = {vs[v]};
      for (int q = 0; q < in->num_operands; q++) {
        kp[1 + q] = vp[in->operands[q]];
        ks[1 + q] = vs[in->operands[q]];
      }
      c->fns[k](m, kp, ks, NULL);
    }
    // Outputs not written in place: inputs, or a value listed twice.
    for (int o = 0; o < nout; o++) {
      int v = p->outputs[o];
      char *dst = ptrs[o] + off * strides[o];
      if (vp[v] == dst) continue;
      size_t es = tfr_dtype_size(p->value_dtype[v]);
      for (int64_t i = 0; i < m; i++) memcpy(dst + i * strides[o], vp[v] + i * vs[v], es);
    }
  }
}

tfr_status tfr_cpu_fusion(tfr_backend *b, const tfr_fusion_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  const tfr_fusion_plan *p = d->plan;
  tfr_fusion_ctx c = {.plan = p};
  for (int k = 0; k < p->num_instructions; k++) {
    const tfr_fusion_instr *in = &p->instr[k];
    c.fns[k] = tfr_cpu_elementwise_kernel(in->kind, in->op, in->dtype);
    if (!c.fns[k])
      return tfr_error(TFR_ERR_INTERNAL, "cpu fusion: no kernel for instruction %d", k);
    c.output_of[k] = -1;
    for (int o = 0; o < p->num_outputs && c.output_of[k] < 0; o++)
      if (p->outputs[o] == p->num_inputs + k) c.output_of[k] = o;
  }
  const tfr_tensor *out0 = d->outputs[0];
  if (out0->numel == 0) return TFR_OK;
  c.scratch_per_thread = (size_t)(p->num_instructions ? p->num_instructions : 1) * TFR_FUSION_BLOCK * 16;
  c.scratch = tfr_alloc_aligned(c.scratch_per_thread * (size_t)cpu->num_threads);
  if (!c.scratch) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "cpu fusion: out of host memory");
  const tfr_tensor *ops[TFR_CPU_MAX_OPERANDS];
  int nops = 0;
  for (int o = 0; o < p->num_outputs; o++) ops[nops++] = d->outputs[o];
  for (int i = 0; i < p->num_inputs; i++) ops[nops++] = d->inputs[i];
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, nops, ops);
  tfr_cpu_iter_run(&it, tfr_fusion_inner, &c, cpu->num_threads);
  tfr_free_aligned(c.scratch);
  return TFR_OK;
}
