// Internal helpers of tenferro_mpi (src/mpi): this library's messages and
// the agreement of every rank on one status.
#ifndef TFR_MPI_IMPL_H_
#define TFR_MPI_IMPL_H_

#include "tenferro/mpi.h"

// Sets the calling thread's message (printf format) and returns `status`.
tfr_status tfr_mpi_fail(tfr_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
// As tfr_mpi_fail with the core library's last message appended:
// "<what>: <tfr_last_error_message()>".
tfr_status tfr_mpi_fail_lib(tfr_status status, const char *what);

// Collective: every rank passes its own status (TFR_OK or a failure whose
// message tfr_mpi_fail set). Returns TFR_OK when every rank passed TFR_OK;
// otherwise every rank returns the status of the lowest failing rank, with
// the message "rank R: <that rank's message>". A failing MPI call makes it
// return TFR_ERR_INTERNAL.
tfr_status tfr_mpi_agree(MPI_Comm comm, tfr_status mine);

// TFR_ERR_INTERNAL with the MPI error string, for a failing MPI call `what`.
tfr_status tfr_mpi_call_failed(const char *what, int mpi_error);

#endif  // TFR_MPI_IMPL_H_
