// The one elementwise kernel generator of the webgpu backend: single
// elementwise ops (a plan of one instruction) and fused plans alike run as
// one generated WGSL kernel (ew_kernel.c describes the kernels, layouts and
// bindings).
#ifndef TENFERRO_SRC_WEBGPU_EW_KERNEL_H_
#define TENFERRO_SRC_WEBGPU_EW_KERNEL_H_

#include "core/backend_impl.h"
#include "webgpu/wgpu.h"

// Runs plan `p` (include/tenferro/fusion.h semantics) on the device.
//   what     the op's name (or "fusion"): the prefix of every message.
//   inputs   p->num_inputs tensors of the result's shape (broadcast inputs
//            are stride-0 views), any strides; an input may share an output's
//            buffer (in place, or a disjoint view): it is then read through
//            the output's binding, or from a copy when its dtype differs.
//   outputs  p->num_outputs tensors of the result's shape, any strides
//            without self-overlap, the dtypes of the plan's output values.
// Every dtype of the plan must have kernels (tfr_wgpu_dtype_computes with
// TFR_WGPU_ELEMENTWISE): the callers check and word the refusal.
// Errors: TFR_ERR_INTERNAL (an instruction without an op-table entry, a
//         device with too few storage buffers per stage), the device's
//         errors (lost device, out of memory), TFR_ERR_INVALID_ARGUMENT (an
//         axis of 2^31 or more strided elements), TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_wgpu_ew_run(tfr_wgpu_backend *b, const char *what, const tfr_fusion_plan *p,
                           const tfr_tensor *const *inputs, tfr_tensor *const *outputs);

#endif  // TENFERRO_SRC_WEBGPU_EW_KERNEL_H_
