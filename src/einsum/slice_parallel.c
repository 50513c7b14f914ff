// A sliced plan on the cpu backend (einsum.h, "Slicing"; docs/paths.md):
// the slices of each output block (those that share the values of the
// sliced output labels: `closed` consecutive slice indices) are cut into G
// contiguous groups, G depending on the plan alone. A unit of work is one
// group of one block: it sums its slices in index order (bool: OR), the
// first group straight into the output's block, the others into a partial
// of the block's size; the block then adds its partials in group order. The
// same units and the same order whether they run one after another or on
// several threads, so the result does not depend on the thread count.
//
// Small slices (few flops each) run on the backend's threads, one unit per
// thread at a time, each op of a slice single-threaded (cpu/tasks.h); large
// ones one after another with the kernels' own threads. The parallel run
// holds up to T slices' intermediates and every partial at once, and is
// used only when that stays within twice one slice's memory.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "cpu/tasks.h"
#include "einsum/einsum_impl.h"
#include "tenferro/ops.h"

// At most this many groups in all (when the blocks are fewer, each block's
// slices are cut into up to TFR_SLICE_GROUPS / blocks groups).
#define TFR_SLICE_GROUPS 16

// Slices are small, and run in parallel, when one needs at most
// TFR_SLICE_SMALL_FLOPS (tfr_einsum_path_info's sliced_flops / num_slices)
// or its steps at most TFR_SLICE_SMALL_STEP_FLOPS on average: their ops are
// then mostly below the sizes where the kernels go multi-threaded
// (TFR_CPU_PARALLEL_MIN elements, GEMMs of 2^18 multiply-adds), so inner
// threads gain little on them (and on a busy machine lose: a 415-tensor
// network's 32 slices of 414 small steps took 1.6 s on 2 threads, 0.15 s on
// one).
#define TFR_SLICE_SMALL_FLOPS ((double)(1 << 24))
#define TFR_SLICE_SMALL_STEP_FLOPS ((double)(1 << 20))

typedef struct tfr_slice_exec {
  tfr_session *s;
  const tfr_einsum_plan *plan;
  const tfr_tensor *const *operands;
  const bool *dropped;
  tfr_tensor *res;          // the output
  tfr_binary_op op;         // ADD, OR for bool
  int64_t closed;           // slices per block
  int64_t groups;           // G: groups per block
  bool combine_now;         // one after another: add a partial as soon as it is done
  tfr_tensor **partials;    // [blocks * G] (G > 1, in parallel): group g >= 1's sums
  atomic_llong done;        // slices finished
  int64_t reported;         // slices reported to progress (thread 0 only)
  // The failure of the lowest unit (units after it are skipped).
  atomic_llong failed;      // its unit, INT64_MAX: none
  pthread_mutex_t lock;
  tfr_status status;
  char message[1024];
} tfr_slice_exec;

// Progress, from the calling thread: the slices finished so far.
static void tfr_slice_progress(tfr_slice_exec *x) {
  const tfr_einsum_plan *plan = x->plan;
  int64_t d = atomic_load(&x->done);
  if (!plan->progress || d <= x->reported) return;
  x->reported = d;
  plan->progress(plan->progress_ctx, (int)(d < INT32_MAX ? d : INT32_MAX),
                 (int)(plan->num_slices < INT32_MAX ? plan->num_slices : INT32_MAX),
                 (double)d * plan->info.flops / (double)plan->num_slices);
}

// Records unit u's failure (its thread's message) unless a lower unit failed.
static void tfr_slice_fail(tfr_slice_exec *x, int64_t u, tfr_status st) {
  pthread_mutex_lock(&x->lock);
  if (u < atomic_load(&x->failed)) {
    atomic_store(&x->failed, u);
    x->status = st;
    snprintf(x->message, sizeof x->message, "%s", tfr_last_error_message());
  }
  pthread_mutex_unlock(&x->lock);
}

// Unit u: group g of block b.
static void tfr_slice_unit(void *ctx, int64_t u, int thread) {
  tfr_slice_exec *x = ctx;
  if (atomic_load(&x->failed) < u) return;  // the result is an error already
  int64_t b = u / x->groups, g = u % x->groups;
  int64_t lo = b * x->closed + g * x->closed / x->groups;
  int64_t hi = b * x->closed + (g + 1) * x->closed / x->groups;
  tfr_tensor *block = NULL, *acc = NULL;
  tfr_status st = tfr_slice_block(x->plan, x->res, lo, &block);
  bool complete = true;
  for (int64_t k = lo; !st && k < hi; k++) {
    if (atomic_load(&x->failed) < u) {
      complete = false;
      break;
    }
    tfr_tensor *r = NULL;
    st = tfr_slice_run(x->s, x->plan, x->operands, k, x->dropped, &r);
    tfr_einsum_recorder *rec = st ? NULL : x->plan->recorder;
    double t0 = rec ? tfr_path_now() : 0;
    if (!st && k == lo && g == 0) {
      st = tfr_copy_into(x->s, r, block);
      if (!st) {
        acc = block;
        tfr_tensor_retain(acc);
      }
    } else if (!st && k == lo) {
      st = tfr_copy(x->s, r, &acc);  // r may share storage with what the path holds
    } else if (!st) {
      st = tfr_binary_into(x->s, x->op, acc, r, acc);
    }
    st = tfr_recorder_accumulate(rec, t0, st, r, k == lo ? 1 : 2);
    tfr_tensor_release(r);
    if (!st) {
      atomic_fetch_add(&x->done, 1);
      if (thread == 0) tfr_slice_progress(x);
    }
  }
  if (!st && complete && g > 0) {
    if (x->combine_now) {
      double t0 = x->plan->recorder ? tfr_path_now() : 0;
      st = tfr_binary_into(x->s, x->op, block, acc, block);
      st = tfr_recorder_accumulate(x->plan->recorder, t0, st, acc, 2);
    } else {
      x->partials[u] = acc;
      acc = NULL;
    }
  }
  if (st) tfr_slice_fail(x, u, st);
  tfr_tensor_release(acc);
  tfr_tensor_release(block);
}

// The elements of the operands as the path's statistics count them (their
// distinct labels), as tfr_einsum_slice_stats does.
static double tfr_slice_operand_elements(const tfr_einsum_plan *plan) {
  const tfr_einsum_expr *e = &plan->expr;
  double sum = 0;
  for (int i = 0; i < e->n && plan->node_labels; i++) {
    double x = 1;
    for (int k = 0; k < plan->node_count[i]; k++) x *= (double)e->extent[plan->node_labels[i][k]];
    sum += x;
  }
  return sum;
}

int tfr_einsum_slice_schedule(const tfr_einsum_plan *plan, int threads, int64_t *groups) {
  const tfr_einsum_expr *e = &plan->expr;
  int64_t closed = 1;
  double output = 1;
  for (int j = 0; j < e->num_out; j++) output *= (double)e->extent[e->out_labels[j]];
  for (int j = plan->num_sliced_open; j < plan->num_sliced; j++) closed *= e->extent[plan->sliced[j]];
  int64_t blocks = plan->num_slices / closed;
  // G: from the plan alone. Partials beyond the output's own block: at most
  // half one slice's memory figure.
  const tfr_einsum_path_info *info = &plan->info;
  double peak = info->sliced_peak_live_elements;
  int64_t g = blocks >= TFR_SLICE_GROUPS ? 1 : TFR_SLICE_GROUPS / blocks;
  if (g > closed) g = closed;
  while (g > 1 && (double)(g - 1) * output > peak / 2) g--;
  *groups = g;
  // Parallel: several units, small slices, and the memory of T - 1 more
  // slices' intermediates and of the partials within one slice's figure.
  int64_t units = blocks * g;
  if (threads > units) threads = (int)units;
  double intermediates = peak - tfr_slice_operand_elements(plan) - output;
  if (intermediates < 0) intermediates = 0;
  double slice_flops = info->sliced_flops / (double)plan->num_slices;
  bool small = slice_flops <= TFR_SLICE_SMALL_FLOPS ||
               slice_flops / (plan->num_steps > 0 ? plan->num_steps : 1) <= TFR_SLICE_SMALL_STEP_FLOPS;
  bool parallel = threads > 1 && small &&
                  (double)(threads - 1) * intermediates + (double)(g - 1) * output <= peak;
  return parallel ? threads : 1;
}

tfr_status tfr_einsum_execute_grouped(tfr_session *session, const tfr_einsum_plan *plan,
                                      const tfr_tensor *const *operands, tfr_tensor **out) {
  int backend_threads = tfr_cpu_session_threads(session);
  if (backend_threads < 1 || plan->num_slices == 0)  // webgpu; no slice at all
    return tfr_einsum_execute_sliced(session, plan, operands, out);
  const tfr_einsum_expr *e = &plan->expr;
  tfr_dtype dt = tfr_tensor_dtype(operands[0]);
  int64_t shape[TFR_MAX_RANK], closed = 1, groups = 1;
  for (int j = 0; j < e->num_out; j++) shape[j] = e->extent[e->out_labels[j]];
  for (int j = plan->num_sliced_open; j < plan->num_sliced; j++) closed *= e->extent[plan->sliced[j]];
  int threads = tfr_einsum_slice_schedule(plan, backend_threads, &groups);
  int64_t units = plan->num_slices / closed * groups;
  // Profiling: the same units one after another, their ops single-threaded
  // where they would run in parallel (the same results).
  bool alone = plan->recorder && threads > 1;
  if (plan->recorder) threads = 1;
  bool parallel = threads > 1;

  tfr_slice_exec x = {.s = session,
                      .plan = plan,
                      .operands = operands,
                      .op = dt == TFR_BOOL ? TFR_OR : TFR_ADD,
                      .closed = closed,
                      .groups = groups,
                      .combine_now = !parallel,
                      .status = TFR_OK};
  atomic_init(&x.done, 0);
  atomic_init(&x.failed, INT64_MAX);
  bool *dropped = NULL;
  TFR_RETURN_IF_ERROR(tfr_slice_dropped(plan, &dropped));
  x.dropped = dropped;
  tfr_status st = TFR_OK;
  if (parallel && groups > 1) {
    x.partials = tfr_calloc((size_t)units, sizeof(tfr_tensor *));
    if (!x.partials) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  if (!st && pthread_mutex_init(&x.lock, NULL) != 0)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: cannot create a lock");
  else if (!st) {
    st = tfr_tensor_alloc(tfr_session_backend(session), dt, e->num_out, shape, false, &x.res);
    if (!st) {
      if (alone) tfr_cpu_run_tasks_alone(units, tfr_slice_unit, &x);
      else tfr_cpu_run_tasks(session, units, threads, tfr_slice_unit, &x);
      if (x.status) st = tfr_error(x.status, "%s", x.message);
    }
    pthread_mutex_destroy(&x.lock);
  }
  // The partials, in group order (parallel runs).
  for (int64_t u = 0; !st && x.partials && u < units; u++) {
    if (u % groups == 0) continue;
    tfr_tensor *block = NULL;
    st = tfr_slice_block(plan, x.res, (u / groups) * closed, &block);
    if (!st) st = tfr_binary_into(session, x.op, block, x.partials[u], block);
    tfr_tensor_release(block);
  }
  if (!st && plan->num_slices > x.reported) tfr_slice_progress(&x);
  for (int64_t u = 0; x.partials && u < units; u++) tfr_tensor_release(x.partials[u]);
  tfr_free(x.partials);
  tfr_free(dropped);
  if (st) {
    tfr_tensor_release(x.res);
    return st;
  }
  *out = x.res;
  return TFR_OK;
}

int tfr_einsum_plan_slice_threads(const tfr_einsum_plan *plan, tfr_session *session) {
  if (!plan || !tfr_session_backend(session)) return 0;
  int threads = tfr_cpu_session_threads(session);
  if (threads < 1 || plan->num_sliced == 0 || plan->num_slices == 0) return 1;
  int64_t groups;
  return tfr_einsum_slice_schedule(plan, threads, &groups);
}
