// Exclusive prefix sum, in place, of the P.n digit counts of
// scatter_sort_hist.wgsl, by one workgroup of 256 invocations: each sums a
// contiguous chunk, a scan of the 256 partial sums in workgroup memory gives
// each chunk its base, then each writes its chunk's prefixes. The counts are
// 16 per block of 1024 keys: 2^20 keys make 16384 counts, 64 per invocation.
struct Params {
  n: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> hist: array<u32>;

var<workgroup> part: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  let chunk = (P.n + 255u) / 256u;
  let lo = min(lid * chunk, P.n);
  let hi = min(lo + chunk, P.n);
  var s = 0u;
  for (var i = lo; i < hi; i++) {
    s += hist[i];
  }
  part[lid] = s;
  workgroupBarrier();
  // Inclusive scan of part (Hillis-Steele).
  for (var off = 1u; off < 256u; off = off << 1u) {
    var t = 0u;
    if (lid >= off) {
      t = part[lid - off];
    }
    workgroupBarrier();
    part[lid] += t;
    workgroupBarrier();
  }
  var run = 0u;
  if (lid > 0u) {
    run = part[lid - 1u];
  }
  for (var i = lo; i < hi; i++) {
    let x = hist[i];
    hist[i] = run;
    run += x;
  }
}
