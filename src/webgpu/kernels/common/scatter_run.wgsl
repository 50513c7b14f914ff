// The in-order combination of the ordered scatter's last step
// (scatter_apply.wgsl, scatter_apply_tiled.wgsl; each declares `keys`,
// `vals`, `upd` and EPW): the run of `key` that starts at sorted position
// `s`, combined into accs[k] for the window elements wp + k * P.napply < nw
// (k < EPW; wus[k]: their updates offsets inside a member's window) one
// member after the other in sorted order, which is batch order: the cpu's
// order of operations.
fn tfr_combine_run(s: u32, key: u32, wp: u32, nw: u32, per_element: bool,
                   wus: ptr<function, array<u32, EPW>>,
                   accs: ptr<function, array<{{VALUE_T}}, EPW>>) {
  for (var e = s; e < P.n_units; e++) {
    if (keys[e] != key) {
      break;
    }
    let u = vals[e];
    var u0 = tfr_batch(select(u, u / P.win_numel, per_element)).y;
    if (per_element) {
      u0 += tfr_window(u % P.win_numel).y;
    }
    for (var k = 0u; k < EPW; k++) {
      if (wp + k * P.napply < nw) {
        let uj = u0 + (*wus)[k];
        let x: {{VALUE_T}} = {{ULOAD}};
        let acc = (*accs)[k];
        (*accs)[k] = {{COMBINE}};
      }
    }
  }
}
