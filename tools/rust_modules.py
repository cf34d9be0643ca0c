"""Reads the module tree of a Rust crate for module-cycles.py: tokens without comments and
strings, `mod` declarations (test modules left out), defined names, `use` trees and the paths
and names that code refers to.
"""

import os
import re

KEYWORDS = set(
    "as async await break const continue crate dyn else enum extern false fn for if impl in let "
    "loop match mod move mut pub ref return self Self static struct super trait true type union "
    "unsafe use where while macro_rules".split()
)
TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<ident>r#[A-Za-z_]\w*|\$?[A-Za-z_]\w*)|(?P<num>\d[\w]*(?:\.\d[\w]*)?)"
    r"|(?P<path>::)|(?P<punct>.)",
    re.S,
)
DEFINING = {".", "::", "'", "fn", "struct", "enum", "union", "trait", "type", "const", "static"}
DEFINING |= {"mod", "let", "macro_rules"}
ITEM_KEYWORDS = {"fn", "struct", "enum", "union", "trait", "type", "static", "const"}


def tokenize(text):
    """(kind, text, line) tokens of Rust source, without comments, strings and char literals."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            line += text.count("\n", i, j)
            i = j
            continue
        raw = re.match(r'(?:b|c)?r(#*)"', text[i : i + 260])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find('"' + raw.group(1), i + raw.end())
            j = n if end < 0 else end + 1 + len(raw.group(1))
            out.append(("str", "", line))
            line += text.count("\n", i, j)
            i = j
            continue
        if c == '"' or (c in "bc" and text.startswith('"', i + 1) and not _word_before(text, i)):
            j = text.index('"', i) + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(("str", text[text.index('"', i) + 1 : j], line))
            line += text.count("\n", i, j + 1)
            i = j + 1
            continue
        if c == "'" or (c == "b" and text.startswith("'", i + 1) and not _word_before(text, i)):
            q = text.index("'", i)
            if text.startswith("\\", q + 1):
                j = q + 2
                while j < n and text[j] != "'":
                    j += 1
                out.append(("char", "", line))
                i = j + 1
                continue
            if q + 2 < n and text[q + 2] == "'":
                out.append(("char", "", line))
                i = q + 3
                continue
            i = q + 1  # a lifetime or label: its name follows as an identifier
            out.append(("punct", "'", line))
            continue
        m = TOKEN.match(text, i)
        kind, value = m.lastgroup, m.group()
        if kind == "ws":
            line += value.count("\n")
        else:
            out.append((kind, value[2:] if value.startswith("r#") else value, line))
        i = m.end()
    return out


def _word_before(text, i):
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def _close(tokens, i):
    """Index just past the bracket group that opens at tokens[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    while i < len(tokens):
        t = tokens[i][1]
        if t in pairs:
            stack.append(pairs[t])
        elif stack and t == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return i


def _item_end(tokens, i):
    """Index just past the item starting at tokens[i] (its `;` or its first `{ }` block)."""
    while i < len(tokens):
        t = tokens[i][1]
        if t == ";":
            return i + 1
        if t == "{":
            j = _close(tokens, i)
            return j + 1 if j < len(tokens) and tokens[j][1] == ";" else j
        if t in "([":
            i = _close(tokens, i)
            continue
        i += 1
    return i


def _is_test_attr(tokens):
    text = "".join(t[1] for t in tokens)
    return re.match(r"cfg\((all\()?test\b", text) is not None


class Module:
    """One module: its children, the names it defines and imports, and what its code names."""

    def __init__(self, name, parent, file, child_dir):
        self.name, self.parent, self.file, self.child_dir = name, parent, file, child_dir
        self.children, self.defined, self.imports, self.globs = {}, set(), {}, []
        self.refs = []  # (segments, line, from_use): paths and names to resolve
        self.uses = []  # (segments, line, is_glob) of every `use`, at any depth

    def label(self):
        return self.name or "crate"


def parse_use(tokens, i, module, top):
    """Reads a `use` tree starting after `use`; returns the index past its `;`."""
    end = _item_end(tokens, i)
    prefix, stack, cur, alias = [], [], [], False
    line = tokens[i][2] if i < len(tokens) else 0

    def leaf():
        nonlocal cur
        if cur:
            path = prefix + cur
            if path[-1] == "self":
                path = path[:-1]
            if path and path[0] != "":
                module.uses.append((path, line, False))
                if top:
                    module.imports[cur[-1] if cur[-1] != "self" else path[-1]] = path
        cur = []

    for kind, text, _ in tokens[i : end - 1]:
        if alias:
            if top and cur:
                module.imports[text] = prefix + (cur[:-1] if cur[-1] == "self" else cur)
                module.uses.append((prefix + cur, line, False))
            cur, alias = [], False
        elif kind == "ident" and text == "as":
            alias = True
        elif kind == "ident":
            cur.append(text)
        elif text == "*":
            module.uses.append((prefix + cur, line, True))
            if top:
                module.globs.append(prefix + cur)
            cur = []
        elif text == "{":
            stack.append(len(prefix))
            prefix = prefix + cur
            cur = []
        elif text == ",":
            leaf()
        elif text == "}":
            leaf()
            prefix = prefix[: stack.pop()]
    leaf()
    return end


def parse_module(module, tokens, lo, hi, crate):
    """Reads the items and references of a module from tokens[lo:hi]."""
    i, depth, attrs = lo, 0, []
    while i < hi:
        kind, text, line = tokens[i]
        if text == "#" and i + 1 < hi and tokens[i + 1][1] in "[!":
            start = i + 1 if tokens[i + 1][1] == "[" else i + 2
            j = _close(tokens, start)
            if tokens[i + 1][1] == "[":
                attrs.append(tokens[start + 1 : j - 1])
            i = j
            continue
        if attrs and any(_is_test_attr(a) for a in attrs):
            attrs = []
            i = _item_end(tokens, i)
            continue
        path_attr = next(
            (a[2][1] for a in attrs if len(a) == 3 and a[0][1] == "path" and a[2][0] == "str"),
            None,
        )
        attrs = []
        if kind == "ident" and text == "use":
            i = parse_use(tokens, i + 1, module, depth == 0)
            continue
        if kind == "ident" and text == "mod" and depth == 0 and i + 2 < hi:
            name, after = tokens[i + 1][1], tokens[i + 2][1]
            sub = module.name + "::" + name if module.name else name
            if after == ";":
                file = _mod_file(module, name, path_attr)
                if file:
                    child = Module(sub, module, file, _child_dir(file))
                    module.children[name] = child
                    load_file(child, crate)
                i += 3
                continue
            if after == "{":
                end = _close(tokens, i + 2)
                child = Module(sub, module, module.file, os.path.join(module.child_dir, name))
                module.children[name] = child
                crate.append(child)
                parse_module(child, tokens, i + 3, end - 1, crate)
                i = end
                continue
        if depth == 0 and kind == "ident" and i + 1 < hi:
            nxt = tokens[i + 1]
            if text in ITEM_KEYWORDS and nxt[0] == "ident" and nxt[1] not in ("fn", "mut"):
                module.defined.add(nxt[1])
            elif text == "static" and nxt[1] == "mut" and i + 2 < hi:
                module.defined.add(tokens[i + 2][1])
            elif text == "macro_rules" and i + 2 < hi:
                module.defined.add(tokens[i + 2][1])
        if text == "{":
            depth += 1
        elif text == "}":
            depth -= 1
        if kind == "ident" and text not in KEYWORDS - {"crate", "self", "super"}:
            prev = tokens[i - 1][1] if i > lo else ""
            nxt = tokens[i + 1][1] if i + 1 < hi else ""
            in_vis = prev == "in" and i - 2 >= lo and tokens[i - 2][1] == "("
            if prev not in DEFINING and not in_vis and nxt != ":":
                segs, j = [text], i + 1
                while j + 1 < hi and tokens[j][1] == "::" and tokens[j + 1][0] == "ident":
                    segs.append(tokens[j + 1][1])
                    j += 2
                module.refs.append((segs, line, False))
                i = j
                continue
        i += 1


def _mod_file(module, name, path_attr):
    base = module.child_dir
    if path_attr:
        cand = os.path.join(os.path.dirname(module.file), path_attr)
        return cand if os.path.isfile(cand) else None
    for cand in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
        if os.path.isfile(cand):
            return cand
    return None


def _child_dir(file):
    stem = os.path.splitext(os.path.basename(file))[0]
    if stem in ("lib", "main", "mod"):
        return os.path.dirname(file)
    return os.path.join(os.path.dirname(file), stem)


def load_file(module, crate):
    crate.append(module)
    with open(module.file, encoding="utf-8") as f:
        tokens = tokenize(f.read())
    parse_module(module, tokens, 0, len(tokens), crate)
