// The WGSL type layer (see wgsl_types.h).
#include "webgpu/wgsl_types.h"

#include <stdio.h>

// tag, value, storage, vec, per_vec, size, per_word, mask, emulated, bits_tag, bits
#define T(tag, value, storage, wr, vec, per_vec, size, per_word, mask, emulated, bits_tag, bits) \
  {tag,  value, storage, "array<" storage ">", wr, vec, "array<" vec ">", per_vec, size,         \
   per_word, mask, emulated, bits_tag, bits}
#define SUB8(tag) T(tag, "u32", "u32", "array<atomic<u32>>", "u32", 4, 1, 4, 0xffu, false, "u8", "u32")
#define SUB16(tag) \
  T(tag, "u32", "u32", "array<atomic<u32>>", "u32", 2, 2, 2, 0xffffu, false, "u16", "u32")
#define WORD(tag, t) T(tag, t, t, "array<" t ">", "vec4<" t ">", 4, 4, 0, 0u, false, "u32", "u32")
#define WIDE(tag)                                                                            \
  T(tag, "vec2<u32>", "vec2<u32>", "array<vec2<u32>>", "vec4<u32>", 2, 8, 0, 0u, true, "u32x2", \
    "vec2<u32>")

static const tfr_wgsl_type tfr_wgsl_types[TFR_DTYPE_COUNT] = {
    [TFR_BOOL] = SUB8("bool"),
    [TFR_I8] = SUB8("i8"),
    [TFR_U8] = SUB8("u8"),
    [TFR_I16] = SUB16("i16"),
    [TFR_U16] = SUB16("u16"),
    [TFR_F16] = SUB16("f16"),
    [TFR_BF16] = SUB16("bf16"),
    [TFR_I32] = WORD("i32", "i32"),
    [TFR_U32] = WORD("u32", "u32"),
    [TFR_F32] = WORD("f32", "f32"),
    [TFR_I64] = WIDE("i64"),
    [TFR_U64] = WIDE("u64"),
    [TFR_F64] = WIDE("f64"),
    [TFR_C64] = T("c64", "vec2<f32>", "vec2<f32>", "array<vec2<f32>>", "vec4<f32>", 2, 8, 0, 0u,
                  false, "u32x2", "vec2<u32>"),
    [TFR_C128] = T("c128", "vec4<u32>", "vec4<u32>", "array<vec4<u32>>", "vec4<u32>", 1, 16, 0,
                   0u, true, "u32x4", "vec4<u32>"),
};

#undef T
#undef SUB8
#undef SUB16
#undef WORD
#undef WIDE

const tfr_wgsl_type *tfr_wgsl_type_of(tfr_dtype dt) {
  return (unsigned)dt < TFR_DTYPE_COUNT ? &tfr_wgsl_types[dt] : NULL;
}

const tfr_wgsl_type *tfr_wgsl_bits_of(size_t size) {
  switch (size) {
    case 1: return &tfr_wgsl_types[TFR_U8];
    case 2: return &tfr_wgsl_types[TFR_U16];
    case 4: return &tfr_wgsl_types[TFR_U32];
    case 8: return &tfr_wgsl_types[TFR_U64];
    case 16: return &tfr_wgsl_types[TFR_C128];
    default: return NULL;
  }
}

const char *tfr_wgsl_load(const tfr_wgsl_type *t, const char *arr, const char *idx, char *buf,
                          size_t cap) {
  if (t->per_word == 4)
    snprintf(buf, cap, "((%s[%s >> 2u] >> ((%s & 3u) * 8u)) & 0xffu)", arr, idx, idx);
  else if (t->per_word == 2)
    snprintf(buf, cap, "((%s[%s >> 1u] >> ((%s & 1u) * 16u)) & 0xffffu)", arr, idx, idx);
  else
    snprintf(buf, cap, "%s[%s]", arr, idx);
  return buf;
}

const char *tfr_wgsl_load_dst(const tfr_wgsl_type *t, const char *idx, char *buf, size_t cap) {
  if (t->per_word == 4)
    snprintf(buf, cap, "((atomicLoad(&dst[%s >> 2u]) >> ((%s & 3u) * 8u)) & 0xffu)", idx, idx);
  else if (t->per_word == 2)
    snprintf(buf, cap, "((atomicLoad(&dst[%s >> 1u]) >> ((%s & 1u) * 16u)) & 0xffffu)", idx, idx);
  else
    snprintf(buf, cap, "dst[%s]", idx);
  return buf;
}

const char *tfr_wgsl_store(const tfr_wgsl_type *t, const char *idx, const char *val, char *buf,
                           size_t cap) {
  if (t->per_word == 4) snprintf(buf, cap, "tfr_store_u8(%s, %s)", idx, val);
  else if (t->per_word == 2) snprintf(buf, cap, "tfr_store_u16(%s, %s)", idx, val);
  else snprintf(buf, cap, "dst[%s] = %s", idx, val);
  return buf;
}
