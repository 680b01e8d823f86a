"""`session.capture` as a lazy reader's page source, against a real session: soft-wrap flags with
the lines, and a pinned numbering (`base`) under which lines stay put while output arrives."""

from __future__ import annotations

from tests.conftest import RunningServer, wait_for_screen

# 30 numbered lines, one line of 100 characters (wrapped into 3 rows at 40 columns), then `cat`.
PROGRAM = "seq 1 30; printf '%0100d\\n' 0; echo ready; exec cat"


def test_a_page_carries_its_wrapped_flags_and_the_absolute_number_of_line_0(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "log", "-x", "40", "-y", "5", "--", "sh", "-c", PROGRAM)
    wait_for_screen(server.path, "log", "ready")
    with server.client() as client:
        page = client.request("session.capture", target="log", start=-10, end=4, wrapped=True)
        assert page["start"] == -10 and len(page["lines"]) == 15 == len(page["wrapped"])
        zeros = [i for i, line in enumerate(page["lines"]) if line and set(line) == {"0"}]
        assert len(zeros) == 3  # the long line's three rows: the first two wrap, the last ends it
        assert [page["wrapped"][i] for i in zeros] == [True, True, False]
        assert sum(page["wrapped"]) == 2
        assert page["base"] == page["history"]  # nothing has left the history yet
        plain = client.request("session.capture", target="log", start=-10, end=4)
        assert plain["wrapped"] is None and plain["lines"] == page["lines"]  # not asked for


def test_under_a_pinned_base_lines_keep_their_numbers_while_output_arrives(server: RunningServer) -> None:
    server.run("new", "-d", "-s", "log", "-x", "40", "-y", "5", "--", "sh", "-c", PROGRAM)
    wait_for_screen(server.path, "log", "ready")
    with server.client() as client:
        before = client.request("session.capture", target="log", start=-20, end=-15)
        base = before["base"]
        client.request("session.send", target="log", keys=["one", "Enter", "two", "Enter", "three", "Enter"])
        wait_for_screen(server.path, "log", "three")
        now = client.request("session.capture", target="log", start=-20, end=-15)
        assert now["base"] > base and now["lines"] != before["lines"]  # the lines moved up
        pinned = client.request("session.capture", target="log", start=-20, end=-15, base=base)
        assert pinned["lines"] == before["lines"] and pinned["start"] == -20
        # The numbering reaches lines that were on the screen when it was pinned, and clamps as
        # capture does: the first line returned is said in the request's numbering.
        oldest = client.request("session.capture", target="log", start=-1000, end=-1000, base=base)
        assert oldest["start"] == -before["history"] and oldest["lines"] == ["1"]


def test_join_and_wrapped_together_are_refused_in_words(server: RunningServer) -> None:
    from termux.client import TermuxError

    server.run("new", "-d", "-s", "log", "--", "cat")
    with server.client() as client:
        try:
            client.request("session.capture", target="log", join=True, wrapped=True)
        except TermuxError as exc:
            assert exc.code == "bad_args"
            assert exc.message == "give `join` or `wrapped`, not both: joined lines wrap nowhere"
        else:
            raise AssertionError("join with wrapped was taken")
