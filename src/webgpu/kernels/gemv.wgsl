// Matrix-vector product, batched: y[b][m] = epi(sum_k A[b][m, k] * x[b][k])
// for f32, i32 and c64 (vec2<f32>); src/webgpu/dot.c maps dot_generals with
// one free extent of 1 onto it (M = 1 as the transposed problem). Memory
// bound: A is read once, in place, with any strides.
//
// A workgroup of WG invocations handles R = WG / L rows with L lanes each;
// the lanes of a row sum every L-th k, then reduce through workgroup memory.
// ROWS (A contiguous along k): the L lanes of a row are neighbours, so they
// read neighbouring k. Otherwise (A contiguous along m) the R rows are
// neighbours and read neighbouring m. Four independent loads per step keep
// more memory requests in flight. Index sums are u32 and wrap (see gemm.wgsl).
// Placeholders (double braces around the name):
//   T       element type: f32, i32, vec2<f32>
//   MAD_FN  fn mad(a: T, x: T, acc: T) -> T (conjugations included)
//   EPI_FN  fn epi(x: T, idx: u32) -> T, as in gemm.wgsl (array C)

override WG: u32 = 256u;
override L: u32 = 32u;      // lanes per row, a power of two
override ROWS: bool = true;

struct Params {
  M: u32,
  K: u32,
  batch_rank: u32,
  nbatch: u32,
  a_off: u32,
  x_off: u32,
  y_off: u32,
  groups_m: u32,          // ceil(M / R)
  sam: u32,
  sak: u32,
  sx: u32,
  sy: u32,
  alpha: vec4<u32>,
  beta: vec4<u32>,
  batch_shape: vec4<u32>,
  batch_a: vec4<u32>,
  batch_x: vec4<u32>,
  batch_y: vec4<u32>,
  sign_a: vec2<f32>,      // c64: (1, -1) conjugates
  sign_x: vec2<f32>,
  epi: u32,               // as in gemm.wgsl
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> A: array<{{T}}>;
@group(0) @binding(2) var<storage, read> X: array<{{T}}>;
@group(0) @binding(3) var<storage, read_write> C: array<{{T}}>;

var<workgroup> part: array<{{T}}, WG>;

{{MAD_FN}}

{{EPI_FN}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (group >= P.groups_m * P.nbatch) {
    return;
  }
  var bi = group / P.groups_m;
  let gm = group - bi * P.groups_m;
  var a_base = P.a_off;
  var x_base = P.x_off;
  var y_base = P.y_off;
  for (var d = 0u; d < P.batch_rank; d++) {
    let n = P.batch_shape[d];
    let c = bi % n;
    bi = bi / n;
    a_base += c * P.batch_a[d];
    x_base += c * P.batch_x[d];
    y_base += c * P.batch_y[d];
  }
  let R = WG / L;
  var r = lid / L;
  var j = lid % L;
  if (!ROWS) {
    r = lid % R;
    j = lid / R;
  }
  let m = gm * R + r;
  var acc0 = {{T}}();
  var acc1 = {{T}}();
  var acc2 = {{T}}();
  var acc3 = {{T}}();
  if (m < P.M) {
    var ao = a_base + m * P.sam + j * P.sak;
    var xo = x_base + j * P.sx;
    let da = L * P.sak;
    let dx = L * P.sx;
    var k = j;
    for (; k + 3u * L < P.K; k += 4u * L) {
      let a0 = A[ao];
      let a1 = A[ao + da];
      let a2 = A[ao + 2u * da];
      let a3 = A[ao + 3u * da];
      let x0 = X[xo];
      let x1 = X[xo + dx];
      let x2 = X[xo + 2u * dx];
      let x3 = X[xo + 3u * dx];
      acc0 = mad(a0, x0, acc0);
      acc1 = mad(a1, x1, acc1);
      acc2 = mad(a2, x2, acc2);
      acc3 = mad(a3, x3, acc3);
      ao += 4u * da;
      xo += 4u * dx;
    }
    for (; k < P.K; k += L) {
      acc0 = mad(A[ao], X[xo], acc0);
      ao += da;
      xo += dx;
    }
  }
  part[j * R + r] = (acc0 + acc1) + (acc2 + acc3);
  workgroupBarrier();
  for (var s = L / 2u; s > 0u; s = s / 2u) {
    if (j < s) {
      part[j * R + r] = part[j * R + r] + part[(j + s) * R + r];
    }
    workgroupBarrier();
  }
  if (j == 0u && m < P.M) {
    let idx = y_base + m * P.sy;
    C[idx] = epi(part[r], idx);
  }
}
