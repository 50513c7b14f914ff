// tfr_mpi_plan_execute: a sliced plan's slices spread over the ranks of a
// communicator, their results combined on the root (tenferro/mpi.h).
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/mpi_impl.h"
#include "tenferro/ops.h"

// The chunks of a deterministic execution: at most this many.
enum { TFR_MPI_MAX_CHUNKS = 64 };

typedef struct tfr_mpi_run {
  MPI_Comm comm;
  int rank, size, root;
  tfr_session *session;
  const tfr_einsum_plan *plan;
  const tfr_tensor *const *operands;
  tfr_dtype dtype;
  int out_rank;
  int64_t out_shape[TFR_MAX_RANK];
  int64_t num_slices;
  int64_t blocks;            // the plan's output blocks
  tfr_mpi_combination how;
  int64_t units;             // slices, blocks or chunks (tfr_mpi_combination)
  // GATHER: this rank's blocks, each its slices' sum, in the order taken.
  int64_t num_mine, cap_mine;
  int64_t *mine_id;
  tfr_tensor **mine_sum;
  double comm_seconds;
  double compute_seconds;
  int64_t slices_done;
  double bytes_sent;
  MPI_Win counter_win;       // dynamic schedule: the root's next unit
  int64_t *counter;
} tfr_mpi_run;

static double tfr_mpi_now(void) { return MPI_Wtime(); }

// A tensor of zeros of the output's shape on the session's backend.
static tfr_status tfr_mpi_zeros(const tfr_mpi_run *r, tfr_tensor **out) {
  tfr_tensor *h = NULL;
  tfr_status st = tfr_tensor_zeros_host(r->dtype, r->out_rank, r->out_shape, &h);
  if (st == TFR_OK) st = tfr_upload(r->session, h, out);
  tfr_tensor_release(h);
  return st == TFR_OK ? TFR_OK : tfr_mpi_fail_lib(st, "a zero output");
}

// acc += part (OR for bool), in place; both of the output's shape or `acc`
// a view of the block.
static tfr_status tfr_mpi_add_into(const tfr_mpi_run *r, tfr_tensor *acc, const tfr_tensor *part) {
  tfr_binary_op op = r->dtype == TFR_BOOL ? TFR_OR : TFR_ADD;
  tfr_status st = tfr_binary_into(r->session, op, acc, part, acc);
  return st == TFR_OK ? TFR_OK : tfr_mpi_fail_lib(st, "adding a partial result");
}

// Contracts slice k and adds its block into `acc` (the output's shape).
static tfr_status tfr_mpi_slice_into(tfr_mpi_run *r, int64_t k, tfr_tensor *acc) {
  int64_t start[TFR_MAX_RANK], limit[TFR_MAX_RANK];
  tfr_tensor *block = NULL, *view = NULL;
  tfr_status st = tfr_einsum_plan_execute_slice(r->session, r->plan, r->operands, k, start, &block);
  if (st != TFR_OK) return tfr_mpi_fail_lib(st, "contracting a slice");
  const int64_t *bs = tfr_tensor_shape(block);
  for (int a = 0; a < r->out_rank; a++) limit[a] = start[a] + bs[a];
  st = tfr_tensor_view_slice(acc, start, limit, NULL, &view);
  if (st != TFR_OK) st = tfr_mpi_fail_lib(st, "the block of a slice");
  else st = tfr_mpi_add_into(r, view, block);
  tfr_tensor_release(view);
  tfr_tensor_release(block);
  if (st == TFR_OK) r->slices_done++;
  return st;
}

// The slices of unit u of U: [u S / U, (u + 1) S / U) - one slice, block
// u's slices or chunk u's (S, U < 2^63: computed without overflow as
// S / U * u plus the remainder's share).
static void tfr_mpi_unit_slices(const tfr_mpi_run *r, int64_t u, int64_t *first, int64_t *end) {
  int64_t S = r->num_slices, U = r->units;
  int64_t q = S / U, rem = S % U;
  *first = q * u + (rem * u) / U;
  *end = q * (u + 1) + (rem * (u + 1)) / U;
}

// GATHER: contracts block b's slices [first, end), summed in slice order
// into a tensor of the block's shape, kept as this rank's.
static tfr_status tfr_mpi_block(tfr_mpi_run *r, int64_t b, int64_t first, int64_t end) {
  if (r->num_mine == r->cap_mine) {
    int64_t cap = r->cap_mine ? 2 * r->cap_mine : 16;
    int64_t *id = realloc(r->mine_id, sizeof *id * (size_t)cap);
    if (id) r->mine_id = id;
    tfr_tensor **sum = id ? realloc(r->mine_sum, sizeof *sum * (size_t)cap) : NULL;
    if (!sum) return tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
    r->mine_sum = sum;
    r->cap_mine = cap;
  }
  tfr_tensor *sum = NULL;
  tfr_status st = TFR_OK;
  for (int64_t k = first; k < end && st == TFR_OK; k++) {
    int64_t start[TFR_MAX_RANK];
    tfr_tensor *part = NULL;
    st = tfr_einsum_plan_execute_slice(r->session, r->plan, r->operands, k, start, &part);
    if (st != TFR_OK) st = tfr_mpi_fail_lib(st, "contracting a slice");
    // One slice: its result as it is (only read). More: a copy of the
    // first, which the others add into (the result may share an operand's
    // storage).
    else if (end - first == 1) sum = part, part = NULL;
    else if (!sum && (st = tfr_copy(r->session, part, &sum)) != TFR_OK)
      st = tfr_mpi_fail_lib(st, "a block's sum");
    else if (sum != NULL && k > first) st = tfr_mpi_add_into(r, sum, part);
    tfr_tensor_release(part);
    if (st == TFR_OK) r->slices_done++;
  }
  if (st != TFR_OK) {
    tfr_tensor_release(sum);
    return st;
  }
  r->mine_id[r->num_mine] = b;
  r->mine_sum[r->num_mine++] = sum;
  return TFR_OK;
}

// The next unit this rank contracts, or -1 when none is left.
static tfr_status tfr_mpi_next_unit(tfr_mpi_run *r, tfr_mpi_schedule schedule, int64_t *next,
                                    int64_t *u) {
  if (schedule == TFR_MPI_SCHEDULE_STATIC) {
    // Rank r's units: [r U / N, (r + 1) U / N), computed as in the chunks.
    int64_t U = r->units, N = r->size, q = U / N, rem = U % N;
    int64_t first = q * r->rank + (rem * r->rank) / N;
    int64_t end = q * (r->rank + 1) + (rem * (r->rank + 1)) / N;
    if (*next < first) *next = first;
    *u = *next < end ? (*next)++ : -1;
    return TFR_OK;
  }
  double t0 = tfr_mpi_now();
  int64_t one = 1, got = -1;
  int e = MPI_Win_lock(MPI_LOCK_SHARED, r->root, 0, r->counter_win);
  if (e == MPI_SUCCESS) e = MPI_Fetch_and_op(&one, &got, MPI_INT64_T, r->root, 0, MPI_SUM, r->counter_win);
  if (e == MPI_SUCCESS) e = MPI_Win_unlock(r->root, r->counter_win);
  r->comm_seconds += tfr_mpi_now() - t0;
  if (e != MPI_SUCCESS) return tfr_mpi_call_failed("MPI_Fetch_and_op (dynamic schedule)", e);
  *u = got < r->units ? got : -1;
  return TFR_OK;
}

// FNV-1a over bytes.
static uint64_t tfr_mpi_hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

// Fails on every rank unless every rank has the same plan and operand shapes.
static tfr_status tfr_mpi_check_same(tfr_mpi_run *r, int n) {
  uint64_t h = 14695981039346656037ull;
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(r->plan);
  int32_t sliced[TFR_EINSUM_MAX_SLICED];
  int ns = tfr_einsum_plan_sliced_labels(r->plan, sliced);
  h = tfr_mpi_hash(h, &info->num_steps, sizeof info->num_steps);
  if (info->num_steps > 0)
    h = tfr_mpi_hash(h, tfr_einsum_plan_path(r->plan), sizeof(int32_t) * 2 * (size_t)info->num_steps);
  h = tfr_mpi_hash(h, &ns, sizeof ns);
  h = tfr_mpi_hash(h, sliced, sizeof(int32_t) * (size_t)ns);
  h = tfr_mpi_hash(h, &r->num_slices, sizeof r->num_slices);
  h = tfr_mpi_hash(h, &info->flops, sizeof info->flops);
  h = tfr_mpi_hash(h, &r->out_rank, sizeof r->out_rank);
  h = tfr_mpi_hash(h, r->out_shape, sizeof(int64_t) * (size_t)r->out_rank);
  h = tfr_mpi_hash(h, &n, sizeof n);
  for (int i = 0; i < n; i++) {
    tfr_dtype d = tfr_tensor_dtype(r->operands[i]);
    int rk = tfr_tensor_rank(r->operands[i]);
    h = tfr_mpi_hash(h, &d, sizeof d);
    h = tfr_mpi_hash(h, &rk, sizeof rk);
    if (rk > 0) h = tfr_mpi_hash(h, tfr_tensor_shape(r->operands[i]), sizeof(int64_t) * (size_t)rk);
  }
  uint64_t both[2] = {h, ~h}, most[2];
  double t0 = tfr_mpi_now();
  int e = MPI_Allreduce(both, most, 2, MPI_UINT64_T, MPI_MAX, r->comm);
  r->comm_seconds += tfr_mpi_now() - t0;
  if (e != MPI_SUCCESS) return tfr_mpi_call_failed("MPI_Allreduce (plan check)", e);
  if (most[0] != h || ~most[1] != h)
    return tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT,
                        "tfr_mpi_plan_execute: the ranks hold different plans or operand shapes "
                        "(share one with tfr_mpi_einsum_plan_share)");
  return TFR_OK;
}

// The MPI type that adds (ORs, for bool) the dtype's elements exactly as
// the library does, or MPI_DATATYPE_NULL (f16, bf16: no MPI type).
static MPI_Datatype tfr_mpi_type(tfr_dtype d, MPI_Op *op) {
  *op = d == TFR_BOOL ? MPI_BOR : MPI_SUM;
  switch (d) {
    // Signed integers as unsigned ones: two's complement wrapping sums are
    // the same bits, without signed overflow.
    case TFR_BOOL: case TFR_I8: case TFR_U8: return MPI_UINT8_T;
    case TFR_I16: case TFR_U16: return MPI_UINT16_T;
    case TFR_I32: case TFR_U32: return MPI_UINT32_T;
    case TFR_I64: case TFR_U64: return MPI_UINT64_T;
    case TFR_F32: return MPI_FLOAT;
    case TFR_F64: return MPI_DOUBLE;
    case TFR_C64: return MPI_C_FLOAT_COMPLEX;
    case TFR_C128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
  }
}

// A host copy of `t` (the session's), compact; *data points at its bytes.
static tfr_status tfr_mpi_host(const tfr_mpi_run *r, const tfr_tensor *t, tfr_tensor **host,
                               void **data) {
  tfr_status st = tfr_download(r->session, t, host);
  if (st == TFR_OK && !tfr_tensor_is_contiguous(*host)) {
    tfr_tensor *c = NULL;
    // A cpu session: the download is `t` itself, which may be a view.
    st = tfr_copy(r->session, *host, &c);
    tfr_tensor_release(*host);
    *host = c;
  }
  if (st == TFR_OK) st = tfr_tensor_host_data(*host, data);
  if (st != TFR_OK) {
    tfr_tensor_release(*host);
    *host = NULL;
    return tfr_mpi_fail_lib(st, "reading a partial result");
  }
  return TFR_OK;
}

// `bytes` of the root's buffer as a tensor of the output's shape on the
// session's backend (a copy).
static tfr_status tfr_mpi_from_bytes(const tfr_mpi_run *r, const void *bytes, tfr_tensor **out) {
  tfr_tensor *h = NULL;
  tfr_status st = tfr_tensor_from_host(r->dtype, r->out_rank, r->out_shape, bytes, &h);
  if (st == TFR_OK) st = tfr_upload(r->session, h, out);
  tfr_tensor_release(h);
  return st == TFR_OK ? TFR_OK : tfr_mpi_fail_lib(st, "a received partial result");
}

static size_t tfr_mpi_out_bytes(const tfr_mpi_run *r) {
  size_t n = tfr_dtype_size(r->dtype);
  for (int a = 0; a < r->out_rank; a++) n *= (size_t)r->out_shape[a];
  return n;
}

// MPI counts are int: a message of more than 2^30 bytes (a reduction of
// more than 2^30 elements) goes in pieces; an empty one is one empty piece.
enum { TFR_MPI_PIECE = 1 << 30 };

static size_t tfr_mpi_pieces(size_t n) { return n ? (n - 1) / TFR_MPI_PIECE + 1 : 1; }

// Piece p of n units: its offset and length.
static size_t tfr_mpi_piece(size_t n, size_t p, size_t *len) {
  size_t off = p * (size_t)TFR_MPI_PIECE;
  *len = n - off < (size_t)TFR_MPI_PIECE ? n - off : (size_t)TFR_MPI_PIECE;
  return off;
}

// Sends `bytes` of `buf` in pieces; with `buf` NULL as many empty pieces (a
// rank that has nothing to send still unblocks the receiver).
static int tfr_mpi_send(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm) {
  char none = 0;
  for (size_t p = 0, len; p < tfr_mpi_pieces(bytes); p++) {
    size_t off = tfr_mpi_piece(bytes, p, &len);
    int e = buf ? MPI_Send((const char *)buf + off, (int)len, MPI_BYTE, dest, tag, comm)
                : MPI_Send(&none, 0, MPI_BYTE, dest, tag, comm);
    if (e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

static int tfr_mpi_recv(void *buf, size_t bytes, int src, int tag, MPI_Comm comm) {
  for (size_t p = 0, len; p < tfr_mpi_pieces(bytes); p++) {
    size_t off = tfr_mpi_piece(bytes, p, &len);
    int e = MPI_Recv((char *)buf + off, (int)len, MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

// On the root: receives a partial result from `src` (tag `tag`) into `buf`
// and adds it into `res`, unless `st` already failed; the message is
// received either way, so that no rank stays blocked in its send. Returns
// the updated status.
static tfr_status tfr_mpi_recv_add(tfr_mpi_run *r, tfr_tensor *res, char *buf, int src, int tag,
                                   tfr_status st) {
  int e = tfr_mpi_recv(buf, tfr_mpi_out_bytes(r), src, tag, r->comm);
  if (e != MPI_SUCCESS) return st == TFR_OK ? tfr_mpi_call_failed("MPI_Recv (partial result)", e) : st;
  tfr_tensor *part = NULL;
  if (st == TFR_OK) st = tfr_mpi_from_bytes(r, buf, &part);
  if (st == TFR_OK) st = tfr_mpi_add_into(r, res, part);
  tfr_tensor_release(part);
  return st;
}

// Deterministic combination: each chunk's sum, in chunk order, added on the
// root into a zero result. chunk_owner[c]: the rank that holds chunk c's
// sum; mine[c]: this rank's sum of chunk c (NULL for others' chunks).
static tfr_status tfr_mpi_combine_chunks(tfr_mpi_run *r, const int *chunk_owner, tfr_tensor **mine,
                                         tfr_tensor **out) {
  size_t bytes = tfr_mpi_out_bytes(r);
  double t0 = tfr_mpi_now();
  tfr_tensor *res = NULL;
  char *buf = NULL;
  tfr_status st = TFR_OK;
  if (r->rank == r->root) {
    st = tfr_mpi_zeros(r, &res);
    if (st == TFR_OK && !(buf = malloc(bytes ? bytes : 1)))
      st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
  }
  // Nothing is sent unless the root can receive it all.
  st = tfr_mpi_agree(r->comm, st);
  if (st != TFR_OK) {
    tfr_tensor_release(res);
    free(buf);
    return st;
  }
  for (int64_t c = 0; c < r->units && r->rank != r->root; c++) {
    if (!mine[c]) continue;
    tfr_tensor *h = NULL;
    void *data = NULL;
    tfr_status hs = tfr_mpi_host(r, mine[c], &h, &data);
    // A rank that cannot read its sum still sends (empty pieces), so that
    // the root is not left waiting; the status travels in the agreement
    // after.
    int e = tfr_mpi_send(hs == TFR_OK ? data : NULL, bytes, r->root, (int)c, r->comm);
    if (hs != TFR_OK && st == TFR_OK) st = hs;
    else if (hs == TFR_OK && e == MPI_SUCCESS) r->bytes_sent += (double)bytes;
    if (e != MPI_SUCCESS && st == TFR_OK) st = tfr_mpi_call_failed("MPI_Send (chunk)", e);
    tfr_tensor_release(h);
  }
  for (int64_t c = 0; r->rank == r->root && c < r->units; c++) {
    if (chunk_owner[c] != r->rank) st = tfr_mpi_recv_add(r, res, buf, chunk_owner[c], (int)c, st);
    else if (st == TFR_OK) st = tfr_mpi_add_into(r, res, mine[c]);
  }
  free(buf);
  r->comm_seconds += tfr_mpi_now() - t0;
  if (st != TFR_OK) tfr_tensor_release(res), res = NULL;
  *out = res;
  return st;
}

// Plain combination: every rank's sum of its slices, added by MPI_Reduce
// (or, for f16 and bf16, received and added on the root in rank order).
static tfr_status tfr_mpi_combine_sums(tfr_mpi_run *r, tfr_tensor *acc, tfr_tensor **out) {
  if (r->size == 1) {
    tfr_tensor_retain(acc);
    *out = acc;
    return TFR_OK;
  }
  size_t bytes = tfr_mpi_out_bytes(r), elem = tfr_dtype_size(r->dtype), count = bytes / elem;
  MPI_Op op;
  MPI_Datatype type = tfr_mpi_type(r->dtype, &op);
  tfr_tensor *h = NULL, *res = NULL;
  void *data = NULL;
  char *recv = NULL;
  double t0 = tfr_mpi_now();
  tfr_status st = tfr_mpi_host(r, acc, &h, &data);
  if (st == TFR_OK && r->rank == r->root) {
    if (!(recv = malloc(bytes ? bytes : 1)))
      st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
    else if (type == MPI_DATATYPE_NULL && (st = tfr_copy(r->session, acc, &res)) != TFR_OK)
      st = tfr_mpi_fail_lib(st, "copying the root's partial result");
  }
  // Nothing is sent unless every rank has its bytes and the root its buffer.
  st = tfr_mpi_agree(r->comm, st);
  if (st == TFR_OK && type != MPI_DATATYPE_NULL) {
    for (size_t p = 0, n; st == TFR_OK && p < tfr_mpi_pieces(count); p++) {
      size_t off = tfr_mpi_piece(count, p, &n);
      int e = MPI_Reduce((char *)data + off * elem, recv ? recv + off * elem : NULL, (int)n, type, op,
                         r->root, r->comm);
      if (e != MPI_SUCCESS) st = tfr_mpi_call_failed("MPI_Reduce (partial results)", e);
    }
    if (r->rank != r->root) r->bytes_sent += (double)bytes;
    if (st == TFR_OK && r->rank == r->root) st = tfr_mpi_from_bytes(r, recv, &res);
  } else if (st == TFR_OK && r->rank != r->root) {
    int e = tfr_mpi_send(data, bytes, r->root, 0, r->comm);
    if (e != MPI_SUCCESS) st = tfr_mpi_call_failed("MPI_Send (partial result)", e);
    r->bytes_sent += (double)bytes;
  } else if (st == TFR_OK) {
    // f16, bf16: the root adds the others' sums in rank order.
    for (int src = 0; src < r->size; src++)
      if (src != r->root) st = tfr_mpi_recv_add(r, res, recv, src, 0, st);
  }
  free(recv);
  tfr_tensor_release(h);
  r->comm_seconds += tfr_mpi_now() - t0;
  if (st == TFR_OK && r->rank == r->root) *out = res;
  else tfr_tensor_release(res);
  return st;
}

// On the root: places block b, `bytes` of the block's shape (or the tensor
// `sum` when bytes is NULL), into the result.
static tfr_status tfr_mpi_place(tfr_mpi_run *r, tfr_tensor *res, int64_t b, const void *bytes,
                                const tfr_tensor *sum) {
  int64_t start[TFR_MAX_RANK], shape[TFR_MAX_RANK], limit[TFR_MAX_RANK];
  tfr_tensor *h = NULL, *part = NULL, *view = NULL;
  tfr_status st = tfr_einsum_plan_slice_block(r->plan, b * (r->num_slices / r->blocks), start, shape);
  for (int a = 0; a < r->out_rank; a++) limit[a] = start[a] + shape[a];
  if (st == TFR_OK) st = tfr_tensor_view_slice(res, start, limit, NULL, &view);
  if (st == TFR_OK && bytes) st = tfr_tensor_from_host(r->dtype, r->out_rank, shape, bytes, &h);
  if (st == TFR_OK && bytes) st = tfr_upload(r->session, h, &part);
  if (st == TFR_OK) st = tfr_copy_into(r->session, bytes ? part : sum, view);
  tfr_tensor_release(view);
  tfr_tensor_release(part);
  tfr_tensor_release(h);
  return st == TFR_OK ? TFR_OK : tfr_mpi_fail_lib(st, "placing a block");
}

// GATHER: every rank sends its blocks (their numbers, then their values
// packed in that order) to the root, which places them in rank order.
static tfr_status tfr_mpi_combine_gather(tfr_mpi_run *r, tfr_tensor **out) {
  size_t block_bytes = tfr_mpi_out_bytes(r) / (size_t)r->blocks;
  int64_t *counts = NULL, most = 0;
  int64_t *ids = NULL;
  char *pack = NULL;
  tfr_tensor *res = NULL;
  double t0 = tfr_mpi_now();
  tfr_status st = TFR_OK;
  bool root = r->rank == r->root;
  if (root && !(counts = malloc(sizeof *counts * (size_t)r->size)))
    st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
  st = tfr_mpi_agree(r->comm, st);
  int e = st == TFR_OK ? MPI_Gather(&r->num_mine, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, r->root, r->comm)
                       : MPI_SUCCESS;
  if (e != MPI_SUCCESS) st = tfr_mpi_call_failed("MPI_Gather (block counts)", e);
  if (st != TFR_OK) {
    free(counts);
    return st;
  }
  // The root: its result and room for the largest rank's blocks. The
  // others: their blocks packed, each released once copied.
  for (int i = 0; root && i < r->size; i++)
    if (i != r->root && counts[i] > most) most = counts[i];
  int64_t n = root ? most : r->num_mine;
  if (root) st = tfr_mpi_zeros(r, &res);
  if (st == TFR_OK && (!(ids = malloc(sizeof *ids * (size_t)(n ? n : 1))) ||
                       !(pack = malloc(block_bytes * (size_t)n + 1))))
    st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
  for (int64_t i = 0; !root && st == TFR_OK && i < r->num_mine; i++) {
    tfr_tensor *h = NULL;
    void *data = NULL;
    st = tfr_mpi_host(r, r->mine_sum[i], &h, &data);
    if (st == TFR_OK) memcpy(pack + block_bytes * (size_t)i, data, block_bytes);
    ids[i] = r->mine_id[i];
    tfr_tensor_release(h);
    tfr_tensor_release(r->mine_sum[i]);
    r->mine_sum[i] = NULL;
  }
  // Nothing is sent unless every rank has packed and the root has room.
  st = tfr_mpi_agree(r->comm, st);
  if (st == TFR_OK && !root) {
    e = tfr_mpi_send(ids, sizeof *ids * (size_t)r->num_mine, r->root, 1, r->comm);
    if (e == MPI_SUCCESS) e = tfr_mpi_send(pack, block_bytes * (size_t)r->num_mine, r->root, 2, r->comm);
    if (e != MPI_SUCCESS) st = tfr_mpi_call_failed("MPI_Send (blocks)", e);
    r->bytes_sent += (double)(block_bytes * (size_t)r->num_mine);
  } else if (st == TFR_OK) {
    for (int src = 0; src < r->size; src++) {
      if (src == r->root) {
        for (int64_t i = 0; st == TFR_OK && i < r->num_mine; i++)
          st = tfr_mpi_place(r, res, r->mine_id[i], NULL, r->mine_sum[i]);
        continue;
      }
      // Received whatever happened before, so that no rank stays blocked.
      e = tfr_mpi_recv(ids, sizeof *ids * (size_t)counts[src], src, 1, r->comm);
      if (e == MPI_SUCCESS) e = tfr_mpi_recv(pack, block_bytes * (size_t)counts[src], src, 2, r->comm);
      if (e != MPI_SUCCESS && st == TFR_OK) st = tfr_mpi_call_failed("MPI_Recv (blocks)", e);
      for (int64_t i = 0; st == TFR_OK && i < counts[src]; i++) {
        if (ids[i] < 0 || ids[i] >= r->blocks)
          st = tfr_mpi_fail(TFR_ERR_INTERNAL, "tfr_mpi_plan_execute: rank %d sent block %" PRId64, src, ids[i]);
        else st = tfr_mpi_place(r, res, ids[i], pack + block_bytes * (size_t)i, NULL);
      }
    }
  }
  free(counts);
  free(ids);
  free(pack);
  r->comm_seconds += tfr_mpi_now() - t0;
  if (st == TFR_OK && root) *out = res;
  else tfr_tensor_release(res);
  return st;
}

// The report's root fields, from every rank's own.
static tfr_status tfr_mpi_fill_report(tfr_mpi_run *r, tfr_mpi_report *rep) {
  memset(rep, 0, sizeof *rep);
  rep->num_ranks = r->size;
  rep->num_slices = r->num_slices;
  rep->slices = r->slices_done;
  rep->compute_seconds = r->compute_seconds;
  rep->communication_seconds = r->comm_seconds;
  rep->bytes_sent = r->bytes_sent;
  rep->combination = r->how;
  double mine[4] = {(double)r->slices_done, r->compute_seconds, r->comm_seconds, r->bytes_sent};
  double *all = NULL;
  if (r->rank == r->root && !(all = malloc(sizeof(double) * 4 * (size_t)r->size)))
    return tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory (report)");
  int e = MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, r->root, r->comm);
  if (e != MPI_SUCCESS) {
    free(all);
    return tfr_mpi_call_failed("MPI_Gather (report)", e);
  }
  if (all) {
    rep->min_slices = INT64_MAX;
    double sum = 0;
    for (int i = 0; i < r->size; i++) {
      int64_t s = (int64_t)all[4 * i];
      if (s < rep->min_slices) rep->min_slices = s;
      if (s > rep->max_slices) rep->max_slices = s;
      if (all[4 * i + 1] > rep->max_compute_seconds) rep->max_compute_seconds = all[4 * i + 1];
      if (all[4 * i + 2] > rep->max_communication_seconds) rep->max_communication_seconds = all[4 * i + 2];
      sum += all[4 * i + 1];
      rep->total_bytes_sent += all[4 * i + 3];
    }
    rep->mean_compute_seconds = sum / r->size;
    rep->load_balance = rep->max_compute_seconds > 0 ? rep->mean_compute_seconds / rep->max_compute_seconds : 1.0;
    free(all);
  }
  return TFR_OK;
}

tfr_status tfr_mpi_plan_execute(MPI_Comm comm, tfr_session *session, const tfr_einsum_plan *plan,
                                const tfr_tensor *const *operands, const tfr_mpi_options *options,
                                tfr_tensor **out, tfr_mpi_report *report) {
  tfr_mpi_options o = {TFR_MPI_SCHEDULE_STATIC, false, 0};
  if (options) o = *options;
  if (out) *out = NULL;
  tfr_mpi_run r;
  memset(&r, 0, sizeof r);
  r.comm = comm;
  int e;
  if ((e = MPI_Comm_rank(comm, &r.rank)) != MPI_SUCCESS || (e = MPI_Comm_size(comm, &r.size)) != MPI_SUCCESS)
    return tfr_mpi_call_failed("MPI_Comm_rank", e);
  // Arguments: every rank checks its own, then all agree.
  tfr_status st = TFR_OK;
  int n = 0;
  if (o.root < 0 || o.root >= r.size)
    st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_plan_execute: root %d is not a rank (size %d)",
                      o.root, r.size);
  else if (o.schedule != TFR_MPI_SCHEDULE_STATIC && o.schedule != TFR_MPI_SCHEDULE_DYNAMIC)
    st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_plan_execute: unknown schedule %d", (int)o.schedule);
  else if (!session || !plan || !operands || !out)
    st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_plan_execute: NULL argument");
  else {
    // The operand count is the path's steps + 1.
    n = tfr_einsum_plan_info(plan)->num_steps + 1;
    for (int i = 0; i < n && st == TFR_OK; i++)
      if (!operands[i]) st = tfr_mpi_fail(TFR_ERR_INVALID_ARGUMENT, "tfr_mpi_plan_execute: operand %d is NULL", i);
  }
  st = tfr_mpi_agree(comm, st);
  if (st != TFR_OK) return st;
  r.root = o.root;
  r.session = session;
  r.plan = plan;
  r.operands = operands;
  r.dtype = tfr_tensor_dtype(operands[0]);
  r.out_rank = tfr_einsum_plan_output_shape(plan, r.out_shape);
  r.num_slices = tfr_einsum_plan_num_slices(plan);
  r.blocks = tfr_einsum_plan_num_blocks(plan);
  // The combination (tfr_mpi_combination): with `deterministic`, a choice
  // that does not depend on the number of ranks.
  int64_t chunks = r.num_slices < TFR_MPI_MAX_CHUNKS ? r.num_slices : TFR_MPI_MAX_CHUNKS;
  if (r.blocks >= 2 && r.blocks >= (o.deterministic ? chunks : r.size)) r.how = TFR_MPI_COMBINE_GATHER;
  else r.how = o.deterministic ? TFR_MPI_COMBINE_CHUNKS : TFR_MPI_COMBINE_REDUCE;
  r.units = r.how == TFR_MPI_COMBINE_GATHER ? r.blocks
            : r.how == TFR_MPI_COMBINE_CHUNKS ? chunks : r.num_slices;
  if ((st = tfr_mpi_check_same(&r, n)) != TFR_OK) return st;
  double t0 = tfr_mpi_now();
  if (o.schedule == TFR_MPI_SCHEDULE_DYNAMIC) {
    e = MPI_Win_allocate(r.rank == r.root ? (MPI_Aint)sizeof(int64_t) : 0, (int)sizeof(int64_t),
                         MPI_INFO_NULL, comm, &r.counter, &r.counter_win);
    if (e != MPI_SUCCESS) return tfr_mpi_call_failed("MPI_Win_allocate (dynamic schedule)", e);
    if (r.rank == r.root) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r.root, 0, r.counter_win);
      *r.counter = 0;
      MPI_Win_unlock(r.root, r.counter_win);
    }
    e = MPI_Barrier(comm);
    if (e != MPI_SUCCESS) {
      MPI_Win_free(&r.counter_win);
      return tfr_mpi_call_failed("MPI_Barrier", e);
    }
  }
  r.comm_seconds += tfr_mpi_now() - t0;

  // Contract this rank's units: into one sum (REDUCE), one sum per chunk
  // (CHUNKS) or one per block (GATHER).
  tfr_tensor *acc = NULL;
  tfr_tensor **chunk_sum = NULL;
  int *chunk_owner = NULL;
  if (r.how == TFR_MPI_COMBINE_CHUNKS) {
    chunk_sum = calloc((size_t)(r.units ? r.units : 1), sizeof *chunk_sum);
    chunk_owner = calloc((size_t)(r.units ? r.units : 1), sizeof *chunk_owner);
    if (!chunk_sum || !chunk_owner) st = tfr_mpi_fail(TFR_ERR_OUT_OF_MEMORY, "tfr_mpi_plan_execute: out of memory");
  } else if (r.how == TFR_MPI_COMBINE_REDUCE) {
    st = tfr_mpi_zeros(&r, &acc);
  }
  // Compute time: until this rank's slices are done on the device (an
  // asynchronous backend only queues them in the loop), less the loop's
  // MPI calls (the dynamic schedule's).
  double loop_start = tfr_mpi_now(), loop_comm = r.comm_seconds;
  int64_t next = 0, u = -1;
  while (st == TFR_OK) {
    st = tfr_mpi_next_unit(&r, o.schedule, &next, &u);
    if (st != TFR_OK || u < 0) break;
    int64_t first, end;
    tfr_mpi_unit_slices(&r, u, &first, &end);
    if (r.how == TFR_MPI_COMBINE_GATHER) {
      st = tfr_mpi_block(&r, u, first, end);
      continue;
    }
    tfr_tensor *into = acc;
    if (r.how == TFR_MPI_COMBINE_CHUNKS) {
      st = tfr_mpi_zeros(&r, &chunk_sum[u]);
      into = chunk_sum[u];
    }
    for (int64_t k = first; k < end && st == TFR_OK; k++) st = tfr_mpi_slice_into(&r, k, into);
  }
  if (o.schedule == TFR_MPI_SCHEDULE_DYNAMIC) {
    // Collective: every rank reaches it, failed or not.
    double t1 = tfr_mpi_now();
    MPI_Win_free(&r.counter_win);
    r.comm_seconds += tfr_mpi_now() - t1;
  }
  if (st == TFR_OK) {
    st = tfr_session_synchronize(session);
    if (st != TFR_OK) st = tfr_mpi_fail_lib(st, "contracting the slices");
  }
  r.compute_seconds = tfr_mpi_now() - loop_start - (r.comm_seconds - loop_comm);
  double t2 = tfr_mpi_now();
  st = tfr_mpi_agree(comm, st);
  if (st == TFR_OK && r.how == TFR_MPI_COMBINE_CHUNKS) {
    // Who holds each chunk: every rank marks its own, the maximum wins.
    for (int64_t c = 0; c < r.units; c++) chunk_owner[c] = chunk_sum[c] ? r.rank : -1;
    e = MPI_Allreduce(MPI_IN_PLACE, chunk_owner, (int)r.units, MPI_INT, MPI_MAX, comm);
    if (e != MPI_SUCCESS) st = tfr_mpi_call_failed("MPI_Allreduce (chunk owners)", e);
  }
  r.comm_seconds += tfr_mpi_now() - t2;
  tfr_tensor *res = NULL;
  if (st == TFR_OK) {
    st = r.how == TFR_MPI_COMBINE_CHUNKS   ? tfr_mpi_combine_chunks(&r, chunk_owner, chunk_sum, &res)
         : r.how == TFR_MPI_COMBINE_GATHER ? tfr_mpi_combine_gather(&r, &res)
                                           : tfr_mpi_combine_sums(&r, acc, &res);
    st = tfr_mpi_agree(comm, st);
  }
  tfr_mpi_report rep;
  if (st == TFR_OK) st = tfr_mpi_agree(comm, tfr_mpi_fill_report(&r, &rep));
  if (st == TFR_OK && report) *report = rep;
  tfr_tensor_release(acc);
  for (int64_t c = 0; chunk_sum && c < r.units; c++) tfr_tensor_release(chunk_sum[c]);
  free(chunk_sum);
  free(chunk_owner);
  for (int64_t i = 0; i < r.num_mine; i++) tfr_tensor_release(r.mine_sum[i]);
  free(r.mine_sum);
  free(r.mine_id);
  if (st != TFR_OK) {
    tfr_tensor_release(res);
    return st;
  }
  if (r.rank == r.root) *out = res;
  else tfr_tensor_release(res);
  return TFR_OK;
}
