// webgpu reductions: StableHLO `reduce` with a one-op body (add, multiply,
// maximum, minimum, and, or, xor) over any set of axes of any strided view,
// for f32, i32, bool, c64, f64 (add, multiply, maximum, minimum: the
// correctly rounded operations of common/f64.wgsl, in the same fixed order
// as f32), i64 and u64 (common/u64.wgsl: wrapping sums and products, which
// any order gives exactly), c128 (add, multiply: common/c128.wgsl, the
// same fixed order; exact where every partial sum or product is), u32, i8,
// i16, u8, u16 (in i32 / u32, wrapping; the store keeps the low bits) and
// f16, bf16 (tfr_red_half: in f32 on a converted copy, rounded once).
//
// Planning follows src/cpu/reduce.c: reversed axes are flipped (every
// combiner is commutative), extent-1 axes dropped, the kept and the reduced
// axes each sorted by input stride (stride 0 outermost) and merged where they
// step over each other. kernels/reduce.wgsl then runs passes of tasks
// (output, segment of its reduced range), in one of two layouts:
//   * rows: a reduced axis is innermost (or everything is reduced): TPO
//     invocations share a task, reading consecutive units (16-byte vec4 loads
//     when the reduced axis is contiguous and aligned), then a tree in
//     workgroup memory;
//   * lanes: a kept axis is innermost (e.g. a sum over axis 0): up to
//     TFR_RED_RG_LANES invocations share a task, as rows of the workgroup;
//     neighbouring invocations on neighbouring outputs, each walking down its
//     share of the segment of the reduced axes, then the same tree.
// A reduction longer than one segment writes partial results [segment][output]
// to a temporary, which the next pass reduces the same way: the input is read
// once, the partials (1/64 of it at most) once more. Each pass combines at
// most EPT units sequentially per invocation, then a fixed tree, so float sums
// have an error bound O(log m), and results never depend on timing.
#include <stdio.h>
#include <string.h>

#include "core/half.h"
#include "core/reduce_axes.h"
#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/transfer.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_types.h"

#define TFR_RED_WG 256
// Units per invocation in one pass: rows (with TPO invocations per task, each
// a vec4 load when possible) and lanes (one invocation per task). Rows: 16
// for add and multiply, whose rounding error grows with it (2^24 x 0.1f:
// relative error 1.5e-7 with 16, 3.7e-7 with 32), 32 for the exact combiners
// (H200, max over 2^28 f32: 8 -> 0.292 ms, 16 -> 0.279, 32 -> 0.270, 64 ->
// 0.270). b->reduce_ept (TFR_WEBGPU_REDUCE_EPT) overrides all three, for measurements.
#define TFR_RED_EPT_ROWS 16
#define TFR_RED_EPT_ROWS_EXACT 32
#define TFR_RED_EPT_LANES 64
// Lanes layout: invocations sharing a task (rows of the workgroup, see
// kernels/reduce.wgsl), so that a workgroup covers TFR_RED_RG_LANES * EPT
// units of the reduced range before the tree, and the partial results
// (and the passes over them) shrink that many times. b->reduce_rg
// (TFR_WEBGPU_REDUCE_RG) overrides it, for measurements.
#define TFR_RED_RG_LANES 4
// Axes the kernel takes of each kind (its uniform parameters).
#define TFR_RED_KERNEL_AXES 8

static const char *const tfr_red_names[] = {"add", "multiply", "maximum", "minimum",
                                            "and", "or",       "xor"};

// How a dtype is loaded, combined and stored (from the WGSL type layer).
typedef struct tfr_red_type {
  const char *tag, *value_t;
  const char *src_array;                          // scalar units
  char load[160], loadv[64];
  int vw;                                         // elements per vec4 (0: no vec4 loads)
  const char *vsrc_array;                         // vec4 units
  char vload[96], vloadv[96];
  const char *init_array;
  char load_init[160], init_bits[96];
  const char *dst_array;
  char store[96];
  bool bytes;
} tfr_red_type;

// Fills *r for `dt`; false where reductions do not compute on it.
static bool tfr_red_type_of(tfr_dtype dt, tfr_red_type *r) {
  memset(r, 0, sizeof *r);
  if (!tfr_wgpu_dtype_computes(TFR_WGPU_REDUCE, dt)) return false;
  const tfr_wgsl_type *t = tfr_wgsl_type_of(dt);
  r->tag = t->tag;
  r->value_t = t->value;
  r->src_array = r->init_array = t->array;
  tfr_wgsl_load(t, "src", "j", r->load, sizeof r->load);
  snprintf(r->loadv, sizeof r->loadv, "return array<%s, 1>(load(q));", t->value);
  tfr_wgsl_load(t, "initv", "j", r->load_init, sizeof r->load_init);
  r->dst_array = t->write_array;
  tfr_wgsl_store(t, "k", "val", r->store, sizeof r->store);
  r->bytes = t->per_word != 0;
  if (t->per_word) {  // no vec4 loads; i8/i16 values sign-extended (wgsl_types.h)
    char bits[32];
    snprintf(bits, sizeof bits, "(P.init_bits.x & 0x%xu)", t->mask);
    tfr_wgsl_widen(t, bits, r->init_bits, sizeof r->init_bits);
    if (!t->widen) snprintf(r->init_bits, sizeof r->init_bits, "%s", bits);
    return true;
  }
  if (t->per_vec == 1) {  // c128: one value per 16 bytes, loaded as it is
    snprintf(r->init_bits, sizeof r->init_bits, "P.init_bits");
    return true;
  }
  r->vw = t->per_vec;
  r->vsrc_array = t->vec_array;
  if (t->per_vec == 4) {
    snprintf(r->init_bits, sizeof r->init_bits, "bitcast<%s>(P.init_bits.x)", t->value);
    snprintf(r->vload, sizeof r->vload, "src[j >> 2u][j & 3u]");
    snprintf(r->vloadv, sizeof r->vloadv,
             "let w = src[q];\n  return array<%s, 4>(w.x, w.y, w.z, w.w);", t->value);
  } else {  // two 8-byte values per vec4
    snprintf(r->init_bits, sizeof r->init_bits, "bitcast<%s>(P.init_bits.xy)", t->value);
    snprintf(r->vload, sizeof r->vload, "select(src[j >> 1u].xy, src[j >> 1u].zw, (j & 1u) == 1u)");
    snprintf(r->vloadv, sizeof r->vloadv, "let w = src[q];\n  return array<%s, 2>(w.xy, w.zw);",
             t->value);
  }
  return true;
}

// Float maximum (CMP ">", ZERO "&": +0 wins) or minimum ("<", "|": -0 wins),
// without branches. NaN is decided on the bits and applied last: a NaN
// accumulator stays, a NaN element replaces a number. (The comparisons alone
// do not carry NaN through: NVIDIA's compiler turns select(a, b, b > a) into
// a max instruction, which returns the number; measured on the H200.)
#define TFR_RED_FMINMAX(CMP, ZERO)                                                    \
  "let ua = bitcast<u32>(a);\n"                                                      \
  "  let ub = bitcast<u32>(b);\n"                                                    \
  "  var r = select(a, b, b " CMP " a);\n"                                           \
  "  r = select(r, bitcast<f32>(ua " ZERO " ub), a == b);\n"                         \
  "  let nan_a = (ua & 0x7fffffffu) > 0x7f800000u;\n"                                \
  "  let nan_b = (ub & 0x7fffffffu) > 0x7f800000u;\n"                                \
  "  return select(select(r, b, nan_b), a, nan_a);"

// The body of op(a, b). Float maximum/minimum propagate NaN (a NaN
// accumulator stays, a NaN element replaces it, tested on the bits) and order
// -0 below +0 (IEEE 754-2019 maximum/minimum), so their result does not
// depend on the order of the tree (f64: tfr_f64_max/min, the same rules).
// Integer add/multiply wrap (WGSL's i32 arithmetic is two's complement). Bool
// maximum/minimum/and/or/xor work on the bytes.
static const char *tfr_red_op(tfr_reduce_combiner c, tfr_dtype dt) {
  if (dt == TFR_C128) {  // common/c128.wgsl; the registry has only add and multiply
    if (c == TFR_REDUCE_ADD) return "return tfr_c128_add(a, b);";
    return c == TFR_REDUCE_MULTIPLY ? "return tfr_c128_mul(a, b);" : NULL;
  }
  bool f64 = dt == TFR_F64;
  bool w64 = dt == TFR_I64 || dt == TFR_U64;  // common/u64.wgsl, wrapping
  switch (c) {
    case TFR_REDUCE_ADD:
      if (w64) return "return tfr_u64_add(a, b);";
      return f64 ? "return tfr_f64_add(a, b);" : "return a + b;";
    case TFR_REDUCE_MULTIPLY:
      if (w64) return "return tfr_u64_mul_lo(a, b);";
      if (f64) return "return tfr_f64_mul(a, b);";
      return dt == TFR_C64 ? "return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);"
                           : "return a * b;";
    case TFR_REDUCE_MAXIMUM:
      if (w64) return dt == TFR_I64 ? "return tfr_i64_max(a, b);" : "return tfr_u64_max(a, b);";
      if (f64) return "return tfr_f64_max(a, b);";
      return dt == TFR_F32 ? TFR_RED_FMINMAX(">", "&") : "return max(a, b);";
    case TFR_REDUCE_MINIMUM:
      if (w64) return dt == TFR_I64 ? "return tfr_i64_min(a, b);" : "return tfr_u64_min(a, b);";
      if (f64) return "return tfr_f64_min(a, b);";
      return dt == TFR_F32 ? TFR_RED_FMINMAX("<", "|") : "return min(a, b);";
    case TFR_REDUCE_AND: return "return a & b;";
    case TFR_REDUCE_OR: return "return a | b;";
    case TFR_REDUCE_XOR: return "return a ^ b;";
  }
  return NULL;
}

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

// One pass (axes: core/reduce_axes.h, strides in elements): `src` read from element src_off along the axes, results written
// to `dst` from dst_off (plus seg * seg_stride for partial results).
typedef struct tfr_red_pass {
  const tfr_tensor *src;
  int64_t src_off;
  int nk, nr;
  tfr_red_axis kept[TFR_MAX_RANK];  // by input stride, innermost first
  tfr_red_axis red[TFR_MAX_RANK];   // likewise; at least one
  tfr_tensor *dst;
  int64_t dst_off;
} tfr_red_pass;

// The canonical axes of reducing `x` over `reduced` into `out` (compact).
static void tfr_red_plan(const tfr_tensor *x, const bool *reduced, tfr_tensor *out,
                         tfr_red_pass *p) {
  memset(p, 0, sizeof *p);
  int out_axis[TFR_MAX_RANK];
  for (int k = 0, r = 0; k < x->rank; k++) out_axis[k] = reduced[k] ? -1 : r++;
  int64_t in = x->offset, o = out->offset;
  for (int k = x->rank - 1; k >= 0; k--) {
    tfr_red_axis a = {x->shape[k], x->strides[k], 0};
    if (!reduced[k]) a.os = out->strides[out_axis[k]];
    if (a.n == 1) continue;
    if (a.s < 0) {
      in += (a.n - 1) * a.s;
      a.s = -a.s;
      if (!reduced[k]) {
        o += (a.n - 1) * a.os;
        a.os = -a.os;
      }
    }
    if (reduced[k]) tfr_red_insert(p->red, &p->nr, a);
    else tfr_red_insert(p->kept, &p->nk, a);
  }
  p->nk = tfr_red_merge_axes(p->kept, p->nk, true);
  p->nr = tfr_red_merge_axes(p->red, p->nr, false);
  if (p->nr == 0) {  // nothing reduced: one element per output
    p->red[0] = (tfr_red_axis){1, 0, 0};
    p->nr = 1;
  }
  p->src = x;
  p->src_off = in;
  p->dst = out;
  p->dst_off = o;
}

// ---------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------

// Parameters of reduce.wgsl (its `Params`).
typedef struct tfr_red_params {
  uint32_t nout, nseg, munits, seg_units;
  uint32_t tpo, pad3, nk, nr;
  uint32_t src_offset, dst_offset, seg_stride, init_mode;
  uint32_t init_offset, lane_stride, pad1, pad2;
  uint32_t init_bits[4];
  uint32_t kshape[8], kin[8], kout[8];
  uint32_t rshape[8], rin[8];
} tfr_red_params;
_Static_assert(sizeof(tfr_red_params) == 240, "reduce Params layout");

typedef struct tfr_red_ctx {
  tfr_wgpu_backend *b;
  const tfr_reduce_desc *d;
  const tfr_red_type *ty;  // NULL: the dtype does not reduce
  char op[48];  // "reduce (add)"
  tfr_red_type type;
} tfr_red_ctx;

static tfr_status tfr_red_pipeline(tfr_red_ctx *c, bool vec, bool split, bool lanes,
                                   uint32_t ept, WGPUComputePipeline *out) {
  const tfr_red_type *t = c->ty;
  char variant[96], nv[8];
  snprintf(variant, sizeof variant, "reduce[%s,%s%s]", tfr_red_names[c->d->combiner], t->tag,
           vec ? ",vec4" : "");
  snprintf(nv, sizeof nv, "%d", vec ? t->vw : 1);
  const char *snippets[5];
  int ns = 0;
  if (t->bytes) snippets[ns++] = "common/bytes.wgsl";
  if (tfr_wgsl_type_of(c->d->dtype)->emulated) snippets[ns++] = "common/u64.wgsl";
  if (c->d->dtype == TFR_F64 || c->d->dtype == TFR_C128) snippets[ns++] = "common/f64.wgsl";
  if (c->d->dtype == TFR_C128) snippets[ns++] = "common/c128.wgsl";
  snippets[ns] = NULL;
  tfr_wgsl_subst subst[] = {
      {"VALUE_T", t->value_t},
      {"NV", nv},
      {"SRC_ARRAY", vec ? t->vsrc_array : t->src_array},
      {"LOAD", vec ? t->vload : t->load},
      {"LOADV", vec ? t->vloadv : t->loadv},
      {"INIT_ARRAY", t->init_array},
      {"LOAD_INIT", t->load_init},
      {"INIT_BITS", t->init_bits},
      {"OP", tfr_red_op(c->d->combiner, c->d->dtype)},
      {"DST_ARRAY", t->dst_array},
      {"STORE", t->store},
  };
  tfr_wgsl_override ov[] = {{"WG", TFR_RED_WG},
                            {"EPT", ept},
                            {"SPLIT", split ? 1u : 0u},
                            {"LANES", lanes ? 1u : 0u}};
  tfr_wgsl_variant v = {variant, "reduce.wgsl", snippets, subst,
                        (int)(sizeof subst / sizeof subst[0]), ov, 4, 2, 1};
  return tfr_wgpu_pipeline_get(c->b, &v, out);
}

static uint32_t tfr_red_pow2_at_least(uint64_t n) {
  uint32_t p = 1;
  while (p < n && p < TFR_RED_WG) p *= 2;
  return p;
}

// Records one pass; on return *final tells whether it wrote the results, else
// *p is rewritten as the next pass over the partial results in *tmp (which
// the caller releases after the next pass).
static tfr_status tfr_red_run_pass(tfr_red_ctx *c, tfr_red_pass *p, bool *final,
                                   tfr_tensor **tmp) {
  tfr_wgpu_backend *b = c->b;
  const tfr_red_type *t = c->ty;
  *final = true;
  *tmp = NULL;
  uint64_t m = 1, nout = 1;
  for (int j = 0; j < p->nr; j++) m *= (uint64_t)p->red[j].n;
  for (int j = 0; j < p->nk; j++) nout *= (uint64_t)p->kept[j].n;
  if (p->nk > TFR_RED_KERNEL_AXES || p->nr > TFR_RED_KERNEL_AXES)
    return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: %d kept and %d reduced axes after merging",
                     c->op, p->nk, p->nr);

  bool lanes = p->nk > 0 && tfr_red_key(p->kept[0].s) < tfr_red_key(p->red[0].s);
  // vec4 units: along a contiguous reduced axis (rows), or across a
  // contiguous kept axis (lanes, `split`: a unit holds nvw outputs), when
  // every offset is a multiple of nvw elements.
  int nvw = 1;
  bool split = false;
  if (t->vw > 0 && p->src_off % t->vw == 0) {
    int64_t vw = t->vw;
    bool ok;
    if (!lanes) {
      ok = p->nr == 1 && p->red[0].s == 1 && m % (uint64_t)vw == 0;
      for (int j = 0; j < p->nk; j++) ok = ok && p->kept[j].s % vw == 0;
    } else {
      ok = p->kept[0].s == 1 && p->kept[0].n % vw == 0;
      for (int j = 1; j < p->nk; j++) ok = ok && p->kept[j].s % vw == 0;
      for (int j = 0; j < p->nr; j++) ok = ok && p->red[j].s % vw == 0;
      split = ok;
    }
    if (ok) nvw = (int)vw;
  }
  uint64_t munits = split ? m : m / (uint64_t)nvw;
  uint64_t ngroups = split ? nout / (uint64_t)nvw : nout;  // tasks per segment
  bool rounds = c->d->combiner == TFR_REDUCE_ADD || c->d->combiner == TFR_REDUCE_MULTIPLY;
  uint32_t ept = lanes ? TFR_RED_EPT_LANES : rounds ? TFR_RED_EPT_ROWS : TFR_RED_EPT_ROWS_EXACT;
  if (c->b->reduce_ept) ept = c->b->reduce_ept;
  uint32_t tpo = tfr_red_pow2_at_least((munits + ept - 1) / ept);
  if (lanes) {
    uint32_t rg = c->b->reduce_rg ? c->b->reduce_rg : TFR_RED_RG_LANES;
    if (tpo > rg) tpo = rg;
  }
  uint64_t seg_units = (uint64_t)tpo * ept;
  uint64_t nseg = munits == 0 ? 1 : (munits + seg_units - 1) / seg_units;
  uint64_t tasks = ngroups * nseg;
  if (munits >= ((uint64_t)1 << 32) || tasks >= ((uint64_t)1 << 32))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: webgpu: %llu outputs of %llu reduced elements each exceed what one "
                     "dispatch indexes (2^32 of either)",
                     c->op, (unsigned long long)nout, (unsigned long long)m);
  *final = nseg == 1;

  tfr_red_params P;
  memset(&P, 0, sizeof P);
  P.nout = (uint32_t)ngroups;
  P.nseg = (uint32_t)nseg;
  P.munits = (uint32_t)munits;
  P.seg_units = (uint32_t)seg_units;
  P.tpo = tpo;
  P.nk = (uint32_t)p->nk;
  P.nr = (uint32_t)p->nr;

  // Destination: the result, or partial results [segment][output].
  tfr_tensor *dst = p->dst;
  int64_t dst_off = p->dst_off;
  int64_t kout[TFR_MAX_RANK];
  if (*final) {
    for (int j = 0; j < p->nk; j++) kout[j] = p->kept[j].os;
  } else {
    int64_t shape[2] = {(int64_t)nseg, (int64_t)nout};
    TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, c->d->dtype, 2, shape, false, tmp));
    dst = *tmp;
    dst_off = 0;
    int64_t s = 1;
    for (int j = 0; j < p->nk; j++) {
      kout[j] = s;
      s *= p->kept[j].n;
    }
    P.seg_stride = (uint32_t)nout;
  }
  for (int j = 0; j < p->nk; j++) {
    P.kshape[j] = (uint32_t)p->kept[j].n;
    P.kin[j] = (uint32_t)p->kept[j].s;
    P.kout[j] = (uint32_t)kout[j];
  }
  if (split) {  // kept axis 0 in groups of nvw outputs
    P.kshape[0] = (uint32_t)(p->kept[0].n / nvw);
    P.kin[0] = (uint32_t)nvw;
    P.kout[0] = (uint32_t)(kout[0] * nvw);
    P.lane_stride = (uint32_t)kout[0];
  }
  for (int j = 0; j < p->nr; j++) {
    P.rshape[j] = (uint32_t)p->red[j].n;
    P.rin[j] = (uint32_t)p->red[j].s;
  }

  // Windows: source, init (or the source again), destination.
  tfr_status st = TFR_OK;
  tfr_wgpu_binding bind[3];
  int64_t lo = 0, hi = 0, klo, khi, rlo, rhi;
  int64_t ks[TFR_MAX_RANK], kss[TFR_MAX_RANK], rs[TFR_MAX_RANK], rss[TFR_MAX_RANK];
  for (int j = 0; j < p->nk; j++) ks[j] = p->kept[j].n, kss[j] = p->kept[j].s;
  for (int j = 0; j < p->nr; j++) rs[j] = p->red[j].n, rss[j] = p->red[j].s;
  tfr_wgpu_reach(p->nk, ks, kss, &klo, &khi);
  tfr_wgpu_reach(p->nr, rs, rss, &rlo, &rhi);
  lo = klo + rlo;
  hi = khi + rhi;
  uint32_t rel = 0;
  {
    if (nvw > 1) {
      // 16-byte units: every offset is a multiple of nvw elements and the
      // reach ends at the end of a unit.
      int64_t off = p->src_off / nvw;
      st = tfr_wgpu_window(b, c->op, "operand", p->src, 16, off, lo / nvw,
                           (p->src_off + hi) / nvw - off, &bind[0], &rel);
      P.src_offset = rel * (uint32_t)nvw;
    } else {
      st = tfr_wgpu_window(b, c->op, "operand", p->src, (int64_t)tfr_dtype_size(c->d->dtype),
                           p->src_off, lo, hi, &bind[0], &rel);
      P.src_offset = rel;
    }
    if (st) goto fail;
  }
  if (!*final) {
    P.init_mode = 2;
  } else if (c->d->init) {
    P.init_mode = 1;
    st = tfr_wgpu_window(b, c->op, "init_value", c->d->init,
                         (int64_t)tfr_dtype_size(c->d->dtype), c->d->init->offset, 0, 0,
                         &bind[1], &rel);
    if (st) goto fail;
    P.init_offset = rel;
  } else {
    P.init_mode = 0;
    memcpy(P.init_bits, c->d->init_bytes, tfr_dtype_size(c->d->dtype));
  }
  if (P.init_mode != 1) bind[1] = bind[0];
  {
    int64_t olo, ohi, os[TFR_MAX_RANK + 1], oss[TFR_MAX_RANK + 1];
    int n = 0;
    for (int j = 0; j < p->nk; j++, n++) os[n] = p->kept[j].n, oss[n] = kout[j];
    if (!*final) os[n] = (int64_t)nseg, oss[n] = (int64_t)nout, n++;
    tfr_wgpu_reach(n, os, oss, &olo, &ohi);
    st = tfr_wgpu_window(b, c->op, "result", dst, (int64_t)tfr_dtype_size(c->d->dtype), dst_off,
                         olo, ohi, &bind[2], &rel);
    if (st) goto fail;
    P.dst_offset = rel;
  }

  WGPUComputePipeline pipeline;
  st = tfr_red_pipeline(c, nvw > 1, split, lanes, ept, &pipeline);
  if (st) goto fail;
  uint64_t per_group = TFR_RED_WG / tpo;
  st = tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, bind, 2, 1,
                           (tasks + per_group - 1) / per_group);
  if (st) goto fail;

  if (!*final) {
    // The next pass: the partial results, reduced over the segment axis.
    tfr_red_pass next;
    memset(&next, 0, sizeof next);
    next.src = *tmp;
    next.src_off = 0;
    next.nk = p->nk;
    for (int j = 0; j < p->nk; j++) next.kept[j] = (tfr_red_axis){p->kept[j].n, kout[j], p->kept[j].os};
    next.nk = tfr_red_merge_axes(next.kept, next.nk, true);
    next.red[0] = (tfr_red_axis){(int64_t)nseg, (int64_t)nout, 0};
    next.nr = 1;
    next.dst = p->dst;
    next.dst_off = p->dst_off;
    *p = next;
  }
  return TFR_OK;

fail:
  tfr_tensor_release(*tmp);
  *tmp = NULL;
  return st;
}

// Every output is the init value (a reduced axis of extent 0): a broadcast
// copy of it.
static tfr_status tfr_red_fill(tfr_red_ctx *c) {
  tfr_wgpu_backend *b = c->b;
  const tfr_reduce_desc *d = c->d;
  tfr_tensor *scalar = NULL, *host = NULL, *view = NULL;
  tfr_status st = TFR_OK;
  const tfr_tensor *init = d->init;
  if (!init) {
    st = tfr_tensor_alloc(NULL, d->dtype, 0, NULL, false, &host);
    if (!st) {
      memcpy(tfr_tensor_host_ptr(host), d->init_bytes, tfr_dtype_size(d->dtype));
      st = tfr_tensor_alloc(&b->base, d->dtype, 0, NULL, false, &scalar);
    }
    if (!st) st = tfr_wgpu_upload(&b->base, host, scalar);
    init = scalar;
  }
  int64_t zeros[TFR_MAX_RANK] = {0};
  if (!st)
    st = tfr_tensor_header(init->storage, d->dtype, d->out->rank, d->out->shape, zeros,
                           init->offset, &view);
  if (!st) st = tfr_wgpu_copy(b, c->op, view, d->out);
  tfr_tensor_release(view);
  tfr_tensor_release(scalar);
  tfr_tensor_release(host);
  return st;
}

// f16 and bf16, as the cpu (src/cpu/reduce.c): the operand (and a tensor
// init value) converted to f32 copies (exact), reduced in f32 in this file's
// fixed order, the result rounded once into out.
static tfr_status tfr_red_half(tfr_backend *base, const tfr_reduce_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  tfr_reduce_desc w = *d;
  w.dtype = TFR_F32;
  tfr_tensor *in = NULL, *out = NULL, *init = NULL;
  tfr_status st = TFR_OK;
  if (!d->init) {
    uint16_t h;
    memcpy(&h, d->init_bytes, sizeof h);
    float f = d->dtype == TFR_F16 ? tfr_f16_to_f32(h) : tfr_bf16_to_f32(h);
    memset(w.init_bytes, 0, sizeof w.init_bytes);
    memcpy(w.init_bytes, &f, sizeof f);
  } else {
    st = tfr_tensor_alloc(base, TFR_F32, d->init->rank, d->init->shape, false, &init);
    if (!st) st = tfr_wgpu_copy(b, "reduce", d->init, init);
    w.init = init;
  }
  if (!st) st = tfr_tensor_alloc(base, TFR_F32, d->in->rank, d->in->shape, false, &in);
  if (!st) st = tfr_tensor_alloc(base, TFR_F32, d->out->rank, d->out->shape, false, &out);
  if (!st && d->in->numel) st = tfr_wgpu_copy(b, "reduce", d->in, in);
  if (!st) {
    w.in = in;
    w.out = out;
    st = tfr_wgpu_reduction(base, &w);
  }
  if (!st && d->out->numel) st = tfr_wgpu_copy(b, "reduce", out, d->out);
  tfr_tensor_release(in);
  tfr_tensor_release(out);
  tfr_tensor_release(init);
  return st;
}

tfr_status tfr_wgpu_reduction(tfr_backend *base, const tfr_reduce_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  if (d->dtype == TFR_F16 || d->dtype == TFR_BF16) return tfr_red_half(base, d);
  tfr_red_ctx c;
  memset(&c, 0, sizeof c);
  c.b = b;
  c.d = d;
  c.ty = tfr_red_type_of(d->dtype, &c.type) ? &c.type : NULL;
  const char *name =
      (unsigned)d->combiner < sizeof tfr_red_names / sizeof tfr_red_names[0] ? tfr_red_names[d->combiner] : "?";
  snprintf(c.op, sizeof c.op, "reduce (%s)", name);
  if (!c.ty)  // tfr_wgpu_dtype_computes(TFR_WGPU_REDUCE, ...)
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "%s: dtype %s is not supported on the webgpu backend (it reduces f32, i32, "
                     "bool, c64, f64, i64, u64 and c128)",
                     c.op, tfr_dtype_name(d->dtype));
  if (!tfr_red_op(d->combiner, d->dtype))
    return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: unknown combiner %d", c.op, (int)d->combiner);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, c.op));
  if (d->out->numel == 0) return TFR_OK;
  const tfr_tensor *x = d->in;
  bool reduced[TFR_MAX_RANK] = {false};
  bool empty = false;
  for (int j = 0; j < d->naxes; j++) {
    reduced[d->axes[j]] = true;
    empty |= x->shape[d->axes[j]] == 0;
  }
  if (empty) return tfr_red_fill(&c);

  tfr_red_pass *p = tfr_alloc(sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "%s: cannot allocate the plan", c.op);
  tfr_red_plan(x, reduced, d->out, p);
  tfr_tensor *packed = NULL;
  tfr_status st = TFR_OK;
  if (p->nk > TFR_RED_KERNEL_AXES || p->nr > TFR_RED_KERNEL_AXES) {
    // More unmergeable axes than the kernel takes (only views of 9+ axes):
    // copy the operand into [kept axes..., reduced axes...] order, where each
    // kind merges into one axis.
    int64_t shape[TFR_MAX_RANK], pos[TFR_MAX_RANK], strides[TFR_MAX_RANK], cs[TFR_MAX_RANK];
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
      for (int k = 0; k < x->rank; k++)
        if (reduced[k] == (pass == 1)) pos[k] = n, shape[n++] = x->shape[k];
    st = tfr_tensor_alloc(base, x->dtype, x->rank, shape, false, &packed);
    tfr_tensor *view = NULL;
    if (!st) {
      tfr_compact_strides(x->rank, shape, cs);
      for (int k = 0; k < x->rank; k++) strides[k] = cs[pos[k]];
      st = tfr_tensor_header(packed->storage, x->dtype, x->rank, x->shape, strides, 0, &view);
    }
    if (!st) st = tfr_wgpu_copy(b, c.op, x, view);
    if (!st) tfr_red_plan(view, reduced, d->out, p);
    // The plan keeps pointing at the packed storage through p->src = view:
    // keep the view alive until the passes are recorded.
    if (st) tfr_tensor_release(view);
    else {
      tfr_tensor_release(packed);
      packed = view;
    }
  }
  tfr_tensor *prev = NULL;
  bool final = false;
  while (!st && !final) {
    tfr_tensor *tmp = NULL;
    st = tfr_red_run_pass(&c, p, &final, &tmp);
    tfr_tensor_release(prev);  // read by the pass just recorded: queue order keeps it valid
    prev = tmp;
  }
  tfr_tensor_release(prev);
  tfr_tensor_release(packed);
  tfr_free(p);
  return st;
}
