// The one header a backend needs: the object layouts of tensors, storages,
// backends and sessions, the backend vtable and the validated op descriptors
// the vtable receives.
//
// Flow of every op: public function (src/core/ops_*.c) -> validation
// (src/core/validate.c: checks, result dtype and shape) -> output allocation
// -> vtable entry -> kernel. Backends get validated descriptors and never
// re-check arguments.
#ifndef TENFERRO_SRC_CORE_BACKEND_IMPL_H_
#define TENFERRO_SRC_CORE_BACKEND_IMPL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "tenferro/backend.h"
#include "tenferro/fusion.h"
#include "tenferro/ops.h"
#include "tenferro/tensor.h"

// ---------------------------------------------------------------------------
// Storage and tensors
// ---------------------------------------------------------------------------

typedef struct tfr_storage {
  atomic_long refcount;
  // The backend that allocated it (retained), or NULL for memory the user
  // handed in (tfr_tensor_from_host, tfr_tensor_wrap_host).
  tfr_backend *backend;
  bool host;        // `data` is host memory, usable by the cpu backend
  void *data;       // host memory (host storages); NULL on a device
  size_t nbytes;    // usable bytes
  void *device;     // the backend's buffer object (device storages)
  size_t capacity;  // bytes actually reserved (a pool bucket), >= nbytes
  uint64_t serial;  // webgpu: the buffer's creation number (its pool's order)
  bool wrapped;            // a user buffer (tfr_tensor_wrap_host): never freed by us
  tfr_release_fn release;  // wrapped user buffers: called at the end (may be NULL)
  void *release_ctx;
} tfr_storage;

struct tfr_tensor {
  atomic_long refcount;
  tfr_storage *storage;  // retained
  tfr_dtype dtype;
  int rank;
  int64_t offset;        // in elements
  int64_t numel;
  int64_t *shape;        // points into dims[0 .. rank)
  int64_t *strides;      // points into dims[rank .. 2 rank)
  int64_t dims[];        // shape, then strides
};

// Creates a storage-less tensor header (rank, shape, strides copied; strides
// NULL = compact). Internal: no validation beyond allocation.
tfr_status tfr_tensor_header(tfr_storage *storage, tfr_dtype dtype, int rank,
                             const int64_t *shape, const int64_t *strides, int64_t offset,
                             tfr_tensor **out);

// Allocates a compact tensor of `dtype` and `shape` on `backend` (host
// memory when backend is NULL). `zero` fills it with zero bytes.
tfr_status tfr_tensor_alloc(tfr_backend *backend, tfr_dtype dtype, int rank,
                            const int64_t *shape, bool zero, tfr_tensor **out);

// Storage reference counting.
void tfr_storage_retain(tfr_storage *s);
void tfr_storage_release(tfr_storage *s);

// Compact row-major strides for `shape`.
void tfr_compact_strides(int rank, const int64_t *shape, int64_t *strides);

// Element count of `shape` with overflow and TFR_MAX_NUMEL checks; `what`
// names the op for the message.
tfr_status tfr_shape_numel(const char *what, int rank, const int64_t *shape, int64_t *out);

// Checks that every element of a layout (shape, strides, offset; `numel`
// its element count) lies in storage elements [0, capacity): strides within
// +-TFR_MAX_NUMEL, and no reach that overflows int64. `what` names the op.
tfr_status tfr_check_layout(const char *what, int rank, const int64_t *shape,
                            const int64_t *strides, int64_t offset, int64_t numel,
                            int64_t capacity);

// Host pointer to element (0,..,0) of a host tensor.
static inline char *tfr_tensor_host_ptr(const tfr_tensor *t) {
  return (char *)t->storage->data + t->offset * (int64_t)tfr_dtype_size(t->dtype);
}

// ---------------------------------------------------------------------------
// Op descriptors (validated; the backend trusts them)
// ---------------------------------------------------------------------------

// Elementwise families. `op` is a tfr_unary_op, tfr_binary_op or
// tfr_compare_direction according to `kind`.
typedef enum tfr_ew_kind {
  TFR_EW_UNARY = 0,
  TFR_EW_BINARY = 1,
  TFR_EW_COMPARE = 2,
  TFR_EW_SELECT = 3,  // inputs: pred (bool), on_true, on_false
  TFR_EW_CLAMP = 4,   // inputs: min, operand, max
} tfr_ew_kind;

typedef struct tfr_elementwise_desc {
  tfr_ew_kind kind;
  int op;
  tfr_dtype dtype;      // the operands' dtype (on_true's for select)
  tfr_dtype out_dtype;  // the result's dtype
  int ninputs;          // 1 .. 3
  // Inputs, each with exactly out's shape (rank-0 select/clamp operands are
  // already broadcast views). Any strides.
  const tfr_tensor *inputs[3];
  tfr_tensor *out;      // any strides without self-overlap
  tfr_tensor *owned[3]; // views made by validation, released by the core
} tfr_elementwise_desc;

typedef enum tfr_structural_kind {
  TFR_STRUCT_CONVERT = 0,   // out = convert(in); also plain strided copies
  TFR_STRUCT_TRIANGLE = 1,  // out = tril/triu(in, k); out compact, same shape
  TFR_STRUCT_IOTA = 2,      // out[idx] = idx[iota_dimension]
  TFR_STRUCT_REDUCE_PRECISION = 3,  // out = reduce_precision(in); float, same dtype
} tfr_structural_kind;

typedef struct tfr_structural_desc {
  tfr_structural_kind kind;
  const tfr_tensor *in;  // NULL for iota
  tfr_tensor *out;       // same shape as in
  int64_t k;             // triangle: diagonal offset
  bool upper;            // triangle: triu (true) or tril (false)
  int iota_dimension;    // iota
  int exponent_bits;     // reduce_precision: >= 1
  int mantissa_bits;     // reduce_precision: >= 0
} tfr_structural_desc;

typedef struct tfr_reduce_desc {
  tfr_reduce_combiner combiner;
  tfr_dtype dtype;
  const tfr_tensor *in;
  int naxes;
  int64_t axes[TFR_MAX_RANK];  // sorted, distinct
  // The initial value: a rank-0 tensor on the session's backend, or NULL and
  // then `init_bytes` holds it (the combiner's identity) in `dtype`.
  const tfr_tensor *init;
  unsigned char init_bytes[16];
  tfr_tensor *out;  // compact, in's shape without `axes`
} tfr_reduce_desc;

// dot_general: defined below in the section "dot_general descriptor".
typedef struct tfr_dot_desc tfr_dot_desc;
// gather / scatter: defined below in the section "indexing descriptors".
typedef struct tfr_gather_desc tfr_gather_desc;
typedef struct tfr_scatter_desc tfr_scatter_desc;

// ---- dot_general descriptor ----
// A validated dot_general (src/core/validate_dot.c fills it). The result
// `out` has the axes [batch..., lhs free..., rhs free...].
//
// Axis lists pair up by position: lhs_batch[i] with rhs_batch[i] (result
// axis i), lhs_contract[i] with rhs_contract[i]. The contracting pairs come
// in the order the kernel should walk them: validation picks an order in
// which the operands' strides merge into one stride where possible (any
// order gives the same sums up to rounding). Free axes are ascending, as
// they appear in the result. Extents are validated: paired axes have equal
// extents.
struct tfr_dot_desc {
  tfr_dtype dtype;  // lhs, rhs and out share it; never bool
  const tfr_tensor *lhs;
  const tfr_tensor *rhs;
  int nbatch;
  int ncontract;
  int nlhs_free;
  int nrhs_free;
  int64_t lhs_batch[TFR_MAX_RANK];
  int64_t rhs_batch[TFR_MAX_RANK];
  int64_t lhs_contract[TFR_MAX_RANK];
  int64_t rhs_contract[TFR_MAX_RANK];
  int64_t lhs_free[TFR_MAX_RANK];
  int64_t rhs_free[TFR_MAX_RANK];
  bool lhs_conj;  // always false for real dtypes
  bool rhs_conj;
  // Plain form (accumulate false): out is compact and is written in full
  // (out = dot). Accumulating form: out = alpha * dot + beta * out, where
  // out may have any strides without self-overlap and does not overlap lhs
  // or rhs. With beta_zero out is never read; with alpha_zero lhs and rhs
  // are never read (the BLAS convention: out = beta * out).
  tfr_tensor *out;
  bool accumulate;
  bool alpha_zero;
  bool beta_zero;
  unsigned char alpha[16];  // one value of `dtype`; 1 in the plain form
  unsigned char beta[16];   // one value of `dtype`; 0 in the plain form
};
// ---- end dot_general descriptor ----

// ---- indexing descriptors ----
// gather and scatter share one description of their index space, resolved by
// validation from the StableHLO dimension numbers so that a kernel only walks
// arrays:
//   * The "batch" axes are the axes of the index tensor other than the index
//     vector axis, in order. Batch position b (row-major over them) selects
//     one index vector, hence one window start; its axis j is the j-th result
//     axis not in offset_dims (gather) / updates axis not in
//     update_window_dims (scatter).
//   * The index vector has `nstart` components; component k is the start
//     along operand axis start_axis[k] (start_index_map /
//     scatter_dims_to_operand_dims). Operand axes not named there start at 0.
//   * Explicit batching dims: operand axis batching_axis[i] takes the value of
//     batch axis batching_pos[i] (operand_batching_dims /
//     input_batching_dims with the matching index-tensor axis).
//   * The window spans `nwindow` operand axes window_axis[i] (increasing: the
//     axes that are neither collapsed/inserted nor batching), of extent
//     window_extent[i]. window_size[a] is the window's extent along every
//     operand axis a (1, or 0 for an empty gather, on collapsed, inserted and
//     batching axes), so a start s along axis a fits iff
//     0 <= s <= extent(a) - window_size[a].
typedef struct tfr_index_space {
  const tfr_tensor *indices;  // any integer dtype, any strides (stride 0 included)
  int nbatch;
  int64_t batch_extent[TFR_MAX_RANK];
  int64_t batch_index_axis[TFR_MAX_RANK];  // axis of `indices` of batch axis j
  int vector_axis;  // axis of `indices` holding the vector; -1 when implicit (nstart = 1)
  int nstart;
  int64_t start_axis[TFR_MAX_RANK];
  int nbatching;
  int64_t batching_axis[TFR_MAX_RANK];
  int64_t batching_pos[TFR_MAX_RANK];
  int nwindow;
  int64_t window_axis[TFR_MAX_RANK];
  int64_t window_extent[TFR_MAX_RANK];
  int64_t window_size[TFR_MAX_RANK];  // per operand axis
} tfr_index_space;

// gather: out[batch b, window w] = operand[clamped start(b) + batching(b) + w].
// Start components are clamped to [0, extent - window_size] (StableHLO).
struct tfr_gather_desc {
  tfr_dtype dtype;
  const tfr_tensor *operand;  // any strides
  tfr_tensor *out;            // compact, the result's shape
  tfr_index_space ix;
  int64_t batch_out_axis[TFR_MAX_RANK];   // result axis of batch axis j
  int64_t window_out_axis[TFR_MAX_RANK];  // result axis of window axis i (offset_dims)
};

// scatter: out starts as a copy of the operand (the backend makes it from
// `operand`, or out holds it already when `operand` is NULL); each batch
// position b in row-major order combines its updates window into out,
// element by element (duplicates apply in that order, never concurrently).
// A window with any element out of bounds is skipped whole, unless
// clamp_starts. The core calls scatter only when out and updates have
// elements.
struct tfr_scatter_desc {
  tfr_scatter_combiner combiner;
  tfr_dtype dtype;
  tfr_tensor *out;             // compact, the operand's shape; updated in place
  // Any strides, out's shape and dtype; NULL: out already holds it. A
  // backend may merge the copy into its combining pass (webgpu does for
  // whole-row scatters, gather_scatter.c).
  const tfr_tensor *operand;
  const tfr_tensor *updates;   // any strides
  tfr_index_space ix;
  int64_t batch_update_axis[TFR_MAX_RANK];   // updates axis of batch axis j
  int64_t window_update_axis[TFR_MAX_RANK];  // updates axis of window axis i
  // dynamic_update_slice lowered to scatter: starts are clamped so that the
  // window fits (as gather does) instead of skipping the window.
  bool clamp_starts;
};
// ---- end indexing descriptors ----

// ---- fusion ----
// A validated fusion plan (include/tenferro/fusion.h). Values 0 .. num_inputs-1
// are the inputs; instruction k defines value num_inputs + k.
typedef struct tfr_fusion_instr {
  tfr_ew_kind kind;
  int op;               // as in tfr_elementwise_desc
  int num_operands;     // 1 .. 3
  int operands[3];      // value ids, each < this instruction's own id
  tfr_dtype dtype;      // the operands' dtype (on_true's for select)
  tfr_dtype out_dtype;
} tfr_fusion_instr;

struct tfr_fusion_plan {
  int num_inputs;
  int num_instructions;
  int num_outputs;
  tfr_dtype value_dtype[TFR_FUSION_MAX_INPUTS + TFR_FUSION_MAX_INSTRUCTIONS];
  bool broadcast[TFR_FUSION_MAX_INPUTS];
  int broadcast_ndims[TFR_FUSION_MAX_INPUTS];
  int64_t broadcast_dims[TFR_FUSION_MAX_INPUTS][TFR_MAX_RANK];
  tfr_fusion_instr instr[TFR_FUSION_MAX_INSTRUCTIONS];
  int outputs[TFR_FUSION_MAX_OUTPUTS];
};

typedef struct tfr_fusion_desc {
  const tfr_fusion_plan *plan;
  // Inputs with the result's shape (broadcast ones already are stride-0
  // views), outputs compact, allocated by the core.
  const tfr_tensor *inputs[TFR_FUSION_MAX_INPUTS];
  tfr_tensor *outputs[TFR_FUSION_MAX_OUTPUTS];
} tfr_fusion_desc;
// ---- end fusion ----

// ---------------------------------------------------------------------------
// Backends and sessions
// ---------------------------------------------------------------------------

// ---- sum of products (a tiny einsum in one loop) ----
// out[o] = sum over the summed labels s of prod_i operands[i][o, s]: the
// einsum of a few small operands evaluated as one loop nest, numpy's
// sum_of_products, where pairwise steps would cost more in per-op overhead
// than in arithmetic (src/einsum/execute.c decides). Operand i's element at
// output index o and summed index s lies at its storage offset plus
// sum_j o_j out_strides[i][j] + sum_j s_j sum_strides[i][j] (elements; 0 for
// a label it lacks or broadcasts, the sum of both strides for a diagonal).
// `out` is compact with the extents out_extent[0 .. num_out - 1]. Any
// extent may be 0 (an empty sum writes 0).
#define TFR_SOP_MAX_OPERANDS 8
#define TFR_SOP_MAX_LABELS 16
typedef struct tfr_sum_of_products_desc {
  tfr_dtype dtype;
  int n;        // operands, 1 .. TFR_SOP_MAX_OPERANDS
  int num_out;  // output axes
  int num_sum;  // summed labels; num_out + num_sum <= TFR_SOP_MAX_LABELS
  const tfr_tensor *operands[TFR_SOP_MAX_OPERANDS];
  int64_t out_extent[TFR_SOP_MAX_LABELS];
  int64_t sum_extent[TFR_SOP_MAX_LABELS];
  int64_t out_strides[TFR_SOP_MAX_OPERANDS][TFR_SOP_MAX_LABELS];
  int64_t sum_strides[TFR_SOP_MAX_OPERANDS][TFR_SOP_MAX_LABELS];
  tfr_tensor *out;
} tfr_sum_of_products_desc;
// ---- end sum of products ----

typedef struct tfr_backend_vtable {
  // Frees the backend's resources. Called once, after the last reference.
  void (*destroy)(tfr_backend *b);

  // Memory. storage_alloc fills a storage (refcount, backend set by the
  // core) with `nbytes` usable bytes, zeroed when `zero`.
  tfr_status (*storage_alloc)(tfr_backend *b, size_t nbytes, bool zero, tfr_storage *out);
  // Returns a storage's memory (to the pool or the system).
  void (*storage_free)(tfr_backend *b, tfr_storage *s);

  // Sessions: called with the backend's session lock held.
  tfr_status (*session_begin)(tfr_backend *b, tfr_session *s);
  tfr_status (*session_end)(tfr_backend *b, tfr_session *s);
  void *(*session_native)(tfr_backend *b, tfr_session *s);
  // Blocks until the work issued in the session so far has finished.
  tfr_status (*synchronize)(tfr_backend *b, tfr_session *s);

  // Transfers. `out` is a compact tensor of the destination, already
  // allocated with the source's shape and dtype.
  tfr_status (*upload)(tfr_backend *b, const tfr_tensor *host, tfr_tensor *out);
  tfr_status (*download)(tfr_backend *b, const tfr_tensor *t, tfr_tensor *host_out);

  // Op families (elementwise includes the analytic functions: one table).
  tfr_status (*elementwise)(tfr_backend *b, const tfr_elementwise_desc *d);
  tfr_status (*structural)(tfr_backend *b, const tfr_structural_desc *d);
  tfr_status (*reduction)(tfr_backend *b, const tfr_reduce_desc *d);
  tfr_status (*dot_general)(tfr_backend *b, const tfr_dot_desc *d);
  tfr_status (*gather)(tfr_backend *b, const tfr_gather_desc *d);
  tfr_status (*scatter)(tfr_backend *b, const tfr_scatter_desc *d);
  tfr_status (*fusion)(tfr_backend *b, const tfr_fusion_desc *d);
  // The einsum's one-loop form for tiny networks. A backend that does not
  // run it for this dtype returns TFR_ERR_UNSUPPORTED_DTYPE without setting
  // a message, and the einsum takes its pairwise steps instead.
  tfr_status (*sum_of_products)(tfr_backend *b, const tfr_sum_of_products_desc *d);

  // Whether the backend runs op `op` (a tfr_op_id of the registry) on
  // operands of `dtype`, which the op is defined for (tfr_backend_supports
  // checks that first). Must agree with the TFR_ERR_UNSUPPORTED_DTYPE gates.
  bool (*supports)(tfr_backend *b, uint32_t op, tfr_dtype dtype);
} tfr_backend_vtable;

// Number of function pointers in the vtable (a unit test checks none is NULL).
#define TFR_BACKEND_VTABLE_SLOTS (sizeof(tfr_backend_vtable) / sizeof(void (*)(void)))

struct tfr_backend {
  const tfr_backend_vtable *vtable;  // first
  atomic_long refcount;
  tfr_backend_kind kind;
  const char *name;
  // Host memory: the cpu backend allocates host storages; device backends
  // allocate device storages.
  bool host_memory;
  // When true, a second thread entering a session waits; else it gets
  // TFR_ERR_SESSION_CONTENDED.
  bool session_waits;
  pthread_mutex_t session_lock;
};

struct tfr_session {
  tfr_backend *backend;  // retained while the session is active
  void *backend_data;    // the backend's per-session state
};

// Initialises the common part of a backend (refcount 1, lock).
tfr_status tfr_backend_init(tfr_backend *b, const tfr_backend_vtable *vtable,
                            tfr_backend_kind kind, const char *name, bool host_memory,
                            bool session_waits);

// The active session of the calling thread, or NULL.
tfr_session *tfr_session_current(void);

// Makes `session` (or NULL: none) the calling thread's active session without
// beginning it, and returns the one that was active before, for the caller
// to put back with another call when done. Internal: a backend whose ops may
// run from several threads at once in one session (the cpu backend: its pool
// is locked, refcounts are atomic, error messages thread-local) lends its
// caller's session to worker threads this way (src/cpu/tasks.c); the lender
// waits for them before the session can end.
tfr_session *tfr_session_adopt(tfr_session *session);

// Checks that `session` is the calling thread's active session; `op` names
// the caller for the message.
tfr_status tfr_session_check(const char *op, const tfr_session *session);

// Checks that tensor `t` (called `name` in op `op`) can be used in `session`:
// not NULL, and on the session's backend (host tensors for host backends).
tfr_status tfr_check_placement(const char *op, const char *name, const tfr_session *session,
                               const tfr_tensor *t);

#endif  // TENFERRO_SRC_CORE_BACKEND_IMPL_H_
