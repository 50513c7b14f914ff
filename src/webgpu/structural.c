// webgpu structural kernels besides copy/convert (copy.c): tril/triu and
// iota. Both write a compact result the core has just allocated.
//   * tril/triu: the copy kernels copy the operand (any view) into the
//     result, then triangle.wgsl zeroes what lies outside the triangle. The
//     elements move by size, so every dtype works.
//   * iota: iota.wgsl computes each element's index along iota_dimension and
//     converts it, for f32, i32, bool, c64, f64 (common/f64.wgsl, exact), i64,
//     u64, u32, i8, i16, u8 and u16 (the low bits of the index), f16 and
//     bf16 (rounded once).
#include <stdio.h>
#include <string.h>

#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/structural.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_types.h"

#define TFR_WGPU_STRUCT_WG 256
#define TFR_WGPU_STRUCT_EPT 4
// Elements per dispatch: i = group * WG * EPT + ... stays in u32.
#define TFR_WGPU_STRUCT_MAX (INT64_C(1) << 31)

// The window of the compact result `out` and the number of workgroups.
static tfr_status tfr_wgpu_struct_target(tfr_wgpu_backend *b, const char *op, tfr_tensor *out,
                                         tfr_wgpu_binding *bind, uint32_t *rel,
                                         uint64_t *groups) {
  if (out->numel >= TFR_WGPU_STRUCT_MAX)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: webgpu: a result of %" PRId64 " elements exceeds the 2^31 elements "
                     "one dispatch handles",
                     op, out->numel);
  TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, "result", out, (int64_t)tfr_dtype_size(out->dtype),
                                      out->offset, 0, out->numel - 1, bind, rel));
  uint64_t per = (uint64_t)TFR_WGPU_STRUCT_WG * TFR_WGPU_STRUCT_EPT;
  *groups = ((uint64_t)out->numel + per - 1) / per;
  return TFR_OK;
}

typedef struct tfr_wgpu_triangle_params {
  uint32_t numel, rows, cols, upper;
  int32_t k;
  uint32_t dst_offset, pad0, pad1;
} tfr_wgpu_triangle_params;

tfr_status tfr_wgpu_triangle(tfr_wgpu_backend *b, const tfr_structural_desc *d) {
  const char *op = d->upper ? "triu" : "tril";
  tfr_tensor *out = d->out;
  if (out->numel == 0) return TFR_OK;
  // Elements by their bits (1- and 2-byte types share words: atomic stores).
  const tfr_wgsl_type *t = tfr_wgsl_bits_of(tfr_dtype_size(out->dtype));
  if (!tfr_wgpu_dtype_computes(TFR_WGPU_TRIANGLE, out->dtype) || !t)
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: dtype %s is not supported on the webgpu backend",
                     op, tfr_dtype_name(out->dtype));
  char zero[24], store[96];
  if (t->per_word || t->size == 4) snprintf(zero, sizeof zero, "0u");
  else snprintf(zero, sizeof zero, "%s(0u)", t->bits);
  tfr_wgsl_store(t, "k", zero, store, sizeof store);
  tfr_wgpu_binding bind;
  uint32_t rel;
  uint64_t groups = 0;
  TFR_RETURN_IF_ERROR(tfr_wgpu_struct_target(b, op, out, &bind, &rel, &groups));
  char variant[64];
  snprintf(variant, sizeof variant, "triangle[%s]", t->bits_tag);
  const char *snippets[] = {"common/bytes.wgsl", NULL};
  tfr_wgsl_subst subst[] = {{"DST_ARRAY", t->write_array}, {"STORE_ZERO", store}};
  tfr_wgsl_override ov[] = {{"WG", TFR_WGPU_STRUCT_WG}, {"EPT", TFR_WGPU_STRUCT_EPT}};
  tfr_wgsl_variant v = {variant, "triangle.wgsl", t->per_word ? snippets : NULL, subst, 2, ov, 2, 0, 1};
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_wgpu_pipeline_get(b, &v, &pipeline));

  TFR_RETURN_IF_ERROR(tfr_wgpu_copy(b, op, d->in, out));
  int r = out->rank;
  int64_t rows = out->shape[r - 2], cols = out->shape[r - 1];
  // Past these bounds every k means the same: nothing or everything kept.
  int64_t k = d->k;
  if (k < -rows - 1) k = -rows - 1;
  if (k > cols + 1) k = cols + 1;
  tfr_wgpu_triangle_params P = {(uint32_t)out->numel, (uint32_t)rows, (uint32_t)cols,
                                d->upper ? 1u : 0u, (int32_t)k, rel, 0, 0};
  return tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, &bind, 0, 1, groups);
}

typedef struct tfr_wgpu_iota_params {
  uint32_t numel, inner, extent, dst_offset;
} tfr_wgpu_iota_params;

tfr_status tfr_wgpu_iota(tfr_wgpu_backend *b, const tfr_structural_desc *d) {
  tfr_tensor *out = d->out;
  if (!tfr_wgpu_dtype_computes(TFR_WGPU_IOTA, out->dtype))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "iota: dtype %s is not supported on the webgpu backend (it makes bool, the "
                     "integers, f32, f64, c64 and c128)",
                     tfr_dtype_name(out->dtype));
  const tfr_wgsl_type *t = tfr_wgsl_type_of(out->dtype);
  // The index v (u32) as a value. The narrow integers keep its low bits (the
  // store narrows: wgsl_types.h), as the cpu's cast from the i64 index.
  bool narrow_s = out->dtype == TFR_I8 || out->dtype == TFR_I16;
  bool narrow_u = out->dtype == TFR_U8 || out->dtype == TFR_U16 || out->dtype == TFR_U32;
  // f16 / bf16: rounded once (common/half.wgsl; through f32 rounded to odd).
  const char *convert = out->dtype == TFR_F32   ? "f32(v)"
                        : out->dtype == TFR_F16 ? "tfr_round_f16(tfr_u64_to_f32_odd(vec2<u32>(v, 0u)))"
                        : out->dtype == TFR_BF16
                            ? "tfr_round_bf16(tfr_u64_to_f32_odd(vec2<u32>(v, 0u)))"
                        : narrow_s ? "bitcast<i32>(v)"
                        : narrow_u ? "v"
                        : out->dtype == TFR_I32 ? "i32(v)"
                        : out->dtype == TFR_BOOL ? "select(0u, 1u, v != 0u)"
                        : out->dtype == TFR_F64  ? "tfr_f64_from_u32(v)"
                        : out->dtype == TFR_C128 ? "vec4<u32>(tfr_f64_from_u32(v), 0u, 0u)"
                        : out->dtype == TFR_I64 || out->dtype == TFR_U64 ? "vec2<u32>(v, 0u)"
                                                 : "vec2<f32>(f32(v), 0.0)";
  char store[96];
  tfr_wgsl_store(t, "k", "val", store, sizeof store);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "iota"));
  if (out->numel == 0) return TFR_OK;
  int64_t inner = 1;
  for (int k = d->iota_dimension + 1; k < out->rank; k++) inner *= out->shape[k];
  tfr_wgpu_binding bind;
  uint32_t rel;
  uint64_t groups = 0;
  TFR_RETURN_IF_ERROR(tfr_wgpu_struct_target(b, "iota", out, &bind, &rel, &groups));
  char variant[64];
  snprintf(variant, sizeof variant, "iota[%s]", tfr_dtype_name(out->dtype));
  const char *bytes[] = {"common/bytes.wgsl", NULL};
  const char *half[] = {"common/bytes.wgsl", "common/half.wgsl", NULL};
  const char *f64[] = {"common/u64.wgsl", "common/f64.wgsl", NULL};
  tfr_wgsl_subst subst[] = {
      {"DST_ARRAY", t->write_array}, {"VALUE_T", t->value}, {"CONVERT", convert}, {"STORE", store}};
  tfr_wgsl_override ov[] = {{"WG", TFR_WGPU_STRUCT_WG}, {"EPT", TFR_WGPU_STRUCT_EPT}};
  tfr_wgsl_variant v = {variant,
                        "iota.wgsl",
                        out->dtype == TFR_F16 || out->dtype == TFR_BF16 ? half
                        : t->per_word                                      ? bytes
                        : out->dtype == TFR_F64 || out->dtype == TFR_C128   ? f64
                                                                            : NULL,
                        subst,
                        4,
                        ov,
                        2,
                        0,
                        1};
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_wgpu_pipeline_get(b, &v, &pipeline));
  tfr_wgpu_iota_params P = {(uint32_t)out->numel, (uint32_t)inner,
                            (uint32_t)out->shape[d->iota_dimension], rel};
  return tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, &bind, 0, 1, groups);
}

// The vtable's structural entry: convert (copy.c), tril/triu, iota,
// reduce_precision (copy.c).
tfr_status tfr_wgpu_structural(tfr_backend *base, const tfr_structural_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  switch (d->kind) {
    case TFR_STRUCT_CONVERT:
      return tfr_wgpu_copy(b, d->in->dtype == d->out->dtype ? "copy" : "convert", d->in, d->out);
    case TFR_STRUCT_TRIANGLE: return tfr_wgpu_triangle(b, d);
    case TFR_STRUCT_IOTA: return tfr_wgpu_iota(b, d);
    case TFR_STRUCT_REDUCE_PRECISION: return tfr_wgpu_reduce_precision(b, d);
  }
  return tfr_error(TFR_ERR_INTERNAL, "webgpu: structural op kind %d is unknown", (int)d->kind);
}
