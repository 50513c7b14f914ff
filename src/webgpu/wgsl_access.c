// The access-function generator of the generated elementwise kernels
// (wgsl_access.h).
#include "webgpu/wgsl_access.h"

#include <stdio.h>

static bool tfr_wgsl_vec(const tfr_wgsl_operand *o) {
  return o->compact && (o->mode == TFR_WGSL_CHUNK || o->mode == TFR_WGSL_TILE_CHUNK);
}

const char *tfr_wgsl_operand_array(const tfr_wgsl_operand *o, bool written) {
  if (written && o->type->per_word) return "array<atomic<u32>>";
  return tfr_wgsl_vec(o) ? o->type->vec_array : o->type->array;
}

void tfr_wgsl_put_input(tfr_wgsl_text *t, const tfr_wgsl_operand *o) {
  const tfr_wgsl_type *ty = o->type;
  const char *s = o->suffix, *v = ty->value, *off = o->off;
  bool vec = tfr_wgsl_vec(o), sub = ty->per_word != 0, pair = ty->size == 8;
  const char *entry = sub ? "u32" : vec ? ty->vec : v;
  if (sub && o->output_binding)
    tfr_wgsl_put(t, "fn w%s(w: u32) -> u32 { return atomicLoad(&%s[w]); }\n", s, o->array);
  else
    tfr_wgsl_put(t, "fn w%s(w: u32) -> %s { return %s[w]; }\n", s, entry, o->array);
  char val[160];
  if (sub) {
    // The element's bits (u32) and its value (wgsl_types.h's widen).
    bool b8 = ty->per_word == 4;
    tfr_wgsl_put(t, "fn bits%s(j: u32) -> u32 { return (w%s(j >> %s) >> ((j & %s) * %s)) & 0x%xu; }\n",
                 s, s, b8 ? "2u" : "1u", b8 ? "3u" : "1u", b8 ? "8u" : "16u", ty->mask);
    tfr_wgsl_put(t, "fn val%s(x: u32) -> %s { return %s; }\n", s, v,
                 tfr_wgsl_widen(ty, "x", val, sizeof val));
    tfr_wgsl_put(t, "fn raw%s(j: u32) -> %s { return val%s(bits%s(j)); }\n", s, v, s, s);
  } else if (!vec)
    tfr_wgsl_put(t, "fn raw%s(j: u32) -> %s { return w%s(j); }\n", s, v, s);
  else if (pair)
    tfr_wgsl_put(t,
                 "fn raw%s(j: u32) -> %s { let v = w%s(j >> 1u); "
                 "return select(v.xy, v.zw, (j & 1u) != 0u); }\n",
                 s, v, s);
  else
    tfr_wgsl_put(t, "fn raw%s(j: u32) -> %s { return w%s(j >> 2u)[j & 3u]; }\n", s, v, s);
  if (!o->compact) return;
  switch (o->mode) {
    case TFR_WGSL_BCAST:
      tfr_wgsl_put(t, "fn ld%s(i: u32) -> %s { return raw%s(%s); }\n", s, v, s, off);
      tfr_wgsl_put(t,
                   "fn ldc%s(c: u32) -> array<%s, 4> { let v = raw%s(%s); "
                   "return array<%s, 4>(v, v, v, v); }\n",
                   s, v, s, off, v);
      break;
    case TFR_WGSL_REPEAT:  // the 4 elements of a chunk share one
      tfr_wgsl_put(t, "fn ld%s(i: u32) -> %s { return raw%s(%s + (i / %s) %% %s); }\n", s, v, s,
                   off, o->rep, o->per);
      tfr_wgsl_put(t,
                   "fn ldc%s(c: u32) -> array<%s, 4> { let v = ld%s(c * 4u); "
                   "return array<%s, 4>(v, v, v, v); }\n",
                   s, v, s, v);
      break;
    case TFR_WGSL_SCALAR:
    case TFR_WGSL_TILE: {
      char i[96] = "i", c4[96] = "c * 4u";
      if (o->mode == TFR_WGSL_TILE) {
        snprintf(i, sizeof i, "i %% %s", o->per);
        snprintf(c4, sizeof c4, "(c * 4u) %% %s", o->per);
      }
      tfr_wgsl_put(t, "fn ld%s(i: u32) -> %s { return raw%s(%s + %s); }\n", s, v, s, off, i);
      tfr_wgsl_put(t,
                   "fn ldc%s(c: u32) -> array<%s, 4> { let j = %s + %s; "
                   "return array<%s, 4>(raw%s(j), raw%s(j + 1u), raw%s(j + 2u), raw%s(j + 3u)); }\n",
                   s, v, off, c4, v, s, s, s, s);
      break;
    }
    default: {  // TFR_WGSL_CHUNK, TFR_WGSL_TILE_CHUNK: chunk `c` of the run is w(off + c)
      bool tile = o->mode == TFR_WGSL_TILE_CHUNK;
      char i[96] = "i", c[96] = "c";
      if (tile) {
        snprintf(i, sizeof i, "i %% (%s * 4u)", o->per);
        snprintf(c, sizeof c, "(c %% %s)", o->per);
      }
      tfr_wgsl_put(t, "fn ld%s(i: u32) -> %s { return raw%s(%s * 4u + %s); }\n", s, v, s, off, i);
      if (sub && ty->per_word == 4)  // a chunk is one word
        tfr_wgsl_put(t,
                     "fn ldc%s(c: u32) -> array<%s, 4> { let w = w%s(%s + %s); "
                     "return array<%s, 4>(val%s(w & 0xffu), val%s((w >> 8u) & 0xffu), "
                     "val%s((w >> 16u) & 0xffu), val%s(w >> 24u)); }\n",
                     s, v, s, off, c, v, s, s, s, s);
      else if (sub)  // two words
        tfr_wgsl_put(t,
                     "fn ldc%s(c: u32) -> array<%s, 4> { let q = (%s + %s) * 2u; "
                     "let u = w%s(q); let w = w%s(q + 1u); "
                     "return array<%s, 4>(val%s(u & 0xffffu), val%s(u >> 16u), "
                     "val%s(w & 0xffffu), val%s(w >> 16u)); }\n",
                     s, v, off, c, s, s, v, s, s, s, s);
      else if (pair)
        tfr_wgsl_put(t,
                     "fn ldc%s(c: u32) -> array<%s, 4> { let q = (%s + %s) * 2u; "
                     "let u = w%s(q); let w = w%s(q + 1u); "
                     "return array<%s, 4>(u.xy, u.zw, w.xy, w.zw); }\n",
                     s, v, off, c, s, s, v);
      else
        tfr_wgsl_put(t,
                     "fn ldc%s(c: u32) -> array<%s, 4> { let v = w%s(%s + %s); "
                     "return array<%s, 4>(v.x, v.y, v.z, v.w); }\n",
                     s, v, s, off, c, v);
      break;
    }
  }
}

void tfr_wgsl_put_output(tfr_wgsl_text *t, const tfr_wgsl_operand *o) {
  const tfr_wgsl_type *ty = o->type;
  const char *s = o->suffix, *v = ty->value, *a = o->array, *off = o->off;
  bool vec = tfr_wgsl_vec(o), sub = ty->per_word != 0, pair = ty->size == 8;
  // nar<s>(v): the bits of a sub-word value (wgsl_types.h's narrow), masked.
  // rawst<s>(j, v): store at window element index j. Packed elements share
  // words with neighbours: clear and set the element's bits with two atomics,
  // each touching only its bits.
  if (sub) {
    char bits[160];
    bool b8 = ty->per_word == 4;
    tfr_wgsl_put(t, "fn nar%s(v: %s) -> u32 { return (%s) & 0x%xu; }\n", s, v,
                 tfr_wgsl_narrow(ty, "v", bits, sizeof bits), ty->mask);
    tfr_wgsl_put(t,
                 "fn rawst%s(j: u32, v: %s) { let w = j >> %s; let s = (j & %s) * %s; "
                 "atomicAnd(&%s[w], ~(0x%xu << s)); atomicOr(&%s[w], nar%s(v) << s); }\n",
                 s, v, b8 ? "2u" : "1u", b8 ? "3u" : "1u", b8 ? "8u" : "16u", a, ty->mask, a, s);
  } else if (!vec)
    tfr_wgsl_put(t, "fn rawst%s(j: u32, v: %s) { %s[j] = v; }\n", s, v, a);
  else if (pair)
    tfr_wgsl_put(t,
                 "fn rawst%s(j: u32, v: %s) { let q = j >> 1u; let h = (j & 1u) * 2u; "
                 "%s[q][h] = v.x; %s[q][h + 1u] = v.y; }\n",
                 s, v, a, a);
  else
    tfr_wgsl_put(t, "fn rawst%s(j: u32, v: %s) { %s[j >> 2u][j & 3u] = v; }\n", s, v, a);
  if (!o->compact) return;
  if (!vec) {
    tfr_wgsl_put(t, "fn st%s(i: u32, v: %s) { rawst%s(%s + i, v); }\n", s, v, s, off);
    tfr_wgsl_put(t,
                 "fn stc%s(c: u32, r: array<%s, 4>) { let j = %s + c * 4u; rawst%s(j, r[0]); "
                 "rawst%s(j + 1u, r[1]); rawst%s(j + 2u, r[2]); rawst%s(j + 3u, r[3]); }\n",
                 s, v, off, s, s, s, s);
    return;
  }
  tfr_wgsl_put(t, "fn st%s(i: u32, v: %s) { rawst%s(%s * 4u + i, v); }\n", s, v, s, off);
  if (sub && ty->per_word == 4)  // the chunk's word, whole
    tfr_wgsl_put(t,
                 "fn stc%s(c: u32, r: array<%s, 4>) { atomicStore(&%s[%s + c], "
                 "nar%s(r[0]) | (nar%s(r[1]) << 8u) | (nar%s(r[2]) << 16u) | "
                 "(nar%s(r[3]) << 24u)); }\n",
                 s, v, a, off, s, s, s, s);
  else if (sub)  // its two words
    tfr_wgsl_put(t,
                 "fn stc%s(c: u32, r: array<%s, 4>) { let q = (%s + c) * 2u; "
                 "atomicStore(&%s[q], nar%s(r[0]) | (nar%s(r[1]) << 16u)); "
                 "atomicStore(&%s[q + 1u], nar%s(r[2]) | (nar%s(r[3]) << 16u)); }\n",
                 s, v, off, a, s, s, a, s, s);
  else if (pair)
    tfr_wgsl_put(t,
                 "fn stc%s(c: u32, r: array<%s, 4>) { let q = (%s + c) * 2u; "
                 "%s[q] = %s(r[0], r[1]); %s[q + 1u] = %s(r[2], r[3]); }\n",
                 s, v, off, a, ty->vec, a, ty->vec);
  else
    tfr_wgsl_put(t, "fn stc%s(c: u32, r: array<%s, 4>) { %s[%s + c] = %s(r[0], r[1], r[2], r[3]); }\n",
                 s, v, a, off, ty->vec);
}
