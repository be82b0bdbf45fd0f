"""The label and input a schedule was handed over with, as the command shows them."""

import json

from tickwork.operating.end_words import links


def label_and_input(state: dict | None, show_input: bool) -> dict:
    """A schedule's label (None for a declared one or one handed over without), and with
    `show_input` the input it was handed over with, as the app gave it."""
    found = {"label": (state or {}).get("label")}
    if show_input:
        text = (state or {}).get("input")
        found["input"] = json.loads(text) if text else None
    return found


def labelled(data: dict, lines: list[str], state: dict | None, show_input: bool) -> None:
    """Adds the label (and the input, with `show_input`) to an answer about one schedule: to its
    data, and as lines after its first."""
    extra = label_and_input(state, show_input)
    data.update(extra)
    shown = []
    if extra["label"] is not None:
        shown.append(f"  label      {extra['label']}")
    if show_input and (state or {}).get("action") is not None:
        shown.append(f"  input      {json.dumps(extra['input'], ensure_ascii=False, sort_keys=True)}")
    said = links(state or {})
    if said:
        data["links"] = {what: words for what, words in said}
    shown += [f"  {what:<10} {words.removeprefix(what + ' ') if what.startswith('replace') else words}"
              for what, words in said]
    lines[1:1] = shown
