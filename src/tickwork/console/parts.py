"""What every console page is built of: the frame of a request, the page around a body, times
in UTC and a calendar's zone, outcomes, and the forms that post an operator's change."""

from collections.abc import Callable
import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone

from ..operating import words
from ..operating.views import run_view
from ..operating.words import relative, when
from ..times import NEVER
from .html import Html, join, link, tag, text, url, void

CSS = (
    "body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #fafbfc; }\n"
    "header { background: #1b1f24; color: #fff; padding: .6em 1.2em; display: flex; gap: 1.4em; "
    "align-items: baseline; }\n"
    "header a { color: #cfe3ff; text-decoration: none; } header a.here { color: #fff; font-weight: 600; "
    "}\n"
    "header .who { margin-left: auto; color: #aab; }\n"
    "main { padding: 1em 1.2em; max-width: 88em; }\n"
    "h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.6em; }\n"
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
    "pre.whole { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #e3e6ea; "
    "padding: .6em; }\n"
    "dl { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; }\n"
    "dt { font-weight: 600; } dd { margin: 0; }\n"
    "code, .id { font-family: ui-monospace, monospace; font-size: .92em; word-break: break-all; }\n"
    ".counts { display: flex; gap: 2em; flex-wrap: wrap; } .counts div { background: #fff; "
    "padding: .6em 1em; border: 1px solid #e3e6ea; }\n"
    ".counts b { display: block; font-size: 1.4em; }\n"
)

PAGES = (("", "Overview"), ("/schedules", "Schedules"), ("/runs", "Runs"), ("/deliveries", "Deliveries"),
         ("/log", "Operator log"))


@dataclass(frozen=True)
class Frame:
    """What every page of one request shares: where the console is, who looks, the form token."""

    prefix: str
    who: str
    csrf: str
    now: int
    said: str | None = None  # what the change before the redirect here said, its seal checked (csrf.opened)
    # The query that carries what a change says to the page it goes back to, sealed (csrf.sealed).
    sealed: Callable[[str], dict[str, str]] = dataclasses.field(default=lambda said: {}, repr=False, compare=False)

    def href(self, page: str, **query) -> str:
        return url(self.prefix + page, **query)


def page(frame: Frame, here: str, title: str, *body) -> str:
    nav = [link(frame.href(path) or "/", name, class_="here" if path == here else None) for path, name in PAGES]
    return "<!doctype html>\n" + tag(
        "html",
        tag("head", void("meta", charset="utf-8"), void("meta", name="viewport", content="width=device-width"),
            tag("title", f"{title} · tickwork"), void("link", rel="stylesheet", href=frame.href("/console.css"))),
        tag("body",
            tag("header", tag("b", "tickwork"), *nav, tag("span", f"{frame.who} · {when(frame.now)}", class_="who")),
            tag("main", tag("h1", title), said(frame.said) if frame.said else "", *body)),
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
    shown = [tag("time", f"{when(ms)} ({relative(ms, now)})", datetime=words.iso(ms))]
    if zone:
        shown.append(tag("span", in_zone(ms, zone), class_="zone"))
    return join(shown)


def in_zone(ms: int, zone: str) -> str:
    from ..kinds.zones import zone_info

    try:
        local = datetime.fromtimestamp(ms / 1000, tz=timezone.utc).astimezone(zone_info(zone))
    except (KeyError, ValueError, OverflowError):
        return zone
    return local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M") + f" {local.tzname()} ({zone})"


def took(run: dict) -> str:
    took_ms = run_view(run).took_ms
    return words.short(took_ms) if took_ms is not None else ""


def outcome(run: dict) -> Html:
    said_ = run["outcome"] + (f" ({run['code']})" if run.get("code") else "")
    return tag("span", said_, class_=run["outcome"])


def outcome_noted(run: dict) -> Html:
    """The outcome, with a retry's attempt and who asked for a run by hand or a backfill below it."""
    notes = [attempt(run, None), words.asked_words(run), words.missed_words(run, run["schedule"])]
    return join([outcome(run), *(tag("span", note, class_="zone") for note in notes if note)])


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
