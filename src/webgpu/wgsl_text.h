// The text buffer of every WGSL generator (template expansion, the
// elementwise and fused kernels, the GEMM's register code).
#ifndef TENFERRO_SRC_WEBGPU_WGSL_TEXT_H_
#define TENFERRO_SRC_WEBGPU_WGSL_TEXT_H_

#include <stdbool.h>
#include <stddef.h>

#include "core/core.h"

// Generated source, grown on the heap up to `limit` bytes (0: no limit):
// `overflow` when the text would exceed it, `failed` after an allocation or
// format failure (then the text stays as it was). Start from {0} or
// {.limit = N}; `buf` stays NULL until something is written.
typedef struct tfr_wgsl_text {
  char *buf;
  size_t len, cap, limit;
  bool overflow, failed;
} tfr_wgsl_text;

void tfr_wgsl_put(tfr_wgsl_text *t, const char *fmt, ...) TFR_PRINTF(2, 3);
// Appends s[n].
void tfr_wgsl_append(tfr_wgsl_text *t, const char *s, size_t n);
void tfr_wgsl_text_free(tfr_wgsl_text *t);

#endif  // TENFERRO_SRC_WEBGPU_WGSL_TEXT_H_
