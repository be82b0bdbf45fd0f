"""Plain records: a class of named fields (its `__slots__`), compared, hashed and shown by them.

A dataclass compiles code for its class when it is defined, about 1.5 ms each on the Workers'
Pyodide; the records a Worker's cold start defines (events, declarations) are these instead
(docs/explanation/tick.md, "Cold start")."""


class Record:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other):
        return self._values() == other._values() if type(other) is type(self) else NotImplemented

    def __hash__(self):
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"
