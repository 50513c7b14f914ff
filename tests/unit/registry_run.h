// Runs one op of the op registry on small inputs of one dtype, for
// test_registry.c (cpu) and test_webgpu_registry.c (webgpu): each checks that
// what running the op returns agrees with tfr_backend_supports.
#ifndef TENFERRO_TESTS_UNIT_REGISTRY_RUN_H_
#define TENFERRO_TESTS_UNIT_REGISTRY_RUN_H_

#include <stdio.h>

#include "core/op_registry.h"
#include "support.h"

// Uploads a random host tensor of `dt` (rank 2: 2 x 3, or the given shape).
static tfr_tensor *reg_input(tfr_session *s, tfr_dtype dt, int rank, const int64_t *shape,
                             uint64_t seed) {
  tfr_tensor *h = tfr_test_random_tensor(dt, rank, shape, seed);
  tfr_tensor *d = tfr_test_upload(s, h);
  tfr_tensor_release(h);
  return d;
}

static tfr_tensor *reg_index(tfr_session *s, int rank, const int64_t *shape) {
  int32_t zeros[4] = {0, 0, 0, 0};
  tfr_tensor *h = tfr_test_tensor(TFR_I32, rank, shape, zeros);
  tfr_tensor *d = tfr_test_upload(s, h);
  tfr_tensor_release(h);
  return d;
}

// A reduce combiner that takes `dt` (add where it can, else maximum).
static tfr_reduce_combiner reg_combiner(tfr_dtype dt) {
  return (tfr_reduce_info(TFR_REDUCE_ADD)->dtypes & TFR_DT(dt)) ? TFR_REDUCE_ADD
                                                                 : TFR_REDUCE_MAXIMUM;
}

// Runs op `op` on operands of dtype `dt` in session `s`; returns its status.
static tfr_status reg_run(tfr_session *s, tfr_op_id op, tfr_dtype dt) {
  const tfr_op_info *info = tfr_op_info_of(op);
  const int64_t shape[2] = {2, 3}, one[1] = {1}, upd_shape[2] = {1, 3}, win_src[2] = {2, 2};
  const int64_t part[2] = {1, 2};
  tfr_tensor *x = reg_input(s, dt, 2, shape, 1), *x2 = reg_input(s, dt, 2, shape, 2);
  tfr_tensor *x3 = reg_input(s, dt, 2, shape, 3), *scalar = reg_input(s, dt, 0, NULL, 4);
  tfr_tensor *out = NULL, *t[3] = {NULL, NULL, NULL};
  tfr_status st = TFR_ERR_INTERNAL;
  switch (info->family) {
    case TFR_FAMILY_UNARY: st = tfr_unary(s, (tfr_unary_op)info->param, x, &out); break;
    case TFR_FAMILY_BINARY: st = tfr_binary(s, (tfr_binary_op)info->param, x, x2, &out); break;
    case TFR_FAMILY_COMPARE: st = tfr_compare(s, TFR_EQ, x, x2, &out); break;
    case TFR_FAMILY_SELECT:
      t[0] = reg_input(s, TFR_BOOL, 2, shape, 5);
      st = tfr_select(s, t[0], x, x2, &out);
      break;
    case TFR_FAMILY_CLAMP: st = tfr_clamp(s, x, x2, x3, &out); break;
    case TFR_FAMILY_CONVERT: st = tfr_convert(s, x, dt == TFR_F32 ? TFR_I32 : TFR_F32, &out); break;
    case TFR_FAMILY_REDUCE:
      st = tfr_reduce(s, x, NULL, (tfr_reduce_combiner)info->param, 1, &one[0], &out);
      break;
    case TFR_FAMILY_DOT: {
      const int64_t c1[1] = {1};
      tfr_dot_config cfg = {.num_contracting_dims = 1,
                            .lhs_contracting_dimensions = c1,
                            .rhs_contracting_dimensions = c1};
      st = tfr_dot_general(s, x, x2, &cfg, &out);
      break;
    }
    case TFR_FAMILY_GATHER: {
      const int64_t offset[1] = {1}, collapsed[1] = {0}, map[1] = {0}, sizes[2] = {1, 3};
      tfr_gather_config g = {.num_offset_dims = 1, .offset_dims = offset,
                             .num_collapsed_slice_dims = 1, .collapsed_slice_dims = collapsed,
                             .num_start_index_map = 1, .start_index_map = map,
                             .index_vector_dim = 1, .slice_sizes = sizes};
      t[0] = reg_index(s, 1, one);
      st = tfr_gather(s, x, t[0], &g, &out);
      break;
    }
    case TFR_FAMILY_SCATTER: {
      const int64_t window[1] = {1}, inserted[1] = {0}, map[1] = {0};
      tfr_scatter_config c = {.num_update_window_dims = 1, .update_window_dims = window,
                              .num_inserted_window_dims = 1, .inserted_window_dims = inserted,
                              .num_scatter_dims_to_operand_dims = 1,
                              .scatter_dims_to_operand_dims = map, .index_vector_dim = 1,
                              .combiner = TFR_SCATTER_REPLACE};
      t[0] = reg_index(s, 1, one);
      t[1] = reg_input(s, dt, 2, upd_shape, 6);
      st = tfr_scatter(s, x, t[0], t[1], &c, &out);
      break;
    }
    case TFR_FAMILY_WINDOW:
      if (op == TFR_OPID_REDUCE_WINDOW) {
        st = tfr_reduce_window(s, x, scalar, reg_combiner(dt), part, NULL, NULL, NULL, NULL,
                               &out);
      } else {
        t[0] = reg_input(s, dt, 2, win_src, 7);
        tfr_compare_direction dir = (TFR_DT(dt) & TFR_DT_COMPLEX) ? TFR_EQ : TFR_GE;
        st = tfr_select_and_scatter(s, x, t[0], scalar, dir, reg_combiner(dt), part, NULL, NULL,
                                    &out);
      }
      break;
    case TFR_FAMILY_STRUCTURAL:
      switch ((tfr_opid)op) {
        case TFR_OPID_REDUCE_PRECISION: st = tfr_reduce_precision(s, x, 5, 10, &out); break;
        case TFR_OPID_BITCAST_CONVERT: st = tfr_bitcast_convert(s, x, dt, &out); break;
        case TFR_OPID_COPY: st = tfr_copy(s, x, &out); break;
        case TFR_OPID_TRANSPOSE: {
          const int64_t perm[2] = {1, 0};
          st = tfr_transpose(s, x, perm, &out);
          break;
        }
        case TFR_OPID_RESHAPE: {
          const int64_t to[2] = {3, 2};
          st = tfr_reshape(s, x, 2, to, &out);
          break;
        }
        case TFR_OPID_BROADCAST_IN_DIM: {
          const int64_t to[3] = {4, 2, 3}, dims[2] = {1, 2};
          st = tfr_broadcast_in_dim(s, x, 3, to, dims, &out);
          break;
        }
        case TFR_OPID_REVERSE: st = tfr_reverse(s, x, 1, one, &out); break;
        case TFR_OPID_SLICE: {
          const int64_t start[2] = {0, 1}, limit[2] = {2, 3}, strides[2] = {1, 1};
          st = tfr_slice(s, x, start, limit, strides, &out);
          break;
        }
        case TFR_OPID_PAD: {
          const int64_t lo[2] = {1, 0}, hi[2] = {0, 1}, interior[2] = {0, 1};
          st = tfr_pad(s, x, scalar, lo, hi, interior, &out);
          break;
        }
        case TFR_OPID_CONCATENATE: {
          const tfr_tensor *in[2] = {x, x2};
          st = tfr_concatenate(s, 2, in, 0, &out);
          break;
        }
        case TFR_OPID_DYNAMIC_SLICE:
        case TFR_OPID_DYNAMIC_UPDATE_SLICE: {
          t[0] = reg_index(s, 0, NULL);
          t[1] = reg_index(s, 0, NULL);
          const tfr_tensor *starts[2] = {t[0], t[1]};
          if (op == TFR_OPID_DYNAMIC_SLICE) {
            st = tfr_dynamic_slice(s, x, starts, part, &out);
          } else {
            t[2] = reg_input(s, dt, 2, part, 8);
            st = tfr_dynamic_update_slice(s, x, t[2], starts, &out);
          }
          break;
        }
        case TFR_OPID_EXTRACT_DIAGONAL: st = tfr_extract_diagonal(s, x, 0, 1, &out); break;
        case TFR_OPID_EMBED_DIAGONAL: st = tfr_embed_diagonal(s, x, 1, 2, &out); break;
        case TFR_OPID_TRIL: st = tfr_tril(s, x, 0, &out); break;
        case TFR_OPID_TRIU: st = tfr_triu(s, x, 0, &out); break;
        case TFR_OPID_IOTA: st = tfr_iota(s, dt, 2, shape, 1, &out); break;
        default:
          fail_msg("registry_run.h: no way to run structural op %s", info->name);
      }
      break;
  }
  tfr_tensor_release(out);
  for (int i = 0; i < 3; i++) tfr_tensor_release(t[i]);
  tfr_tensor_release(x);
  tfr_tensor_release(x2);
  tfr_tensor_release(x3);
  tfr_tensor_release(scalar);
  return st;
}

// For every op x dtype: tfr_backend_supports(b) is true exactly when running
// the op returns something other than TFR_ERR_UNSUPPORTED_DTYPE; any other
// error is a failure. Returns the number of (op, dtype) pairs supported.
static int reg_check_backend(tfr_backend *b) {
  int supported = 0, mismatches = 0;
  tfr_session *s = tfr_test_begin(b);
  for (tfr_op_id op = 0; op < tfr_op_count(); op++) {
    for (int d = 0; d < TFR_DTYPE_COUNT; d++) {
      bool want = false;
      TFR_ASSERT_OK(tfr_backend_supports(b, op, (tfr_dtype)d, &want));
      tfr_status st = reg_run(s, op, (tfr_dtype)d);
      bool runs = st != TFR_ERR_UNSUPPORTED_DTYPE;
      if (st != TFR_OK && runs) {
        print_error("%s on %s: %s: %s\n", tfr_op_name(op), tfr_dtype_name((tfr_dtype)d),
                    tfr_status_string(st), tfr_last_error_message());
        mismatches++;
      } else if (runs != want) {
        print_error("%s on %s: supports says %s, running it %s (%s)\n", tfr_op_name(op),
                    tfr_dtype_name((tfr_dtype)d), want ? "yes" : "no",
                    runs ? "succeeds" : "gives TFR_ERR_UNSUPPORTED_DTYPE",
                    runs ? "" : tfr_last_error_message());
        mismatches++;
      }
      supported += want;
    }
  }
  tfr_test_end(s);
  assert_int_equal(mismatches, 0);
  return supported;
}

#endif  // TENFERRO_TESTS_UNIT_REGISTRY_RUN_H_
