// tril/triu, second step: zeroes the elements of a compact result that lie
// outside the kept triangle of each (rows x cols) matrix (src/webgpu/
// structural.c first copies the operand into it). tril keeps col - row <= k,
// triu keeps col - row >= k. Elements are moved by size, so every dtype works.
//   {{DST_ARRAY}}   type of the destination array
//   {{STORE_ZERO}}  statement storing a zero element at index `k`
override WG: u32 = 256u;
override EPT: u32 = 4u;

struct Params {
  numel: u32,       // elements of the result, < 2^31
  rows: u32,
  cols: u32,
  upper: u32,       // 1: triu, 0: tril
  k: i32,           // diagonal offset, clamped to [-rows - 1, cols + 1]
  dst_offset: u32,  // element offset inside the bound window
  pad0: u32,
  pad1: u32,
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
    let col = i % P.cols;
    let row = (i / P.cols) % P.rows;
    let d = i32(col) - i32(row);
    var zero = d > P.k;
    if (P.upper == 1u) {
      zero = d < P.k;
    }
    if (zero) {
      let k = P.dst_offset + i;
      {{STORE_ZERO}};
    }
  }
}
