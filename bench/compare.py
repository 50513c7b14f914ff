#!/usr/bin/env python3
"""Sets tenferro-bench JSON beside a peer's JSON (same cases) and prints a
markdown table with the time ratio ours / peer (< 1: tenferro is faster).

usage: compare.py OURS.json PEER.json [--title TEXT] [--out FILE.md]
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("peer")
    ap.add_argument("--peer-name", default="numpy")
    ap.add_argument("--title", default="")
    ap.add_argument("--out")
    args = ap.parse_args()
    ours = json.load(open(args.ours))
    peer = json.load(open(args.peer))
    pmap = {r["case"]: r for r in peer["results"]}
    lines = []
    if args.title:
        lines += [args.title, ""]
    lines.append(f"| case | tenferro ms | {args.peer_name} ms | ratio (ours/{args.peer_name}) | tenferro rate |")
    lines.append("|---|---:|---:|---:|---:|")
    missing = []
    for r in ours["results"]:
        p = pmap.get(r["case"])
        if not p:
            missing.append(r["case"])
            continue
        ratio = r["median_s"] / p["median_s"]
        if r.get("flops"):
            rate = f"{r['flops'] / r['median_s'] * 1e-9:.1f} GFLOP/s"
        else:
            rate = f"{r['bytes'] / r['median_s'] * 1e-9 if r['bytes'] else 0:.1f} GB/s"
        lines.append(f"| `{r['case']}` | {r['median_s']*1e3:.3f} | {p['median_s']*1e3:.3f} | "
                     f"{ratio:.2f} | {rate} |")
    done = {r["case"] for r in ours["results"]}
    failed = [c for c in pmap if c not in done]
    if failed:
        lines += ["", "Not run by tenferro (error or unsupported): " + ", ".join(f"`{c}`" for c in failed)]
    if missing:
        lines += ["", "No peer number: " + ", ".join(f"`{c}`" for c in missing)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
