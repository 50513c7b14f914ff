// The access-function generator of the generated elementwise kernels
// (ew_kernel.c: single ops and fused plans). An input operand reads through
// w<s>(w) (one entry of its array: a value, a vector chunk, a word of packed
// bytes), raw<s>(j) (the element at window index j) and, in compact
// kernels, ld<s>(i) / ldc<s>(c) (element i / chunk c of 4 elements of its
// run); an output writes through rawst<s>(j, v) and, in compact kernels,
// st<s>(i, v) / stc<s>(c, r). <s> is the operand's suffix.
#ifndef TENFERRO_SRC_WEBGPU_WGSL_ACCESS_H_
#define TENFERRO_SRC_WEBGPU_WGSL_ACCESS_H_

#include <stdbool.h>
#include <stddef.h>

#include "webgpu/wgsl_text.h"
#include "webgpu/wgsl_types.h"

// How a compact kernel accesses an operand's run.
enum {
  TFR_WGSL_SCALAR = 0,  // element by element (a run not starting on a chunk boundary)
  TFR_WGSL_CHUNK = 1,   // whole chunks of 4 elements
  TFR_WGSL_BCAST = 2,   // one element for all (stride 0)
  // A broadcast input that is compact over a block of the planned axes
  // (numpy's tile and repeat): element i of the kernel reads element
  // (i / rep) % per of the run (rep, per: WGSL expressions of the operand).
  TFR_WGSL_TILE_CHUNK = 3,  // rep = 1: whole chunks, per counted in chunks
  TFR_WGSL_TILE = 4,        // rep = 1, per a multiple of 4: element by element
  TFR_WGSL_REPEAT = 5,      // rep a multiple of 4: one element per chunk
};

typedef struct tfr_wgsl_operand {
  const char *suffix;         // of its functions: "0", "3", or "" (a lone output)
  const tfr_wgsl_type *type;  // f32, i32, bool, c64 or f64
  bool compact;               // a compact kernel (ld/ldc, st/stc over runs)
  int mode;                   // compact: TFR_WGSL_*; strided: TFR_WGSL_SCALAR
  const char *array;          // the binding's variable ("in1", "out0")
  const char *off;            // WGSL expression of the window offset of its run (compact)
  const char *rep, *per;      // TFR_WGSL_TILE*, TFR_WGSL_REPEAT: WGSL expressions
  // Inputs only: the binding is an output's (the input is read in place), so
  // packed bytes are words of an array<atomic<u32>>, read with atomicLoad.
  bool output_binding;
} tfr_wgsl_operand;

// The array type a binding of `o` declares (read or written).
const char *tfr_wgsl_operand_array(const tfr_wgsl_operand *o, bool written);
// The access functions of input `o` (after its binding's declaration).
void tfr_wgsl_put_input(tfr_wgsl_text *t, const tfr_wgsl_operand *o);
// The access functions of output `o`.
void tfr_wgsl_put_output(tfr_wgsl_text *t, const tfr_wgsl_operand *o);

#endif  // TENFERRO_SRC_WEBGPU_WGSL_ACCESS_H_
