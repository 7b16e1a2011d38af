"""Tests of draw.py: the committed figures are what the committed CSV files draw, drawing
is deterministic, and an edited CSV or a broken one is caught.

    python3 -m unittest discover -s toolcall-bench/figures -p 'test_*.py'

(toolcall-bench/tests/figures.rs runs this under `cargo test`.)
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

import draw  # noqa: E402 (the module under test, found through the path above)
import mcp_from_load  # noqa: E402


def quiet(function, *args):
    """`function(*args)` with stderr captured: (its result, what it printed)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        result = function(*args)
    return result, err.getvalue()


class Sandbox:
    """A copy of the committed CSV files in a temporary directory, drawn there."""

    def __init__(self, tmp: str):
        self.root = Path(tmp)
        self.data = self.root / "data"
        shutil.copytree(draw.DATA, self.data)
        self.benchmarks = self.root / "BENCHMARKS.md"
        self.benchmarks.write_text("# Benchmarks\n\nintro\n\n## Figures\n\nold text\n\n## Next\n\nkept\n")

    def args(self, *extra: str) -> list[str]:
        return ["--data", str(self.data), "--out", str(self.root), "--section", str(self.root / "section.md"),
                "--benchmarks", str(self.benchmarks), *extra]

    def run(self, *extra: str) -> tuple[int, str]:
        return quiet(draw.main, self.args(*extra))


class CommittedFigures(unittest.TestCase):
    def test_the_repository_figures_are_what_the_csv_files_draw(self):
        code, err = quiet(draw.main, ["--check"])
        self.assertEqual(code, 0, err)

    def test_every_figure_has_its_svg_and_the_section_shows_it(self):
        figures, section = draw.render(draw.DATA)
        self.assertEqual([f.name for f in figures], ["generator", "edit_loop", "mcp", "instructions"])
        for figure in figures:
            self.assertTrue((draw.HERE / f"{figure.name}.svg").exists(), figure.name)
            self.assertIn(f"](toolcall-bench/figures/{figure.name}.svg)", section)
            self.assertIn("Redraw: ", section)


class Drawing(unittest.TestCase):
    def test_drawing_twice_gives_the_same_bytes(self):
        first, _ = draw.render(draw.DATA)
        second, _ = draw.render(draw.DATA)
        self.assertEqual([f.svg for f in first], [f.svg for f in second])

    def test_each_svg_has_a_white_background_title_legend_and_caption(self):
        figures, _ = draw.render(draw.DATA)
        for figure in figures:
            with self.subTest(figure.name):
                self.assertIn('<rect width="', figure.svg)
                self.assertIn('fill="#ffffff"/>', figure.svg.splitlines()[1])
                self.assertIn(draw.escape(figure.title), figure.svg)
                self.assertIn("Data: toolcall-bench/figures/data/", figure.svg)
                self.assertIn("commit", figure.svg)

    def test_an_edited_csv_fails_the_check_until_redrawn(self):
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox(tmp)
            self.assertEqual(box.run()[0], 0)
            self.assertEqual(box.run("--check")[0], 0)
            csv = box.data / "edit_loop.csv"
            lines = csv.read_text().splitlines()
            fields = lines[1].split(",")
            fields[2] = f"{float(fields[2]) + 1.234:.3f}"
            csv.write_text("\n".join([lines[0], ",".join(fields), *lines[2:]]) + "\n")
            code, err = box.run("--check")
            self.assertEqual(code, 1)
            self.assertIn("edit_loop.svg", err)
            self.assertEqual(box.run()[0], 0)
            self.assertEqual(box.run("--check")[0], 0)

    def test_the_figures_section_of_benchmarks_md_is_replaced_and_nothing_else(self):
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox(tmp)
            self.assertEqual(box.run()[0], 0)
            text = box.benchmarks.read_text()
            self.assertTrue(text.startswith("# Benchmarks\n\nintro\n\n## Figures\n"))
            self.assertNotIn("old text", text)
            self.assertTrue(text.endswith("\n\n## Next\n\nkept\n"))
            self.assertEqual(text.count("## Figures"), 1)
            self.assertIn((box.root / "section.md").read_text().rstrip("\n"), text)

    def test_a_missing_column_names_the_file_and_the_column(self):
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox(tmp)
            csv = box.data / "generator.csv"
            csv.write_text(csv.read_text().replace("wall_median_ms", "wall_median"))
            code, err = box.run()
            self.assertEqual(code, 2)
            self.assertIn("generator.csv", err)
            self.assertIn("wall_median_ms", err)


class McpFromLoad(unittest.TestCase):
    def test_the_committed_mcp_csv_is_what_the_load_test_section_says(self):
        rows = mcp_from_load.rows_from(mcp_from_load.SECTION.read_text())
        committed = (draw.DATA / "mcp.csv").read_text().splitlines()
        self.assertEqual(committed[0].split(","), mcp_from_load.COLUMNS)
        self.assertEqual([line.split(",") for line in committed[1:]], rows)

    def test_a_section_in_another_form_is_an_error_saying_what_is_missing(self):
        with self.assertRaisesRegex(mcp_from_load.SectionError, "commit"):
            mcp_from_load.rows_from("| mode | clients |\n|---|---|\n")
        with self.assertRaisesRegex(mcp_from_load.SectionError, "mode"):
            mcp_from_load.rows_from("Date 2026-12-02, commit `abc1234`\n\nno table\n")


class Scales(unittest.TestCase):
    def test_log_ticks_are_1_2_5_per_decade(self):
        scale = draw.LogScale(8, 6000, 0, 100)
        self.assertEqual(scale.ticks(), [10, 20, 50, 100, 200, 500, 1000, 2000, 5000])

    def test_linear_ticks_are_round_and_cover_the_range(self):
        scale = draw.LinearScale(0, draw.linear_top([6053, 5937]), 0, 100)
        self.assertEqual(scale.ticks(), [0, 2000, 4000, 6000, 8000])

    def test_numbers_are_formatted_without_locale_or_negative_zero(self):
        self.assertEqual(draw.num(-0.04), "0")
        self.assertEqual(draw.num(12.0), "12")
        self.assertEqual(draw.grouped(12345.6), "12,346")
        self.assertEqual(draw.short(1700), "1,700")
        self.assertEqual(draw.short(14.2), "14.2")


if __name__ == "__main__":
    unittest.main()
