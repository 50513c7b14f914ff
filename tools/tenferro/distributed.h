// `mpirun -np N tenferro contract ...`: the tool's side of tenferro_mpi
// (docs/distributed.md). Built with MPI when CMake finds it (TFR_CLI_MPI);
// otherwise every function here says MPI is not there.
//
// Under mpirun rank 0 reads the instance and plans; the others receive the
// instance's text and the plan from it, make the same operands from the
// same seeds, and contract their share of the slices. Only rank 0 prints
// (stdout of the other ranks goes to /dev/null; their stderr stays, for a
// failure of their own). A failure on one rank before the contraction ends
// the whole job with MPI_Abort after that rank's message; a failure inside
// the contraction is agreed on by every rank (tenferro/mpi.h) and rank 0
// prints it once.
#ifndef TENFERRO_TOOLS_TENFERRO_DISTRIBUTED_H_
#define TENFERRO_TOOLS_TENFERRO_DISTRIBUTED_H_

#include <stdbool.h>
#include <stddef.h>

#include "path_file.h"
#include "tenferro/tenferro.h"

// How the slices are spread (--schedule, --deterministic).
typedef struct tfr_cli_mpi_options {
  bool dynamic;        // --schedule dynamic
  bool deterministic;  // --deterministic
} tfr_cli_mpi_options;

// True when the tool was built with MPI.
bool tfr_cli_mpi_built(void);
// True when this process was started by an MPI launcher (mpirun, srun with
// PMIx: its environment says so).
bool tfr_cli_mpi_launched(void);
// Around the parsing of arguments, which every rank does alike: on a rank
// other than 0 of a launched job, stderr goes to /dev/null until
// tfr_cli_mpi_quiet_end(the returned value) (-1: nothing was changed).
int tfr_cli_mpi_quiet_begin(void);
void tfr_cli_mpi_quiet_end(int saved);
// Starts MPI (MPI_Init_thread, funneled) and silences stdout on ranks > 0.
// Returns 0, or 1 with a message on stderr (not built with MPI, or MPI
// failed to start).
int tfr_cli_mpi_start(const char *cmd);
// Whether tfr_cli_mpi_start succeeded; this rank; the number of ranks.
bool tfr_cli_mpi_active(void);
int tfr_cli_mpi_rank(void);
int tfr_cli_mpi_size(void);
// This rank among the ranks on its node (MPI_COMM_TYPE_SHARED); 0 without MPI.
int tfr_cli_mpi_local_rank(void);

// Rank 0's file text to every rank: on rank 0 `*text` / `*len` are in
// (read by the caller, NUL-terminated); on the others they are out (a new
// buffer, freed by the caller). Returns 0, or 1 after a message.
int tfr_cli_mpi_share_text(char **text, size_t *len);
// Rank 0's plan of `net` to every rank (tfr_mpi_einsum_plan_share): on rank
// 0 *plan is in, on the others out. Returns 0, or 1 after a message.
int tfr_cli_mpi_share_plan(const tfr_cli_network *net, tfr_einsum_plan **plan);
// Contracts along `plan` with the slices spread over the ranks. *out: the
// result on rank 0, NULL elsewhere. Returns 0, or 1 after rank 0 printed
// the agreed failure (every rank returns 1 then).
int tfr_cli_mpi_execute(tfr_session *session, const tfr_einsum_plan *plan,
                        const tfr_tensor *const *operands, const tfr_cli_mpi_options *options,
                        tfr_tensor **out);
// Prints (rank 0) the "ranks" line of the last tfr_cli_mpi_execute, without
// its newline.
void tfr_cli_mpi_print_report(const tfr_cli_mpi_options *options);
// Ends MPI: MPI_Finalize after success or an agreed failure, MPI_Abort
// (ending every rank) after a failure of this rank alone. Returns rc.
int tfr_cli_mpi_finish(int rc);

#endif  // TENFERRO_TOOLS_TENFERRO_DISTRIBUTED_H_
