#!/usr/bin/env python3
"""Seeded tensor networks of the kinds users bring, written as instance files.

Families (every network closed: a scalar result, as amplitudes and norms are):
  rrg3_N        random 3-regular graph of N vertices, bonds of extent 2
  lattice2d_RxC 2-D square lattice, open boundaries, bonds of extent 2
  lattice3d_L   3-D cubic lattice L x L x L, bonds of extent 2
  mps_N_D       <psi|psi> of an MPS of N sites, physical extent 2, bond extent D
  peps_L_D      <psi|psi> of an L x L PEPS, physical extent 2, bond extent D
  mera_N        <psi|psi> of a binary MERA on N = 2^k sites (disentanglers and
                isometries, every index of extent 2)
  circuit_Q_G   amplitude <x|C|0> of a random circuit of Q qubits on a line and
                G two-qubit gates (each between neighbours, 2x2x2x2), single-qubit
                gates (2x2) on both qubits before each, |0> and <x| as vectors

Each file is an instance of examples/instances/'s format: "format_string"
(one code point per label, from U+0100, past the surrogates), "shapes" and
"dtype" (float64). The graphs depend only on the family, the size and the
seed (Python's random.Random, stable across Python 3 versions).

usage: bench/networks.py OUTDIR [--small] [NAME ...]   (--small: only the
networks of at most 52 labels, which numpy's einsum_path can take; NAMEs: only
these, where rrg3_N may be of any N, e.g. rrg3_220 for bench/distributed.sh)
"""
import json
import os
import random
import sys


def label(i):
    c = 0x100 + i
    return chr(c if c < 0xD800 else c + 0x800)


class Net:
    """Operands as lists of label ids; extents per label id."""

    def __init__(self):
        self.terms = []
        self.extent = []

    def new(self, extent):
        self.extent.append(extent)
        return len(self.extent) - 1

    def add(self, labels):
        self.terms.append(list(labels))

    def write(self, path):
        doc = {"format_string": ",".join("".join(label(l) for l in t) for t in self.terms) + "->",
               "shapes": [[self.extent[l] for l in t] for t in self.terms],
               "dtype": "float64"}
        with open(path, "w") as f:
            json.dump(doc, f)


def graph_net(n, edges, extent=2):
    net = Net()
    terms = [[] for _ in range(n)]
    for a, b in edges:
        l = net.new(extent)
        terms[a].append(l)
        terms[b].append(l)
    for t in terms:
        net.add(t)
    return net


def rrg3(n, seed):
    # The configuration model, redrawn until simple (no loops, no multi-edges).
    rng = random.Random(seed)
    while True:
        stubs = [v for v in range(n) for _ in range(3)]
        rng.shuffle(stubs)
        edges = [(stubs[i], stubs[i + 1]) for i in range(0, len(stubs), 2)]
        if all(a != b for a, b in edges) and len({tuple(sorted(e)) for e in edges}) == len(edges):
            return graph_net(n, edges)


def lattice2d(rows, cols):
    e = []
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            if c + 1 < cols:
                e.append((v, v + 1))
            if r + 1 < rows:
                e.append((v, v + cols))
    return graph_net(rows * cols, e)


def lattice3d(L):
    e = []
    idx = lambda x, y, z: (x * L + y) * L + z
    for x in range(L):
        for y in range(L):
            for z in range(L):
                if x + 1 < L:
                    e.append((idx(x, y, z), idx(x + 1, y, z)))
                if y + 1 < L:
                    e.append((idx(x, y, z), idx(x, y + 1, z)))
                if z + 1 < L:
                    e.append((idx(x, y, z), idx(x, y, z + 1)))
    return graph_net(L ** 3, e)


def mps(n, D):
    net = Net()
    phys = [net.new(2) for _ in range(n)]
    for side in range(2):  # ket, bra: the same physical labels
        bonds = [net.new(D) for _ in range(n - 1)]
        for i in range(n):
            t = [phys[i]]
            if i > 0:
                t.append(bonds[i - 1])
            if i + 1 < n:
                t.append(bonds[i])
            net.add(t)
    return net


def peps(L, D):
    net = Net()
    phys = [net.new(2) for _ in range(L * L)]
    for side in range(2):
        h = {(r, c): net.new(D) for r in range(L) for c in range(L - 1)}
        v = {(r, c): net.new(D) for r in range(L - 1) for c in range(L)}
        for r in range(L):
            for c in range(L):
                t = [phys[r * L + c]]
                if c > 0:
                    t.append(h[(r, c - 1)])
                if c + 1 < L:
                    t.append(h[(r, c)])
                if r > 0:
                    t.append(v[(r - 1, c)])
                if r + 1 < L:
                    t.append(v[(r, c)])
                net.add(t)
    return net


def mera(n):
    # Binary MERA, bottom-up: on each layer of m sites, disentanglers on the
    # pairs (1,2), (3,4), ..., (m-1,0) (periodic), then isometries joining
    # (0,1), (2,3), ... into m/2 sites; a top tensor closes the last 2.
    net = Net()
    phys = [net.new(2) for _ in range(n)]
    for side in range(2):
        legs = list(phys)
        m = n
        while m > 2:
            out = [net.new(2) for _ in range(m)]
            for i in range(1, m, 2):
                j = (i + 1) % m
                net.add([legs[i], legs[j], out[i], out[j]])
            if m % 2:
                out[0] = legs[0]
            up = [net.new(2) for _ in range(m // 2)]
            for k in range(m // 2):
                net.add([out[2 * k], out[2 * k + 1], up[k]])
            legs = up
            m //= 2
        net.add(legs)
    return net


def circuit(q, gates, seed):
    rng = random.Random(seed)
    net = Net()
    wire = [net.new(2) for _ in range(q)]
    for w in wire:
        net.add([w])  # |0>
    for _ in range(gates):
        a = rng.randrange(q - 1)
        for k in (a, a + 1):  # single-qubit gates
            o = net.new(2)
            net.add([wire[k], o])
            wire[k] = o
        oa, ob = net.new(2), net.new(2)
        net.add([wire[a], wire[a + 1], oa, ob])
        wire[a], wire[a + 1] = oa, ob
    for w in wire:
        net.add([w])  # <x|
    return net


def networks():
    """(name, Net) of every network, smallest first per family."""
    out = []
    for n in (8, 20, 50, 100, 200):
        out.append((f"rrg3_{n}", rrg3(n, seed=n)))
    for r, c in ((2, 4), (4, 4), (8, 8), (16, 16), (32, 32)):
        out.append((f"lattice2d_{r}x{c}", lattice2d(r, c)))
    for L in (3, 4, 5):
        out.append((f"lattice3d_{L}", lattice3d(L)))
    for n, D in ((4, 8), (8, 8), (50, 32), (200, 64)):
        out.append((f"mps_{n}_{D}", mps(n, D)))
    for L, D in ((3, 2), (4, 4), (6, 3)):
        out.append((f"peps_{L}_{D}", peps(L, D)))
    for n in (8, 32, 128):
        out.append((f"mera_{n}", mera(n)))
    for q, g in ((4, 6), (10, 40), (20, 120)):
        out.append((f"circuit_{q}_{g}", circuit(q, g, seed=q * 1000 + g)))
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    small = "--small" in sys.argv[2:]
    names = [a for a in sys.argv[2:] if a != "--small"]
    nets = networks()
    known = {name for name, _ in nets}
    for name in names:
        if name not in known:
            n = name[len("rrg3_"):] if name.startswith("rrg3_") else ""
            if not n.isdigit() or int(n) < 4 or int(n) % 2:
                print(f"networks.py: no network {name!r}", file=sys.stderr)
                return 2
            nets.append((name, rrg3(int(n), seed=int(n))))
    os.makedirs(outdir, exist_ok=True)
    for name, net in nets:
        if (small and len(net.extent) > 52) or (names and name not in names):
            continue
        net.write(os.path.join(outdir, name + ".json"))
        print(name, len(net.terms), "operands", len(net.extent), "labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
