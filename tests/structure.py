#!/usr/bin/env python3
"""The house's structure, checked (make check runs it; python3 and Universal
Ctags, both Debian packages):

1. The direct calls between the files of src/ form no circle of any length:
   a file that calls a function defined in another (with external linkage)
   depends on it, and no chain of such dependencies comes back to where it
   started. A function passed down as a callback is a name without a call
   there: no arrow.
2. No function of src/ or ui/ is longer than 80 lines, except those listed
   in LONG_OK with the reason their length is their grammar.

Prints what it found; exits 1 on a circle or an unlisted long function.
`tests/structure.py --graph` prints the file graph (who calls whom, with
the names) instead."""
import os
import re
import subprocess
import sys

MAX_LINES = 80
# Tables and parsers whose length is their grammar (each says so where it
# is defined).
LONG_OK = {
    ("src/procfs.c", "procfs_parse_stat"): "the fields of /proc/PID/stat, one after the other",
}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def functions(paths):
    """(name, file, start, end, static) for every function ctags finds."""
    try:
        out = subprocess.run(
            ["ctags", "-x", "--c-kinds=f", "--_xformat=%N\t%F\t%n\t%e\t%{file}"] + paths,
            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"structure: cannot run Universal Ctags ({e}): install universal-ctags (make deps)")
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 4 or not f[3].isdigit():
            # no end line: its length cannot be checked, and a check that
            # passes on what it did not read is no check
            sys.exit(f"structure: ctags gave no end line for {f[0]} ({':'.join(f[1:3])}): "
                     "Universal Ctags with the end field is needed")
        rows.append((f[0], f[1], int(f[2]), int(f[3]), len(f) > 4 and f[4] not in ("", "-")))
    if not rows:
        sys.exit("structure: ctags found no function: nothing was checked")
    return rows


def strip(text):
    """The code without comments, strings and character constants (their
    newlines kept)."""
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pat.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0).startswith("/*") else " ", text)


def call_graph(files, funcs):
    """file -> {file it calls: [names]} over the given files."""
    owner = {}
    for name, path, _s, _e, static in funcs:
        if not static:
            owner.setdefault(name, set()).add(path)
    call = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
    graph = {f: {} for f in files}
    for f in files:
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            text = strip(fh.read())
        defined_here = {n for n, p, _s, _e, st in funcs if p == f}
        for name in set(call.findall(text)):
            if name in defined_here or name not in owner:
                continue
            for g in owner[name]:
                if g != f and g in graph:
                    graph[f].setdefault(g, []).append(name)
    return graph


def circles(graph):
    """The strongly connected sets of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    src = sorted("src/" + n for n in os.listdir(os.path.join(ROOT, "src")) if n.endswith(".c"))
    ui = sorted("ui/" + n for n in os.listdir(os.path.join(ROOT, "ui")) if n.endswith(".c"))
    funcs = functions(src + ui)
    graph = call_graph(src, funcs)
    if "--graph" in sys.argv[1:]:
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print(f"{f} -> {g}: {', '.join(sorted(graph[f][g]))}")
        return 0
    bad = 0
    for comp in circles(graph):
        bad = 1
        print(f"structure: a circle of {len(comp)} files in src/: {' '.join(comp)}")
        for f in comp:
            for g in sorted(graph[f]):
                if g in comp:
                    print(f"  {f} -> {g}: {', '.join(sorted(graph[f][g]))}")
    nlong = 0
    for name, path, start, end, _st in sorted(funcs, key=lambda r: (r[1], r[2])):
        n = end - start + 1
        if n <= MAX_LINES:
            continue
        if (path, name) in LONG_OK:
            nlong += 1
            continue
        bad = 1
        print(f"structure: {path}:{start}: {name} is {n} lines (at most {MAX_LINES})")
    if not bad:
        print(f"structure: {len(src)} files of src/ call each other with no circle; "
              f"no function of src/ or ui/ over {MAX_LINES} lines but {nlong} listed")
    return bad


if __name__ == "__main__":
    sys.exit(main())
