// Conformance runner: deciding whether a case can run, and running its
// program op by op through the public API.
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

static const tfr_conf_op *const tfr_conf_op_tables[] = {
    tfr_conf_ops_elementwise,
    tfr_conf_ops_structural,
    tfr_conf_ops_indexing,
    tfr_conf_ops_reduction,
    tfr_conf_ops_window,
};

const tfr_conf_op *tfr_conf_op_find(const char *name, bool chlo) {
  for (size_t t = 0; t < sizeof tfr_conf_op_tables / sizeof tfr_conf_op_tables[0]; t++)
    for (const tfr_conf_op *op = tfr_conf_op_tables[t]; op->name; op++)
      if (op->chlo == chlo && strcmp(op->name, name) == 0) return op;
  return NULL;
}

int tfr_conf_value_id(const tfr_conf_case *c, const tfr_conf_instr *in) {
  return c->ninputs + (int)(in - c->instrs);
}

bool tfr_conf_fail(tfr_conf_exec *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->msg, sizeof x->msg, fmt, ap);
  va_end(ap);
  return false;
}

bool tfr_conf_lib_fail(tfr_conf_exec *x, const tfr_conf_instr *in, tfr_status st) {
  return tfr_conf_fail(x, "value %d (%s%s): %s: %s", tfr_conf_value_id(x->c, in),
                       in->chlo ? "chlo." : "", in->op, tfr_status_string(st),
                       tfr_last_error_message());
}

bool tfr_conf_want_operands(tfr_conf_exec *x, const tfr_conf_instr *in, int n) {
  if (in->noperands == n) return true;
  return tfr_conf_fail(x, "value %d (%s): %d operands, the op takes %d",
                       tfr_conf_value_id(x->c, in), in->op, in->noperands, n);
}

const tfr_conf_type *tfr_conf_operand_type(const tfr_conf_case *c, const tfr_conf_instr *in,
                                           int k) {
  return c->types[in->operands[k]];
}

const char *tfr_conf_kind_name(const tfr_conf_dtype *dtype) {
  switch (dtype->kind) {
    case TFR_CONF_KIND_BOOL: return "bool";
    case TFR_CONF_KIND_INT: return "signed integers";
    case TFR_CONF_KIND_UINT: return "unsigned integers";
    case TFR_CONF_KIND_FLOAT: return "floats";
    case TFR_CONF_KIND_COMPLEX: return "complex";
  }
  return "?";
}

const char *tfr_conf_kind_reason(const tfr_conf_instr *in, const tfr_conf_dtype *dtype,
                                 char *buf) {
  snprintf(buf, TFR_CONF_MSG, "no %s%s on %s", in->chlo ? "chlo." : "", in->op,
           tfr_conf_kind_name(dtype));
  return buf;
}

bool tfr_conf_dtype_allowed(uint32_t dtypes, const tfr_conf_dtype *dtype) {
  tfr_dtype d;
  return !tfr_conf_lib_dtype(dtype, &d) || (dtypes & TFR_DT(d)) != 0;
}

const char *tfr_conf_skip_reason(const tfr_conf_case *c, char *buf) {
  // A missing op first: no dtype work would make the case run without it.
  for (int k = 0; k < c->ninstrs; k++) {
    const tfr_conf_instr *in = &c->instrs[k];
    if (!tfr_conf_op_find(in->op, in->chlo)) {
      snprintf(buf, TFR_CONF_MSG, "no op %s%s", in->chlo ? "chlo." : "", in->op);
      return buf;
    }
  }
  tfr_dtype d;
  for (int v = 0; v < c->ninputs + c->ninstrs; v++) {
    if (tfr_conf_lib_dtype(c->types[v]->dtype, &d)) continue;
    snprintf(buf, TFR_CONF_MSG, "no dtype %s", c->types[v]->dtype->name);
    return buf;
  }
  for (int k = 0; k < c->ninstrs; k++) {
    const tfr_conf_instr *in = &c->instrs[k];
    const tfr_conf_op *op = tfr_conf_op_find(in->op, in->chlo);
    if (op->check) {
      const char *why = op->check(op, c, in, buf);
      if (why) return why;
    } else if (op->dtypes && in->noperands > 0) {
      const tfr_conf_dtype *dt = tfr_conf_operand_type(c, in, 0)->dtype;
      if (!tfr_conf_dtype_allowed(op->dtypes, dt)) return tfr_conf_kind_reason(in, dt, buf);
    }
  }
  return NULL;
}

bool tfr_conf_upload(tfr_conf_exec *x, const tfr_conf_tensor *t, tfr_tensor **out) {
  tfr_dtype d;
  if (!tfr_conf_lib_dtype(t->type.dtype, &d))
    return tfr_conf_fail(x, "dtype %s is not in the library", t->type.dtype->name);
  tfr_tensor *host = NULL;
  tfr_status st = tfr_tensor_from_host(d, t->type.rank, t->type.rank ? t->type.shape : NULL,
                                       t->data, &host);
  if (st) return tfr_conf_fail(x, "tensor_from_host: %s: %s", tfr_status_string(st),
                               tfr_last_error_message());
  st = tfr_upload(x->session, host, out);
  tfr_tensor_release(host);
  if (st) return tfr_conf_fail(x, "upload: %s: %s", tfr_status_string(st),
                               tfr_last_error_message());
  return true;
}

static void tfr_conf_format_shape(int rank, const int64_t *shape, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < rank && used + 1 < n; k++) {
    int w = snprintf(buf + used, n - used, "%s%lld", k ? "," : "", (long long)shape[k]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

// Whether rank/shape is the declared shape of `in`'s result.
static bool tfr_conf_same_shape(const tfr_conf_instr *in, int rank, const int64_t *shape) {
  bool same = rank == in->result.rank;
  for (int k = 0; same && k < rank; k++) same = shape[k] == in->result.shape[k];
  return same;
}

bool tfr_conf_expect_shape(tfr_conf_exec *x, const tfr_conf_instr *in, int rank,
                           const int64_t *shape) {
  if (tfr_conf_same_shape(in, rank, shape)) return true;
  char got[256], decl[256];
  tfr_conf_format_shape(rank, shape, got, sizeof got);
  tfr_conf_format_shape(in->result.rank, in->result.shape, decl, sizeof decl);
  return tfr_conf_fail(x, "value %d (%s): its attributes give a result of shape [%s], the case "
                       "declares %s[%s] (refused before it is computed)",
                       tfr_conf_value_id(x->c, in), in->op, got, in->result.dtype->name, decl);
}

// The library's result must have the declared dtype and shape: anything else
// is a wrong answer even before the values are compared.
static bool tfr_conf_check_result(tfr_conf_exec *x, const tfr_conf_instr *in,
                                  const tfr_tensor *t) {
  tfr_dtype want;
  if (!tfr_conf_lib_dtype(in->result.dtype, &want))
    return tfr_conf_fail(x, "dtype %s is not in the library", in->result.dtype->name);
  int rank = tfr_tensor_rank(t);
  const int64_t *shape = tfr_tensor_shape(t);
  if (tfr_tensor_dtype(t) == want && tfr_conf_same_shape(in, rank, shape)) return true;
  char got[256], decl[256];
  tfr_conf_format_shape(rank, shape, got, sizeof got);
  tfr_conf_format_shape(in->result.rank, in->result.shape, decl, sizeof decl);
  return tfr_conf_fail(x, "value %d (%s): result is %s[%s], the case declares %s[%s]",
                       tfr_conf_value_id(x->c, in), in->op, tfr_dtype_name(tfr_tensor_dtype(t)),
                       got, in->result.dtype->name, decl);
}

// Marks the values the output depends on (live[v]) and returns the bytes
// the inputs and the live instructions' declared results take together.
static double tfr_conf_live_values(const tfr_conf_case *c, bool *live) {
  live[c->output] = true;
  for (int k = c->ninstrs - 1; k >= 0; k--) {
    if (!live[c->ninputs + k]) continue;
    const tfr_conf_instr *in = &c->instrs[k];
    for (int j = 0; j < in->noperands; j++) live[in->operands[j]] = true;
  }
  double bytes = 0;
  for (int v = 0; v < c->ninputs + c->ninstrs; v++)
    if (live[v] || v < c->ninputs)
      bytes += (double)c->types[v]->numel * (double)c->types[v]->dtype->size;
  return bytes;
}

bool tfr_conf_check_budget(tfr_conf_exec *x, const char *what, double bytes) {
  if (x->max_memory <= 0 || bytes <= x->max_memory) return true;
  return tfr_conf_fail(x, "%s need %.4g bytes, more than %s (%.4g bytes)", what, bytes,
                       x->max_memory_default ? "the default budget (half of available memory)"
                                             : "--max-memory",
                       x->max_memory);
}

bool tfr_conf_execute(tfr_conf_exec *x, unsigned char **out_data, size_t *out_nbytes) {
  const tfr_conf_case *c = x->c;
  *out_data = NULL;
  *out_nbytes = 0;
  int nvalues = c->ninputs + c->ninstrs;
  tfr_tensor **vals = calloc((size_t)nvalues, sizeof *vals);
  bool *live = calloc((size_t)nvalues + 1, sizeof *live);
  tfr_tensor **args = NULL;
  tfr_tensor *host = NULL;
  bool ok = vals && live;
  if (!ok) tfr_conf_fail(x, "out of memory");
  if (ok) {
    double need = tfr_conf_live_values(c, live);
    ok = tfr_conf_check_budget(x, "the program's values", need);
  }
  for (int i = 0; ok && i < c->ninputs; i++) ok = tfr_conf_upload(x, &c->inputs[i], &vals[i]);
  for (int k = 0; ok && k < c->ninstrs; k++) {
    if (!live[c->ninputs + k]) continue;  // nothing reads it
    const tfr_conf_instr *in = &c->instrs[k];
    const tfr_conf_op *op = tfr_conf_op_find(in->op, in->chlo);
    if (!op) {  // tfr_conf_skip_reason keeps such cases from getting here
      ok = tfr_conf_fail(x, "value %d: no handler for op %s", c->ninputs + k, in->op);
      break;
    }
    free(args);
    args = calloc((size_t)in->noperands + 1, sizeof *args);
    if (!args) {
      ok = tfr_conf_fail(x, "out of memory");
      break;
    }
    for (int j = 0; j < in->noperands; j++) args[j] = vals[in->operands[j]];
    tfr_tensor *t = NULL;
    ok = op->run(op, x, in, args, &t);
    if (ok) ok = tfr_conf_check_result(x, in, t);
    vals[c->ninputs + k] = t;
  }
  if (ok) {
    tfr_status st = tfr_download(x->session, vals[c->output], &host);
    if (st) {
      ok = tfr_conf_fail(x, "download: %s: %s", tfr_status_string(st), tfr_last_error_message());
    } else {
      size_t nbytes = tfr_tensor_nbytes(host);
      *out_data = malloc(nbytes ? nbytes : 1);
      if (!*out_data) {
        ok = tfr_conf_fail(x, "out of memory");
      } else if ((st = tfr_tensor_read(host, *out_data, nbytes)) != TFR_OK) {
        ok = tfr_conf_fail(x, "tensor_read: %s: %s", tfr_status_string(st),
                           tfr_last_error_message());
      } else {
        *out_nbytes = nbytes;
      }
    }
  }
  tfr_tensor_release(host);
  free(args);
  if (vals)
    for (int v = 0; v < nvalues; v++) tfr_tensor_release(vals[v]);
  free(vals);
  free(live);
  if (!ok) {
    free(*out_data);
    *out_data = NULL;
  }
  return ok;
}
