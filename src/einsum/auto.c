// The `auto` path optimiser (einsum.h, TFR_EINSUM_PATH_AUTO): greedy, then
// dp on small networks (exact, the end), partition on networks of more than
// TFR_AUTO_PARTITION_MIN operands, then rounds of treesa for the rest of the
// time budget with dp after the first round where the network is small
// enough for it (for the largest intermediate, every other round is one of
// partition instead), keeping the tree of the least cost (`minimize`). It stops
// early once the best tree's estimated contraction time (its flops at
// TFR_AUTO_FLOP_RATE) is below the time already spent searching: a tiny
// einsum is not searched for seconds.
#include "einsum/auto.h"

#include <string.h>

#include "einsum/dp.h"
#include "einsum/greedy.h"
#include "einsum/partition.h"
#include "einsum/treesa.h"

// The contraction rate the early stop assumes: 10 GFLOP/s, the order of
// the cpu backend on two cores (bench/results/einsum_cpu.md); a faster
// device only makes the search stop later than it could.
#define TFR_AUTO_FLOP_RATE 1e10
// dp is tried on networks of at most this many operands (it refuses
// components of more than TFR_EINSUM_DP_MAX itself, and its subsets are
// bounded by the time left).
#define TFR_AUTO_DP_MAX 256
// partition is tried on networks of more than this many operands (up to it
// dp is exact), with TFR_AUTO_PARTITION_TRIALS trials and at most a
// quarter of the time left.
#define TFR_AUTO_PARTITION_MIN 12
#define TFR_AUTO_PARTITION_TRIALS 8
// partition's trials per round when the cost is the largest intermediate.
#define TFR_AUTO_PARTITION_SIZE_TRIALS 32

typedef struct tfr_auto_state {
  const tfr_einsum_expr *e;
  const tfr_einsum_options *o;
  int *best;
  size_t steps;  // ints of an SSA list
  double best_score, best_flops;
  bool have;
} tfr_auto_state;

// Keeps `cand` when it costs less than the best so far (at an equal cost,
// when it has fewer flops: trees of the same largest intermediate differ
// much in flops).
static tfr_status tfr_auto_offer(tfr_auto_state *a, const int *cand) {
  tfr_tree_cost c;
  TFR_RETURN_IF_ERROR(tfr_ssa_cost(a->e, cand, &c));
  double score = tfr_cost_score(a->o->minimize, a->o->combo_alpha, &c);
  if (!a->have || score < a->best_score || (score == a->best_score && c.flops < a->best_flops)) {
    memcpy(a->best, cand, a->steps * sizeof(int));
    a->best_score = score;
    a->best_flops = c.flops;
    a->have = true;
  }
  return TFR_OK;
}

// Whether the search may stop: the budget is spent, or the best tree would
// contract in less time than the search has taken.
static bool tfr_auto_done(const tfr_auto_state *a, double start, double budget) {
  double spent = tfr_path_now() - start;
  return spent >= budget || a->best_flops / TFR_AUTO_FLOP_RATE < spent;
}

// dp: exact per connected component; its own limits (component size,
// subsets, the time `left`) may refuse, which only means no dp tree. Sets
// *exact when its tree is optimal over all trees.
static tfr_status tfr_auto_dp(tfr_auto_state *a, const tfr_net *net, double left, int *cand,
                              bool *exact) {
  if (left <= 0) return TFR_OK;
  tfr_status d = tfr_dp(net, a->o->minimize, a->o->combo_alpha, left, cand);
  if (d == TFR_ERR_OUT_OF_MEMORY) return d;
  if (d != TFR_OK) return TFR_OK;
  *exact = *exact || net->n <= TFR_EINSUM_DP_OUTER_MAX;
  return tfr_auto_offer(a, cand);
}

tfr_status tfr_auto(const tfr_einsum_expr *e, const tfr_net *net, const tfr_einsum_options *o,
                    int *ssa) {
  double start = tfr_path_now();
  double budget = o->max_time > 0 ? o->max_time : TFR_EINSUM_AUTO_DEFAULT_TIME;
  int n = net->n;
  tfr_auto_state a = {e, o, ssa, 2 * (size_t)(n > 1 ? n - 1 : 1), 0, 0, false};
  int *cand = tfr_alloc(a.steps * sizeof(int));
  if (!cand) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (auto path search)");
  tfr_status st = tfr_greedy_run(net, &(tfr_greedy_params){1, 0, NULL, false}, cand, NULL);
  if (!st) st = tfr_auto_offer(&a, cand);
  bool exact = n <= 2;  // one tree only
  // Up to TFR_EINSUM_DP_OUTER_MAX operands dp is exact over all trees, and
  // quick: it ends the search.
  if (!st && !exact && n <= TFR_EINSUM_DP_OUTER_MAX && !tfr_auto_done(&a, start, budget)) {
    st = tfr_auto_dp(&a, net, budget - (tfr_path_now() - start), cand, &exact);
  }
  // partition: recursive bisection, cheap and strong on large networks.
  if (!st && !exact && n > TFR_AUTO_PARTITION_MIN && !tfr_auto_done(&a, start, budget)) {
    tfr_einsum_options p = *o;
    p.trials = TFR_AUTO_PARTITION_TRIALS;
    p.max_time = (budget - (tfr_path_now() - start)) / 4;
    if (p.max_time > 0) st = tfr_partition(net, &p, cand);
    if (!st && p.max_time > 0) st = tfr_auto_offer(&a, cand);
  }
  // Then treesa (annealing from the best of a few random-greedy trials,
  // refined by subtree reconfiguration) with the rest of the time, in rounds
  // of runs with new seeds, so that the early stop is checked between them.
  // dp on larger networks comes after the first round: its subsets can take
  // all the time it is given, and one round of treesa is quick.
  tfr_einsum_options r = *o;
  r.trials = TFR_EINSUM_DEFAULT_TREESA_RUNS;
  for (int round = 0; !st && !exact && !tfr_auto_done(&a, start, budget) && round < 64; round++) {
    if (round == 1 && n > TFR_EINSUM_DP_OUTER_MAX && n <= TFR_AUTO_DP_MAX) {
      st = tfr_auto_dp(&a, net, (budget - (tfr_path_now() - start)) / 2, cand, &exact);
      if (st || tfr_auto_done(&a, start, budget)) break;
    }
    r.seed = o->seed + (uint64_t)round * 0x9e3779b97f4a7c15ULL;
    r.max_time = budget - (tfr_path_now() - start);
    if (r.max_time <= 0) break;
    // For the largest intermediate treesa's local moves see little (a
    // rotation rarely changes the maximum): every other round is one of
    // partition's with new seeds, whose top-down cuts bound the sizes.
    bool part = o->minimize == TFR_EINSUM_MINIMIZE_SIZE && n > TFR_AUTO_PARTITION_MIN && round % 2;
    if (part) {
      r.trials = TFR_AUTO_PARTITION_SIZE_TRIALS;
      st = tfr_partition(net, &r, cand);
      r.trials = TFR_EINSUM_DEFAULT_TREESA_RUNS;
    } else {
      st = tfr_treesa(net, &r, cand);
    }
    if (!st) st = tfr_auto_offer(&a, cand);
  }
  tfr_free(cand);
  return st;
}
