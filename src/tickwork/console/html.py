"""HTML made safe by construction: text is escaped where it is put in, markup is `Html`."""

from html import escape
from urllib.parse import urlencode

from ..operating.words import unreordered


class Html(str):
    """Markup already safe to send: made only by the helpers below."""


def text(value: object) -> Html:
    """Any value as escaped text (names, labels, inputs and errors are the app's users' data),
    its bidirectional controls shown as escapes, so no cell reads reversed."""
    if isinstance(value, Html):
        return value
    return Html(escape(unreordered("" if value is None else str(value)), quote=True))


def join(parts, sep: str = "") -> Html:
    return Html(sep.join(text(part) for part in parts))


def tag(element: str, *content, **attributes) -> Html:
    """`<name attr="...">content</name>`; an attribute named `class_` is written `class`, one
    whose value is None or False is left out, True writes it bare."""
    written = []
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        key = key.rstrip("_").replace("_", "-")
        written.append(f" {key}" if value is True else f' {key}="{text(value)}"')
    return Html(f"<{element}{''.join(written)}>{join(content)}</{element}>")


def void(element: str, **attributes) -> Html:
    return Html(tag(element, **attributes).removesuffix(f"</{element}>"))


def link(href: str, *content, **attributes) -> Html:
    return tag("a", *content, href=href, **attributes)


def url(path: str, **query) -> str:
    """A path with its query, the values URL-encoded (None left out)."""
    kept = {key: value for key, value in query.items() if value is not None and value != ""}
    return path + ("?" + urlencode(kept) if kept else "")


def table(headers: list[str], rows: list[list], empty: str = "none") -> Html:
    if not rows:
        return tag("p", empty, class_="empty")
    head = tag("tr", *(tag("th", h) for h in headers))
    # data-label: on a narrow screen each row is a block of facts, each cell its column's name above it.
    named = [*headers, *[""] * max(len(row) for row in rows)]
    body = join(tag("tr", *(tag("td", cell, data_label=named[k] or None) for k, cell in enumerate(row)))
                for row in rows)
    return tag("table", tag("thead", head), tag("tbody", body))
