// gather: dst[i] = src[clamped start(b) + batching(b) + window(w)] for every
// element i of the compact result, one invocation each (coalesced writes).
// src/webgpu/gather_scatter.c merges the result axes (each is a batch axis
// or a window axis; axes of extent 1 dropped, neighbours contiguous in both
// operand and index tensor merged) and binds the window of each buffer the
// view reaches. Metadata per merged result axis, innermost first:
// (extent, operand stride, index-tensor stride); then per start component
// (hi_lo, hi_hi, operand stride) from P.start_base (common/index_space.wgsl).
//   {{SRC_ARRAY}}   type of the operand array
//   {{DST_ARRAY}}   type of the result array
//   {{LOAD}}        expression: the operand element at index `j` (u32)
//   {{STORE}}       statement storing `val` at result index `k`
//   {{META_DECL}}   the storage metadata declaration (binding 3), or nothing
//   {{DST_BINDING}} 3, or 4 with storage metadata
override WG: u32 = 256u;

struct Params {
  numel: u32,       // elements of this dispatch
  first: u32,       // result index of its first element
  rank: u32,        // merged result axes, >= 1
  nstart: u32,      // start components
  src_offset: u32,  // element offsets inside the bound windows
  ind_offset: u32,
  dst_offset: u32,
  vstride: u32,     // index-tensor stride between start components
  start_base: u32,  // metadata word of the first start component
  flags: u32,       // bit 0: clamp starts (always, for gather)
  pad0: u32,
  pad1: u32,
  words: array<vec4<u32>, 13>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: {{SRC_ARRAY}};
@group(0) @binding(2) var<storage, read> ind: array<u32>;
{{META_DECL}}
@group(0) @binding({{DST_BINDING}}) var<storage, read_write> dst: {{DST_ARRAY}};

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let i = group * WG + lid;
  if (i >= P.numel) {
    return;
  }
  var rem = P.first + i;
  var j = P.src_offset;
  var v = P.ind_offset;
  let last = P.rank - 1u;
  for (var d = 0u; d < last; d++) {
    let n = tfr_meta(3u * d);
    let c = rem % n;
    rem = rem / n;
    j += c * tfr_meta(3u * d + 1u);
    v += c * tfr_meta(3u * d + 2u);
  }
  j += rem * tfr_meta(3u * last + 1u);
  v += rem * tfr_meta(3u * last + 2u);
  j = tfr_window_start(v, j).x;  // clamped: never skipped
  let k = P.dst_offset + P.first + i;
  let val = {{LOAD}};
  {{STORE}};
}
