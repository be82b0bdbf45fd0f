"""What every console page is built of: the frame of a request, the page around a body, times
in UTC and a calendar's zone, outcomes, and the forms that post an operator's change."""

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone

from ..operating import words
from ..operating.retry_words import retry_of_settings, run_retry_words, unretried_words
from .csrf import NOTICE, SEAL
from ..operating.views import run_view
from ..operating.words import relative, when
from ..times import NEVER
from .html import Html, join, link, tag, text, url, void

CSS = (
    "body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #fafbfc; }\n"
    "header { background: #1b1f24; color: #fff; padding: .6em 1.2em; display: flex; flex-wrap: wrap; "
    "gap: .4em 1.4em; align-items: baseline; }\n"
    "header a { color: #cfe3ff; text-decoration: none; } header a.here { color: #fff; font-weight: 600; "
    "}\n"
    "header .who { margin-left: auto; color: #aab; }\n"
    "main { padding: 1em 1.2em; max-width: 88em; }\n"
    "h1 { font-size: 1.3em; overflow-wrap: anywhere; } h2 { font-size: 1.1em; margin-top: 1.6em; }\n"
    "table { border-collapse: collapse; width: 100%; background: #fff; }\n"
    "th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #e3e6ea; "
    "vertical-align: top; }\n"
    "th { background: #f0f2f5; font-weight: 600; }\n"
    ".failed, .stopped { color: #b3261e; font-weight: 600; } .succeeded, .ok { color: #1e7b34; }\n"
    ".skipped, .zone, .empty, .muted { color: #6a737d; }\n"
    ".zone { display: block; font-size: .9em; }\n"
    ".actions { display: flex; gap: .6em; margin: 1em 0; } form.inline { display: inline; "
    "} button { font: inherit; padding: .1em .7em; cursor: pointer; }\n"
    ".said { padding: .6em 1em; background: #eef6ff; border: 1px solid #b6d4fe; }\n"
    ".said.refused { background: #fdeceb; border-color: #f5c2bf; }\n"
    "form label { display: inline-block; margin: 0 1.2em .4em 0; white-space: nowrap; }\n"
    "pre.whole { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #e3e6ea; "
    "padding: .6em; }\n"
    "dl { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; }\n"
    "dt { font-weight: 600; } dd { margin: 0; }\n"
    "code, .id { font-family: ui-monospace, monospace; font-size: .92em; word-break: break-all; }\n"
    ".counts { display: flex; gap: 2em; flex-wrap: wrap; } .counts div { background: #fff; "
    "padding: .6em 1em; border: 1px solid #e3e6ea; }\n"
    ".counts b { display: block; font-size: 1.4em; } .counts a { color: inherit; text-decoration: none; }\n"
    ".counts a:hover b { text-decoration: underline; }\n"
    ".cells { display: flex; flex-wrap: wrap; gap: 3px; } .cells svg { display: block; }\n"
    ".legend { display: flex; flex-wrap: wrap; gap: .3em 1.2em; font-size: .9em; margin: .5em 0; }\n"
    ".legend span { display: inline-flex; align-items: center; gap: .3em; }\n"
    ".charts { display: flex; flex-wrap: wrap; gap: 1em 2em; } figure { margin: 0; flex: 1 1 22em; "
    "max-width: 36em; }\n"
    "figcaption { color: #6a737d; font-size: .9em; } svg.bars { width: 100%; height: auto; background: #fff; "
    "border: 1px solid #e3e6ea; }\n"
    "svg .axis { font: 10px system-ui, sans-serif; fill: #57606a; } svg .axis.failed { fill: #b3261e; "
    "font-weight: 600; }\n"
    ".refresh { float: right; font-size: .9em; }\n"
    "@media (max-width: 40em) {\n"
    "  header { padding: .5em .8em; gap: .3em 1em; } header .who { margin-left: 0; flex-basis: 100%; }\n"
    "  main { padding: .6em .8em; } .refresh { float: none; display: block; }\n"
    "  table, thead, tbody, tr, td { display: block; } thead { display: none; }\n"
    "  table { background: none; } tr { background: #fff; border: 1px solid #e3e6ea; margin: 0 0 .6em; "
    "padding: .3em 0; }\n"
    "  td { display: inline-block; vertical-align: top; min-width: 8em; max-width: 100%; box-sizing: border-box; "
    "border: 0; padding: .15em .7em; overflow-wrap: anywhere; }\n"
    "  td[data-label]::before { content: attr(data-label); display: block; font-size: .75em; font-weight: 600; "
    "color: #6a737d; letter-spacing: .02em; }\n"
    "  td:empty { display: none; } dl { grid-template-columns: 1fr; gap: 0; } dd { margin-bottom: .5em; "
    "overflow-wrap: anywhere; }\n"
    "  .actions { flex-wrap: wrap; } .counts { gap: .6em; } .counts div { flex: 1 1 40%; }\n"
    "  form label { display: inline-block; margin: 0 .6em .4em 0; } input[type=text], input[type=search] "
    "{ max-width: 100%; }\n"
    "}\n"
)

PAGES = (("", "Overview"), ("/schedules", "Schedules"), ("/runs", "Runs"), ("/deliveries", "Deliveries"),
         ("/log", "Operator log"), ("/deploys", "Deploys"))


@dataclass(frozen=True)
class Frame:
    """What every page of one request shares: where the console is, who looks, the form token."""

    prefix: str
    who: str
    csrf: str
    now: int
    route: str | None = None  # the page asked for (a GET's), under the prefix; None for an action's answer
    query: tuple[tuple[str, str], ...] = ()  # its query, as asked for
    said: str | None = None  # what the change before the redirect here said, its seal checked (csrf.opened)
    # The query that carries what a change says to the page it goes back to, sealed (csrf.sealed).
    sealed: Callable[[str], dict[str, str]] = dataclasses.field(default=lambda said: {}, repr=False, compare=False)

    def href(self, page: str, **query) -> str:
        return url(self.prefix + page, **query)

    @property
    def refreshing(self) -> bool:
        """Asked for with `refresh=30`: the page reloads itself every REFRESH seconds, with no script."""
        return self.route is not None and (REFRESH_FLAG, str(REFRESH)) in self.query

    def refresh_switch(self) -> Html:
        """The link that turns the page's refresh on, or off: the same page, its query kept but for
        what a change said (said=, seal=), which is for the one view it was shown in."""
        kept = {key: value for key, value in self.query if key not in (REFRESH_FLAG, *NOTICE_KEYS)}
        if self.refreshing:
            return link(self.href(self.route or "", **kept), f"refreshing every {REFRESH} s: stop", class_="refresh")
        return link(self.href(self.route or "", **kept, **{REFRESH_FLAG: str(REFRESH)}), f"refresh every {REFRESH} s",
                    class_="refresh")


REFRESH, REFRESH_FLAG = 30, "refresh"
NOTICE_KEYS = (NOTICE, SEAL)  # a notice is shown once, never carried on to another view


def page(frame: Frame, here: str, title: str, *body) -> str:
    nav = [link(frame.href(path) or "/", name, class_="here" if path == here else None) for path, name in PAGES]
    refresh = [void("meta", http_equiv="refresh", content=str(REFRESH))] if frame.refreshing else []
    switch = [frame.refresh_switch()] if frame.route is not None else []
    return "<!doctype html>\n" + tag(
        "html",
        tag("head", void("meta", charset="utf-8"), void("meta", name="viewport", content="width=device-width"),
            *refresh, tag("title", f"{title} · tickwork"),
            void("link", rel="stylesheet", href=frame.href("/console.css"))),
        tag("body",
            tag("header", tag("b", "tickwork"), *nav, tag("span", f"{frame.who} · {when(frame.now)}", class_="who")),
            tag("main", *switch, tag("h1", title), said(frame.said) if frame.said else "", *body)),
        lang="en",
    )


def said(message: str, refused: bool = False) -> Html:
    return tag("p", message, class_="said refused" if refused else "said")


# -- times ------------------------------------------------------------------------------------

def moment(ms, now: int, zone: str | None = None) -> Html:
    """An instant in UTC with how far from now, and in `zone` below it where there is one."""
    if ms is None:
        return text("-")
    ms = int(ms)
    if ms >= NEVER:
        return text("never")
    shown = [tag("time", f"{when(ms)} ({relative(ms, now)})", datetime=iso(ms))]
    if zone:
        shown.append(tag("span", in_zone(ms, zone), class_="zone"))
    return join(shown)


def iso(ms) -> str:
    """An instant as ISO 8601 in UTC, its milliseconds only where it has some: `2026-03-02T09:00:00Z`."""
    if ms is None or int(ms) >= NEVER:
        return ""
    written = words.iso(int(ms)) or ""
    return written.replace(".000Z", "Z")


def named(frame: Frame, name: str, label: str | None) -> Html:
    """A schedule's name linked to its page, with its label beside it where it has one (a per-item
    schedule's name is an id)."""
    return join([link(frame.href("/schedule", name=name), name, class_="id"),
                 tag("span", f"label {label}", class_="zone") if label else ""])


def in_zone(ms: int, zone: str) -> str:
    from ..kinds.zones import zone_info

    try:
        local = datetime.fromtimestamp(ms / 1000, tz=timezone.utc).astimezone(zone_info(zone))
    except (KeyError, ValueError, OverflowError):
        return zone
    written = local.strftime("%Y-%m-%d %H:%M:%S" if local.second or local.microsecond else "%Y-%m-%d %H:%M")
    if local.microsecond:
        written += f".{local.microsecond // 1000:03d}"
    return written + f" {local.tzname()} ({zone})"


def took(run: dict) -> str:
    took_ms = run_view(run).took_ms
    return words.short(took_ms) if took_ms is not None else ""


def outcome(run: dict) -> Html:
    said_ = run["outcome"] + (f" ({run['code']})" if run.get("code") else "")
    return tag("span", said_, class_=run["outcome"])


def outcome_noted(run: dict) -> Html:
    """The outcome, with a retry's attempt and who asked for a run by hand or a backfill below it."""
    notes = [attempt(run, None), unretried_words(run, None), words.asked_words(run),
             words.missed_words(run, run["schedule"])]
    return join([outcome(run), *(tag("span", note, class_="zone") for note in notes if note)])


def attempt_noted(run: dict, view) -> Html:
    """A run's attempt on its schedule's page, with its place among the retries (`retry 2 of 8
    after 2m`), or why it was not tried again where it was not."""
    said_ = run_retry_words(run, retry_of_settings(view.settings))
    return join([attempt(run, view.attempts), *([tag("span", said_, class_="zone")] if said_ else [])])


def attempt(run: dict, attempts: int | None) -> str:
    """`attempt 2 of 4` where the schedule retries or the run is a retry; '' otherwise."""
    number = int(run.get("attempt") or 1)
    return words.attempt_words(number, attempts) if attempts or number > 1 else ""


def run_link(frame: Frame, run: dict, shown: Html | str | None = None) -> Html:
    """A link to the run's own page (run_page.py), reading `shown` (by default its id); every
    table that shows a run links to it so."""
    if not run.get("id"):
        return text(shown if shown is not None else "")
    return link(frame.href("/run", id=run["id"]), shown if shown is not None else run["id"],
                class_="run" if shown is not None else "run id")


# -- forms ------------------------------------------------------------------------------------

def button(frame: Frame, action: str, label: str, back: str, **fields) -> Html:
    """A POST to the console's `action` carrying the form token; `back`, the page to return to."""
    return tag("form", *hidden(frame, back, **fields), tag("button", label, type="submit"), method="post",
               action=frame.href(action), class_="inline")


def hidden(frame: Frame, back: str, **fields) -> list[Html]:
    """What every form of an action posts beside what is typed: its `fields`, the form token, `back`."""
    return [void("input", type="hidden", name=key, value=value)
            for key, value in {**fields, "csrf": frame.csrf, "back": back}.items()]


def search_form(frame: Frame, page_: str, fields: list[tuple[str, Html]]) -> Html:
    return tag("form", *(tag("label", label, " ", control) for label, control in fields),
               tag("button", "Show", type="submit"), method="get", action=frame.href(page_))


def choice(name: str, chosen: str | None, options: list[tuple[str, str]]) -> Html:
    return tag("select", *(tag("option", shown, value=value, selected=value == (chosen or ""))
                           for value, shown in options),
               name=name)


def field(name: str, value: str | None, placeholder: str = "") -> Html:
    return void("input", type="search", name=name, value=value or "", placeholder=placeholder)


def answer(frame: Frame, title: str, message: str, back: str, refused: bool = False) -> str:
    return page(frame, "", title, said(message, refused), tag("p", link(back, "back")))
