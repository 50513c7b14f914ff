// Elementwise ops (unary, binary, compare, select, clamp) on f32, i32, bool
// and c64, with the cpu backend's semantics (src/cpu/scalar_math.h).
//
// One kernel per (op, dtypes, layout), specialised from two templates:
//   * elementwise_compact.wgsl when, after planning, the output is one run of
//     unit stride and every input is one too or a broadcast element (stride
//     0): chunks of 4 elements per step, whole chunks (vec4 / one bool word /
//     two vec4 of c64) for each operand whose window starts on a chunk
//     boundary. Long runs go in pieces, each within the binding limit.
//   * elementwise_strided.wgsl otherwise: up to 8 merged axes with the
//     offsets and strides of every operand in the uniform parameters, further
//     outer axes iterated here (one dispatch per index), as in copy.c.
// Planning mirrors src/cpu/strided.c over the output and all inputs: extent-1
// axes dropped, the rest ordered by the output's |stride|, neighbours merged
// when every operand steps over the inner axis exactly (stride-0 inputs
// merge too).
//
// The op itself is one WGSL expression per (op, operand dtype) from the
// tables below, over the exact helpers of common/ew_exact.wgsl and the math
// library (common/math_f32.wgsl, common/math_c64.wgsl) for the analytic
// functions, correctly rounded f32 division and fmod.
//
// An input in the output's storage (in place, or a disjoint view of the same
// buffer) has no binding of its own: it is read through the output's binding,
// whose window then spans both. WebGPU refuses one buffer bound read-only and
// writable in one dispatch, and Dawn also two writable bindings whose ranges
// overlap (windows are aligned outwards, so even disjoint views may). Each
// invocation reads its elements before writing them, and the core refuses
// partial overlaps, so no invocation reads what another writes.
//
// Host cost: the kernel cache finds the pipeline by the whole tfr_ew_kernel
// (family, op, dtypes, layout; compared byte for byte), so a cached op builds
// no strings.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/elementwise.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_access.h"
#include "webgpu/wgpu_testing.h"

#define TFR_EW_KERNEL_RANK 8
#define TFR_EW_MAX_OPERANDS 4  // the output and up to 3 inputs
// Elements per strided dispatch: i = group * WG * EPT + lid stays in u32.
#define TFR_EW_MAX_DISPATCH_ELEMENTS (INT64_C(1) << 31)
// Elements per compact dispatch (a multiple of 4; also bounded by the binding
// limit, see tfr_ew_compact).
#define TFR_EW_MAX_PIECE (INT64_C(1) << 30)
#define TFR_EW_WG 256
#define TFR_EW_STRIDED_EPT 4
// Bytes of each generated piece of source.
#define TFR_EW_SOURCE_CAP 6144

// ---------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------

// The dtype of each kernel value type.
static const tfr_dtype tfr_ew_dtypes[TFR_EW_NTYPES] = {
    [TFR_EW_F32] = TFR_F32, [TFR_EW_I32] = TFR_I32, [TFR_EW_B8] = TFR_BOOL, [TFR_EW_C64] = TFR_C64};

const tfr_wgsl_type *tfr_ew_wgsl(int type) { return tfr_wgsl_type_of(tfr_ew_dtypes[type]); }

int tfr_ew_type_of(tfr_dtype dt) {
  switch (dt) {
    case TFR_F32: return TFR_EW_F32;
    case TFR_I32: return TFR_EW_I32;
    case TFR_BOOL: return TFR_EW_B8;
    case TFR_C64: return TFR_EW_C64;
    default: return -1;
  }
}

// ---------------------------------------------------------------------------
// The op tables: one WGSL expression of the inputs a, b, c per (op, operand
// dtype), with the snippets it needs. NULL where the op table of the core
// (src/core/elementwise_table.c) rejects the dtype.
// ---------------------------------------------------------------------------

typedef struct tfr_ew_row {
  tfr_ew_expr t[TFR_EW_NTYPES];
} tfr_ew_row;

#define F_(e) [TFR_EW_F32] = {e, 0}
#define FM(e) [TFR_EW_F32] = {e, TFR_EW_LIB_F32}
#define I_(e) [TFR_EW_I32] = {e, 0}
#define B_(e) [TFR_EW_B8] = {e, 0}
#define C_(e) [TFR_EW_C64] = {e, 0}
#define CM(e) [TFR_EW_C64] = {e, TFR_EW_LIB_C64}
// An analytic function of the math library on f32 and c64 / on f32 only.
#define FN_FC(name) \
  {{FM("tfr_" name "_f32(a)"), CM("tfr_" name "_c64(a)")}}
#define FN_F(name) {{FM("tfr_" name "_f32(a)")}}
// The special functions (common/math_special_f32.wgsl), f32 only.
#define FN_S(name) {{[TFR_EW_F32] = {"tfr_" name "_f32(a)", TFR_EW_LIB_F32 | TFR_EW_LIB_SPECIAL}}}

static const tfr_ew_row tfr_ew_unary_rows[TFR_UNARY_OP_COUNT] = {
    [TFR_NEGATE] = {{F_("tfr_ew_neg_f32(a)"), I_("tfr_ew_neg_i32(a)"), C_("tfr_ew_neg_c64(a)")}},
    [TFR_ABS] = {{F_("tfr_ew_abs_f32(a)"), I_("tfr_ew_abs_i32(a)"), CM("tfr_abs_c64(a)")}},
    [TFR_SIGN] = {{F_("tfr_ew_sign_f32(a)"), I_("tfr_ew_sign_i32(a)"), CM("tfr_sign_c64(a)")}},
    [TFR_CONJ] = {{F_("a"), I_("a"), C_("tfr_ew_conj_c64(a)")}},
    [TFR_NOT] = {{I_("~a"), B_("a ^ 1u")}},
    [TFR_FLOOR] = {{F_("floor(a)")}},
    [TFR_CEIL] = {{F_("ceil(a)")}},
    // WGSL's round() rounds halves to even.
    [TFR_ROUND_NEAREST_EVEN] = {{F_("round(a)")}},
    [TFR_ROUND_NEAREST_AFZ] = {{F_("tfr_ew_round_afz_f32(a)")}},
    [TFR_IS_FINITE] = {{F_("select(0u, 1u, tfr_ew_is_finite_f32(a))")}},
    [TFR_REAL] = {{F_("a"), C_("a.x")}},
    [TFR_IMAG] = {{F_("0.0"), C_("a.y")}},
    [TFR_EXP] = FN_FC("exp"),
    [TFR_LOG] = FN_FC("log"),
    [TFR_SIN] = FN_FC("sin"),
    [TFR_COS] = FN_FC("cos"),
    [TFR_TAN] = FN_FC("tan"),
    [TFR_TANH] = FN_FC("tanh"),
    [TFR_SQRT] = FN_FC("sqrt"),
    [TFR_RSQRT] = FN_FC("rsqrt"),
    [TFR_CBRT] = FN_F("cbrt"),
    [TFR_EXPM1] = FN_FC("expm1"),
    [TFR_LOG1P] = FN_FC("log1p"),
    [TFR_ERF] = FN_F("erf"),
    [TFR_LOGISTIC] = FN_FC("logistic"),
    [TFR_ASIN] = FN_FC("asin"),
    [TFR_ACOS] = FN_FC("acos"),
    [TFR_ATAN] = FN_FC("atan"),
    [TFR_SINH] = FN_FC("sinh"),
    [TFR_COSH] = FN_FC("cosh"),
    [TFR_ASINH] = FN_FC("asinh"),
    [TFR_ACOSH] = FN_FC("acosh"),
    [TFR_ATANH] = FN_FC("atanh"),
    [TFR_ERFC] = FN_F("erfc"),
    [TFR_POPCNT] = {{I_("countOneBits(a)")}},
    [TFR_LGAMMA] = FN_S("lgamma"),
    [TFR_DIGAMMA] = FN_S("digamma"),
    [TFR_ERF_INV] = FN_S("erf_inv"),
    [TFR_BESSEL_I1E] = FN_S("bessel_i1e"),
};

static const tfr_ew_row tfr_ew_binary_rows[TFR_BINARY_OP_COUNT] = {
    [TFR_ADD] = {{F_("a + b"), I_("tfr_ew_add_i32(a, b)"), C_("a + b")}},
    [TFR_SUBTRACT] = {{F_("a - b"), I_("tfr_ew_sub_i32(a, b)"), C_("a - b")}},
    [TFR_MULTIPLY] = {{F_("a * b"), I_("tfr_ew_mul_i32(a, b)"), CM("tfr_mul_c64(a, b)")}},
    // WGSL's f32 `/` is only within 2.5 ulp: the library's is correctly rounded.
    [TFR_DIVIDE] = {{FM("tfr_div_f32(a, b)"), I_("tfr_ew_div_i32(a, b)"),
                     CM("tfr_div_c64(a, b)")}},
    [TFR_REMAINDER] = {{FM("tfr_fmod_f32(a, b)"), I_("tfr_ew_rem_i32(a, b)")}},
    [TFR_MAXIMUM] = {{F_("tfr_ew_max_f32(a, b)"), I_("max(a, b)"), B_("a | b"),
                      C_("tfr_ew_max_c64(a, b)")}},
    [TFR_MINIMUM] = {{F_("tfr_ew_min_f32(a, b)"), I_("min(a, b)"), B_("a & b"),
                      C_("tfr_ew_min_c64(a, b)")}},
    [TFR_POWER] = {{FM("tfr_pow_f32(a, b)"), I_("tfr_ew_pow_i32(a, b)"),
                    CM("tfr_pow_c64(a, b)")}},
    [TFR_AND] = {{I_("a & b"), B_("a & b")}},
    [TFR_OR] = {{I_("a | b"), B_("a | b")}},
    [TFR_XOR] = {{I_("a ^ b"), B_("a ^ b")}},
    [TFR_ATAN2] = {{FM("tfr_atan2_f32(a, b)"),
                    [TFR_EW_C64] = {"tfr_ew_atan2_c64(a, b)", TFR_EW_LIB_C64 | TFR_EW_LIB_COMPLEX}}},
    [TFR_SHIFT_LEFT] = {{I_("tfr_ew_shl_i32(a, b)")}},
    [TFR_SHIFT_RIGHT_ARITHMETIC] = {{I_("tfr_ew_shr_arithmetic_i32(a, b)")}},
    [TFR_SHIFT_RIGHT_LOGICAL] = {{I_("tfr_ew_shr_logical_i32(a, b)")}},
    [TFR_NEXT_AFTER] = {{F_("tfr_ew_next_after_f32(a, b)")}},
    [TFR_COMPLEX] = {{F_("vec2<f32>(a, b)")}},
};

// IEEE comparisons: every ordered one is false with a NaN, NE true. NaN is
// decided on the bits, so no driver shortcut changes the answer; bool
// compares as unsigned.
#define CMP_ROW(op)                                                               \
  {{F_("select(0u, 1u, tfr_ew_ordered_f32(a, b) && a " op " b)"),                \
    I_("select(0u, 1u, a " op " b)"), B_("select(0u, 1u, a " op " b)")}}
static const tfr_ew_row tfr_ew_compare_rows[TFR_GE + 1] = {
    [TFR_EQ] = {{F_("select(0u, 1u, tfr_ew_ordered_f32(a, b) && a == b)"),
                 I_("select(0u, 1u, a == b)"), B_("select(0u, 1u, a == b)"),
                 C_("select(0u, 1u, tfr_ew_eq_c64(a, b))")}},
    [TFR_NE] = {{F_("select(0u, 1u, !tfr_ew_ordered_f32(a, b) || a != b)"),
                 I_("select(0u, 1u, a != b)"), B_("select(0u, 1u, a != b)"),
                 C_("select(0u, 1u, !tfr_ew_eq_c64(a, b))")}},
    [TFR_LT] = CMP_ROW("<"),
    [TFR_LE] = CMP_ROW("<="),
    [TFR_GT] = CMP_ROW(">"),
    [TFR_GE] = CMP_ROW(">="),
};
#undef CMP_ROW

// select(pred, on_true, on_false) copies one value; the row is indexed by
// on_true's dtype.
static const tfr_ew_row tfr_ew_select_row = {
    {F_("select(c, b, a != 0u)"), I_("select(c, b, a != 0u)"), B_("select(c, b, a != 0u)"),
     C_("select(c, b, a != 0u)")}};

// clamp(min, operand, max) = minimum(maximum(operand, min), max).
static const tfr_ew_row tfr_ew_clamp_row = {
    {F_("tfr_ew_clamp_f32(a, b, c)"), I_("tfr_ew_clamp_i32(a, b, c)"), B_("(b | a) & c")}};

#undef F_
#undef FM
#undef I_
#undef B_
#undef C_
#undef CM
#undef FN_FC
#undef FN_F
#undef FN_S

static const char *tfr_ew_op_name(const tfr_elementwise_desc *d) {
  switch (d->kind) {
    case TFR_EW_UNARY: return tfr_unary_op_name((tfr_unary_op)d->op);
    case TFR_EW_BINARY: return tfr_binary_op_name((tfr_binary_op)d->op);
    case TFR_EW_COMPARE: return "compare";
    case TFR_EW_SELECT: return "select";
    case TFR_EW_CLAMP: return "clamp";
  }
  return "elementwise";
}

const tfr_ew_expr *tfr_ew_expr_of(tfr_ew_kind kind, int op_, int type) {
  const tfr_ew_row *row = NULL;
  unsigned op = (unsigned)op_;
  switch (kind) {
    case TFR_EW_UNARY: row = op < TFR_UNARY_OP_COUNT ? &tfr_ew_unary_rows[op] : NULL; break;
    case TFR_EW_BINARY: row = op < TFR_BINARY_OP_COUNT ? &tfr_ew_binary_rows[op] : NULL; break;
    case TFR_EW_COMPARE: row = op <= TFR_GE ? &tfr_ew_compare_rows[op] : NULL; break;
    case TFR_EW_SELECT: row = &tfr_ew_select_row; break;
    case TFR_EW_CLAMP: row = &tfr_ew_clamp_row; break;
  }
  if (!row || type < 0 || type >= TFR_EW_NTYPES || !row->t[type].e) return NULL;
  return &row->t[type];
}

static const tfr_ew_expr *tfr_ew_lookup(const tfr_elementwise_desc *d, int type) {
  return tfr_ew_expr_of(d->kind, d->op, type);
}

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

typedef struct tfr_ew_plan {
  int nops;                                        // output + inputs
  int nd;                                          // merged axes, innermost first
  int64_t shape[TFR_MAX_RANK];
  int64_t stride[TFR_EW_MAX_OPERANDS][TFR_MAX_RANK];  // [operand][axis], in elements
} tfr_ew_plan;

static void tfr_ew_plan_axes(int nops, const tfr_tensor *const *ops, tfr_ew_plan *p) {
  p->nops = nops;
  tfr_wgpu_plan_axes_n(nops, ops, &p->nd, p->shape, &p->stride[0][0]);
}

// ---------------------------------------------------------------------------
// Kernel source
// ---------------------------------------------------------------------------

// How the compact kernel accesses an operand (wgsl_access.h).
enum {
  TFR_EW_MODE_SCALAR = TFR_WGSL_SCALAR,
  TFR_EW_MODE_CHUNK = TFR_WGSL_CHUNK,
  TFR_EW_MODE_BCAST = TFR_WGSL_BCAST,
};

// What makes one kernel: everything its source depends on. It is the kernel
// cache's key, compared whole: ints only, so no padding byte can differ.
typedef struct tfr_ew_kernel {
  int kind, op;
  int nin;
  int in_type[3];
  int out_type;
  int compact;     // 0 or 1
  int in_mode[3];  // compact only
  int out_mode;    // compact only: SCALAR or CHUNK
  int aliased[3];  // 1: input bound read-write (shares the output's buffer)
} tfr_ew_kernel;
_Static_assert(sizeof(tfr_ew_kernel) == 15 * sizeof(int), "tfr_ew_kernel has no padding");

static const char *const tfr_ew_comp[4] = {"x", "y", "z", "w"};

// Bindings and access functions (the template's ACCESS). Input k reads
// through w<k>(w) (one entry of its array: a value, a vec4 chunk, a word of
// four bools), raw<k>(j) (the element at window index j), and in the compact
// kernel ld<k>(i) / ldc<k>(c) (element i / chunk c of the run). An input in the
// output's buffer has no binding: it reads `dst`, in the output's form.
// Bindings and access functions (the template's ACCESS; wgsl_access.h):
// input i through in<i> (or, aliased, the output's dst), the output through
// dst.
static void tfr_ew_put_access(tfr_wgsl_text *t, const tfr_ew_kernel *k) {
  static const char *const suffix[3] = {"0", "1", "2"};
  static const char *const offset[4] = {"P.offset.x", "P.offset.y", "P.offset.z", "P.offset.w"};
  int binding = 1;
  for (int i = 0; i < k->nin; i++) {
    char array[16];
    snprintf(array, sizeof array, "in%d", i);
    tfr_wgsl_operand o = {suffix[i], tfr_ew_wgsl(k->in_type[i]), k->compact, k->in_mode[i],
                          k->aliased[i] ? "dst" : array, offset[i + 1], k->aliased[i] != 0, true};
    if (!k->aliased[i])
      tfr_wgsl_put(t, "@group(0) @binding(%d) var<storage, read> in%d: %s;\n", binding++, i,
                   tfr_wgsl_operand_array(&o, false));
    tfr_wgsl_put_input(t, &o);
  }
  tfr_wgsl_operand o = {"", tfr_ew_wgsl(k->out_type), k->compact, k->out_mode, "dst", offset[0],
                        true, true};
  tfr_wgsl_put(t, "@group(0) @binding(%d) var<storage, read_write> dst: %s;\n", binding,
               tfr_wgsl_operand_array(&o, true));
  tfr_wgsl_put_output(t, &o);
}

static const char *const tfr_ew_dtype_tag[TFR_EW_NTYPES] = {"f32", "i32", "bool", "c64"};
static const char tfr_ew_mode_tag[3] = {'S', 'V', 'B'};
static const char *const tfr_ew_direction_tag[TFR_GE + 1] = {"_EQ", "_NE", "_LT",
                                                             "_LE", "_GT", "_GE"};

// Chunks of 4 elements per invocation of the compact kernel: 8 (4 for c64,
// whose chunks are twice as wide). On the H200 at 2^28 f32, 8 against 4:
// exp 0.541 against 0.582 ms, add 0.782 against 0.808 ms; 2: exp 0.611 ms.
// b->ew_ept (TFR_WEBGPU_EW_EPT) overrides it, for such measurements.
static uint32_t tfr_ew_compact_ept(const tfr_wgpu_backend *b, const tfr_ew_kernel *k) {
  bool wide = k->out_type == TFR_EW_C64;
  for (int i = 0; i < k->nin; i++) wide = wide || k->in_type[i] == TFR_EW_C64;
  uint32_t ept = b->ew_ept ? b->ew_ept : 8u;
  return wide ? (ept + 1) / 2 : ept;
}

// Builds and compiles the kernel `k` for expression `x`.
static tfr_status tfr_ew_build(tfr_wgpu_backend *b, const tfr_ew_kernel *k, const char *opname,
                               const tfr_ew_expr *x, WGPUComputePipeline *out) {
  static const char *const names[3] = {"a", "b", "c"};
  // The variant name: the Dawn label and the pipeline cache's key.
  char variant[128];
  char modes[8] = {0};
  if (k->compact) {
    modes[0] = tfr_ew_mode_tag[k->out_mode];
    for (int i = 0; i < k->nin; i++) modes[1 + i] = tfr_ew_mode_tag[k->in_mode[i]];
  }
  char alias[4] = {0};
  for (int i = 0, n = 0; i < k->nin; i++)
    if (k->aliased[i]) alias[n++] = (char)('0' + i);
  char ins[32];
  int m = 0;
  for (int i = 0; i < k->nin; i++)
    m += snprintf(ins + m, sizeof ins - (size_t)m, "%s%s", i ? "," : "",
                  tfr_ew_dtype_tag[k->in_type[i]]);
  snprintf(variant, sizeof variant, "%s[%s%s:%s->%s%s%s%s%s]",
           k->compact ? "elementwise_compact" : "elementwise_strided", opname,
           k->kind == TFR_EW_COMPARE ? tfr_ew_direction_tag[k->op] : "", ins,
           tfr_ew_dtype_tag[k->out_type], k->compact ? ";" : "", modes, alias[0] ? ";rw" : "",
           alias);

  tfr_wgsl_text access = {.limit = TFR_EW_SOURCE_CAP};
  tfr_ew_put_access(&access, k);
  tfr_wgsl_text op = {.limit = TFR_EW_SOURCE_CAP};
  tfr_wgsl_put(&op, "fn tfr_ew_op(");
  for (int i = 0; i < k->nin; i++)
    tfr_wgsl_put(&op, "%s%s: %s", i ? ", " : "", names[i], tfr_ew_wgsl(k->in_type[i])->value);
  tfr_wgsl_put(&op, ") -> %s { return %s; }\n", tfr_ew_wgsl(k->out_type)->value, x->e);
  tfr_wgsl_text apply = {.limit = TFR_EW_SOURCE_CAP}, apply4 = {.limit = TFR_EW_SOURCE_CAP};
  if (k->compact) {
    tfr_wgsl_put(&apply, "st(i, tfr_ew_op(");
    for (int i = 0; i < k->nin; i++) tfr_wgsl_put(&apply, "%sld%d(i)", i ? ", " : "", i);
    tfr_wgsl_put(&apply, "))");
    for (int i = 0; i < k->nin; i++) tfr_wgsl_put(&apply4, "let a%d = ldc%d(c); ", i, i);
    tfr_wgsl_put(&apply4, "stc(c, array<%s, 4>(", tfr_ew_wgsl(k->out_type)->value);
    for (int e = 0; e < 4; e++) {
      tfr_wgsl_put(&apply4, "%stfr_ew_op(", e ? ", " : "");
      for (int i = 0; i < k->nin; i++) tfr_wgsl_put(&apply4, "%sa%d[%d]", i ? ", " : "", i, e);
      tfr_wgsl_put(&apply4, ")");
    }
    tfr_wgsl_put(&apply4, "));");
  } else {
    tfr_wgsl_put(&apply, "st(o.x, tfr_ew_op(");
    for (int i = 0; i < k->nin; i++)
      tfr_wgsl_put(&apply, "%sld%d(o.%s)", i ? ", " : "", i, tfr_ew_comp[i + 1]);
    tfr_wgsl_put(&apply, "))");
  }
  tfr_wgsl_text *texts[4] = {&access, &op, &apply, &apply4};
  tfr_status st = TFR_OK;
  for (int i = 0; i < 4 && !st; i++) {
    if (texts[i]->overflow)
      st = tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: generated source too long", variant);
    else if (texts[i]->failed)
      st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", variant);
  }
  if (st) {
    for (int i = 0; i < 4; i++) tfr_wgsl_text_free(texts[i]);
    return st;
  }

  const char *snippets[TFR_EW_MAX_LIB_SNIPPETS + 2];
  int ns = tfr_ew_lib_snippets(x->lib, snippets);
  if (k->out_type == TFR_EW_B8) snippets[ns++] = "common/bytes.wgsl";
  snippets[ns] = NULL;
  tfr_wgsl_subst subst[] = {{"ACCESS", access.buf ? access.buf : ""},
                            {"OP", op.buf ? op.buf : ""},
                            {"APPLY", apply.buf ? apply.buf : ""},
                            {"APPLY4", apply4.buf ? apply4.buf : ""}};
  int nread = 0;  // inputs in the output's buffer read it: no binding of their own
  for (int i = 0; i < k->nin; i++) nread += !k->aliased[i];
  tfr_wgsl_override overrides[] = {
      {"WG", TFR_EW_WG},
      {"EPT", k->compact ? tfr_ew_compact_ept(b, k) : TFR_EW_STRIDED_EPT}};
  tfr_wgsl_variant v = {variant,
                        k->compact ? "elementwise_compact.wgsl" : "elementwise_strided.wgsl",
                        snippets,
                        subst,
                        k->compact ? 4 : 3,
                        overrides,
                        2,
                        nread,
                        1};
  st = tfr_wgpu_kernel_build(b, TFR_WGPU_KERNELS_ELEMENTWISE, k, sizeof *k, &v, out);
  for (int i = 0; i < 4; i++) tfr_wgsl_text_free(texts[i]);
  return st;
}

static tfr_status tfr_ew_pipeline(tfr_wgpu_backend *b, const tfr_ew_kernel *k,
                                  const char *opname, const tfr_ew_expr *x,
                                  WGPUComputePipeline *out) {
  *out = tfr_wgpu_kernel_find(b, TFR_WGPU_KERNELS_ELEMENTWISE, k, sizeof *k);
  if (*out) return TFR_OK;
  return tfr_ew_build(b, k, opname, x, out);
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

// Parameters of elementwise_strided.wgsl.
typedef struct tfr_ew_strided_params {
  uint32_t numel, rank, pad0, pad1;
  uint32_t offset[4];
  uint32_t shape[8];
  uint32_t stride[8][4];
} tfr_ew_strided_params;
_Static_assert(sizeof(tfr_ew_strided_params) == 192, "elementwise_strided Params layout");
_Static_assert(sizeof(tfr_ew_strided_params) <= TFR_WGPU_PARAM_SLOT, "parameter slot");

// Parameters of elementwise_compact.wgsl.
typedef struct tfr_ew_compact_params {
  uint32_t numel, nchunks, pad0, pad1;
  uint32_t offset[4];
} tfr_ew_compact_params;
_Static_assert(sizeof(tfr_ew_compact_params) == 32, "elementwise_compact Params layout");

static const char *const tfr_ew_operand_names[TFR_EW_MAX_OPERANDS] = {"output", "first input",
                                                                       "second input",
                                                                       "third input"};

// The windows of one dispatch. Operand i (0 = the output) reaches units
// [off[i] + lo[i], off[i] + hi[i]] of unit[i] bytes. Inputs without a buffer
// of their own (aliased: in the output's buffer, with its unit) widen the
// output's window instead. Fills rel[i] (the offsets relative to the windows)
// and the bindings in tfr_wgpu_dispatch_n's order: inputs, then the output;
// returns the number of read-only ones in *nread.
static tfr_status tfr_ew_bind(tfr_wgpu_backend *b, const char *op, const tfr_ew_kernel *k,
                              const tfr_tensor *const *ops, const int64_t *unit,
                              const int64_t *off, const int64_t *lo, const int64_t *hi,
                              uint32_t *rel, tfr_wgpu_binding *bind, int *nread) {
  int n = 0;
  for (int i = 1; i <= k->nin; i++) {
    if (k->aliased[i - 1]) continue;
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, tfr_ew_operand_names[i], ops[i], unit[i], off[i],
                                        lo[i], hi[i], &bind[n++], &rel[i]));
  }
  *nread = n;
  int64_t olo = lo[0], ohi = hi[0];
  for (int i = 1; i <= k->nin; i++) {
    if (!k->aliased[i - 1]) continue;
    int64_t d = off[i] - off[0];
    if (d + lo[i] < olo) olo = d + lo[i];
    if (d + hi[i] > ohi) ohi = d + hi[i];
  }
  TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, tfr_ew_operand_names[0], ops[0], unit[0], off[0],
                                      olo, ohi, &bind[n++], &rel[0]));
  // The window starts at or below every aliased input's lowest unit, so these
  // are >= 0.
  for (int i = 1; i <= k->nin; i++)
    if (k->aliased[i - 1]) rel[i] = (uint32_t)((int64_t)rel[0] + off[i] - off[0]);
  return TFR_OK;
}

// The compact path: one merged axis, unit output stride, inputs of stride 1
// or 0.
static tfr_status tfr_ew_compact(tfr_wgpu_backend *b, const char *op, tfr_ew_kernel *k,
                                 const char *opname, const tfr_ew_expr *x,
                                 const tfr_tensor *const *ops, const tfr_ew_plan *plan) {
  int64_t numel = plan->shape[0];
  // Per operand (0 = output): mode, element size, and whether whole chunks work.
  int mode[TFR_EW_MAX_OPERANDS] = {0};
  int64_t es[TFR_EW_MAX_OPERANDS] = {0};
  int64_t max_es = 1;
  for (int i = 0; i < plan->nops; i++) {
    const tfr_tensor *t = ops[i];
    es[i] = tfr_ew_wgsl(i == 0 ? k->out_type : k->in_type[i - 1])->size;
    if (es[i] > max_es) max_es = es[i];
    if (i > 0 && plan->stride[i][0] == 0) {
      mode[i] = TFR_EW_MODE_BCAST;
      continue;
    }
    // Whole chunks when the run starts on a chunk boundary and its last chunk
    // lies inside the buffer (always, except for buffers of exactly the
    // tensor's size, made beyond the pool's largest class).
    int64_t cb = 4 * es[i];
    int64_t first = t->offset * es[i];
    int64_t end = first + ((numel + 3) & ~INT64_C(3)) * es[i];
    bool chunk = first % cb == 0 && (uint64_t)end <= (uint64_t)t->storage->capacity;
    mode[i] = chunk ? TFR_EW_MODE_CHUNK : TFR_EW_MODE_SCALAR;
  }
  // Aliased inputs read the output's window in its units: whole chunks only
  // when all of them and the output take whole chunks.
  bool all_chunks = mode[0] == TFR_EW_MODE_CHUNK;
  for (int i = 0; i < k->nin; i++)
    if (k->aliased[i] && mode[1 + i] != TFR_EW_MODE_CHUNK) all_chunks = false;
  if (!all_chunks) {
    mode[0] = TFR_EW_MODE_SCALAR;
    for (int i = 0; i < k->nin; i++)
      if (k->aliased[i] && mode[1 + i] == TFR_EW_MODE_CHUNK) mode[1 + i] = TFR_EW_MODE_SCALAR;
  }
  k->compact = true;
  k->out_mode = mode[0];
  for (int i = 0; i < k->nin; i++) k->in_mode[i] = mode[1 + i];
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_ew_pipeline(b, k, opname, x, &pipeline));

  // Pieces: each window within the binding limit (with room for alignment).
  int64_t limit = (int64_t)b->limits.maxStorageBufferBindingSize - 1024;
  int64_t piece = limit / max_es;
  if (piece > TFR_EW_MAX_PIECE) piece = TFR_EW_MAX_PIECE;
  if (b->ew_piece > 0 && b->ew_piece < piece) piece = b->ew_piece;
  piece &= ~INT64_C(3);
  if (piece < 4) piece = 4;
  uint64_t per_group = (uint64_t)TFR_EW_WG * tfr_ew_compact_ept(b, k);
  for (int64_t start = 0; start < numel; start += piece) {
    int64_t n = numel - start < piece ? numel - start : piece;
    int64_t nchunks = (n + 3) / 4;
    int64_t unit[TFR_EW_MAX_OPERANDS], off[TFR_EW_MAX_OPERANDS], lo[TFR_EW_MAX_OPERANDS] = {0},
                                                                   hi[TFR_EW_MAX_OPERANDS];
    for (int i = 0; i < plan->nops; i++) {
      const tfr_tensor *t = ops[i];
      if (mode[i] == TFR_EW_MODE_BCAST) {
        unit[i] = es[i];
        off[i] = t->offset;
        hi[i] = 0;
      } else if (mode[i] == TFR_EW_MODE_CHUNK) {
        unit[i] = 4 * es[i];
        off[i] = (t->offset + start) / 4;  // exact: the run starts on a chunk boundary
        hi[i] = nchunks - 1;
      } else {
        unit[i] = es[i];
        off[i] = t->offset + start;
        hi[i] = n - 1;
      }
    }
    tfr_ew_compact_params prm = {(uint32_t)n, (uint32_t)nchunks, 0, 0, {0, 0, 0, 0}};
    tfr_wgpu_binding bind[TFR_EW_MAX_OPERANDS];
    int nread;
    TFR_RETURN_IF_ERROR(tfr_ew_bind(b, op, k, ops, unit, off, lo, hi, prm.offset, bind, &nread));
    uint64_t groups = ((uint64_t)nchunks + per_group - 1) / per_group;
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_dispatch_n(b, pipeline, &prm, sizeof prm, bind, nread, 1, groups));
  }
  return TFR_OK;
}

// The strided path: up to 8 kernel axes, further outer axes on the host.
static tfr_status tfr_ew_strided(tfr_wgpu_backend *b, const char *op, tfr_ew_kernel *k,
                                 const char *opname, const tfr_ew_expr *x,
                                 const tfr_tensor *const *ops, const tfr_ew_plan *plan) {
  k->compact = false;
  k->out_mode = 0;
  for (int i = 0; i < k->nin; i++) k->in_mode[i] = 0;
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_ew_pipeline(b, k, opname, x, &pipeline));

  int k_axes[TFR_MAX_RANK], h_axes[TFR_MAX_RANK];
  int nk = 0, nh = 0;
  for (int d = 0; d < plan->nd; d++) {
    if (d < TFR_EW_KERNEL_RANK) k_axes[nk++] = d;
    else h_axes[nh++] = d;
  }
  for (;;) {  // keep the element index of one dispatch in u32
    int64_t n = 1;
    for (int i = 0; i < nk; i++) n *= plan->shape[k_axes[i]];
    if (n < TFR_EW_MAX_DISPATCH_ELEMENTS) break;
    if (nk == 1)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: webgpu: an axis of %" PRId64 " strided elements exceeds the 2^31 "
                       "elements one dispatch handles",
                       op, n);
    for (int i = nh; i > 0; i--) h_axes[i] = h_axes[i - 1];
    h_axes[0] = k_axes[--nk];
    nh++;
  }

  tfr_ew_strided_params prm;
  memset(&prm, 0, sizeof prm);
  uint64_t numel = 1;
  int64_t ks[TFR_MAX_RANK], kst[TFR_EW_MAX_OPERANDS][TFR_MAX_RANK];
  for (int a = 0; a < nk; a++) {
    int d = k_axes[a];
    ks[a] = plan->shape[d];
    prm.shape[a] = (uint32_t)plan->shape[d];
    for (int i = 0; i < plan->nops; i++) {
      kst[i][a] = plan->stride[i][d];
      // The low 32 bits: the kernel's wrapping sums are exact.
      prm.stride[a][i] = (uint32_t)plan->stride[i][d];
    }
    numel *= (uint64_t)plan->shape[d];
  }
  prm.numel = (uint32_t)numel;
  prm.rank = (uint32_t)nk;
  int64_t unit[TFR_EW_MAX_OPERANDS], lo[TFR_EW_MAX_OPERANDS], hi[TFR_EW_MAX_OPERANDS];
  for (int i = 0; i < plan->nops; i++) {
    unit[i] = tfr_ew_wgsl(i == 0 ? k->out_type : k->in_type[i - 1])->size;
    tfr_wgpu_reach(nk, ks, kst[i], &lo[i], &hi[i]);
  }
  uint64_t per_group = (uint64_t)TFR_EW_WG * TFR_EW_STRIDED_EPT;
  uint64_t groups = (numel + per_group - 1) / per_group;

  int64_t idx[TFR_MAX_RANK] = {0};
  for (;;) {
    int64_t off[TFR_EW_MAX_OPERANDS];
    for (int i = 0; i < plan->nops; i++) {
      off[i] = ops[i]->offset;
      for (int a = 0; a < nh; a++) off[i] += idx[a] * plan->stride[i][h_axes[a]];
    }
    tfr_wgpu_binding bind[TFR_EW_MAX_OPERANDS];
    int nread;
    TFR_RETURN_IF_ERROR(tfr_ew_bind(b, op, k, ops, unit, off, lo, hi, prm.offset, bind, &nread));
    TFR_RETURN_IF_ERROR(
        tfr_wgpu_dispatch_n(b, pipeline, &prm, sizeof prm, bind, nread, 1, groups));
    int a = 0;
    for (; a < nh; a++) {
      if (++idx[a] < plan->shape[h_axes[a]]) break;
      idx[a] = 0;
    }
    if (a == nh) break;
  }
  return TFR_OK;
}

int tfr_ew_lib_snippets(unsigned lib, const char **snippets) {
  int ns = 0;
  snippets[ns++] = "common/convert.wgsl";  // tfr_f32_is_nan
  snippets[ns++] = "common/ew_exact.wgsl";
  if (lib & (TFR_EW_LIB_F32 | TFR_EW_LIB_C64 | TFR_EW_LIB_SPECIAL))
    snippets[ns++] = "common/math_f32.wgsl";
  if (lib & TFR_EW_LIB_SPECIAL) snippets[ns++] = "common/math_special_f32.wgsl";
  if (lib & TFR_EW_LIB_C64) snippets[ns++] = "common/math_c64.wgsl";
  if (lib & TFR_EW_LIB_COMPLEX) snippets[ns++] = "common/ew_complex.wgsl";
  return ns;
}

tfr_status tfr_wgpu_elementwise(tfr_backend *base, const tfr_elementwise_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  const char *op = tfr_ew_op_name(d);

  // Dtypes: f32, i32, bool and c64 have kernels; the 64-bit ones wait for the
  // emulation of their own issue.
  tfr_dtype dts[TFR_EW_MAX_OPERANDS + 1] = {d->dtype, d->out_dtype};
  int ndts = 2;
  for (int i = 0; i < d->ninputs; i++) dts[ndts++] = d->inputs[i]->dtype;
  for (int i = 0; i < ndts; i++) {
    if (tfr_wgpu_dtype_computes(TFR_WGPU_ELEMENTWISE, dts[i])) continue;
    bool wide = dts[i] == TFR_F64 || dts[i] == TFR_I64 || dts[i] == TFR_C128;
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "%s: dtype %s is not supported on the webgpu backend%s", op,
                     tfr_dtype_name(dts[i]), wide ? " (it has no 64-bit types yet)" : "");
  }
  int type = tfr_ew_type_of(d->dtype);
  const tfr_ew_expr *x = tfr_ew_lookup(d, type);
  if (!x)
    return tfr_error(TFR_ERR_INTERNAL, "%s: webgpu: no kernel for dtype %s (kind %d, op %d)", op,
                     tfr_dtype_name(d->dtype), (int)d->kind, d->op);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, op));
  if (d->out->numel == 0) return TFR_OK;

  const tfr_tensor *ops[TFR_EW_MAX_OPERANDS] = {d->out};
  tfr_tensor *tmp[3] = {NULL, NULL, NULL};
  tfr_ew_kernel k;
  memset(&k, 0, sizeof k);
  k.kind = (int)d->kind;
  k.op = d->op;
  k.nin = d->ninputs;
  k.out_type = tfr_ew_type_of(d->out_dtype);
  tfr_status st = TFR_OK;
  for (int i = 0; i < d->ninputs && !st; i++) {
    const tfr_tensor *in = d->inputs[i];
    k.in_type[i] = tfr_ew_type_of(in->dtype);
    if (in->storage == d->out->storage && in->dtype != d->out_dtype) {
      // The output's buffer seen as another dtype (bitcast views): read from a
      // copy rather than through the output's binding.
      st = tfr_tensor_alloc(&b->base, in->dtype, in->rank, in->shape, false, &tmp[i]);
      if (!st) st = tfr_wgpu_copy(b, op, in, tmp[i]);
      in = tmp[i];
    }
    ops[1 + i] = in;
    k.aliased[i] = in->storage == d->out->storage;
  }
  if (!st) {
    tfr_ew_plan plan;
    memset(&plan, 0, sizeof plan);
    tfr_ew_plan_axes(1 + d->ninputs, ops, &plan);
    bool compact = plan.nd == 1 && plan.stride[0][0] == 1;
    for (int i = 1; compact && i < plan.nops; i++)
      compact = plan.stride[i][0] == 1 || plan.stride[i][0] == 0;
    st = compact ? tfr_ew_compact(b, op, &k, op, x, ops, &plan)
                 : tfr_ew_strided(b, op, &k, op, x, ops, &plan);
  }
  for (int i = 0; i < 3; i++) tfr_tensor_release(tmp[i]);
  return st;
}

void tfr_wgpu_test_ew_piece(tfr_backend *backend, int64_t elements) {
  tfr_wgpu_cast(backend)->ew_piece = elements;
}
