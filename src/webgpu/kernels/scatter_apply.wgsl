// Last step of the ordered scatter: the keys sorted stably (scatter_sort_*),
// each run of equal keys is applied by one invocation in unit order, i.e. in
// row-major batch order, exactly as the cpu backend does: float sums and
// products round identically, and replace leaves the last update. Runs are
// disjoint, so invocations never meet. Invocation (s, w) of the
// P.napply per sorted position s: when s starts a run, per-element units
// (P.flags bit 1) combine into the key's result element (w = 0); window units
// combine window element w of every member's window into key * P.key_scale +
// w's offset.
//   {{UPD_ARRAY}}, {{DST_ARRAY}}, {{VALUE_T}}
//   {{DLOAD}}      expression: the result element at `t`
//   {{ULOAD}}      expression: the updates element at `uj`
//   {{COMBINE}}    expression of `acc` (so far) and `x` (the update)
//   {{STORE}}      statement storing `val` at result element `t`
//   {{META_DECL}}  the storage metadata declaration (binding 4), or nothing
//   {{DST_BINDING}} 4, or 5 with storage metadata
override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> upd: {{UPD_ARRAY}};
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<u32>;
{{META_DECL}}
@group(0) @binding({{DST_BINDING}}) var<storage, read_write> dst: {{DST_ARRAY}};

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let i = group * WG + lid;
  if (i >= P.count) {
    return;
  }
  let g = P.first + i;
  let s = g / P.napply;
  let wp = g % P.napply;
  let key = keys[s];
  if (key == P.skip || (s > 0u && keys[s - 1u] == key)) {
    return;
  }
  let per_element = (P.flags & 2u) != 0u;
  var t = P.dst_offset + key * P.key_scale;
  if (!per_element) {
    t += tfr_window(wp).x;
  }
  var acc: {{VALUE_T}} = {{DLOAD}};
  for (var e = s; e < P.n_units; e++) {
    if (keys[e] != key) {
      break;
    }
    let u = vals[e];
    var b = u;
    var w = wp;
    if (per_element) {
      b = u / P.win_numel;
      w = u % P.win_numel;
    }
    let uj = tfr_batch(b).y + tfr_window(w).y;
    let x: {{VALUE_T}} = {{ULOAD}};
    acc = {{COMBINE}};
  }
  let val = acc;
  {{STORE}};
}
