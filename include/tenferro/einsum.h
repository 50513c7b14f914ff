// tenferro/einsum.h: einsum and tensor-network contraction.
//
// Grammar and semantics are numpy's `einsum`: "ij,jk->ik"; implicit output
// ("ij,jk" = the labels that appear exactly once, in code-point order);
// ellipsis "..." for the axes the labels leave unnamed, right-aligned across
// operands with numpy's broadcasting (extent 1 against n); repeated labels in
// one operand take a diagonal ("ii->i"; the repeated axes must have equal
// extents, as numpy requires: extent 1 broadcasts only against another
// operand's axis), a label absent from the output is
// summed over ("ii->" is the trace), and so are the ellipsis axes when the
// output has no "..." ("...i->i" sums all but the last axis; numpy 1.24
// refuses that string). Bool operands follow numpy's logical einsum: the
// result is bool, a product is AND and a sum is OR. Labels are any
// Unicode characters (the string is UTF-8) other than ',', '-', '>', '.' and
// white space; real networks use hundreds of distinct labels. An interface
// with integer labels avoids strings entirely.
//
// Execution is pairwise along a contraction path (numpy / opt_einsum's
// "pair list": each step names two positions in the current operand list;
// both are removed and their result appended). Each step is one dot_general
// (labels kept by both operands become batch dims), preceded only by the
// diagonals and sums it needs; the final result is transposed only when the
// output order requires it. Every op goes through the public op API, so the
// contraction runs on the session's backend.
//
// Plans split the costly part (parsing, path search) from execution:
//   tfr_einsum_plan *p;
//   tfr_einsum_plan_create("ab,bc,cd->ad", 3, shapes_ranks, shapes, NULL, &p);
//   tfr_einsum_plan_execute(session, p, operands, &out);   // any number of times
//   tfr_einsum_plan_release(p);
// tfr_einsum_plan_profile executes a plan as tfr_einsum_plan_execute does and
// says where the time went: each op by kind (GEMM, batched GEMM, GEMV, dot,
// outer product, multiply, transpose, reduce), shapes, time, flops, bytes.
#ifndef TENFERRO_EINSUM_H_
#define TENFERRO_EINSUM_H_

#include <stdbool.h>
#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// How the contraction path is chosen (docs/paths.md describes each
// optimiser and the costs it minimises). Every optimiser returns a binary
// contraction tree over all operands; all are deterministic for a given
// tfr_einsum_options.seed.
typedef enum tfr_einsum_path_kind {
  // Greedy: repeatedly contracts the pair with the best (smallest) cost,
  // where cost = size of the result minus the sizes of the two inputs
  // (opt_einsum's greedy heuristic), ties broken by flops, then by the
  // pair's tensor ids (operands 0..n-1, then each step's result). Only
  // pairs sharing a label are candidates; when none is left the remaining
  // tensors are joined by outer products, the two smallest first. A
  // priority queue of candidate pairs, updated as pairs are contracted:
  // about O(n log n) for n operands of bounded rank. Ignores `minimize`.
  TFR_EINSUM_PATH_GREEDY = 0,
  // Optimal for the cost `minimize`: exhaustive search over all binary
  // trees (subset dynamic programming, 3^n / 2 splits); only for up to
  // TFR_EINSUM_OPTIMAL_MAX operands.
  TFR_EINSUM_PATH_OPTIMAL = 1,
  // The caller's pair list (tfr_einsum_options.path).
  TFR_EINSUM_PATH_GIVEN = 2,
  // Random greedy: `trials` greedy runs, the first the plain greedy above,
  // the others with a random weight c in [0.5, 2] of the inputs' sizes in
  // the cost (size of the result - c * sizes of the inputs) and a
  // Boltzmann choice among the 8 best candidate pairs at each step:
  // probability proportional to exp(-(cost - best) / (T * max(|best|, 1))),
  // T log-uniform in [0.001, 1] (the randomisation of opt_einsum's and
  // cotengra's RandomGreedy); odd trials also leave pairs that share only
  // output labels (batch indices) to the end. Trial t draws from a
  // generator seeded by (seed, t), trials run in parallel on the OpenMP
  // threads, and the tree
  // with the least `minimize` cost wins, ties to the lowest trial: the same
  // result for a seed whatever the thread count (unless max_time stops the
  // trials early).
  TFR_EINSUM_PATH_RANDOM_GREEDY = 3,
  // Dynamic programming over connected subsets (opt_einsum's
  // DynamicProgramming): for each connected component (operands linked by
  // labels that are not output labels), every subset built from two
  // disjoint subsets that share such a label, by increasing size, whose
  // cost stays below a cap; the cap starts at the component's result size
  // and is multiplied by the component's smallest extent (at least 2)
  // until the whole component is reached, so the tree found is optimal for
  // `minimize` among trees whose every step shares a non-output label.
  // Networks of at most TFR_EINSUM_DP_OUTER_MAX operands are searched with
  // every pair (outer products too) as one component: then the tree is
  // optimal over all binary trees (as TFR_EINSUM_PATH_OPTIMAL). Components
  // are joined by outer products, the smallest first. Practical to a few
  // dozen operands per component (the subsets under the cap can grow
  // exponentially); at most 64, and max_time bounds the search.
  TFR_EINSUM_PATH_DP = 4,
  // Simulated annealing on the contraction tree (TreeSA, as tenferro-rs):
  // the start tree is the best of a few random-greedy trials; `trials`
  // independent runs (0: TFR_EINSUM_DEFAULT_TREESA_RUNS), run r seeded by
  // (seed, r), each lower the temperature over a fixed schedule while
  // proposing local rotations of the tree ((a b) c -> (a c) b or (b c) a at
  // a random step), accepted by the Metropolis rule on the change of log2
  // of the two steps' cost in `minimize` (for size, half the flops' change
  // is added). The best tree over the runs wins
  // (ties to the lowest run: the same tree for a seed on any number of
  // threads, unless max_time stops runs early) and is refined by subtree
  // reconfiguration (subtree_size leaves, TFR_EINSUM_DEFAULT_SUBTREE when
  // 0). Never worse than its start tree (so than greedy's) in `minimize`.
  // With max_time, no run starts and no temperature step is taken after it.
  TFR_EINSUM_PATH_TREESA = 5,
  // The hyper-optimiser: greedy; then dp on networks of up to
  // TFR_EINSUM_DP_OUTER_MAX operands (its tree is optimal and ends the
  // search); then partition on networks of more than 12 operands (8 trials,
  // with a quarter of the time left); then rounds of treesa (8 runs each,
  // new seeds) for the rest of the budget (max_time; 0:
  // TFR_EINSUM_AUTO_DEFAULT_TIME), with dp between the first and second
  // rounds on networks of up to 256 operands (with half the time left; dp
  // refuses components of more than TFR_EINSUM_DP_MAX operands); with
  // minimize size every other round is 32 trials of partition instead (new
  // seeds). It keeps the tree of the least `minimize` cost (never worse
  // than greedy's; at an equal cost the one of fewer flops). It
  // stops early once the best tree's estimated contraction time (its flops
  // at 10 GFLOP/s) is below the time already spent searching, so a small
  // einsum costs no more than a greedy pass. Deterministic for a seed when
  // it is not stopped by the budget (then it depends on the machine's
  // speed). What tfr_einsum and tfr_einsum_plan_create use when `options`
  // is NULL.
  TFR_EINSUM_PATH_AUTO = 6,
  // Recursive graph bisection (as cotengra's partitioned trees, with METIS
  // as the partitioner): the operands are split in two by
  // METIS_PartGraphRecursive on the graph whose vertices are the operands
  // and whose edges join operands sharing a label (weight about 16 *
  // log2(extent) per shared label; a label held by k operands adds a clique
  // of weight / (k - 1), or a ring beyond 16 holders), each half is split
  // again until a part has at most `cutoff` (6..10) operands, which is then
  // contracted by its tree of least `minimize` cost (as
  // TFR_EINSUM_PATH_OPTIMAL, its labels that leave the part counted as
  // kept); a set that METIS cannot split (no shared label) is contracted by
  // greedy, and the two halves of a split are joined by one step. `trials`
  // trees (0: TFR_EINSUM_DEFAULT_PARTITION_TRIALS) are built, trial 0 with
  // cutoff 8 and imbalance 10% (METIS's ufactor 100), trial t > 0 with a
  // cutoff, an imbalance (ufactor log-uniform in 10..500) and METIS seeds
  // drawn from a generator seeded by (seed, t); trials run in parallel on
  // the OpenMP threads and the tree of least `minimize` cost wins (ties to
  // the lowest trial: the same tree for a seed on any number of threads,
  // unless max_time stops the trials early), refined by subtree
  // reconfiguration (subtree_size leaves, TFR_EINSUM_DEFAULT_SUBTREE when
  // 0), and replaced by greedy's tree when that costs less: never worse
  // than greedy in `minimize`. Suited to large networks (lattices, random
  // regular graphs), where the cut structure matters more than local
  // choices; weak on long strips (a 20 x 250 lattice), where balanced
  // halves each keep two long boundaries.
  TFR_EINSUM_PATH_PARTITION = 7,
} tfr_einsum_path_kind;

// The cost an optimiser minimises (tfr_einsum_options.minimize), over the
// steps of a tree. Sizes are element counts (times the dtype's size for
// bytes); a step's flops are 2 * the product of the extents of every label
// of its pair (as tfr_einsum_path_info.flops).
typedef enum tfr_einsum_minimize {
  TFR_EINSUM_MINIMIZE_FLOPS = 0,  // total flops
  TFR_EINSUM_MINIMIZE_SIZE = 1,   // the largest intermediate
  TFR_EINSUM_MINIMIZE_WRITE = 2,  // the sum of the intermediates' sizes
  // flops + combo_alpha * write (cotengra's "combo"; alpha 64 by default)
  TFR_EINSUM_MINIMIZE_COMBO = 3,
} tfr_einsum_minimize;

// The most operands TFR_EINSUM_PATH_OPTIMAL accepts.
#define TFR_EINSUM_OPTIMAL_MAX 12
// The most operands TFR_EINSUM_PATH_DP searches with outer products.
#define TFR_EINSUM_DP_OUTER_MAX 12
// The most operands of one connected component TFR_EINSUM_PATH_DP takes.
#define TFR_EINSUM_DP_MAX 64
// Random greedy trials when tfr_einsum_options.trials is 0.
#define TFR_EINSUM_DEFAULT_TRIALS 64
// TreeSA runs when tfr_einsum_options.trials is 0 and the path is treesa.
#define TFR_EINSUM_DEFAULT_TREESA_RUNS 8
// Partition trials when tfr_einsum_options.trials is 0 and the path is partition.
#define TFR_EINSUM_DEFAULT_PARTITION_TRIALS 16
// Subtree reconfiguration's leaves inside treesa and partition when
// subtree_size is 0.
#define TFR_EINSUM_DEFAULT_SUBTREE 8
// The largest tfr_einsum_options.subtree_size.
#define TFR_EINSUM_SUBTREE_MAX 16
// TFR_EINSUM_PATH_AUTO's search budget in seconds when max_time is 0.
#define TFR_EINSUM_AUTO_DEFAULT_TIME 3.0
// combo's alpha when tfr_einsum_options.combo_alpha is 0.
#define TFR_EINSUM_DEFAULT_COMBO_ALPHA 64.0

// Options; zero-initialised means greedy path, no memory limit (NULL options
// mean the auto path). Fields are only ever added at the end.
typedef struct tfr_einsum_options {
  tfr_einsum_path_kind path_kind;
  // For TFR_EINSUM_PATH_GIVEN: int32[2 * path_len] pairs of positions in the
  // current operand list (numpy/opt_einsum format); path_len = n - 1 for n
  // operands (0 for one operand). Borrowed for the call.
  const int32_t *path;
  int path_len;
  // Refuse a plan whose largest intermediate has more than this many
  // elements (0: no limit other than TFR_MAX_NUMEL).
  int64_t max_intermediate_elements;
  // Called after each pairwise step of tfr_einsum_plan_execute with the
  // number of steps done, the total, and the flops done so far (NULL: none).
  void (*progress)(void *ctx, int steps_done, int num_steps, double flops_done);
  void *progress_ctx;
  // The cost optimal, random-greedy, dp, treesa, partition and subtree
  // reconfiguration minimise (greedy ignores it).
  tfr_einsum_minimize minimize;
  // Seeds the randomised optimisers (random-greedy, treesa, partition); 0 is a
  // seed like any.
  uint64_t seed;
  // Random greedy trials (0: TFR_EINSUM_DEFAULT_TRIALS), treesa runs (0:
  // TFR_EINSUM_DEFAULT_TREESA_RUNS) or partition trials (0:
  // TFR_EINSUM_DEFAULT_PARTITION_TRIALS); negative: an error.
  int trials;
  // Seconds the search may take (0: no limit; negative or NaN: an error).
  // Random greedy starts no new trial once it is spent (its result then
  // depends on the machine's speed), treesa no new run or temperature step,
  // partition no new trial and subtree reconfiguration no new subtree
  // (likewise); dp gives up with
  // an error; greedy and optimal ignore it.
  double max_time;
  // combo's alpha (0: TFR_EINSUM_DEFAULT_COMBO_ALPHA; negative: an error).
  double combo_alpha;
  // Subtree reconfiguration after the optimiser (not for a given path): every
  // subtree of up to subtree_size leaves (the tensors where it is cut, the
  // largest intermediates expanded first) is re-contracted by the tree of
  // least `minimize` cost over those leaves (as TFR_EINSUM_PATH_OPTIMAL), when
  // that is cheaper, in passes until one improves nothing; the tree is
  // never worse for it. 0: off (treesa and partition still refine with
  // TFR_EINSUM_DEFAULT_SUBTREE); 3..TFR_EINSUM_SUBTREE_MAX: the leaves
  // (each subtree costs 3^k / 2 splits); 1 and 2 change nothing; negative or
  // above TFR_EINSUM_SUBTREE_MAX: TFR_ERR_INVALID_ARGUMENT. Bounded by
  // max_time (no subtree is started after it).
  int subtree_size;
  // The memory one slice may need, in elements (bytes / the dtype's size),
  // as tfr_einsum_path_info.sliced_peak_live_elements counts it (the
  // operands and the output held whole, the intermediates alive at the
  // worst step); 0: no limit (negative or NaN: an error). With a limit, the
  // plan comes back sliced to fit it (unsliced when its tree fits as it
  // is), and the tree and the sliced labels are searched together: the
  // optimiser's tree sliced as tfr_einsum_plan_slice_to_fit would, then
  // local moves on the labels (drop one, drop one and refill, swap one for
  // a label of a large intermediate) and rounds of treesa on the network of
  // one slice (the sliced labels' extents set to 1) whose trees are sliced
  // anew, keeping the pair of least sliced_flops that fits: never more
  // sliced flops than the optimiser's tree with slice_to_fit's labels. The
  // rounds (at most 16, and 4 per label set re-optimised without
  // improvement) take at most max_time once more after the optimiser's
  // search (without max_time: TFR_EINSUM_AUTO_DEFAULT_TIME; auto adds its
  // early stop), so the result is deterministic for a seed when the rounds
  // end before that time. A given path
  // (TFR_EINSUM_PATH_GIVEN) is only sliced, as tfr_einsum_plan_slice_to_fit
  // does. docs/paths.md, "Slicing". Errors: TFR_ERR_INVALID_ARGUMENT when no
  // slicing fits (the operands and the output alone need more, or no label
  // lowers one slice's memory any further).
  double max_slice_elements;
  // A tiny network is contracted in one loop, as numpy.einsum does without
  // a path, where its pairwise steps would cost more in per-op overhead
  // (about 0.6 us a step) than in arithmetic: 2 to 8 operands of f32, f64,
  // c64 or c128, not sliced, no progress callback, with W the product of
  // every label's extent, W x n <= 1024 x (n - 1) (complex: 1.5 W x n), on a
  // backend with host memory. The sums then run in another order than the
  // path's (results within rounding of the path's), and a profile shows one
  // sum_of_products op. true: always run the path's pairwise steps.
  bool follow_path;
} tfr_einsum_options;

// Statistics of a planned path.
typedef struct tfr_einsum_path_info {
  int num_steps;                  // pairwise contractions (n - 1, or 0)
  double flops;                   // multiply-adds counted as 2 flops, all steps
  double log10_flops;
  int64_t largest_intermediate;   // elements of the largest step result
  double log2_largest;
  // Elements alive at once at the path's worst step: every operand (the
  // caller holds them) plus the intermediates not yet consumed, the step's
  // result included (one operand, no step: the operand and the output).
  // Element count, not bytes (times the dtype's size).
  double peak_live_elements;
  // Slicing (tfr_einsum_plan_slice): the number of slices, the flops of all
  // of them together (>= flops: the overhead of slicing is sliced_flops /
  // flops) and the largest intermediate of one slice. Without slicing: 1,
  // flops and largest_intermediate.
  int64_t num_slices;
  double sliced_flops;
  int64_t sliced_largest_intermediate;
  // One slice's memory in elements: every operand (the caller holds them
  // whole), the output when the plan is sliced (the slices add up in it) and
  // the intermediates alive at the slice's worst step. Without slicing:
  // peak_live_elements.
  double sliced_peak_live_elements;
} tfr_einsum_path_info;

typedef struct tfr_einsum_plan tfr_einsum_plan;

// The optimiser called `name`: "auto", "greedy", "random-greedy", "dp",
// "optimal", "treesa", "partition" (the names of the command-line tool's --path; "random_greedy" is accepted
// too). TFR_EINSUM_PATH_GIVEN has no name.
// Errors: TFR_ERR_INVALID_ARGUMENT for NULL or an unknown name (the message
//         lists the known ones).
TFR_API TFR_NODISCARD tfr_status tfr_einsum_path_kind_from_name(const char *name,
                                                                tfr_einsum_path_kind *out);
// The name of an optimiser ("given" for TFR_EINSUM_PATH_GIVEN, "?" for a
// value out of range). Static storage.
TFR_API const char *tfr_einsum_path_kind_name(tfr_einsum_path_kind kind);
// The cost called `name`: "flops", "size", "write" or "combo".
// Errors: TFR_ERR_INVALID_ARGUMENT for NULL or an unknown name.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_minimize_from_name(const char *name,
                                                               tfr_einsum_minimize *out);
// The name of a cost ("?" for a value out of range). Static storage.
TFR_API const char *tfr_einsum_minimize_name(tfr_einsum_minimize minimize);

// Parses `subscripts`, checks it against the operand shapes and finds the path.
//   subscripts  numpy einsum string, UTF-8, NUL-terminated.
//   n           number of operands, >= 1.
//   ranks       int[n] operand ranks.   shapes  n pointers to int64[ranks[i]].
//   options     NULL for defaults (the auto path, no limit).
//   out         receives the plan; release with tfr_einsum_plan_release.
// Errors: TFR_ERR_INVALID_ARGUMENT with a message naming the position for a
//         malformed string (bad UTF-8, a stray '-' or '.', a label count that
//         differs from an operand's rank, an output label that appears in no
//         operand or twice), extents of one label that differ between axes
//         (other than 1 against n across operands; within one operand they
//         must be equal), an output of more than TFR_MAX_RANK axes (an
//         implicit output of many operands' single labels),
//         a path that does not cover every operand exactly once, too many
//         operands for the optimal search or in one component for dp, an
//         unknown path kind or cost, negative trials, max_time,
//         combo_alpha or max_slice_elements, an intermediate above the
//         limit, no slicing that fits max_slice_elements;
//         TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_create(const char *subscripts, int n,
                                                        const int *ranks,
                                                        const int64_t *const *shapes,
                                                        const tfr_einsum_options *options,
                                                        tfr_einsum_plan **out);

// As tfr_einsum_plan_create with integer labels instead of a string.
//   labels      n pointers to int32[ranks[i]]: the label of each axis (any
//               int32 values; equal values are the same index).
//   out_labels  int32[num_out]: the result's labels in order (must each appear
//               in some operand, at most once here).
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_create_labels(
    int n, const int *ranks, const int64_t *const *shapes, const int32_t *const *labels,
    int num_out, const int32_t *out_labels, const tfr_einsum_options *options,
    tfr_einsum_plan **out);

// The statistics of the plan's path (borrowed; valid while the plan lives).
TFR_API const tfr_einsum_path_info *tfr_einsum_plan_info(const tfr_einsum_plan *plan);

// The plan's path as pairs (numpy/opt_einsum format): int32[2 * num_steps],
// borrowed, valid while the plan lives.
TFR_API const int32_t *tfr_einsum_plan_path(const tfr_einsum_plan *plan);

// The output's shape: returns its rank and, when `shape` is not NULL, writes
// its extents to shape[0 .. rank-1] (room for TFR_MAX_RANK). -1 for a NULL
// plan.
TFR_API int tfr_einsum_plan_output_shape(const tfr_einsum_plan *plan, int64_t *shape);

// Whether the plan only rearranges its one operand, and how: one operand, and
// an output that keeps each of its distinct labels once, summing none (a
// transpose `ij->ji`, a diagonal `ii->i` or `iij->ji`, `...` moved). For
// these numpy.einsum returns a view of the operand (numpy >= 1.10), and
// tfr_einsum_plan_view gives one. Returns the result's rank and, when
// axis_out is not NULL, writes axis_out[k] (room for the operand's rank):
// the result's axis that the operand's axis k steps along (the axes of a
// repeated label share one, their strides summed), or -1 for an extent-1
// axis whose label is longer on another axis (broadcast: it steps along
// nothing). Returns -1 for a NULL plan or a plan that is not such a
// rearrangement (axis_out then holds nothing meaningful).
TFR_API int tfr_einsum_plan_view_axes(const tfr_einsum_plan *plan, int32_t *axis_out);

// The result of a plan for which tfr_einsum_plan_view_axes is not -1, as a view of
// `operand`: no data moved, no session needed, any backend. The view shares
// the operand's storage (writes through either show in both) and holds a
// reference to it; the caller releases *out. A repeated label's axes become
// one axis stepping by the sum of their strides (an empty operand's view gets
// zero strides); the axes are in the output's order. tfr_einsum_plan_execute
// on the same plan gives a compact copy of the same values.
//   operand  of the shape the plan was made for, any dtype.
// Errors (*out NULL): TFR_ERR_INVALID_ARGUMENT: NULL plan, operand or out; a
// plan that is not a rearrangement; an operand of another shape.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_view(const tfr_einsum_plan *plan,
                                                      const tfr_tensor *operand,
                                                      tfr_tensor **out);

// ---------------------------------------------------------------------------
// Slicing: the network is contracted once per value of the sliced labels
// (cotengra's and tenferro-rs's "slicing"), along the plan's path, each
// operand seen through a view with its sliced axes fixed; an intermediate
// then lacks the sliced labels, so the largest one shrinks by their extents
// while the total flops grow where a step no longer shares work across
// slices. A slice's result is the output's block at the fixed values of the
// sliced output labels; slices that differ only in sliced summed labels add
// into the same block (bool operands: OR). tfr_einsum_plan_execute runs all
// slices into one result; tfr_einsum_plan_execute_slice runs one, so that a
// caller can spread them over threads, devices or processes and combine
// them itself.
//
// How tfr_einsum_plan_execute runs them on the cpu backend: the slices of
// one output block (equal values of the sliced output labels) are cut into
// G contiguous groups, G = min(16 / blocks (at least 1), the block's
// slices), lowered while the G - 1 partial outputs would exceed half of
// sliced_peak_live_elements. A group sums its slices in order, the groups
// are added in order: the result is the same bit for bit for any number of
// threads (its rounding may differ from a plain slice-by-slice sum, and
// from the webgpu backend, which adds the slices one after another).
// Groups run in parallel on the backend's num_threads threads, each slice's
// ops single-threaded (OpenBLAS set to one thread meanwhile), when there
// are at least two groups, the slices are small - a slice needs at most
// 2^24 flops (sliced_flops / num_slices) or its steps at most 2^20 on
// average; larger slices run one after another, each op with the kernels'
// own threads - and the extra memory - T - 1 more slices'
// intermediates and the G - 1 partial outputs - is at most
// sliced_peak_live_elements: the parallel run needs at most twice one
// slice's memory figure (a caller that sliced to fit a tight limit slices
// to half of it, or gives the backend one thread). The progress callback
// is called from the calling thread only. A failing slice fails the whole
// execution with the error of the lowest failing group; nothing is handed
// out.
// ---------------------------------------------------------------------------

// The most labels one plan may slice.
#define TFR_EINSUM_MAX_SLICED 64

// Slices the plan over `labels`, characters of the plan's subscripts (UTF-8;
// white space ignored; "" removes the slicing). Replaces any earlier slicing
// and updates tfr_einsum_plan_info's num_slices, sliced_flops and
// sliced_largest_intermediate.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, invalid UTF-8, a label
//         that is not one of the plan's, a label listed twice, more than
//         TFR_EINSUM_MAX_SLICED labels or 2^63 slices); the plan is then
//         unchanged.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_slice(tfr_einsum_plan *plan, const char *labels);

// As tfr_einsum_plan_slice with labels as int32 values: those of
// tfr_einsum_plan_create_labels, or the code points of a string plan's
// labels (an ellipsis axis of a string plan is -1 for the first, -2, ...).
//   num  0 .. TFR_EINSUM_MAX_SLICED (0 removes the slicing).
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_slice_labels(tfr_einsum_plan *plan, int num,
                                                              const int32_t *labels);

// Slices the plan so that one slice's memory (tfr_einsum_path_info's
// sliced_peak_live_elements) is at most `max_elements` (bytes / the dtype's
// size): while it is above, one more label is sliced, among those of the
// largest intermediate alive at the slice's worst step the one that adds
// the fewest flops per memory saved (the ratio of the logarithms of the
// two factors). A plan that fits already is
// left unsliced; an earlier slicing is replaced. The executor's transposed
// copies of step operands come on top of this figure.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL plan, a limit that is not positive,
//         no slicing fits: the operands and the output alone need more, or
//         the labels run out); the plan is then unchanged.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_slice_to_fit(tfr_einsum_plan *plan,
                                                              double max_elements);

// Slices the plan further until it has at least `min_slices` slices (to
// spread them over threads, devices or processes: tenferro/mpi.h). It keeps
// its sliced labels and adds labels greedily, one at a time: each the one
// that adds the fewest sliced flops per factor of slices gained (the ratio
// of the logarithms, the factor counted up to the one still missing; ties:
// the smaller extent). Where it costs fewer flops, it stops the greedy
// sequence early and adds one label that reaches the count at once.
// Slicing more only lowers one slice's memory. A plan with enough slices is
// left as it is.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL plan, min_slices < 1, a plan with
//         no slices (a sliced label of extent 0), the labels run out or
//         TFR_EINSUM_MAX_SLICED is reached first); the plan is then unchanged.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_slice_to_count(tfr_einsum_plan *plan,
                                                                int64_t min_slices);

// The plan's sliced labels as int32 values (as tfr_einsum_plan_slice_labels
// takes them: code points for a string plan), the output's first: writes
// them to `labels` (room for TFR_EINSUM_MAX_SLICED) and returns how many (0
// without slicing or for NULL arguments).
TFR_API int tfr_einsum_plan_sliced_labels(const tfr_einsum_plan *plan, int32_t *labels);

// The number of slices: the product of the sliced labels' extents (0 when
// one is 0), 1 for a plan without slicing (0 for NULL).
TFR_API int64_t tfr_einsum_plan_num_slices(const tfr_einsum_plan *plan);

// The number of output blocks: the product of the sliced output labels'
// extents (1 when only summed labels are sliced, or without slicing; 0 when
// the plan has no slices or is NULL). The slices of one block are
// consecutive: with S slices and B blocks, block b holds slices
// [b S / B, (b + 1) S / B), which add into it; the blocks are disjoint parts
// of the output, so that a caller can gather them instead of adding.
TFR_API int64_t tfr_einsum_plan_num_blocks(const tfr_einsum_plan *plan);

// Slice k's block of the output, as tfr_einsum_plan_execute_slice gives it,
// without contracting anything.
//   out_start  int64[rank of the output]: where the block starts (the
//              slice's value of each sliced output label on its axis, 0 on
//              the other axes).
//   out_shape  NULL, or int64[rank of the output]: the block's shape (1 on
//              the sliced output axes, the output's extents elsewhere).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL plan or out_start, k outside
//         0 .. tfr_einsum_plan_num_slices - 1).
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_slice_block(const tfr_einsum_plan *plan, int64_t k,
                                                             int64_t *out_start, int64_t *out_shape);

// How many threads tfr_einsum_plan_execute runs the plan's slices on at
// once in `session` (the rule above): 2 or more when they run in parallel,
// 1 when one after another (always on a backend other than cpu, and for a
// plan without slicing); 0 for a NULL plan or a session that is not active
// on this thread.
TFR_API int tfr_einsum_plan_slice_threads(const tfr_einsum_plan *plan, tfr_session *session);

// Contracts slice k (0 <= k < tfr_einsum_plan_num_slices) of the plan.
//   operands   as tfr_einsum_plan_execute.
//   out_start  int64[rank of the output]: receives where the slice's block
//              starts in the output (the slice's value of each sliced output
//              label, 0 on the other axes).
//   out        a new tensor of the output's rank: extent 1 on the sliced
//              output axes, the output's extents elsewhere; its values are
//              the block's (all of it when no summed label is sliced, else
//              this slice's share, to be added to the others of the block).
// Errors: those of tfr_einsum_plan_execute; TFR_ERR_INVALID_ARGUMENT for k
//         out of range or a NULL out_start.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_execute_slice(tfr_session *session,
                                                               const tfr_einsum_plan *plan,
                                                               const tfr_tensor *const *operands,
                                                               int64_t k, int64_t *out_start,
                                                               tfr_tensor **out);

// Contracts `operands` along the plan.
//   operands  n tensors on the session's backend, with the shapes the plan
//             was made for, one dtype (any dtype; bool is logical: AND of
//             products, OR of sums), any strides.
//   The progress callback of the options the plan was made with is called
//   after each step (for a sliced plan: after each slice, with the slices
//   done and their number in place of the steps; with slices on several
//   threads, from the calling thread as it finishes slices, the count
//   including the other threads', and once at the end).
//   out       a new compact tensor of that dtype with the output's shape.
// Intermediates are released as soon as no later step needs them.
// Errors: TFR_ERR_INVALID_ARGUMENT (a shape differs from the plan's, dtypes
//         differ), and those of the ops it runs (e.g. TFR_ERR_UNSUPPORTED_DTYPE
//         for a dtype the session's backend does not compute).
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_execute(tfr_session *session,
                                                         const tfr_einsum_plan *plan,
                                                         const tfr_tensor *const *operands,
                                                         tfr_tensor **out);

// ---------------------------------------------------------------------------
// Profiling: where an execution's time goes. tfr_einsum_plan_profile runs
// the plan as tfr_einsum_plan_execute does and records every op the
// executor issues (each path step's dot_general or elementwise product, the
// sums and copies around it, the final transpose), classified by kind, with
// its shapes, calls, time, flops and bytes, plus totals by kind.
// ---------------------------------------------------------------------------

// The kind of an op the executor ran.
typedef enum tfr_einsum_op_kind {
  // A dot_general step (it sums over at least one label), classified from
  // its shapes: B = the product of the batch extents, M = of lhs's free
  // extents, N = of rhs's free extents, K = of the contracting extents.
  // Unbatched (B == 1): DOT when M == N == 1, GEMV when M == 1 or N == 1,
  // GEMM otherwise; with B > 1 the BATCHED_ kind of the same rule. A bool
  // step (counted in integers and converted back, einsum's logical path)
  // is the same kind, the conversions included in its time.
  TFR_EINSUM_OP_GEMM = 0,
  TFR_EINSUM_OP_BATCHED_GEMM = 1,
  TFR_EINSUM_OP_GEMV = 2,
  TFR_EINSUM_OP_BATCHED_GEMV = 3,
  TFR_EINSUM_OP_DOT = 4,
  TFR_EINSUM_OP_BATCHED_DOT = 5,
  // A step that sums over nothing, one elementwise multiply of broadcast
  // views (AND for bool): OUTER_PRODUCT when the two operands share no
  // label and both have rank > 0, MULTIPLY otherwise (Hadamard products,
  // batched outer products, a scalar times a tensor).
  TFR_EINSUM_OP_OUTER_PRODUCT = 6,
  TFR_EINSUM_OP_MULTIPLY = 7,
  // A permutation copy: an operand of a step copied into the order the
  // step reads in place, or the final result into the output's order.
  TFR_EINSUM_OP_TRANSPOSE = 8,
  // A sum of the labels only one tensor still holds (reduce_sum; for bool
  // reduce_max, an OR), before a step or on the final tensor.
  TFR_EINSUM_OP_REDUCE = 9,
  // A sliced plan's combination of slices: a slice's result copied or
  // added (OR for bool) into its block of the output.
  TFR_EINSUM_OP_ACCUMULATE = 10,
  // A tiny network (tfr_einsum_options.follow_path says which) evaluated in
  // one loop instead of its pairwise steps, as numpy.einsum does without a
  // path: M = the output's
  // elements, N = the operands, K = the terms summed per output element
  // (each N - 1 multiplies and one add). Its record's step is -1.
  TFR_EINSUM_OP_SUM_OF_PRODUCTS = 11,
  TFR_EINSUM_OP_NUM_KINDS = 12  // the number of kinds (not a kind)
} tfr_einsum_op_kind;

// The name of a kind, lower case: "gemm", "batched_gemm", "gemv",
// "batched_gemv", "dot", "batched_dot", "outer_product", "multiply",
// "transpose", "reduce", "accumulate", "sum_of_products" ("?" for a value
// out of range).
// Static storage.
TFR_API const char *tfr_einsum_op_kind_name(tfr_einsum_op_kind kind);

// Whether a kind does arithmetic worth counting in GFLOP/s (the six dot
// kinds and sum_of_products: true) or mostly moves memory, measured in GB/s
// (the others).
TFR_API bool tfr_einsum_op_kind_is_compute(tfr_einsum_op_kind kind);

// The ops of one kind with the same shapes at one path step, added up: one
// record per (step, kind, shapes). A step that copies both operands has two
// TRANSPOSE records when their sizes differ, one of 2 calls when they are
// equal; a sliced plan's slices add their ops to the same records (calls =
// slices, when each slice runs the step once).
typedef struct tfr_einsum_op_record {
  // The path step (0 .. num_steps - 1) whose ops these are, the sums and
  // copies of its operands included; -1 for the work after the last step
  // (the final sum and transpose) and the slices' accumulation.
  int step;
  tfr_einsum_op_kind kind;
  // Dot kinds: B, M, N, K of one call (see tfr_einsum_op_kind); other
  // kinds: batch = m = n = k = 1.
  int64_t batch, m, n, k;
  // Elements of one call: read (both inputs of a step, as they are held
  // before any broadcast; a reduce's or copy's input) and written (the
  // result).
  int64_t in_elements, out_elements;
  int64_t calls;   // how many ops were added up here (>= 1)
  double seconds;  // their time, all calls
  // Arithmetic of all calls: 2 * B * M * N * K per dot call (a complex
  // multiply-add counted as 2 too, as tfr_einsum_path_info.flops does);
  // M * N * K per sum_of_products call;
  // elements written for multiply and outer products; elements read for
  // reduce and accumulate; 0 for transposes.
  double flops;
  // Bytes of all calls: (in_elements + out_elements) * the dtype's size per
  // call, the traffic an ideal kernel needs (GB/s = bytes / seconds).
  double bytes;
} tfr_einsum_op_record;

// The ops of one kind over the whole execution: the sums of the calls,
// seconds, flops and bytes of that kind's records (tfr_einsum_op_record).
typedef struct tfr_einsum_op_total {
  int64_t calls;   // ops run
  double seconds;  // their time
  double flops;    // their arithmetic (GFLOP/s = flops / seconds * 1e-9)
  double bytes;    // their ideal traffic (GB/s = bytes / seconds * 1e-9)
} tfr_einsum_op_total;

// What tfr_einsum_plan_profile measured. Owned by the caller, freed with
// tfr_einsum_profile_free.
typedef struct tfr_einsum_profile {
  int num_ops;
  // num_ops records in the order of each record's first op (execution
  // order; NULL when num_ops is 0).
  tfr_einsum_op_record *ops;
  // totals[kind]: the records of each kind added up (all zero for a kind
  // that did not run).
  tfr_einsum_op_total totals[TFR_EINSUM_OP_NUM_KINDS];
  // The whole profiled execution, wall clock: the recorded ops, the
  // executor's bookkeeping between them and the allocation of a sliced
  // plan's output; at least the sum of the records' seconds.
  double seconds;
  // Slices run: tfr_einsum_plan_num_slices (1 for a plan without slicing,
  // 0 when a sliced label is empty).
  int64_t num_slices;
} tfr_einsum_profile;

// Contracts `operands` along the plan as tfr_einsum_plan_execute does (the
// same result: on the cpu backend bit for bit, a sliced plan's slices in
// the same groups and order) and records each op it runs into *profile.
//   session, plan, operands  as tfr_einsum_plan_execute.
//   profile   receives a new profile (tfr_einsum_profile_free).
//   out       receives the result, as tfr_einsum_plan_execute's.
// Timing: each op is timed on the monotonic clock; on an asynchronous
// backend (webgpu) the session is synchronized after each op
// (tfr_session_synchronize) and once before the first, so that an op's
// time is its own device work. Profiling therefore removes the overlap and
// batching the backend would otherwise do. A sliced plan's slices run one
// after another on the calling thread, in tfr_einsum_plan_execute's groups
// and order; where tfr_einsum_plan_execute would run them on several
// threads at once (tfr_einsum_plan_slice_threads > 1), each op runs
// single-threaded as it would there (so the result is the same bit for
// bit), else with the kernels' own threads. The profile's total can thus
// exceed a plain execution's time; the records say where each part goes.
// Tensor views (diagonals, broadcast axes, slices of operands) cost no
// work and are not recorded. The plan's progress callback is called as in
// tfr_einsum_plan_execute.
// Errors: those of tfr_einsum_plan_execute (TFR_ERR_INVALID_ARGUMENT for a
//         NULL plan, operands, profile or out, shapes or dtypes that differ
//         from the plan's; TFR_ERR_NO_SESSION; the ops' errors);
//         TFR_ERR_OUT_OF_MEMORY for the records; TFR_ERR_DEVICE_LOST from
//         a synchronization. On any error *profile and *out are NULL (when
//         those pointers are not NULL) and nothing is left allocated.
TFR_API TFR_NODISCARD tfr_status tfr_einsum_plan_profile(tfr_session *session,
                                                         const tfr_einsum_plan *plan,
                                                         const tfr_tensor *const *operands,
                                                         tfr_einsum_profile **profile,
                                                         tfr_tensor **out);

// Frees a profile and its records. NULL is ignored.
TFR_API void tfr_einsum_profile_free(tfr_einsum_profile *profile);

// Frees a plan. NULL is ignored.
TFR_API void tfr_einsum_plan_release(tfr_einsum_plan *plan);

// One-shot einsum: plan (with `options`), execute, release.
// Arguments and errors as the two calls.
TFR_API TFR_NODISCARD tfr_status tfr_einsum(tfr_session *session, const char *subscripts, int n,
                                            const tfr_tensor *const *operands,
                                            const tfr_einsum_options *options, tfr_tensor **out);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_EINSUM_H_
