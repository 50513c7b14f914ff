// The tool under mpirun: tenferro_mpi's calls, or, in a build without MPI,
// the message that it is not there (distributed.h).
#include "distributed.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#ifdef TFR_CLI_MPI
#include "tenferro/mpi.h"
#endif

// This process's rank as its launcher's environment gives it, or NULL when
// no launcher started it: Open MPI's mpirun sets OMPI_COMM_WORLD_RANK, PMIx
// launchers (srun, prterun) PMIX_RANK, MPICH's hydra PMI_RANK.
static const char *tfr_cli_mpi_env_rank(void) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMIX_RANK");
  if (!r) r = getenv("PMI_RANK");
  return r;
}

bool tfr_cli_mpi_launched(void) { return tfr_cli_mpi_env_rank() != NULL; }

int tfr_cli_mpi_quiet_begin(void) {
  // Under a launcher, every rank parses the same arguments: only rank 0
  // (as the launcher's environment numbers it) reports a bad one.
  const char *r = tfr_cli_mpi_env_rank();
  if (!r || strcmp(r, "0") == 0) return -1;
  fflush(stderr);
  int saved = dup(2), null = open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0 || dup2(null, 2) < 0) {
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return -1;
  }
  close(null);
  return saved;
}

void tfr_cli_mpi_quiet_end(int saved) {
  if (saved < 0) return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

#ifdef TFR_CLI_MPI

static bool g_active;
static int g_rank, g_size, g_local_rank;
static tfr_mpi_report g_report;

bool tfr_cli_mpi_built(void) { return true; }
bool tfr_cli_mpi_active(void) { return g_active; }
int tfr_cli_mpi_rank(void) { return g_rank; }
int tfr_cli_mpi_size(void) { return g_active ? g_size : 1; }
int tfr_cli_mpi_local_rank(void) { return g_active ? g_local_rank : 0; }

int tfr_cli_mpi_start(const char *cmd) {
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "tenferro %s: MPI_Init_thread failed\n", cmd);
    return 1;
  }
  // Errors come back as codes (and become messages), not MPI's abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  // The rank among those of this node (sharing its memory).
  MPI_Comm node;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_rank(node, &g_local_rank);
    MPI_Comm_free(&node);
  }
  g_active = true;
  if (g_rank != 0 && !freopen("/dev/null", "w", stdout)) {
    fprintf(stderr, "tenferro %s: rank %d: cannot silence stdout\n", cmd, g_rank);
    return 1;
  }
  return 0;
}

int tfr_cli_mpi_share_text(char **text, size_t *len) {
  uint64_t n = g_rank == 0 ? (uint64_t)*len : 0;
  if (MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
    fprintf(stderr, "tenferro contract: rank %d: MPI_Bcast of the instance failed\n", g_rank);
    return 1;
  }
  if (g_rank != 0) {
    *text = malloc((size_t)n + 1);
    *len = (size_t)n;
    if (!*text) {
      fprintf(stderr, "tenferro contract: rank %d: out of memory for the instance\n", g_rank);
      return 1;
    }
    (*text)[n] = '\0';
  }
  for (uint64_t off = 0; off < n; off += 1u << 30) {
    int piece = (int)(n - off < (1u << 30) ? n - off : (1u << 30));
    if (MPI_Bcast(*text + off, piece, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
      fprintf(stderr, "tenferro contract: rank %d: MPI_Bcast of the instance failed\n", g_rank);
      return 1;
    }
  }
  return 0;
}

int tfr_cli_mpi_share_plan(const tfr_cli_network *net, tfr_einsum_plan **plan) {
  tfr_status st = tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, net->subscripts, net->n, net->ranks,
                                            net->shapes, plan);
  if (st == TFR_OK) return 0;
  // Agreed on every rank: rank 0 says it.
  if (g_rank == 0) fprintf(stderr, "tenferro contract: sharing the plan: %s\n", tfr_mpi_last_error_message());
  return 1;
}

static bool g_agreed_failure;

int tfr_cli_mpi_execute(tfr_session *session, const tfr_einsum_plan *plan,
                        const tfr_tensor *const *operands, const tfr_cli_mpi_options *options,
                        tfr_tensor **out) {
  tfr_mpi_options o = {options->dynamic ? TFR_MPI_SCHEDULE_DYNAMIC : TFR_MPI_SCHEDULE_STATIC,
                       options->deterministic, 0};
  tfr_status st = tfr_mpi_plan_execute(MPI_COMM_WORLD, session, plan, operands, &o, out, &g_report);
  if (st == TFR_OK) return 0;
  g_agreed_failure = true;
  if (g_rank == 0) fprintf(stderr, "tenferro contract: %s\n", tfr_mpi_last_error_message());
  return 1;
}

void tfr_cli_mpi_print_report(const tfr_cli_mpi_options *options) {
  const tfr_mpi_report *r = &g_report;
  printf("ranks     %d, schedule %s%s: slices per rank %" PRId64 "-%" PRId64 " of %" PRId64
         ", load balance %.3f (compute max %.3f ms, mean %.3f ms), communication max %.3f ms, "
         "%.3f MiB of results sent (%s)",
         r->num_ranks, options->dynamic ? "dynamic" : "static",
         options->deterministic ? ", deterministic" : "", r->min_slices, r->max_slices, r->num_slices,
         r->load_balance, r->max_compute_seconds * 1e3, r->mean_compute_seconds * 1e3,
         r->max_communication_seconds * 1e3, r->total_bytes_sent / 1048576.0,
         r->combination == TFR_MPI_COMBINE_GATHER   ? "blocks gathered"
         : r->combination == TFR_MPI_COMBINE_CHUNKS ? "chunks added in order"
                                                    : "reduced");
}

int tfr_cli_mpi_finish(int rc) {
  if (!g_active) return rc;
  g_active = false;
  if (rc != 0 && !g_agreed_failure) {
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  MPI_Finalize();
  return rc;
}

#else  // !TFR_CLI_MPI

bool tfr_cli_mpi_built(void) { return false; }
bool tfr_cli_mpi_active(void) { return false; }
int tfr_cli_mpi_rank(void) { return 0; }
int tfr_cli_mpi_size(void) { return 1; }
int tfr_cli_mpi_local_rank(void) { return 0; }

int tfr_cli_mpi_start(const char *cmd) {
  fprintf(stderr,
          "tenferro %s: this build has no MPI (configure with Open MPI's development files, "
          "Debian's libopenmpi-dev, to run under mpirun or use --schedule / --deterministic)\n",
          cmd);
  return 1;
}

int tfr_cli_mpi_share_text(char **text, size_t *len) { return 1; }
int tfr_cli_mpi_share_plan(const tfr_cli_network *net, tfr_einsum_plan **plan) { return 1; }
int tfr_cli_mpi_execute(tfr_session *session, const tfr_einsum_plan *plan,
                        const tfr_tensor *const *operands, const tfr_cli_mpi_options *options,
                        tfr_tensor **out) {
  return 1;
}
void tfr_cli_mpi_print_report(const tfr_cli_mpi_options *options) {}
int tfr_cli_mpi_finish(int rc) { return rc; }

#endif  // TFR_CLI_MPI
