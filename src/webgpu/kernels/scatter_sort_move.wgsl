// Stable move of one radix pass (see scatter_sort_hist.wgsl): workgroup g
// first turns the digit totals into each digit's first position (an
// exclusive scan over the 256 digits, common/workgroup_scan.wgsl) plus the
// counts of the blocks before it (scatter_sort_scan.wgsl). It then takes its block in EPT rounds of WG
// consecutive keys; in each round every invocation ranks its key among the
// round's keys of the same digit that come before it (a 256-bit mask per
// digit in workgroup memory, popcounts), and writes (key, value) to the
// digit's base + that rank. The bases advance by each round's digit counts,
// so equal digits keep their order.
override WG: u32 = 256u;  // must be 256: one mask bit and one digit per invocation
override EPT: u32 = 16u;

struct Params {
  n: u32,
  shift: u32,
  ngroups: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read> hist: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> vals_out: array<u32>;

var<workgroup> mask: array<atomic<u32>, 2048>;  // digit d: words 8d .. 8d + 7
var<workgroup> base: array<u32, 256>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (g >= P.ngroups) {
    return;
  }
  // The digit's first position: the totals of the smaller digits, plus the
  // counts of the blocks before this one.
  let total = hist[256u * P.ngroups + lid];
  base[lid] = tfr_workgroup_scan(lid, total).x - total + hist[lid * P.ngroups + g];
  for (var e = 0u; e < EPT; e++) {
    for (var q = 0u; q < 8u; q++) {
      atomicStore(&mask[q * 256u + lid], 0u);
    }
    workgroupBarrier();
    let i = g * (WG * EPT) + e * WG + lid;
    let valid = i < P.n;
    var key = 0u;
    var d = 0u;
    if (valid) {
      key = keys_in[i];
      d = (key >> P.shift) & 255u;
      atomicOr(&mask[8u * d + (lid >> 5u)], 1u << (lid & 31u));
    }
    workgroupBarrier();
    if (valid) {
      let wl = lid >> 5u;
      var r = countOneBits(atomicLoad(&mask[8u * d + wl]) & ((1u << (lid & 31u)) - 1u));
      for (var q = 0u; q < wl; q++) {
        r += countOneBits(atomicLoad(&mask[8u * d + q]));
      }
      let pos = base[d] + r;
      keys_out[pos] = key;
      vals_out[pos] = vals_in[i];
    }
    workgroupBarrier();
    var t = 0u;
    for (var q = 0u; q < 8u; q++) {
      t += countOneBits(atomicLoad(&mask[8u * lid + q]));
    }
    base[lid] += t;
    workgroupBarrier();
  }
}
