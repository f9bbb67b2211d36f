"""The e2e harness itself: real client ↔ mock API, headless and under tmux.

No session-skill involved: when these fail, the harness (or the pinned client) is at
fault, not the product.
"""

from __future__ import annotations

import json
import socket

import pytest
from e2e_harness import World, alive, descendants
from mock_api import tool_use

pytestmark = pytest.mark.e2e


def test_headless_text_round_trip(bare_world: World) -> None:
    w = bare_world
    w.mock.script(["hello from the mock"])
    r = w.run_p("say hi")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "hello from the mock"
    main = w.mock.main_requests()
    assert len(main) == 1
    req = main[0]
    assert req["path"].startswith("/v1/messages")
    assert req.body["stream"] is True
    assert "Bash" in req.tool_names()
    assert "say hi" in req.last_user_text()
    logged = [json.loads(x) for x in (w.root / "requests.jsonl").read_text().splitlines()]
    assert [x["seq"] for x in logged] == [r["seq"] for r in w.mock.requests]


def test_headless_tool_round_trip(bare_world: World) -> None:
    w = bare_world
    w.mock.script(
        [
            tool_use("Bash", {"command": "echo marker-$((40+2))", "description": "echo"}),
            lambda body: "saw: " + body["messages"][-1]["content"][0]["content"],
        ]
    )
    r = w.run_p("run it", "--allowedTools", "Bash")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "saw: marker-42"
    assert w.mock.errors == []


def test_tmux_round_trip(bare_tmux_world: World) -> None:
    w = bare_tmux_world
    w.mock.script(["first reply", "second reply"])
    t = w.tui()
    mark = w.mock.mark()
    t.type("hello there")
    req = w.mock.wait_main(since=mark)
    assert "hello there" in req.last_user_text()
    t.wait_screen("first reply")
    t.clear()
    mark = w.mock.mark()
    t.type("after clear")
    req = w.mock.wait_main(since=mark)
    assert "after clear" in req.last_user_text()
    assert "hello there" not in req.text()  # /clear emptied the context
    t.wait_screen("second reply")

    # cleanup: the tmux server, the wrapper and claude are gone; the mock stops listening
    assert t.pane_pid is not None and t.server_pid is not None
    pids = descendants(t.pane_pid)
    assert len(pids) >= 2, pids  # the wrapper shell and claude (and its children)
    pids.append(t.server_pid)
    t.close()
    assert not [p for p in pids if alive(p)]
    port = w.mock.port
    w.mock.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
