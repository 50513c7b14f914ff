// tenferro_mpi's messages and the agreement of all ranks on one status.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_impl.h"

enum { TFR_MPI_MESSAGE_BYTES = 1024 };

static _Thread_local char tfr_mpi_message[TFR_MPI_MESSAGE_BYTES];

const char *tfr_mpi_last_error_message(void) { return tfr_mpi_message; }

tfr_status tfr_mpi_fail(tfr_status status, const char *fmt, ...) {
  char buf[TFR_MPI_MESSAGE_BYTES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  memcpy(tfr_mpi_message, buf, sizeof buf);
  return status;
}

tfr_status tfr_mpi_fail_lib(tfr_status status, const char *what) {
  return tfr_mpi_fail(status, "%s: %s", what, tfr_last_error_message());
}

tfr_status tfr_mpi_call_failed(const char *what, int mpi_error) {
  char err[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_error, err, &len) != MPI_SUCCESS) snprintf(err, sizeof err, "error %d", mpi_error);
  return tfr_mpi_fail(TFR_ERR_INTERNAL, "%s failed: %s", what, err);
}

tfr_status tfr_mpi_agree(MPI_Comm comm, tfr_status mine) {
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return tfr_mpi_fail(TFR_ERR_INTERNAL, "MPI_Comm_rank failed");
  // The lowest failing rank: minimise (failed ? rank : size) over the ranks.
  int size = 1;
  MPI_Comm_size(comm, &size);
  int candidate = mine != TFR_OK ? rank : size, first = size;
  int e = MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
  if (e != MPI_SUCCESS) return tfr_mpi_call_failed("MPI_Allreduce (status)", e);
  if (first == size) return TFR_OK;
  // That rank's status and message go to every rank.
  struct {
    int status;
    char message[TFR_MPI_MESSAGE_BYTES];
  } what;
  memset(&what, 0, sizeof what);
  if (rank == first) {
    what.status = (int)mine;
    snprintf(what.message, sizeof what.message, "%s", tfr_mpi_message);
  }
  e = MPI_Bcast(&what, (int)sizeof what, MPI_BYTE, first, comm);
  if (e != MPI_SUCCESS) return tfr_mpi_call_failed("MPI_Bcast (status)", e);
  what.message[sizeof what.message - 1] = '\0';
  if (size == 1) return tfr_mpi_fail((tfr_status)what.status, "%s", what.message);
  return tfr_mpi_fail((tfr_status)what.status, "rank %d: %s", first, what.message);
}

tfr_status tfr_mpi_agree_status(MPI_Comm comm, tfr_status mine, const char *message) {
  if (mine != TFR_OK) tfr_mpi_fail(mine, "%s", message ? message : "");
  return tfr_mpi_agree(comm, mine);
}
