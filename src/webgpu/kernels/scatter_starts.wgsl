// Ordered scatter whose windows tile the result (scatter_apply_tiled.wgsl):
// after the sort, each run of equal keys records its first sorted position
// at starts[key]. Keys without a run leave their entry as it was (any
// value): the reader checks an entry against the keys before it trusts it.
override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> starts: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let i = group * WG + lid;
  if (i >= P.count) {
    return;
  }
  let s = P.first + i;
  let key = keys[s];
  if (key != P.skip && (s == 0u || keys[s - 1u] != key)) {
    starts[key] = s;
  }
}
