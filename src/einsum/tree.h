// Contraction trees, shared by every path optimiser: the network's label
// sets, the replay of an SSA pair list (the tensors it makes, their labels
// and sizes), the tree form of a pair list and the costs of a tree.
//
// SSA pair lists: a network of n operands has tensor ids 0..n-1 for the
// operands; step k contracts the two ids ssa[2k], ssa[2k+1] (each alive:
// made before and not consumed yet) into the new id n + k. n - 1 steps
// contract everything. numpy's pair lists (positions in the shrinking list
// of operands) convert to and from it.
//
// Label sets are sorted arrays of distinct label ids: a tensor's labels are
// those of its operands still needed by a tensor outside it or the output
// (an operand keeps all its labels: the first step it enters sums the ones
// only it has), a step's flops are 2 * the product of the extents of the
// union of its pair's labels.
#ifndef TENFERRO_SRC_EINSUM_TREE_H_
#define TENFERRO_SRC_EINSUM_TREE_H_

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "einsum/einsum_impl.h"

// The network, read-only for the optimisers (threads share it).
typedef struct tfr_net {
  const tfr_einsum_expr *expr;  // the expression it was built from (tfr_ssa_cost's input)
  int n;                // operands
  int num_labels;
  const int64_t *extent;  // int64[num_labels], the expression's
  int *leaf_off;        // int[n + 1]: operand i's labels are leaf_lab[leaf_off[i] ..]
  int *leaf_lab;        // sorted distinct labels of each operand
  double *leaf_size;    // double[n]: elements
  int *total;           // int[num_labels]: operands holding l, +1 if l is an output label
  bool *is_out;         // bool[num_labels]
  int *hold_off;        // int[num_labels + 1]: the operands holding l are
  int *hold;            //   hold[hold_off[l] ..], increasing
} tfr_net;

// Builds the network of `e` (which must outlive it). Free with
// tfr_net_free, also after a failure. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_net_init(tfr_net *net, const tfr_einsum_expr *e);
void tfr_net_free(tfr_net *net);

// The result of contracting two tensors with sorted label sets `a` and `b`,
// where refs[l] counts the alive tensors holding l (+1 for an output label):
// the labels kept (held by another tensor or the output) written sorted to
// `out` (room for na + nb); returns their count. *size = the result's
// elements, *flops = 2 * the product of the extents of a ∪ b.
int tfr_labels_pair(const int *a, int na, const int *b, int nb, const int *refs,
                    const int64_t *extent, int *out, double *size, double *flops);

// A tensor of a replay.
typedef struct tfr_tnode {
  int *labels;  // sorted distinct label ids (owned)
  int count;
  double size;  // elements
  bool alive;
} tfr_tnode;

// A replay of SSA steps over the expression's operands.
typedef struct tfr_replay {
  const tfr_einsum_expr *e;
  tfr_tnode *nodes;  // SSA: n operands, then one per step
  int num_nodes;
  int *refs;         // refs[l]: alive nodes holding l, +1 if l is an output label
  int *scratch;      // int[num_labels]
} tfr_replay;

// Starts a replay with the operands alive. Free with tfr_replay_free, also
// after a failure. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_replay_init(tfr_replay *r, const tfr_einsum_expr *e);
void tfr_replay_free(tfr_replay *r);

// Contracts alive nodes a != b into a new node: *out_id its id, *size its
// elements, *flops the step's flops. Errors: TFR_ERR_INVALID_ARGUMENT when a
// or b is not an alive node (the message names `step`),
// TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_replay_contract(tfr_replay *r, int step, int a, int b, int *out_id, double *size,
                               double *flops);

// A binary tree over n leaves (the operands): internal node n + k has the
// children child[2k], child[2k + 1] (each a leaf or another internal node),
// in any order that is not necessarily a valid SSA order (the optimisers
// that build trees top-down number nodes as they go).
typedef struct tfr_tree {
  int n;
  int *child;   // int[2 * (n - 1)]
} tfr_tree;

// The tree of an SSA pair list, and back: tfr_tree_to_ssa numbers the
// internal nodes in post-order (children first, the left one's subtree
// before the right one's), which is a valid SSA order.
// tfr_tree_from_ssa checks the list: every id in range, alive when used.
// Errors: TFR_ERR_INVALID_ARGUMENT naming the step (from_ssa), or a tree
// that is not one tree over every leaf (to_ssa), TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_tree_from_ssa(int n, const int *ssa, tfr_tree *t);
tfr_status tfr_tree_to_ssa(const tfr_tree *t, int *ssa);
void tfr_tree_free(tfr_tree *t);

// numpy pair lists (positions in the current operand list, the result
// appended) from SSA steps; ssa must be valid. Errors: TFR_ERR_OUT_OF_MEMORY.
tfr_status tfr_ssa_to_positions(int n, const int *ssa, int32_t *path);

// The costs of a tree: total flops, the largest intermediate (elements,
// every step's result counted) and the sum of the intermediates' sizes.
typedef struct tfr_tree_cost {
  double flops, size, write;
} tfr_tree_cost;

// The costs of the SSA steps over the expression's operands (replayed).
// Errors: those of tfr_replay_contract (an invalid pair list).
tfr_status tfr_ssa_cost(const tfr_einsum_expr *e, const int *ssa, tfr_tree_cost *out);

// Replays the SSA steps and hands every node's label set over (ids as in
// the replay: operands, then n + k for step k): labels[i] (the caller
// tfr_frees each), count[i] and size[i] for i < 2n - 1, and flops[n + k]
// the flops of step k (flops may be NULL). On an error nothing is handed
// over. Errors: those of tfr_replay_contract (an invalid pair list).
tfr_status tfr_ssa_labels(const tfr_einsum_expr *e, const int *ssa, int **labels, int *count,
                          double *size, double *flops);

// The number the optimisers minimise for `m` (combo: flops + alpha * write).
static inline double tfr_cost_score(tfr_einsum_minimize m, double alpha, const tfr_tree_cost *c) {
  switch (m) {
    case TFR_EINSUM_MINIMIZE_SIZE: return c->size;
    case TFR_EINSUM_MINIMIZE_WRITE: return c->write;
    case TFR_EINSUM_MINIMIZE_COMBO: return c->flops + alpha * c->write;
    default: return c->flops;
  }
}

// The cost of a subtree from its two children's (ca, cb) and its own step
// (flops, size of the result), for the optimisers that build trees bottom
// up; a leaf's cost is 0. Every cost is monotone: a tree costs at least as
// much as any of its subtrees.
static inline double tfr_cost_join(tfr_einsum_minimize m, double alpha, double ca, double cb,
                                   double flops, double size) {
  switch (m) {
    case TFR_EINSUM_MINIMIZE_SIZE: return fmax(fmax(ca, cb), size);
    case TFR_EINSUM_MINIMIZE_WRITE: return ca + cb + size;
    case TFR_EINSUM_MINIMIZE_COMBO: return ca + cb + flops + alpha * size;
    default: return ca + cb + flops;
  }
}

#endif  // TENFERRO_SRC_EINSUM_TREE_H_
