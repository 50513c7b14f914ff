// Elementwise op over strided views: out[k(i)] = op(in0[j0(i)], in1[j1(i)], ...)
// for every element i of a view of up to 8 merged axes (src/webgpu/elementwise.c
// plans the axes over all operands, binds the window of each buffer the views
// reach and iterates any further axes on the host). Offsets and strides of the
// output and the inputs travel together as vec4<u32> (out, in0, in1, in2); the
// u32 sums wrap, and since every final index lies inside its window they are
// exact (negative and zero strides need no special case). Placeholders
// (filled by elementwise.c; written without braces here, since a
// multi-line value would end the comment):
//   ACCESS  bindings 1.. and the functions ldK(j) (input K at window
//           index j) and st(j, v) (the output), made by elementwise.c
//   OP      fn tfr_ew_op(...) -> the output's value type
//   APPLY   statement: st(o.x, tfr_ew_op(ld0(o.y), ...))
override WG: u32 = 256u;
// Elements per invocation, each step a contiguous run across the workgroup.
override EPT: u32 = 4u;

struct Params {
  numel: u32,                      // elements of this dispatch, < 2^31
  rank: u32,                       // merged axes, 1..8; axis 0 is the innermost
  pad0: u32,
  pad1: u32,
  offset: vec4<u32>,               // element offsets inside the bound windows
  shape: array<vec4<u32>, 2>,
  stride: array<vec4<u32>, 8>,     // per axis: (out, in0, in1, in2)
}

@group(0) @binding(0) var<uniform> P: Params;
{{ACCESS}}
{{OP}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let first = group * (WG * EPT) + lid;
  let last = P.rank - 1u;
  for (var e = 0u; e < EPT; e++) {
    let i = first + e * WG;
    if (i >= P.numel) {
      return;
    }
    var rem = i;
    var o = P.offset;
    // The outermost axis takes what is left without a division.
    for (var d = 0u; d < last; d++) {
      let n = P.shape[d >> 2u][d & 3u];
      o += (rem % n) * P.stride[d];
      rem = rem / n;
    }
    o += rem * P.stride[last];
    {{APPLY}};
  }
}
