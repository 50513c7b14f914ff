// Batch positions and window elements of scatter*.wgsl
// (src/webgpu/gather_scatter.c). Metadata (common/index_space.wgsl's
// tfr_meta): per merged batch axis, innermost first, (extent, index-tensor
// stride, updates stride, result stride of the batching dims it feeds); from
// 4 * P.nbatch, per merged window axis, innermost first, (extent, result
// stride, updates stride).

// Batch position b -> (index-vector element, updates offset, result offset
// of its batching dims).
fn tfr_batch(b: u32) -> vec3<u32> {
  var rem = b;
  var r = vec3<u32>(P.ind_offset, P.upd_offset, 0u);
  let last = P.nbatch - 1u;
  for (var d = 0u; d < last; d++) {
    let n = tfr_meta(4u * d);
    let c = rem % n;
    rem = rem / n;
    r += c * vec3<u32>(tfr_meta(4u * d + 1u), tfr_meta(4u * d + 2u), tfr_meta(4u * d + 3u));
  }
  r += rem * vec3<u32>(tfr_meta(4u * last + 1u), tfr_meta(4u * last + 2u),
                       tfr_meta(4u * last + 3u));
  return r;
}

// Window element w (row-major over the window) -> (result offset, updates
// offset) relative to the window's start.
fn tfr_window(w: u32) -> vec2<u32> {
  var rem = w;
  var r = vec2<u32>(0u, 0u);
  let base = 4u * P.nbatch;
  let last = P.nwin - 1u;
  for (var d = 0u; d < last; d++) {
    let m = base + 3u * d;
    let n = tfr_meta(m);
    let c = rem % n;
    rem = rem / n;
    r += c * vec2<u32>(tfr_meta(m + 1u), tfr_meta(m + 2u));
  }
  let m = base + 3u * last;
  r += rem * vec2<u32>(tfr_meta(m + 1u), tfr_meta(m + 2u));
  return r;
}
