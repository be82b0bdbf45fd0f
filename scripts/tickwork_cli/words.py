"""Times, durations and timings as an operator reads them: the runtime's own wording
(tickwork.words), which the console shares."""

from tickwork.words import (  # noqa: F401
    columns, iso, json_printable, kind_of, printable, relative, short, span, timing, when,
)
