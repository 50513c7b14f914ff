// Index space of gather*.wgsl and scatter*.wgsl (src/webgpu/gather_scatter.c):
// the metadata words (shapes and strides, in the uniform parameters or, for
// very high ranks, in a read-only storage buffer) and the start of a window
// read from the index tensor `ind` (array<u32>) with StableHLO's bounds rule.
// The kernel's Params has `nstart`, `vstride`, `start_base` and `flags`.
// Needs common/index_meta.wgsl (tfr_meta).
//   {{INDEX_LOAD}}   statements setting `lo` and `hi`, the start at element `e`
//                    of `ind` as a signed 64-bit value (gs_index_load in
//                    gather_scatter.c: every integer dtype; unsigned values of
//                    2^63 and more saturate to 2^63 - 1)
// Offsets are u32 and wrap: strides are the low 32 bits of the signed element
// strides, and every final offset lies inside the bound window, so the
// wrapped sums are exact (as in copy_strided.wgsl).

// Start component at index-tensor element `e` against the largest start that
// fits, (hi_lo, hi_hi) as a 64-bit value. Returns (start, state): state 0 in
// range, 1 negative (start 0), 2 above the largest (start hi_lo).
fn tfr_start(e: u32, hi_lo: u32, hi_hi: u32) -> vec2<u32> {
  var lo: u32;
  var hi: u32;
  {{INDEX_LOAD}}
  if ((hi & 0x80000000u) != 0u) {
    return vec2<u32>(0u, 1u);
  }
  if (hi > hi_hi || (hi == hi_hi && lo > hi_lo)) {
    return vec2<u32>(hi_lo, 2u);
  }
  return vec2<u32>(lo, 0u);
}

// Offset of a window start: `o` plus every start component of the index
// vector at element `v` of `ind` times its stride. Metadata from
// P.start_base: per component (hi_lo, hi_hi, stride). Returns (offset,
// skipped): a component out of range is clamped when P.flags bit 0 is set,
// else the window is skipped (skipped = 1).
fn tfr_window_start(v: u32, o: u32) -> vec2<u32> {
  var off = o;
  for (var k = 0u; k < P.nstart; k++) {
    let m = P.start_base + 3u * k;
    let s = tfr_start(v + k * P.vstride, tfr_meta(m), tfr_meta(m + 1u));
    if (s.y != 0u && (P.flags & 1u) == 0u) {
      return vec2<u32>(0u, 1u);
    }
    off += s.x * tfr_meta(m + 2u);
  }
  return vec2<u32>(off, 0u);
}
