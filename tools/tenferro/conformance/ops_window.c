// Conformance runner: window ops and bit casts (ops.h "Windows and bit
// casts"): reduce_window, select_and_scatter, bitcast_convert.
#include <math.h>
#include <string.h>

#include "conformance.h"

// Skip reason for body `key` of `in` on its operand 0, or NULL (also when the
// attribute is malformed: the run reports that).
static const char *tfr_conf_check_body(const tfr_conf_case *c, const tfr_conf_instr *in,
                                       const char *key, char *buf) {
  char err[TFR_CONF_MSG];
  const char *name = tfr_conf_attr_string(in, key, err);
  if (!name || in->noperands < 1) return NULL;
  const tfr_conf_reducer_info *r = tfr_conf_reducer(name);
  if (!r) {
    snprintf(buf, TFR_CONF_MSG, "no %s with %s %.40s", in->op, key, name);
    return buf;
  }
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  if (!tfr_conf_dtype_allowed(tfr_reduce_info(r->combiner)->dtypes, dt)) {
    snprintf(buf, TFR_CONF_MSG, "no %s %s on %s", in->op, name, tfr_conf_kind_name(dt));
    return buf;
  }
  return NULL;
}

static bool tfr_conf_body(tfr_conf_exec *x, const tfr_conf_instr *in, const char *key,
                          tfr_reduce_combiner *out) {
  const char *name = tfr_conf_attr_string(in, key, x->msg);
  if (!name) return false;
  const tfr_conf_reducer_info *r = tfr_conf_reducer(name);
  if (!r) return tfr_conf_fail(x, "%s: unknown %s \"%.40s\"", in->op, key, name);
  *out = r->combiner;
  return true;
}

// `padding` is [[low, high], ...] with one pair per axis: flattened to
// int64[rank][2] as the API takes it.
static bool tfr_conf_padding(tfr_conf_exec *x, const tfr_conf_instr *in, int rank,
                             int64_t *out) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(in->json, "padding");
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != rank)
    return tfr_conf_fail(x, "%s: \"padding\" is not an array of %d pairs", in->op, rank);
  int k = 0;
  for (const cJSON *p = a->child; p; p = p->next, k++) {
    if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2)
      return tfr_conf_fail(x, "%s: \"padding\"[%d] is not a [low, high] pair", in->op, k);
    int j = 0;
    for (const cJSON *v = p->child; v; v = v->next, j++) {
      double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
      if (!(fabs(d) <= 9007199254740992.0) || d != floor(d))
        return tfr_conf_fail(x, "%s: \"padding\"[%d][%d] is not an integer", in->op, k, j);
      out[2 * k + j] = (int64_t)d;
    }
  }
  return true;
}

// An int64[rank] attribute with exactly `rank` entries.
static bool tfr_conf_window_ints(tfr_conf_exec *x, const tfr_conf_instr *in, const char *key,
                                 int rank, int64_t *out) {
  int n;
  if (!tfr_conf_attr_ints(in, key, out, TFR_MAX_RANK, &n, x->msg)) return false;
  if (n != rank)
    return tfr_conf_fail(x, "%s: \"%s\" has %d entries for rank %d", in->op, key, n, rank);
  return true;
}

// ---------------------------------------------------------------------------
// reduce_window (also cumsum, cumprod, cummax, cummin)
// ---------------------------------------------------------------------------

static const char *tfr_conf_check_reduce_window(const tfr_conf_op *op, const tfr_conf_case *c,
                                                const tfr_conf_instr *in, char *buf) {
  // StableHLO reduces several inputs together in one reduce_window;
  // tfr_reduce_window takes one.
  if (in->noperands != 2) return "no variadic reduce_window";
  return tfr_conf_check_body(c, in, "reducer", buf);
}

static bool tfr_conf_run_reduce_window(const tfr_conf_op *op, tfr_conf_exec *x,
                                       const tfr_conf_instr *in, tfr_tensor *const *args,
                                       tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 2)) return false;
  tfr_reduce_combiner comb = TFR_REDUCE_ADD;
  if (!tfr_conf_body(x, in, "reducer", &comb)) return false;
  int r = tfr_tensor_rank(args[0]);
  int64_t wd[TFR_MAX_RANK], ws[TFR_MAX_RANK], bd[TFR_MAX_RANK], wdl[TFR_MAX_RANK],
      pad[2 * TFR_MAX_RANK];
  if (!tfr_conf_window_ints(x, in, "window_dimensions", r, wd) ||
      !tfr_conf_window_ints(x, in, "window_strides", r, ws) ||
      !tfr_conf_window_ints(x, in, "base_dilations", r, bd) ||
      !tfr_conf_window_ints(x, in, "window_dilations", r, wdl) ||
      !tfr_conf_padding(x, in, r, pad))
    return false;
  int64_t shape[TFR_MAX_RANK];
  tfr_status st =
      tfr_reduce_window_shape(x->session, args[0], args[1], comb, wd, ws, bd, wdl, pad, shape);
  if (st) return tfr_conf_lib_fail(x, in, st);
  if (!tfr_conf_expect_shape(x, in, tfr_tensor_rank(args[0]), shape)) return false;
  // The op holds the padded, base-dilated operand while it runs: pad's shape
  // with interior padding base_dilations - 1 (ops.h), counted against the
  // budget before it is made.
  int64_t lo[TFR_MAX_RANK], hi[TFR_MAX_RANK], interior[TFR_MAX_RANK], padded[TFR_MAX_RANK];
  bool pads = false;
  for (int k = 0; k < r; k++) {
    lo[k] = pad[2 * k];
    hi[k] = pad[2 * k + 1];
    interior[k] = bd[k] - 1;
    pads = pads || lo[k] || hi[k] || interior[k];
  }
  if (pads && tfr_pad_shape(x->session, args[0], args[1], lo, hi, interior, padded) == TFR_OK) {
    double bytes = (double)tfr_dtype_size(tfr_tensor_dtype(args[0]));
    for (int k = 0; k < r; k++) bytes *= (double)padded[k];
    if (!tfr_conf_check_budget(x, "reduce_window's padded operand", bytes)) return false;
  }
  st = tfr_reduce_window(x->session, args[0], args[1], comb, wd, ws, bd, wdl, pad, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// select_and_scatter
// ---------------------------------------------------------------------------

static const struct {
  const char *name;
  tfr_compare_direction dir;
} tfr_conf_select_dirs[] = {
    {"EQ", TFR_EQ}, {"NE", TFR_NE}, {"LT", TFR_LT}, {"LE", TFR_LE}, {"GT", TFR_GT}, {"GE", TFR_GE},
};

// The `select` attribute: {comparison_direction, compare_type}.
static bool tfr_conf_select_attr(const tfr_conf_instr *in, tfr_compare_direction *dir,
                                 const char **type) {
  const cJSON *sel = cJSON_GetObjectItemCaseSensitive(in->json, "select");
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(sel, "comparison_direction");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(sel, "compare_type");
  if (!cJSON_IsString(d) || !cJSON_IsString(t)) return false;
  *type = t->valuestring;
  for (size_t i = 0; i < sizeof tfr_conf_select_dirs / sizeof tfr_conf_select_dirs[0]; i++)
    if (strcmp(tfr_conf_select_dirs[i].name, d->valuestring) == 0) {
      *dir = tfr_conf_select_dirs[i].dir;
      return true;
    }
  return false;
}

// As compare: the API's comparison is the compare_type that matches the
// dtype (FLOAT, SIGNED, UNSIGNED for unsigned and bool); TOTALORDER has none.
static const char *tfr_conf_check_select_and_scatter(const tfr_conf_op *op,
                                                     const tfr_conf_case *c,
                                                     const tfr_conf_instr *in, char *buf) {
  tfr_compare_direction dir;
  const char *type;
  if (in->noperands != 3 || !tfr_conf_select_attr(in, &dir, &type)) return NULL;
  const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
  if (strcmp(type, "TOTALORDER") == 0) return "no select_and_scatter TOTALORDER";
  const char *want = "FLOAT";
  if (dt->kind == TFR_CONF_KIND_INT) want = "SIGNED";
  if (dt->kind == TFR_CONF_KIND_UINT || dt->kind == TFR_CONF_KIND_BOOL) want = "UNSIGNED";
  if (strcmp(type, want) != 0) {
    snprintf(buf, TFR_CONF_MSG, "no select_and_scatter %.20s on %s", type,
             tfr_conf_kind_name(dt));
    return buf;
  }
  if (dt->kind == TFR_CONF_KIND_COMPLEX && dir != TFR_EQ && dir != TFR_NE)
    return "no ordering select_and_scatter on complex";
  return tfr_conf_check_body(c, in, "combiner", buf);
}

static bool tfr_conf_run_select_and_scatter(const tfr_conf_op *op, tfr_conf_exec *x,
                                            const tfr_conf_instr *in, tfr_tensor *const *args,
                                            tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 3)) return false;
  tfr_compare_direction dir;
  const char *type;
  if (!tfr_conf_select_attr(in, &dir, &type))
    return tfr_conf_fail(x, "select_and_scatter: malformed \"select\" attribute");
  tfr_reduce_combiner comb = TFR_REDUCE_ADD;
  if (!tfr_conf_body(x, in, "combiner", &comb)) return false;
  int r = tfr_tensor_rank(args[0]);
  int64_t wd[TFR_MAX_RANK], ws[TFR_MAX_RANK], pad[2 * TFR_MAX_RANK];
  if (!tfr_conf_window_ints(x, in, "window_dimensions", r, wd) ||
      !tfr_conf_window_ints(x, in, "window_strides", r, ws) || !tfr_conf_padding(x, in, r, pad))
    return false;
  tfr_status st = tfr_select_and_scatter(x->session, args[0], args[1], args[2], dir, comb, wd, ws,
                                         pad, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

// ---------------------------------------------------------------------------
// bitcast_convert
// ---------------------------------------------------------------------------

// The API reinterprets bool only as bool (other bytes would not be 0/1).
static const char *tfr_conf_check_bitcast(const tfr_conf_op *op, const tfr_conf_case *c,
                                          const tfr_conf_instr *in, char *buf) {
  if (in->noperands != 1) return NULL;
  bool from = tfr_conf_operand_type(c, in, 0)->dtype->kind == TFR_CONF_KIND_BOOL;
  bool to = in->result.dtype->kind == TFR_CONF_KIND_BOOL;
  return from != to ? "no bitcast_convert between bool and other dtypes" : NULL;
}

static bool tfr_conf_run_bitcast(const tfr_conf_op *op, tfr_conf_exec *x,
                                 const tfr_conf_instr *in, tfr_tensor *const *args,
                                 tfr_tensor **out) {
  if (!tfr_conf_want_operands(x, in, 1)) return false;
  tfr_dtype to;
  if (!tfr_conf_lib_dtype(in->result.dtype, &to))
    return tfr_conf_fail(x, "bitcast_convert: dtype %s is not in the library",
                         in->result.dtype->name);
  tfr_status st = tfr_bitcast_convert(x->session, args[0], to, out);
  return st ? tfr_conf_lib_fail(x, in, st) : true;
}

const tfr_conf_op tfr_conf_ops_window[] = {
    {"reduce_window", false, tfr_conf_check_reduce_window, tfr_conf_run_reduce_window, 0, 0},
    {"select_and_scatter", false, tfr_conf_check_select_and_scatter,
     tfr_conf_run_select_and_scatter, 0, 0},
    {"bitcast_convert", false, tfr_conf_check_bitcast, tfr_conf_run_bitcast, 0, 0},
    {NULL, false, NULL, NULL, 0, 0},
};
