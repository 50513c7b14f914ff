// tenferro/registry.h: the op registry, for bindings and tools.
//
// Every op of the public API (ops.h) has one entry: its StableHLO (or CHLO)
// name, the operand dtypes the library defines it for, and per backend
// whether that backend runs it on a dtype. The data is the library's own
// table (src/core/op_registry.def), the same one validation uses, so an
// answer here never disagrees with what an op call does.
//
//   tfr_op_id op;  uint32_t mask;  bool ok;
//   if (tfr_op_lookup("exponential", &op) == TFR_OK &&
//       tfr_op_dtypes(op, &mask) == TFR_OK && (mask & (1u << TFR_F32)) &&
//       tfr_backend_supports(backend, op, TFR_F32, &ok) == TFR_OK && ok) { ... }
//
// Names: the elementwise ops use the StableHLO names ("exponential",
// "log_plus_one", CHLO "erf", ...; tfr_unary_op_name gives the same ones).
// StableHLO `reduce` is listed once per one-op body as "reduce_add",
// "reduce_multiply", "reduce_maximum", "reduce_minimum", "reduce_and",
// "reduce_or", "reduce_xor" (tfr_reduce_combiner). Ops of tenferro's own
// (conj, copy, extract_diagonal, embed_diagonal, tril, triu) use the name of
// their function. `tenferro info --ops` prints the whole table.
#ifndef TENFERRO_REGISTRY_H_
#define TENFERRO_REGISTRY_H_

#include <stdbool.h>
#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/dtype.h"
#include "tenferro/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// An op of the registry: a value in [0, tfr_op_count()). Ids are stable
// within one library version only; look ops up by name.
typedef uint32_t tfr_op_id;

// Returns the number of ops in the registry (ids 0 .. count - 1). Never fails.
TFR_API uint32_t tfr_op_count(void);

// Looks an op up by its StableHLO, CHLO or tenferro name ("exponential",
// "erf", "reduce_add", "tril"); exact, case-sensitive match.
//   name  NUL-terminated; borrowed for the call.
//   out   receives the op id; unchanged on error.
// Errors: TFR_ERR_INVALID_ARGUMENT for a NULL argument or a name that is no
//         op of the registry (the message names it).
TFR_API TFR_NODISCARD tfr_status tfr_op_lookup(const char *name, tfr_op_id *out);

// Returns the name of op `op` ("exponential"), or "invalid" for an id out of
// range. Static storage; never NULL.
TFR_API const char *tfr_op_name(tfr_op_id op);

// The operand dtypes op `op` is defined for, as the library enforces them on
// every backend (the first operand's dtype; for select the on_true/on_false
// dtype, for clamp the operand's, for the window and scatter ops the union
// over their combiners, for compare over its directions).
//   op        an id from tfr_op_lookup or in [0, tfr_op_count()).
//   mask_out  receives a bit mask: bit d (1u << d) set when tfr_dtype d is
//             allowed. Unchanged on error.
// Errors: TFR_ERR_INVALID_ARGUMENT for a NULL mask_out or an id out of range.
TFR_API TFR_NODISCARD tfr_status tfr_op_dtypes(tfr_op_id op, uint32_t *mask_out);

// Whether `backend` runs op `op` on operands of dtype `dtype`: false when the
// op is not defined for the dtype (tfr_op_dtypes) or when the backend would
// refuse it with TFR_ERR_UNSUPPORTED_DTYPE. The cpu backend runs every op on
// every dtype the op is defined for. For convert the answer is for a target
// dtype other than `dtype` (a copy to the same dtype runs everywhere); for
// compare, scatter, reduce_window and select_and_scatter it is for at least
// one direction or combiner (see docs/registry.md for the webgpu details).
// Needs no session; the answer depends only on the backend's kind and build.
//   backend  a backend from tfr_backend_create_*; borrowed.
//   op       an op id.   dtype  any value (invalid ones answer false).
//   out      receives the answer; unchanged on error.
// Errors: TFR_ERR_INVALID_ARGUMENT for a NULL backend or out, or an op id out
//         of range.
TFR_API TFR_NODISCARD tfr_status tfr_backend_supports(const tfr_backend *backend, tfr_op_id op,
                                                      tfr_dtype dtype, bool *out);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_REGISTRY_H_
