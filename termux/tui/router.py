"""Where each key goes (sans-I/O: no Textual, no sockets): the prefix state machine, the
bindings after it, and the encoding of everything else for the focused session.

`InputRouter.key` takes one key (Textual's name and character) and says what it means, as a list
of `Route`s the app carries out: bytes for the focused session (`Send`), a prefix action by name
(`Run`, the app's `run_action` dispatches it), the prefix armed or disarmed (`Pending`), or a line
for the status line (`Say`). Keys are matched by the bytes a terminal sends for them, so every
spelling of a key is the same key (termux/tui/config.py `key_bytes`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from termux.keys import encode_paste, encode_textual
from termux.tui.config import key_bytes

EARLY_KEYS = 256  # keys typed before the attach completes, replayed after it


@dataclass(frozen=True)
class Send:
    """Bytes for the focused session."""

    data: bytes


@dataclass(frozen=True)
class Run:
    """A prefix action, by name (see termux/tui/config.py)."""

    action: str


@dataclass(frozen=True)
class Pending:
    """The prefix was armed (the next key is a command) or disarmed."""

    on: bool


@dataclass(frozen=True)
class Say:
    """A line for the status line."""

    message: str


Route = Send | Run | Pending | Say


class InputRouter:
    def __init__(self, prefix: str, bindings: Mapping[str, str]) -> None:
        self.prefix = key_bytes(prefix)
        self.bindings = {key_bytes(name): action for name, action in bindings.items()}
        self.pending = False  # the prefix was typed: the next key is a command
        self.ready = False  # attached: there are sessions to send keys to
        self._early: list[tuple[str, str | None]] = []

    def key(
        self,
        key: str,
        character: str | None,
        mode: Collection[int] | None,
        others_running: bool,
        ended_pane: bool = False,
    ) -> list[Route]:
        """What `key` does. `mode`: the focused session's terminal modes, None when no running
        session is focused; `others_running`: some other session runs; `ended_pane`: the focused
        session ended and its pane stays until dismissed (Enter)."""
        if not self.ready:
            # typed before the attach reply: kept (bounded) and replayed once there is a session
            if len(self._early) < EARLY_KEYS:
                self._early.append((key, character))
            return []
        typed = encode_textual(key, character)  # keys are matched by their bytes
        if self.pending:
            self.pending = False
            if typed == self.prefix:  # the prefix twice sends it
                return [Pending(False), *self._send(key, character, mode)]
            action = self.bindings.get(typed)
            if action is None and key == "escape":
                return [Pending(False), Say("")]  # the prefix taken back, as tmux has it
            if action is None:
                shown = character if character and character.isprintable() and not character.isspace() else key
                return [Pending(False), Say(f"no binding for {shown}")]
            return [Pending(False), Run(action)]
        if typed == self.prefix:
            self.pending = True
            return [Pending(True), Say("")]
        if mode is not None:
            return self._send(key, character, mode)
        if ended_pane:
            return [Run("dismiss-pane")] if key == "enter" else [Say("this session has ended: Enter closes its pane")]
        if others_running:
            # an ended session was chosen while others live: keys have nowhere to go
            return [Say("this session has ended: prefix n/p switches, prefix x removes it")]
        if key in ("c", "enter"):
            return [Run("new")]
        if key in ("q", "d"):
            return [Run("detach")]
        return []

    @staticmethod
    def _send(key: str, character: str | None, mode: Collection[int] | None) -> list[Route]:
        data = encode_textual(key, character, mode or ())
        return [Send(data)] if data else []

    def takes(self, key: str, character: str | None) -> bool:
        """Whether the key is the router's whatever else is on (copy mode has the rest): the
        prefix, or the command key after it."""
        return self.pending or encode_textual(key, character) == self.prefix

    @staticmethod
    def paste(text: str, mode: Collection[int]) -> bytes:
        """A paste for the focused session: bracketed when the program asked for it."""
        return encode_paste(text, mode)

    def attached(self) -> list[tuple[str, str | None]]:
        """The attach completed: the keys typed before it, to replay in order."""
        self.ready = True
        early, self._early = self._early, []
        return early
