// tril/triu and iota (structural.c).
#ifndef TENFERRO_SRC_WEBGPU_STRUCTURAL_H_
#define TENFERRO_SRC_WEBGPU_STRUCTURAL_H_

#include "webgpu/wgpu.h"

// `d->out` compact, freshly allocated.
tfr_status tfr_wgpu_triangle(tfr_wgpu_backend *b, const tfr_structural_desc *d);
tfr_status tfr_wgpu_iota(tfr_wgpu_backend *b, const tfr_structural_desc *d);

#endif  // TENFERRO_SRC_WEBGPU_STRUCTURAL_H_
