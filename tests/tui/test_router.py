"""The input router, fed keys as Textual names them: no Textual app, no sockets."""

from __future__ import annotations

from termux.modes import APP_CURSOR, BRACKETED_PASTE
from termux.tui.config import DEFAULT_BINDINGS
from termux.tui.router import EARLY_KEYS, InputRouter, Pending, Run, Say, Send


def ready(prefix: str = "ctrl+b") -> InputRouter:
    router = InputRouter(prefix, DEFAULT_BINDINGS)
    assert router.attached() == []
    return router


def test_keys_go_to_the_session_encoded_for_its_modes() -> None:
    router = ready()
    assert router.key("a", "a", (), False) == [Send(b"a")]
    assert router.key("up", None, (), False) == [Send(b"\x1b[A")]
    assert router.key("up", None, {APP_CURSOR}, False) == [Send(b"\x1bOA")]  # the program asked
    assert router.key("ctrl+q", "\x11", (), False) == [Send(b"\x11")]


def test_the_prefix_then_a_binding_runs_its_action_by_name() -> None:
    router = ready()
    assert router.key("ctrl+b", "\x02", (), False) == [Pending(True), Say("")]
    assert router.pending
    assert router.key("c", "c", (), False) == [Pending(False), Run("new")]
    assert not router.pending
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("0", "0", (), False) == [Pending(False), Run("select-0")]
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("ctrl+b", "\x02", (), False) == [Pending(False), Send(b"\x02")]  # twice sends it
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("y", "y", (), False) == [Pending(False), Say("no binding for y")]
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("vertical_line", "|", (), False) == [Pending(False), Say("no binding for |")]  # (not its name)
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("f5", None, (), False) == [Pending(False), Say("no binding for f5")]
    router.key("ctrl+b", "\x02", (), False)
    assert router.key("escape", "\x1b", (), False) == [Pending(False), Say("")]  # the prefix taken back
    assert router.key("z", "z", (), False) == [Send(b"z")]  # disarmed


def test_a_prefix_spelt_as_tmux_does_is_the_same_key() -> None:
    router = ready("C-Space")
    assert router.key("ctrl+@", "\x00", (), False)[0] == Pending(True)  # what an xterm sends
    assert router.key("s", "s", (), False) == [Pending(False), Run("sidebar")]


def test_with_no_running_session_c_starts_one_and_q_leaves() -> None:
    router = ready()
    assert router.key("c", "c", None, False) == [Run("new")]
    assert router.key("enter", "\r", None, False) == [Run("new")]
    assert router.key("q", "q", None, False) == [Run("detach")]
    assert router.key("x", "x", None, False) == []
    said = router.key("c", "c", None, True)  # an ended session is focused while others run
    assert said == [Say("this session has ended: prefix n/p switches, prefix x removes it")]
    assert router.key("ctrl+b", "\x02", None, True)[0] == Pending(True)  # the prefix still works


def test_keys_before_the_attach_are_kept_bounded_and_replayed_in_order() -> None:
    router = InputRouter("ctrl+b", DEFAULT_BINDINGS)
    for n in range(EARLY_KEYS + 10):
        assert router.key("a", chr(ord("a") + n % 26), (), False) == []
    early = router.attached()
    assert len(early) == EARLY_KEYS and early[:2] == [("a", "a"), ("a", "b")]
    assert router.attached() == []  # replayed once
    assert router.key("a", "a", (), False) == [Send(b"a")]


def test_a_paste_is_bracketed_when_the_program_asks() -> None:
    assert InputRouter.paste("one\ntwo", ()) == b"one\rtwo"
    assert InputRouter.paste("x\x1b[201~y", {BRACKETED_PASTE}) == b"\x1b[200~x[201~y\x1b[201~"


def test_an_ended_session_s_pane_is_dismissed_with_enter_and_other_keys_say_so() -> None:
    router = InputRouter("ctrl+b", DEFAULT_BINDINGS)
    router.attached()
    assert router.key("enter", "\r", None, True, ended_pane=True) == [Run("dismiss-pane")]
    assert router.key("x", "x", None, True, ended_pane=True) == [Say("this session has ended: Enter closes its pane")]
    assert router.key("ctrl+b", "\x02", None, True, ended_pane=True) == [Pending(True), Say("")]
    assert router.key("z", "z", None, True, ended_pane=True) == [Pending(False), Run("zoom")]  # prefix keys work
