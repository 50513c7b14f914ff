// iota: element i of a compact result holds (i / inner) % extent, its index
// along iota_dimension (inner = product of the extents after that axis),
// converted to the result's dtype.
//   {{DST_ARRAY}}  type of the destination array
//   {{VALUE_T}}    type of a converted value
//   {{CONVERT}}    expression of `v` (u32): the value to store
//   {{STORE}}      statement storing `val` at index `k`
override WG: u32 = 256u;
override EPT: u32 = 4u;

struct Params {
  numel: u32,       // elements of the result, < 2^31
  inner: u32,
  extent: u32,
  dst_offset: u32,  // element offset inside the bound window
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> dst: {{DST_ARRAY}};

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let first = group * (WG * EPT) + lid;
  for (var e = 0u; e < EPT; e++) {
    let i = first + e * WG;
    if (i >= P.numel) {
      return;
    }
    let v = (i / P.inner) % P.extent;
    let val: {{VALUE_T}} = {{CONVERT}};
    let k = P.dst_offset + i;
    {{STORE}};
  }
}
