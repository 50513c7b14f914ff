// Split-K epilogue: C[b][m, n] = epi(sum over s of W[s][b][m, n]), where W is
// the compact workspace gemm.wgsl wrote its slices of k into (one per s).
// One invocation per element of C; batch axes and C's strides as in
// gemm.wgsl (u32 sums that wrap).
// Placeholders (double braces around the name):
//   T       element type: f32, i32, vec2<f32>
//   EPI_FN  fn epi(x: T, idx: u32) -> T, as in gemm.wgsl
override WG: u32 = 256u;

struct Params {
  count: u32,           // elements of C: M * N * batch
  nsplit: u32,
  M: u32,
  N: u32,
  batch_rank: u32,
  c_off: u32,
  scm: u32,
  scn: u32,
  epi: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
  alpha: vec4<u32>,
  beta: vec4<u32>,
  batch_shape: vec4<u32>,
  batch_c: vec4<u32>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> W: array<{{T}}>;
@group(0) @binding(2) var<storage, read_write> C: array<{{T}}>;

{{EPI_FN}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * WG + lid;
  if (i >= P.count) {
    return;
  }
  var acc = W[i];
  for (var s = 1u; s < P.nsplit; s++) {
    acc = acc + W[s * P.count + i];
  }
  let n = i % P.N;
  let r = i / P.N;
  let m = r % P.M;
  var bi = r / P.M;
  var idx = P.c_off + m * P.scm + n * P.scn;
  for (var d = 0u; d < P.batch_rank; d++) {
    let e = P.batch_shape[d];
    let c = bi % e;
    bi = bi / e;
    idx += c * P.batch_c[d];
  }
  C[idx] = epi(acc, idx);
}
