"""What the build reports: every problem with its documented code, where it is, and a mend."""

from dataclasses import dataclass

from tickwork.codes import CODES


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    mend: str
    file: str
    line: int
    name: str | None = None  # the declaration it concerns, where there is one

    def __post_init__(self) -> None:
        if self.code not in CODES:  # so the reference's page of codes says what every problem means
            raise ValueError(f"{self.code} is no code of tickwork.codes.CODES: register it there")

    def __str__(self) -> str:
        subject = f" {self.name}:" if self.name else ""
        return f"{self.file}:{self.line}: {self.code}:{subject} {self.message}\n    mend: {self.mend}"


class BuildFailed(Exception):
    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems
