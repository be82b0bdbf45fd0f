"""The declared set moved to tick/declared.py (DeclaredSet); its old names stay here."""

from .tick.declared import *  # noqa: F401,F403
from .tick.declared import (  # noqa: F401
    Declared as Declared, DeclaredSet as DeclaredSet, action_key as action_key, coalescing_key as coalescing_key,
    declared as declared,
)
