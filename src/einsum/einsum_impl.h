// Internal structures of einsum: parsed expressions, paths and plans.
#ifndef TENFERRO_SRC_EINSUM_EINSUM_IMPL_H_
#define TENFERRO_SRC_EINSUM_EINSUM_IMPL_H_

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/core.h"
#include "tenferro/einsum.h"
#include "tenferro/tensor.h"

// Seconds on a monotonic clock: the optimisers' time budgets and the
// profiler's op times.
static inline double tfr_path_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// An expression over dense label ids 0 .. num_labels-1.
typedef struct tfr_einsum_expr {
  int n;                 // operands
  int *ranks;            // int[n]
  int **labels;          // n arrays of label ids (one per axis)
  int64_t **shapes;      // n arrays of extents
  int num_out;
  int *out_labels;       // int[num_out]
  int num_labels;
  int64_t *extent;       // int64[num_labels]: the label's extent (max over axes)
  // int32[num_labels]: each label's name, as the caller wrote it: its code
  // point (string expressions; the ellipsis axes are -1, -2, ...) or the
  // caller's int32 label.
  int32_t *names;
} tfr_einsum_expr;

// Records the ops of a profiled execution (recorder.c;
// tfr_einsum_plan_profile). Not thread-safe: a profiled sliced plan runs its
// slices on the calling thread.
typedef struct tfr_einsum_recorder {
  tfr_session *session;
  bool sync;              // synchronize after each op (an asynchronous backend)
  int step;               // the step being run, -1: after the last one
  int num_steps;
  size_t elem_size;       // the dtype's size
  tfr_einsum_profile *profile;  // the records, growing
  int cap;                // room in profile->ops
  int *head;              // int[num_steps + 1]: step + 1's first record, -1: none
  int *next;              // int[cap]: the next record of the same step, -1: none
} tfr_einsum_recorder;

// The elements the caller's operands hold: the sum of the products of
// their shapes (a repeated label counts once per axis, an extent-1 axis as
// 1), which is what the memory figures count for them (path.c, slice.c).
double tfr_einsum_operand_elements(const tfr_einsum_expr *e);

struct tfr_einsum_plan {
  tfr_einsum_expr expr;
  int num_steps;
  int32_t *path;         // int32[2 * num_steps], numpy pair format
  tfr_einsum_path_info info;
  double *step_flops;    // double[num_steps]
  // The path's tensors in SSA order (n operands, then one per step): their
  // distinct labels (sorted ids), the step that consumes each (-1: the
  // result) and the tensor it is contracted with there.
  int num_nodes;
  int **node_labels;
  int *node_count;
  int *consumer;
  int *partner;
  int *step_inputs;      // int[2 * num_steps]: the SSA ids of step k's two inputs
  void (*progress)(void *ctx, int steps_done, int num_steps, double flops_done);
  void *progress_ctx;
  bool follow_path;  // tfr_einsum_options.follow_path: never the one-loop form
  // Slicing (slice.c): the sliced labels, those of the output first, each
  // group ascending; slice k's index of sliced label j is digit j of k in
  // the mixed radix of their extents, the last label fastest.
  int num_sliced;
  int *sliced;            // int[num_sliced] label ids
  int num_sliced_open;    // how many of them the output has
  int64_t num_slices;     // the product of their extents (1 without slicing)
  // Profiling (tfr_einsum_plan_profile sets it in a copy of the plan): the
  // executor records its ops here; NULL otherwise (no cost then). A sliced
  // plan with a recorder runs its slices one after another.
  tfr_einsum_recorder *recorder;
};

// Parses a numpy einsum string against operand ranks/shapes into `e`
// (which the caller frees with tfr_einsum_expr_free, also on failure).
tfr_status tfr_einsum_parse(const char *subscripts, int n, const int *ranks,
                            const int64_t *const *shapes, tfr_einsum_expr *e);

// Builds `e` from integer labels.
tfr_status tfr_einsum_from_labels(int n, const int *ranks, const int64_t *const *shapes,
                                  const int32_t *const *labels, int num_out,
                                  const int32_t *out_labels, tfr_einsum_expr *e);

// Checks extents (equal per label, or 1 = broadcast as numpy does) and fills
// e->extent. `what` names the caller for messages.
tfr_status tfr_einsum_check_extents(tfr_einsum_expr *e);

void tfr_einsum_expr_free(tfr_einsum_expr *e);

// Parses a list of labels in the notation of the plan's string (UTF-8, white
// space ignored) into their names (code points): *out is int32[*n], freed by
// the caller with tfr_free (NULL when *n is 0).
tfr_status tfr_einsum_parse_label_list(const char *labels, int32_t **out, int *n);

// Checks `operands` against the plan (non-NULL, one dtype, the plan's
// shapes) and that the session is active.
tfr_status tfr_einsum_check_operands(tfr_session *session, const tfr_einsum_plan *plan,
                                     const tfr_tensor *const *operands);

// The same checks without the session's.
tfr_status tfr_einsum_check_shapes(const tfr_einsum_plan *plan, const tfr_tensor *const *operands);

// tfr_einsum_plan_view_axes on an expression (axis_out may be NULL), and
// tfr_einsum_plan_view's result once `operand` is checked against the plan.
int tfr_einsum_view_axes(const tfr_einsum_expr *e, int32_t *axis_out);
tfr_status tfr_einsum_view(const tfr_einsum_plan *plan, const tfr_tensor *operand,
                           tfr_tensor **out);

// Runs the plan's path on `operands` (already checked against the plan)
// into *out. Output labels marked in `dropped` (bool[num_labels], NULL:
// none) are absent from the result (a slice fixed them): the result has the
// output's other axes, in order.
tfr_status tfr_einsum_run(tfr_session *session, const tfr_einsum_plan *plan,
                          const tfr_tensor *const *operands, const bool *dropped,
                          tfr_tensor **out);

// The einsum of a tiny network in one loop (the backend's sum_of_products)
// instead of the plan's pairwise steps: for 2 to TFR_SOP_MAX_OPERANDS
// operands of f32, f64, c64 or c128 (not sliced, no progress callback, not
// follow_path) whose loop costs less than the steps' per-op overhead: with
// W the product of every label's extent (at most TFR_EINSUM_SOP_MAX_WORK),
// W x n x 2 (x 3 for complex) <= TFR_EINSUM_SOP_STEP_UNITS x (n - 1).
// Returns TFR_ERR_UNSUPPORTED_DTYPE, with no message and *out untouched,
// when the network or the backend does not qualify; any other status is
// the result's (operands already checked against the plan).
#define TFR_EINSUM_SOP_MAX_WORK 1024
#define TFR_EINSUM_SOP_STEP_UNITS 2048
tfr_status tfr_einsum_sum_of_products(tfr_session *session, const tfr_einsum_plan *plan,
                                      const tfr_tensor *const *operands, tfr_tensor **out);

// Starts a recorder for `plan` (its steps) on `session` for operands of
// `dtype`: an empty profile.
tfr_status tfr_recorder_init(tfr_einsum_recorder *r, tfr_session *session,
                             const tfr_einsum_plan *plan, tfr_dtype dtype);
// Frees the recorder's index and, unless taken (r->profile set to NULL),
// its profile.
void tfr_recorder_free(tfr_einsum_recorder *r);
// Ends an op begun at `t0` (tfr_path_now): synchronizes an asynchronous
// session, then adds the op to the record of (r->step, kind, shapes): one
// call of batch x m x n x k (dot kinds; 1 x 1 x 1 x 1 otherwise) reading
// in_elements and writing out_elements. Errors: those of
// tfr_session_synchronize, TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_recorder_add(tfr_einsum_recorder *r, double t0, tfr_einsum_op_kind kind,
                            int64_t batch, int64_t m, int64_t n, int64_t k, int64_t in_elements,
                            int64_t out_elements);
// Ends a sliced plan's accumulation of a slice's result `slice` begun at t0
// when the op succeeded (st: its status) and r is not NULL: copied
// (reads 1) or added (reads 2) into its block. Returns st, or the
// recorder's error.
tfr_status tfr_recorder_accumulate(tfr_einsum_recorder *r, double t0, tfr_status st,
                                   const tfr_tensor *slice, int reads);

// Fills the slicing fields of plan->info from the path's statistics and the
// sliced labels (no slicing: 1 slice, the path's own figures).
void tfr_einsum_slice_stats(tfr_einsum_plan *plan);

// Executes a sliced plan: every slice, written into or summed into *out,
// one after another (the webgpu backend's way; tfr_einsum_execute_grouped
// calls it for any backend but cpu).
tfr_status tfr_einsum_execute_sliced(tfr_session *session, const tfr_einsum_plan *plan,
                                     const tfr_tensor *const *operands, tfr_tensor **out);

// The parts of a slice's execution (slice.c):
// Runs slice k (0 <= k < num_slices; operands checked): *out, a new
// tensor, has the output's axes but the sliced ones; `dropped` marks the
// sliced output labels (bool[num_labels]).
tfr_status tfr_slice_run(tfr_session *s, const tfr_einsum_plan *plan,
                         const tfr_tensor *const *operands, int64_t k, const bool *dropped,
                         tfr_tensor **out);
// *out: a new bool[num_labels + 1] marking the sliced output labels (tfr_free).
tfr_status tfr_slice_dropped(const tfr_einsum_plan *plan, bool **out);
// *block: the view of `res` (a tensor of the output's shape) that slice k
// writes or adds to: the sliced output axes fixed at the slice's values and
// dropped (the axes of tfr_slice_run's result).
tfr_status tfr_slice_block(const tfr_einsum_plan *plan, tfr_tensor *res, int64_t k,
                           tfr_tensor **block);

// Executes a sliced plan (slice_parallel.c); on a cpu session with at least
// one slice: the slices of each output block in a fixed number of
// contiguous groups, each summed in order, the groups then summed in order;
// small slices run on the backend's threads. The result does not depend on
// the number of threads.
tfr_status tfr_einsum_execute_grouped(tfr_session *session, const tfr_einsum_plan *plan,
                                      const tfr_tensor *const *operands, tfr_tensor **out);

// How tfr_einsum_execute_grouped runs a sliced plan (at least one slice) on
// a cpu backend of `threads` threads: sets *groups to G (groups per output
// block, from the plan alone) and returns the threads the slices run on (1:
// one after another, the kernels threaded as usual).
int tfr_einsum_slice_schedule(const tfr_einsum_plan *plan, int threads, int64_t *groups);

// Finds a path for `e` (the optimiser of the options) or validates the given one, and
// computes its statistics. Fills plan->path, num_steps, info.
tfr_status tfr_einsum_find_path(tfr_einsum_plan *plan, const tfr_einsum_options *options);

#endif  // TENFERRO_SRC_EINSUM_EINSUM_IMPL_H_
