"""Tests of tools/doc-shape.py: what fails, what passes, what is skipped."""

import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location("doc_shape", os.path.join(HERE, "doc-shape.py"))
doc_shape = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(doc_shape)


class DocShape(unittest.TestCase):
    def run_on(self, files, rust=None):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, text in files.items():
                path = os.path.join(d, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                if name.endswith(".md"):
                    paths.append(path)
            args = paths + (["--rust-modules"] + [os.path.join(d, r) for r in rust] if rust else [])
            return doc_shape.main(args)

    def test_a_long_cell_or_line_fails_and_a_short_table_passes(self):
        short = "| a | b |\n|---|---|\n| x | y |\n"
        self.assertEqual(self.run_on({"ok.md": short}), 0)
        self.assertEqual(self.run_on({"cell.md": f"| a | b |\n|---|---|\n| {'x' * 301} | y |\n"}), 1)
        self.assertEqual(self.run_on({"line.md": "w " * 201 + "\n"}), 1)

    def test_code_blocks_are_not_read(self):
        text = "```text\n" + "| " + "x" * 500 + " |\n```\n"
        self.assertEqual(self.run_on({"code.md": text}), 0)

    def test_a_rust_module_needs_its_doc_comment(self):
        good = {"src/a.rs": "//! A module.\nfn f() {}\n", "src/tests.rs": "fn t() {}\n"}
        self.assertEqual(self.run_on(good, rust=["src"]), 0)
        bad = dict(good, **{"src/b.rs": "use std::io;\n"})
        self.assertEqual(self.run_on(bad, rust=["src"]), 1)


if __name__ == "__main__":
    unittest.main()
