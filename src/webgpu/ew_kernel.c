// The one elementwise kernel generator of the webgpu backend (ew_kernel.h):
// a fusion plan (include/tenferro/fusion.h) becomes one WGSL kernel per plan
// structure, generated from two templates (kernels/elementwise_compact.wgsl,
// kernels/elementwise_strided.wgsl). A single op is a plan of one
// instruction (elementwise.c), as on the cpu, where fused plans run the
// single ops' kernels. Each invocation loads its elements of every input the
// outputs depend on once, runs the whole program in registers (tfr_fu_eval:
// one WGSL function per instruction, its body the op table's expression,
// ew_table.c) and stores every output element once.
//
// Bit-identical to the ops run one by one: every instruction uses the op
// table's expression, and each f32/c64 result that another instruction reads
// passes through tfr_fu_keep_*, an XOR of its bits with a uniform that is
// always 0 (P.zero). The compiler cannot see through it, so it can neither
// contract a * b + c into an fma nor simplify across instructions, exactly as
// if the value had been stored and loaded again (docs/accuracy.md describes
// what Mesa's compiler does otherwise). A value only stored needs no such
// step: a single op's kernel is its expression, loads and stores.
//
// Layouts: the operands (broadcast inputs are stride-0 views made by the
// core; a single op's output may be any view without self-overlap) are
// planned together (core/plan_axes.h: extent-1 axes dropped, axes ordered by
// the first output's strides, mergeable neighbours merged).
//   * compact (every output compact over the planned axes; every input
//     compact too, or one element of stride 0, or compact over one block of
//     axes and broadcast over the others, numpy's tile and repeat: a row or
//     a column of an outer product, a bias): chunks of 4 elements, whole
//     chunks (vec4 / a bool word / two vec4 of c64) for each operand whose
//     window starts on a chunk boundary; long runs in pieces that fit the
//     binding limit. A tiled or repeated input reads element (i / rep) % per
//     of its block (fu_compact_plan says which shapes qualify). On the H200
//     bin_outer_product_4096 (a 4096 x 4096 f32 result) went from 0.088 ms
//     in the strided kernel to 0.048 ms (torch 0.076).
//   * strided otherwise: up to 16 merged axes per dispatch. An operand is
//     "linear" (its strides are the compact strides of the planned shape: it
//     reaches off + i), "constant" (an input with all strides 0: one element)
//     or "strided" (its strides are in the uniform table of 84 entries; the
//     kernel sums its index). The number of kernel axes is lowered so that
//     strided operands x axes <= 84; further outer axes are iterated on the
//     host, one dispatch per index. (With 8 axes, gm_queen5_5_3's products of
//     16 axes of extent 3 ran as 6561 dispatches of 6561 elements each: 48 ms
//     for one 43M-element step on the H200, 6 GB/s.)
//
// Bindings: inputs in one storage with one value type share a binding (its
// window spans them all); each output storage has its own. An input in an
// output's storage (a single op in place, or a disjoint view of the same
// buffer) with the output's value type is read through the output's binding:
// WebGPU refuses one buffer bound read-only and writable in one dispatch, and
// Dawn also two writable bindings whose ranges overlap (windows are aligned
// outwards, so even disjoint views may). Each invocation reads its elements
// before writing them, and the core refuses partial overlaps, so no
// invocation reads what another writes. Such an input of another value type
// (a bitcast view) is read from a copy.
//
// When inputs + outputs need more storage buffers than the device allows per
// shader stage (10 on lavapipe and the H200, 8 guaranteed), inputs of one
// dtype are packed: each is copied (its broadcast axes collapsed, so a
// broadcast row costs a row) into a slot of one temporary buffer, which the
// kernel then reads through a single binding; if that is not enough, outputs
// of one dtype are computed into slots of one temporary and copied out
// afterwards. A packed input costs one extra read and write of its distinct
// elements, a packed output one of its elements. Every dtype then needs at
// most one binding for its inputs and one for its outputs: 8 in all.
//
// Kernels are cached by the plan's structure (live instructions, dtypes, the
// access mode and binding of each operand, layout class) in the backend's
// kernel cache, compared byte for byte, so a repeated plan or op builds no
// source.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/ew_kernel.h"
#include "webgpu/ew_table.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_access.h"
#include "webgpu/wgpu_testing.h"

#define FU_MAX_OPS (TFR_FUSION_MAX_OUTPUTS + TFR_FUSION_MAX_INPUTS)
#define FU_MAX_VALUES (TFR_FUSION_MAX_INPUTS + TFR_FUSION_MAX_INSTRUCTIONS)
#define FU_KERNEL_RANK 16
#define FU_NSTRIDES 84  // entries of the strided kernel's stride table
#define FU_WG 256
#define FU_STRIDED_EPT 4  // elements per invocation of the strided kernel
#define FU_MAX_DISPATCH_ELEMENTS (INT64_C(1) << 31)
#define FU_MAX_PIECE (INT64_C(1) << 30)
#define FU_SOURCE_CAP ((size_t)256 << 10)

// Access modes. Compact kernel (wgsl_access.h): element by element / whole
// chunks / one broadcast element / a broadcast input compact over a block of
// the axes (tiled in whole chunks, tiled element by element, repeated).
// Strided kernel: linear / strided / constant.
enum {
  FU_SCALAR = TFR_WGSL_SCALAR,
  FU_CHUNK = TFR_WGSL_CHUNK,
  FU_BCAST = TFR_WGSL_BCAST,
  FU_TILE_CHUNK = TFR_WGSL_TILE_CHUNK,
  FU_TILE = TFR_WGSL_TILE,
  FU_REPEAT = TFR_WGSL_REPEAT,
};
enum { FU_LINEAR = 0, FU_STRIDED = 1, FU_CONST = 2 };

// The operands of one execution: outputs 0 .. nout-1, then the inputs the
// outputs depend on, each a view (the caller's, or of a packed temporary).
typedef struct fu_setup {
  const char *what;  // the op's name (a single op) or "fusion", for messages
  const tfr_fusion_plan *plan;
  int nout, nin, nops;
  int input_id[TFR_FUSION_MAX_INPUTS];  // plan input of operand nout + k
  const tfr_tensor *t[FU_MAX_OPS];
  int type[FU_MAX_OPS];
  int group[FU_MAX_OPS];                // binding: reads 0 .. nread-1, then writes
  int nread, nwrite;
  bool packed_in[FU_MAX_OPS];           // reads a packed temporary
  int alias[FU_MAX_OPS];                // input: the output whose binding it reads, or -1
  tfr_tensor *packed_out[TFR_FUSION_MAX_OUTPUTS];  // the slot written instead of output o
  tfr_tensor *owned[2 * FU_MAX_OPS + 8];           // views and temporaries to release
  int nowned;
  bool live[FU_MAX_VALUES];
  bool used[FU_MAX_VALUES];  // an operand of a live instruction
  // Layout.
  int nd;
  int64_t shape[TFR_MAX_RANK];
  int64_t stride[FU_MAX_OPS * TFR_MAX_RANK];
  bool compact;
  int mode[FU_MAX_OPS];
  int sidx[FU_MAX_OPS];  // strided kernel: the operand's column in the stride table
  int64_t rep[FU_MAX_OPS], per[FU_MAX_OPS];  // compact kernel, FU_TILE*/FU_REPEAT
  int nstrided;
} fu_setup;

static const char *const fu_comp[4] = {"x", "y", "z", "w"};

static void fu_own(fu_setup *s, tfr_tensor *t) {
  assert(s->nowned < (int)(sizeof s->owned / sizeof s->owned[0]));
  s->owned[s->nowned++] = t;
}

// ---------------------------------------------------------------------------
// Source text
// ---------------------------------------------------------------------------

// The uniform offset of operand j: "P.off[j / 4].<component>".
static void fu_off(char *buf, size_t n, int j) {
  snprintf(buf, n, "P.off[%d].%s", j / 4, fu_comp[j % 4]);
}

// Bindings and access functions (wgsl_access.h). Input operand j (plan
// input id) reads through its group's in<g> (or, aliased, the output's
// out<g>), with the suffix <id>; output o writes through out<g>, with the
// suffix <o>.
static void fu_put_access(tfr_wgsl_text *t, const fu_setup *s) {
  tfr_wgsl_operand ops[FU_MAX_OPS];
  char suffix[FU_MAX_OPS][16], array[FU_MAX_OPS][16], off[FU_MAX_OPS][32];
  char rep[FU_MAX_OPS][32], per[FU_MAX_OPS][32];
  for (int j = 0; j < s->nops; j++) {
    bool out = j < s->nout;
    bool write_group = s->group[j] >= s->nread;
    snprintf(suffix[j], sizeof suffix[j], "%d", out ? j : s->input_id[j - s->nout]);
    snprintf(array[j], sizeof array[j], "%s%d", write_group ? "out" : "in",
             write_group ? s->group[j] - s->nread : s->group[j]);
    fu_off(off[j], sizeof off[j], j);
    snprintf(rep[j], sizeof rep[j], "P.rep[%d].%s", j / 4, fu_comp[j % 4]);
    snprintf(per[j], sizeof per[j], "P.per[%d].%s", j / 4, fu_comp[j % 4]);
    // An aliased input reads the output's array<atomic<u32>> when its
    // elements are packed bytes.
    ops[j] = (tfr_wgsl_operand){suffix[j], tfr_ew_wgsl(s->type[j]), s->compact,
                                s->compact ? s->mode[j] : TFR_WGSL_SCALAR, array[j], off[j],
                                rep[j], per[j], !out && write_group};
  }
  for (int g = 0; g < s->nread; g++) {
    int j = s->nout;
    while (s->group[j] != g) j++;
    tfr_wgsl_put(t, "@group(0) @binding(%d) var<storage, read> in%d: %s;\n", 1 + g, g,
           tfr_wgsl_operand_array(&ops[j], false));
  }
  for (int g = s->nread; g < s->nread + s->nwrite; g++) {
    int o = 0;
    while (s->group[o] != g) o++;
    tfr_wgsl_put(t, "@group(0) @binding(%d) var<storage, read_write> out%d: %s;\n", 1 + g, g - s->nread,
           tfr_wgsl_operand_array(&ops[o], true));
  }
  for (int j = s->nout; j < s->nops; j++) tfr_wgsl_put_input(t, &ops[j]);
  for (int o = 0; o < s->nout; o++) tfr_wgsl_put_output(t, &ops[o]);
}

// The program: one function per live instruction (the op table's
// expression), the output struct and tfr_fu_eval. Fills *lib with the
// snippets the expressions need.
static tfr_status fu_put_eval(tfr_wgsl_text *t, const fu_setup *s, unsigned *lib) {
  static const char *const names[3] = {"a", "b", "c"};
  const tfr_fusion_plan *p = s->plan;
  *lib = 0;
  tfr_wgsl_put(t,
         "fn tfr_fu_keep_f32(v: f32) -> f32 { return bitcast<f32>(bitcast<u32>(v) ^ P.zero); }\n"
         "fn tfr_fu_keep_c64(v: vec2<f32>) -> vec2<f32> { "
         "return bitcast<vec2<f32>>(bitcast<vec2<u32>>(v) ^ vec2<u32>(P.zero)); }\n");
  for (int k = 0; k < p->num_instructions; k++) {
    int v = p->num_inputs + k;
    if (!s->live[v]) continue;
    const tfr_fusion_instr *in = &p->instr[k];
    const tfr_ew_expr *x = tfr_ew_expr_of(in->kind, in->op, tfr_ew_type_of(in->dtype));
    if (!x)
      return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: no kernel for instruction %d (kind %d, "
                       "op %d, dtype %s)", s->what, k, (int)in->kind, in->op,
                       tfr_dtype_name(in->dtype));
    *lib |= x->lib;
    tfr_wgsl_put(t, "fn tfr_fu_op%d(", v);
    for (int q = 0; q < in->num_operands; q++)
      tfr_wgsl_put(t, "%s%s: %s", q ? ", " : "", names[q],
             tfr_wgsl_type_of(p->value_dtype[in->operands[q]])->value);
    tfr_wgsl_put(t, ") -> %s { return %s; }\n", tfr_wgsl_type_of(in->out_dtype)->value, x->e);
  }
  tfr_wgsl_put(t, "struct tfr_fu_out {\n");
  for (int o = 0; o < s->nout; o++)
    tfr_wgsl_put(t, "  r%d: %s,\n", o, tfr_ew_wgsl(s->type[o])->value);
  tfr_wgsl_put(t, "}\nfn tfr_fu_eval(");
  for (int j = s->nout; j < s->nops; j++) {
    int id = s->input_id[j - s->nout];
    tfr_wgsl_put(t, "%sv%d: %s", j > s->nout ? ", " : "", id, tfr_ew_wgsl(s->type[j])->value);
  }
  tfr_wgsl_put(t, ") -> tfr_fu_out {\n");
  for (int k = 0; k < p->num_instructions; k++) {
    int v = p->num_inputs + k;
    if (!s->live[v]) continue;
    const tfr_fusion_instr *in = &p->instr[k];
    int ot = tfr_ew_type_of(in->out_dtype);
    const char *keep = !s->used[v]          ? ""
                       : ot == TFR_EW_F32 || ot == TFR_EW_F16 || ot == TFR_EW_BF16
                           ? "tfr_fu_keep_f32"
                       : ot == TFR_EW_C64 ? "tfr_fu_keep_c64"
                                          : "";
    tfr_wgsl_put(t, "  let v%d = %s(tfr_fu_op%d(", v, keep, v);
    for (int q = 0; q < in->num_operands; q++) tfr_wgsl_put(t, "%sv%d", q ? ", " : "", in->operands[q]);
    tfr_wgsl_put(t, "));\n");
  }
  tfr_wgsl_put(t, "  return tfr_fu_out(");
  for (int o = 0; o < s->nout; o++) tfr_wgsl_put(t, "%sv%d", o ? ", " : "", p->outputs[o]);
  tfr_wgsl_put(t, ");\n}\n");
  return TFR_OK;
}

// The statements of the templates' APPLY / APPLY4 / INDEX.
static void fu_put_apply(tfr_wgsl_text *apply, tfr_wgsl_text *apply4, tfr_wgsl_text *index, const fu_setup *s) {
  if (s->compact) {
    tfr_wgsl_put(apply, "let q = tfr_fu_eval(");
    for (int j = s->nout; j < s->nops; j++)
      tfr_wgsl_put(apply, "%sld%d(i)", j > s->nout ? ", " : "", s->input_id[j - s->nout]);
    tfr_wgsl_put(apply, ");");
    for (int o = 0; o < s->nout; o++) tfr_wgsl_put(apply, " st%d(i, q.r%d);", o, o);
    for (int j = s->nout; j < s->nops; j++) {
      int id = s->input_id[j - s->nout];
      tfr_wgsl_put(apply4, "let a%d = ldc%d(c); ", id, id);
    }
    for (int e = 0; e < 4; e++) {
      tfr_wgsl_put(apply4, "let q%d = tfr_fu_eval(", e);
      for (int j = s->nout; j < s->nops; j++)
        tfr_wgsl_put(apply4, "%sa%d[%d]", j > s->nout ? ", " : "", s->input_id[j - s->nout], e);
      tfr_wgsl_put(apply4, "); ");
    }
    for (int o = 0; o < s->nout; o++)
      tfr_wgsl_put(apply4, "stc%d(c, array<%s, 4>(q0.r%d, q1.r%d, q2.r%d, q3.r%d)); ", o,
             tfr_ew_wgsl(s->type[o])->value, o, o, o, o);
    return;
  }
  // Strided: the window offsets of the strided operands, then the element.
  if (s->nstrided == 0) {
    tfr_wgsl_put(index, "// every operand is linear or constant");
  } else {
    tfr_wgsl_put(index, "var rem = i;\n    let last = P.rank - 1u;\n");
    for (int q = 0; q < s->nstrided; q++) tfr_wgsl_put(index, "    var s%d = 0u;\n", q);
    tfr_wgsl_put(index,
           "    for (var d = 0u; d < last; d++) {\n"
           "      let n = P.shape[d >> 2u][d & 3u];\n"
           "      let x = rem %% n;\n"
           "      rem = rem / n;\n");
    for (int q = 0; q < s->nstrided; q++)
      tfr_wgsl_put(index, "      s%d += x * tfr_fu_stride(d * %du + %du);\n", q, s->nstrided, q);
    tfr_wgsl_put(index, "    }\n");
    for (int q = 0; q < s->nstrided; q++)
      tfr_wgsl_put(index, "    s%d += rem * tfr_fu_stride(last * %du + %du);\n", q, s->nstrided, q);
  }
  // The window index of operand j: "P.off[..] + i" (linear), "+ s<k>"
  // (strided) or nothing (constant).
  char at[FU_MAX_OPS][48];
  for (int j = 0; j < s->nops; j++) {
    char off[32];
    fu_off(off, sizeof off, j);
    if (s->mode[j] == FU_LINEAR) snprintf(at[j], sizeof at[j], "%s + i", off);
    else if (s->mode[j] == FU_STRIDED) snprintf(at[j], sizeof at[j], "%s + s%d", off, s->sidx[j]);
    else snprintf(at[j], sizeof at[j], "%s", off);
  }
  tfr_wgsl_put(apply, "let q = tfr_fu_eval(");
  for (int j = s->nout; j < s->nops; j++)
    tfr_wgsl_put(apply, "%sraw%d(%s)", j > s->nout ? ", " : "", s->input_id[j - s->nout], at[j]);
  tfr_wgsl_put(apply, ");");
  for (int o = 0; o < s->nout; o++) tfr_wgsl_put(apply, " rawst%d(%s, q.r%d);", o, at[o], o);
}

// Chunks of 4 elements per invocation of the compact kernel: 8 (4 when c64
// operands make each chunk 32 bytes). On the H200 at 2^28 f32 (single ops),
// 8 against 4: exp 0.541 against 0.582 ms, add 0.782 against 0.808 ms; 2:
// exp 0.611 ms. b->ew_ept (TFR_WEBGPU_EW_EPT) overrides it, for such
// measurements.
static uint32_t fu_compact_ept(const tfr_wgpu_backend *b, const fu_setup *s) {
  uint32_t ept = b->ew_ept ? b->ew_ept : 8u;
  for (int j = 0; j < s->nops; j++)
    if (tfr_ew_wgsl(s->type[j])->size >= 8) return (ept + 1) / 2;  // c64, f64, i64, u64, c128
  return ept;
}

// ---------------------------------------------------------------------------
// The kernel table
// ---------------------------------------------------------------------------

typedef struct fu_key {
  uint16_t v[16 + 4 * FU_MAX_OPS + 9 * TFR_FUSION_MAX_INSTRUCTIONS];
  int n;
} fu_key;

static void fu_key_put(fu_key *k, int v) {
  assert(k->n < (int)(sizeof k->v / sizeof k->v[0]));
  k->v[k->n++] = (uint16_t)v;
}

static void fu_make_key(const fu_setup *s, fu_key *k) {
  const tfr_fusion_plan *p = s->plan;
  k->n = 0;
  fu_key_put(k, s->compact);
  fu_key_put(k, s->nout);
  fu_key_put(k, s->nin);
  fu_key_put(k, s->nread);
  fu_key_put(k, s->nwrite);
  fu_key_put(k, s->nstrided);
  fu_key_put(k, p->num_inputs);
  for (int j = 0; j < s->nops; j++) {
    fu_key_put(k, s->type[j]);
    fu_key_put(k, s->mode[j] | s->sidx[j] << 3);
    fu_key_put(k, s->group[j]);
    fu_key_put(k, j < s->nout ? p->outputs[j] : s->input_id[j - s->nout]);
  }
  for (int i = 0; i < p->num_instructions; i++) {
    if (!s->live[p->num_inputs + i]) continue;
    const tfr_fusion_instr *in = &p->instr[i];
    fu_key_put(k, i);
    fu_key_put(k, (int)in->kind);
    fu_key_put(k, in->op);
    fu_key_put(k, in->num_operands);
    for (int q = 0; q < in->num_operands; q++) fu_key_put(k, in->operands[q]);
    fu_key_put(k, (int)in->dtype);
    fu_key_put(k, (int)in->out_dtype);
  }
}

// Generates and compiles the kernel of `s` (a table miss).
static tfr_status fu_build(tfr_wgpu_backend *b, const fu_setup *s, const fu_key *k,
                           WGPUComputePipeline *out) {
  // The Dawn label: a single op by its name, a plan by its number.
  const tfr_fusion_plan *p = s->plan;
  const char *layout = s->compact ? "compact" : "strided";
  char variant[96];
  if (p->num_instructions == 1 && s->nout == 1)
    snprintf(variant, sizeof variant, "elementwise_%s[%s:%s->%s]", layout,
             tfr_ew_op_name(p->instr[0].kind, p->instr[0].op), tfr_dtype_name(p->instr[0].dtype),
             tfr_dtype_name(p->instr[0].out_dtype));
  else
    snprintf(variant, sizeof variant, "fusion_%s#%d[%din,%dout,%dr%dw]", layout,
             b->kernels.family_count[TFR_WGPU_KERNELS_ELEMENTWISE], s->nin, s->nout, s->nread,
             s->nwrite);
  tfr_wgsl_text access = {.limit = FU_SOURCE_CAP}, eval = {.limit = FU_SOURCE_CAP};
  tfr_wgsl_text apply = {.limit = FU_SOURCE_CAP}, apply4 = {.limit = FU_SOURCE_CAP};
  tfr_wgsl_text index = {.limit = FU_SOURCE_CAP};
  tfr_wgsl_text *texts[5] = {&access, &eval, &apply, &apply4, &index};
  unsigned lib = 0;
  fu_put_access(&access, s);
  tfr_status st = fu_put_eval(&eval, s, &lib);
  // f16/bf16 operands load and store through common/half.wgsl.
  for (int j = 0; j < s->nops; j++)
    if (s->type[j] == TFR_EW_F16 || s->type[j] == TFR_EW_BF16) lib |= TFR_EW_LIB_HALF;
  if (!st) {
    fu_put_apply(&apply, &apply4, &index, s);
    for (int i = 0; i < 5 && !st; i++) {
      if (texts[i]->overflow)
        st = tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: kernel %s: generated source too long",
                       s->what, variant);
      else if (texts[i]->failed)
        st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "%s: webgpu: out of host memory", s->what);
    }
  }
  if (!st) {
    const char *snippets[TFR_EW_MAX_LIB_SNIPPETS + 1];
    int ns = tfr_ew_lib_snippets(lib, snippets);
    snippets[ns] = NULL;
    tfr_wgsl_subst compact_subst[] = {
        {"ACCESS", access.buf ? access.buf : ""}, {"EVAL", eval.buf ? eval.buf : ""},
        {"APPLY", apply.buf ? apply.buf : ""}, {"APPLY4", apply4.buf ? apply4.buf : ""}};
    tfr_wgsl_subst strided_subst[] = {
        {"ACCESS", access.buf ? access.buf : ""}, {"EVAL", eval.buf ? eval.buf : ""},
        {"INDEX", index.buf ? index.buf : ""}, {"APPLY", apply.buf ? apply.buf : ""}};
    tfr_wgsl_override overrides[] = {
        {"WG", FU_WG}, {"EPT", s->compact ? fu_compact_ept(b, s) : FU_STRIDED_EPT}};
    tfr_wgsl_variant v = {variant,
                          s->compact ? "elementwise_compact.wgsl" : "elementwise_strided.wgsl",
                          snippets,
                          s->compact ? compact_subst : strided_subst,
                          4,
                          overrides,
                          2,
                          s->nread,
                          s->nwrite};
    st = tfr_wgpu_kernel_build(b, TFR_WGPU_KERNELS_ELEMENTWISE, k->v, (size_t)k->n * sizeof k->v[0],
                               &v, out);
  }
  for (int i = 0; i < 5; i++) tfr_wgsl_text_free(texts[i]);
  return st;
}

static tfr_status fu_pipeline(tfr_wgpu_backend *b, const fu_setup *s, WGPUComputePipeline *out) {
  fu_key k;
  fu_make_key(s, &k);
  *out = tfr_wgpu_kernel_find(b, TFR_WGPU_KERNELS_ELEMENTWISE, k.v, (size_t)k.n * sizeof k.v[0]);
  if (*out) return TFR_OK;
  return fu_build(b, s, &k, out);
}

// ---------------------------------------------------------------------------
// Operands, bindings and packing
// ---------------------------------------------------------------------------

// Binding groups: inputs in one storage with one value type share one; each
// output storage has its own (only packed outputs share one); an aliased
// input has its output's.
static void fu_group(fu_setup *s) {
  int n = 0;
  for (int j = s->nout; j < s->nops; j++) {
    s->group[j] = -1;
    if (s->alias[j] >= 0) continue;
    for (int q = s->nout; q < j && s->group[j] < 0; q++)
      if (s->alias[q] < 0 && s->t[q]->storage == s->t[j]->storage && s->type[q] == s->type[j])
        s->group[j] = s->group[q];
    if (s->group[j] < 0) s->group[j] = n++;
  }
  s->nread = n;
  for (int o = 0; o < s->nout; o++) {
    s->group[o] = -1;
    for (int q = 0; q < o && s->group[o] < 0; q++)
      if (s->t[q]->storage == s->t[o]->storage) s->group[o] = s->group[q];
    if (s->group[o] < 0) s->group[o] = n++;
  }
  s->nwrite = n - s->nread;
  for (int j = s->nout; j < s->nops; j++)
    if (s->alias[j] >= 0) s->group[j] = s->group[s->alias[j]];
}

// Elements of input operand j once its broadcast (stride-0) axes collapse.
static int64_t fu_distinct(const tfr_tensor *t, int64_t *rshape) {
  int64_t n = 1;
  for (int k = 0; k < t->rank; k++) {
    rshape[k] = t->strides[k] == 0 ? 1 : t->shape[k];
    n *= rshape[k];
  }
  return n;
}

// Packs the input operands of the read groups marked in `take` (one value
// type) into one temporary: each is copied, broadcast axes collapsed, into a
// slot starting on a chunk boundary, and read from there.
static tfr_status fu_pack_inputs(tfr_wgpu_backend *b, fu_setup *s, const bool *take) {
  int64_t slot[FU_MAX_OPS], total = 0;
  int64_t rshape[FU_MAX_OPS][TFR_MAX_RANK];
  tfr_dtype dt = TFR_F32;
  for (int j = s->nout; j < s->nops; j++) {
    if (!take[s->group[j]]) continue;
    dt = s->t[j]->dtype;
    slot[j] = total;
    total += (fu_distinct(s->t[j], rshape[j]) + 3) & ~INT64_C(3);
  }
  tfr_tensor *tmp = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, dt, 1, &total, false, &tmp));
  fu_own(s, tmp);
  for (int j = s->nout; j < s->nops; j++) {
    if (!take[s->group[j]]) continue;
    const tfr_tensor *t = s->t[j];
    int64_t cstride[TFR_MAX_RANK], kstride[TFR_MAX_RANK], st = 1;
    for (int k = t->rank - 1; k >= 0; k--) {
      cstride[k] = st;
      kstride[k] = t->strides[k] == 0 ? 0 : st;
      st *= rshape[j][k];
    }
    tfr_tensor *src = NULL, *dst = NULL, *view = NULL;
    tfr_status r = tfr_tensor_header(t->storage, dt, t->rank, rshape[j], t->strides, t->offset, &src);
    if (!r) r = tfr_tensor_header(tmp->storage, dt, t->rank, rshape[j], cstride, slot[j], &dst);
    if (!r) r = tfr_wgpu_copy(b, s->what, src, dst);
    if (!r) r = tfr_tensor_header(tmp->storage, dt, t->rank, t->shape, kstride, slot[j], &view);
    tfr_tensor_release(src);
    tfr_tensor_release(dst);
    if (r) return r;
    fu_own(s, view);
    s->t[j] = view;
    s->packed_in[j] = true;
  }
  return TFR_OK;
}

// Outputs `take[o]` (one dtype) are computed into slots of one temporary and
// copied out after the kernel.
static tfr_status fu_pack_outputs(tfr_wgpu_backend *b, fu_setup *s, const bool *take) {
  const tfr_tensor *o0 = s->t[0];
  int64_t per = (o0->numel + 3) & ~INT64_C(3), total = 0;
  tfr_dtype dt = TFR_F32;
  for (int o = 0; o < s->nout; o++)
    if (take[o]) {
      dt = s->t[o]->dtype;
      total += per;
    }
  tfr_tensor *tmp = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, dt, 1, &total, false, &tmp));
  fu_own(s, tmp);
  int64_t at = 0;
  for (int o = 0; o < s->nout; o++) {
    if (!take[o]) continue;
    tfr_tensor *view = NULL;
    TFR_RETURN_IF_ERROR(
        tfr_tensor_header(tmp->storage, dt, o0->rank, o0->shape, NULL, at, &view));
    fu_own(s, view);
    s->t[o] = view;
    s->packed_out[o] = view;
    at += per;
  }
  return TFR_OK;
}

// Packs inputs, then outputs, one value type at a time, until the kernel's
// storage buffers fit the budget. Per step the cheapest groups of the type
// with the most groups are packed, just enough of them.
static tfr_status fu_fit(tfr_wgpu_backend *b, fu_setup *s, int budget) {
  fu_group(s);
  while (s->nread + s->nwrite > budget) {
    int excess = s->nread + s->nwrite - budget;
    // Inputs: groups per type and their cost (distinct elements to copy).
    int count[TFR_EW_NTYPES] = {0};
    int64_t cost[FU_MAX_OPS] = {0};
    int gtype[FU_MAX_OPS];
    for (int j = s->nout; j < s->nops; j++) {
      if (s->alias[j] >= 0) continue;
      int64_t rshape[TFR_MAX_RANK];
      int g = s->group[j];
      gtype[g] = s->type[j];
      cost[g] += fu_distinct(s->t[j], rshape);
    }
    for (int g = 0; g < s->nread; g++) count[gtype[g]]++;
    int best = -1;
    for (int ty = 0; ty < TFR_EW_NTYPES; ty++)
      if (count[ty] >= 2 && (best < 0 || count[ty] > count[best])) best = ty;
    bool take[FU_MAX_OPS] = {false};
    if (best >= 0) {
      int m = count[best] < excess + 1 ? count[best] : excess + 1;
      for (int n = 0; n < m; n++) {
        int pick = -1;
        for (int g = 0; g < s->nread; g++)
          if (!take[g] && gtype[g] == best && (pick < 0 || cost[g] < cost[pick]))
            pick = g;
        take[pick] = true;
      }
      TFR_RETURN_IF_ERROR(fu_pack_inputs(b, s, take));
      fu_group(s);
      continue;
    }
    // Outputs of one dtype (unpacked ones that no input reads through).
    bool read[TFR_FUSION_MAX_OUTPUTS] = {false};
    for (int j = s->nout; j < s->nops; j++)
      if (s->alias[j] >= 0) read[s->alias[j]] = true;
    int ocount[TFR_EW_NTYPES] = {0};
    for (int o = 0; o < s->nout; o++)
      if (!s->packed_out[o] && !read[o]) ocount[s->type[o]]++;
    for (int ty = 0; ty < TFR_EW_NTYPES; ty++)
      if (ocount[ty] >= 2 && (best < 0 || ocount[ty] > ocount[best])) best = ty;
    if (best < 0)
      return tfr_error(TFR_ERR_INTERNAL,
                       "%s: webgpu: %d storage buffers needed after packing, %d allowed",
                       s->what, s->nread + s->nwrite, budget);
    int m = ocount[best] < excess + 1 ? ocount[best] : excess + 1;
    for (int o = 0; o < s->nout && m > 0; o++)
      if (!s->packed_out[o] && !read[o] && s->type[o] == best) {
        take[o] = true;
        m--;
      }
    TFR_RETURN_IF_ERROR(fu_pack_outputs(b, s, take));
    fu_group(s);
  }
  return TFR_OK;
}

static void fu_name(const fu_setup *s, int j, char *buf, size_t n) {
  if (j < s->nout)
    snprintf(buf, n, "output %d%s", j, s->packed_out[j] ? " (packed)" : "");
  else
    snprintf(buf, n, "input %d%s", s->input_id[j - s->nout], s->packed_in[j] ? " (packed)" : "");
}

// The windows of one dispatch. Operand j reaches units [off[j] + lo[j],
// off[j] + hi[j]] of unit[j] bytes; the members of one group have one unit.
// Fills rel[j] (offsets relative to the windows) and the bindings in
// tfr_wgpu_dispatch_n's order (the groups: reads, then writes).
static tfr_status fu_bind(tfr_wgpu_backend *b, const fu_setup *s, const int64_t *unit,
                          const int64_t *off, const int64_t *lo, const int64_t *hi, uint32_t *rel,
                          tfr_wgpu_binding *bind) {
  for (int g = 0; g < s->nread + s->nwrite; g++) {
    int first = -1;
    int64_t glo = 0, ghi = 0;
    for (int j = 0; j < s->nops; j++) {
      if (s->group[j] != g) continue;
      if (first < 0) {
        first = j;
        glo = lo[j];
        ghi = hi[j];
        continue;
      }
      int64_t d = off[j] - off[first];
      if (d + lo[j] < glo) glo = d + lo[j];
      if (d + hi[j] > ghi) ghi = d + hi[j];
    }
    char name[48];
    fu_name(s, first, name, sizeof name);
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, s->what, name, s->t[first], unit[first], off[first],
                                        glo, ghi, &bind[g], &rel[first]));
    for (int j = first + 1; j < s->nops; j++)
      if (s->group[j] == g) rel[j] = (uint32_t)((int64_t)rel[first] + off[j] - off[first]);
  }
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

typedef struct fu_compact_params {
  uint32_t numel, nchunks, zero, pad0;
  uint32_t off[FU_MAX_OPS];
  uint32_t rep[FU_MAX_OPS], per[FU_MAX_OPS];
} fu_compact_params;
_Static_assert(sizeof(fu_compact_params) == 304, "elementwise_compact Params layout");
_Static_assert(sizeof(fu_compact_params) <= TFR_WGPU_PARAM_SLOT, "parameter slot");

typedef struct fu_strided_params {
  uint32_t numel, rank, zero, pad0;
  uint32_t off[FU_MAX_OPS];
  uint32_t shape[FU_KERNEL_RANK];
  uint32_t st[FU_NSTRIDES];
} fu_strided_params;
_Static_assert(sizeof(fu_strided_params) == 512, "elementwise_strided Params layout");
_Static_assert(sizeof(fu_strided_params) <= TFR_WGPU_PARAM_SLOT, "parameter slot");

// Elements of one compact dispatch: what the largest operand's binding
// allows, a multiple of 4.
static int64_t fu_piece(const tfr_wgpu_backend *b, const fu_setup *s) {
  int64_t max_es = 1;
  for (int j = 0; j < s->nops; j++)
    if (tfr_ew_wgsl(s->type[j])->size > max_es) max_es = tfr_ew_wgsl(s->type[j])->size;
  int64_t limit = (int64_t)b->limits.maxStorageBufferBindingSize - 1024;
  int64_t piece = limit / max_es;
  if (piece > FU_MAX_PIECE) piece = FU_MAX_PIECE;
  if (b->ew_piece > 0 && b->ew_piece < piece) piece = b->ew_piece;
  piece &= ~INT64_C(3);
  return piece < 4 ? 4 : piece;
}

// Whether the planned layout of s runs in the compact kernel, and each
// operand's access mode there. Every output must be compact over the planned
// axes. An input is compact too (whole chunks when its run starts on a chunk
// boundary and its last chunk lies inside the buffer), or constant, or
// compact over one block of axes and broadcast over the rest: then element i
// reads element (i / rep) % per of its run, where rep is the extent of the
// axes inside the block and per the block's. Such an input needs rep = 1 and
// per a multiple of 4 (tiled: a chunk of the kernel is a chunk of the run) or
// rep a multiple of 4 (repeated: a chunk of the kernel is one element), and
// the work must fit one dispatch. Anything else is for the strided kernel.
static bool fu_compact_plan(const tfr_wgpu_backend *b, fu_setup *s) {
  int64_t numel = 1, cst[TFR_MAX_RANK];
  for (int d = 0; d < s->nd; d++) {
    cst[d] = numel;
    numel *= s->shape[d];
  }
  bool blocks = false;
  for (int j = 0; j < s->nops; j++) {
    const tfr_tensor *t = s->t[j];
    const int64_t *st = &s->stride[j * TFR_MAX_RANK];
    int64_t es = tfr_ew_wgsl(s->type[j])->size;
    s->sidx[j] = 0;
    s->rep[j] = 1;
    s->per[j] = numel;
    // The block [lo, hi) of axes with a non-zero stride.
    int lo = 0, hi = s->nd;
    while (lo < s->nd && st[lo] == 0) lo++;
    while (hi > lo && st[hi - 1] == 0) hi--;
    if (lo == hi) {
      if (j < s->nout) return false;
      s->mode[j] = FU_BCAST;
      continue;
    }
    for (int d = lo; d < hi; d++)
      if (st[d] != cst[d] / cst[lo]) return false;  // not compact over the block
    if (lo == 0 && hi == s->nd) {
      int64_t first = t->offset * es, end = first + ((numel + 3) & ~INT64_C(3)) * es;
      // (c128's 16-byte elements are read one by one: a chunk would be four
      // vec4 words.)
      bool chunk = es <= 8 && first % (4 * es) == 0 &&
                   (uint64_t)end <= (uint64_t)t->storage->capacity;
      s->mode[j] = chunk ? FU_CHUNK : FU_SCALAR;
      continue;
    }
    if (j < s->nout) return false;
    blocks = true;
    s->rep[j] = cst[lo];
    s->per[j] = (hi < s->nd ? cst[hi] : numel) / cst[lo];
    if (s->rep[j] % 4 == 0) {
      s->mode[j] = FU_REPEAT;
    } else if (s->rep[j] == 1 && s->per[j] % 4 == 0) {
      bool chunk = es <= 8 && t->offset % 4 == 0;
      s->mode[j] = chunk ? FU_TILE_CHUNK : FU_TILE;
    } else {
      return false;
    }
  }
  if (blocks && numel > fu_piece(b, s)) return false;
  // The members of a binding share its array type: whole chunks only when all
  // of them take whole chunks.
  for (int g = 0; g < s->nread + s->nwrite; g++) {
    bool all = true;
    for (int j = 0; j < s->nops; j++)
      if (s->group[j] == g && s->mode[j] != FU_CHUNK && s->mode[j] != FU_TILE_CHUNK) all = false;
    if (!all)
      for (int j = 0; j < s->nops; j++) {
        if (s->group[j] != g) continue;
        if (s->mode[j] == FU_CHUNK) s->mode[j] = FU_SCALAR;
        if (s->mode[j] == FU_TILE_CHUNK) s->mode[j] = FU_TILE;
      }
  }
  for (int j = 0; j < s->nops; j++)
    if (s->mode[j] == FU_TILE_CHUNK) s->per[j] /= 4;
  return true;
}

static tfr_status fu_compact(tfr_wgpu_backend *b, fu_setup *s) {
  int64_t numel = 1, es[FU_MAX_OPS];
  for (int d = 0; d < s->nd; d++) numel *= s->shape[d];
  for (int j = 0; j < s->nops; j++) es[j] = tfr_ew_wgsl(s->type[j])->size;
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(fu_pipeline(b, s, &pipeline));
  // Tiled and repeated inputs come only with work of one piece.
  int64_t piece = fu_piece(b, s);
  uint64_t per_group = (uint64_t)FU_WG * fu_compact_ept(b, s);
  for (int64_t start = 0; start < numel; start += piece) {
    int64_t n = numel - start < piece ? numel - start : piece;
    int64_t nchunks = (n + 3) / 4;
    int64_t unit[FU_MAX_OPS], off[FU_MAX_OPS], lo[FU_MAX_OPS] = {0}, hi[FU_MAX_OPS];
    for (int j = 0; j < s->nops; j++) {
      const tfr_tensor *t = s->t[j];
      if (s->mode[j] == FU_BCAST) {
        unit[j] = es[j];
        off[j] = t->offset;
        hi[j] = 0;
      } else if (s->mode[j] == FU_TILE_CHUNK) {
        unit[j] = 4 * es[j];
        off[j] = t->offset / 4;
        hi[j] = s->per[j] - 1;
      } else if (s->mode[j] == FU_TILE || s->mode[j] == FU_REPEAT) {
        unit[j] = es[j];
        off[j] = t->offset;
        hi[j] = s->per[j] - 1;
      } else if (s->mode[j] == FU_CHUNK) {
        unit[j] = 4 * es[j];
        off[j] = (t->offset + start) / 4;  // exact: the run starts on a chunk boundary
        hi[j] = nchunks - 1;
      } else {
        unit[j] = es[j];
        off[j] = t->offset + start;
        hi[j] = n - 1;
      }
    }
    fu_compact_params prm;
    memset(&prm, 0, sizeof prm);
    prm.numel = (uint32_t)n;
    prm.nchunks = (uint32_t)nchunks;
    for (int j = 0; j < s->nops; j++) {
      prm.rep[j] = (uint32_t)s->rep[j];
      prm.per[j] = (uint32_t)s->per[j];
    }
    tfr_wgpu_binding bind[FU_MAX_OPS];
    TFR_RETURN_IF_ERROR(fu_bind(b, s, unit, off, lo, hi, prm.off, bind));
    uint64_t groups = ((uint64_t)nchunks + per_group - 1) / per_group;
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_dispatch_n(b, pipeline, &prm, sizeof prm, bind, s->nread, s->nwrite, groups));
  }
  return TFR_OK;
}

static tfr_status fu_strided(tfr_wgpu_backend *b, fu_setup *s) {
  // The compact strides of the planned shape: a linear operand's.
  int64_t cst[TFR_MAX_RANK], c = 1;
  for (int d = 0; d < s->nd; d++) {
    cst[d] = c;
    c *= s->shape[d];
  }
  s->nstrided = 0;
  for (int j = 0; j < s->nops; j++) {
    s->mode[j] = FU_LINEAR;
    s->sidx[j] = 0;
    const int64_t *st = &s->stride[j * TFR_MAX_RANK];
    bool zero = true, linear = true;
    for (int d = 0; d < s->nd; d++) {
      zero = zero && st[d] == 0;
      linear = linear && st[d] == cst[d];
    }
    if (zero && j >= s->nout) s->mode[j] = FU_CONST;
    else if (!linear) {
      s->mode[j] = FU_STRIDED;
      s->sidx[j] = s->nstrided++;
    }
  }
  int max_axes = FU_KERNEL_RANK;
  if (s->nstrided && FU_NSTRIDES / s->nstrided < max_axes) max_axes = FU_NSTRIDES / s->nstrided;
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(fu_pipeline(b, s, &pipeline));

  int k_axes[TFR_MAX_RANK], h_axes[TFR_MAX_RANK];
  int nk = 0, nh = 0;
  for (int d = 0; d < s->nd; d++) {
    if (d < max_axes) k_axes[nk++] = d;
    else h_axes[nh++] = d;
  }
  for (;;) {  // keep the element index of one dispatch in u32
    int64_t n = 1;
    for (int i = 0; i < nk; i++) n *= s->shape[k_axes[i]];
    if (n < FU_MAX_DISPATCH_ELEMENTS) break;
    if (nk == 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: webgpu: an axis of %" PRId64 " strided elements exceeds the 2^31 "
                       "elements one dispatch handles",
                       s->what, n);
    for (int i = nh; i > 0; i--) h_axes[i] = h_axes[i - 1];
    h_axes[0] = k_axes[--nk];
    nh++;
  }

  fu_strided_params prm;
  memset(&prm, 0, sizeof prm);
  uint64_t numel = 1;
  int64_t ks[TFR_MAX_RANK], kst[TFR_MAX_RANK];
  for (int a = 0; a < nk; a++) {
    int d = k_axes[a];
    ks[a] = s->shape[d];
    prm.shape[a] = (uint32_t)s->shape[d];
    for (int j = 0; j < s->nops; j++)
      if (s->mode[j] == FU_STRIDED)  // the low 32 bits: the kernel's wrapping sums are exact
        prm.st[a * s->nstrided + s->sidx[j]] = (uint32_t)s->stride[j * TFR_MAX_RANK + d];
    numel *= (uint64_t)s->shape[d];
  }
  prm.numel = (uint32_t)numel;
  prm.rank = (uint32_t)nk;
  int64_t unit[FU_MAX_OPS], lo[FU_MAX_OPS], hi[FU_MAX_OPS];
  for (int j = 0; j < s->nops; j++) {
    unit[j] = tfr_ew_wgsl(s->type[j])->size;
    for (int a = 0; a < nk; a++) kst[a] = s->stride[j * TFR_MAX_RANK + k_axes[a]];
    tfr_wgpu_reach(nk, ks, kst, &lo[j], &hi[j]);
  }
  uint64_t per_group = (uint64_t)FU_WG * FU_STRIDED_EPT;
  uint64_t groups = (numel + per_group - 1) / per_group;
  int64_t idx[TFR_MAX_RANK] = {0};
  for (;;) {
    int64_t off[FU_MAX_OPS];
    for (int j = 0; j < s->nops; j++) {
      off[j] = s->t[j]->offset;
      for (int a = 0; a < nh; a++) off[j] += idx[a] * s->stride[j * TFR_MAX_RANK + h_axes[a]];
    }
    tfr_wgpu_binding bind[FU_MAX_OPS];
    TFR_RETURN_IF_ERROR(fu_bind(b, s, unit, off, lo, hi, prm.off, bind));
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_dispatch_n(b, pipeline, &prm, sizeof prm, bind, s->nread, s->nwrite, groups));
    int a = 0;
    for (; a < nh; a++) {
      if (++idx[a] < s->shape[h_axes[a]]) break;
      idx[a] = 0;
    }
    if (a == nh) break;
  }
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------

static tfr_status fu_run(tfr_wgpu_backend *b, const tfr_fusion_plan *p,
                         const tfr_tensor *const *inputs, tfr_tensor *const *outputs,
                         fu_setup *s) {
  s->plan = p;
  s->nout = p->num_outputs;
  for (int o = 0; o < s->nout; o++) {
    s->t[o] = outputs[o];
    s->type[o] = tfr_ew_type_of(outputs[o]->dtype);
    s->live[p->outputs[o]] = true;
  }
  for (int k = p->num_instructions - 1; k >= 0; k--)
    if (s->live[p->num_inputs + k])
      for (int q = 0; q < p->instr[k].num_operands; q++) {
        s->live[p->instr[k].operands[q]] = true;
        s->used[p->instr[k].operands[q]] = true;
      }
  int j = s->nout;
  for (int i = 0; i < p->num_inputs; i++) {
    if (!s->live[i]) continue;
    const tfr_tensor *in = inputs[i];
    int type = tfr_ew_type_of(in->dtype);
    s->alias[j] = -1;
    for (int o = 0; o < s->nout && s->alias[j] < 0; o++) {
      if (in->storage != outputs[o]->storage) continue;
      if (type == s->type[o]) {  // read through the output's binding
        s->alias[j] = o;
        break;
      }
      // The output's buffer seen as another dtype (a bitcast view): read
      // from a copy.
      tfr_tensor *tmp = NULL;
      TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, in->dtype, in->rank, in->shape, false, &tmp));
      fu_own(s, tmp);
      TFR_RETURN_IF_ERROR(tfr_wgpu_copy(b, s->what, in, tmp));
      in = tmp;  // a buffer of its own
      break;
    }
    s->input_id[j - s->nout] = i;
    s->t[j] = in;
    s->type[j] = type;
    j++;
  }
  s->nops = j;
  s->nin = j - s->nout;

  int budget = (int)b->limits.maxStorageBuffersPerShaderStage;
  if (budget > TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE) budget = TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE;
  if (b->fusion_budget > 0 && b->fusion_budget < budget) budget = b->fusion_budget;
  // Packing leaves at most one binding per value type among the inputs and
  // one among the outputs: the plan needs that many at least.
  bool in_type[TFR_EW_NTYPES] = {false}, out_type[TFR_EW_NTYPES] = {false};
  int need = 0;
  for (int q = 0; q < s->nops; q++) {
    bool *seen = q < s->nout ? out_type : in_type;
    if ((q >= s->nout && s->alias[q] >= 0) || seen[s->type[q]]) continue;
    seen[s->type[q]] = true;
    need++;
  }
  if (budget < need)
    return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: %d storage buffers per kernel (at least "
                     "%d needed)", s->what, budget, need);
  TFR_RETURN_IF_ERROR(fu_fit(b, s, budget));

  tfr_wgpu_plan_axes_n(s->nops, s->t, &s->nd, s->shape, s->stride);
  s->compact = fu_compact_plan(b, s);
  TFR_RETURN_IF_ERROR(s->compact ? fu_compact(b, s) : fu_strided(b, s));
  for (int o = 0; o < s->nout; o++)
    if (s->packed_out[o])
      TFR_RETURN_IF_ERROR(tfr_wgpu_copy(b, s->what, s->packed_out[o], outputs[o]));
  return TFR_OK;
}

// Clears what fu_run reads before writing: the small per-value and
// per-operand flags (the stride table and the operands are written first).
// Measured with tenferro-bench-webgpu-elementwise: zeroing the whole setup
// (and the single op's plan) on the heap cost a small op 0.6 us of host time.
static void fu_init(fu_setup *s, const char *what, const tfr_fusion_plan *p) {
  s->what = what;
  s->nowned = 0;
  s->nstrided = 0;
  size_t nvalues = (size_t)(p->num_inputs + p->num_instructions);
  memset(s->live, 0, nvalues * sizeof s->live[0]);
  memset(s->used, 0, nvalues * sizeof s->used[0]);
  memset(s->packed_in, 0, sizeof s->packed_in);
  memset(s->packed_out, 0, sizeof s->packed_out);
}

tfr_status tfr_wgpu_ew_run(tfr_wgpu_backend *b, const char *what, const tfr_fusion_plan *p,
                           const tfr_tensor *const *inputs, tfr_tensor *const *outputs) {
  for (int k = 0; k < p->num_instructions; k++) {
    const tfr_fusion_instr *in = &p->instr[k];
    if (!tfr_ew_expr_of(in->kind, in->op, tfr_ew_type_of(in->dtype)))
      return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: no kernel for instruction %d (kind %d, "
                       "op %d, dtype %s)", what, k, (int)in->kind, in->op,
                       tfr_dtype_name(in->dtype));
  }
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, what));
  if (outputs[0]->numel == 0) return TFR_OK;
  fu_setup s;
  fu_init(&s, what, p);
  tfr_status st = fu_run(b, p, inputs, outputs, &s);
  for (int i = 0; i < s.nowned; i++) tfr_tensor_release(s.owned[i]);
  return st;
}

void tfr_wgpu_test_fusion_budget(tfr_backend *backend, int buffers) {
  tfr_wgpu_cast(backend)->fusion_budget = buffers;
}

void tfr_wgpu_test_ew_piece(tfr_backend *backend, int64_t elements) {
  tfr_wgpu_cast(backend)->ew_piece = elements;
}

int tfr_wgpu_test_elementwise_kernels(tfr_backend *backend) {
  return tfr_wgpu_cast(backend)->kernels.family_count[TFR_WGPU_KERNELS_ELEMENTWISE];
}
