#!/usr/bin/env python3
"""Finds circles among the source files of src/ (or the folders given).

A module is a .c file together with the header of the same name beside it
(memory.c + memory.h). Module A depends on module B when a file of A
includes B's header, or calls a function that B's .c file defines and does
not declare static. A circle is a set of two or more modules that depend on
each other, directly or through others (a strongly connected component).

Usage: check_layering.py [--list] ROOT [FOLDER ...]
  ROOT     the folder include paths are relative to (the repository's src/)
  FOLDER   the folders to check (default: every folder under ROOT)
  --list   print every module's dependencies too
Exits 1 when a circle exists, listing each with the edges that close it.
"""
import os
import re
import sys

COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function definition at file scope: a line starting with a type, then the
# name and "(", with the body's "{" ending the declaration.
DEFINITION = re.compile(r'^(?!static\b)(?:[A-Za-z_][\w \t\*]*?[\s\*])([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{',
                        re.M)
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def strip(text):
    text = COMMENT.sub(' ', text)
    text = STRING.sub('""', text)
    return text


def module_of(path):
    return os.path.splitext(path)[0]


def main(argv):
    listing = '--list' in argv
    args = [a for a in argv if a != '--list']
    if not args:
        print(__doc__)
        return 2
    root = os.path.abspath(args[0])
    folders = [os.path.abspath(f) for f in args[1:]] or [root]
    files = []
    for folder in folders:
        for dirpath, _, names in os.walk(folder):
            for n in sorted(names):
                if n.endswith(('.c', '.h')):
                    files.append(os.path.relpath(os.path.join(dirpath, n), root))
    files.sort()
    text = {}
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
            raw = fh.read()
        text[f] = (raw, strip(raw))

    modules = sorted({module_of(f) for f in files})
    # function -> module of the .c defining it (non-static). A function that
    # several modules define (alternative implementations for different
    # builds, such as webgpu/disabled/) links callers to none of them.
    defined = {}
    for f in files:
        if f.endswith('.c'):
            for name in DEFINITION.findall(text[f][1]):
                if defined.get(name, module_of(f)) != module_of(f):
                    defined[name] = None
                else:
                    defined[name] = module_of(f)

    deps = {m: {} for m in modules}  # module -> {module: reason}
    for f in files:
        m = module_of(f)
        raw, code = text[f]
        for inc in INCLUDE.findall(raw):
            target = module_of(os.path.normpath(inc))
            if target in deps and target != m:
                deps[m].setdefault(target, '%s includes %s' % (f, inc))
        if f.endswith('.c'):
            for name in CALL.findall(code):
                target = defined.get(name)
                if target and target != m:
                    deps[m].setdefault(target, '%s calls %s()' % (f, name))

    # Tarjan's strongly connected components.
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for m in modules:
        if m not in index:
            visit(m)

    if listing:
        for m in modules:
            for t, why in sorted(deps[m].items()):
                print('%s -> %s  (%s)' % (m, t, why))
    circles = [c for c in comps if len(c) > 1]
    for c in circles:
        print('circle of %d modules: %s' % (len(c), ', '.join(c)))
        members = set(c)
        for m in c:
            for t, why in sorted(deps[m].items()):
                if t in members:
                    print('  %s -> %s  (%s)' % (m, t, why))
    n_edges = sum(len(d) for d in deps.values())
    print('%d modules, %d dependencies, %d circles' % (len(modules), n_edges, len(circles)))
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
