// First step of the ordered scatter: the sort key of every unit, and the
// unit itself as its value. A unit is a batch position b (P.flags bit 1
// clear: windows are equal or disjoint, key = the window's start in the
// result) or an updates element (b, w) (bit 1 set: key = the result element
// it combines into). Units are numbered in row-major batch order (then
// window order), so a stable sort by key lists, for each key, its updates in
// the order the scatter applies them. Keys are result offsets divided by
// P.key_scale (1 for element units; for whole windows a divisor of every
// window's start, gs_key_scale in gather_scatter.c). A skipped window's units
// get the key P.skip (the result's element count / P.key_scale), which
// sorts last.
//   {{META_DECL}}  the storage metadata declaration (binding 2), or nothing
//   {{KEYS_BINDING}}, {{VALS_BINDING}} 2 and 3, or 3 and 4 with storage metadata
override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> ind: array<u32>;
{{META_DECL}}
@group(0) @binding({{KEYS_BINDING}}) var<storage, read_write> keys: array<u32>;
@group(0) @binding({{VALS_BINDING}}) var<storage, read_write> vals: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let u = group * WG + lid;
  if (u >= P.n_units) {
    return;
  }
  let per_element = (P.flags & 2u) != 0u;
  let b = select(u, u / P.win_numel, per_element);
  let bt = tfr_batch(b);
  let st = tfr_window_start(bt.x, bt.z);
  var key = P.skip;
  if (st.y == 0u) {
    if (per_element) {
      key = st.x + tfr_window(u % P.win_numel).x;
    } else {
      key = st.x / P.key_scale;
    }
  }
  keys[u] = key;
  vals[u] = u;
}
