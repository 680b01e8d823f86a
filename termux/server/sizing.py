"""Which size a session takes when views of different sizes show it (tmux's `window-size`).

A view (an attached client that reported its size with `client.attach` or `client.focus`) offers
its size to the session it focuses. The server alone sizes sessions from those offers, under one
policy for the whole server:

- `latest` (the default, as tmux 3.3): the size of the view that most recently attached, focused
  the session, changed its size or typed into it;
- `smallest`: the smallest width and the smallest height among the views showing it;
- `largest`: the largest of each.

A view larger or smaller than its session draws it padded or clipped; nothing a view receives
makes it ask for a size, so two views can never make a session flap between their sizes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Policy = Literal["latest", "smallest", "largest"]
POLICIES: tuple[Policy, ...] = ("latest", "smallest", "largest")
DEFAULT_POLICY: Policy = "latest"


@dataclass(frozen=True, slots=True)
class ViewSize:
    """What one view offers: its size and when it was last active (a larger `active` is later)."""

    cols: int
    rows: int
    active: int


def choose(policy: Policy, views: Iterable[ViewSize]) -> tuple[int, int] | None:
    """The session's size under `policy`, or None when no view shows it (it keeps its size)."""
    offers = list(views)
    if not offers:
        return None
    if policy == "smallest":
        return min(v.cols for v in offers), min(v.rows for v in offers)
    if policy == "largest":
        return max(v.cols for v in offers), max(v.rows for v in offers)
    latest = max(offers, key=lambda v: v.active)
    return latest.cols, latest.rows
