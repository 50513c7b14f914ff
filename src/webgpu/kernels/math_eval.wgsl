// out[i] = {{EXPR}} for one function of the math library (common/math_f32.wgsl,
// common/math_c64.wgsl), with `a` = xs[i] and `b` = ys[i]. src/webgpu/math_eval.c;
// for tests and bench/webgpu_accuracy.c only.
//   {{IN_T}}   element type of both operands (f32 or vec2<f32>)
//   {{OUT_T}}  element type of the result
//   {{EXPR}}   expression of a and b
override WG: u32 = 256u;

struct Params {
  n: u32,
  x_off: u32,
  y_off: u32,
  out_off: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> xs: array<{{IN_T}}>;
@group(0) @binding(2) var<storage, read> ys: array<{{IN_T}}>;
@group(0) @binding(3) var<storage, read_write> outs: array<{{OUT_T}}>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * WG + lid;
  if (i >= P.n) {
    return;
  }
  let a = xs[P.x_off + i];
  let b = ys[P.y_off + i];
  outs[P.out_off + i] = {{EXPR}};
}
