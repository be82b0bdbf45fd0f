"""The old path of the operator's statements, now `tickwork.store.operator`: every name it held, for the
code that still imports it from here."""

from .store.operator import *  # noqa: F403
