// Elementwise work over strided views (src/webgpu/ew_kernel.c, for single ops
// and fused plans alike): up to 16 merged axes per dispatch (further outer axes
// iterated on the host). Element i of the dispatch is at window index off + i
// of an operand whose strides are the compact strides of the planned shape
// ("linear"), a broadcast input reads off, and every other operand (output or
// input) has its strides in the table `st` (axis d, strided operand s: entry
// d * NS + s) and its index summed per invocation. The u32 sums wrap; every
// final index lies inside its window, so they are exact (negative and zero
// strides need no special case). Placeholders (filled by ew_kernel.c;
// written without braces here, since a multi-line value would end the
// comment):
//   ACCESS  bindings 1.., raw loads of each input, rawstO(j, v) per output
//   EVAL    struct tfr_fu_out and fn tfr_fu_eval(inputs...) -> tfr_fu_out
//   INDEX   statements: the window offsets sK of the strided operands
//   APPLY   statements: evaluate element i and store every output
override WG: u32 = 256u;
override EPT: u32 = 4u;

struct Params {
  numel: u32,                  // elements of this dispatch, < 2^31
  rank: u32,                   // merged axes, 1..16; axis 0 is the innermost
  zero: u32,                   // always 0: hides intermediate values from the compiler
  pad0: u32,
  off: array<vec4<u32>, 6>,    // per operand (outputs, then inputs), in elements
  shape: array<vec4<u32>, 4>,
  st: array<vec4<u32>, 21>,    // strides of the strided operands, axis-major
}

@group(0) @binding(0) var<uniform> P: Params;

fn tfr_fu_stride(k: u32) -> u32 {
  return P.st[k >> 2u][k & 3u];
}
{{ACCESS}}
{{EVAL}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let first = group * (WG * EPT) + lid;
  for (var e = 0u; e < EPT; e++) {
    let i = first + e * WG;
    if (i >= P.numel) {
      return;
    }
    {{INDEX}}
    {{APPLY}}
  }
}
