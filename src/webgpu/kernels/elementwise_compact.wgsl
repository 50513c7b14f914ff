// Elementwise work over contiguous operands (src/webgpu/ew_kernel.c's fast
// path, for single ops and fused plans alike): every output and every input is
// one run of unit stride, or an input is one broadcast element (stride 0), or
// an input is broadcast over inner or outer axes and compact over the others
// (a row or a column of an outer product or a bias add: element i of the
// kernel reads element (i / rep) % per of its run).
// Elements go in chunks of 4: invocation `lid` of workgroup g handles chunks
// g * WG * EPT + lid + e * WG (e < EPT), so each step is a contiguous run
// across the workgroup. An operand whose window starts on a chunk boundary
// moves whole chunks (vec4 of f32/i32, one u32 word of 4 bools, two vec4 of
// c64): wide accesses, and a bool output is written a word at a time (one
// atomicStore, no read-modify-write). Only the last, partial chunk goes
// element by element. Each input element is read once, the plan runs in
// registers (tfr_fu_eval), each output element is written once.
// Placeholders (filled by ew_kernel.c; written without braces here, since a
// multi-line value would end the comment):
//   ACCESS  bindings 1.., ldK(i) / ldcK(c) for input K (plan numbering),
//           stO(i, v) / stcO(c, r) for output O
//   EVAL    struct tfr_fu_out and fn tfr_fu_eval(inputs...) -> tfr_fu_out,
//           with one function per instruction
//   APPLY   statements for element i
//   APPLY4  statements for the whole chunk c
override WG: u32 = 256u;
override EPT: u32 = 4u;

struct Params {
  numel: u32,                // elements of this dispatch
  nchunks: u32,              // ceil(numel / 4)
  zero: u32,                 // always 0: hides intermediate values from the compiler
  pad0: u32,
  off: array<vec4<u32>, 6>,  // per operand (outputs, then inputs): in chunks for
                             // whole-chunk operands, else elements
  rep: array<vec4<u32>, 6>,  // tiled / repeated inputs: element i reads element
  per: array<vec4<u32>, 6>,  // (i / rep) % per of the run (per in chunks when whole)
}

@group(0) @binding(0) var<uniform> P: Params;
{{ACCESS}}
{{EVAL}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let first = group * (WG * EPT) + lid;
  for (var e = 0u; e < EPT; e++) {
    let c = first + e * WG;
    if (c >= P.nchunks) {
      return;
    }
    if (c * 4u + 4u <= P.numel) {
      {{APPLY4}}
    } else {
      for (var i = c * 4u; i < P.numel; i++) {
        {{APPLY}}
      }
    }
  }
}
