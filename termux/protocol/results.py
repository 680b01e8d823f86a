"""The results of the commands, as typed messages: what a reply's `result` holds.

The server returns these from its handlers and encodes them once (`reply_ok`); a client that
loads msgspec decodes a reply into one with `AsyncClient.request_as`. Field names are the wire's
(docs/protocol.md, "Commands"); `bytes` travel as base64.
"""

from __future__ import annotations

import msgspec

from termux.protocol.messages import SessionInfo
from termux.protocol.pushes import Snapshot


class AttachResult(msgspec.Struct):
    """`client.attach`: everything a view needs to draw, in one round trip."""

    sessions: list[SessionInfo]
    snapshots: dict[str, Snapshot]  # session id → its screen, for each followed session
    cursor: int  # the event cursor the pushed events continue from
    in_sync: bool
    last_focus: str | None  # the session a view focused most recently, if it is still there


class SnapshotResult(msgspec.Struct):
    """`session.snapshot`: the session, and its screen as of `offset`."""

    session: SessionInfo
    offset: int
    cols: int
    rows: int
    data: bytes

    @classmethod
    def of(cls, session: SessionInfo, snapshot: Snapshot) -> SnapshotResult:
        return cls(session, snapshot.offset, snapshot.cols, snapshot.rows, snapshot.data)

    @property
    def snapshot(self) -> Snapshot:
        return Snapshot(self.offset, self.cols, self.rows, self.data)


class SessionResult(msgspec.Struct):
    """`session.new`, `session.get`, `session.resize`, `session.rename`, `session.kill`."""

    session: SessionInfo
