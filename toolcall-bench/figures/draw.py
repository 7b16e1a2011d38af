#!/usr/bin/env python3
"""Draws toolcall-bench's figures: SVG files from the CSV files in figures/data/, and the
"Figures" section of BENCHMARKS.md that shows them. Python's standard library only.

    python3 toolcall-bench/figures/draw.py           # redraw every figure and the section
    python3 toolcall-bench/figures/draw.py --check   # exit 1 when a file differs from what the CSVs draw

| data (figures/data/) | figure (figures/) | written by |
|---|---|---|
| generator.csv | generator.svg | examples/generator_scale.rs --csv |
| edit_loop.csv | edit_loop.svg | figures/edit_loop.py |
| mcp.csv | mcp.svg | examples/mcp_load.rs (for now: BENCHMARKS.md's figures, by hand) |
| instructions.csv | instructions.svg | figures/instructions.py |

The CSV schemas are in figures/README.md. Drawing is deterministic: the same CSV files give
the same bytes (no clock, no locale, fixed number formats), so `--check` can tell when a
CSV was edited without redrawing. Besides the SVGs it writes the section text to
toolcall-bench/sections/0_figures.md (report.py puts every sections/*.md after the summary
table, in name order, so this one comes first) and replaces the "## Figures" section of
BENCHMARKS.md with it when BENCHMARKS.md has one.

Every figure has a white background (GitHub shows SVG images as they are, on its light
and dark themes alike), a title, axes with units, a legend naming each series, marked
points, and a caption naming the data's date and commit. Tool and client counts are on a
log scale.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = HERE / "data"
SECTION = ROOT / "toolcall-bench" / "sections" / "0_figures.md"
BENCHMARKS = ROOT / "BENCHMARKS.md"
# Paths as BENCHMARKS.md (at the workspace root) links them.
LINK_DIR = "toolcall-bench/figures"

FONT = "Helvetica, Arial, sans-serif"
INK = "#222222"
GRID = "#e3e3e3"
MUTED = "#666666"


@dataclass(frozen=True)
class Style:
    """How one series looks: a colour and a marker shape, so series differ without colour too."""

    color: str
    marker: str  # circle, square, diamond, triangle
    dash: str = ""


STYLES = {
    "toolcall": Style("#1f6fb5", "circle"),
    "toolcall-mcp": Style("#1f6fb5", "circle"),
    "rmcp + schemars": Style("#d1495b", "square"),
    "rmcp #[tool]": Style("#d1495b", "square"),
    "serde derive": Style("#5c8a2e", "diamond"),
}
# A reference line (no points): grey, dashed.
REFERENCE = Style("#9a9a9a", "none", "5 4")
FALLBACK_STYLES = [Style("#7a4fb5", "triangle"), Style("#c77c02", "triangle"), Style("#3a8f8f", "diamond")]


def style_for(name: str, index: int) -> Style:
    """The series' style: toolcall blue circles, rmcp red squares, serde green diamonds;
    a variant of a series (`toolcall-mcp (legacy)`) gets its base's colour, dashed when the
    variant is `stateless`."""
    if name in STYLES:
        return STYLES[name]
    for base, style in STYLES.items():
        if name.startswith(base + " "):
            return Style(style.color, style.marker, "6 4" if "stateless" in name else style.dash)
    return FALLBACK_STYLES[index % len(FALLBACK_STYLES)]


# ---------------------------------------------------------------------------------------
# Numbers and text


def num(x: float) -> str:
    """A coordinate: one decimal, no trailing `.0`, never `-0`."""
    text = f"{x:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def grouped(x: float, decimals: int = 0) -> str:
    """`1234.5` as `1,234` (or `1,234.5` with one decimal)."""
    return f"{x:,.{decimals}f}"


def short(x: float) -> str:
    """A tick or value label: 3 significant digits at most, thousands grouped."""
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return grouped(x)
    if abs(x) >= 10:
        return f"{x:.1f}".rstrip("0").rstrip(".")
    if abs(x) >= 1:
        return f"{x:.2f}".rstrip("0").rstrip(".")
    return f"{x:.3g}"


def text_width(text: str, size: float) -> float:
    """An estimate of a label's width in a sans-serif font (for layout only)."""
    return len(text) * size * 0.56


# ---------------------------------------------------------------------------------------
# Scales


@dataclass(frozen=True)
class LinearScale:
    """Maps [lo, hi] onto [a, b] pixels."""

    lo: float
    hi: float
    a: float
    b: float

    def __call__(self, x: float) -> float:
        return self.a + (x - self.lo) / (self.hi - self.lo) * (self.b - self.a)

    def ticks(self) -> list[float]:
        step = nice_step((self.hi - self.lo) / 5)
        first = math.ceil(self.lo / step - 1e-9)
        return [round(i * step, 10) for i in range(first, int(math.floor(self.hi / step + 1e-9)) + 1)]


@dataclass(frozen=True)
class LogScale:
    """Maps [lo, hi] (both > 0) onto [a, b] pixels, logarithmically."""

    lo: float
    hi: float
    a: float
    b: float

    def __call__(self, x: float) -> float:
        span = math.log10(self.hi) - math.log10(self.lo)
        return self.a + (math.log10(x) - math.log10(self.lo)) / span * (self.b - self.a)

    def ticks(self) -> list[float]:
        """1, 2 and 5 times each power of ten within the range (1 and 10 only over wide ranges)."""
        decades = math.log10(self.hi / self.lo)
        mantissas = (1, 2, 5) if decades <= 4 else (1,)
        out = []
        for power in range(math.floor(math.log10(self.lo)) - 1, math.ceil(math.log10(self.hi)) + 1):
            for m in mantissas:
                value = m * 10.0**power
                if self.lo * (1 - 1e-9) <= value <= self.hi * (1 + 1e-9):
                    out.append(value)
        return out


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5 and 5 times a power of ten at least `raw`."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw * (1 - 1e-9):
            return m * power
    return 10 * power


def linear_top(values: list[float]) -> float:
    """An upper bound for a linear axis from 0: the data's maximum plus room, rounded to a tick."""
    top = max(values) * 1.12 if values else 1.0
    step = nice_step(top / 5)
    return math.ceil(top / step) * step


def log_bounds(values: list[float], pad: float = 1.25) -> tuple[float, float]:
    """Bounds for a log axis around positive values, with a little room either side."""
    lo, hi = min(values), max(values)
    if lo == hi:
        lo, hi = lo / 2, hi * 2
    return lo / pad, hi * pad


# ---------------------------------------------------------------------------------------
# SVG


@dataclass
class Svg:
    """An SVG document built element by element; `text()` is the file's bytes."""

    width: int
    height: int
    parts: list[str] = field(default_factory=list)

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "none") -> None:
        self.add(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" fill="{fill}" stroke="{stroke}"/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1, dash: str = "") -> None:
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
            f'stroke="{stroke}" stroke-width="{num(width)}"{dashes}/>'
        )

    def polyline(self, points: list[tuple[float, float]], stroke: str, dash: str = "") -> None:
        coords = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<polyline points="{coords}" fill="none" stroke="{stroke}" stroke-width="2"{dashes}/>')

    def label(self, x: float, y: float, text: str, size: float = 12, anchor: str = "start",
              fill: str = INK, weight: str = "normal", rotate: bool = False) -> None:
        extra = f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
        bold = ' font-weight="bold"' if weight == "bold" else ""
        self.add(
            f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}" text-anchor="{anchor}" '
            f'fill="{fill}"{bold}{extra}>{escape(text)}</text>'
        )

    def marker(self, x: float, y: float, style: Style, r: float = 4.5) -> None:
        fill, edge = style.color, "#ffffff"
        if style.marker == "square":
            self.add(f'<rect x="{num(x - r)}" y="{num(y - r)}" width="{num(2 * r)}" height="{num(2 * r)}" '
                     f'fill="{fill}" stroke="{edge}"/>')
        elif style.marker == "diamond":
            r *= 1.3
            self.add(f'<polygon points="{num(x)},{num(y - r)} {num(x + r)},{num(y)} {num(x)},{num(y + r)} '
                     f'{num(x - r)},{num(y)}" fill="{fill}" stroke="{edge}"/>')
        elif style.marker == "triangle":
            r *= 1.25
            self.add(f'<polygon points="{num(x)},{num(y - r)} {num(x + r)},{num(y + r * 0.8)} '
                     f'{num(x - r)},{num(y + r * 0.8)}" fill="{fill}" stroke="{edge}"/>')
        else:
            self.add(f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" fill="{fill}" stroke="{edge}"/>')

    def text(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT}">'
        )
        background = f'<rect width="{self.width}" height="{self.height}" fill="#ffffff"/>'
        return "\n".join([head, background, *self.parts, "</svg>"]) + "\n"


@dataclass(frozen=True)
class Frame:
    """A plot area in pixels."""

    left: float
    top: float
    right: float
    bottom: float


def draw_heading(svg: Svg, title: str, legend: list[tuple[str, Style]], left: float) -> None:
    """The title, and the legend in one row below it."""
    svg.label(left, 26, title, size=16, weight="bold")
    x = left
    for name, style in legend:
        if style.dash:
            svg.line(x - 4, 48, x + 14, 48, style.color, 2, style.dash)
        if style.marker != "none":
            svg.marker(x + 5, 48, style)
        svg.label(x + 16, 52, name, size=12)
        x += 16 + text_width(name, 12) + 24


CAPTION_TOP = 446


def draw_caption(svg: Svg, lines: list[str], left: float) -> None:
    """Caption lines below the plot (whose axis titles end above `CAPTION_TOP`), in grey;
    the figure grows to hold them."""
    y = CAPTION_TOP
    svg.height = CAPTION_TOP + 15 * (len(lines) - 1) + 14
    for line in lines:
        svg.label(left, y, line, size=11, fill=MUTED)
        y += 15


def draw_axes(svg: Svg, frame: Frame, xs, ys, x_title: str, y_title: str,
              x_labels: dict[float, str] | None = None) -> None:
    """Grid lines, tick labels and axis titles for the scales `xs` and `ys` over `frame`."""
    for t in ys.ticks():
        y = ys(t)
        svg.line(frame.left, y, frame.right, y, GRID)
        svg.label(frame.left - 8, y + 4, short(t), size=11, anchor="end", fill=MUTED)
    x_ticks = sorted(x_labels) if x_labels else xs.ticks()
    for t in x_ticks:
        x = xs(t)
        svg.line(x, frame.top, x, frame.bottom, GRID)
        label = x_labels[t] if x_labels else short(t)
        svg.label(x, frame.bottom + 16, label, size=11, anchor="middle", fill=MUTED)
    svg.line(frame.left, frame.bottom, frame.right, frame.bottom, INK)
    svg.line(frame.left, frame.top, frame.left, frame.bottom, INK)
    svg.label((frame.left + frame.right) / 2, frame.bottom + 36, x_title, size=12, anchor="middle")
    svg.label(frame.left - 52, (frame.top + frame.bottom) / 2, y_title, size=12, anchor="middle", rotate=True)


def draw_series(svg: Svg, xs, ys, series: dict[str, list[tuple[float, float]]], styles: dict[str, Style],
                value_label=None) -> None:
    """Each series as a line through its points, every point marked, and labelled with
    `value_label(y)` when given: above the point where it is the highest at its x, below
    otherwise, so two series' labels do not meet."""
    highest: dict[float, float] = {}
    for points in series.values():
        for x, y in points:
            highest[x] = max(y, highest.get(x, y))
    for name, points in series.items():
        style = styles[name]
        pixels = [(xs(x), ys(y)) for x, y in sorted(points)]
        if len(pixels) > 1:
            svg.polyline(pixels, style.color, style.dash)
        for (x, y), (px, py) in zip(sorted(points), pixels):
            svg.marker(px, py, style)
            if value_label:
                text = value_label(y)
                if y < highest[x] or len(series) == 1:
                    # Below and right: clear of a rising line's next segment.
                    svg.label(px + 8, py + 16, text, size=10.5, fill=style.color)
                elif px - 8 - text_width(text, 10.5) > xs.a:
                    # Above and left: clear of a rising line's previous segment.
                    svg.label(px - 8, py - 8, text, size=10.5, anchor="end", fill=style.color)
                else:
                    svg.label(px + 8, py - 8, text, size=10.5, fill=style.color)


# ---------------------------------------------------------------------------------------
# Data


class DataError(Exception):
    """A CSV file that cannot be drawn: names the file and what is wrong."""


def read_csv(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """The rows of `path` as dicts, checked to have `columns`."""
    if not path.exists():
        raise DataError(f"{path}: missing")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise DataError(f"{path}: no column {', '.join(missing)} (header: {reader.fieldnames})")
        rows = list(reader)
    if not rows:
        raise DataError(f"{path}: no rows")
    return rows


def write_csv(path: str, columns: list[str], rows: list[list[str]]) -> None:
    """Writes a data file (`columns` as the header row) for the producers beside this
    script; `path` "-" prints it instead."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    if path == "-":
        print(out.getvalue(), end="")
        return
    Path(path).write_text(out.getvalue())
    print(f"wrote {path}", file=sys.stderr, flush=True)


def number(row: dict[str, str], column: str, path: Path) -> float:
    try:
        return float(row[column])
    except ValueError:
        raise DataError(f"{path}: `{column}` is not a number: {row[column]!r} in {row}") from None


def provenance(rows: list[dict[str, str]], path: Path) -> str:
    """`Data: <file>, measured <dates> at commit <commits>`, from the rows' date and commit
    columns, and the 1-minute load average when the optional `load_1min` column has it."""
    dates = sorted({r["date"] for r in rows})
    commits = sorted({r["commit"] for r in rows})
    text = (f"Data: toolcall-bench/figures/data/{path.name}, measured {' to '.join([dates[0], dates[-1]][: len(dates)])}"
            f" at commit {', '.join(commits)}")
    loads = sorted(number(r, "load_1min", path) for r in rows if r.get("load_1min"))
    if loads:
        span = f"{loads[0]:.1f}" if loads[0] == loads[-1] else f"{loads[0]:.1f} to {loads[-1]:.1f}"
        text += f"; 1-minute load average {span}"
    return text + "."


def series_of(rows: list[dict[str, str]], key, x_col: str, y_col: str, path: Path) -> dict[str, list[tuple[float, float]]]:
    """(x, y) points per series name `key(row)`, in the CSV's order of first appearance."""
    out: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        out.setdefault(key(row), []).append((number(row, x_col, path), number(row, y_col, path)))
    return out


@dataclass
class Figure:
    """One drawn figure: its file name, SVG text and what the section says of it."""

    name: str
    title: str
    svg: str
    redraw: str  # markdown: how to redraw it (a command in backticks)
    sentence: str


# ---------------------------------------------------------------------------------------
# The figures


def generator_figure(data: Path) -> Figure:
    path = data / "generator.csv"
    rows = read_csv(path, ["tools", "wall_median_ms", "wall_min_ms", "wall_max_ms", "runs", "generated_bytes",
                           "generated_lines", "date", "commit"])
    rows.sort(key=lambda r: number(r, "tools", path))
    clocks = [c for c in ("cpu", "wall") if all(r.get(f"{c}_median_ms") for r in rows)]
    names = {"cpu": "CPU time (user + system)", "wall": "wall time"}
    styles = {names["cpu"]: STYLES["toolcall"], names["wall"]: Style("#86b4de", "circle", "6 4")}
    series = {names[c]: [(number(r, "tools", path), number(r, f"{c}_median_ms", path)) for r in rows] for c in clocks}
    main = series[names[clocks[0]]]
    svg = Svg(760, 480)
    frame = Frame(90, 72, 690, 385)
    xs = LogScale(*log_bounds([x for x, _ in main]), frame.left, frame.right)
    lows = [number(r, f"{c}_min_ms", path) for r in rows for c in clocks]
    highs = [number(r, f"{c}_max_ms", path) for r in rows for c in clocks]
    ys = LogScale(*log_bounds(lows + highs, 1.3), frame.bottom, frame.top)
    title = "Generator time against tool count (Builder::generate_from, in memory)"
    legend = [(f"toolcall, {name}", styles[name]) for name in series]
    legend.append(("proportional to tools", REFERENCE))
    draw_heading(svg, title, legend, frame.left)
    draw_axes(svg, frame, xs, ys, "tools (log scale)", "time per call, ms (log scale)")
    draw_proportional(svg, xs, ys, main)
    for clock in reversed(clocks):
        name = names[clock]
        ranges = [(number(r, "tools", path), number(r, f"{clock}_min_ms", path), number(r, f"{clock}_max_ms", path))
                  for r in rows]
        draw_ranges(svg, xs, ys, ranges, styles[name])
        label = (lambda y: f"{short(y)} ms") if name == names[clocks[0]] else None
        draw_series(svg, xs, ys, {name: series[name]}, styles, label)
    runs = sorted({r["runs"] for r in rows})
    draw_caption(svg, [
        f"Per call: median of {'/'.join(runs)} samples per size, bars from the fastest to the slowest; release build;",
        "synthetic tools (toolcall-bench/src/synth.rs), 100 per file. CPU time is the process's (its worker thread's).",
        provenance(rows, path),
    ], 20)
    command = ("cargo build --release -p toolcall-bench --example generator_scale && "
               "target/release/examples/generator_scale --csv toolcall-bench/figures/data/generator.csv && "
               "python3 toolcall-bench/figures/draw.py")
    sentence = generator_sentence(rows, path, clocks, main)
    return Figure("generator", title, svg.text(), f"`{command}`", sentence)


def generator_sentence(rows: list[dict[str, str]], path: Path, clocks: list[str], main) -> str:
    """How the generator's time grows, in its first clock (CPU time when measured)."""
    (n0, t0), (n1, t1) = main[0], main[-1]
    large = [p for p in main if p[0] >= 100] or main
    exponent = log_log_slope(large)
    if abs(exponent - 1) <= 0.1:
        shape = f"about linearly with the tool count (as tools^{exponent:.2f} from {grouped(large[0][0])} tools up)"
    else:
        shape = f"as tools^{exponent:.2f} (from {grouped(large[0][0])} tools up)"
    last = rows[-1]
    clock = "CPU time" if clocks[0] == "cpu" else "wall time"
    text = (
        f"The generator's {clock} grows {shape}: {grouped(n0)} tools in {short(t0)} ms, "
        f"{grouped(n1)} in {short(t1)} ms ({grouped(t1 / n1 * 1000)} µs per tool); the generated `tools.rs` is "
        f"{grouped(number(last, 'generated_bytes', path) / n1)} bytes "
        f"({grouped(number(last, 'generated_lines', path) / n1)} lines) per tool."
    )
    if "wall" in clocks and clocks[0] != "wall":
        wall = number(last, "wall_median_ms", path)
        text += (f" The wall time ({short(wall)} ms at {grouped(n1)} tools) stretches with the machine's load;"
                 " the CPU time barely moves with it.")
    return text


def log_log_slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of log(y) on log(x): b in y ~ x^b (1.0 for a single point)."""
    if len(points) < 2:
        return 1.0
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def draw_ranges(svg: Svg, xs, ys, ranges: list[tuple[float, float, float]], style: Style) -> None:
    """A vertical bar from each point's fastest to its slowest sample, with end caps."""
    for x, lo, hi in ranges:
        px = xs(x)
        svg.line(px, ys(lo), px, ys(hi), style.color, 1.2)
        svg.line(px - 4, ys(lo), px + 4, ys(lo), style.color, 1.2)
        svg.line(px - 4, ys(hi), px + 4, ys(hi), style.color, 1.2)


def draw_proportional(svg: Svg, xs, ys, points: list[tuple[float, float]]) -> None:
    """A dashed grey line of slope 1 through the largest point: where linear growth would lie."""
    n1, t1 = points[-1]
    n0 = points[0][0]
    t0 = t1 * n0 / n1
    if t0 < ys.lo:
        n0 = ys.lo / t1 * n1
        t0 = ys.lo
    svg.line(xs(n0), ys(t0), xs(n1), ys(t1), REFERENCE.color, 1.2, REFERENCE.dash)


def edit_loop_figure(data: Path) -> Figure:
    path = data / "edit_loop.csv"
    rows = read_csv(path, ["tools", "series", "median_s", "min_s", "max_s", "runs", "date", "commit"])
    series = series_of(rows, lambda r: r["series"], "tools", "median_s", path)
    svg = Svg(760, 480)
    frame = Frame(90, 72, 690, 385)
    xs = LogScale(*log_bounds([x for pts in series.values() for x, _ in pts]), frame.left, frame.right)
    spans = [number(r, c, path) for r in rows for c in ("min_s", "max_s")]
    ys = LogScale(*log_bounds(spans, 1.25), frame.bottom, frame.top)
    styles = {name: style_for(name, i) for i, name in enumerate(series)}
    title = "Edit-loop rebuild against tool count"
    draw_heading(svg, title, [(n, styles[n]) for n in series], frame.left)
    x_values = sorted({x for pts in series.values() for x, _ in pts})
    draw_axes(svg, frame, xs, ys, "tools (log scale)", "rebuild after a doc-comment edit, s (log scale)",
              {x: grouped(x) for x in x_values})
    for name in series:
        ranges = [(number(r, "tools", path), number(r, "min_s", path), number(r, "max_s", path))
                  for r in rows if r["series"] == name]
        draw_ranges(svg, xs, ys, ranges, styles[name])
    draw_series(svg, xs, ys, series, styles, lambda y: f"{y:.2f} s")
    runs = sorted({r["runs"] for r in rows})
    draw_caption(svg, [
        f"Wall time of `cargo build` (debug, dependencies warm) after editing one tool's doc comment; median of {'/'.join(runs)},",
        "bars from the fastest to the slowest; the two sides interleaved; the generated crates of toolcall-bench/buildcost.",
        provenance(rows, path),
    ], 20)
    sentence = edit_loop_sentence(series)
    command = "python3 toolcall-bench/figures/edit_loop.py && python3 toolcall-bench/figures/draw.py"
    return Figure("edit_loop", title, svg.text(), f"`{command}`", sentence)


def edit_loop_sentence(series: dict[str, list[tuple[float, float]]]) -> str:
    """What the edit-loop figure shows: both sides at the smallest and largest tool count."""
    ours = dict(series.get("toolcall", []))
    theirs = dict(series.get("rmcp + schemars", []))
    shared = sorted(set(ours) & set(theirs))
    if not shared:
        return "Rebuild time after a doc-comment edit, against the number of tools."
    ends = [shared[0], shared[-1]] if len(shared) > 1 else shared
    ratios = {n: ours[n] / theirs[n] for n in ends}
    parts = [f"{grouped(n)} tools, {ours[n]:.2f} s against {theirs[n]:.2f} s ({ratios[n]:.2f}x)" for n in ends]
    if len(ends) > 1 and ratios[ends[-1]] < ratios[ends[0]]:
        lead = "After a doc-comment edit toolcall rebuilds faster than rmcp + schemars, and the gap widens with the tool count"
    else:
        lead = "Rebuild after a doc-comment edit, toolcall against rmcp + schemars"
    return lead + ": " + "; ".join(parts) + "."


MCP_CLIENTS = [1, 16, 64]


def mcp_figure(data: Path) -> Figure:
    path = data / "mcp.csv"
    rows = read_csv(path, ["clients", "server", "mode", "calls_per_s", "p99_ms", "date", "commit", "source"])
    key = mcp_series_name(rows)
    throughput = series_of(rows, key, "clients", "calls_per_s", path)
    p99 = series_of(rows, key, "clients", "p99_ms", path)
    styles = {name: style_for(name, i) for i, name in enumerate(throughput)}
    svg = Svg(900, 480)
    title = "MCP over streamable HTTP: calls/s and p99 latency against clients"
    draw_heading(svg, title, [(n, styles[n]) for n in throughput], 80)
    clients = sorted({*MCP_CLIENTS, *(x for pts in throughput.values() for x, _ in pts)})
    labels = {float(c): grouped(c) for c in clients}
    for frame, values, y_title, fmt, log_y in (
        (Frame(80, 72, 430, 385), throughput, "calls/s (all clients)", lambda y: grouped(y), False),
        (Frame(530, 72, 880, 385), p99, "p99 latency, ms (log scale)", lambda y: f"{y:.2f}", True),
    ):
        xs = LogScale(clients[0] / 1.6, clients[-1] * 1.6, frame.left, frame.right)
        ys_values = [y for pts in values.values() for _, y in pts]
        if log_y:
            ys = LogScale(*log_bounds(ys_values), frame.bottom, frame.top)
        else:
            ys = LinearScale(0, linear_top(ys_values), frame.bottom, frame.top)
        draw_axes(svg, frame, xs, ys, "clients at once (log scale)", y_title, labels)
        draw_series(svg, xs, ys, values, styles, fmt)
    caption = ["`tools/call add` over 127.0.0.1, both servers in one run, interleaved rounds, release builds."]
    sources = sorted({r["source"] for r in rows} - {"mcp_load"})
    if sources:
        caption.append(f"Copied from {', '.join(sources)}: to be redrawn by mcp_load. " + provenance(rows, path))
    else:
        caption.append(provenance(rows, path))
    draw_caption(svg, caption, 20)
    redraw = ("`cargo build --release -p example-app -p toolcall-bench --bin example-app --example mcp_load && "
              "target/release/examples/mcp_load --pin 0/1 --max-seconds 2000 --soak-calls 3000 --rounds 5 --calls 2000 --markdown toolcall-bench/sections/mcp_load.md && "
              "python3 toolcall-bench/figures/mcp_from_load.py && python3 toolcall-bench/figures/draw.py`")
    return Figure("mcp", title, svg.text(), redraw, mcp_sentence(rows, path, sources))


def mcp_series_name(rows: list[dict[str, str]]):
    """Series by server, with the mode's first word in the name when the CSV has more than
    one mode (`toolcall-mcp (legacy)`: four names fit the legend's one row)."""
    modes = {r["mode"] for r in rows}
    if len(modes) > 1:
        return lambda r: f"{r['server']} ({r['mode'].split()[0]})"
    return lambda r: r["server"]


def mcp_sentence(rows: list[dict[str, str]], path: Path, sources: list[str]) -> str:
    """One point in words, or the range of toolcall-mcp's ratios to rmcp `#[tool]` over
    every (clients, mode) point measured for both."""
    points = []  # (clients, mode, ours, theirs)
    for clients in sorted({int(number(r, "clients", path)) for r in rows}):
        at = {(r["server"], r["mode"]): r for r in rows if int(number(r, "clients", path)) == clients}
        for (server, mode), ours in sorted(at.items()):
            theirs = at.get(("rmcp #[tool]", mode))
            if server == "toolcall-mcp" and theirs is not None:
                points.append((clients, mode, ours, theirs))
    if not points:
        return "Calls/s and p99 latency of toolcall-mcp and rmcp `#[tool]`."
    calls = [number(o, "calls_per_s", path) / number(t, "calls_per_s", path) for _, _, o, t in points]
    p99 = [number(o, "p99_ms", path) / number(t, "p99_ms", path) for _, _, o, t in points]
    if len(points) == 1:
        clients, mode, ours, theirs = points[0]
        text = (f"At {clients} clients ({mode}) toolcall-mcp served {grouped(number(ours, 'calls_per_s', path))} calls/s "
                f"against rmcp `#[tool]`'s {grouped(number(theirs, 'calls_per_s', path))} ({calls[0]:.2f}x), p99 "
                f"{number(ours, 'p99_ms', path):.2f} ms against {number(theirs, 'p99_ms', path):.2f} ms.")
    else:
        counts = sorted({c for c, _, _, _ in points})
        modes = sorted({m for _, m, _, _ in points})
        text = (f"At {', '.join(grouped(c) for c in counts[:-1])} and {grouped(counts[-1])} clients ({' and '.join(modes)}) "
                f"toolcall-mcp served {min(calls):.2f}x to {max(calls):.2f}x the calls/s of rmcp `#[tool]`, "
                f"with {min(p99):.2f}x to {max(p99):.2f}x its p99 latency.")
    if sources:
        text += " Only these points are measured so far: the figure is redrawn when mcp_load writes the CSV."
    return text


INSTRUCTION_TOOLS = ["add", "get_weather", "create_order"]
ENTRY_POINTS = ["run", "run_json", "call"]


def instructions_figure(data: Path) -> Figure:
    path = data / "instructions.csv"
    rows = read_csv(path, ["entry_point", "tool", "implementation", "instructions_per_call", "date", "commit"])
    values = {(r["tool"], r["entry_point"], r["implementation"]): number(r, "instructions_per_call", path) for r in rows}
    implementations = list(dict.fromkeys(r["implementation"] for r in rows))
    styles = {name: style_for(name, i) for i, name in enumerate(implementations)}
    svg = Svg(960, 480)
    title = "Instructions per call by entry point: toolcall against hand-written serde"
    legend_names = {"serde derive": "hand-written serde (#[derive(Deserialize)])"}
    swatches = [(legend_names.get(n, n), Style(styles[n].color, "square")) for n in implementations]
    draw_heading(svg, title, swatches, 80)
    width = (940 - 80) / len(INSTRUCTION_TOOLS)
    for i, tool in enumerate(INSTRUCTION_TOOLS):
        frame = Frame(80 + i * width, 72, 80 + (i + 1) * width - 30, 385)
        draw_bar_panel(svg, frame, tool, values, implementations, styles, first=i == 0)
    draw_caption(svg, [
        "callgrind on examples/profile.rs, release build: (instructions at N calls - at 0) / N. "
        "`call` = ALL.call polled once (serde has no such entry point).",
        provenance(rows, path),
    ], 20)
    command = "python3 toolcall-bench/figures/instructions.py && python3 toolcall-bench/figures/draw.py"
    return Figure("instructions", title, svg.text(), f"`{command}`", instructions_sentence(values))


def draw_bar_panel(svg: Svg, frame: Frame, tool: str, values: dict, implementations: list[str],
                   styles: dict[str, Style], first: bool) -> None:
    """One tool's bars: a group per entry point, a bar per implementation, values on top and
    toolcall's ratio to serde's above each pair."""
    entries = [e for e in ENTRY_POINTS if any((tool, e, impl) in values for impl in implementations)]
    ys = LinearScale(0, linear_top([v for (t, _, _), v in values.items() if t == tool]), frame.bottom, frame.top)
    for t in ys.ticks():
        svg.line(frame.left, ys(t), frame.right, ys(t), GRID)
        svg.label(frame.left - 6, ys(t) + 4, short(t), size=10.5, anchor="end", fill=MUTED)
    svg.line(frame.left, frame.bottom, frame.right, frame.bottom, INK)
    svg.line(frame.left, frame.top, frame.left, frame.bottom, INK)
    group = (frame.right - frame.left) / max(len(entries), 1)
    bar = min(34.0, group * 0.8 / max(len(implementations), 1))
    for g, entry in enumerate(entries):
        centre = frame.left + group * (g + 0.5)
        present = [impl for impl in implementations if (tool, entry, impl) in values]
        x = centre - bar * len(present) / 2
        for impl in present:
            value = values[(tool, entry, impl)]
            svg.rect(x, ys(value), bar - 2, frame.bottom - ys(value), styles[impl].color)
            svg.label(x + bar / 2 - 1, ys(value) - 4, grouped(value), size=9.5, anchor="middle", fill=INK)
            x += bar
        ours, serde = values.get((tool, entry, "toolcall")), values.get((tool, entry, "serde derive"))
        if ours and serde:
            top = ys(max(ours, serde)) - 18
            svg.label(centre, top, f"{ours / serde:.2f}x", size=10.5, anchor="middle", fill=MUTED, weight="bold")
        svg.label(centre, frame.bottom + 16, entry, size=11, anchor="middle", fill=MUTED)
    svg.label((frame.left + frame.right) / 2, frame.bottom + 36, tool, size=12, anchor="middle", weight="bold")
    if first:
        svg.label(frame.left - 52, (frame.top + frame.bottom) / 2, "instructions per call", size=12,
                  anchor="middle", rotate=True)


def instructions_sentence(values: dict) -> str:
    ratios = {(t, e): values[(t, e, "toolcall")] / values[(t, e, "serde derive")]
              for (t, e, impl) in values if impl == "toolcall" and (t, e, "serde derive") in values}
    if not ratios:
        return "Instructions per call of each entry point."
    (wt, we), worst = max(ratios.items(), key=lambda kv: kv[1])
    (bt, be), best = min(ratios.items(), key=lambda kv: kv[1])
    text = (f"Per call, toolcall's `run` and `run_json` cost {best:.2f}x to {worst:.2f}x the instructions of hand-written serde "
            f"(fewest: `{be}` {bt}; most: `{we}` {wt}, {grouped(values[(wt, we, 'toolcall')])} against "
            f"{grouped(values[(wt, we, 'serde derive')])})")
    calls = [(t, values[(t, "call", "toolcall")]) for t in INSTRUCTION_TOOLS if (t, "call", "toolcall") in values]
    if calls:
        text += "; `call` " + ", ".join(
            f"{t} {grouped(v)} ({v / values[(t, 'run', 'toolcall')]:.2f}x `run`)" for t, v in calls
            if (t, "run", "toolcall") in values)
    return text + "."


FIGURES = [generator_figure, edit_loop_figure, mcp_figure, instructions_figure]


# ---------------------------------------------------------------------------------------
# The section


def section(figures: list[Figure]) -> str:
    """The "## Figures" section: each figure, the command that redraws it and what it shows."""
    lines = [
        "## Figures",
        "",
        "How cost grows with tools, edits, clients and entry points. Drawn by "
        "`python3 toolcall-bench/figures/draw.py` from the CSV files in `toolcall-bench/figures/data/` "
        "(each figure's caption names its data's date and commit; the schemas are in "
        "`toolcall-bench/figures/README.md`); `draw.py --check` fails when a CSV changed without a redraw.",
    ]
    for figure in figures:
        lines += [
            "",
            f"![{figure.title}]({LINK_DIR}/{figure.name}.svg)",
            "",
            figure.sentence,
            "",
            f"Redraw: {figure.redraw}",
        ]
    return "\n".join(lines) + "\n"


def spliced(benchmarks: str, text: str) -> str | None:
    """BENCHMARKS.md with its "## Figures" section (up to the next `## ` heading) replaced
    by `text`; None when it has no such section."""
    start = benchmarks.find("\n## Figures\n")
    if start < 0:
        return None
    start += 1
    end = benchmarks.find("\n## ", start + 1)
    end = len(benchmarks) if end < 0 else end + 1
    return benchmarks[:start] + text.rstrip("\n") + "\n\n" + benchmarks[end:].lstrip("\n")


# ---------------------------------------------------------------------------------------
# Main


def render(data: Path) -> tuple[list[Figure], str]:
    figures = [make(data) for make in FIGURES]
    return figures, section(figures)


def outputs(data: Path, out: Path, section_path: Path, benchmarks: Path) -> dict[Path, str]:
    """Every file draw.py writes, with the text it should hold."""
    figures, text = render(data)
    files = {out / f"{f.name}.svg": f.svg for f in figures}
    files[section_path] = text
    if benchmarks.exists():
        updated = spliced(benchmarks.read_text(), text)
        if updated is not None:
            files[benchmarks] = updated
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file differs")
    parser.add_argument("--data", type=Path, default=DATA, help="the CSV directory (figures/data)")
    parser.add_argument("--out", type=Path, default=HERE, help="where the SVGs go (figures/)")
    parser.add_argument("--section", type=Path, default=SECTION, help="the section file (sections/0_figures.md)")
    parser.add_argument("--benchmarks", type=Path, default=BENCHMARKS, help="BENCHMARKS.md")
    args = parser.parse_args(argv)
    try:
        files = outputs(args.data, args.out, args.section, args.benchmarks)
        again = outputs(args.data, args.out, args.section, args.benchmarks)
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if files != again:
        print("error: drawing twice gave different bytes (draw.py is not deterministic)", file=sys.stderr)
        return 1
    if args.check:
        return check(files)
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path}", file=sys.stderr)
    return 0


def check(files: dict[Path, str]) -> int:
    stale = [path for path, text in files.items() if not path.exists() or path.read_text() != text]
    for path in stale:
        print(f"stale: {path} is not what the CSVs draw", file=sys.stderr)
    if stale:
        print("run `python3 toolcall-bench/figures/draw.py` and commit the result", file=sys.stderr)
        return 1
    print(f"ok: {len(files)} files are what the CSVs draw", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
