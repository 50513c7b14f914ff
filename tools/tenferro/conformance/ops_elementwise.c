// Conformance runner: elementwise ops (ops.h "Elementwise").
//
// The table of unary and binary ops is generated from the op registry
// (src/core/op_registry.def): names, dialect and dtypes. A case outside an
// op's dtypes is a skip ("the API does not define it"), while an error from
// the library inside them is a failure.
#include <string.h>

#include "conformance.h"


static bool tfr_conf_run_unary(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                               tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  tfr_status st = tfr_unary(x->session, (tfr_unary_op)op->param, args[0], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

static bool tfr_conf_run_binary(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  tfr_status st = tfr_binary(x->session, (tfr_binary_op)op->param, args[0], args[1], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// compare
// ---------------------------------------------------------------------------

static const struct {
  const char *name;
  tfr_compare_direction dir;
} tfr_conf_directions[] = {
    {"EQ", TFR_EQ}, {"NE", TFR_NE}, {"LT", TFR_LT}, {"LE", TFR_LE}, {"GT", TFR_GT}, {"GE", TFR_GE},
};

static bool tfr_conf_direction(const char *name, tfr_compare_direction *out) {
  for (size_t i = 0; i < sizeof tfr_conf_directions / sizeof tfr_conf_directions[0]; i++)
    if (strcmp(tfr_conf_directions[i].name, name) == 0) {
      *out = tfr_conf_directions[i].dir;
      return true;
    }
  return false;
}

// tfr_compare has no compare_type: it compares floats by IEEE 754, signed
// integers as signed and bool as unsigned. Only the compare_type that matches
// the dtype is what the API computes; TOTALORDER (ordering NaNs and -0.0) has
// no API form at all.
static const char *tfr_conf_check_compare(const tfr_conf_op *op, const tfr_conf_case *c,
                                          const tfr_conf_instr *in, char *buf) {
  char err[TFR_CONF_MSG];
  const char *type = tfr_conf_attr_string(in, "compare_type", err);
  const char *dirname = tfr_conf_attr_string(in, "comparison_direction", err);
  tfr_compare_direction dir;
  if (!type || !dirname || !tfr_conf_direction(dirname, &dir) || in->noperands != 2)
    return NULL;  // malformed: the run reports it
  if (strcmp(type, "TOTALORDER") == 0) return "no compare TOTALORDER";
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  const char *want = "FLOAT";
  if (dt->kind == TFR_CONF_KIND_INT) want = "SIGNED";
  if (dt->kind == TFR_CONF_KIND_UINT || dt->kind == TFR_CONF_KIND_BOOL) want = "UNSIGNED";
  if (strcmp(type, want) != 0) {
    snprintf(buf, TFR_CONF_MSG, "no compare %.20s on %s", type, tfr_conf_kind_name(dt));
    return buf;
  }
  if (dt->kind == TFR_CONF_KIND_COMPLEX && dir != TFR_EQ && dir != TFR_NE)
    return "no ordering compare on complex";
  return NULL;
}

static bool tfr_conf_run_compare(const tfr_conf_op *op, tfr_conf_exec *x,
                                 const tfr_conf_instr *in, tfr_tensor *const *args,
                                 tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  const char *name = tfr_conf_attr_string(in, "comparison_direction", x->msg);
  if (!name) return false;
  tfr_compare_direction dir;
  if (!tfr_conf_direction(name, &dir))
    return tfr_conf_fail(x, "compare: unknown comparison_direction \"%.20s\"", name);
  tfr_status st = tfr_compare(x->session, dir, args[0], args[1], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// select, clamp
// ---------------------------------------------------------------------------

static bool tfr_conf_run_select(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_status st = tfr_select(x->session, args[0], args[1], args[2], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// clamp's operands are (min, operand, max): the dtype group is the operand's.
static const char *tfr_conf_check_clamp(const tfr_conf_op *op, const tfr_conf_case *c,
                                        const tfr_conf_instr *in, char *buf) {
  if (in->noperands != 3) return NULL;
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 1)->dtype;
  return tfr_conf_dtype_allowed(op->dtypes, dt) ? NULL : tfr_conf_kind_reason(in, dt, buf);
}

static bool tfr_conf_run_clamp(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                               tfr_tensor *const *args, tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_status st = tfr_clamp(x->session, args[0], args[1], args[2], out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

// One registry row -> its handler rows: StableHLO, CHLO, both dialects (tan),
// none for tenferro's own ops (conj: no such op in the corpus).
#define TFR_CONF_ROW_UNARY(name, ORIGIN, param, D) \
  TFR_CONF_ORIGIN_##ORIGIN(name, tfr_conf_run_unary, param, TFR_DTG_##D)
#define TFR_CONF_ROW_BINARY(name, ORIGIN, param, D) \
  TFR_CONF_ORIGIN_##ORIGIN(name, tfr_conf_run_binary, param, TFR_DTG_##D)
#define TFR_CONF_ROW_COMPARE(name, ORIGIN, param, D)
#define TFR_CONF_ROW_SELECT(name, ORIGIN, param, D)
#define TFR_CONF_ROW_CLAMP(name, ORIGIN, param, D)
#define TFR_CONF_ROW_CONVERT(name, ORIGIN, param, D)
#define TFR_CONF_ROW_STRUCTURAL(name, ORIGIN, param, D)
#define TFR_CONF_ROW_REDUCE(name, ORIGIN, param, D)
#define TFR_CONF_ROW_DOT(name, ORIGIN, param, D)
#define TFR_CONF_ROW_GATHER(name, ORIGIN, param, D)
#define TFR_CONF_ROW_SCATTER(name, ORIGIN, param, D)
#define TFR_CONF_ROW_WINDOW(name, ORIGIN, param, D)
#define TFR_CONF_ORIGIN_SHLO(name, run, param, mask) {name, false, NULL, run, param, mask},
#define TFR_CONF_ORIGIN_CHLO(name, run, param, mask) {name, true, NULL, run, param, mask},
#define TFR_CONF_ORIGIN_BOTH(name, run, param, mask) \
  TFR_CONF_ORIGIN_SHLO(name, run, param, mask) TFR_CONF_ORIGIN_CHLO(name, run, param, mask)
#define TFR_CONF_ORIGIN_TFR(name, run, param, mask)

const tfr_conf_op tfr_conf_ops_elementwise[] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  TFR_CONF_ROW_##FAMILY(name, ORIGIN, param, DTYPES)
#include "core/op_registry.def"
#undef X

    {"compare", false, tfr_conf_check_compare, tfr_conf_run_compare, 0, TFR_DTG_ALL},
    {"select", false, NULL, tfr_conf_run_select, 0, 0},
    {"clamp", false, tfr_conf_check_clamp, tfr_conf_run_clamp, 0, TFR_DTG_BIF},
    {NULL, false, NULL, NULL, 0, 0},
};
