// Tiled GEMM, batched: C[b][m, n] = epi(sum_k A[b][m, k] * B[b][k, n]) for
// f32, i32 and c64 (vec2<f32>). src/webgpu/dot.c maps a dot_general onto it
// and generates the placeholders below (unrolled per tile configuration).
//
// One workgroup computes a BM x BN tile of C; each of its (BM/TM)*(BN/TN)
// invocations a TM x TN register tile, as named variables (never an array
// that could land in local memory). Per step of BK along k, the workgroup
// stages a BM x BK tile of A and a BK x BN tile of B in workgroup memory,
// k-major (As[k][m], Bs[k][n]) as 16-byte vectors of EPV elements (4 reals
// or 2 complex). Two buffers: the global loads of step t+1 are issued into
// registers before the arithmetic of step t and stored afterwards, so one
// barrier per step suffices and the loads' latency hides behind arithmetic.
//
// An invocation's rows are m = g*TY*EPV + ty*EPV + l (TM/EPV groups g of EPV
// lanes l), its columns n = h*TX*EPV + tx*EPV + e: each group is one 16-byte
// read of workgroup memory, and neighbouring invocations read neighbouring
// vectors (no bank conflicts; the A reads are broadcasts).
//
// Global loads move 16-byte quads along the operand's contiguous axis (m or
// k for A, n or k for B): as vec4 loads when the operand is aligned for it
// (unit stride, extent and every other stride multiples of EPV, offset
// too), else as EPV element loads with any strides. Edges are bounds-checked
// (zeros past M, N, K). Index sums are u32 and wrap: strides are the low 32
// bits of the signed strides, every final index lies inside the bound window,
// so negative strides need no special case.
//
// Placeholders (double braces around the name):
//   T           element type: f32, i32, vec2<f32>
//   V           16-byte vector of EPV elements: vec4<f32>, vec4<i32>
//   A_ARRAY     array<V> (vec4 loads) or array<T>; B_ARRAY likewise
//   CONSTS      BM, BN, BK, TM, TN, EPV, TX, TY, WG as `const`
//   LOADERS     load_a/store_a/load_b/store_b for the operands' layouts
//   EPI_FN      fn epi(x: T, idx: u32) -> T: alpha/beta per P.epi
//   DECLS, LOAD_NEXT, STORE_NEXT, COMPUTE, EPILOGUE: the unrolled
//               register code

struct Params {
  M: u32,
  N: u32,
  K: u32,
  batch_rank: u32,      // batch axes in batch_* (0..4), innermost first
  tiles_m: u32,
  tiles_n: u32,
  ntiles: u32,          // tiles_m * tiles_n
  group_m: u32,         // tile rows per swizzle band (L2 reuse)
  a_off: u32,           // element offsets inside the bound windows
  b_off: u32,
  c_off: u32,
  klen: u32,            // k per split (a multiple of BK; >= K without split-K)
  sam: u32,             // strides in elements (low 32 bits)
  sak: u32,
  sbk: u32,
  sbn: u32,
  scm: u32,
  scn: u32,
  nbatch: u32,
  epi: u32,             // 0: C = dot; 1: C = alpha dot; 2: C = alpha dot + beta C
  alpha: vec4<u32>,     // bits of one value of T
  beta: vec4<u32>,
  batch_shape: vec4<u32>,
  batch_a: vec4<u32>,
  batch_b: vec4<u32>,
  batch_c: vec4<u32>,
  sign_a: vec4<f32>,    // c64: (1, -1, 1, -1) conjugates the quads of A
  sign_b: vec4<f32>,
  nsplit: u32,          // split-K: slices of k, each into its own C (split_c apart)
  split_c: u32,
  pad2: u32,
  pad3: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> A: {{A_ARRAY}};
@group(0) @binding(2) var<storage, read> B: {{B_ARRAY}};
@group(0) @binding(3) var<storage, read_write> C: array<{{T}}>;

{{CONSTS}}

var<workgroup> As: array<{{V}}, 2u * BK * (BM / EPV)>;
var<workgroup> Bs: array<{{V}}, 2u * BK * (BN / EPV)>;

{{LOADERS}}

{{EPI_FN}}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // Uniform per workgroup, so returning before the barriers is allowed.
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (group >= P.ntiles * P.nbatch * P.nsplit) {
    return;
  }
  let tb = group / P.ntiles;
  let t = group - tb * P.ntiles;
  let split = tb / P.nbatch;
  var bi = tb - split * P.nbatch;
  // This workgroup's slice of k (all of it without split-K).
  let kbeg = split * P.klen;
  let kend = min(P.K, kbeg + P.klen);
  let ktiles = (max(kend, kbeg) - kbeg + BK - 1u) / BK;
  // Bands of group_m tile rows, walked column by column: workgroups that run
  // together share rows of A and columns of B in the L2 cache.
  let band = t / (P.group_m * P.tiles_n);
  let first_m = band * P.group_m;
  let rows = min(P.tiles_m - first_m, P.group_m);
  let in_band = t - band * (P.group_m * P.tiles_n);
  let tm = first_m + in_band % rows;
  let tn = in_band / rows;
  var a_base = P.a_off;
  var b_base = P.b_off;
  var c_base = P.c_off + split * P.split_c;
  for (var d = 0u; d < P.batch_rank; d++) {
    let n = P.batch_shape[d];
    let c = bi % n;
    bi = bi / n;
    a_base += c * P.batch_a[d];
    b_base += c * P.batch_b[d];
    c_base += c * P.batch_c[d];
  }
  let m0 = tm * BM;
  let n0 = tn * BN;
  let tx = lid % TX;
  let ty = lid / TX;

{{DECLS}}

  if (ktiles > 0u) {
    let k0 = kbeg;
{{LOAD_NEXT}}
    let nb = 0u;
{{STORE_NEXT}}
  }
  workgroupBarrier();
  for (var kt = 0u; kt < ktiles; kt++) {
    let cur = kt & 1u;
    let more = kt + 1u < ktiles;
    if (more) {
      let k0 = kbeg + (kt + 1u) * BK;
{{LOAD_NEXT}}
    }
    let abuf = cur * (BK * (BM / EPV)) + ty;
    let bbuf = cur * (BK * (BN / EPV)) + tx;
    for (var kk = 0u; kk < BK; kk++) {
      let ai = abuf + kk * (BM / EPV);
      let bj = bbuf + kk * (BN / EPV);
{{COMPUTE}}
    }
    if (more) {
      let nb = cur ^ 1u;
{{STORE_NEXT}}
    }
    workgroupBarrier();
  }

{{EPILOGUE}}
}
