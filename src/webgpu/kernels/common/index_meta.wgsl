// Metadata words of gather*.wgsl and scatter*.wgsl: shapes and strides, in
// the uniform parameters (P.words) or, when they do not fit there (very high
// ranks), in a read-only storage buffer `M` (src/webgpu/gather_scatter.c).
//   {{META}}  expression: metadata word `i`

fn tfr_meta(i: u32) -> u32 {
  return {{META}};
}
