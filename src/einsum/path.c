// Contraction paths: the optimiser chosen by the options (greedy.c,
// random_greedy.c, dp.c, optimal.c, treesa.c, partition.c), refined by subtree.c if asked, or the caller's pair list, then the
// path's statistics by a replay (tree.c).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "einsum/auto.h"
#include "einsum/dp.h"
#include "einsum/einsum_impl.h"
#include "einsum/greedy.h"
#include "einsum/optimal.h"
#include "einsum/partition.h"
#include "einsum/random_greedy.h"
#include "einsum/slice_search.h"
#include "einsum/subtree.h"
#include "einsum/tree.h"
#include "einsum/treesa.h"

// The optimisers by name (the CLI's --path), in the enum's order but GIVEN.
static const struct {
  const char *name;
  tfr_einsum_path_kind kind;
} tfr_path_names[] = {
    {"greedy", TFR_EINSUM_PATH_GREEDY},
    {"optimal", TFR_EINSUM_PATH_OPTIMAL},
    {"random-greedy", TFR_EINSUM_PATH_RANDOM_GREEDY},
    {"random_greedy", TFR_EINSUM_PATH_RANDOM_GREEDY},
    {"dp", TFR_EINSUM_PATH_DP},
    {"auto", TFR_EINSUM_PATH_AUTO},
    {"treesa", TFR_EINSUM_PATH_TREESA},
    {"partition", TFR_EINSUM_PATH_PARTITION},
};
static const char *const tfr_minimize_names[] = {"flops", "size", "write", "combo"};

tfr_status tfr_einsum_path_kind_from_name(const char *name, tfr_einsum_path_kind *out) {
  if (!name || !out)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", !name ? "name" : "out");
  for (size_t i = 0; i < sizeof tfr_path_names / sizeof tfr_path_names[0]; i++)
    if (strcmp(name, tfr_path_names[i].name) == 0) {
      *out = tfr_path_names[i].kind;
      return TFR_OK;
    }
  return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "einsum: unknown path optimiser '%s' (auto, greedy, random-greedy, dp, optimal, "
                   "treesa, partition)", name);
}

const char *tfr_einsum_path_kind_name(tfr_einsum_path_kind kind) {
  if (kind == TFR_EINSUM_PATH_GIVEN) return "given";
  for (size_t i = 0; i < sizeof tfr_path_names / sizeof tfr_path_names[0]; i++)
    if (tfr_path_names[i].kind == kind) return tfr_path_names[i].name;
  return "?";
}

tfr_status tfr_einsum_minimize_from_name(const char *name, tfr_einsum_minimize *out) {
  if (!name || !out)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", !name ? "name" : "out");
  for (int i = 0; i < 4; i++)
    if (strcmp(name, tfr_minimize_names[i]) == 0) {
      *out = (tfr_einsum_minimize)i;
      return TFR_OK;
    }
  return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "einsum: unknown cost to minimize '%s' (flops, size, write, combo)", name);
}

const char *tfr_einsum_minimize_name(tfr_einsum_minimize minimize) {
  return (int)minimize >= 0 && (int)minimize < 4 ? tfr_minimize_names[minimize] : "?";
}

// Checks the search options and fills in their defaults.
static tfr_status tfr_path_options(tfr_einsum_options *o) {
  if ((int)o->minimize < 0 || (int)o->minimize > TFR_EINSUM_MINIMIZE_COMBO)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: invalid cost to minimize %d",
                     (int)o->minimize);
  if (o->trials < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: trials is %d (0 for the default %d, or "
                     "more)", o->trials, TFR_EINSUM_DEFAULT_TRIALS);
  if (!(o->max_time >= 0))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: max_time is %g seconds (0 for no limit, "
                     "or more)", o->max_time);
  if (!(o->combo_alpha >= 0) || isinf(o->combo_alpha))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: combo_alpha is %g (0 for the default "
                     "%g, or a finite positive number)", o->combo_alpha,
                     TFR_EINSUM_DEFAULT_COMBO_ALPHA);
  if (!(o->max_slice_elements >= 0))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: max_slice_elements is %g (0 for no "
                     "limit, or a positive number of elements)", o->max_slice_elements);
  if (o->subtree_size < 0 || o->subtree_size > TFR_EINSUM_SUBTREE_MAX)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: subtree_size is %d (0 for no subtree "
                     "reconfiguration, or 1..%d leaves)", o->subtree_size, TFR_EINSUM_SUBTREE_MAX);
  if (o->trials == 0)
    o->trials = o->path_kind == TFR_EINSUM_PATH_TREESA      ? TFR_EINSUM_DEFAULT_TREESA_RUNS
                : o->path_kind == TFR_EINSUM_PATH_PARTITION ? TFR_EINSUM_DEFAULT_PARTITION_TRIALS
                                                            : TFR_EINSUM_DEFAULT_TRIALS;
  if (o->combo_alpha == 0) o->combo_alpha = TFR_EINSUM_DEFAULT_COMBO_ALPHA;
  return TFR_OK;
}

// Runs the optimiser of o->path_kind, writing SSA steps to ssa.
static tfr_status tfr_path_search(const tfr_einsum_expr *e, const tfr_einsum_options *o, int *ssa) {
  int n = e->n;
  if (o->path_kind == TFR_EINSUM_PATH_OPTIMAL && n > TFR_EINSUM_OPTIMAL_MAX)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the optimal path search takes at most %d operands, got %d "
                     "(use the greedy path)", TFR_EINSUM_OPTIMAL_MAX, n);
  double start = tfr_path_now();
  tfr_net net;
  tfr_status st = tfr_net_init(&net, e);
  if (!st) switch (o->path_kind) {
      case TFR_EINSUM_PATH_GREEDY:
        st = tfr_greedy_run(&net, &(tfr_greedy_params){1, 0, NULL, false}, ssa, NULL);
        break;
      case TFR_EINSUM_PATH_OPTIMAL: st = tfr_optimal(&net, o->minimize, o->combo_alpha, ssa); break;
      case TFR_EINSUM_PATH_RANDOM_GREEDY: st = tfr_random_greedy(&net, o, ssa); break;
      case TFR_EINSUM_PATH_DP: st = tfr_dp(&net, o->minimize, o->combo_alpha, o->max_time, ssa); break;
      case TFR_EINSUM_PATH_AUTO: st = tfr_auto(e, &net, o, ssa); break;
      case TFR_EINSUM_PATH_TREESA: st = tfr_treesa(&net, o, ssa); break;
      case TFR_EINSUM_PATH_PARTITION: st = tfr_partition(&net, o, ssa); break;
      default:
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: invalid path kind %d", (int)o->path_kind);
    }
  // treesa and partition refine their trees themselves.
  if (!st && o->subtree_size > 0 && o->path_kind != TFR_EINSUM_PATH_TREESA &&
      o->path_kind != TFR_EINSUM_PATH_PARTITION)
    st = tfr_subtree_refine(&net, o->minimize, o->combo_alpha, o->subtree_size, start,
                            o->max_time, ssa);
  tfr_net_free(&net);
  return st;
}

tfr_status tfr_einsum_find_path(tfr_einsum_plan *plan, const tfr_einsum_options *options) {
  const tfr_einsum_expr *e = &plan->expr;
  tfr_einsum_options opts = {0};
  if (options) opts = *options;
  else opts.path_kind = TFR_EINSUM_PATH_AUTO;  // no options: the hyper-optimiser
  TFR_RETURN_IF_ERROR(tfr_path_options(&opts));
  int n = e->n;
  plan->num_steps = n - 1;
  plan->path = tfr_calloc(2 * (size_t)n, sizeof(int32_t));
  plan->step_flops = tfr_calloc((size_t)n, sizeof(double));
  plan->progress = opts.progress;
  plan->progress_ctx = opts.progress_ctx;
  plan->follow_path = opts.follow_path;
  int *ssa = tfr_calloc(2 * (size_t)n, sizeof(int));
  if (!plan->path || !plan->step_flops || !ssa) {
    tfr_free(ssa);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  tfr_status st = TFR_OK;
  int sliced[TFR_EINSUM_MAX_SLICED], num_sliced = 0;
  if (opts.path_kind == TFR_EINSUM_PATH_GIVEN) {
    if (opts.path_len != n - 1 || (opts.path_len > 0 && !opts.path))
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the path has %d step(s); %d operands need %d", opts.path_len, n,
                     n - 1);
    else memcpy(plan->path, opts.path, 2 * (size_t)(n - 1) * sizeof(int32_t));
  } else {
    st = tfr_path_search(e, &opts, ssa);
    // A memory budget: the tree and its sliced labels searched together.
    if (!st && opts.max_slice_elements > 0)
      st = tfr_slice_search(e, &opts, ssa, sliced, &num_sliced);
    if (!st) st = tfr_ssa_to_positions(n, ssa, plan->path);
  }
  tfr_free(ssa);
  if (st) return st;

  // Statistics (and validation of a given path) by replaying the positions;
  // the replay's nodes (label sets, who consumes them) stay with the plan
  // for the layout choices of tfr_einsum_plan_execute.
  tfr_replay s;
  st = tfr_replay_init(&s, e);
  int *list = tfr_alloc(((size_t)n + 1) * sizeof(int));
  plan->num_nodes = 2 * n - 1;
  plan->consumer = tfr_alloc(2 * (size_t)n * sizeof(int));
  plan->partner = tfr_alloc(2 * (size_t)n * sizeof(int));
  plan->step_inputs = tfr_alloc(2 * (size_t)n * sizeof(int));
  plan->node_labels = tfr_calloc(2 * (size_t)n, sizeof(int *));
  plan->node_count = tfr_calloc(2 * (size_t)n, sizeof(int));
  if (!st && (!list || !plan->consumer || !plan->partner || !plan->step_inputs ||
              !plan->node_labels || !plan->node_count))
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; !st && i < 2 * n; i++) plan->consumer[i] = plan->partner[i] = -1;
  int len = n;
  for (int i = 0; !st && i < n; i++) list[i] = i;
  tfr_einsum_path_info info = {0};
  info.num_steps = n - 1;
  double operand_elems = 0, live_inter = 0;
  if (!st) operand_elems = tfr_einsum_operand_elements(e);
  info.peak_live_elements = operand_elems;
  if (n == 1) {  // no step: the output is made from the operand directly
    double out = 1;
    for (int j = 0; j < e->num_out; j++) out *= (double)e->extent[e->out_labels[j]];
    info.peak_live_elements += out;
  }
  for (int step = 0; !st && step < n - 1; step++) {
    int32_t pa = plan->path[2 * step], pb = plan->path[2 * step + 1];
    if (pa < 0 || pb < 0 || pa >= len || pb >= len || pa == pb) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: path step %d names positions (%d, %d) of a list of %d operands",
                     step, (int)pa, (int)pb, len);
      break;
    }
    int id;
    double size, flops;
    st = tfr_replay_contract(&s, step, list[pa], list[pb], &id, &size, &flops);
    if (st) break;
    info.flops += flops;
    plan->step_flops[step] = flops;
    if (size > (double)TFR_MAX_NUMEL) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: step %d would make an intermediate of %.3g elements (more than "
                     "2^50)", step, size);
      break;
    }
    if ((int64_t)size > info.largest_intermediate) info.largest_intermediate = (int64_t)size;
    // Live during the step: operands, unconsumed intermediates, the result;
    // afterwards the step's intermediate inputs are released.
    if (operand_elems + live_inter + size > info.peak_live_elements)
      info.peak_live_elements = operand_elems + live_inter + size;
    if (list[pa] >= n) live_inter -= s.nodes[list[pa]].size;
    if (list[pb] >= n) live_inter -= s.nodes[list[pb]].size;
    live_inter += size;
    plan->consumer[list[pa]] = plan->consumer[list[pb]] = step;
    plan->partner[list[pa]] = list[pb];
    plan->partner[list[pb]] = list[pa];
    plan->step_inputs[2 * step] = list[pa];
    plan->step_inputs[2 * step + 1] = list[pb];
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    memmove(&list[hi], &list[hi + 1], (size_t)(len - hi - 1) * sizeof(int));
    len--;
    memmove(&list[lo], &list[lo + 1], (size_t)(len - lo - 1) * sizeof(int));
    len--;
    list[len++] = id;
  }
  if (!st && opts.max_intermediate_elements > 0 &&
      info.largest_intermediate > opts.max_intermediate_elements)
    st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "einsum: the path's largest intermediate has %" PRId64
                   " elements, above the limit of %" PRId64,
                   info.largest_intermediate, opts.max_intermediate_elements);
  info.log10_flops = info.flops > 0 ? log10(info.flops) : 0;
  info.log2_largest = info.largest_intermediate > 0 ? log2((double)info.largest_intermediate) : 0;
  plan->info = info;
  if (!st)
    for (int i = 0; i < s.num_nodes; i++) {  // the plan takes the label sets over
      plan->node_labels[i] = s.nodes[i].labels;
      plan->node_count[i] = s.nodes[i].count;
      s.nodes[i].labels = NULL;
    }
  tfr_free(list);
  tfr_replay_free(&s);
  // Slicing for the budget: the search's labels, or a given path's by
  // slice_to_fit.
  if (!st && opts.max_slice_elements > 0) {
    tfr_einsum_slice_stats(plan);
    if (opts.path_kind == TFR_EINSUM_PATH_GIVEN) {
      if (plan->info.sliced_peak_live_elements > opts.max_slice_elements)
        st = tfr_einsum_plan_slice_to_fit(plan, opts.max_slice_elements);
    } else if (num_sliced > 0) {
      int32_t names[TFR_EINSUM_MAX_SLICED];
      for (int j = 0; j < num_sliced; j++) names[j] = e->names[sliced[j]];
      st = tfr_einsum_plan_slice_labels(plan, num_sliced, names);
    }
  }
  return st;
}
