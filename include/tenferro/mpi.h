// tenferro/mpi.h: a sliced einsum plan contracted across the ranks of an MPI
// communicator (library tenferro_mpi; built only when Open MPI's development
// files are found: the core library never depends on MPI).
//
// The network is cut into slices (tfr_einsum_plan_slice, slice_to_fit; see
// einsum.h): each slice is an independent contraction whose result is one
// block of the output, or a share of one to be added to the others. The
// ranks contract disjoint sets of slices on their own sessions (cpu threads,
// or a GPU each), then the partial outputs are combined on the root.
//
//   tfr_einsum_plan *plan = NULL;
//   if (rank == 0) { tfr_einsum_plan_create(...); tfr_einsum_plan_slice_to_fit(...); }
//   tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, subscripts, n, ranks, shapes, &plan);
//   tfr_mpi_options o = {.schedule = TFR_MPI_SCHEDULE_STATIC, .root = 0};
//   tfr_mpi_report rep;
//   tfr_mpi_plan_execute(MPI_COMM_WORLD, session, plan, operands, &o, &out, &rep);
//   // rank 0: out is the whole result; other ranks: out is NULL.
//
// Every function here is collective over `comm`: every rank calls it with
// the same arguments (the same plan, operands of the same shapes and dtype)
// and every rank returns the same status. A failure on one rank (bad input,
// out of memory, a failing slice) is reported on every rank: its status and
// message ("rank R: ...") come back from the call on all of them, so no rank
// waits forever for one that gave up. A rank that dies (a crash, a kill) is
// the MPI runtime's to detect: Open MPI's mpirun then ends the job.
//
// Messages: the functions of this header keep their own message per thread,
// read with tfr_mpi_last_error_message() (it includes the core library's
// message when a library call failed). MPI must be initialised (MPI_Init or
// MPI_Init_thread) before the first call; the calls use `comm` only from the
// calling thread (MPI_THREAD_FUNNELED is enough).
#ifndef TENFERRO_MPI_H_
#define TENFERRO_MPI_H_

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/einsum.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// How slices are assigned to ranks.
typedef enum tfr_mpi_schedule {
  // Before contracting: rank r of N takes the units (slices, blocks or
  // chunks: tfr_mpi_combination) [r U / N, (r + 1) U / N). The slices of a
  // plan have equal shapes, hence equal estimated costs (the plan's
  // sliced_flops / num_slices each), so equal counts balance the
  // estimated work. No communication while contracting.
  TFR_MPI_SCHEDULE_STATIC = 0,
  // On demand: a rank that finishes a unit takes the next one from a
  // counter on the root (an MPI one-sided fetch-and-add), so ranks of
  // unequal speed (other load, different devices) stay busy to the end.
  TFR_MPI_SCHEDULE_DYNAMIC = 1,
} tfr_mpi_schedule;

// How the ranks' partial results become the root's result. The unit of
// work a schedule hands out follows from it. B is the plan's number of
// output blocks (tfr_einsum_plan_num_blocks: the values of the sliced output
// labels), S its number of slices, N the number of ranks.
typedef enum tfr_mpi_combination {
  // Units: slices. Each rank adds its slices into one output-sized sum, and
  // MPI_Reduce adds the ranks' sums on the root (an order Open MPI chooses:
  // within rounding of the single-process result). Each rank sends the
  // output's size once.
  TFR_MPI_COMBINE_REDUCE = 0,
  // Units: blocks, B >= 2 (an output label sliced). A rank contracts every
  // slice of its blocks, adding them in slice order, and sends the root just
  // those blocks, which the root places: each rank holds and sends only its
  // share of the output, the ranks together send the output's size once.
  // Chosen when B >= N, or with `deterministic` when B >= C (below).
  TFR_MPI_COMBINE_GATHER = 1,
  // With `deterministic` when blocks are fewer than C = min(S, 64): units
  // are C chunks of consecutive slices (chunk c: slices [c S / C,
  // (c + 1) S / C)); a chunk's slices are added in slice order into a zero
  // output, and the root adds the chunks' sums in chunk order into a zero
  // result. Costs: a rank keeps its chunks' sums (each the output's size)
  // until the end, and the root receives C output-sized messages.
  TFR_MPI_COMBINE_CHUNKS = 2,
} tfr_mpi_combination;

typedef struct tfr_mpi_options {
  tfr_mpi_schedule schedule;
  // Fixes the order of every addition, independent of the number of ranks
  // and of the schedule: the combination is GATHER when B >= 2 and
  // B >= min(S, 64), else CHUNKS (choices that do not depend on N). The
  // result is then bitwise the same for 1, 2, ... ranks (and the same
  // backend). Without it: GATHER when B >= 2 and B >= N, else REDUCE.
  bool deterministic;
  // The rank that receives the result, in [0, size of comm).
  int root;
} tfr_mpi_options;

// What one execution did. Every rank fills its own fields; the fields
// marked "root" are over all ranks, filled on the root only (0 elsewhere).
typedef struct tfr_mpi_report {
  int num_ranks;
  int64_t num_slices;             // the plan's
  int64_t slices;                 // contracted by this rank
  double compute_seconds;         // this rank's time contracting its slices:
                                  // until they are done on its backend
                                  // (synchronized), less its MPI calls meanwhile
  double communication_seconds;   // this rank's time in MPI calls (scheduling,
                                  // checks, the combination of results),
                                  // waiting for other ranks included
  double bytes_sent;              // result data this rank sent
  tfr_mpi_combination combination;  // the same on every rank
  // root:
  int64_t min_slices, max_slices;         // slices per rank
  double max_compute_seconds, mean_compute_seconds;
  // mean / max of the ranks' compute_seconds: 1 when every rank worked as
  // long as the slowest (1 for one rank).
  double load_balance;
  double max_communication_seconds;
  double total_bytes_sent;                // all ranks' bytes_sent
} tfr_mpi_report;

// Gives every rank the root's plan.
//   comm, root   the communicator and the rank whose plan is shared.
//   subscripts, n, ranks, shapes
//                the network, as tfr_einsum_plan_create takes it; the same on
//                every rank.
//   plan         on the root: in, the plan to share (any path, any slicing;
//                the root keeps it). On the other ranks: out, a new plan with
//                the root's path (TFR_EINSUM_PATH_GIVEN) and sliced labels;
//                release it with tfr_einsum_plan_release. On error the other
//                ranks' *plan is NULL.
// Errors (on every rank): TFR_ERR_INVALID_ARGUMENT (NULL arguments, a bad
//         root, a NULL plan on the root, a network the root's path does not
//         fit on some rank), TFR_ERR_OUT_OF_MEMORY, TFR_ERR_INTERNAL (an MPI
//         call failed).
TFR_API TFR_NODISCARD tfr_status tfr_mpi_einsum_plan_share(MPI_Comm comm, int root,
                                                           const char *subscripts, int n,
                                                           const int *ranks,
                                                           const int64_t *const *shapes,
                                                           tfr_einsum_plan **plan);

// Contracts `operands` along `plan`, the slices spread over the ranks.
//   session   the calling thread's active session (cpu or webgpu).
//   plan      the same plan on every rank (checked: a fingerprint of the
//             path, the sliced labels and the operands' dtype and shapes is
//             compared across ranks; a difference fails on every rank).
//   operands  as tfr_einsum_plan_execute, on the session's backend; the same
//             values on every rank for the result to mean anything.
//   options   NULL for defaults (static schedule, not deterministic, root 0).
//   out       on the root: a new compact tensor on the session's backend with
//             the output's shape and the operands' dtype, equal to
//             tfr_einsum_plan_execute's result (within rounding; bitwise
//             across rank counts with `deterministic`). On the other ranks:
//             NULL.
//   report    may be NULL; filled as tfr_mpi_report says.
// A plan without slicing is one slice: the root's rank (static) or the first
// to ask (dynamic) contracts it. bool outputs are combined with OR, integers
// with wrapping addition, f16 and bf16 by the library's own add on the root
// (MPI has no such types).
// Errors (on every rank): those of tfr_einsum_plan_execute_slice on any rank,
//         as "rank R: <message>"; TFR_ERR_INVALID_ARGUMENT (NULL arguments, a
//         bad root or schedule, plans that differ between ranks);
//         TFR_ERR_OUT_OF_MEMORY; TFR_ERR_INTERNAL (an MPI call failed).
TFR_API TFR_NODISCARD tfr_status tfr_mpi_plan_execute(MPI_Comm comm, tfr_session *session,
                                                      const tfr_einsum_plan *plan,
                                                      const tfr_tensor *const *operands,
                                                      const tfr_mpi_options *options,
                                                      tfr_tensor **out, tfr_mpi_report *report);

// Collective: makes every rank agree on one status, for a caller's own
// steps that may fail on some ranks only (reading a file, allocating).
//   mine     this rank's status, TFR_OK or a failure.
//   message  this rank's message when it failed (NULL: ""); copied.
// Returns TFR_OK when every rank passed TFR_OK; otherwise, on every rank,
// the status of the lowest failing rank R, with tfr_mpi_last_error_message()
// "rank R: <R's message>" (just R's message on a one-rank communicator);
// TFR_ERR_INTERNAL when an MPI call fails.
TFR_API TFR_NODISCARD tfr_status tfr_mpi_agree_status(MPI_Comm comm, tfr_status mine,
                                                      const char *message);

// The message of the calling thread's most recent failure of a function of
// this header ("" if none). Valid until the next call on this thread.
TFR_API const char *tfr_mpi_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_MPI_H_
