"""The console's pictures, drawn on the server as inline SVG (the pages run no script, and their
policy allows no inline style: colour is given by presentation attributes): a schedule's recent
due times as cells by outcome, as Airflow's grid view draws a DAG's runs, and runs and failures
per hour as bars. Each is readable without colour: an outcome has its own shape or letter, each
cell and bar a <title> saying what it is, and the axes are labelled in text."""

from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from typing import Callable

from ..operating import words
from ..operating.words import when
from ..times import HOUR
from .html import Html, join, link, table, tag
from .parts import Frame, named

SIZE = 16  # a cell's side in px

# What a due time came to, in the order the legend lists them: its colour, and in words.
KINDS = {
    "succeeded": ("#2da44e", "succeeded"),
    "retried": ("#bf8700", "succeeded after a retry"),
    "failed": ("#cf222e", "failed"),
    "skipped": ("#8c959f", "skipped (the letter says why)"),
    "missed": ("#8250df", "ran late for occurrences missed"),
    "running": ("#0969da", "running"),
}
# A skip's reason as the letter in its cell (words.SKIPS says each in full).
SKIP_LETTERS = {"paused": "P", "running": "L", "overdue": "O", "coalesced": "C", "expired": "E",
                "superseded": "S", "undeclared": "U"}
SKIP_SHORT = {"running": "the run before still held its lease"}


@dataclass(frozen=True)
class Cell:
    """One due time of a schedule: the outcome of its latest attempt, and how many there were."""

    due_at: int
    kind: str  # a key of KINDS
    code: str | None
    attempts: int
    run: dict  # its latest record

    @property
    def letter(self) -> str:
        if self.kind == "skipped":
            return SKIP_LETTERS.get(self.code or "", "-")
        return {"retried": "R", "missed": "M"}.get(self.kind, "")

    def title(self) -> str:
        """What the cell says as its tooltip: the schedule, the due time and what it came to."""
        due = f"{self.run.get('schedule') or ''}, due {when(self.due_at)}"
        said = f"{due}: {self.run['outcome']}" + (f" ({self.code})" if self.code else "")
        if self.kind == "skipped" and (self.code or "") in words.SKIPS:
            said = f"{due}: {words.SKIPS[self.code or '']}"
        if self.attempts > 1:
            said += f", after {self.attempts} attempts"
        if self.kind == "missed":
            said += f"; {words.missed_words(self.run, str(self.run.get('schedule') or ''))}"
        return said


def cells(runs: list[dict]) -> list[Cell]:
    """A schedule's records as one cell per due time, oldest first: a due time's latest attempt
    says its outcome (a retry's success reads `retried`), one covering missed occurrences `missed`."""
    by_due: dict[int, list[dict]] = {}
    for run in runs:
        by_due.setdefault(int(run["due_at"]), []).append(run)
    found = []
    for due, tries in sorted(by_due.items()):
        last = max(tries, key=lambda run: (int(run["tick_at"]), int(run.get("attempt") or 1), run["id"]))
        attempts = max(len(tries), int(last.get("attempt") or 1))
        kind = str(last["outcome"])
        if kind == "succeeded" and attempts > 1:
            kind = "retried"
        elif kind == "succeeded" and last.get("covers") is not None:
            kind = "missed"
        found.append(Cell(due, kind if kind in KINDS else "running", last.get("code"), attempts, last))
    return found


def shape(kind: str, letter: str = "") -> list[Html]:
    """A cell's shape: a square succeeded, a crossed square failed, a circle retried, a hollow
    square skipped, a triangle missed, a diamond running; a letter inside where it says more."""
    colour, _ = KINDS[kind]
    half = SIZE / 2
    drawn = {
        "succeeded": tag("rect", x=1, y=1, width=SIZE - 2, height=SIZE - 2, rx=2, fill=colour),
        "failed": join([tag("rect", x=1, y=1, width=SIZE - 2, height=SIZE - 2, rx=2, fill=colour),
                        tag("path", d="M4.5 4.5L11.5 11.5M11.5 4.5L4.5 11.5", stroke="#fff", stroke_width=2)]),
        "retried": tag("circle", cx=half, cy=half, r=half - 1, fill=colour),
        "skipped": tag("rect", x=1.5, y=1.5, width=SIZE - 3, height=SIZE - 3, rx=2, fill="#fff", stroke=colour,
                       stroke_width=1.5),
        "missed": tag("path", d=f"M{half} 1L{SIZE - 1} {SIZE - 1}H1Z", fill=colour),
        "running": tag("path", d=f"M{half} 1L{SIZE - 1} {half}L{half} {SIZE - 1}L1 {half}Z", fill=colour),
    }[kind]
    shown = [drawn]
    if letter:
        ink = "#57606a" if kind == "skipped" else "#fff"
        shown.append(tag("text", letter, x=half, y=half + (4.5 if kind != "missed" else 6), text_anchor="middle",
                         font_size=10 if kind != "missed" else 8, font_weight=700, fill=ink))
    return shown


def cell_svg(cell: Cell, href: str | None) -> Html:
    drawn = tag("svg", tag("title", cell.title()), *shape(cell.kind, cell.letter), width=SIZE, height=SIZE,
                viewBox=f"0 0 {SIZE} {SIZE}", role="img", aria_label=cell.title(), class_=f"cell {cell.kind}")
    return link(href, drawn) if href else drawn


def grid_row(found: list[Cell], href_of: Callable[[Cell], str | None]) -> Html:
    """A schedule's cells, oldest first, each linked to where its run is shown."""
    return tag("div", *(cell_svg(cell, href_of(cell)) for cell in found), class_="cells")


def legend() -> Html:
    """What each shape and letter means, in words."""
    entries = [tag("span", tag("svg", *shape(kind, {"retried": "R", "missed": "M"}.get(kind, "")), width=SIZE,
                               height=SIZE, viewBox=f"0 0 {SIZE} {SIZE}", aria_hidden="true"), " ", said)
               for kind, (_, said) in KINDS.items()]
    letters = ", ".join(f"{letter} {SKIP_SHORT.get(reason, reason)}" for reason, letter in SKIP_LETTERS.items())
    return tag("p", *entries, tag("span", f"a skip's letter: {letters}", class_="muted"), class_="legend")


# -- runs per hour ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bar:
    start: int  # ms, the bucket's first instant
    runs: int  # made: succeeded, failed or running
    failed: int
    skipped: int


WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 480, 150, 34, 20, 14


def bars(buckets: list[dict], start: int, step: int, count: int) -> list[Bar]:
    """`count` bars of `step` ms from `start`, each summing the hourly `buckets` (by their hour's
    start, an hour in one or more) within it: an hour with no run is a bar of none."""
    found = []
    for k in range(count):
        begins = start + k * step
        within = [row for row in buckets if begins <= int(row["hour"]) < begins + step]
        skipped = sum(int(row["skipped"] or 0) for row in within)
        found.append(Bar(begins, sum(int(row["n"]) for row in within) - skipped,
                         sum(int(row["failed"] or 0) for row in within), skipped))
    return found


def bar_chart(shown: list[Bar], step: int, label_every: int, label: Callable[[int], str], name: str) -> Html:
    """Runs (a light bar) and failures (a dark one beside it, its count above) per bucket, oldest
    at the left; the highest count and 0 on the axis, every `label_every`th bucket named below."""
    top = max([bar.runs for bar in shown] + [1])
    inner_w, inner_h = WIDTH - LEFT - 4, HEIGHT - BOTTOM - TOP
    slot = inner_w / len(shown)
    drawn = [tag("text", f"{top:,}", x=LEFT - 4, y=TOP + 4, text_anchor="end", class_="axis"),
             tag("text", "0", x=LEFT - 4, y=TOP + inner_h, text_anchor="end", class_="axis"),
             tag("path", d=f"M{LEFT} {TOP}V{TOP + inner_h}H{WIDTH - 4}", stroke="#8c959f", fill="none")]
    for k, bar in enumerate(shown):
        x = LEFT + k * slot
        said = (f"{when(bar.start)} to {when(bar.start + step)}: {bar.runs:,} runs, {bar.failed:,} failed"
                + (f", {bar.skipped:,} skipped" if bar.skipped else ""))
        height = [inner_h * n / top for n in (bar.runs, bar.failed)]
        parts = [tag("title", said),
                 tag("rect", x=_px(x + 1), y=_px(TOP + inner_h - height[0]), width=_px(slot * 0.55 - 1),
                     height=_px(height[0]), fill="#9ec5fe"),
                 tag("rect", x=_px(x + slot * 0.55), y=_px(TOP + inner_h - height[1]), width=_px(slot * 0.4),
                     height=_px(height[1]), fill="#cf222e")]
        if bar.failed:
            parts.append(tag("text", bar.failed, x=_px(x + slot * 0.75), y=_px(TOP + inner_h - height[1] - 2),
                             text_anchor="middle", class_="axis failed"))
        if k % label_every == 0:
            parts.append(tag("text", label(bar.start), x=_px(x), y=HEIGHT - 5, class_="axis"))
        drawn.append(tag("g", *parts, class_="bar"))
    return tag("svg", tag("title", name), *drawn, viewBox=f"0 0 {WIDTH} {HEIGHT}", width=WIDTH, height=HEIGHT,
               role="img", aria_label=name, class_="bars")


def _px(value: float) -> str:
    return f"{max(value, 0):.1f}"


def hour_label(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%H:%M")


def day_label(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%a %d")


# -- the sections of the pages ------------------------------------------------------------------

def run_href(frame: Frame, cell: Cell) -> str | None:
    """Where a cell's run is shown: the run's own page (`/run?id=`, as parts.run_link writes it),
    every attempt of its due time listed there."""
    return frame.href("/run", id=cell.run["id"]) if cell.run.get("id") else None


def overview_grid(frame: Frame, rows: list[dict], most: int) -> Html:
    """The schedules with recent runs, `most` of them, each a row of its latest due times."""
    by_schedule: dict[str, list[dict]] = {}
    for row in rows:
        by_schedule.setdefault(row["schedule"], []).append(row)
    listed = []
    for name, runs in list(by_schedule.items())[:most]:
        listed.append([named(frame, name, runs[0].get("label")), grid_row(cells(runs), partial(run_href, frame))])
    shown = [table(["SCHEDULE", "LATEST DUE TIMES, OLDEST FIRST"], listed, "no runs in the last day"), legend()]
    if len(by_schedule) > most:
        shown.append(tag("p", link(frame.href("/runs", since="24h"), "more: every run of the last day")))
    return join(shown)


def schedule_grid(frame: Frame, runs: list[dict]) -> Html:
    """A schedule's due times of the history shown, oldest first."""
    if not runs:
        return Html("")
    return join([grid_row(cells(runs), partial(run_href, frame)), legend()])


def per_hour(frame: Frame, rows: list[dict], counted: int) -> Html:
    """Runs and failures per hour over the last 24 h, and per 6 h over the last 7 d."""
    hour = frame.now // HOUR * HOUR
    day = bar_chart(bars(rows, hour - 23 * HOUR, HOUR, 24), HOUR, 6, hour_label,
                    "runs and failures per hour, the last 24 h (UTC)")
    quarter = 6 * HOUR
    week = bar_chart(bars(rows, hour // quarter * quarter - 27 * quarter, quarter, 28), quarter, 4, day_label,
                     "runs and failures per 6 h, the last 7 days (UTC)")
    shown = [tag("div", tag("figure", day, tag("figcaption", "the last 24 h, per hour (UTC)")),
                 tag("figure", week, tag("figcaption", "the last 7 days, per 6 h (UTC)")), class_="charts"),
             tag("p", "Light bars: runs made; dark bars beside them, their count above: those that failed. "
                      "Skips are not drawn; each bar's title counts them.", class_="muted")]
    if sum(int(row["n"]) for row in rows) >= counted:
        first = min(int(row["first_tick"]) for row in rows)
        shown.append(tag("p", f"Counted among the latest {counted:,} runs and skips, back to {when(first)}: "
                              "the bars before hold more.", class_="muted"))
    return join(shown)
