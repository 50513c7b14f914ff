// Recursive graph bisection (TFR_EINSUM_PATH_PARTITION): METIS splits the
// network top-down, optimal (or greedy) contracts the small parts.
#ifndef TENFERRO_SRC_EINSUM_PARTITION_H_
#define TENFERRO_SRC_EINSUM_PARTITION_H_

#include "einsum/tree.h"

// Parts of at most this many operands (the trial's cutoff, which lies in
// TFR_PARTITION_CUTOFF_MIN..TFR_PARTITION_CUTOFF_MAX) are not split further
// but contracted by the tree of least cost over them (optimal.c).
#define TFR_PARTITION_CUTOFF_MIN 6
#define TFR_PARTITION_CUTOFF_MAX 10
// Trial 0's cutoff and imbalance (METIS's ufactor: a part may hold up to
// (1 + ufactor / 1000) times half the operands).
#define TFR_PARTITION_CUTOFF 8
#define TFR_PARTITION_UFACTOR 100
// The ufactor range of the other trials (log-uniform).
#define TFR_PARTITION_UFACTOR_MIN 10
#define TFR_PARTITION_UFACTOR_MAX 500
// An edge weight's scale: a label of extent d weighs round(log2(d) *
// TFR_PARTITION_WEIGHT_SCALE) + 1 (positive integers, as METIS needs).
#define TFR_PARTITION_WEIGHT_SCALE 16
// A label held by more operands of a part than this links them in a ring
// rather than a clique (whose edges grow as the square).
#define TFR_PARTITION_CLIQUE_MAX 16

// Writes to ssa (int[2 * (n - 1)]) the SSA steps of the best of o->trials
// (> 0) trees by recursive bisection: a set of operands larger than the
// cutoff is bisected by METIS_PartGraphRecursive on the graph whose vertices
// are the set's operands and whose edges join operands sharing a label
// (weighted by log2 of its extent; a label held by k operands of the set
// adds a clique of weight / (k - 1) edges, a ring beyond
// TFR_PARTITION_CLIQUE_MAX), each half is contracted recursively and the
// two results are joined by one step; a part of at most cutoff operands
// is contracted by the tree of least o->minimize cost over it (labels that
// leave the part counted as kept), and a set METIS cannot split (no edge,
// an empty side) by greedy. Trial 0 uses TFR_PARTITION_CUTOFF and
// TFR_PARTITION_UFACTOR; trial t > 0 draws the cutoff, the ufactor and
// METIS's seeds from a generator seeded by (o->seed, t). Trials run over
// the OpenMP threads (METIS itself one call at a time: its generator is
// global); the least o->minimize cost wins, ties to the lowest trial, and
// the winner is refined by tfr_subtree_refine with o->subtree_size leaves
// (TFR_EINSUM_DEFAULT_SUBTREE when 0) and replaced by greedy's tree when
// that costs less, so it is never worse than greedy in o->minimize. With
// o->max_time > 0 no trial but the first and no subtree starts after that
// many seconds. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_partition(const tfr_net *net, const tfr_einsum_options *o, int *ssa);

#endif  // TENFERRO_SRC_EINSUM_PARTITION_H_
