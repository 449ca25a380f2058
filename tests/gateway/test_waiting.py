"""A person waiting on a slow upstream is told so: its start (`tools`, `validate --connect`,
`call`, `run`, `serve`) and a long call each say "still waiting" in a warning line naming the
upstream, how long so far and how long it may take. Before, nothing was said until the
deadline (30 s for a start's step, 10 minutes for a call)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from toolhost.gateway.start import _waiting_for

from .conftest import at_once, hostile_config


def test_a_slow_start_and_a_long_call_say_they_are_still_waiting(tmp_path: Path) -> None:
    starting = tmp_path / "starting"
    calling = tmp_path / "calling"
    starting.mkdir()
    calling.mkdir()
    never_lists = hostile_config(starting, connect_timeout="3s")
    never_answers = hostile_config(calling, timeout="2s")
    with ThreadPoolExecutor(1) as pool:  # the call's 2 s run beside the starts' 3 s
        calls = pool.submit(at_once, ["call", str(never_answers), "h.echo", "text=hi"],
                            HOSTILE_MODE="hang_call", TOOLHOST_WAIT_NOTICE="0.1")
        tools, validate = at_once(["tools", str(never_lists)], ["validate", "--connect",
                                                                 str(never_lists)],
                                  HOSTILE_MODE="hang_list", TOOLHOST_WAIT_NOTICE="0.2")
        call, = calls.result()
    for done in (tools, validate):
        assert done.returncode == 1
        assert ("toolhost: WARNING: still waiting for upstream server 'h' to start and list "
                "its tools (") in done.stderr
        assert "so far; each step may take up to 3s: connect_timeout)" in done.stderr
        assert "within 3s" in done.stderr  # (initialize, or the listing that never ends)
    assert call.returncode == 1, call.stderr
    assert ("toolhost: WARNING: still waiting for upstream server 'h' to answer the call of "
            "'echo' (") in call.stderr
    # the tool's deadline and the upstream call's are both 2s: either may say it first
    said = call.stdout + call.stderr
    assert "so far; timeout 2s)" in call.stderr and (
        "timed out after 2s" in said or "did not answer the call of 'echo' within 2s" in said)


def test_the_waiting_line_names_what_it_waits_for(tmp_path: Path) -> None:
    from toolhost.config import load_config

    config = hostile_config(tmp_path, connect_timeout="7s")
    server = load_config(config).servers["h"]
    assert _waiting_for([], 3) == ""
    assert _waiting_for([server], 5.4) == (
        "still waiting for upstream server 'h' to start and list its tools (5s so far; each "
        "step may take up to 7s: connect_timeout)")
    assert _waiting_for([server] * 7, 10).startswith(
        "still waiting for upstream servers 'h', 'h', 'h', 'h', 'h' and 2 more to start and "
        "list their tools (10s so far")


def test_many_short_waits_leave_nothing_behind() -> None:
    """A host making many short calls keeps no clock entry of each until its first line
    would have been due (30 s later): memory stays bounded by the waits under way."""
    from toolhost.gateway.waiting import _CLOCK, still_waiting

    with still_waiting(lambda waited: "", 3600.0):  # one long wait, under way throughout
        for _ in range(10_000):
            with still_waiting(lambda waited: "", 3600.0):
                pass
        assert len(_CLOCK._due) <= 2 * len(_CLOCK._waits) + 65


def test_the_clock_thread_ends_once_no_wait_is_left() -> None:
    # a daemon thread left in a timed wait woke while the interpreter was ending (a
    # command's exit under load) and could crash the process with SIGSEGV
    from toolhost.gateway import waiting

    with waiting.still_waiting(lambda seconds: "", first=3600):
        thread = waiting._CLOCK._thread
        assert thread is not None and thread.is_alive()
    thread.join(30)  # it ends at once; this only bounds a broken one
    assert not thread.is_alive()
    with waiting.still_waiting(lambda seconds: "", first=3600):  # a new wait: a new thread
        again = waiting._CLOCK._thread
        assert again is not None and again.is_alive()
    again.join(30)
    assert not again.is_alive()
