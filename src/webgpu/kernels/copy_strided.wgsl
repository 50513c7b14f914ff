// Strided copy with element conversion: dst[k(i)] = convert(src[j(i)]) for
// every element i of a view of up to 16 merged axes. src/webgpu/copy.c merges
// axes, binds the window of each buffer the view reaches and iterates any
// further axes on the host. Index arithmetic is u32 and wraps: strides are the
// low 32 bits of the signed element strides, and since every final index lies
// inside the bound window, the wrapped sums are exact.
//   {{SRC_ARRAY}}  type of the source array
//   {{DST_ARRAY}}  type of the destination array
//   {{VALUE_T}}    type of a converted value
//   {{LOAD}}       expression: the source element at index `j` (u32)
//   {{CONVERT}}    expression of `v` (the loaded element): the value to store
//   {{STORE}}      statement storing `val` at destination index `k`
override WG: u32 = 256u;
// Elements per invocation: workgroup g covers elements [g, g + 1) * WG * EPT,
// invocation `lid` every WG-th of them from g * WG * EPT + lid, so each step
// of the loop is a contiguous run across the workgroup (coalesced).
override EPT: u32 = 4u;

struct Params {
  numel: u32,               // elements of this dispatch, < 2^31
  rank: u32,                // merged axes, 1..16; axis 0 is the innermost
  src_offset: u32,          // element offsets inside the bound windows
  dst_offset: u32,
  shape: array<vec4<u32>, 4>,
  src_stride: array<vec4<u32>, 4>,
  dst_stride: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: {{SRC_ARRAY}};
@group(0) @binding(2) var<storage, read_write> dst: {{DST_ARRAY}};

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // Grids above maxComputeWorkgroupsPerDimension are folded into 2-D/3-D.
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let first = group * (WG * EPT) + lid;
  let last = P.rank - 1u;
  for (var e = 0u; e < EPT; e++) {
    let i = first + e * WG;
    if (i >= P.numel) {
      return;
    }
    var rem = i;
    var j = P.src_offset;
    var k = P.dst_offset;
    // The outermost axis takes what is left without a division (i < numel),
    // so a compact copy (one merged axis) divides nothing.
    for (var d = 0u; d < last; d++) {
      let n = P.shape[d >> 2u][d & 3u];
      let c = rem % n;
      rem = rem / n;
      j += c * P.src_stride[d >> 2u][d & 3u];
      k += c * P.dst_stride[d >> 2u][d & 3u];
    }
    j += rem * P.src_stride[last >> 2u][last & 3u];
    k += rem * P.dst_stride[last >> 2u][last & 3u];
    let v = {{LOAD}};
    let val: {{VALUE_T}} = {{CONVERT}};
    {{STORE}};
  }
}
