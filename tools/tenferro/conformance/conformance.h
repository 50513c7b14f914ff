// Conformance runner (`tenferro conformance`): the pieces between a JSONL line
// and a pass/fail/skip verdict. The case format is tests/conformance/FORMAT.md.
//
//   reader.c           one JSON line -> tfr_conf_case (tensors decoded from hex)
//   executor.c         skip decision, then the program op by op on a backend
//   ops_elementwise.c  op handlers: unary, binary, compare, select, clamp
//   ops_structural.c   op handlers: constant, convert, reshape, transpose, broadcast_in_dim, iota
//   ops_indexing.c     op handlers: slice, reverse, pad, concatenate, dynamic_slice,
//                      dynamic_update_slice, gather, scatter
//   ops_reduction.c    op handlers: reduce, dot_general
//   ops_window.c       op handlers: reduce_window, select_and_scatter, bitcast_convert
//   tolerance.c        op classes and the tolerance table (the reviewed numbers)
//   compare.c          element comparison (compare.h)
//   report.c           tallies and the printed table
//   runner.c           files and folders -> cases -> verdicts
#ifndef TENFERRO_TOOLS_TENFERRO_CONFORMANCE_CONFORMANCE_H_
#define TENFERRO_TOOLS_TENFERRO_CONFORMANCE_CONFORMANCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "compare.h"
#include "core/op_registry.h"
#include "tenferro/tenferro.h"

// Room for one message (skip reason, failure detail).
#define TFR_CONF_MSG 512

// ---------------------------------------------------------------------------
// A case, as read
// ---------------------------------------------------------------------------

// The declared type of a value: dtype and shape.
typedef struct tfr_conf_type {
  const tfr_conf_dtype *dtype;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  int64_t numel;
} tfr_conf_type;

// A tensor with data (inputs, constants, the expected result).
typedef struct tfr_conf_tensor {
  tfr_conf_type type;
  unsigned char *data;  // numel * size bytes, row-major; NULL when empty
  size_t nbytes;
} tfr_conf_tensor;

typedef struct tfr_conf_instr {
  const cJSON *json;    // the instruction object: attributes are read from it
  const char *op;       // "add"
  bool chlo;            // "dialect": "chlo"
  int noperands;
  int *operands;        // value ids, each < this instruction's id
  tfr_conf_type result; // declared result
  tfr_conf_tensor value;  // `constant` only
} tfr_conf_instr;

typedef struct tfr_conf_case {
  cJSON *root;
  const char *name;       // borrowed from root
  const char *source_op;  // borrowed from root
  int ninputs;
  tfr_conf_tensor *inputs;
  int ninstrs;
  tfr_conf_instr *instrs;
  int output;             // value id
  tfr_conf_tensor expected;
  tfr_conf_check check;
  const tfr_conf_type **types;  // ninputs + ninstrs: the declared type of every value id
} tfr_conf_case;

// Parses one JSON line (`len` bytes) into `c`. On failure returns false with
// a message in err[TFR_CONF_MSG]; `c` is then still safe to free. When the
// JSON itself is readable, c->name and c->source_op are set as far as found.
bool tfr_conf_case_parse(const char *line, size_t len, tfr_conf_case *c, char *err);
// Frees what tfr_conf_case_parse allocated (any state, zeroed or parsed).
void tfr_conf_case_free(tfr_conf_case *c);

// The library dtype of a corpus dtype, when this build of the library has it.
bool tfr_conf_lib_dtype(const tfr_conf_dtype *dtype, tfr_dtype *out);

// Attribute readers. Each returns false with a message in err[TFR_CONF_MSG]
// when the attribute is missing or malformed.
//   ints: a JSON array of at most `max` integers (|v| <= 2^53).
bool tfr_conf_attr_ints(const tfr_conf_instr *in, const char *key, int64_t *out, int max, int *n,
                        char *err);
bool tfr_conf_attr_int(const tfr_conf_instr *in, const char *key, int64_t *out, char *err);
bool tfr_conf_attr_bool(const tfr_conf_instr *in, const char *key, bool *out, char *err);
// A string attribute, or NULL (with err set) when missing or not a string.
const char *tfr_conf_attr_string(const tfr_conf_instr *in, const char *key, char *err);

// ---------------------------------------------------------------------------
// Op handlers and execution
// ---------------------------------------------------------------------------

// Execution state of one case on one session.
typedef struct tfr_conf_exec {
  tfr_session *session;
  const tfr_conf_case *c;
  double max_memory;       // bytes the case's values may take (0: no limit)
  bool max_memory_default; // that is the default budget (messages say so)
  char msg[TFR_CONF_MSG];  // failure detail when a handler fails
} tfr_conf_exec;

typedef struct tfr_conf_op tfr_conf_op;

// Whether the library has what instruction `in` needs (operand/result dtypes,
// attribute values). Returns NULL, or a short skip reason written to
// buf[TFR_CONF_MSG] ("no erf on complex"). Attributes that are malformed are
// not a skip: the run reports them.
typedef const char *(*tfr_conf_check_fn)(const tfr_conf_op *op, const tfr_conf_case *c,
                                         const tfr_conf_instr *in, char *buf);

// Runs instruction `in` with operand tensors `args` (on the session's
// backend) into a new tensor *out. Returns false with x->msg set on any
// failure: a library error (status and message) or a malformed attribute.
typedef bool (*tfr_conf_run_fn)(const tfr_conf_op *op, tfr_conf_exec *x, const tfr_conf_instr *in,
                                tfr_tensor *const *args, tfr_tensor **out);

struct tfr_conf_op {
  const char *name;     // the StableHLO (or CHLO) op name
  bool chlo;            // CHLO dialect
  tfr_conf_check_fn check;  // NULL: nothing beyond the dtypes being in the library
  tfr_conf_run_fn run;
  int param;            // enum value for table-driven handlers (tfr_unary_op, ...)
  uint32_t dtypes;      // operand dtypes the API defines the op for: the op
                        // registry's mask (1u << tfr_dtype); 0 when `check` decides
};

// The handler tables of each op family; each ends with a {NULL} entry.
extern const tfr_conf_op tfr_conf_ops_elementwise[];
extern const tfr_conf_op tfr_conf_ops_structural[];
extern const tfr_conf_op tfr_conf_ops_indexing[];
extern const tfr_conf_op tfr_conf_ops_reduction[];
extern const tfr_conf_op tfr_conf_ops_window[];

// The handler of op `name`, or NULL when the library has no public function
// for it.
const tfr_conf_op *tfr_conf_op_find(const char *name, bool chlo);

// Sets x->msg from the library's status and message for op `in` and returns
// false (so a handler can `return tfr_conf_lib_fail(x, in, st)`).
bool tfr_conf_lib_fail(tfr_conf_exec *x, const tfr_conf_instr *in, tfr_status st);
// Formats x->msg and returns false.
bool tfr_conf_fail(tfr_conf_exec *x, const char *fmt, ...) TFR_PRINTF(2, 3);

// Checks that `in` has exactly `n` operands (else sets x->msg, returns false).
bool tfr_conf_want_operands(tfr_conf_exec *x, const tfr_conf_instr *in, int n);
// Checks, before an op runs, that the result shape its attributes give
// (the library's `_shape` form of the op) is the declared one: the declared
// results are what the memory budget was checked against, so a case whose
// attributes imply more (a pad of 2^30 declared as one element) fails here,
// before anything is allocated. Else sets x->msg and returns false.
// True when `bytes` more (what an op holds while it runs, beyond its
// result) fit x->max_memory; otherwise fails the case naming `what`, the
// size and the budget.
bool tfr_conf_check_budget(tfr_conf_exec *x, const char *what, double bytes);
bool tfr_conf_expect_shape(tfr_conf_exec *x, const tfr_conf_instr *in, int rank,
                           const int64_t *shape);
// Uploads a corpus tensor to the session's backend as *out.
bool tfr_conf_upload(tfr_conf_exec *x, const tfr_conf_tensor *t, tfr_tensor **out);
// The value id instruction `in` defines.
int tfr_conf_value_id(const tfr_conf_case *c, const tfr_conf_instr *in);

// The declared type of the operand `k` of `in`.
const tfr_conf_type *tfr_conf_operand_type(const tfr_conf_case *c, const tfr_conf_instr *in,
                                           int k);
// Writes the reason "no <op> on <kind>" ("no erf on complex") into buf.
const char *tfr_conf_kind_reason(const tfr_conf_instr *in, const tfr_conf_dtype *dtype, char *buf);
// Whether `dtype` is in a registry mask (a dtype the library lacks counts as
// allowed: such cases are skipped as "no dtype" before).
bool tfr_conf_dtype_allowed(uint32_t dtypes, const tfr_conf_dtype *dtype);
// A plural name of the kind of `dtype`: "bool", "integers", "floats", "complex".
const char *tfr_conf_kind_name(const tfr_conf_dtype *dtype);

// Why case `c` cannot run on this build of the library, or NULL when it can.
// The reason (in buf[TFR_CONF_MSG]) names the first missing op of the program;
// else the first dtype the library lacks; else the first op/dtype/attribute
// combination the API does not define.
const char *tfr_conf_skip_reason(const tfr_conf_case *c, char *buf);

// Runs the program of `c` on `session` and downloads value `c->output` as a
// compact host buffer (*out_data, *out_nbytes; caller frees). Only the
// instructions the output depends on run (an unused value is never
// computed), and only when their declared results together with the inputs
// fit x->max_memory; an op whose attributes give another result shape than
// declared fails before it runs (tfr_conf_expect_shape). Returns false with x->msg set when an op fails or
// returns a type other than declared, or the values would not fit.
bool tfr_conf_execute(tfr_conf_exec *x, unsigned char **out_data, size_t *out_nbytes);

// ---------------------------------------------------------------------------
// Tolerances (tolerance.c)
// ---------------------------------------------------------------------------

typedef enum tfr_conf_backend {
  TFR_CONF_BACKEND_CPU = 0,
  TFR_CONF_BACKEND_WEBGPU = 1,
} tfr_conf_backend;

// The tolerance for `c`'s result on `backend`, picked by the loosest op of
// its program, with a sentence saying which entry applied (static storage).
tfr_conf_tolerance tfr_conf_pick_tolerance(tfr_conf_backend backend, const tfr_conf_case *c,
                                           const char **why);

// Prints the tolerance table (for `--tolerances`).
void tfr_conf_print_tolerances(FILE *f);

// ---------------------------------------------------------------------------
// Tallies and the report (report.c)
// ---------------------------------------------------------------------------

typedef enum tfr_conf_verdict {
  TFR_CONF_PASS = 0,
  TFR_CONF_FAIL = 1,
  TFR_CONF_SKIP = 2,
} tfr_conf_verdict;

typedef struct tfr_conf_report tfr_conf_report;

tfr_conf_report *tfr_conf_report_create(void);
void tfr_conf_report_free(tfr_conf_report *r);
// Counts one case of family `source_op`; `reason` is the skip reason (SKIP
// only). Returns false when out of memory.
bool tfr_conf_report_add(tfr_conf_report *r, const char *source_op, tfr_conf_verdict v,
                         const char *reason);
// Prints the per-family table, the skip reasons by count, and the closing
// line "N passed, M failed, K skipped".
void tfr_conf_report_print(tfr_conf_report *r, FILE *f);
int64_t tfr_conf_report_failed(const tfr_conf_report *r);
int64_t tfr_conf_report_total(const tfr_conf_report *r);

// ---------------------------------------------------------------------------
// The run (runner.c)
// ---------------------------------------------------------------------------

typedef struct tfr_conf_options {
  tfr_conf_backend backend_kind;
  tfr_backend *backend;
  const char *const *ops;    // --op filters (source_op or an op of the program)
  int nops;
  const char *const *cases;  // --case filters (exact case names)
  int ncases;
  bool verbose;
  FILE *log;                 // where FAIL / SKIP lines go
  double max_memory;         // --max-memory: bytes one case's values may take
  bool max_memory_default;   // max_memory is the default budget, not --max-memory
} tfr_conf_options;

// Runs every case of the .jsonl files in `paths` (files, or folders whose
// *.jsonl files are read in name order) into `r`. Returns false when a path
// cannot be read (the message went to stderr); the cases read so far stay
// counted.
bool tfr_conf_run_paths(const tfr_conf_options *opt, int npaths, char *const *paths,
                        tfr_conf_report *r);

// One-op bodies of reduce, reduce_window and select_and_scatter, by the op
// name the corpus writes (the dtypes each allows: tfr_reduce_info)
// (ops_reduction.c).
typedef struct tfr_conf_reducer_info {
  const char *name;
  tfr_reduce_combiner combiner;
} tfr_conf_reducer_info;
#define TFR_CONF_NUM_REDUCERS 7
extern const tfr_conf_reducer_info tfr_conf_reducers[TFR_CONF_NUM_REDUCERS];
// The body named `name`, or NULL.
const tfr_conf_reducer_info *tfr_conf_reducer(const char *name);

#endif  // TENFERRO_TOOLS_TENFERRO_CONFORMANCE_CONFORMANCE_H_
