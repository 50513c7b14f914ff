// Prefix sums of u32 over a workgroup of 256 invocations (Hillis-Steele in
// workgroup memory), for the radix sort of the ordered scatter
// (scatter_sort_scan.wgsl, scatter_sort_move.wgsl).
var<workgroup> tfr_scan_part: array<u32, 256>;

// Every invocation `lid` (0..255) passes its x; returns (x[0] + ... + x[lid],
// x[0] + ... + x[255]), wrapping. All 256 invocations must call it together,
// in uniform control flow (it has barriers); it may be called again at once.
fn tfr_workgroup_scan(lid: u32, x: u32) -> vec2<u32> {
  tfr_scan_part[lid] = x;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off = off << 1u) {
    var y = 0u;
    if (lid >= off) {
      y = tfr_scan_part[lid - off];
    }
    workgroupBarrier();
    tfr_scan_part[lid] += y;
    workgroupBarrier();
  }
  let r = vec2<u32>(tfr_scan_part[lid], tfr_scan_part[255]);
  workgroupBarrier();
  return r;
}
