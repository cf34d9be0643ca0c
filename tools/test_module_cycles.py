"""Tests of tools/module-cycles.py on small crates written to temporary folders.

Run: python3 -m unittest discover -s tools -p 'test_*.py'
"""

import contextlib
import importlib.util
import io
import os
import tempfile
import textwrap
import unittest

_SPEC = importlib.util.spec_from_file_location(
    "module_cycles", os.path.join(os.path.dirname(os.path.abspath(__file__)), "module-cycles.py")
)
module_cycles = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(module_cycles)


class ModuleCycles(unittest.TestCase):
    def run_on(self, files):
        """Writes `files` ({path: source}) as a crate's src/ and runs the checker on it."""
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            for path, text in files.items():
                full = os.path.join(src, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as f:
                    f.write(textwrap.dedent(text))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = module_cycles.main([src])
            crate = module_cycles.Crate(os.path.join(src, "lib.rs"), "test")
            edges = {(a.label(), b.label()) for a, b in crate.edges()}
        return status, out.getvalue(), edges

    def test_cycle_through_a_reexport_is_found_between_the_defining_modules(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod a;\nmod b;\npub use b::Item;\n",
            "a.rs": "use crate::Item;\n\npub fn helper(_: Item) {}\n",
            "b.rs": "pub struct Item;\n\nfn f() {\n    crate::a::helper(Item);\n}\n",
        })
        self.assertEqual(status, 1, out)
        self.assertIn(("a", "b"), edges)
        self.assertIn(("b", "a"), edges)
        self.assertNotIn(("a", "crate"), edges)
        self.assertIn("cycle 1 (2 modules)", out)
        self.assertRegex(out, r"a -> b +.*a\.rs:1")
        self.assertRegex(out, r"b -> a +.*b\.rs:4")
        self.assertIn("1 cycles", out.splitlines()[-1])

    def test_a_reexport_through_a_glob_resolves_to_the_defining_module(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod a;\nmod b;\npub use a::*;\n",
            "a.rs": "pub struct Thing;\n",
            "b.rs": "fn f() -> crate::Thing {\n    crate::Thing\n}\n",
        })
        self.assertEqual(status, 0, out)
        self.assertIn(("b", "a"), edges)
        self.assertNotIn(("b", "crate"), edges)

    def test_parent_and_child_without_a_cycle(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod p;\n",
            "p/mod.rs": "mod c;\nmod d;\n\npub fn run() {\n    c::go();\n}\n",
            "p/c.rs": "use super::d::Shared;\n\npub fn go() {\n    let _ = Shared;\n}\n",
            "p/d.rs": "pub struct Shared;\n",
        })
        self.assertEqual(status, 0, out)
        self.assertEqual(edges, {("p", "p::c"), ("p::c", "p::d")})
        self.assertIn("4 modules, 2 edges, 0 cycles", out)

    def test_a_child_using_its_parent_through_a_glob_is_an_edge_to_the_parent(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod p;\n",
            "p/mod.rs": "mod c;\n\npub fn shared() {}\n\npub fn run() {\n    c::go();\n}\n",
            "p/c.rs": "use super::*;\n\npub fn go() {\n    shared();\n}\n",
        })
        self.assertEqual(status, 1, out)
        self.assertEqual(edges, {("p", "p::c"), ("p::c", "p")})

    def test_mentions_in_comments_strings_and_test_code_are_ignored(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": """\
                //! Uses nothing from [`crate::b`].
                // crate::b::f() would be a cycle
                /* crate::b::f() /* nested */ crate::b::f() */
                pub fn g() -> &'static str {
                    let _c = '"';
                    "crate::b::f()"
                }

                #[cfg(test)]
                mod tests {
                    use crate::b::f;
                }

                #[cfg(test)]
                fn only_in_tests() {
                    crate::b::f();
                }
            """,
            "b.rs": "/// Calls [`crate::a::g`].\npub fn f() {\n    crate::a::g();\n}\n",
        })
        self.assertEqual(status, 0, out)
        self.assertEqual(edges, {("b", "a")})

    def test_file_test_modules_are_not_read(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "pub fn g() {}\n\n#[cfg(test)]\nmod tests;\n",
            "a/tests.rs": "use crate::b::f;\n",
            "b.rs": "pub fn f() {\n    crate::a::g();\n}\n",
        })
        self.assertEqual(status, 0, out)
        self.assertIn("3 modules, 1 edges, 0 cycles", out)

    def test_inline_modules_are_modules(self):
        status, out, edges = self.run_on({
            "lib.rs": "mod a;\n\npub mod inner {\n    pub fn h() {\n        crate::a::g();\n"
            "    }\n}\n",
            "a.rs": "pub fn g() {}\n\npub fn k() {\n    crate::inner::h();\n}\n",
        })
        self.assertEqual(status, 1, out)
        self.assertEqual(edges, {("inner", "a"), ("a", "inner")})


if __name__ == "__main__":
    unittest.main()
