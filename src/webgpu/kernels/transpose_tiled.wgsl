// Tiled transposing copy with element conversion. The view is a batch of 2-D
// blocks: axis `c` is the destination's innermost axis, axis `r` the one along
// which the source is contiguous. A workgroup reads a TILE x TILE block with
// consecutive invocations walking `r` (coalesced reads), passes it through
// workgroup memory, and writes it with consecutive invocations walking `c`
// (coalesced writes). The +1 column of padding keeps the transposed reads of
// workgroup memory off a single bank. Up to 6 further axes form the batch;
// src/webgpu/copy.c iterates any others on the host. Index arithmetic wraps
// in u32 as in copy_strided.wgsl.
//   {{SRC_ARRAY}} {{DST_ARRAY}} {{VALUE_T}} {{LOAD}} {{CONVERT}} {{STORE}}
//   as in copy_strided.wgsl.
override TILE: u32 = 32u;
override ROWS: u32 = 8u;

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
  batch_shape: array<vec4<u32>, 2>,
  batch_src_stride: array<vec4<u32>, 2>,
  batch_dst_stride: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: {{SRC_ARRAY}};
@group(0) @binding(2) var<storage, read_write> dst: {{DST_ARRAY}};

var<workgroup> tile: array<{{VALUE_T}}, TILE * (TILE + 1u)>;

@compute @workgroup_size(TILE, ROWS)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  // Uniform per workgroup, so returning before the barrier is allowed.
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  if (group >= P.tiles_c * P.tiles_r * P.nbatch) {
    return;
  }
  let tc = group % P.tiles_c;
  let rest = group / P.tiles_c;
  let tr = rest % P.tiles_r;
  var b = rest / P.tiles_r;
  var src_base = P.src_offset;
  var dst_base = P.dst_offset;
  for (var d = 0u; d < P.batch_rank; d++) {
    let n = P.batch_shape[d >> 2u][d & 3u];
    let c = b % n;
    b = b / n;
    src_base += c * P.batch_src_stride[d >> 2u][d & 3u];
    dst_base += c * P.batch_dst_stride[d >> 2u][d & 3u];
  }
  let c0 = tc * TILE;
  let r0 = tr * TILE;
  for (var y = lid.y; y < TILE; y += ROWS) {
    let col = c0 + y;
    let row = r0 + lid.x;
    if (col < P.n_c && row < P.n_r) {
      let j = src_base + col * P.src_stride_c + row * P.src_stride_r;
      let v = {{LOAD}};
      tile[y * (TILE + 1u) + lid.x] = {{CONVERT}};
    }
  }
  workgroupBarrier();
  for (var y = lid.y; y < TILE; y += ROWS) {
    let row = r0 + y;
    let col = c0 + lid.x;
    if (col < P.n_c && row < P.n_r) {
      let k = dst_base + col * P.dst_stride_c + row * P.dst_stride_r;
      let val = tile[lid.x * (TILE + 1u) + y];
      {{STORE}};
    }
  }
}
