// tfr_mpi_einsum_plan_share: the root's path and sliced labels, sent to
// every rank and made into the same plan there.
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

tfr_status tfr_mpi_einsum_plan_share(MPI_Comm comm, int root, const char *subscripts, int n,
                                     const int *ranks, const int64_t *const *shapes,
                                     tfr_einsum_plan **plan) {
  int rank = 0, size = 0, e;
  if ((e = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS || (e = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
    return tfr_mpi_call_failed("MPI_Comm_rank", e);
  if (root < 0 || root >= size)
    return tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT,
                        "tfr_mpi_einsum_plan_share: root %d is not a rank of the communicator "
                        "(size %d)", root, size);
  tfr_status st = TFR_OK;
  if (!plan || !subscripts || n < 1 || !ranks || !shapes)
    st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_einsum_plan_share: NULL argument or n < 1");
  else if (rank == root && !*plan)
    st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_einsum_plan_share: the root's plan is NULL");
  if (plan && rank != root) *plan = NULL;
  // The root's message: [num_steps, num_sliced, path pairs..., sliced labels...].
  int32_t head[2] = {0, 0};
  int32_t *body = NULL;
  if (st == TFR_OK && rank == root) {
    const tfr_einsum_path_info *info = tfr_einsum_plan_info(*plan);
    int32_t sliced[TFR_EINSUM_MAX_SLICED];
    head[0] = info->num_steps;
    head[1] = tfr_einsum_plan_sliced_labels(*plan, sliced);
    body = malloc(sizeof(int32_t) * (size_t)(2 * head[0] + head[1] + 1));
    if (!body) {
      st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_einsum_plan_share: out of memory");
    } else {
      if (head[0] > 0) memcpy(body, tfr_einsum_plan_path(*plan), sizeof(int32_t) * (size_t)(2 * head[0]));
      memcpy(body + 2 * head[0], sliced, sizeof(int32_t) * (size_t)head[1]);
    }
  }
  st = tfr_mpi_agree(comm, st);
  if (st != TFR_OK) {
    free(body);
    return st;
  }
  if ((e = MPI_Bcast(head, 2, MPI_INT32_T, root, comm)) != MPI_SUCCESS) {
    free(body);
    return tfr_mpi_call_failed("MPI_Bcast (plan)", e);
  }
  int count = 2 * head[0] + head[1];
  if (rank != root) {
    body = malloc(sizeof(int32_t) * (size_t)(count + 1));
    st = body ? TFR_OK : tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_einsum_plan_share: out of memory");
  }
  // Every rank takes part in the broadcast (a rank without a buffer
  // receives into a scratch word it ignores).
  int32_t scratch = 0;
  int32_t *buf = body ? body : &scratch;
  if ((e = MPI_Bcast(buf, body ? count : 0, MPI_INT32_T, root, comm)) != MPI_SUCCESS) {
    free(body);
    return tfr_mpi_call_failed("MPI_Bcast (plan)", e);
  }
  tfr_einsum_plan *made = NULL;
  if (st == TFR_OK && rank != root) {
    tfr_einsum_options o;
    memset(&o, 0, sizeof o);
    o.path_kind = TFR_EINSUM_PATH_GIVEN;
    o.path = body;
    o.path_len = head[0];
    tfr_status ls = tfr_einsum_plan_create(subscripts, n, ranks, shapes, &o, &made);
    if (ls == TFR_OK && head[1] > 0) ls = tfr_einsum_plan_slice_labels(made, head[1], body + 2 * head[0]);
    if (ls != TFR_OK) st = tfr_mpi_fail_lib(ls, "the root's plan on this rank");
  }
  free(body);
  st = tfr_mpi_agree(comm, st);
  if (st != TFR_OK) {
    tfr_einsum_plan_release(made);
    return st;
  }
  if (rank != root) *plan = made;
  return TFR_OK;
}
