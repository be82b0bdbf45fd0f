"""A one-off moment: a schedule handed over for one call at `at` (this order in an hour)."""

from dataclasses import dataclass

from . import Call, Timing
from .forms import once_form
from ..times import NEVER


@dataclass(frozen=True)
class Once(Timing):
    at: int  # epoch ms
    skips_while_running = False

    @property
    def form(self) -> str:
        return once_form(self.at)

    def first_due(self, tick: int) -> int:
        return self.at

    def owed(self, due: int, tick: int) -> Call:
        return Call(at=self.at)

    def following(self, due: int, tick: int) -> int:
        return NEVER

    def occurrences(self, due: int, start: int, end: int, most: int) -> list[Call]:
        return [Call(at=self.at)] if start <= self.at <= end and most > 0 else []
