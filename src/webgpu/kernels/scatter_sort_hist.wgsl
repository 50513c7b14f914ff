// Stable LSD radix sort of (key, value) u32 pairs for the ordered scatter,
// 8 bits per pass, three kernels per pass: scatter_sort_hist.wgsl (digit
// counts per block), scatter_sort_scan.wgsl (per digit, the exclusive scan of
// its counts over the blocks, and the digit's total) and
// scatter_sort_move.wgsl (stable move to the scanned positions). A block is
// the WG * EPT consecutive elements of one workgroup.
//
// This kernel: hist[d * P.ngroups + g] = the number of keys of block g whose
// digit (key >> P.shift) & 255 is d.
override WG: u32 = 256u;  // must be 256: one digit per invocation
override EPT: u32 = 16u;

struct Params {
  n: u32,        // elements
  shift: u32,    // digit position
  ngroups: u32,  // blocks
  pad0: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> hist: array<u32>;

var<workgroup> count: array<atomic<u32>, 256>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let g = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (g >= P.ngroups) {
    return;
  }
  atomicStore(&count[lid], 0u);
  workgroupBarrier();
  for (var e = 0u; e < EPT; e++) {
    let i = g * (WG * EPT) + e * WG + lid;
    if (i < P.n) {
      atomicAdd(&count[(keys[i] >> P.shift) & 255u], 1u);
    }
  }
  workgroupBarrier();
  hist[lid * P.ngroups + g] = atomicLoad(&count[lid]);
}
