"""Copy mode, sans-I/O: a state machine over lines read lazily, its search, and the patterns
shared with `termux capture --grep`. No Textual and no sockets: a view feeds it keys and draws
what it returns (docs/tui.md, "Copy mode")."""

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
from .pattern import Pattern, PatternError, grep, grep_pattern, search_pattern

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
    "Pattern",
    "PatternError",
    "Row",
    "SearchStatus",
    "Selection",
    "Unavailable",
    "View",
    "canonical_key",
    "grep",
    "grep_pattern",
    "key_name",
    "key_table",
    "search_pattern",
]
