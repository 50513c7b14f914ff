// Conformance runner: one JSON line -> tfr_conf_case.
//
// The corpus is external data: every field is type-checked, every size is
// checked against the hex text before anything is allocated, and value ids
// are checked to refer backwards, so a malformed line becomes a failure with
// a message, never a crash or a huge allocation.
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "json_check.h"

// Integers in JSON are doubles to cJSON; beyond 2^53 they are no longer exact.
#define TFR_CONF_JSON_INT_MAX 9007199254740992.0

static bool tfr_conf_errf(char *err, const char *fmt, ...) TFR_PRINTF(2, 3);
static bool tfr_conf_errf(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, TFR_CONF_MSG, fmt, ap);
  va_end(ap);
  return false;
}

static bool tfr_conf_json_int(const cJSON *j, int64_t *out) {
  if (!cJSON_IsNumber(j)) return false;
  double v = j->valuedouble;
  if (!(v >= -TFR_CONF_JSON_INT_MAX && v <= TFR_CONF_JSON_INT_MAX) || v != floor(v)) return false;
  *out = (int64_t)v;
  return true;
}

bool tfr_conf_lib_dtype(const tfr_conf_dtype *dtype, tfr_dtype *out) {
  tfr_dtype d;
  if (tfr_dtype_from_name(dtype->name, &d) != TFR_OK) return false;
  // A library dtype of the same name but another layout would be compared
  // byte for byte against the corpus's bytes: treat it as absent instead.
  if (tfr_dtype_size(d) != dtype->size) return false;
  *out = d;
  return true;
}

// Reads {"dtype": D, "shape": [...]} from `obj` into `t`.
static bool tfr_conf_parse_type(const cJSON *obj, tfr_conf_type *t, const char *where, char *err) {
  if (!cJSON_IsObject(obj)) return tfr_conf_errf(err, "%s: not an object", where);
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(obj, "dtype");
  if (!cJSON_IsString(dt)) return tfr_conf_errf(err, "%s: no string \"dtype\"", where);
  t->dtype = tfr_conf_dtype_find(dt->valuestring);
  if (!t->dtype) return tfr_conf_errf(err, "%s: unknown dtype \"%.40s\"", where, dt->valuestring);
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(obj, "shape");
  if (!cJSON_IsArray(shape)) return tfr_conf_errf(err, "%s: no array \"shape\"", where);
  int rank = cJSON_GetArraySize(shape);
  if (rank > TFR_MAX_RANK)
    return tfr_conf_errf(err, "%s: rank %d exceeds %d", where, rank, TFR_MAX_RANK);
  t->rank = rank;
  int k = 0;
  bool empty = false;
  int64_t numel = 1;
  // Bytes are bounded by the hex text later; here only keep the product from
  // overflowing (an extent 0 anywhere makes it 0 whatever the others are).
  const int64_t limit = INT64_MAX / 64;  // numel * 16-byte size * 2 hex digits fits
  for (const cJSON *d = shape->child; d; d = d->next, k++) {
    int64_t v;
    if (!tfr_conf_json_int(d, &v) || v < 0)
      return tfr_conf_errf(err, "%s: shape[%d] is not a non-negative integer", where, k);
    t->shape[k] = v;
    if (v == 0) empty = true;
    else if (!empty && numel > limit / v)
      return tfr_conf_errf(err, "%s: shape has too many elements", where);
    else if (!empty)
      numel *= v;
  }
  t->numel = empty ? 0 : numel;
  return true;
}

static int tfr_conf_hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// Reads a tensor {"dtype", "shape", "hex"} from `obj` into `t`.
static bool tfr_conf_parse_tensor(const cJSON *obj, tfr_conf_tensor *t, const char *where,
                                  char *err) {
  if (!tfr_conf_parse_type(obj, &t->type, where, err)) return false;
  const cJSON *hex = cJSON_GetObjectItemCaseSensitive(obj, "hex");
  if (!cJSON_IsString(hex)) return tfr_conf_errf(err, "%s: no string \"hex\"", where);
  size_t len = strlen(hex->valuestring);
  size_t size = t->type.dtype->size;
  // numel * size * 2 must equal len: compare without multiplying out first.
  if (len % 2 != 0 || (size_t)t->type.numel != len / 2 / size || (len / 2) % size != 0)
    return tfr_conf_errf(err, "%s: hex has %zu characters, shape and dtype %s need %lld", where,
                         len, t->type.dtype->name, (long long)t->type.numel * (long long)size * 2);
  t->nbytes = len / 2;
  if (t->nbytes == 0) return true;
  t->data = malloc(t->nbytes);
  if (!t->data) return tfr_conf_errf(err, "%s: out of memory for %zu bytes", where, t->nbytes);
  const char *s = hex->valuestring;
  for (size_t i = 0; i < t->nbytes; i++) {
    int hi = tfr_conf_hex_digit(s[2 * i]), lo = tfr_conf_hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return tfr_conf_errf(err, "%s: hex has a non-hex character", where);
    t->data[i] = (unsigned char)(hi << 4 | lo);
  }
  return true;
}

static bool tfr_conf_types_equal(const tfr_conf_type *a, const tfr_conf_type *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->shape[k] != b->shape[k]) return false;
  return true;
}

static bool tfr_conf_parse_instr(const cJSON *obj, int id, tfr_conf_instr *in, char *err) {
  char where[64];
  snprintf(where, sizeof where, "value %d", id);
  if (!cJSON_IsObject(obj)) return tfr_conf_errf(err, "%s: instruction is not an object", where);
  in->json = obj;
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(obj, "op");
  if (!cJSON_IsString(op)) return tfr_conf_errf(err, "%s: no string \"op\"", where);
  in->op = op->valuestring;
  const cJSON *dialect = cJSON_GetObjectItemCaseSensitive(obj, "dialect");
  if (dialect) {
    if (!cJSON_IsString(dialect) || strcmp(dialect->valuestring, "chlo") != 0)
      return tfr_conf_errf(err, "%s (%.40s): unknown \"dialect\"", where, in->op);
    in->chlo = true;
  }
  const cJSON *ops = cJSON_GetObjectItemCaseSensitive(obj, "operands");
  if (!cJSON_IsArray(ops)) return tfr_conf_errf(err, "%s: no array \"operands\"", where);
  in->noperands = cJSON_GetArraySize(ops);
  if (in->noperands > 0) {
    in->operands = malloc((size_t)in->noperands * sizeof *in->operands);
    if (!in->operands) return tfr_conf_errf(err, "%s: out of memory", where);
  }
  int j = 0;
  for (const cJSON *o = ops->child; o; o = o->next, j++) {
    int64_t v;
    // Operands only name earlier values, so evaluating in order always works.
    if (!tfr_conf_json_int(o, &v) || v < 0 || v >= id)
      return tfr_conf_errf(err, "%s: operands[%d] is not a value id below %d", where, j, id);
    in->operands[j] = (int)v;
  }
  char rwhere[80];
  snprintf(rwhere, sizeof rwhere, "%s result", where);
  if (!tfr_conf_parse_type(cJSON_GetObjectItemCaseSensitive(obj, "result"), &in->result, rwhere,
                           err))
    return false;
  const cJSON *value = cJSON_GetObjectItemCaseSensitive(obj, "value");
  if (strcmp(in->op, "constant") == 0) {
    snprintf(rwhere, sizeof rwhere, "%s value", where);
    if (!tfr_conf_parse_tensor(value, &in->value, rwhere, err)) return false;
    if (!tfr_conf_types_equal(&in->value.type, &in->result))
      return tfr_conf_errf(err, "%s: constant value and result differ in dtype or shape", where);
  }
  return true;
}

bool tfr_conf_case_parse(const char *line, size_t len, tfr_conf_case *c, char *err) {
  memset(c, 0, sizeof *c);
  c->root = cJSON_ParseWithLength(line, len);
  if (!c->root) return tfr_conf_errf(err, "not valid JSON");
  if (!cJSON_IsObject(c->root)) return tfr_conf_errf(err, "not a JSON object");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(c->root, "name");
  const cJSON *family = cJSON_GetObjectItemCaseSensitive(c->root, "source_op");
  if (cJSON_IsString(name)) c->name = name->valuestring;
  if (cJSON_IsString(family)) c->source_op = family->valuestring;
  char why[160];
  if (tfr_cli_json_check(line, len, c->root, why, sizeof why) != 0)
    return tfr_conf_errf(err, "%s", why);
  if (!c->name || !c->source_op) return tfr_conf_errf(err, "no string \"name\" or \"source_op\"");

  const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(c->root, "inputs");
  const cJSON *program = cJSON_GetObjectItemCaseSensitive(c->root, "program");
  if (!cJSON_IsArray(inputs) || !cJSON_IsArray(program))
    return tfr_conf_errf(err, "no array \"inputs\" or \"program\"");
  int n = cJSON_GetArraySize(inputs), m = cJSON_GetArraySize(program);
  c->inputs = calloc((size_t)n + 1, sizeof *c->inputs);
  c->instrs = calloc((size_t)m + 1, sizeof *c->instrs);
  c->types = calloc((size_t)(n + m) + 1, sizeof *c->types);
  if (!c->inputs || !c->instrs || !c->types) return tfr_conf_errf(err, "out of memory");
  // Counted as they are filled, so that tfr_conf_case_free frees exactly those.
  for (const cJSON *t = inputs->child; t; t = t->next) {
    char where[48];
    snprintf(where, sizeof where, "inputs[%d]", c->ninputs);
    tfr_conf_tensor *in = &c->inputs[c->ninputs++];
    if (!tfr_conf_parse_tensor(t, in, where, err)) return false;
    c->types[c->ninputs - 1] = &in->type;
  }
  for (const cJSON *ins = program->child; ins; ins = ins->next) {
    int id = n + c->ninstrs;
    tfr_conf_instr *in = &c->instrs[c->ninstrs++];
    if (!tfr_conf_parse_instr(ins, id, in, err)) return false;
    c->types[id] = &in->result;
  }

  const cJSON *output = cJSON_GetObjectItemCaseSensitive(c->root, "output");
  int64_t out_id;
  if (!tfr_conf_json_int(output, &out_id) || out_id < 0 || out_id >= n + m)
    return tfr_conf_errf(err, "\"output\" is not a value id below %d", n + m);
  c->output = (int)out_id;
  if (!tfr_conf_parse_tensor(cJSON_GetObjectItemCaseSensitive(c->root, "expected"), &c->expected,
                             "expected", err))
    return false;
  if (!tfr_conf_types_equal(&c->expected.type, c->types[c->output]))
    return tfr_conf_errf(err, "expected differs in dtype or shape from value %d", c->output);
  const cJSON *check = cJSON_GetObjectItemCaseSensitive(c->root, "check");
  if (!cJSON_IsString(check)) return tfr_conf_errf(err, "no string \"check\"");
  if (strcmp(check->valuestring, "eq") == 0) c->check = TFR_CONF_CHECK_EQ;
  else if (strcmp(check->valuestring, "close") == 0) c->check = TFR_CONF_CHECK_CLOSE;
  else if (strcmp(check->valuestring, "almost_eq") == 0) c->check = TFR_CONF_CHECK_ALMOST_EQ;
  else return tfr_conf_errf(err, "unknown check \"%.40s\"", check->valuestring);
  return true;
}

void tfr_conf_case_free(tfr_conf_case *c) {
  for (int i = 0; i < c->ninputs; i++) free(c->inputs[i].data);
  for (int k = 0; k < c->ninstrs; k++) {
    free(c->instrs[k].operands);
    free(c->instrs[k].value.data);
  }
  free(c->expected.data);
  free(c->inputs);
  free(c->instrs);
  free(c->types);
  cJSON_Delete(c->root);
  memset(c, 0, sizeof *c);
}

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------

static const cJSON *tfr_conf_attr(const tfr_conf_instr *in, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(in->json, key);
}

bool tfr_conf_attr_ints(const tfr_conf_instr *in, const char *key, int64_t *out, int max, int *n,
                        char *err) {
  const cJSON *a = tfr_conf_attr(in, key);
  if (!cJSON_IsArray(a)) return tfr_conf_errf(err, "%s: no array attribute \"%s\"", in->op, key);
  int count = cJSON_GetArraySize(a);
  if (count > max)
    return tfr_conf_errf(err, "%s: \"%s\" has %d entries, at most %d allowed", in->op, key, count,
                         max);
  int k = 0;
  for (const cJSON *v = a->child; v; v = v->next, k++)
    if (!tfr_conf_json_int(v, &out[k]))
      return tfr_conf_errf(err, "%s: \"%s\"[%d] is not an integer", in->op, key, k);
  *n = count;
  return true;
}

bool tfr_conf_attr_int(const tfr_conf_instr *in, const char *key, int64_t *out, char *err) {
  if (!tfr_conf_json_int(tfr_conf_attr(in, key), out))
    return tfr_conf_errf(err, "%s: no integer attribute \"%s\"", in->op, key);
  return true;
}

bool tfr_conf_attr_bool(const tfr_conf_instr *in, const char *key, bool *out, char *err) {
  const cJSON *a = tfr_conf_attr(in, key);
  if (!cJSON_IsBool(a)) return tfr_conf_errf(err, "%s: no boolean attribute \"%s\"", in->op, key);
  *out = cJSON_IsTrue(a);
  return true;
}

const char *tfr_conf_attr_string(const tfr_conf_instr *in, const char *key, char *err) {
  const cJSON *a = tfr_conf_attr(in, key);
  if (!cJSON_IsString(a)) {
    tfr_conf_errf(err, "%s: no string attribute \"%s\"", in->op, key);
    return NULL;
  }
  return a->valuestring;
}
