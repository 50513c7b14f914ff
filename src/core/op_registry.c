// The op registry (see op_registry.h and op_registry.def).
#include "core/op_registry.h"

#include <stddef.h>
#include <string.h>

#include "core/backend_impl.h"
#include "core/core.h"

static const tfr_op_info tfr_op_table[TFR_OPID_COUNT] = {
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs)              \
  [TFR_OPID_##ID] = {name,           TFR_FAMILY_##FAMILY, TFR_ORIGIN_##ORIGIN, arity,       \
                     TFR_DTG_##DTYPES, TFR_RESULT_##RESULT, TFR_TOL_##TOL,     (int)(param), \
                     attrs},
#include "core/op_registry.def"
#undef X
};

// The unary, binary and reduce rows are contiguous and in enum order: the
// first one's id plus the enum value is the row.
#define X(ID, name, FAMILY, ORIGIN, arity, DTYPES, RESULT, TOL, param, attrs) \
  _Static_assert(TFR_OPID_##ID - (int)(param) == TFR_OPID_NEGATE ||          \
                     TFR_OPID_##ID - (int)(param) == TFR_OPID_ADD ||         \
                     TFR_OPID_##ID - (int)(param) == TFR_OPID_REDUCE_ADD ||  \
                     (int)(param) == 0,                                      \
                 "op_registry.def: " name " is out of its enum's order");
#include "core/op_registry.def"
#undef X
// The blocks follow each other (NEGATE..., ADD..., COMPARE), so a new op at
// the end of its block needs no change here.
_Static_assert(TFR_OPID_ADD - TFR_OPID_NEGATE == TFR_UNARY_OP_COUNT,
               "op_registry.def: one UNARY row per tfr_unary_op, in order");
_Static_assert(TFR_OPID_COMPARE - TFR_OPID_ADD == TFR_BINARY_OP_COUNT,
               "op_registry.def: one BINARY row per tfr_binary_op, in order");
_Static_assert(TFR_OPID_REDUCE_XOR - TFR_OPID_REDUCE_ADD == TFR_REDUCE_XOR,
               "op_registry.def: one REDUCE row per tfr_reduce_combiner, in order");
_Static_assert(TFR_DTYPE_COUNT <= 32, "dtype masks are 32 bits");

const tfr_op_info *tfr_op_info_of(tfr_op_id op) {
  return op < TFR_OPID_COUNT ? &tfr_op_table[op] : NULL;
}

const tfr_op_info *tfr_unary_info(tfr_unary_op op) {
  return (unsigned)op < TFR_UNARY_OP_COUNT ? &tfr_op_table[TFR_OPID_NEGATE + op] : NULL;
}

const tfr_op_info *tfr_binary_info(tfr_binary_op op) {
  return (unsigned)op < TFR_BINARY_OP_COUNT ? &tfr_op_table[TFR_OPID_ADD + op] : NULL;
}

int tfr_reduce_opid(tfr_reduce_combiner combiner) {
  return (unsigned)combiner <= TFR_REDUCE_XOR ? TFR_OPID_REDUCE_ADD + (int)combiner : -1;
}

const tfr_op_info *tfr_reduce_info(tfr_reduce_combiner combiner) {
  int id = tfr_reduce_opid(combiner);
  return id < 0 ? NULL : &tfr_op_table[id];
}

const char *tfr_unary_op_name(tfr_unary_op op) {
  const tfr_op_info *info = tfr_unary_info(op);
  return info ? info->name : "invalid";
}

const char *tfr_binary_op_name(tfr_binary_op op) {
  const tfr_op_info *info = tfr_binary_info(op);
  return info ? info->name : "invalid";
}

tfr_dtype tfr_result_dtype(tfr_result_rule rule, tfr_dtype dtype) {
  switch (rule) {
    case TFR_RESULT_SAME: return dtype;
    case TFR_RESULT_REAL: return tfr_dtype_get_info(dtype)->real;
    case TFR_RESULT_BOOL: return TFR_BOOL;
    case TFR_RESULT_COMPLEX: return dtype == TFR_F32 ? TFR_C64 : TFR_C128;
    case TFR_RESULT_ATTR: return dtype;
  }
  return dtype;
}

const char *tfr_op_family_name(tfr_op_family f) {
  static const char *const names[] = {"unary", "binary", "compare", "select", "clamp", "convert",
                                      "structural", "reduce", "dot", "gather", "scatter",
                                      "window"};
  return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

const char *tfr_op_origin_name(tfr_op_origin o) {
  static const char *const names[] = {"stablehlo", "chlo", "stablehlo+chlo", "tenferro"};
  return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

const char *tfr_tol_class_name(tfr_tol_class t) {
  static const char *const names[] = {"exact",           "function",         "accumulate",
                                      "complex_function", "inexact_function", "combiner"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *tfr_result_rule_name(tfr_result_rule r) {
  static const char *const names[] = {"same", "real", "bool", "complex", "attr"};
  return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

// ---------------------------------------------------------------------------
// Public introspection (tenferro/registry.h)
// ---------------------------------------------------------------------------

uint32_t tfr_op_count(void) { return TFR_OPID_COUNT; }

tfr_status tfr_op_lookup(const char *name, tfr_op_id *out) {
  if (!name || !out)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "op_lookup: %s is NULL", name ? "out" : "name");
  for (tfr_op_id i = 0; i < TFR_OPID_COUNT; i++)
    if (strcmp(tfr_op_table[i].name, name) == 0) {
      *out = i;
      return TFR_OK;
    }
  return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "op_lookup: no op named \"%.64s\" (`tenferro info --ops` lists them)", name);
}

const char *tfr_op_name(tfr_op_id op) {
  const tfr_op_info *info = tfr_op_info_of(op);
  return info ? info->name : "invalid";
}

tfr_status tfr_op_dtypes(tfr_op_id op, uint32_t *mask_out) {
  if (!mask_out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "op_dtypes: mask_out is NULL");
  const tfr_op_info *info = tfr_op_info_of(op);
  if (!info)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "op_dtypes: op id %u is out of range [0, %d)",
                     (unsigned)op, (int)TFR_OPID_COUNT);
  *mask_out = info->dtypes;
  return TFR_OK;
}

tfr_status tfr_backend_supports(const tfr_backend *backend, tfr_op_id op, tfr_dtype dtype,
                                bool *out) {
  if (!backend || !out)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "backend_supports: %s is NULL",
                     backend ? "out" : "backend");
  const tfr_op_info *info = tfr_op_info_of(op);
  if (!info)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_supports: op id %u is out of range [0, %d)", (unsigned)op,
                     (int)TFR_OPID_COUNT);
  if ((unsigned)dtype >= TFR_DTYPE_COUNT || !(info->dtypes & TFR_DT(dtype))) {
    *out = false;
    return TFR_OK;
  }
  *out = backend->vtable->supports((tfr_backend *)backend, op, dtype);
  return TFR_OK;
}
