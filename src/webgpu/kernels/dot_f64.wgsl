// dot_general on the 64-bit dtypes and c128 in software (src/webgpu/dot.c):
// C[b][m, n] = epi(acc) with
// acc = fma(A[b][m, K-1], B[b][K-1, n], ... fma(A[b][m, 0], B[b][0, n], +0)),
// one invocation per element of C: on f64 every term is added with one
// correctly rounded fma (common/f64.wgsl), in k order, so the result depends
// on the operands only; on i64 / u64 the fma is the wrapping a * b + c
// (common/u64.wgsl), exact in any order; on c128 it is the cpu's step
// acc + (a * b), each part of the textbook product and each sum rounded
// (common/c128.wgsl), with the conjugations of P.conj. {{ELEM_T}} is the
// element type, {{FMA}}, {{MUL}}, {{ADD}} name the dtype's functions,
// {{LOAD_A}} / {{LOAD_B}} read A[a] / B[b], {{ZERO}}, {{ALPHA}}, {{BETA}}
// are values of ELEM_T. Correct and simple, not fast: a GEMM with tiles is a
// later step. Operands in place with any strides (u32 sums wrap, as in
// gemm.wgsl). Needs common/u64.wgsl (and common/f64.wgsl for f64).
override WG: u32 = 256u;

struct Params {
  M: u32,
  N: u32,
  K: u32,
  nbatch: u32,
  batch_rank: u32,
  a_off: u32,
  b_off: u32,
  c_off: u32,
  sam: u32,
  sak: u32,
  sbk: u32,
  sbn: u32,
  scm: u32,
  scn: u32,
  epi: u32,               // 0: C = acc; 1: alpha * acc; 2: alpha * acc + beta * C
  conj: u32,              // c128: bit 0 conjugates A, bit 1 B
  alpha: vec4<u32>,       // .xy: the value (c128: all four words)
  beta: vec4<u32>,
  batch_shape: vec4<u32>, // batch axes, innermost first
  batch_a: vec4<u32>,
  batch_b: vec4<u32>,
  batch_c: vec4<u32>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> A: array<{{ELEM_T}}>;
@group(0) @binding(2) var<storage, read> B: array<{{ELEM_T}}>;
@group(0) @binding(3) var<storage, read_write> C: array<{{ELEM_T}}>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.x + nwg.x * (wid.y + nwg.y * wid.z)) * WG + lid;
  let per = P.M * P.N;
  if (i >= per * P.nbatch) {
    return;
  }
  var bi = i / per;
  let r = i - bi * per;
  let m = r / P.N;
  let n = r - m * P.N;
  var a = P.a_off + m * P.sam;
  var b = P.b_off + n * P.sbn;
  var c = P.c_off + m * P.scm + n * P.scn;
  for (var d = 0u; d < P.batch_rank; d++) {
    let e = P.batch_shape[d];
    let x = bi % e;
    bi = bi / e;
    a += x * P.batch_a[d];
    b += x * P.batch_b[d];
    c += x * P.batch_c[d];
  }
  var acc = {{ZERO}};
  for (var k = 0u; k < P.K; k++) {
    acc = {{FMA}}({{LOAD_A}}, {{LOAD_B}}, acc);
    a += P.sak;
    b += P.sbk;
  }
  if (P.epi != 0u) {
    acc = {{MUL}}({{ALPHA}}, acc);
    if (P.epi == 2u) {
      acc = {{ADD}}(acc, {{MUL}}({{BETA}}, C[c]));
    }
  }
  C[c] = acc;
}
