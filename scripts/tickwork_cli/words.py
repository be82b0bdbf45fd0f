"""Times, durations and timings as an operator reads them: the runtime's own wording
(tickwork.operating.words), which the console shares."""

from tickwork.operating.words import (  # noqa: F401
    columns, iso, json_printable, kind_of, printable, relative, short, span, timing, when,
)
