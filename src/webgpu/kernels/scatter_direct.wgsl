// scatter without ordering: one invocation per updates element (batch
// position b, window element w), combining it into the result at the
// window's start + w. Used when no two invocations can meet at one result
// element in a way that order matters: a single batch position, or a
// combiner that is exact in any order and done with an atomic (i32 add,
// maximum, minimum; bool maximum = or, minimum = and). Skipped windows (any
// start out of bounds, unless P.flags bit 0 clamps) do nothing.
//   {{UPD_ARRAY}}  type of the updates array `upd`
//   {{DST_ARRAY}}  type of the result array `dst`
//   APPLY (placeholder) statements combining update element `uj` into result element `t`
//   {{META_DECL}}  the storage metadata declaration (binding 3), or nothing
//   {{DST_BINDING}} 3, or 4 with storage metadata
override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> upd: {{UPD_ARRAY}};
@group(0) @binding(2) var<storage, read> ind: array<u32>;
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
  let u = P.first + i;
  let bt = tfr_batch(u / P.win_numel);
  let st = tfr_window_start(bt.x, bt.z);
  if (st.y != 0u) {
    return;
  }
  let wo = tfr_window(u % P.win_numel);
  let t = P.dst_offset + st.x + wo.x;
  let uj = bt.y + wo.y;
  {{APPLY}}
}
