"""Copy mode, sans-I/O: a state machine over lines read lazily, and its search (patterns from
termux/patterns.py). No Textual and no sockets: a view feeds it keys and draws what it returns
(docs/tui.md, "Copy mode")."""

from .lines import Line, LineSource, ListSource, Unavailable
from .model import (
    CONTINUE,
    EMACS_KEYS,
    LEAVE,
    VI_KEYS,
    Continue,
    Copy,
    CopyMode,
    Leave,
    NeedLines,
    Outcome,
    Row,
    SearchStatus,
    Selection,
    View,
    canonical_key,
    key_name,
    key_table,
)

__all__ = [
    "CONTINUE",
    "EMACS_KEYS",
    "LEAVE",
    "VI_KEYS",
    "Continue",
    "Copy",
    "CopyMode",
    "Leave",
    "Line",
    "LineSource",
    "ListSource",
    "NeedLines",
    "Outcome",
    "Row",
    "SearchStatus",
    "Selection",
    "Unavailable",
    "View",
    "canonical_key",
    "key_name",
    "key_table",
]
