"""A session's info says since when it has been quiet, so a view that attaches later knows it too."""

from __future__ import annotations

from pathlib import Path

from event_helpers import event_of, served_client

from termux.client import AsyncClient


async def test_quiet_since_is_in_the_info_while_quiet_and_goes_with_output(socket_dir: Path) -> None:
    async with served_client(socket_dir / "s", quiet_after=0.2) as (server, client):
        await client.request("events.stream", types=["session.quiet", "session.activity"])
        created = await client.request("session.new", name="job", command=["sh", "-c", "echo ready; exec cat"])
        assert created["session"]["quiet_since"] is None  # it has not printed yet
        active = event_of(await client.pushes.get())
        assert active.type == "session.activity"
        quiet = event_of(await client.pushes.get())
        assert quiet.type == "session.quiet"
        since = (await client.request("session.get", target="job"))["session"]["quiet_since"]
        # after its output began, and quiet_after before the event said it was quiet
        assert since is not None and active.time <= since <= quiet.time - 0.2
        viewer = await AsyncClient.connect(server.socket_path, autostart=False)
        attached = await viewer.request("client.attach")
        await viewer.close()
        assert attached["sessions"][0]["quiet_since"] == since  # what a view attaching later reads
        await client.request("session.send", target="job", data="bW9yZQo=")  # "more\n": output again
        assert event_of(await client.pushes.get()).type == "session.activity"
        assert (await client.request("session.get", target="job"))["session"]["quiet_since"] is None
