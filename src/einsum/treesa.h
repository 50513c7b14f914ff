// TreeSA (TFR_EINSUM_PATH_TREESA): simulated annealing on the contraction
// tree by local rotations, several seeded runs over the OpenMP threads.
#ifndef TENFERRO_SRC_EINSUM_TREESA_H_
#define TENFERRO_SRC_EINSUM_TREESA_H_

#include "einsum/tree.h"

// Temperature steps of one run (inverse temperatures rising linearly from
// TFR_TREESA_BETA_LO times 1, 4 or 16 (run r % 3) to TFR_TREESA_BETA_HI),
// each of n - 1 proposals.
#define TFR_TREESA_SWEEPS 400
#define TFR_TREESA_BETA_LO 0.5
#define TFR_TREESA_BETA_HI 20.0
// Random-greedy trials that pick the start tree.
#define TFR_TREESA_START_TRIALS 8

// Anneals the tree of `net` and writes the SSA steps of the best tree found
// to ssa (int[2 * (n - 1)]). The start tree is the best of
// TFR_TREESA_START_TRIALS random-greedy trials (seed o->seed; trial 0 is
// the plain greedy). o->trials runs (> 0) each anneal it from there: a
// proposal picks an internal node v with an internal child (a b) and the
// other child c, and rotates to (a c) b or (b c) a; it is accepted by the
// Metropolis rule on the change of log2 of the two steps' local cost in
// o->minimize (flops, the larger size, the written size, or combo with
// o->combo_alpha; for size, plus TFR_TREESA_SIZE_FLOPS_WEIGHT (treesa.c)
// times the flops' log2 change, which breaks the plateaus of the max); odd
// runs anneal on flops whatever o->minimize is, still keeping their best
// tree in o->minimize. Run r draws from a generator seeded by (o->seed, r); the
// best tree of each run (checked after every temperature step) is kept, and
// the best over runs wins, ties to the lowest run, so a seed gives the same
// tree on any number of threads (unless o->max_time stops runs early). The
// winner is refined by tfr_subtree_refine with o->subtree_size leaves
// (TFR_EINSUM_DEFAULT_SUBTREE when 0). Never worse than the start tree in
// o->minimize. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_treesa(const tfr_net *net, const tfr_einsum_options *o, int *ssa);

// tfr_treesa's annealing and refinement from the start tree given in ssa
// (valid SSA steps for net's operands) instead of random-greedy's; writes
// the best tree found there, never worse than the start in o->minimize.
// o->max_time counts from t0 (a tfr_path_now time). Errors:
// TFR_ERR_OUT_OF_MEMORY, TFR_ERR_INVALID_ARGUMENT for an invalid start.
tfr_status tfr_treesa_anneal(const tfr_net *net, const tfr_einsum_options *o, double t0,
                             int *ssa);

#endif  // TENFERRO_SRC_EINSUM_TREESA_H_
