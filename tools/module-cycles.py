#!/usr/bin/env python3
"""Reports import cycles between the modules of Rust crates.

Each argument is a crate's source folder (the one holding lib.rs and/or main.rs; each root is
its own crate). The module tree is read from the `mod` declarations, starting at the root:
lib.rs is the crate root, foo.rs or foo/mod.rs is `foo`, foo/bar.rs is `foo::bar`, and an
inline `mod x { }` block is a module of its own. Test code is ignored entirely: any item under
`#[cfg(test)]` (a `mod tests;` and its files, an inline `mod tests { }`, a test-only function
or `use`).

An edge A -> B means that A's code refers to something in module B:
  * a `use` of crate::, super::, self:: or a child module's path;
  * a path in code (crate::x::y, super::x, child::x), never one in a comment or a string;
  * a name that A takes in through a glob import (`use super::*`), resolved to where it is.
A path resolves to the module that defines its item: re-exports (`pub use a::b::Item`, also
through globs) are followed, so `crate::Item` is an edge to the module defining `Item`, not
to the crate root; a name that cannot be found resolves to the longest module prefix that
exists. A `mod` declaration is no edge, and `super::sibling::X` is an edge to the sibling.

Every strongly connected component of more than one module is printed with its edges and
one file:line per edge. Exit status: 1 if there is any cycle, 0 if none, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_modules import Module, load_file  # noqa: E402


class Crate:
    """The modules of one crate root and the resolution of names and paths among them."""

    def __init__(self, root_file, label):
        self.label, self.modules = label, []
        self.root = Module("", None, root_file, os.path.dirname(root_file))
        load_file(self.root, self.modules)

    def lookup(self, module, name, seen):
        """Where `name`, as seen in `module`, is: ("mod", M), ("item", M) or None."""
        if (module, name) in seen:
            return None
        seen.add((module, name))
        if name in module.children:
            return ("mod", module.children[name])
        if name in module.defined:
            return ("item", module)
        if name in module.imports:
            return self.resolve(module, module.imports[name], seen)
        for glob in module.globs:
            source = self.resolve(module, glob, seen)
            if source and source[0] == "mod":
                found = self.lookup(source[1], name, seen)
                if found:
                    return found
        return None

    def resolve(self, module, segs, seen=None):
        """The module (or the module of the item) a path written in `module` names."""
        seen = set() if seen is None else seen
        first, rest = segs[0], segs[1:]
        if first in ("crate", "$crate"):
            at = ("mod", self.root)
        elif first == "self":
            at = ("mod", module)
        elif first == "super":
            at = ("mod", module.parent or module)
            while rest and rest[0] == "super":
                at, rest = ("mod", at[1].parent or at[1]), rest[1:]
        else:
            at = self.lookup(module, first, seen)
            if at is None:
                return None
        for seg in rest:
            if at[0] != "mod":
                break
            found = self.lookup(at[1], seg, seen)
            if found is None:
                return ("item", at[1])
            at = found
        return at

    def edges(self):
        """{(from, to): (file, line)}: the first reference of each edge."""
        out = {}

        def add(src, target, line):
            if target and target[1] is not src:
                key = (src, target[1])
                ref = (src.file, line)
                if key not in out or ref < out[key]:
                    out[key] = ref

        for m in self.modules:
            for segs, line, glob in m.uses:
                if segs[0] in ("crate", "self", "super") or segs[0] in m.children:
                    target = self.resolve(m, segs)
                    if not (glob and target and target[0] == "mod"):
                        add(m, target, line)
            for segs, line, _ in m.refs:
                if len(segs) == 1:
                    if segs[0] in ("crate", "self", "super") or segs[0] in m.defined:
                        continue
                    if segs[0] in m.imports or segs[0] in m.children:
                        continue  # a use (edge already) or a local named like a module
                    found = self._through_globs(m, segs[0])
                    if found and found[0] == "item":
                        add(m, found, line)
                    continue
                if segs[0] == "Self" or (segs[0] in m.defined and segs[0] not in m.children):
                    continue
                add(m, self.resolve(m, segs), line)
        return out

    def _through_globs(self, module, name):
        for glob in module.globs:
            source = self.resolve(module, glob)
            if source and source[0] == "mod":
                found = self.lookup(source[1], name, set())
                if found:
                    return found
        return None


def components(nodes, succ):
    """Strongly connected components (Tarjan, iterative)."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x is v:
                            break
                    comps.append(comp)
            elif w not in index:
                index[w] = low[w] = counter[0]
                counter[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(succ.get(w, ()))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return comps


def shortest_cycle(start, members, succ):
    """A shortest cycle from `start` back to it inside `members`, as a list of modules."""
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in succ.get(v, ()):
                if w is start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start]


def report(crate, base, out):
    """Prints the cycles of one crate; returns (modules, edges, cycles)."""
    edges = crate.edges()
    succ = {}
    for a, b in sorted(edges, key=lambda e: (e[0].name, e[1].name)):
        succ.setdefault(a, []).append(b)
    nodes = sorted(crate.modules, key=lambda m: m.name)
    cycles = [sorted(c, key=lambda m: m.name) for c in components(nodes, succ) if len(c) > 1]
    cycles.sort(key=lambda c: c[0].name)
    for n, comp in enumerate(cycles, 1):
        members = set(comp)
        loop = shortest_cycle(comp[0], members, succ)
        print(f"{crate.label}: cycle {n} ({len(comp)} modules): "
              + " -> ".join(m.label() for m in loop), file=out)
        for a in comp:
            for b in succ.get(a, ()):
                if b in members:
                    file, line = edges[(a, b)]
                    where = os.path.relpath(file, base)
                    print(f"  {a.label()} -> {b.label()}    {where}:{line}", file=out)
    return len(crate.modules), len(edges), len(cycles)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("src", nargs="+", help="a crate's source folder (holding lib.rs/main.rs)")
    args = parser.parse_args(argv)
    totals = [0, 0, 0]
    for src in args.src:
        roots = [f for f in ("lib.rs", "main.rs") if os.path.isfile(os.path.join(src, f))]
        if not roots:
            parser.error(f"{src}: no lib.rs or main.rs")
        for root in roots:
            label = src.rstrip("/") + ("" if len(roots) == 1 else f" ({root})")
            counts = report(Crate(os.path.join(src, root), label), os.getcwd(), sys.stdout)
            totals = [t + c for t, c in zip(totals, counts)]
    modules, edges, cycles = totals
    print(f"module-cycles: {modules} modules, {edges} edges, {cycles} cycles"
          f" in {len(args.src)} source folders")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
