// webgpu gather and scatter (StableHLO), from the validated index space of
// src/core/backend_impl.h. docs/webgpu.md ("gather and scatter") describes the
// algorithms and their cost.
//
// gather (gather.wgsl): one invocation per result element. The result axes
// are each a batch axis (its index-tensor stride, and the operand stride of
// the batching dims it feeds) or a window axis (its operand stride); axes of
// extent 1 are dropped and neighbours contiguous in both tensors merged. The
// kernel walks them, reads the index vector and adds each clamped start.
//
// scatter: results are bit-identical to the cpu backend's, which applies the
// batch positions strictly in row-major order. Three ways:
//   * direct (scatter_direct.wgsl): one invocation per updates element, when
//     order cannot matter: one batch position (dynamic_update_slice), or a
//     combiner that is exact in any order done with an atomic (i32 add,
//     maximum, minimum; bool maximum = or, minimum = and).
//   * ordered (scatter_keys.wgsl, scatter_sort_*.wgsl, scatter_apply.wgsl):
//     every unit gets the key of the result element (or window) it combines
//     into, a stable radix sort by key groups equal keys in unit (= batch)
//     order, and one invocation per run applies it sequentially. A unit is a
//     batch position when windows are equal or disjoint (every operand axis
//     has window size 1 or its full extent: scalar and row scatters), else
//     each updates element is one.
// No float atomics anywhere.
//
// Every dispatch binds only the window of each buffer its view reaches
// (tfr_wgpu_window), so offsets are window-relative u32 values and strides
// are passed as their low 32 bits (exact modulo 2^32, see index_space.wgsl).
//
// dtypes: gather and scatter `replace` move bits, so every dtype works.
// add, multiply, maximum, minimum compute on bool, i32, f32, c64, u32, i8,
// i16, u8, u16 (as i32 / u32, stored wrapped to their width), i64 and
// u64 (emulated with 32-bit words, common/u64.wgsl), f64 (in software on its
// bits, common/f64.wgsl, applied in the cpu's order: bit for bit) and c128
// (pairs of those f64, common/c128.wgsl, likewise bit for bit). Indices may have any integer dtype (gs_index_load:
// narrow ones unpacked from their word, 64-bit ones read as two words).
#include <stdio.h>
#include <string.h>

#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/transfer.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_types.h"

#define GS_WG 256
// Radix sort (scatter_sort_*.wgsl): 8-bit digits, blocks of GS_WG * EPT
// keys (the kernels take one digit per invocation: GS_WG must be
// GS_SORT_RADIX). EPT is the largest of GS_SORT_EPT_MIN .. GS_SORT_EPT_MAX
// (powers of two) that still gives GS_SORT_MIN_BLOCKS blocks (gs_sort_ept):
// longer blocks cost less scanning, but a sort of few blocks leaves most of
// the GPU idle (H100, 9501184: 262144 keys 0.247 ms with EPT 16 (64
// blocks), 0.214 with 4; 2^20 keys 0.177 with 16, 0.192 with 4).
#define GS_SORT_BITS 8
#define GS_SORT_RADIX (1 << GS_SORT_BITS)
#define GS_SORT_EPT_MIN 4
#define GS_SORT_EPT_MAX 16
#define GS_SORT_MIN_BLOCKS 256
// Window elements per invocation of scatter_apply.wgsl (its EPW).
#define GS_APPLY_EPW 4
_Static_assert(GS_WG == GS_SORT_RADIX, "one digit per invocation");
// Elements per gather / direct-scatter dispatch (further ones in more
// dispatches): the element index stays far below 2^32.
#define GS_DISPATCH_MAX (INT64_C(1) << 30)
// Metadata words that fit the uniform parameters (gather: 13, scatter: 12
// vec4 words); more go to a read-only storage buffer.
#define GS_GATHER_META 52
#define GS_SCATTER_META 48
// Largest metadata: scatter with TFR_MAX_RANK batch axes (4 words), window
// axes and start components (3 words each).
#define GS_META_MAX (10 * TFR_MAX_RANK)

// ---------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------

// How one element type is read, combined and stored (from the WGSL type
// layer). Arrays are named src/upd (read-only) and dst (read-write); read
// indices are `j` (gather) or `uj` (scatter), result indices `k` (gather) or
// `t` (scatter).
typedef struct gs_elem {
  const char *tag;        // in variant names
  const char *array;      // WGSL type of a read-only array
  const char *dst_array;  // WGSL type of the result array
  const char *value_t;
  char gload[160];        // gather: element `j` of src
  char uload[160];        // scatter: element `uj` of upd
  char dload[160];        // scatter: element `t` of dst
  char gstore[96];        // gather: store `val` at `k`
  char sstore[96];        // scatter: store `val` at `t`
  char oload[160];        // scatter: element `o` of opnd (the operand)
  bool bytes;             // one- or two-byte elements (common/bytes.wgsl)
} gs_elem;

// Bits (`bits`: gather, replace, and the combiners that work on the bits:
// bool, i64, f64 maximum/minimum) or values of type `t`.
static void gs_elem_of(const tfr_wgsl_type *t, bool bits, gs_elem *e) {
  e->tag = bits ? t->bits_tag : t->tag;
  e->array = t->array;
  e->dst_array = t->write_array;
  e->value_t = bits ? t->bits : t->value;
  tfr_wgsl_load(t, "src", "j", e->gload, sizeof e->gload);
  tfr_wgsl_load(t, "upd", "uj", e->uload, sizeof e->uload);
  tfr_wgsl_load(t, "opnd", "o", e->oload, sizeof e->oload);
  tfr_wgsl_load_dst(t, "t", e->dload, sizeof e->dload);
  tfr_wgsl_store(t, "k", "val", e->gstore, sizeof e->gstore);
  tfr_wgsl_store(t, "t", "val", e->sstore, sizeof e->sstore);
  e->bytes = t->per_word != 0;
}

// By element size (bits only: gather, replace).
static void gs_raw(size_t es, gs_elem *e) {
  gs_elem_of(tfr_wgsl_bits_of(es < 16 ? es : 16), true, e);
}

// u32, i8, i16, u8, u16: values in i32 / u32 (wgsl_types.h), combined as
// i32 / u32 and stored in their width, which wraps as the cpu does.
static bool gs_narrow_int(tfr_dtype dt) {
  return dt == TFR_U32 || dt == TFR_I8 || dt == TFR_I16 || dt == TFR_U8 || dt == TFR_U16;
}

// f16 / bf16: values in f32, each combination rounded once (as the cpu),
// through common/half.wgsl (the last snippet, after bytes.wgsl).
static bool gs_half(tfr_dtype dt) { return dt == TFR_F16 || dt == TFR_BF16; }
static const char *gs_half_snippet(tfr_dtype dt) { return gs_half(dt) ? "common/half.wgsl" : NULL; }

// By dtype, for the arithmetic combiners (the dtypes tfr_wgpu_dtype_computes
// lets through): values of f32, i32 and c64, the bits of the others (i64 and
// u64 are emulated with 32-bit words, common/u64.wgsl; f64 computed on its bits,
// common/f64.wgsl).
static void gs_typed(tfr_dtype dt, gs_elem *e) {
  if (dt == TFR_I32 || dt == TFR_F32 || dt == TFR_C64 || gs_narrow_int(dt) || gs_half(dt))
    gs_elem_of(tfr_wgsl_type_of(dt), false, e);
  else gs_raw(tfr_dtype_size(dt), e);
}

// A byte of a packed array (tfr_wgsl_load's form), for the bool combiners'
// constant expressions below.
#define GS_BYTE(arr, i) "((" arr "[" i " >> 2u] >> ((" i " & 3u) * 8u)) & 0xffu)"

static const char *gs_combiner_name(tfr_scatter_combiner c) {
  static const char *const names[] = {"replace", "add", "multiply", "maximum", "minimum"};
  return (unsigned)c <= TFR_SCATTER_MINIMUM ? names[c] : "invalid";
}

// The combine expression of `acc` and `x` (scatter_apply.wgsl; direct
// non-atomic scatters use it with acc = the result element).
static const char *gs_combine_expr(tfr_scatter_combiner c, tfr_dtype dt) {
  if (gs_half(dt)) {  // the f32 combination, rounded once
    bool f16 = dt == TFR_F16;
    switch (c) {
      case TFR_SCATTER_REPLACE: return "x";
      case TFR_SCATTER_ADD: return f16 ? "tfr_round_f16(acc + x)" : "tfr_round_bf16(acc + x)";
      case TFR_SCATTER_MULTIPLY: return f16 ? "tfr_round_f16(acc * x)" : "tfr_round_bf16(acc * x)";
      case TFR_SCATTER_MAXIMUM:
        return f16 ? "tfr_round_f16(tfr_sc_max_f32(acc, x))" : "tfr_round_bf16(tfr_sc_max_f32(acc, x))";
      case TFR_SCATTER_MINIMUM:
        return f16 ? "tfr_round_f16(tfr_sc_min_f32(acc, x))" : "tfr_round_bf16(tfr_sc_min_f32(acc, x))";
    }
  }
  switch (c) {
    case TFR_SCATTER_REPLACE: return "x";
    case TFR_SCATTER_ADD:
      return dt == TFR_I32 ? "tfr_sc_add_i32(acc, x)"
             : dt == TFR_I64 || dt == TFR_U64 ? "tfr_u64_add(acc, x)"
             : dt == TFR_F64 ? "tfr_f64_add(acc, x)"
             : dt == TFR_C128 ? "tfr_c128_add(acc, x)" : "acc + x";
    case TFR_SCATTER_MULTIPLY:
      return dt == TFR_I32 ? "tfr_sc_mul_i32(acc, x)"
             : dt == TFR_I64 || dt == TFR_U64 ? "tfr_u64_mul_lo(acc, x)"
             : dt == TFR_F64 ? "tfr_f64_mul(acc, x)"
             : dt == TFR_C128 ? "tfr_c128_mul(acc, x)"
             : dt == TFR_C64 ? "tfr_sc_mul_c64(acc, x)" : "acc * x";
    case TFR_SCATTER_MAXIMUM:
      return dt == TFR_BOOL ? "(acc | x)" : dt == TFR_I32 || gs_narrow_int(dt) ? "max(acc, x)"
             : dt == TFR_I64 ? "tfr_i64_max(acc, x)"
             : dt == TFR_U64 ? "tfr_u64_max(acc, x)"
             : dt == TFR_F64 ? "tfr_sc_max_f64(acc, x)"
             : dt == TFR_C128 ? "tfr_sc_max_c128(acc, x)"
             : dt == TFR_F32 ? "tfr_sc_max_f32(acc, x)" : "tfr_sc_max_c64(acc, x)";
    case TFR_SCATTER_MINIMUM:
      return dt == TFR_BOOL ? "(acc & x)" : dt == TFR_I32 || gs_narrow_int(dt) ? "min(acc, x)"
             : dt == TFR_I64 ? "tfr_i64_min(acc, x)"
             : dt == TFR_U64 ? "tfr_u64_min(acc, x)"
             : dt == TFR_F64 ? "tfr_sc_min_f64(acc, x)"
             : dt == TFR_C128 ? "tfr_sc_min_c128(acc, x)"
             : dt == TFR_F32 ? "tfr_sc_min_f32(acc, x)" : "tfr_sc_min_c64(acc, x)";
  }
  return "x";
}

// The atomic statement of an order-free combiner, or NULL.
static const char *gs_atomic_apply(tfr_scatter_combiner c, tfr_dtype dt) {
  if (dt == TFR_I32) {
    switch (c) {
      case TFR_SCATTER_ADD: return "atomicAdd(&dst[t], upd[uj])";
      case TFR_SCATTER_MAXIMUM: return "atomicMax(&dst[t], upd[uj])";
      case TFR_SCATTER_MINIMUM: return "atomicMin(&dst[t], upd[uj])";
      default: return NULL;
    }
  }
  if (dt == TFR_BOOL) {
    // The byte of element t in its word: or / and with the update's byte,
    // leaving the other three bytes alone.
    switch (c) {
      case TFR_SCATTER_MAXIMUM:
        return "atomicOr(&dst[t >> 2u], " GS_BYTE("upd", "uj") " << ((t & 3u) * 8u))";
      case TFR_SCATTER_MINIMUM:
        return "atomicAnd(&dst[t >> 2u], ~((~" GS_BYTE("upd", "uj") " & 0xffu) << ((t & 3u) * "
               "8u)))";
      default: return NULL;
    }
  }
  return NULL;
}

// ---------------------------------------------------------------------------
// Metadata and bindings
// ---------------------------------------------------------------------------

typedef struct gs_meta {
  int n;
  uint32_t w[GS_META_MAX];
} gs_meta;

static void gs_meta_add(gs_meta *m, int64_t v) { m->w[m->n++] = (uint32_t)v; }

// Start components: (hi_lo, hi_hi, stride of the start's axis in `target`).
static void gs_meta_starts(gs_meta *m, const tfr_index_space *ix, const tfr_tensor *target) {
  for (int k = 0; k < ix->nstart; k++) {
    int64_t a = ix->start_axis[k];
    uint64_t hi = (uint64_t)(target->shape[a] - ix->window_size[a]);
    gs_meta_add(m, (int64_t)(hi & 0xffffffffu));
    gs_meta_add(m, (int64_t)(hi >> 32));
    gs_meta_add(m, target->strides[a]);
  }
}

// What a dispatch binds besides its own temporaries: the metadata (in the
// uniform words, or a storage buffer), and the index tensor's window.
typedef struct gs_common {
  tfr_tensor *meta_dev;       // storage metadata, or NULL
  tfr_wgpu_binding meta_bind;
  tfr_tensor *dummy;          // stands in for an empty index tensor
  tfr_wgpu_binding ind_bind;
  uint32_t ind_rel;
  uint32_t vstride;
} gs_common;

static void gs_common_release(gs_common *c) {
  tfr_tensor_release(c->meta_dev);
  tfr_tensor_release(c->dummy);
}

// Puts metadata that does not fit `cap` uniform words into a storage buffer.
static tfr_status gs_meta_place(tfr_wgpu_backend *b, const char *op, const gs_meta *m, int cap,
                                gs_common *c) {
  if (m->n <= cap) return TFR_OK;
  int64_t n = m->n;
  tfr_tensor *host = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(NULL, TFR_I32, 1, &n, false, &host));
  memcpy(tfr_tensor_host_ptr(host), m->w, (size_t)n * sizeof(uint32_t));
  tfr_status st = tfr_tensor_alloc(&b->base, TFR_I32, 1, &n, false, &c->meta_dev);
  if (!st) st = tfr_wgpu_upload(&b->base, host, c->meta_dev);
  tfr_tensor_release(host);
  uint32_t rel;
  if (!st) st = tfr_wgpu_window(b, op, "metadata", c->meta_dev, 4, 0, 0, n - 1, &c->meta_bind,
                                &rel);
  return st;
}

// The window of a whole tensor view (elements of `es` bytes; 8 for i64
// indices read as word pairs).
static tfr_status gs_bind_view(tfr_wgpu_backend *b, const char *op, const char *name,
                               const tfr_tensor *t, tfr_wgpu_binding *bind, uint32_t *rel) {
  int64_t lo, hi;
  tfr_wgpu_reach(t->rank, t->shape, t->strides, &lo, &hi);
  return tfr_wgpu_window(b, op, name, t, (int64_t)tfr_dtype_size(t->dtype), t->offset, lo, hi,
                         bind, rel);
}

static tfr_status gs_bind_indices(tfr_wgpu_backend *b, const char *op, const tfr_index_space *ix,
                                  gs_common *c) {
  const tfr_tensor *ind = ix->indices;
  c->vstride = ix->vector_axis >= 0 ? (uint32_t)ind->strides[ix->vector_axis] : 0;
  if (ind->numel > 0) return gs_bind_view(b, op, "index", ind, &c->ind_bind, &c->ind_rel);
  // No start components (an index vector of extent 0): never read.
  int64_t one = 1;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, ind->dtype, 1, &one, true, &c->dummy));
  c->ind_rel = 0;
  return gs_bind_view(b, op, "index", c->dummy, &c->ind_bind, &c->ind_rel);
}

// How index_space.wgsl reads start `e` of the index tensor (array<u32>, the
// window bound in elements of the index dtype) as the 64-bit value hi:lo:
// narrow types from their word with sign or zero extension, 64-bit ones as
// word pairs (u64 of 2^63 and more saturate: they are above every extent).
static const char *gs_index_load(tfr_dtype dt) {
  switch (dt) {
    case TFR_I8:
      return "let v = (ind[e >> 2u] >> ((e & 3u) * 8u)) & 0xffu; let n = (v & 0x80u) != 0u; "
             "lo = select(v, v | 0xffffff00u, n); hi = select(0u, 0xffffffffu, n);";
    case TFR_U8: return "lo = (ind[e >> 2u] >> ((e & 3u) * 8u)) & 0xffu; hi = 0u;";
    case TFR_I16:
      return "let v = (ind[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu; let n = (v & 0x8000u) != 0u; "
             "lo = select(v, v | 0xffff0000u, n); hi = select(0u, 0xffffffffu, n);";
    case TFR_U16: return "lo = (ind[e >> 1u] >> ((e & 1u) * 16u)) & 0xffffu; hi = 0u;";
    case TFR_U32: return "lo = ind[e]; hi = 0u;";
    case TFR_I64: return "lo = ind[2u * e]; hi = ind[2u * e + 1u];";
    case TFR_U64:
      return "lo = ind[2u * e]; hi = ind[2u * e + 1u]; "
             "if ((hi & 0x80000000u) != 0u) { lo = 0xffffffffu; hi = 0x7fffffffu; }";
    default:  // i32
      return "lo = ind[e]; hi = select(0u, 0xffffffffu, (lo & 0x80000000u) != 0u);";
  }
}

// Substitutions of index_meta.wgsl / index_space.wgsl.
static const char *gs_meta_expr(const gs_common *c) {
  return c->meta_dev ? "M[i]" : "P.words[i >> 2u][i & 3u]";
}

// ---------------------------------------------------------------------------
// gather
// ---------------------------------------------------------------------------

typedef struct gs_gather_params {
  uint32_t numel, first, rank, nstart;
  uint32_t src_offset, ind_offset, dst_offset, vstride;
  uint32_t start_base, flags, pad0, pad1;
  uint32_t meta[GS_GATHER_META];
} gs_gather_params;
_Static_assert(sizeof(gs_gather_params) == 256, "gather Params layout");
_Static_assert(sizeof(gs_gather_params) <= TFR_WGPU_PARAM_SLOT, "parameter slot");

tfr_status tfr_wgpu_gather(tfr_backend *base, const tfr_gather_desc *d) {
  const char *op = "gather";
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, op));
  const tfr_tensor *operand = d->operand, *ind = d->ix.indices;
  tfr_tensor *out = d->out;
  const tfr_index_space *ix = &d->ix;
  if (out->numel == 0) return TFR_OK;
  if (out->numel >= ((int64_t)1 << 32))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "gather: webgpu: the result has %" PRId64 " elements, at most 2^32 - 1",
                     out->numel);

  // Per result axis: operand and index strides.
  int rr = out->rank;
  int64_t ostr[TFR_MAX_RANK] = {0}, istr[TFR_MAX_RANK] = {0};
  for (int j = 0; j < ix->nbatch; j++) {
    int r = (int)d->batch_out_axis[j];
    istr[r] = ind->strides[ix->batch_index_axis[j]];
    for (int i = 0; i < ix->nbatching; i++)
      if (ix->batching_pos[i] == j) ostr[r] += operand->strides[ix->batching_axis[i]];
  }
  for (int i = 0; i < ix->nwindow; i++)
    ostr[d->window_out_axis[i]] = operand->strides[ix->window_axis[i]];
  // Merged axes, innermost first.
  int64_t shp[TFR_MAX_RANK], os[TFR_MAX_RANK], is[TFR_MAX_RANK];
  int nax = 0;
  for (int r = rr - 1; r >= 0; r--) {
    if (out->shape[r] == 1) continue;
    if (nax > 0 && ostr[r] == os[nax - 1] * shp[nax - 1] && istr[r] == is[nax - 1] * shp[nax - 1]) {
      shp[nax - 1] *= out->shape[r];
      continue;
    }
    shp[nax] = out->shape[r];
    os[nax] = ostr[r];
    is[nax] = istr[r];
    nax++;
  }
  if (nax == 0) {
    shp[0] = 1;
    os[0] = is[0] = 0;
    nax = 1;
  }
  gs_meta m = {0};
  for (int a = 0; a < nax; a++) {
    gs_meta_add(&m, shp[a]);
    gs_meta_add(&m, os[a]);
    gs_meta_add(&m, is[a]);
  }
  int start_base = m.n;
  gs_meta_starts(&m, ix, operand);

  gs_common c;
  memset(&c, 0, sizeof c);
  tfr_wgpu_binding binds[4];
  uint32_t src_rel = 0, dst_rel = 0;
  int64_t es = (int64_t)tfr_dtype_size(d->dtype);
  // Bindings: operand, index tensor, [metadata], result.
  tfr_status st = gs_meta_place(b, op, &m, GS_GATHER_META, &c);
  int nread = c.meta_dev ? 3 : 2;
  if (!st) st = gs_bind_view(b, op, "operand", operand, &binds[0], &src_rel);
  if (!st) st = gs_bind_indices(b, op, ix, &c);
  if (!st) st = tfr_wgpu_window(b, op, "result", out, es, out->offset, 0, out->numel - 1,
                                &binds[nread], &dst_rel);
  binds[1] = c.ind_bind;
  if (c.meta_dev) binds[2] = c.meta_bind;

  gs_elem elem;
  gs_raw((size_t)es, &elem);
  const gs_elem *e = &elem;
  char variant[96];
  snprintf(variant, sizeof variant, "gather[%s,%s%s]", e->tag, tfr_dtype_name(ind->dtype),
           c.meta_dev ? ",meta" : "");
  const char *snippets[] = {"common/index_meta.wgsl", "common/index_space.wgsl",
                            e->bytes ? "common/bytes.wgsl" : NULL, NULL};
  tfr_wgsl_subst subst[] = {
      {"SRC_ARRAY", e->array},
      {"DST_ARRAY", e->dst_array},
      {"LOAD", e->gload},
      {"STORE", e->gstore},
      {"META", gs_meta_expr(&c)},
      {"META_DECL", c.meta_dev ? "@group(0) @binding(3) var<storage, read> M: array<u32>;" : ""},
      {"DST_BINDING", c.meta_dev ? "4" : "3"},
      {"INDEX_LOAD", gs_index_load(ind->dtype)},
  };
  tfr_wgsl_override ov[] = {{"WG", GS_WG}};
  tfr_wgsl_variant v = {variant, "gather.wgsl", snippets, subst,
                        (int)(sizeof subst / sizeof subst[0]), ov, 1, nread, 1};
  WGPUComputePipeline pipeline = NULL;
  if (!st) st = tfr_wgpu_pipeline_get(b, &v, &pipeline);

  gs_gather_params p;
  memset(&p, 0, sizeof p);
  p.rank = (uint32_t)nax;
  p.nstart = (uint32_t)ix->nstart;
  p.src_offset = src_rel;
  p.ind_offset = c.ind_rel;
  p.dst_offset = dst_rel;
  p.vstride = c.vstride;
  p.start_base = (uint32_t)start_base;
  p.flags = 1;  // gather clamps
  if (!c.meta_dev) memcpy(p.meta, m.w, (size_t)m.n * sizeof(uint32_t));
  for (int64_t first = 0; !st && first < out->numel; first += GS_DISPATCH_MAX) {
    int64_t n = out->numel - first < GS_DISPATCH_MAX ? out->numel - first : GS_DISPATCH_MAX;
    p.first = (uint32_t)first;
    p.numel = (uint32_t)n;
    st = tfr_wgpu_dispatch_n(b, pipeline, &p, sizeof p, binds, nread, 1,
                             (uint64_t)(n + GS_WG - 1) / GS_WG);
  }
  gs_common_release(&c);
  return st;
}

// ---------------------------------------------------------------------------
// scatter
// ---------------------------------------------------------------------------

typedef struct gs_scatter_params {
  uint32_t count, first, nbatch, nwin;
  uint32_t nstart, flags, win_numel, n_units;
  uint32_t dst_offset, upd_offset, ind_offset, vstride;
  uint32_t skip, start_base, napply, key_scale;
  uint32_t opnd_offset, pad[3];
  uint32_t meta[GS_SCATTER_META];
} gs_scatter_params;
_Static_assert(sizeof(gs_scatter_params) == 272, "scatter Params layout");
_Static_assert(sizeof(gs_scatter_params) <= TFR_WGPU_PARAM_SLOT, "parameter slot");

typedef struct gs_sort_params {
  uint32_t n, shift, ngroups, pad0;
} gs_sort_params;

// Keys per invocation of the radix sort of n keys (see GS_SORT_EPT_MIN), or
// the measurement knob TFR_WEBGPU_SORT_EPT (b->sort_ept).
static uint32_t gs_sort_ept(const tfr_wgpu_backend *b, int64_t n) {
  if (b->sort_ept) return b->sort_ept;
  uint32_t ept = GS_SORT_EPT_MAX;
  while (ept > GS_SORT_EPT_MIN && n < (int64_t)GS_WG * ept * GS_SORT_MIN_BLOCKS) ept /= 2;
  return ept;
}

// A pipeline of one of the scatter kernels (`ept`: the sort kernels' keys
// per invocation; the others ignore it).
static tfr_status gs_pipeline(tfr_wgpu_backend *b, uint32_t ept, const char *variant,
                              const char *file, const char *const *snippets,
                              const tfr_wgsl_subst *subst, int nsubst, int nread, int nwrite,
                              WGPUComputePipeline *out) {
  tfr_wgsl_override ov[] = {{"WG", GS_WG}, {"EPT", ept}};
  bool sort = strncmp(file, "scatter_sort_", 13) == 0;
  bool scan = strcmp(file, "scatter_sort_scan.wgsl") == 0;
  tfr_wgsl_variant v = {variant, file, snippets, subst, nsubst, ov, scan ? 0 : sort ? 2 : 1,
                        nread, nwrite};
  return tfr_wgpu_pipeline_get(b, &v, out);
}

// Dispatches `count` invocations of a scatter kernel in pieces of at most
// GS_DISPATCH_MAX (p->first, p->count set per piece).
static tfr_status gs_dispatch_chunks(tfr_wgpu_backend *b, WGPUComputePipeline pl,
                                     gs_scatter_params *p, const tfr_wgpu_binding *binds,
                                     int nread, int nwrite, int64_t count) {
  for (int64_t first = 0; first < count; first += GS_DISPATCH_MAX) {
    int64_t n = count - first < GS_DISPATCH_MAX ? count - first : GS_DISPATCH_MAX;
    p->first = (uint32_t)first;
    p->count = (uint32_t)n;
    TFR_RETURN_IF_ERROR(tfr_wgpu_dispatch_n(b, pl, p, sizeof *p, binds, nread, nwrite,
                                            (uint64_t)(n + GS_WG - 1) / GS_WG));
  }
  return TFR_OK;
}

// The ordered scatter sorts key / scale, the result offset of a unit's
// window (or element) divided by the largest number that divides every such
// offset and the result's element count: fewer bits to sort (a scatter of
// rows of 64 elements sorts row numbers). Whole windows (slab scatters):
// every window starts at a sum of start components times the result strides
// of the axes where the window has size 1 (it starts at 0 on the others),
// so the gcd of those strides (and the element count) divides them all.
// Element units: 1.
static int64_t gs_key_scale(const tfr_index_space *ix, const tfr_tensor *out, bool per_element) {
  if (per_element) return 1;
  int64_t g = out->numel;
  for (int a = 0; a < out->rank; a++) {
    if (ix->window_size[a] != 1 || out->shape[a] == 1) continue;
    int64_t x = out->strides[a] < 0 ? -out->strides[a] : out->strides[a];
    while (x != 0) {
      int64_t r = g % x;
      g = x;
      x = r;
    }
  }
  return g > 0 ? g : 1;
}

static tfr_status gs_temp(tfr_wgpu_backend *b, int64_t n, tfr_tensor **t) {
  return tfr_tensor_alloc(&b->base, TFR_I32, 1, &n, false, t);
}

static tfr_status gs_bind_temp(tfr_wgpu_backend *b, const tfr_tensor *t, tfr_wgpu_binding *bind) {
  uint32_t rel;
  return tfr_wgpu_window(b, "scatter", "temporary", t, 4, 0, 0, t->numel - 1, bind, &rel);
}

tfr_status tfr_wgpu_scatter(tfr_backend *base, const tfr_scatter_desc *d) {
  const char *op = "scatter";
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, op));
  tfr_tensor *out = d->out;
  const tfr_tensor *upd = d->updates, *ind = d->ix.indices;
  const tfr_index_space *ix = &d->ix;
  tfr_dtype dt = d->dtype;
  tfr_wgpu_family family = d->combiner == TFR_SCATTER_REPLACE ? TFR_WGPU_SCATTER_REPLACE
                           : d->combiner == TFR_SCATTER_MAXIMUM || d->combiner == TFR_SCATTER_MINIMUM
                               ? TFR_WGPU_SCATTER_MINMAX
                               : TFR_WGPU_SCATTER_ARITHMETIC;
  gs_elem elem;
  const gs_elem *e = &elem;
  if (!tfr_wgpu_dtype_computes(family, dt))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "scatter (%s): dtype %s is not supported on the webgpu backend",
                     gs_combiner_name(d->combiner), tfr_dtype_name(dt));
  if (d->combiner == TFR_SCATTER_REPLACE) gs_raw(tfr_dtype_size(dt), &elem);
  else gs_typed(dt, &elem);
  if (out->numel == 0) return TFR_OK;
  if (upd->numel == 0) return d->operand ? tfr_wgpu_copy(b, op, d->operand, out) : TFR_OK;
  if (out->numel >= ((int64_t)1 << 32) - 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "scatter: webgpu: the result has %" PRId64 " elements, at most 2^32 - 2",
                     out->numel);

  // Batch axes (row-major), merged innermost first: extent, index, updates
  // and result (batching dims) strides.
  int64_t bshp[TFR_MAX_RANK], bi[TFR_MAX_RANK], bu[TFR_MAX_RANK], bo[TFR_MAX_RANK];
  int nbax = 0;
  int64_t nb = 1;
  for (int j = ix->nbatch - 1; j >= 0; j--) {
    int64_t n = ix->batch_extent[j];
    nb *= n;
    if (n == 1) continue;
    int64_t si = ind->strides[ix->batch_index_axis[j]];
    int64_t su = upd->strides[d->batch_update_axis[j]];
    int64_t so = 0;
    for (int i = 0; i < ix->nbatching; i++)
      if (ix->batching_pos[i] == j) so += out->strides[ix->batching_axis[i]];
    int k = nbax - 1;
    if (nbax > 0 && si == bi[k] * bshp[k] && su == bu[k] * bshp[k] && so == bo[k] * bshp[k]) {
      bshp[k] *= n;
      continue;
    }
    bshp[nbax] = n, bi[nbax] = si, bu[nbax] = su, bo[nbax] = so;
    nbax++;
  }
  if (nbax == 0) bshp[0] = 1, bi[0] = bu[0] = bo[0] = 0, nbax = 1;
  // Window axes, merged innermost first: extent, result and updates strides.
  int64_t wshp[TFR_MAX_RANK], wo[TFR_MAX_RANK], wu[TFR_MAX_RANK];
  int nwax = 0;
  int64_t win_numel = 1;
  for (int i = ix->nwindow - 1; i >= 0; i--) {
    int64_t n = ix->window_extent[i];
    win_numel *= n;
    if (n == 1) continue;
    int64_t so = out->strides[ix->window_axis[i]];
    int64_t su = upd->strides[d->window_update_axis[i]];
    int k = nwax - 1;
    if (nwax > 0 && so == wo[k] * wshp[k] && su == wu[k] * wshp[k]) {
      wshp[k] *= n;
      continue;
    }
    wshp[nwax] = n, wo[nwax] = so, wu[nwax] = su;
    nwax++;
  }
  if (nwax == 0) wshp[0] = 1, wo[0] = wu[0] = 0, nwax = 1;
  gs_meta m = {0};
  for (int a = 0; a < nbax; a++) {
    gs_meta_add(&m, bshp[a]);
    gs_meta_add(&m, bi[a]);
    gs_meta_add(&m, bu[a]);
    gs_meta_add(&m, bo[a]);
  }
  for (int a = 0; a < nwax; a++) {
    gs_meta_add(&m, wshp[a]);
    gs_meta_add(&m, wo[a]);
    gs_meta_add(&m, wu[a]);
  }
  int start_base = m.n;
  gs_meta_starts(&m, ix, out);

  // The way (see the top of the file).
  const char *atomic = gs_atomic_apply(d->combiner, dt);
  bool direct = nb == 1 || atomic;
  // Windows equal or disjoint: every axis has window size 1 or its extent.
  bool slab = true;
  for (int a = 0; a < out->rank; a++)
    if (ix->window_size[a] != 1 && ix->window_size[a] != out->shape[a]) slab = false;
  bool per_element = !slab && win_numel > 1;
  int64_t n_units = per_element ? nb * win_numel : nb;
  if (!direct && n_units >= ((int64_t)1 << 31))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "scatter: webgpu: %" PRId64 " updates to order exceed the 2^31 one sort "
                     "handles",
                     n_units);

  gs_common c;
  memset(&c, 0, sizeof c);
  // keys0, vals0, keys1, vals1, hist, starts
  tfr_tensor *tmp[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  tfr_wgpu_binding upd_bind, dst_bind, tb[6], opnd_bind;
  uint32_t upd_rel = 0, dst_rel = 0, opnd_rel = 0;
  int64_t es = (int64_t)tfr_dtype_size(dt);
  tfr_status st = gs_meta_place(b, op, &m, GS_SCATTER_META, &c);
  if (!st) st = gs_bind_view(b, op, "updates", upd, &upd_bind, &upd_rel);
  if (!st) st = gs_bind_indices(b, op, ix, &c);
  if (!st) st = tfr_wgpu_window(b, op, "result", out, es, out->offset, 0, out->numel - 1,
                                &dst_bind, &dst_rel);
  if (st) goto done;

  gs_scatter_params p;
  memset(&p, 0, sizeof p);
  p.nbatch = (uint32_t)nbax;
  p.nwin = (uint32_t)nwax;
  p.nstart = (uint32_t)ix->nstart;
  p.flags = (d->clamp_starts ? 1u : 0u) | (per_element ? 2u : 0u);
  p.win_numel = (uint32_t)win_numel;
  p.n_units = (uint32_t)n_units;
  p.dst_offset = dst_rel;
  p.upd_offset = upd_rel;
  p.ind_offset = c.ind_rel;
  p.vstride = c.vstride;
  p.key_scale = (uint32_t)gs_key_scale(ix, out, per_element);
  p.skip = (uint32_t)(out->numel / p.key_scale);
  p.start_base = (uint32_t)start_base;
  p.napply = per_element ? 1u : (uint32_t)((win_numel + GS_APPLY_EPW - 1) / GS_APPLY_EPW);
  if (!c.meta_dev) memcpy(p.meta, m.w, (size_t)m.n * sizeof(uint32_t));

  // Windows that tile the result (window `key` = result elements
  // [key * key_scale, (key + 1) * key_scale), one contiguous axis, or single
  // elements): scatter_apply_tiled.wgsl writes every result element once,
  // from the operand and the updates, in place of the operand's copy and
  // scatter_apply.wgsl. Row scatters are such: they read and write the
  // result's hit rows once instead of twice. Needs the ordered way, a
  // compact operand and elements of at least 4 bytes; and windows of 16
  // elements or more, or at least as many units as windows: its table of
  // run starts (4 bytes a window) is read whole, which a few updates into
  // many small windows would not repay.
  const tfr_tensor *opnd = d->operand;
  bool tiled = opnd && !direct && !per_element && !e->bytes && nwax == 1 &&
               wshp[0] == (int64_t)p.key_scale && (wshp[0] == 1 || wo[0] == 1) &&
               (p.key_scale >= 16 || n_units >= (int64_t)p.skip) &&
               tfr_tensor_is_contiguous(opnd);
  if (tiled) {
    st = tfr_wgpu_window(b, op, "operand", opnd, es, opnd->offset, 0, opnd->numel - 1,
                         &opnd_bind, &opnd_rel);
    p.opnd_offset = opnd_rel;
  } else if (opnd) {
    st = tfr_wgpu_copy(b, op, opnd, out);
  }
  if (st) goto done;

  const char *itag = tfr_dtype_name(ind->dtype);
  const char *mtag = c.meta_dev ? ",meta" : "";
  const char *meta_expr = gs_meta_expr(&c);
  const char *index_load = gs_index_load(ind->dtype);
  char variant[128];

  if (direct) {
    // Bindings: updates, index tensor, [metadata], result.
    char apply[1536];
    const char *dst_array = e->dst_array;
    if (atomic) {
      snprintf(apply, sizeof apply, "%s;", atomic);
      if (dt == TFR_I32) dst_array = "array<atomic<i32>>";
    } else {
      snprintf(apply, sizeof apply,
               "let acc: %s = %s;\n  let x: %s = %s;\n  let val: %s = %s;\n  %s;", e->value_t,
               e->dload, e->value_t, e->uload, e->value_t,
               gs_combine_expr(d->combiner, dt), e->sstore);
    }
    // The dtype names the combine expression (i64 and f64 share an element type).
    snprintf(variant, sizeof variant, "scatter_direct[%s:%s,%s,%s%s]", tfr_dtype_name(dt),
             e->tag, gs_combiner_name(d->combiner), itag, mtag);
    const char *snippets[] = {"common/scatter_params.wgsl", "common/index_meta.wgsl",
                              "common/index_space.wgsl", "common/scatter_space.wgsl",
                              "common/u64.wgsl", "common/f64.wgsl", "common/c128.wgsl",
                              "common/scatter_combine.wgsl",
                              e->bytes ? "common/bytes.wgsl" : NULL, gs_half_snippet(dt), NULL};
    tfr_wgsl_subst subst[] = {
        {"UPD_ARRAY", e->array},
        {"DST_ARRAY", dst_array},
        {"APPLY", apply},
        {"META", meta_expr},
        {"META_DECL", c.meta_dev ? "@group(0) @binding(3) var<storage, read> M: array<u32>;" : ""},
        {"DST_BINDING", c.meta_dev ? "4" : "3"},
        {"INDEX_LOAD", index_load},
    };
    WGPUComputePipeline pl;
    st = gs_pipeline(b, 0, variant, "scatter_direct.wgsl", snippets, subst,
                     (int)(sizeof subst / sizeof subst[0]), c.meta_dev ? 3 : 2, 1, &pl);
    if (st) goto done;
    tfr_wgpu_binding binds[4] = {upd_bind, c.ind_bind, c.meta_bind, dst_bind};
    if (!c.meta_dev) binds[2] = dst_bind;
    st = gs_dispatch_chunks(b, pl, &p, binds, c.meta_dev ? 3 : 2, 1, nb * win_numel);
    goto done;
  }

  // Ordered: keys, stable radix sort, apply.
  uint32_t ept = gs_sort_ept(b, n_units);
  int64_t block = (int64_t)GS_WG * ept;
  int64_t ngroups = (n_units + block - 1) / block;
  for (int i = 0; i < 4 && !st; i++) st = gs_temp(b, n_units, &tmp[i]);
  // Per digit and block, then the digit totals.
  if (!st) st = gs_temp(b, GS_SORT_RADIX * (ngroups + 1), &tmp[4]);
  for (int i = 0; i < 5 && !st; i++) st = gs_bind_temp(b, tmp[i], &tb[i]);
  if (st) goto done;
  {
    // Keys: index tensor, [metadata]; keys0, vals0.
    snprintf(variant, sizeof variant, "scatter_keys[%s%s]", itag, mtag);
    const char *snippets[] = {"common/scatter_params.wgsl", "common/index_meta.wgsl",
                              "common/index_space.wgsl", "common/scatter_space.wgsl", NULL};
    tfr_wgsl_subst subst[] = {
        {"META", meta_expr},
        {"META_DECL", c.meta_dev ? "@group(0) @binding(2) var<storage, read> M: array<u32>;" : ""},
        {"KEYS_BINDING", c.meta_dev ? "3" : "2"},
        {"VALS_BINDING", c.meta_dev ? "4" : "3"},
        {"INDEX_LOAD", index_load},
    };
    WGPUComputePipeline pl;
    st = gs_pipeline(b, 0, variant, "scatter_keys.wgsl", snippets, subst,
                     (int)(sizeof subst / sizeof subst[0]), c.meta_dev ? 2 : 1, 2, &pl);
    if (st) goto done;
    tfr_wgpu_binding binds[4] = {c.ind_bind, c.meta_bind, tb[0], tb[1]};
    if (!c.meta_dev) binds[1] = tb[0], binds[2] = tb[1];
    p.count = (uint32_t)n_units;
    st = tfr_wgpu_dispatch_n(b, pl, &p, sizeof p, binds, c.meta_dev ? 2 : 1, 2,
                             (uint64_t)(n_units + GS_WG - 1) / GS_WG);
    if (st) goto done;
  }
  int cur = 0;  // the pair holding the keys: 0 (tmp 0, 1) or 1 (tmp 2, 3)
  {
    WGPUComputePipeline hist, scan, move;
    const char *scan_snippet[] = {"common/workgroup_scan.wgsl", NULL};
    st = gs_pipeline(b, ept, "scatter_sort_hist", "scatter_sort_hist.wgsl", NULL, NULL, 0, 1, 1, &hist);
    if (!st)
      st = gs_pipeline(b, ept, "scatter_sort_scan", "scatter_sort_scan.wgsl", scan_snippet, NULL, 0, 0,
                       1, &scan);
    if (!st)
      st = gs_pipeline(b, ept, "scatter_sort_move", "scatter_sort_move.wgsl", scan_snippet, NULL, 0, 3,
                       2, &move);
    if (st) goto done;
    // Keys are at most p.skip: sort that many bits.
    int bits = 0;
    while (bits < 32 && ((uint64_t)p.skip >> bits) != 0) bits++;
    for (int shift = 0; shift < bits && !st; shift += GS_SORT_BITS) {
      gs_sort_params sp = {(uint32_t)n_units, (uint32_t)shift, (uint32_t)ngroups, 0};
      tfr_wgpu_binding hb[2] = {tb[2 * cur], tb[4]};
      tfr_wgpu_binding mb[5] = {tb[2 * cur], tb[2 * cur + 1], tb[4], tb[2 * (1 - cur)],
                                tb[2 * (1 - cur) + 1]};
      st = tfr_wgpu_dispatch_n(b, hist, &sp, sizeof sp, hb, 1, 1, (uint64_t)ngroups);
      if (!st) st = tfr_wgpu_dispatch_n(b, scan, &sp, sizeof sp, &tb[4], 0, 1, GS_SORT_RADIX);
      if (!st) st = tfr_wgpu_dispatch_n(b, move, &sp, sizeof sp, mb, 3, 2, (uint64_t)ngroups);
      cur = 1 - cur;
    }
    if (st) goto done;
  }
  if (tiled) {
    // Run starts: keys; starts.
    st = gs_temp(b, (int64_t)p.skip, &tmp[5]);
    if (!st) st = gs_bind_temp(b, tmp[5], &tb[5]);
    if (st) goto done;
    const char *starts_snippets[] = {"common/scatter_params.wgsl", NULL};
    WGPUComputePipeline starts;
    st = gs_pipeline(b, 0, "scatter_starts", "scatter_starts.wgsl", starts_snippets, NULL, 0, 1, 1,
                     &starts);
    if (st) goto done;
    tfr_wgpu_binding sb[2] = {tb[2 * cur], tb[5]};
    st = gs_dispatch_chunks(b, starts, &p, sb, 1, 1, n_units);
    if (st) goto done;
  }
  {
    // Apply: updates, keys, values, [metadata]; result. Tiled: updates,
    // keys, values, starts, operand, [metadata]; result.
    const char *file = tiled ? "scatter_apply_tiled.wgsl" : "scatter_apply.wgsl";
    int nread = tiled ? 5 : 3;
    char epw[16], meta_decl[80], dst_binding[8];
    snprintf(epw, sizeof epw, "%d", GS_APPLY_EPW);
    snprintf(meta_decl, sizeof meta_decl,
             "@group(0) @binding(%d) var<storage, read> M: array<u32>;", nread + 1);
    snprintf(dst_binding, sizeof dst_binding, "%d", nread + 1 + (c.meta_dev ? 1 : 0));
    snprintf(variant, sizeof variant, "%s[%s:%s,%s%s]",
             tiled ? "scatter_apply_tiled" : "scatter_apply", tfr_dtype_name(dt), e->tag,
             gs_combiner_name(d->combiner), mtag);
    const char *snippets[] = {"common/scatter_params.wgsl", "common/index_meta.wgsl",
                              "common/scatter_space.wgsl", "common/u64.wgsl", "common/f64.wgsl",
                              "common/c128.wgsl", "common/scatter_combine.wgsl",
                              "common/scatter_run.wgsl",
                              e->bytes ? "common/bytes.wgsl" : NULL, gs_half_snippet(dt), NULL};
    tfr_wgsl_subst subst[] = {
        {"UPD_ARRAY", e->array},
        {"DST_ARRAY", e->dst_array},
        {"VALUE_T", e->value_t},
        {"EPW", epw},
        {tiled ? "OLOAD" : "DLOAD", tiled ? e->oload : e->dload},
        {"ULOAD", e->uload},
        {"COMBINE", gs_combine_expr(d->combiner, dt)},
        {"STORE", e->sstore},
        {"META", meta_expr},
        {"META_DECL", c.meta_dev ? meta_decl : ""},
        {"DST_BINDING", dst_binding},
        {"OPND_ARRAY", e->array},  // last: the tiled kernel's only
    };
    int nsubst = (int)(sizeof subst / sizeof subst[0]) - (tiled ? 0 : 1);
    WGPUComputePipeline pl;
    if (c.meta_dev) nread++;
    st = gs_pipeline(b, 0, variant, file, snippets, subst, nsubst, nread, 1, &pl);
    if (st) goto done;
    tfr_wgpu_binding binds[7] = {upd_bind, tb[2 * cur], tb[2 * cur + 1]};
    int nbind = 3;
    if (tiled) binds[nbind++] = tb[5], binds[nbind++] = opnd_bind;
    if (c.meta_dev) binds[nbind++] = c.meta_bind;
    binds[nbind] = dst_bind;
    st = gs_dispatch_chunks(b, pl, &p, binds, nread, 1,
                            tiled ? (int64_t)p.skip * (int64_t)p.napply
                                  : n_units * (int64_t)p.napply);
  }

done:
  for (int i = 0; i < 6; i++) tfr_tensor_release(tmp[i]);
  gs_common_release(&c);
  return st;
}
