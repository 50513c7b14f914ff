// The parameters shared by transpose_tiled.wgsl and transpose_vec4.wgsl
// (src/webgpu/copy.c, tfr_wgpu_transpose_params), and the tile a workgroup
// moves: `c` is the destination's innermost axis, `r` the one along which the
// source is contiguous, up to 14 batch axes. Needs the kernel's TILE.
struct Params {
  tiles_c: u32,
  tiles_r: u32,
  nbatch: u32,
  batch_rank: u32,
  n_c: u32,
  n_r: u32,
  src_offset: u32,
  dst_offset: u32,
  src_stride_c: u32,
  src_stride_r: u32,
  dst_stride_c: u32,
  dst_stride_r: u32,
  batch_shape: array<vec4<u32>, 4>,
  batch_src_stride: array<vec4<u32>, 4>,
  batch_dst_stride: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<uniform> P: Params;

struct TfrTile {
  c0: u32,        // first element of the tile along c and r
  r0: u32,
  src_base: u32,  // element offsets of the tile's batch block
  dst_base: u32,
}

// The linear index of workgroup `wid` (grids above
// maxComputeWorkgroupsPerDimension are folded into 2-D/3-D), and the number
// of tiles: a kernel returns past it before any barrier (uniform per
// workgroup). Tiles run along c first, then r, then the batch.
fn tfr_tile_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}

fn tfr_tile_count() -> u32 {
  return P.tiles_c * P.tiles_r * P.nbatch;
}

fn tfr_tile(group: u32) -> TfrTile {
  let tc = group % P.tiles_c;
  let rest = group / P.tiles_c;
  let tr = rest % P.tiles_r;
  var b = rest / P.tiles_r;
  var t = TfrTile(tc * TILE, tr * TILE, P.src_offset, P.dst_offset);
  for (var d = 0u; d < P.batch_rank; d++) {
    let n = P.batch_shape[d >> 2u][d & 3u];
    let c = b % n;
    b = b / n;
    t.src_base += c * P.batch_src_stride[d >> 2u][d & 3u];
    t.dst_base += c * P.batch_dst_stride[d >> 2u][d & 3u];
  }
  return t;
}
