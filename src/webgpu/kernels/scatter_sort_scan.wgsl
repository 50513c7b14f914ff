// The scan of one radix pass (see scatter_sort_hist.wgsl): workgroup d
// replaces the counts hist[d * P.ngroups + g] of digit d by their exclusive
// prefix sums over the blocks g, in tiles of 256 (common/workgroup_scan.wgsl,
// carried from tile to tile), and writes the digit's total
// to hist[256 * P.ngroups + d]. scatter_sort_move.wgsl adds the totals of
// the smaller digits.
struct Params {
  n: u32,
  shift: u32,
  ngroups: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> hist: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let d = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (d >= 256u) {
    return;
  }
  let base = d * P.ngroups;
  var carry = 0u;
  for (var t = 0u; t < P.ngroups; t += 256u) {
    let i = t + lid;
    var x = 0u;
    if (i < P.ngroups) {
      x = hist[base + i];
    }
    let r = tfr_workgroup_scan(lid, x);
    if (i < P.ngroups) {
      hist[base + i] = carry + r.x - x;
    }
    carry += r.y;
  }
  if (lid == 0u) {
    hist[256u * P.ngroups + d] = carry;
  }
}
