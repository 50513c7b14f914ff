// Conformance runner: THE tolerance table. Every number a result is allowed
// to differ by lives here, each with the reason it is what it is. Change a
// number only with a reason written next to it; docs/conformance.md repeats
// this table.
//
// How a case gets its tolerance (FORMAT.md, "Recommended comparison"):
//   1. each instruction of the program has an op class (tfr_conf_op_class);
//      the loosest class of the program applies;
//   2. the precision column is the checked result's dtype;
//   3. the row (backend, class, precision) gives N (ULPs) and T (the bound
//      |a - e| <= T * eps * M, M = largest |expected| of the tensor);
//   4. a case listed in tfr_conf_case_overrides replaces that row.
// Bool and integer results are always compared byte for byte.
#include <string.h>

#include "conformance.h"

// Which ops are in which class is the TOL column of the op registry
// (src/core/op_registry.def); tfr_conf_op_class maps it.
typedef enum tfr_conf_class {
  // Exact ops: data movement, integer/logical ops, compare, select, clamp,
  // convert, add, subtract, negate, real multiply, abs, max, min, floor,
  // ceil, rounding, sign, remainder, next_after, is_finite, real, imag,
  // complex. FORMAT.md: their expected values were re-evaluated with exact
  // arithmetic and "match bit for bit in every float dtype. Implement these
  // exactly; a difference is a bug."
  TFR_CONF_CLASS_EXACT = 0,
  // Elementwise functions (exp, log, trig, ...), power, real divide, complex
  // abs/sign/multiply/divide: a library function need not be correctly rounded.
  TFR_CONF_CLASS_FUNCTION = 1,
  // Sums and products over many elements (dot_general, reduce add/multiply,
  // scatter add/multiply, ...): the summation order is free.
  TFR_CONF_CLASS_ACCUMULATE = 2,
} tfr_conf_class;

typedef enum tfr_conf_precision {
  TFR_CONF_P_F64 = 0,   // f64, c128
  TFR_CONF_P_F32 = 1,   // f32, c64
  TFR_CONF_P_HALF = 2,  // f16, bf16
} tfr_conf_precision;

static const char *const tfr_conf_class_names[] = {"exact", "function", "accumulate"};
static const char *const tfr_conf_precision_names[] = {"f64/c128", "f32/c64", "f16/bf16"};
static const char *const tfr_conf_backend_names[] = {"cpu", "webgpu"};

typedef struct tfr_conf_tolerance_row {
  tfr_conf_backend backend;
  tfr_conf_class cls;
  tfr_conf_precision precision;
  tfr_conf_tolerance tol;  // N, T, flush_subnormals
  const char *why;
} tfr_conf_tolerance_row;

static const tfr_conf_tolerance_row tfr_conf_rows[] = {
    // ---- cpu: FORMAT.md's recommended table, unchanged ----
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_F64, {0, 0.0, false},
     "exact ops are bit-exact in the data; any difference is a bug"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_F32, {0, 0.0, false},
     "exact ops are bit-exact in the data; any difference is a bug"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_HALF, {0, 0.0, false},
     "exact ops are bit-exact in the data; any difference is a bug"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_F64, {4, 1.0, false},
     "data within 2 ULP of exact, plus 2 ULP for a libm that is not correctly rounded"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_F32, {8, 1.0, false},
     "data within 7 ULP of exact (f32 expected values from f32 kernels), plus 1"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_HALF, {2, 1.0, false},
     "computed in f32 and rounded once, the result is within 1 ULP; data within 2"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_F64, {16, 64.0, false},
     "data within 2.1 eps M of exact; sums in another order (BLAS, pairwise) add more"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_F32, {16, 64.0, false},
     "data within 2.1 eps M of exact; sums in another order (BLAS, pairwise) add more"},
    {TFR_CONF_BACKEND_CPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_HALF, {16, 64.0, false},
     "data within 2.1 eps M of exact; sums in another order add more"},

    // ---- webgpu: first cut from FORMAT.md's "f32 on a GPU" table; refine
    // per op once the kernels run. Devices may flush subnormals, so a
    // subnormal expected value also matches 0 in every row. ----
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_F64, {0, 0.0, true},
     "exact ops are bit-exact (WGSL arithmetic is correctly rounded); subnormals may flush"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_F32, {0, 0.0, true},
     "exact ops are bit-exact (WGSL arithmetic is correctly rounded); subnormals may flush"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_EXACT, TFR_CONF_P_HALF, {0, 0.0, true},
     "exact ops are bit-exact (WGSL arithmetic is correctly rounded); subnormals may flush"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_F64, {4, 1.0, true},
     "f64 is emulated from f32 pairs: held to the cpu numbers until its issue says otherwise"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_F32, {16, 4.0, true},
     "the loosest per-op suggestion for own-code WGSL functions (erf, lgamma, power)"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_FUNCTION, TFR_CONF_P_HALF, {2, 1.0, true},
     "computed in f32 and rounded once, as on the cpu"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_F64, {16, 64.0, true},
     "sum order differs (tree reductions); as the cpu until measured"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_F32, {16, 64.0, true},
     "sum order differs (tree reductions); grow T with log2 of the length if a case needs it"},
    {TFR_CONF_BACKEND_WEBGPU, TFR_CONF_CLASS_ACCUMULATE, TFR_CONF_P_HALF, {16, 64.0, true},
     "sum order differs (tree reductions)"},
};
#define TFR_CONF_NROWS (sizeof tfr_conf_rows / sizeof tfr_conf_rows[0])

// Cases whose expected values are themselves off by more than their class
// allows, whatever the backend (FORMAT.md, "How close the expected values
// are to exact results").
static const struct {
  const char *name;
  tfr_conf_tolerance tol;
  const char *why;
} tfr_conf_case_overrides[] = {
    // "the one real outlier: its expected values are up to 8.4e-4 (relative)
    // away from the exact result". Per part with M over all parts, a complex
    // element's part error can reach 8.4e-4 * |z| <= 8.4e-4 * sqrt(2) * M,
    // i.e. T = 1.19e-3 * 2^23 ~ 10000; 16384 (2e-3 * M) keeps a margin.
    {"pow_complex64_20_30_complex64_20_30", {8, 16384.0, false},
     "expected values up to 8.4e-4 relative off the exact result (FORMAT.md)"},
};

// The body of a reduce / reduce_window / scatter: only adding and
// multiplying bodies accumulate rounding; max, min, logical ops and replace
// pick one of the values, so they are held to bit-exactness (stricter than
// FORMAT.md, which lists the whole op as accumulating).
static tfr_conf_class tfr_conf_body_class(const tfr_conf_instr *in) {
  const cJSON *body = cJSON_GetObjectItemCaseSensitive(
      in->json, strcmp(in->op, "scatter") == 0 ? "combiner" : "reducer");
  const char *name = cJSON_IsString(body) ? body->valuestring : "";
  bool sums = strcmp(name, "add") == 0 || strcmp(name, "multiply") == 0;
  return sums ? TFR_CONF_CLASS_ACCUMULATE : TFR_CONF_CLASS_EXACT;
}

// The class of one instruction: the tolerance class of its op in the op
// registry (src/core/op_registry.def). Ops the registry lacks are exact
// (data movement such as constant; cases with ops the library lacks are
// skipped before they are compared). StableHLO `reduce` is registered per
// body (reduce_add, ...): its class follows the body.
static tfr_conf_class tfr_conf_op_class(const tfr_conf_case *c, const tfr_conf_instr *in) {
  if (strcmp(in->op, "reduce") == 0) return tfr_conf_body_class(in);
  const tfr_op_info *info = NULL;
  for (tfr_op_id i = 0; i < TFR_OPID_COUNT && !info; i++)
    if (strcmp(tfr_op_info_of(i)->name, in->op) == 0) info = tfr_op_info_of(i);
  if (!info) return TFR_CONF_CLASS_EXACT;
  tfr_conf_kind kind = in->noperands > 0 ? tfr_conf_operand_type(c, in, 0)->dtype->kind
                                         : TFR_CONF_KIND_BOOL;
  switch (info->tol) {
    case TFR_TOL_EXACT: return TFR_CONF_CLASS_EXACT;
    case TFR_TOL_FUNCTION: return TFR_CONF_CLASS_FUNCTION;
    case TFR_TOL_ACCUMULATE: return TFR_CONF_CLASS_ACCUMULATE;
    // Complex multiply/divide/abs/sign are formulas over several roundings.
    case TFR_TOL_COMPLEX_FUNCTION:
      return kind == TFR_CONF_KIND_COMPLEX ? TFR_CONF_CLASS_FUNCTION : TFR_CONF_CLASS_EXACT;
    // Real division rounds once, but the data's f32 quotients are within 7
    // ULP only.
    case TFR_TOL_INEXACT_FUNCTION:
      return kind == TFR_CONF_KIND_COMPLEX || kind == TFR_CONF_KIND_FLOAT
                 ? TFR_CONF_CLASS_FUNCTION
                 : TFR_CONF_CLASS_EXACT;
    case TFR_TOL_COMBINER: return tfr_conf_body_class(in);
  }
  return TFR_CONF_CLASS_EXACT;
}

tfr_conf_tolerance tfr_conf_pick_tolerance(tfr_conf_backend backend, const tfr_conf_case *c,
                                           const char **why) {
  static const tfr_conf_tolerance exact = {0, 0.0, false};
  *why = "bytes compared (not a float result)";
  const tfr_conf_dtype *dt = c->expected.type.dtype;
  if (dt->format == TFR_CONF_FMT_NONE) return exact;
  for (size_t i = 0; i < sizeof tfr_conf_case_overrides / sizeof tfr_conf_case_overrides[0]; i++)
    if (strcmp(tfr_conf_case_overrides[i].name, c->name) == 0) {
      *why = tfr_conf_case_overrides[i].why;
      return tfr_conf_case_overrides[i].tol;
    }
  tfr_conf_class cls = TFR_CONF_CLASS_EXACT;
  for (int k = 0; k < c->ninstrs; k++) {
    tfr_conf_class kc = tfr_conf_op_class(c, &c->instrs[k]);
    if (kc > cls) cls = kc;
  }
  tfr_conf_precision p = dt->format == TFR_CONF_FMT_F64   ? TFR_CONF_P_F64
                         : dt->format == TFR_CONF_FMT_F32 ? TFR_CONF_P_F32
                                                          : TFR_CONF_P_HALF;
  for (size_t i = 0; i < TFR_CONF_NROWS; i++) {
    const tfr_conf_tolerance_row *r = &tfr_conf_rows[i];
    if (r->backend == backend && r->cls == cls && r->precision == p) {
      *why = r->why;
      return r->tol;
    }
  }
  *why = "no row in the tolerance table: bit-exact";
  return exact;
}

void tfr_conf_print_tolerances(FILE *f) {
  fprintf(f, "%-7s %-11s %-9s %4s %7s %5s  %s\n", "backend", "class", "dtypes", "N", "T", "flush",
          "why");
  for (size_t i = 0; i < TFR_CONF_NROWS; i++) {
    const tfr_conf_tolerance_row *r = &tfr_conf_rows[i];
    fprintf(f, "%-7s %-11s %-9s %4llu %7g %5s  %s\n", tfr_conf_backend_names[r->backend],
            tfr_conf_class_names[r->cls], tfr_conf_precision_names[r->precision],
            (unsigned long long)r->tol.max_ulps, r->tol.t, r->tol.flush_subnormals ? "yes" : "no",
            r->why);
  }
  fprintf(f, "\nper-case overrides:\n");
  for (size_t i = 0; i < sizeof tfr_conf_case_overrides / sizeof tfr_conf_case_overrides[0]; i++)
    fprintf(f, "  %s: N = %llu, T = %g: %s\n", tfr_conf_case_overrides[i].name,
            (unsigned long long)tfr_conf_case_overrides[i].tol.max_ulps,
            tfr_conf_case_overrides[i].tol.t, tfr_conf_case_overrides[i].why);
}
