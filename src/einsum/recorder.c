// The records of a profiled einsum execution (einsum.h, "Profiling"): the
// executor (execute.c, slice_parallel.c, slice.c) times each op it issues
// when the plan carries a recorder, and adds it to the record of its step,
// kind and shapes. Records of a step are chained from the step's head, so
// that the slices of a sliced plan find theirs in a few comparisons.
#include <string.h>

#include "einsum/einsum_impl.h"

static const char *const tfr_op_kind_names[TFR_EINSUM_OP_NUM_KINDS] = {
    "gemm",          "batched_gemm", "gemv",      "batched_gemv", "dot",       "batched_dot",
    "outer_product", "multiply",     "transpose", "reduce",       "accumulate", "sum_of_products"};

const char *tfr_einsum_op_kind_name(tfr_einsum_op_kind kind) {
  if ((int)kind < 0 || kind >= TFR_EINSUM_OP_NUM_KINDS) return "?";
  return tfr_op_kind_names[kind];
}

bool tfr_einsum_op_kind_is_compute(tfr_einsum_op_kind kind) {
  return ((int)kind >= (int)TFR_EINSUM_OP_GEMM && kind <= TFR_EINSUM_OP_BATCHED_DOT) ||
         kind == TFR_EINSUM_OP_SUM_OF_PRODUCTS;
}

void tfr_einsum_profile_free(tfr_einsum_profile *profile) {
  if (!profile) return;
  tfr_free(profile->ops);
  tfr_free(profile);
}

tfr_status tfr_recorder_init(tfr_einsum_recorder *r, tfr_session *session,
                             const tfr_einsum_plan *plan, tfr_dtype dtype) {
  memset(r, 0, sizeof *r);
  r->session = session;
  tfr_backend *b = tfr_session_backend(session);
  r->sync = b && tfr_backend_get_kind(b) != TFR_BACKEND_CPU;
  r->step = -1;
  r->num_steps = plan->num_steps;
  r->elem_size = tfr_dtype_size(dtype);
  r->profile = tfr_calloc(1, sizeof *r->profile);
  r->head = tfr_alloc(((size_t)plan->num_steps + 1) * sizeof(int));
  if (!r->profile || !r->head) {
    tfr_recorder_free(r);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: profile: out of host memory");
  }
  for (int i = 0; i <= plan->num_steps; i++) r->head[i] = -1;
  return TFR_OK;
}

void tfr_recorder_free(tfr_einsum_recorder *r) {
  tfr_einsum_profile_free(r->profile);
  tfr_free(r->head);
  tfr_free(r->next);
  memset(r, 0, sizeof *r);
}

// A new record for (r->step, kind, shapes), chained last in its step.
static tfr_status tfr_recorder_append(tfr_einsum_recorder *r, int slot, tfr_einsum_op_record *rec,
                                      int *index) {
  tfr_einsum_profile *p = r->profile;
  if (p->num_ops == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    tfr_einsum_op_record *ops = tfr_realloc(p->ops, (size_t)cap * sizeof *ops);
    if (ops) p->ops = ops;
    int *next = ops ? tfr_realloc(r->next, (size_t)cap * sizeof(int)) : NULL;
    if (next) r->next = next;
    if (!ops || !next) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: profile: out of host memory");
    r->cap = cap;
  }
  int i = p->num_ops++;
  p->ops[i] = *rec;
  r->next[i] = -1;
  if (r->head[slot] < 0) {
    r->head[slot] = i;
  } else {
    int j = r->head[slot];
    while (r->next[j] >= 0) j = r->next[j];
    r->next[j] = i;
  }
  *index = i;
  return TFR_OK;
}

tfr_status tfr_recorder_add(tfr_einsum_recorder *r, double t0, tfr_einsum_op_kind kind,
                            int64_t batch, int64_t m, int64_t n, int64_t k, int64_t in_elements,
                            int64_t out_elements) {
  if (r->sync) TFR_RETURN_IF_ERROR(tfr_session_synchronize(r->session));
  double seconds = tfr_path_now() - t0;
  int slot = r->step + 1;
  tfr_einsum_op_record key = {.step = r->step, .kind = kind, .batch = batch, .m = m, .n = n,
                              .k = k, .in_elements = in_elements, .out_elements = out_elements};
  int i = r->head[slot];
  for (; i >= 0; i = r->next[i]) {
    const tfr_einsum_op_record *q = &r->profile->ops[i];
    if (q->kind == kind && q->batch == batch && q->m == m && q->n == n && q->k == k &&
        q->in_elements == in_elements && q->out_elements == out_elements)
      break;
  }
  if (i < 0) TFR_RETURN_IF_ERROR(tfr_recorder_append(r, slot, &key, &i));
  tfr_einsum_op_record *q = &r->profile->ops[i];
  double flops = 0;
  if (kind == TFR_EINSUM_OP_SUM_OF_PRODUCTS) flops = (double)m * (double)n * (double)k;
  else if (tfr_einsum_op_kind_is_compute(kind)) flops = 2.0 * (double)batch * (double)m * (double)n * (double)k;
  else if (kind == TFR_EINSUM_OP_MULTIPLY || kind == TFR_EINSUM_OP_OUTER_PRODUCT) flops = (double)out_elements;
  else if (kind == TFR_EINSUM_OP_REDUCE || kind == TFR_EINSUM_OP_ACCUMULATE) flops = (double)in_elements;
  double bytes = (double)(in_elements + out_elements) * (double)r->elem_size;
  q->calls++;
  q->seconds += seconds;
  q->flops += flops;
  q->bytes += bytes;
  tfr_einsum_op_total *t = &r->profile->totals[kind];
  t->calls++;
  t->seconds += seconds;
  t->flops += flops;
  t->bytes += bytes;
  return TFR_OK;
}

tfr_status tfr_recorder_accumulate(tfr_einsum_recorder *r, double t0, tfr_status st,
                                   const tfr_tensor *slice, int reads) {
  if (st || !r) return st;
  int64_t numel = tfr_tensor_numel(slice);
  return tfr_recorder_add(r, t0, TFR_EINSUM_OP_ACCUMULATE, 1, 1, 1, 1, reads * numel, numel);
}
