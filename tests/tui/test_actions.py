"""Every action a key can run (termux/commands.py's two tables) has its method on the TUI, and the
prefix runs it by name."""

from __future__ import annotations

import inspect

import pytest

from termux.commands import Action, bindable
from termux.tui.app import TermuxApp


@pytest.mark.parametrize("action", list(bindable()), ids=lambda action: action.name)
def test_each_bindable_action_has_its_method_taking_its_arguments(action: Action) -> None:
    method = getattr(TermuxApp, action.handler, None)
    assert callable(method), f"{action.name}: TermuxApp has no {action.handler}"
    inspect.signature(method).bind(None, *action.args)  # (self, *args): the table's arguments fit


def test_the_prefix_runs_an_action_by_any_of_its_names(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[tuple[str, tuple[int, ...]]] = []
    app = TermuxApp.__new__(TermuxApp)  # no client, no screen: only the dispatch is exercised
    monkeypatch.setattr(app, "prefix_select", lambda n: ran.append(("select", (n,))), raising=False)
    monkeypatch.setattr(app, "prefix_detach", lambda: ran.append(("detach", ())), raising=False)
    app.run_prefix_action("select-3")
    app.run_prefix_action("detach-client")  # tmux's name
    assert ran == [("select", (3,)), ("detach", ())]
