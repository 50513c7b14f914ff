// The WGSL type layer (see wgsl_types.h).
#include "webgpu/wgsl_types.h"

#include <stdio.h>
#include <string.h>

// tag, value, storage, vec, per_vec, size, per_word, mask, emulated, bits_tag, bits
// (widen and narrow: NULL, the value is the bits)
#define T(tag, value, storage, wr, vec, per_vec, size, per_word, mask, emulated, bits_tag, bits) \
  {tag,  value, storage, "array<" storage ">", wr, vec, "array<" vec ">", per_vec, size,         \
   per_word, mask, emulated, bits_tag, bits, NULL, NULL}
// Sub-word elements with value type `value`, made from the bits by `widen`
// and back by `narrow`.
#define SUBW(tag, value, size, per_word, mask, bits_tag, widen, narrow)                        \
  {tag,  value,   "u32",   "array<u32>", "array<atomic<u32>>", "u32", "array<u32>", per_word, \
   size, per_word, mask, false, bits_tag, "u32", widen, narrow}
#define SUB8(tag) SUBW(tag, "u32", 1, 4, 0xffu, "u8", NULL, NULL)
#define SUB16(tag) SUBW(tag, "u32", 2, 2, 0xffffu, "u16", NULL, NULL)
// f16 / bf16: f32, widened exactly and stored exactly (common/half.wgsl).
#define HALF(tag) \
  SUBW(tag, "f32", 2, 2, 0xffffu, "u16", "tfr_" tag "_to_f32(%s)", "tfr_" tag "_bits(%s)")
// i8 / i16: i32 sign-extended from the element's top bit.
#define SIGNED_SUB(tag, size, per_word, mask, bits_tag, up)                                     \
  SUBW(tag, "i32", size, per_word, mask, bits_tag, "((bitcast<i32>(%s) << " up ") >> " up ")", \
       "bitcast<u32>(%s)")
#define WORD(tag, t) T(tag, t, t, "array<" t ">", "vec4<" t ">", 4, 4, 0, 0u, false, "u32", "u32")
#define WIDE(tag)                                                                            \
  T(tag, "vec2<u32>", "vec2<u32>", "array<vec2<u32>>", "vec4<u32>", 2, 8, 0, 0u, true, "u32x2", \
    "vec2<u32>")

static const tfr_wgsl_type tfr_wgsl_types[TFR_DTYPE_COUNT] = {
    [TFR_BOOL] = SUB8("bool"),
    [TFR_I8] = SIGNED_SUB("i8", 1, 4, 0xffu, "u8", "24u"),
    [TFR_U8] = SUB8("u8"),
    [TFR_I16] = SIGNED_SUB("i16", 2, 2, 0xffffu, "u16", "16u"),
    [TFR_U16] = SUB16("u16"),
    [TFR_F16] = HALF("f16"),
    [TFR_BF16] = HALF("bf16"),
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
#undef SUBW
#undef SUB8
#undef SUB16
#undef SIGNED_SUB
#undef HALF
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

// `form` with its one "%s" replaced by `arg`.
static const char *tfr_wgsl_apply(const char *form, const char *arg, char *buf, size_t cap) {
  const char *at = strstr(form, "%s");
  snprintf(buf, cap, "%.*s%s%s", (int)(at - form), form, arg, at + 2);
  return buf;
}

const char *tfr_wgsl_widen(const tfr_wgsl_type *t, const char *bits, char *buf, size_t cap) {
  return t->widen ? tfr_wgsl_apply(t->widen, bits, buf, cap) : bits;
}

const char *tfr_wgsl_narrow(const tfr_wgsl_type *t, const char *val, char *buf, size_t cap) {
  return t->narrow ? tfr_wgsl_apply(t->narrow, val, buf, cap) : val;
}

// The element's bits in word `word` (an expression), widened.
static const char *tfr_wgsl_sub_load(const tfr_wgsl_type *t, const char *word, const char *idx,
                                     char *buf, size_t cap) {
  char bits[256];
  if (t->per_word == 4)
    snprintf(bits, sizeof bits, "((%s >> ((%s & 3u) * 8u)) & 0xffu)", word, idx);
  else
    snprintf(bits, sizeof bits, "((%s >> ((%s & 1u) * 16u)) & 0xffffu)", word, idx);
  if (!t->widen) snprintf(buf, cap, "%s", bits);
  else tfr_wgsl_apply(t->widen, bits, buf, cap);
  return buf;
}

const char *tfr_wgsl_load(const tfr_wgsl_type *t, const char *arr, const char *idx, char *buf,
                          size_t cap) {
  char word[96];
  if (!t->per_word) {
    snprintf(buf, cap, "%s[%s]", arr, idx);
    return buf;
  }
  snprintf(word, sizeof word, "%s[%s >> %s]", arr, idx, t->per_word == 4 ? "2u" : "1u");
  return tfr_wgsl_sub_load(t, word, idx, buf, cap);
}

const char *tfr_wgsl_load_dst(const tfr_wgsl_type *t, const char *idx, char *buf, size_t cap) {
  char word[96];
  if (!t->per_word) {
    snprintf(buf, cap, "dst[%s]", idx);
    return buf;
  }
  snprintf(word, sizeof word, "atomicLoad(&dst[%s >> %s])", idx, t->per_word == 4 ? "2u" : "1u");
  return tfr_wgsl_sub_load(t, word, idx, buf, cap);
}

const char *tfr_wgsl_store(const tfr_wgsl_type *t, const char *idx, const char *val, char *buf,
                           size_t cap) {
  char bits[160];
  if (t->per_word) val = tfr_wgsl_narrow(t, val, bits, sizeof bits);
  if (t->per_word == 4) snprintf(buf, cap, "tfr_store_u8(%s, %s)", idx, val);
  else if (t->per_word == 2) snprintf(buf, cap, "tfr_store_u16(%s, %s)", idx, val);
  else snprintf(buf, cap, "dst[%s] = %s", idx, val);
  return buf;
}
