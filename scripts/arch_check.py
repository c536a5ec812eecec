#!/usr/bin/env python3
"""arch_check.py - guards the layout docs/ARCHITECTURE.md describes.

Reads every source file outside tests/ (C, C headers, CUDA) and fails, naming
each offence, when:
  - two units include each other through a cycle (a unit is a .c/.cu/.cc file and
    its header: the path without its extension);
  - two rooms do (a room is a top-level folder, or one of engine/'s folders);
  - a room includes a room of a higher layer (LAYERS below), or datasets/ or
    profiler/ include anything from engine/;
  - engine/'s root holds more than 8 files;
  - a source file is over 600 lines or a function over 80 (from the line of
    its name to its closing brace);
  - a comment names a source file (x.c, x.h, x.cu, dir/x.c) that does not exist.
Quoted includes resolve against the including file's folder, then the
repository root. Usage: scripts/arch_check.py [--report] (--report also prints
the room graph)."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_EXT = (".c", ".h", ".cu", ".cuh", ".cc")
SKIP_TOP = {"tests", ".git", "build", "build-asan", "build-tsan", "build-fuzz", ".venv", "bench-venv"}

# Rooms by layer: a room may include rooms of its own layer or lower ones
# (cycles are caught separately). Dependencies go downward only.
LAYERS = [
    ["base"],
    ["datasets"],
    ["engine/graph"],
    ["engine/machine"],
    ["engine/program"],
    ["engine/kernels"],
    ["engine/device"],
    ["engine/exec"],
    ["engine/partition", "engine/memplan"],
    ["engine/stream"],
    ["engine/sample", "engine/dist"],
    ["engine/train"],
    ["engine"],
    ["profiler", "cuda"],
    ["views"],
    ["app"],
    ["bench"],
]
# Rooms that may not include the engine at all (the rule: shared
# utilities live in base/, so loaders and the profiler stand alone).
NO_ENGINE = ("datasets", "profiler")
MAX_ENGINE_ROOT = 8
MAX_FILE_LINES = 600
MAX_FUNC_LINES = 80


def sources():
    out = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        top = rel.split(os.sep)[0]
        if rel != "." and (top in SKIP_TOP or top.startswith(".")):
            dirnames[:] = []
            continue
        for f in filenames:
            if f.endswith(SOURCE_EXT):
                out.append(os.path.normpath(os.path.join(rel, f)) if rel != "." else f)
    return sorted(out)


def room_of(path):
    parts = path.split("/")
    if len(parts) == 1:
        return "."
    if parts[0] == "engine":
        return "engine/" + parts[1] if len(parts) > 2 else "engine"
    return parts[0]


def unit_of(path):
    return os.path.splitext(path)[0]


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def resolve(path, inc, known):
    for base in (os.path.dirname(path), ""):
        cand = os.path.normpath(os.path.join(base, inc))
        if cand in known:
            return cand
    return None


def strip_code(text):
    """Comments and literals blanked (newlines kept), and the comments' text."""
    out, comments, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            comments.append((text.count("\n", 0, i) + 1, text[i:j]))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append((text.count("\n", 0, i) + 1, text[i:j]))
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), comments


def functions(code):
    """(name, first line, last line) of each function body at file scope:
    a '{' at depth 0 right after a parenthesised parameter list."""
    found, depth, name, start = [], 0, None, 0
    line_at = lambda k: code.count("\n", 0, k) + 1
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                name = None
                j = i - 1
                while j >= 0 and code[j].isspace():
                    j -= 1
                if j >= 0 and code[j] == ")":
                    level = 0
                    while j >= 0:
                        level += code[j] == ")"
                        level -= code[j] == "("
                        if level == 0:
                            break
                        j -= 1
                    m = re.search(r"(\w+)\s*$", code[max(0, j - 200):j])
                    if m and m.group(1) not in ("if", "for", "while", "switch", "sizeof", "return"):
                        name, start = m.group(1), line_at(j)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and name:
                found.append((name, start, line_at(i)))
                name = None
    return found


FILE_REF = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:c|h|cu|cuh))(?![\w])")


def sccs(graph):
    index, low, onstack, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    report = "--report" in sys.argv
    files = sources()
    known = set(files)
    basenames = {os.path.basename(f) for f in known}
    for dirpath, _, filenames in os.walk(os.path.join(ROOT, "tests")):
        basenames.update(f for f in filenames if f.endswith(SOURCE_EXT))
    layer = {room: k for k, rooms in enumerate(LAYERS) for room in rooms}
    problems, units, rooms, room_edges = [], {}, {}, {}
    for f in files:
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        nlines = text.count("\n")
        if nlines > MAX_FILE_LINES:
            problems.append(f"{f}: {nlines} lines (at most {MAX_FILE_LINES})")
        code, comments = strip_code(text)
        for name, a, b in functions(code):
            if b - a + 1 > MAX_FUNC_LINES:
                problems.append(f"{f}:{a}: function {name} is {b - a + 1} lines (at most {MAX_FUNC_LINES})")
        for line, comment in comments:
            for ref in FILE_REF.findall(comment):
                ok = os.path.basename(ref) in basenames if "/" not in ref else (
                    resolve(f, ref, known) or os.path.exists(os.path.join(ROOT, ref))
                    or os.path.exists(os.path.join(ROOT, os.path.dirname(f), ref))
                    or os.path.exists(os.path.join("/usr/include", ref)))
                if not ok:
                    problems.append(f"{f}:{line}: the comment names {ref}, which does not exist")
        for inc in INCLUDE.findall(text):
            target = resolve(f, inc, known)
            if not target:
                continue
            u, v = unit_of(f), unit_of(target)
            if u != v:
                units.setdefault(u, set()).add(v)
            ra, rb = room_of(f), room_of(target)
            if ra == rb:
                continue
            rooms.setdefault(ra, set()).add(rb)
            room_edges.setdefault((ra, rb), []).append(f"{f} -> {target}")
            if ra in NO_ENGINE and rb.startswith("engine"):
                problems.append(f"{f}: includes {target} ({ra}/ never includes the engine)")
            elif ra in layer and rb in layer and layer[ra] < layer[rb]:
                problems.append(f"{f}: includes {target} (room {ra} is below {rb})")
            elif ra not in layer or rb not in layer:
                problems.append(f"{f}: includes {target}: room {ra if ra not in layer else rb} has no layer in arch_check.py")
    for comp in sccs(units):
        problems.append("include cycle between units: " + " <-> ".join(comp))
    for comp in sccs(rooms):
        edges = [e for (a, b), es in room_edges.items() if a in comp and b in comp for e in es[:2]]
        problems.append("include cycle between rooms: " + " <-> ".join(comp) + " (" + "; ".join(edges) + ")")
    root_files = [f for f in os.listdir(os.path.join(ROOT, "engine")) if os.path.isfile(os.path.join(ROOT, "engine", f))]
    if len(root_files) > MAX_ENGINE_ROOT:
        problems.append(f"engine/ holds {len(root_files)} files at its root (at most {MAX_ENGINE_ROOT})")
    if report:
        for (a, b), es in sorted(room_edges.items()):
            print(f"{a} -> {b}: {len(es)}")
    for p in problems:
        print("arch: " + p)
    print(f"arch: {len(files)} files, {len(units)} units, {len(rooms)} rooms: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
