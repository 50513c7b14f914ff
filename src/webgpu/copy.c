// The first kernel family: copies of strided views to any layout, tiled
// transposition, and `convert` among f32, i32, bool, c64, f64 (in
// software on its bits, common/f64.wgsl), i64 and u64 (on u32 words,
// common/u64.wgsl), c128 (a pair of f64), u32, i8, i16, u8, u16
// (tfr_wgpu_convert_narrow) and f16, bf16 (common/half.wgsl,
// tfr_wgpu_convert_to_half). Plain copies move
// bits by element size (1, 2, 4, 8, 16 bytes), so they serve every dtype.
//
// Planning mirrors src/cpu/strided.c: axes of extent 1 are dropped, the rest
// ordered by the destination's |stride| (innermost first), and neighbours that
// are contiguous in both tensors merged, so a compact copy becomes one long
// axis. Then:
//   * when the source is contiguous along another axis than the destination
//     (a transposition), transpose_tiled.wgsl moves 64 x 64 (or 32 x 32)
//     tiles through workgroup memory so that reads and writes are both
//     coalesced; transpose_vec4.wgsl does the same with 16-byte accesses for
//     4-byte elements whose strides, offsets and extents allow (views whose
//     strides allow but whose offsets or extents do not are cut into an
//     aligned body and thin edges, copied one by one);
//   * otherwise copy_strided.wgsl computes each element's two offsets.
// Kernels take up to 16 axes in their uniform parameters (tiled: the 2 tile
// axes + 14 batch axes); further (outer) axes are iterated here, one dispatch
// per index, which only pathological views need. (With 8, networks of many
// extent-3 axes such as gm_queen5_5_3's 16-axis intermediates took 3^8
// dispatches per copy.)
//
// Each dispatch binds only the window of each buffer its view reaches, so
// indices are window-relative u32 values and a view of a large buffer works as
// long as its own window fits maxStorageBufferBindingSize.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_types.h"

#define TFR_WGPU_KERNEL_RANK 16
// copy_strided: TFR_WGPU_COPY_WG (256) invocations of TFR_WGPU_COPY_EPT (4)
// elements each (wgpu.h; TFR_WEBGPU_COPY_WG / _EPT override them for tuning).
// Four independent accesses per invocation keep more memory requests in
// flight than one. A compact copy (one merged axis, unit strides, same dtype)
// whose byte range and offsets are multiples of 16 moves 16-byte elements
// (vec4<u32>): four times fewer, wider accesses.
#define TFR_WGPU_TILED_BATCH_RANK 14
// Elements per copy_strided dispatch: i = group * WG + lid stays in u32.
#define TFR_WGPU_MAX_DISPATCH_ELEMENTS (INT64_C(1) << 31)

// How an element type is stored and read on the device (from the WGSL type
// layer, wgsl_types.h).
typedef struct tfr_wgpu_elem {
  const char *tag;        // in variant names
  const char *array;      // WGSL type of a source array
  char load[160];         // expression of `j`
  const char *dst_array;
  const char *value_t;    // WGSL type of a value
  char store[96];         // statement storing `val` at `k`
  bool bytes;             // 1- or 2-byte elements (needs common/bytes.wgsl)
} tfr_wgpu_elem;

// Plain copies move bits (`bits`: any dtype, by element size); convert reads
// and writes values.
static void tfr_wgpu_elem_of(const tfr_wgsl_type *t, bool bits, tfr_wgpu_elem *e) {
  e->tag = bits ? t->bits_tag : t->tag;
  e->array = t->array;
  tfr_wgsl_load(t, "src", "j", e->load, sizeof e->load);
  e->dst_array = t->write_array;
  e->value_t = bits ? t->bits : t->value;
  tfr_wgsl_store(t, "k", "val", e->store, sizeof e->store);
  e->bytes = t->per_word != 0;
}

// Expression of `v` (source value) converting to the destination's value
// (DESIGN.md): complex -> real keeps the real part, -> bool is x != 0 (for
// complex: either part), bool (a u32 byte) -> number is 0 or 1. f64 goes
// through common/f64.wgsl on its bits: f32 -> f64 exact, f64 -> f32 rounded
// to nearest even (subnormals both ways, whatever the device does with f32
// subnormal arithmetic), f64 -> i32 toward zero and saturating, NaN -> 0.
// i64 and u64 (common/u64.wgsl) follow C's casts among integers (the low
// word, sign or zero extension, the bits between them), round to nearest
// even to f32 and f64, and take floats through f64 (f32 -> f64 is exact):
// toward zero, saturating, NaN -> 0, negatives -> 0 for u64 (the cpu's
// tfr_sat_i64 / tfr_sat_u64).

// u32, i8, i16, u8, u16: held as i32 (signed) or u32 (wgsl_types.h); their
// width in bits, 0 for the other dtypes.
static int tfr_wgpu_narrow_bits(tfr_dtype dt, bool *is_signed) {
  *is_signed = dt == TFR_I8 || dt == TFR_I16;
  switch (dt) {
    case TFR_I8:
    case TFR_U8: return 8;
    case TFR_I16:
    case TFR_U16: return 16;
    case TFR_U32: return 32;
    default: return 0;
  }
}

// Conversions to and from the narrow integers (one side is one), written to
// `buf`. As the cpu (src/cpu/structural.c): among integers C's casts (the
// low bits of the two's complement value, then sign or zero extension);
// integers to floats round to nearest even (exact but for u32 -> f32, which
// goes through common/u64.wgsl's correctly rounded u64 -> f32); floats to
// integers through f64 (exact from f32) toward zero, saturating at the
// destination's range, NaN -> 0 (tfr_f64_to_i64 / _u64 saturate, then the
// range is clamped); -> bool is x != 0.
static const char *tfr_wgpu_convert_narrow(tfr_dtype from, tfr_dtype to, char *buf, size_t cap) {
  if (from == to) return NULL;
  bool fs, ts;
  int fw = tfr_wgpu_narrow_bits(from, &fs), tw = tfr_wgpu_narrow_bits(to, &ts);
  if (fw) {
    // The source as an integer of another kind: i32 (signed) / u32, i64 words.
    const char *as_i64 = fs ? "tfr_i64_from_i32(v)" : "vec2<u32>(v, 0u)";
    const char *as_f32 = fw < 32 ? "f32(v)" : "tfr_u64_to_f32(vec2<u32>(v, 0u))";
    switch (to) {
      case TFR_BOOL: snprintf(buf, cap, "select(0u, 1u, v != %s)", fs ? "0i" : "0u"); return buf;
      case TFR_I32: return fs ? "v" : "bitcast<i32>(v)";
      case TFR_I64:
      case TFR_U64: return as_i64;
      case TFR_F32: return as_f32;
      case TFR_F64: return fs ? "tfr_f64_from_i32(v)" : "tfr_f64_from_u32(v)";
      case TFR_C64: snprintf(buf, cap, "vec2<f32>(%s, 0.0)", as_f32); return buf;
      case TFR_C128:
        return fs ? "vec4<u32>(tfr_f64_from_i32(v), 0u, 0u)" : "vec4<u32>(tfr_f64_from_u32(v), 0u, 0u)";
      default: break;
    }
    if (!tw) return NULL;
    // narrow -> narrow: the low bits.
    snprintf(buf, cap, ts ? "tfr_wrap_s(bitcast<i32>(v), %du)" : "tfr_wrap_u(bitcast<u32>(v), %du)",
             tw);
    return buf;
  }
  if (!tw) return NULL;
  const char *f64 = NULL;  // a float source as f64 bits
  switch (from) {
    case TFR_BOOL: return ts ? "i32(v)" : "v";
    case TFR_I32:
      snprintf(buf, cap, ts ? "tfr_wrap_s(v, %du)" : "tfr_wrap_u(bitcast<u32>(v), %du)", tw);
      return buf;
    case TFR_I64:
    case TFR_U64:
      snprintf(buf, cap, ts ? "tfr_wrap_s(bitcast<i32>(v.x), %du)" : "tfr_wrap_u(v.x, %du)", tw);
      return buf;
    case TFR_F32: f64 = "tfr_f64_from_f32(v)"; break;
    case TFR_C64: f64 = "tfr_f64_from_f32(v.x)"; break;
    case TFR_F64: f64 = "v"; break;
    case TFR_C128: f64 = "v.xy"; break;  // the real part
    case TFR_F16:
    case TFR_BF16: f64 = "tfr_f64_from_f32(v)"; break;  // their f32 value
    default: return NULL;
  }
  if (ts) {
    long hi = (1L << (tw - 1)) - 1;
    snprintf(buf, cap,
             "bitcast<i32>(tfr_i64_clamp(tfr_i64_from_i32(%ldi), tfr_f64_to_i64(%s), "
             "tfr_i64_from_i32(%ldi)).x)",
             -hi - 1, f64, hi);
  } else {
    snprintf(buf, cap, "tfr_u64_min(tfr_f64_to_u64(%s), vec2<u32>(0x%lxu, 0u)).x", f64,
             (unsigned long)(0xffffffffUL >> (32 - tw)));
  }
  return buf;
}

static bool tfr_wgpu_is_half(tfr_dtype dt) { return dt == TFR_F16 || dt == TFR_BF16; }

// Conversions to f16 / bf16 (common/half.wgsl): the source as an f32 that is
// exact or rounded to odd (integers beyond 2^24, f64), rounded once to the
// destination, as the cpu's single rounding from the exact value.
static const char *tfr_wgpu_convert_to_half(tfr_dtype from, tfr_dtype to, char *buf, size_t cap) {
  const char *x;
  switch (from) {
    case TFR_I32: x = "tfr_i64_to_f32_odd(tfr_i64_from_i32(v))"; break;
    case TFR_U32: x = "tfr_u64_to_f32_odd(vec2<u32>(v, 0u))"; break;
    case TFR_I64: x = "tfr_i64_to_f32_odd(v)"; break;
    case TFR_U64: x = "tfr_u64_to_f32_odd(v)"; break;
    case TFR_F64: x = "tfr_f64_to_f32_odd(v)"; break;
    case TFR_C128: x = "tfr_f64_to_f32_odd(v.xy)"; break;  // the real part
    case TFR_C64: x = "v.x"; break;
    case TFR_F32:
    case TFR_F16:
    case TFR_BF16: x = "v"; break;
    default: x = "f32(v)"; break;  // bool, the 8- and 16-bit integers: exact
  }
  snprintf(buf, cap, "tfr_round_%s(%s)", to == TFR_F16 ? "f16" : "bf16", x);
  return buf;
}

static const char *tfr_wgpu_convert_expr(tfr_dtype from, tfr_dtype to) {
  if (from == to) return "v";
  if (tfr_wgpu_is_half(from)) from = TFR_F32;  // an f32 value, exact
  // c128 (vec4<u32>: the parts' f64 bits): to it, the value as f64 (the
  // conversions below) with imaginary +0, c64's parts exactly; from it, the
  // real part as f64 converts on, c64 rounds both parts, bool tests both.
  if (to == TFR_C128) {
    switch (from) {
      case TFR_C64: return "vec4<u32>(tfr_f64_from_f32(v.x), tfr_f64_from_f32(v.y))";
      case TFR_F64: return "vec4<u32>(v, 0u, 0u)";
      case TFR_F32: return "vec4<u32>(tfr_f64_from_f32(v), 0u, 0u)";
      case TFR_I32: return "vec4<u32>(tfr_f64_from_i32(v), 0u, 0u)";
      case TFR_I64: return "vec4<u32>(tfr_f64_from_i64(v), 0u, 0u)";
      case TFR_U64: return "vec4<u32>(tfr_f64_from_u64(v), 0u, 0u)";
      default: return "vec4<u32>(tfr_f64_from_bool(v), 0u, 0u)";
    }
  }
  if (from == TFR_C128) {
    switch (to) {
      case TFR_C64: return "vec2<f32>(tfr_f64_to_f32(v.xy), tfr_f64_to_f32(v.zw))";
      case TFR_F64: return "v.xy";
      case TFR_F32: return "tfr_f64_to_f32(v.xy)";
      case TFR_I32: return "tfr_f64_to_i32(v.xy)";
      case TFR_I64: return "tfr_f64_to_i64(v.xy)";
      case TFR_U64: return "tfr_f64_to_u64(v.xy)";
      default: return "select(0u, 1u, tfr_f64_nonzero(v.xy) || tfr_f64_nonzero(v.zw))";
    }
  }
  bool s64_to = to == TFR_I64;
  if (to == TFR_I64 || to == TFR_U64) {
    switch (from) {
      case TFR_I64:
      case TFR_U64: return "v";
      case TFR_I32: return "tfr_i64_from_i32(v)";
      case TFR_F32: return s64_to ? "tfr_f64_to_i64(tfr_f64_from_f32(v))"
                                  : "tfr_f64_to_u64(tfr_f64_from_f32(v))";
      case TFR_C64: return s64_to ? "tfr_f64_to_i64(tfr_f64_from_f32(v.x))"
                                  : "tfr_f64_to_u64(tfr_f64_from_f32(v.x))";
      case TFR_F64: return s64_to ? "tfr_f64_to_i64(v)" : "tfr_f64_to_u64(v)";
      default: return "vec2<u32>(v, 0u)";  // bool
    }
  }
  if (from == TFR_I64 || from == TFR_U64) {
    bool s = from == TFR_I64;
    switch (to) {
      case TFR_BOOL: return "select(0u, 1u, !tfr_u64_is_zero(v))";
      case TFR_I32: return "bitcast<i32>(v.x)";
      case TFR_F64: return s ? "tfr_f64_from_i64(v)" : "tfr_f64_from_u64(v)";
      case TFR_C64: return s ? "vec2<f32>(tfr_i64_to_f32(v), 0.0)"
                             : "vec2<f32>(tfr_u64_to_f32(v), 0.0)";
      default: return s ? "tfr_i64_to_f32(v)" : "tfr_u64_to_f32(v)";  // f32
    }
  }
  if (to == TFR_F64) {
    switch (from) {
      case TFR_F32: return "tfr_f64_from_f32(v)";
      case TFR_C64: return "tfr_f64_from_f32(v.x)";
      case TFR_I32: return "tfr_f64_from_i32(v)";
      default: return "tfr_f64_from_bool(v)";
    }
  }
  if (from == TFR_F64) {
    switch (to) {
      case TFR_BOOL: return "select(0u, 1u, tfr_f64_nonzero(v))";
      case TFR_I32: return "tfr_f64_to_i32(v)";
      case TFR_C64: return "vec2<f32>(tfr_f64_to_f32(v), 0.0)";
      default: return "tfr_f64_to_f32(v)";
    }
  }
  switch (to) {
    case TFR_BOOL:
      switch (from) {
        case TFR_F32: return "select(0u, 1u, tfr_f32_nonzero(v))";
        case TFR_C64: return "select(0u, 1u, tfr_f32_nonzero(v.x) || tfr_f32_nonzero(v.y))";
        default: return "select(0u, 1u, v != 0i)";
      }
    case TFR_I32:
      switch (from) {
        case TFR_F32: return "tfr_f32_to_i32(v)";
        case TFR_C64: return "tfr_f32_to_i32(v.x)";
        default: return "i32(v)";
      }
    case TFR_C64:
      return from == TFR_F32 ? "vec2<f32>(v, 0.0)" : "vec2<f32>(f32(v), 0.0)";
    default:  // f32
      // from c64 (the real part), i32 (round to nearest even) or bool (0/1)
      return from == TFR_C64 ? "v.x" : "f32(v)";
  }
}

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

typedef struct tfr_wgpu_plan {
  int nd;                              // merged axes, innermost first
  int64_t shape[TFR_MAX_RANK];
  int64_t src[TFR_MAX_RANK];           // strides in elements
  int64_t dst[TFR_MAX_RANK];
} tfr_wgpu_plan;

// The shared axis planner (binding.c) over the pair (out, in).
static void tfr_wgpu_plan_axes(const tfr_tensor *in, const tfr_tensor *out, tfr_wgpu_plan *p) {
  const tfr_tensor *ops[2] = {out, in};
  int64_t stride[2 * TFR_MAX_RANK];
  tfr_wgpu_plan_axes_n(2, ops, &p->nd, p->shape, stride);
  for (int d = 0; d < p->nd; d++) {
    p->dst[d] = stride[d];
    p->src[d] = stride[TFR_MAX_RANK + d];
  }
}

// The axis along which the source is contiguous when that makes the copy a
// transposition worth tiling, else -1.
static int tfr_wgpu_transpose_axis(const tfr_wgpu_plan *p) {
  if (p->nd < 2) return -1;
  int j = -1;
  for (int d = 1; d < p->nd; d++) {
    int64_t a = llabs(p->src[d]);
    if (a != 0 && (j < 0 || a < llabs(p->src[j]))) j = d;
  }
  if (j < 0 || llabs(p->src[0]) <= llabs(p->src[j])) return -1;
  // Narrow tiles waste most of each workgroup: the plain kernel does better.
  if (p->shape[0] < 16 || p->shape[j] < 16) return -1;
  return j;
}

// Whether the tiled copy of `p` (transposition axis `tj`) can move 16-byte
// chunks (transpose_vec4.wgsl) where its offsets and extents are multiples of
// 4: 4-byte elements on both sides, a unit source stride along r and a unit
// destination stride along c, every other stride a multiple of 4 (so that
// every row, batch index and host-loop index starts at the same phase), bound
// windows aligned to 16 bytes, and a tile of 4-byte values in workgroup memory.
static bool tfr_wgpu_transpose_vec_ok(const tfr_wgpu_backend *b, const tfr_wgpu_plan *p, int tj,
                                      size_t in_es, size_t out_es) {
  if (!b->transpose_vec || in_es != 4 || out_es != 4) return false;
  if (p->src[tj] != 1 || p->dst[0] != 1) return false;
  if (b->limits.minStorageBufferOffsetAlignment % 16 != 0) return false;
  if (b->transpose_tile * b->transpose_tile * 4 > b->limits.maxComputeWorkgroupStorageSize)
    return false;
  for (int d = 0; d < p->nd; d++) {
    if (d != tj && (p->src[d] & 3)) return false;
    if (d != 0 && (p->dst[d] & 3)) return false;
  }
  return true;
}

// Parameters of copy_strided.wgsl (its `Params`).
typedef struct tfr_wgpu_copy_params {
  uint32_t numel, rank, src_offset, dst_offset;
  uint32_t shape[TFR_WGPU_KERNEL_RANK], src_stride[TFR_WGPU_KERNEL_RANK];
  uint32_t dst_stride[TFR_WGPU_KERNEL_RANK];
} tfr_wgpu_copy_params;
_Static_assert(sizeof(tfr_wgpu_copy_params) == 208, "copy_strided Params layout");

// Parameters of transpose_tiled.wgsl.
typedef struct tfr_wgpu_transpose_params {
  uint32_t tiles_c, tiles_r, nbatch, batch_rank;
  uint32_t n_c, n_r, src_offset, dst_offset;
  uint32_t src_stride_c, src_stride_r, dst_stride_c, dst_stride_r;
  // The WGSL arrays hold TFR_WGPU_KERNEL_RANK entries; the batch uses up to
  // TFR_WGPU_TILED_BATCH_RANK of them.
  uint32_t batch_shape[TFR_WGPU_KERNEL_RANK], batch_src_stride[TFR_WGPU_KERNEL_RANK];
  uint32_t batch_dst_stride[TFR_WGPU_KERNEL_RANK];
} tfr_wgpu_transpose_params;
_Static_assert(sizeof(tfr_wgpu_transpose_params) == 240, "transpose_tiled Params layout");

// An optional map of the copied elements (see tfr_wgpu_copy_map).
typedef struct tfr_wgpu_map {
  const char *expr, *tag, *snippet;
} tfr_wgpu_map;

static tfr_status tfr_wgpu_copy_map(tfr_wgpu_backend *b, const char *op, const tfr_tensor *in,
                                    tfr_tensor *out, const tfr_wgpu_map *m, bool may_split);

// A tiled copy whose strides allow 16-byte chunks but whose offsets or
// extents do not: cut along c at [hc, hc + bc) and along r at [hr, hr + br)
// (the aligned body) into up to 9 pieces, each copied as a view of the
// plan's axes. The body takes transpose_vec4.wgsl; the edges, at most 3
// elements thin, copy_strided.wgsl.
static tfr_status tfr_wgpu_transpose_pieces(tfr_wgpu_backend *b, const char *op,
                                            const tfr_tensor *in, tfr_tensor *out,
                                            const tfr_wgpu_plan *p, int tj, const int64_t cut_c[4],
                                            const int64_t cut_r[4], const tfr_wgpu_map *m) {
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      int64_t shape[TFR_MAX_RANK];
      memcpy(shape, p->shape, sizeof shape);
      shape[0] = cut_c[i + 1] - cut_c[i];
      shape[tj] = cut_r[k + 1] - cut_r[k];
      if (shape[0] == 0 || shape[tj] == 0) continue;
      int64_t soff = in->offset + cut_c[i] * p->src[0] + cut_r[k] * p->src[tj];
      int64_t doff = out->offset + cut_c[i] * p->dst[0] + cut_r[k] * p->dst[tj];
      tfr_tensor *pin = NULL, *pout = NULL;
      tfr_status st = tfr_tensor_header(in->storage, in->dtype, p->nd, shape, p->src, soff, &pin);
      if (!st)
        st = tfr_tensor_header(out->storage, out->dtype, p->nd, shape, p->dst, doff, &pout);
      if (!st) st = tfr_wgpu_copy_map(b, op, pin, pout, m, false);
      tfr_tensor_release(pin);
      tfr_tensor_release(pout);
      if (st) return st;
    }
  return TFR_OK;
}

// The copy kernels. `m` (or NULL) applies `m->expr` (a WGSL expression of the
// raw element `v`, u32 or vec2<u32>, e.g. reduce_precision on the bits;
// `m->tag` names it in the variant, `m->snippet` defines it and comes after
// common/u64.wgsl) to every element of a 2-, 4- or 8-byte dtype copied to itself. `may_split`: a transposition may be cut into
// pieces (tfr_wgpu_transpose_pieces; not again for a piece).
static tfr_status tfr_wgpu_copy_map(tfr_wgpu_backend *b, const char *op, const tfr_tensor *in,
                                    tfr_tensor *out, const tfr_wgpu_map *m, bool may_split) {
  const char *map = m ? m->expr : NULL, *map_tag = m ? m->tag : NULL;
  const char *map_snippet = m ? m->snippet : NULL;
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, op));
  if (out->numel == 0) return TFR_OK;
  tfr_wgpu_elem elems[2];
  tfr_wgpu_elem *se = &elems[0], *de = &elems[1];
  if (map) {
    assert(in->dtype == out->dtype && (tfr_dtype_size(in->dtype) == 2 ||
                                       tfr_dtype_size(in->dtype) == 4 ||
                                       tfr_dtype_size(in->dtype) == 8));
    tfr_wgpu_elem_of(tfr_wgsl_bits_of(tfr_dtype_size(in->dtype)), true, se);
    de = se;
  } else if (in->dtype == out->dtype) {
    tfr_wgpu_elem_of(tfr_wgsl_bits_of(tfr_dtype_size(in->dtype)), true, se);
    de = se;
  } else {
    if (tfr_wgpu_dtype_computes(TFR_WGPU_CONVERT, in->dtype) &&
        tfr_wgpu_dtype_computes(TFR_WGPU_CONVERT, out->dtype)) {
      tfr_wgpu_elem_of(tfr_wgsl_type_of(in->dtype), false, se);
      tfr_wgpu_elem_of(tfr_wgsl_type_of(out->dtype), false, de);
    } else
      return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                       "%s: %s to %s is not supported on the webgpu backend (it converts "
                       "among bool, the integers, f32, f64, c64 and c128)",
                       op, tfr_dtype_name(in->dtype), tfr_dtype_name(out->dtype));
  }

  if (in->storage == out->storage) {
    // The core lets `out` be `in` itself (in place), or a disjoint view of
    // the same storage. In place with one dtype changes nothing. Otherwise a
    // buffer bound both read-only and writable in one dispatch is refused by
    // WebGPU when the bound ranges overlap, and windows are aligned outwards:
    // go through a temporary.
    bool same = !map && in->dtype == out->dtype && in->offset == out->offset;
    for (int k = 0; same && k < in->rank; k++) same = in->strides[k] == out->strides[k];
    if (same) return TFR_OK;
    tfr_tensor *tmp = NULL;
    TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, in->dtype, in->rank, in->shape, false, &tmp));
    tfr_status st = tfr_wgpu_copy_map(b, op, in, tmp, m, may_split);
    if (!st) st = tfr_wgpu_copy(b, op, tmp, out);
    tfr_tensor_release(tmp);
    return st;
  }

  tfr_wgpu_plan plan;
  tfr_wgpu_plan_axes(in, out, &plan);
  int tj = tfr_wgpu_transpose_axis(&plan);

  // Transpositions of 4-byte elements move 16-byte chunks when the offsets
  // and the extents of c and r are multiples of 4 too; when only the strides
  // allow, the aligned body is copied apart from the thin edges.
  bool vec = false;
  if (tj >= 0 && tfr_wgpu_transpose_vec_ok(b, &plan, tj, tfr_dtype_size(in->dtype),
                                           tfr_dtype_size(out->dtype))) {
    int64_t hc = -out->offset & 3, hr = -in->offset & 3;  // elements before the first chunk
    int64_t bc = (plan.shape[0] - hc) & ~INT64_C(3), br = (plan.shape[tj] - hr) & ~INT64_C(3);
    if (hc == 0 && hr == 0 && bc == plan.shape[0] && br == plan.shape[tj]) {
      vec = true;
    } else if (may_split && bc >= 16 && br >= 16) {
      const int64_t cut_c[4] = {0, hc, hc + bc, plan.shape[0]};
      const int64_t cut_r[4] = {0, hr, hr + br, plan.shape[tj]};
      return tfr_wgpu_transpose_pieces(b, op, in, out, &plan, tj, cut_c, cut_r, m);
    }
  }

  // Compact copies: one merged axis, unit strides in both, one dtype.
  int64_t ues = (int64_t)tfr_dtype_size(in->dtype);  // bytes of the kernel's source element
  int64_t udes = (int64_t)tfr_dtype_size(out->dtype);  // and destination element
  int64_t in_off = in->offset, out_off = out->offset;  // in such elements
  if (!map && in->dtype == out->dtype && tj < 0 && plan.nd == 1 && plan.src[0] == 1 &&
      plan.dst[0] == 1) {
    int64_t bytes = plan.shape[0] * ues, sb = in_off * ues, db = out_off * ues;
    if (b->copy_b2b && bytes % 4 == 0 && sb % 4 == 0 && db % 4 == 0) {
      // The raw peer (TFR_WEBGPU_COPY_B2B=1): the queue's own buffer copy.
      WGPUCommandEncoder enc;
      TFR_RETURN_IF_ERROR(tfr_wgpu_copy_encoder(b, &enc));
      b->p->wgpuCommandEncoderCopyBufferToBuffer(enc, in->storage->device, (uint64_t)sb,
                                                 out->storage->device, (uint64_t)db,
                                                 (uint64_t)bytes);
      return tfr_wgpu_check(b, op);
    }
    if (b->copy_vec && ues < 16 && bytes % 16 == 0 && sb % 16 == 0 && db % 16 == 0) {
      ues = udes = 16;
      plan.shape[0] = bytes / 16;
      in_off = sb / 16;
      out_off = db / 16;
      tfr_wgpu_elem_of(tfr_wgsl_bits_of(16), true, se);
      de = se;
    }
  }

  // Kernel axes (k_axes) and the outer axes iterated here (h_axes).
  int k_axes[TFR_MAX_RANK], h_axes[TFR_MAX_RANK];
  int nk = 0, nh = 0;
  if (tj >= 0) {
    int batch = 0;
    for (int d = 1; d < plan.nd; d++) {
      if (d == tj) continue;
      if (batch < TFR_WGPU_TILED_BATCH_RANK) {
        k_axes[nk++] = d;
        batch++;
      } else {
        h_axes[nh++] = d;
      }
    }
  } else {
    for (int d = 0; d < plan.nd; d++) {
      if (d < TFR_WGPU_KERNEL_RANK) k_axes[nk++] = d;
      else h_axes[nh++] = d;
    }
    // Keep the element index of one dispatch in u32: move outer axes out.
    for (;;) {
      int64_t n = 1;
      for (int i = 0; i < nk; i++) n *= plan.shape[k_axes[i]];
      if (n < TFR_WGPU_MAX_DISPATCH_ELEMENTS) break;
      if (nk == 1)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "%s: webgpu: an axis of %" PRId64 " elements exceeds the 2^31 "
                         "elements one dispatch handles",
                         op, n);
      for (int i = nh; i > 0; i--) h_axes[i] = h_axes[i - 1];
      h_axes[0] = k_axes[--nk];
      nh++;
    }
  }

  // The pipeline.
  const char *family = vec ? "transpose_vec4" : tj >= 0 ? "transpose_tiled" : "copy_strided";
  char variant[128], file[32];
  snprintf(variant, sizeof variant, "%s[%s->%s%s%s]", family, se->tag, de->tag, map ? "," : "",
           map ? map_tag : "");
  snprintf(file, sizeof file, "%s.wgsl", family);
  const char *snippets[8];
  int ns = 0;
  if (tj >= 0) snippets[ns++] = "common/transpose_tile.wgsl";
  if (in->dtype != out->dtype) snippets[ns++] = "common/convert.wgsl";
  char narrow_buf[192];
  const char *convert = map ? map : tfr_wgpu_convert_narrow(in->dtype, out->dtype, narrow_buf,
                                                             sizeof narrow_buf);
  if (!convert && in->dtype != out->dtype && tfr_wgpu_is_half(out->dtype))
    convert = tfr_wgpu_convert_to_half(in->dtype, out->dtype, narrow_buf, sizeof narrow_buf);
  if (!convert) convert = tfr_wgpu_convert_expr(in->dtype, out->dtype);
  // f16 / bf16 values load and store through common/half.wgsl.
  if (in->dtype != out->dtype && (tfr_wgpu_is_half(in->dtype) || tfr_wgpu_is_half(out->dtype)))
    snippets[ns++] = "common/half.wgsl";
  // f64, i64, u64: common/u64.wgsl, and f64.wgsl (the 64-bit integers' float
  // conversions are there); the narrow integers' and f16/bf16 conversions
  // use them too.
  if (in->dtype != out->dtype &&
      (tfr_wgsl_type_of(in->dtype)->emulated || tfr_wgsl_type_of(out->dtype)->emulated ||
       strstr(convert, "64"))) {
    snippets[ns++] = "common/u64.wgsl";
    snippets[ns++] = "common/f64.wgsl";
  }
  if (map_snippet) {  // (reduce_precision.wgsl's f64 function needs u64.wgsl)
    snippets[ns++] = "common/u64.wgsl";
    snippets[ns++] = map_snippet;
  }
  if (de->bytes) snippets[ns++] = "common/bytes.wgsl";
  snippets[ns] = NULL;
  tfr_wgsl_subst subst[] = {
      {"SRC_ARRAY", se->array},  {"DST_ARRAY", de->dst_array},
      {"VALUE_T", de->value_t},  {"LOAD", se->load},
      {"CONVERT", convert},      {"STORE", de->store},
  };
  // transpose_vec4: {{SRC_T}} {{VALUE_T}} {{CONVERT}} only.
  tfr_wgsl_subst subst_vec[] = {
      {"SRC_T", se->value_t}, {"VALUE_T", de->value_t}, {"CONVERT", convert}};
  // Tiles (TFR_WEBGPU_TRANSPOSE_TILE): 64 x 64 by 256 invocations as 64 x 4,
  // swizzled, when a tile of the value type fits the device's workgroup
  // memory, else the 32 x 32 tile by 32 x 8 with a column of padding (16 x 16
  // by 16 x 16 when that does not fit either, unless a swizzled 32 x 32 tile
  // does and 64 was asked for). transpose_vec4 takes the asked tile.
  uint32_t tile = 32, rows = 8, pad = 1, swz = 0;
  uint64_t wg_mem = b->limits.maxComputeWorkgroupStorageSize;
  uint64_t value_bytes = tfr_dtype_size(out->dtype) < 4 ? 4 : tfr_dtype_size(out->dtype);
  if (vec) {
    tile = b->transpose_tile;
  } else if (b->transpose_tile == 64 && 64 * 64 * value_bytes <= wg_mem) {
    tile = 64, rows = 4, pad = 0, swz = 63;
  } else if (32 * 33 * value_bytes > wg_mem) {
    if (b->transpose_tile == 64 && 32 * 32 * value_bytes <= wg_mem) pad = 0, swz = 31;
    else tile = 16, rows = 16;
  }
  tfr_wgsl_override overrides_copy[] = {{"WG", b->copy_wg}, {"EPT", b->copy_ept}};
  tfr_wgsl_override overrides_tiled[] = {
      {"TILE", tile}, {"ROWS", rows}, {"PAD", pad}, {"SWZ", swz}};
  tfr_wgsl_variant v = {variant,
                        file,
                        snippets,
                        vec ? subst_vec : subst,
                        vec ? 3 : (int)(sizeof subst / sizeof subst[0]),
                        vec ? overrides_tiled : tj >= 0 ? overrides_tiled : overrides_copy,
                        vec ? 1 : tj >= 0 ? 4 : 2,
                        1,
                        1};
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_wgpu_pipeline_get(b, &v, &pipeline));

  // Kernel-axis shapes and strides, and their reach within each buffer.
  int64_t ks[TFR_MAX_RANK], ksrc[TFR_MAX_RANK], kdst[TFR_MAX_RANK];
  int nall = 0;
  if (tj >= 0) {
    ks[nall] = plan.shape[0], ksrc[nall] = plan.src[0], kdst[nall] = plan.dst[0], nall++;
    ks[nall] = plan.shape[tj], ksrc[nall] = plan.src[tj], kdst[nall] = plan.dst[tj], nall++;
  }
  for (int i = 0; i < nk; i++, nall++) {
    ks[nall] = plan.shape[k_axes[i]];
    ksrc[nall] = plan.src[k_axes[i]];
    kdst[nall] = plan.dst[k_axes[i]];
  }
  int64_t slo, shi, dlo, dhi;
  tfr_wgpu_reach(nall, ks, ksrc, &slo, &shi);
  tfr_wgpu_reach(nall, ks, kdst, &dlo, &dhi);

  // Static part of the parameters.
  tfr_wgpu_copy_params cp;
  tfr_wgpu_transpose_params tp;
  memset(&cp, 0, sizeof cp);
  memset(&tp, 0, sizeof tp);
  uint64_t groups;
  if (tj >= 0) {
    uint64_t tiles_c = ((uint64_t)plan.shape[0] + tile - 1) / tile;
    uint64_t tiles_r = ((uint64_t)plan.shape[tj] + tile - 1) / tile;
    uint64_t nbatch = 1;
    for (int i = 0; i < nk; i++) {
      tp.batch_shape[i] = (uint32_t)plan.shape[k_axes[i]];
      tp.batch_src_stride[i] = (uint32_t)plan.src[k_axes[i]];
      tp.batch_dst_stride[i] = (uint32_t)plan.dst[k_axes[i]];
      nbatch *= (uint64_t)plan.shape[k_axes[i]];
    }
    groups = tiles_c * tiles_r * nbatch;
    if (groups >= ((uint64_t)1 << 32))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: webgpu: %llu tiles exceed 2^32", op,
                       (unsigned long long)groups);
    tp.tiles_c = (uint32_t)tiles_c;
    tp.tiles_r = (uint32_t)tiles_r;
    tp.nbatch = (uint32_t)nbatch;
    tp.batch_rank = (uint32_t)nk;
    tp.n_c = (uint32_t)plan.shape[0];
    tp.n_r = (uint32_t)plan.shape[tj];
    tp.src_stride_c = (uint32_t)plan.src[0];
    tp.src_stride_r = (uint32_t)plan.src[tj];
    tp.dst_stride_c = (uint32_t)plan.dst[0];
    tp.dst_stride_r = (uint32_t)plan.dst[tj];
  } else {
    uint64_t numel = 1;
    for (int i = 0; i < nk; i++) {
      cp.shape[i] = (uint32_t)plan.shape[k_axes[i]];
      // The low 32 bits: the kernel's wrapping sums are exact (see the .wgsl).
      cp.src_stride[i] = (uint32_t)plan.src[k_axes[i]];
      cp.dst_stride[i] = (uint32_t)plan.dst[k_axes[i]];
      numel *= (uint64_t)plan.shape[k_axes[i]];
    }
    cp.numel = (uint32_t)numel;
    cp.rank = (uint32_t)nk;
    uint64_t per_group = (uint64_t)b->copy_wg * b->copy_ept;
    groups = (numel + per_group - 1) / per_group;
  }

  // One dispatch per index of the host axes (usually exactly one).
  int64_t idx[TFR_MAX_RANK] = {0};
  for (;;) {
    int64_t soff = in_off, doff = out_off;
    for (int i = 0; i < nh; i++) {
      soff += idx[i] * plan.src[h_axes[i]];
      doff += idx[i] * plan.dst[h_axes[i]];
    }
    tfr_wgpu_binding sb, db;
    uint32_t srel = 0, drel = 0;
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, "source", in, ues, soff, slo, shi, &sb, &srel));
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_window(b, op, "destination", out, udes, doff, dlo, dhi, &db, &drel));
    if (tj >= 0) {
      // transpose_vec4 needs whole chunks from the window's start: the
      // alignment of windows (16 bytes or more) and of every stride keeps the
      // offsets' phase.
      if (vec && ((srel | drel) & 3))
        return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: transpose_vec4 window offsets %u, %u "
                         "are not multiples of 4", op, srel, drel);
      tp.src_offset = srel;
      tp.dst_offset = drel;
      TFR_RETURN_IF_ERROR(tfr_wgpu_dispatch(b, pipeline, &tp, sizeof tp, sb, db, groups));
      if (vec) b->transpose_vec_dispatches++;
    } else {
      cp.src_offset = srel;
      cp.dst_offset = drel;
      TFR_RETURN_IF_ERROR(tfr_wgpu_dispatch(b, pipeline, &cp, sizeof cp, sb, db, groups));
    }
    int i = 0;
    for (; i < nh; i++) {
      if (++idx[i] < plan.shape[h_axes[i]]) break;
      idx[i] = 0;
    }
    if (i == nh) break;
  }
  return TFR_OK;
}

tfr_status tfr_wgpu_copy(tfr_wgpu_backend *b, const char *op, const tfr_tensor *in,
                         tfr_tensor *out) {
  return tfr_wgpu_copy_map(b, op, in, out, NULL, true);
}

tfr_status tfr_wgpu_reduce_precision(tfr_wgpu_backend *b, const tfr_structural_desc *d) {
  if (!tfr_wgpu_dtype_computes(TFR_WGPU_REDUCE_PRECISION, d->in->dtype))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "reduce_precision: dtype %s is not supported on the webgpu backend (it "
                     "computes on f16, bf16, f32 and f64)",
                     tfr_dtype_name(d->in->dtype));
  char map[64], tag[32];
  if (d->in->dtype == TFR_F16 || d->in->dtype == TFR_BF16)  // on the 16-bit pattern
    snprintf(map, sizeof map, "tfr_reduce_precision_h(v, %uu, %uu, %uu)",
             d->in->dtype == TFR_F16 ? 10u : 7u, (unsigned)d->exponent_bits,
             (unsigned)d->mantissa_bits);
  else
    snprintf(map, sizeof map, "tfr_reduce_precision_%s(v, %uu, %uu)",
             d->in->dtype == TFR_F64 ? "f64" : "f32", (unsigned)d->exponent_bits,
             (unsigned)d->mantissa_bits);
  // The dtype too: f16 and bf16 share their bits' element type (u16).
  snprintf(tag, sizeof tag, "rp%d.%d.%s", d->exponent_bits, d->mantissa_bits,
           tfr_dtype_name(d->in->dtype));
  tfr_wgpu_map m = {map, tag, "common/reduce_precision.wgsl"};
  return tfr_wgpu_copy_map(b, "reduce_precision", d->in, d->out, &m, true);
}

