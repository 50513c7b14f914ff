// Last step of an ordered scatter whose windows tile the result: window
// `key` is the result elements [key * P.key_scale, (key + 1) * P.key_scale),
// contiguous (src/webgpu/gather_scatter.c decides). Instead of a copy of
// the operand followed by scatter_apply.wgsl, every result element is
// written once here: the operand's element, combined with the updates of
// its window's run of sorted keys (scatter_starts.wgsl found the run) in
// sorted order, as scatter_apply.wgsl combines them, so results are the
// same bit for bit. Invocation (key, j), j < P.napply, takes the window
// elements w = j + k * P.napply (k < EPW); neighbouring invocations take
// neighbouring elements.
//   {{UPD_ARRAY}}, {{OPND_ARRAY}}, {{DST_ARRAY}}, {{VALUE_T}}
//   {{EPW}}        window elements per invocation (GS_APPLY_EPW)
//   {{OLOAD}}      expression: the operand element at `o`
//   {{ULOAD}}      expression: the updates element at `uj`
//   {{COMBINE}}    expression of `acc` (so far) and `x` (the update)
//   (ULOAD and COMBINE are used by common/scatter_run.wgsl)
//   {{STORE}}      statement storing `val` at result element `t`
//   {{META_DECL}}  the storage metadata declaration (binding 6), or nothing
//   {{DST_BINDING}} 6, or 7 with storage metadata
override WG: u32 = 256u;
const EPW: u32 = {{EPW}}u;

@group(0) @binding(1) var<storage, read> upd: {{UPD_ARRAY}};
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<u32>;
@group(0) @binding(4) var<storage, read> starts: array<u32>;
@group(0) @binding(5) var<storage, read> opnd: {{OPND_ARRAY}};
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
  let key = g / P.napply;
  let wp = g % P.napply;
  let nw = P.key_scale;
  let t0 = key * nw;
  var wus: array<u32, EPW>;
  var accs: array<{{VALUE_T}}, EPW>;
  for (var k = 0u; k < EPW; k++) {
    let w = wp + k * P.napply;
    if (w < nw) {
      let o = P.opnd_offset + t0 + w;
      accs[k] = {{OLOAD}};
      wus[k] = tfr_window(w).y;
    }
  }
  // The run of this key, if it has one: starts[key] is trusted only when
  // the keys there say that a run of `key` starts there.
  let s = starts[key];
  if (s < P.n_units && keys[s] == key && (s == 0u || keys[s - 1u] != key)) {
    tfr_combine_run(s, key, wp, nw, false, &wus, &accs);
  }
  for (var k = 0u; k < EPW; k++) {
    let w = wp + k * P.napply;
    if (w < nw) {
      let t = P.dst_offset + t0 + w;
      let val = accs[k];
      {{STORE}};
    }
  }
}
