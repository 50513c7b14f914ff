// Tiled transposing copy of 4-byte elements with 16-byte accesses: the
// layout of transpose_tiled.wgsl (axis `c` the destination's innermost, axis
// `r` the one along which the source is contiguous, a batch of up to 14 axes;
// common/transpose_tile.wgsl has the parameters and each workgroup's tile),
// restricted by src/webgpu/copy.c to views where every access can be a whole
// vec4: unit source stride along `r`, unit destination stride along `c`,
// every other stride, both offsets and both extents `n_c`, `n_r` multiples of
// 4 elements (copy.c splits off the unaligned edges of other views).
//
// A workgroup of WG invocations moves a TILE x TILE tile. Loading, invocation
// i takes 4 x 4 blocks: four vec4 loads from four consecutive source rows (c)
// at the same four elements of `r`, issued together; consecutive invocations
// walk `r`, so each load instruction reads whole rows of TILE * 4 bytes. The
// block is transposed in registers and stored as four vec4 runs along `c`.
// Storing, consecutive invocations walk `c` of one destination row. Workgroup
// memory holds the tile as TILE rows (r) of TILE / 4 vec4 chunks (c); chunk q
// of row r sits at slot q ^ ((r >> 2) & 7) of its row (an XOR swizzle instead
// of padding, so the tile of 64 x 64 f32 fits in 16 KiB): the eight 16-byte
// accesses of each quarter-warp (one phase of a 128-bit shared access on
// NVIDIA) fall on eight different 16-byte bank groups in both phases.
// Index arithmetic wraps in u32 as in copy_strided.wgsl.
//   {{SRC_T}}    scalar type of a source element (u32, f32, i32)
//   {{VALUE_T}}  scalar type of a destination element
//   {{CONVERT}}  expression of `v` (one source element): the value to store
override TILE: u32 = 64u;
const WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> src: array<vec4<{{SRC_T}}>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<{{VALUE_T}}>>;

var<workgroup> tile: array<vec4<{{VALUE_T}}>, TILE * TILE / 4u>;

// Slot of chunk q (elements 4q .. 4q + 3 of `c`) of tile row r.
fn slot(r: u32, q: u32) -> u32 {
  return r * (TILE / 4u) + (q ^ ((r >> 2u) & (min(TILE / 4u, 8u) - 1u)));
}

fn cvt(v: {{SRC_T}}) -> {{VALUE_T}} {
  return {{CONVERT}};
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = tfr_tile_group(wid, nwg);
  if (group >= tfr_tile_count()) {
    return;  // uniform per workgroup: allowed before the barrier
  }
  let t = tfr_tile(group);
  let chunks = TILE / 4u;
  let s = P.src_stride_c;
  // Chunks are whole: a block is in the view or out of it as a whole.
  for (var blk = lid; blk < chunks * chunks; blk += WG) {
    let rq = blk % chunks;
    let cq = blk / chunks;
    let c = t.c0 + 4u * cq;
    let r = t.r0 + 4u * rq;
    if (c < P.n_c && r < P.n_r) {
      let j = t.src_base + c * s + r;
      let a0 = src[j >> 2u];
      let a1 = src[(j + s) >> 2u];
      let a2 = src[(j + 2u * s) >> 2u];
      let a3 = src[(j + 3u * s) >> 2u];
      let y = 4u * rq;
      tile[slot(y, cq)] = vec4<{{VALUE_T}}>(cvt(a0.x), cvt(a1.x), cvt(a2.x), cvt(a3.x));
      tile[slot(y + 1u, cq)] = vec4<{{VALUE_T}}>(cvt(a0.y), cvt(a1.y), cvt(a2.y), cvt(a3.y));
      tile[slot(y + 2u, cq)] = vec4<{{VALUE_T}}>(cvt(a0.z), cvt(a1.z), cvt(a2.z), cvt(a3.z));
      tile[slot(y + 3u, cq)] = vec4<{{VALUE_T}}>(cvt(a0.w), cvt(a1.w), cvt(a2.w), cvt(a3.w));
    }
  }
  workgroupBarrier();
  for (var q = lid; q < TILE * chunks; q += WG) {
    let y = q / chunks;
    let cq = q % chunks;
    let row = t.r0 + y;
    let col = t.c0 + 4u * cq;
    if (col < P.n_c && row < P.n_r) {
      let k = t.dst_base + row * P.dst_stride_r + col;
      dst[k >> 2u] = tile[slot(y, cq)];
    }
  }
}
