"""The one family of errors a user's schedule can cause: each carries its documented code
(`schedule.cron_invalid`, `deployable.target_unsupported`, ...), what is wrong, and how to mend it.

`tickwork.ScheduleError` is the public name. Its subclasses differ only in how they read as text."""


class ScheduleError(ValueError):
    """A schedule the Worker cannot honour, with the build's code and how to mend it: raised by a
    hand-over at run time (`items.*`), and by the checks the build and the hand-over share
    (kinds.rules). It reads `code: message; mend`."""

    def __init__(self, code: str, message: str, mend: str = ""):
        super().__init__(self._text(code, message, mend))
        self.code, self.message, self.mend = code, message, mend

    @staticmethod
    def _text(code: str, message: str, mend: str) -> str:
        return f"{code}: {message}" + (f"; {mend}" if mend else "")


class Invalid(ScheduleError):
    """A value refused where the caller says the rest: the build names file:line and the
    schedule, a hand-over its own code and mend. It reads as its message alone."""

    @staticmethod
    def _text(code: str, message: str, mend: str) -> str:
        return message
