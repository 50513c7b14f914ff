// Tiled transposing copy with element conversion. The view is a batch of 2-D
// blocks: axis `c` is the destination's innermost axis, axis `r` the one along
// which the source is contiguous. A workgroup of TILE x ROWS invocations reads
// a TILE x TILE block with consecutive invocations walking `r` (coalesced
// reads), TILE / ROWS elements each, passes it through workgroup memory, and
// writes it with consecutive invocations walking `c` (coalesced writes). The
// transposed reads of workgroup memory stay off a single bank either by a
// column of padding (PAD = 1, SWZ = 0: the 32 x 32 tile) or by an XOR swizzle
// without padding (PAD = 0, SWZ = TILE - 1: element x of row y at
// x ^ (y & SWZ), so that a 64 x 64 tile of 4-byte values fits in 16 KiB).
// Up to 14 further axes form the batch (common/transpose_tile.wgsl: the
// parameters and each workgroup's tile); src/webgpu/copy.c iterates any others
// on the host. Index arithmetic wraps in u32 as in copy_strided.wgsl.
//   {{SRC_ARRAY}} {{DST_ARRAY}} {{VALUE_T}} {{LOAD}} {{CONVERT}} {{STORE}}
//   as in copy_strided.wgsl.
override TILE: u32 = 32u;
override ROWS: u32 = 8u;
override PAD: u32 = 1u;
override SWZ: u32 = 0u;

@group(0) @binding(1) var<storage, read> src: {{SRC_ARRAY}};
@group(0) @binding(2) var<storage, read_write> dst: {{DST_ARRAY}};

var<workgroup> tile: array<{{VALUE_T}}, TILE * (TILE + PAD)>;

// Position of element x of tile row y in workgroup memory.
fn tix(y: u32, x: u32) -> u32 {
  return y * (TILE + PAD) + (x ^ (y & SWZ));
}

@compute @workgroup_size(TILE, ROWS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  let group = tfr_tile_group(wid, nwg);
  if (group >= tfr_tile_count()) {
    return;  // uniform per workgroup: allowed before the barrier
  }
  let t = tfr_tile(group);
  for (var y = lid.y; y < TILE; y += ROWS) {
    let col = t.c0 + y;
    let row = t.r0 + lid.x;
    if (col < P.n_c && row < P.n_r) {
      let j = t.src_base + col * P.src_stride_c + row * P.src_stride_r;
      let v = {{LOAD}};
      tile[tix(y, lid.x)] = {{CONVERT}};
    }
  }
  workgroupBarrier();
  for (var y = lid.y; y < TILE; y += ROWS) {
    let row = t.r0 + y;
    let col = t.c0 + lid.x;
    if (col < P.n_c && row < P.n_r) {
      let k = t.dst_base + col * P.dst_stride_c + row * P.dst_stride_r;
      let val = tile[tix(lid.x, y)];
      {{STORE}};
    }
  }
}
