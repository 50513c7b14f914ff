// Last step of the ordered scatter: the keys sorted stably (scatter_sort_*),
// each run of equal keys is applied by invocations in unit order, i.e. in
// row-major batch order, exactly as the cpu backend does: float sums and
// products round identically, and replace leaves the last update. Runs are
// disjoint, so invocations never meet. Invocation (s, j), j < P.napply, of a
// sorted position s does nothing unless s starts a run. Then per-element
// units (P.flags bit 1) combine into the key's result element (j = 0);
// window units combine window elements w = j + k * P.napply (k < EPW) of
// every member's window into key * P.key_scale + w's offset: EPW elements
// per invocation share the walk over the run and have their loads in flight
// together, and neighbouring invocations take neighbouring elements.
//   {{UPD_ARRAY}}, {{DST_ARRAY}}, {{VALUE_T}}
//   {{EPW}}        window elements per invocation (GS_APPLY_EPW)
//   {{DLOAD}}      expression: the result element at `t`
//   {{ULOAD}}      expression: the updates element at `uj`
//   {{COMBINE}}    expression of `acc` (so far) and `x` (the update)
//   (ULOAD and COMBINE are used by common/scatter_run.wgsl)
//   {{STORE}}      statement storing `val` at result element `t`
//   {{META_DECL}}  the storage metadata declaration (binding 4), or nothing
//   {{DST_BINDING}} 4, or 5 with storage metadata
override WG: u32 = 256u;
const EPW: u32 = {{EPW}}u;

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
  let nw = select(P.win_numel, 1u, per_element);
  let t0 = P.dst_offset + key * P.key_scale;
  // Window units: each element's result and updates offsets in the window,
  // the same for every member of the run (element units: 0, their offset
  // in the updates comes with the unit).
  var ts: array<u32, EPW>;
  var wus: array<u32, EPW>;
  var accs: array<{{VALUE_T}}, EPW>;
  for (var k = 0u; k < EPW; k++) {
    let w = wp + k * P.napply;
    if (w < nw) {
      var t = t0;
      if (!per_element) {
        let wo = tfr_window(w);
        t += wo.x;
        wus[k] = wo.y;
      }
      ts[k] = t;
      accs[k] = {{DLOAD}};
    }
  }
  tfr_combine_run(s, key, wp, nw, per_element, &wus, &accs);
  for (var k = 0u; k < EPW; k++) {
    if (wp + k * P.napply < nw) {
      let t = ts[k];
      let val = accs[k];
      {{STORE}};
    }
  }
}
