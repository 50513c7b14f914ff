// Elementwise op over contiguous operands (src/webgpu/elementwise.c's fast
// path): the output and every input are one run of unit stride, or an input is
// one broadcast element (stride 0). Elements go in chunks of 4: invocation
// `lid` of workgroup g handles chunks g * WG * EPT + lid + e * WG (e < EPT),
// so each step is a contiguous run across the workgroup. An operand whose
// window starts on a chunk boundary moves whole chunks (vec4 of f32/i32, one
// u32 word of 4 bools, two vec4 of c64): wide accesses, and a bool output is
// written a word at a time (one atomicStore, no read-modify-write). Only the last,
// partial chunk goes
// element by element. Placeholders (filled by elementwise.c; written
// without braces here, since a multi-line value would end the comment):
//   ACCESS  bindings 1.., ldK(i) / ldcK(c) (input K: element i / chunk c
//           of the run, as array<T, 4>), st(i, v) / stc(c, r)
//   OP      fn tfr_ew_op(...) -> the output's value type
//   APPLY   statement: st(i, tfr_ew_op(ld0(i), ...))
//   APPLY4  statements: let aK = ldcK(c); ...; stc(c, array(tfr_ew_op(a0[0], ...), ...))
override WG: u32 = 256u;
override EPT: u32 = 4u;

struct Params {
  numel: u32,         // elements of this dispatch
  nchunks: u32,       // ceil(numel / 4)
  pad0: u32,
  pad1: u32,
  offset: vec4<u32>,  // (out, in0, in1, in2): in chunks for whole-chunk operands, else elements
}

@group(0) @binding(0) var<uniform> P: Params;
{{ACCESS}}
{{OP}}

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
        {{APPLY}};
      }
    }
  }
}
