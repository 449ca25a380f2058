"""Rendering the real CLI's messages (from the captured traces) for people and for scripts."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.model import Origin
from toolhost.permissions.decision import Decision
from toolhost.runner import render
from toolhost.runner.render import JsonRenderer, TextRenderer, shorten
from toolhost.visible import visible

HERE = Path(__file__).parent


def _messages(name: str) -> list[dict[str, Any]]:
    out = []
    for line in (HERE.parent / "traces" / name).read_text().splitlines():
        entry = json.loads(line)
        msg = entry["msg"]
        if entry["dir"] == "cli->sdk" and msg.get("type") not in (
                "control_request", "control_response"):
            out.append(msg)
    return out


def test_text_transcript_of_a_denied_call() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for msg in _messages("deny.wire.jsonl"):
        r.message(msg)
        if msg["type"] == "assistant" and msg["message"]["content"][0]["type"] == "tool_use":
            use_id = msg["message"]["content"][0]["id"]
            r.decision("mcp__demo__greet", Decision(
                "deny", "The user does not want anyone greeted.", rule="mcp__demo__greet",
                origin=Origin("team.yaml", 9, 7)), tool_use_id=use_id)
    lines = out.getvalue().splitlines()
    assert lines[1:4] == [
        '→ #1 mcp__demo__greet(name="Alice")',
        "  #1 ⊘ denied by mcp__demo__greet at team.yaml:9:7: The user does not want anyone "
        "greeted.",
        "  #1 ✗ mcp__demo__greet: The user does not want anyone greeted.",
    ]
    assert lines[0].startswith("session: model claude-sonnet-4-5, MCP servers demo (connected)")
    assert lines[-1] == "— done: 2 turns, 0.3 s, $0.0163, 1 denied"


def test_parallel_results_and_allow_by_default() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for msg in _messages("parallel-readonly.wire.jsonl"):
        r.message(msg)
    r.decision("mcp__demo__greet", Decision("allow", answered_by="--yes",
                                                updated_input={"name": "x"}))
    text = out.getvalue()
    assert "  #1 ← mcp__demo__greet: Hello, Alice!\n  #2 ← mcp__demo__greet: Hello, Bob!\n" in text
    assert "  ✓ allowed by default (--yes) (input rewritten)" in text  # no id: no tag


def test_decisions_and_results_carry_the_tag_of_their_call_in_any_order() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    calls = [{"type": "tool_use", "id": f"u{i}", "name": "mcp__s__t", "input": {"n": i}}
             for i in (1, 2)]
    r.message({"type": "assistant", "message": {"id": "m1", "content": calls}})
    r.decision("mcp__s__t", Decision("deny", "no two", rule="r"), tool_use_id="u2")
    r.decision("mcp__s__t", Decision("allow", rule="ok"), tool_use_id="u1")
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "u2", "content": "no two", "is_error": True},
        {"type": "tool_result", "tool_use_id": "u1", "content": "one"}]}})
    r.message({"type": "assistant", "message": {"id": "m2", "content": [
        {"type": "text", "text": "Done."}]}})
    r.message({"type": "result", "subtype": "success", "num_turns": 5, "duration_ms": 100})
    assert out.getvalue().splitlines() == [
        "→ #1 mcp__s__t(n=1)", "→ #2 mcp__s__t(n=2)",
        "  #2 ⊘ denied by r: no two", "  #1 ✓ allowed by ok",
        "  #2 ✗ mcp__s__t: no two", "  #1 ← mcp__s__t: one", "Done.",
        "— done: 2 turns, 0.1 s"]  # two replies of the model, whatever num_turns says


def test_a_reused_call_id_is_said_and_its_results_never_get_a_wrong_name() -> None:
    """red team runner6: a model that gave two calls one id had the second result shown
    without a name, and a result of one tool labelled with the other's."""
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    calls = [{"type": "tool_use", "id": i, "name": n, "input": {"text": t}}
             for i, n, t in (("d1", "mcp__s__echo", "a"), ("d1", "mcp__s__echo", "b"),
                             ("d2", "mcp__s__ask", "c"), ("d2", "mcp__s__echo", "d"))]
    r.message({"type": "assistant", "message": {"id": "m1", "content": calls}})
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": i, "content": t}
        for i, t in (("d1", "a"), ("d2", "c"), ("d1", "b"), ("d2", "d"))]}})
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "d2", "content": "late"}]}})
    reused = " (the id of an earlier call: their results cannot be told apart)"
    assert out.getvalue().splitlines() == [
        '→ #1 mcp__s__echo(text="a")', f'→ #1 mcp__s__echo(text="b"){reused}',
        '→ #2 mcp__s__ask(text="c")', f'→ #2 mcp__s__echo(text="d"){reused}',
        "  #1 ← mcp__s__echo: a", "  #2 ← mcp__s__ask or mcp__s__echo: c",
        "  #1 ← mcp__s__echo: b", "  #2 ← mcp__s__ask or mcp__s__echo: d",
        "  #2 ← late"]
    assert not r._reused and not r._calls


def test_an_id_reused_after_its_call_ended_is_a_new_call_with_a_new_tag() -> None:
    # a model that sends toolu_X turn after turn: every call was "#1", three calls that
    # looked like one
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for turn, text in enumerate(("a", "b")):
        r.message({"type": "assistant", "message": {"id": f"m{turn}", "content": [
            {"type": "tool_use", "id": "X", "name": "mcp__s__echo", "input": {"text": text}}]}})
        r.message({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "X", "content": text}]}})
    assert out.getvalue().splitlines() == [
        '→ #1 mcp__s__echo(text="a")', "  #1 ← mcp__s__echo: a",
        '→ #2 mcp__s__echo(text="b")', "  #2 ← mcp__s__echo: b"]


def test_a_long_session_remembers_a_bounded_number_of_calls() -> None:
    """Calls whose result never comes (and every call's tag) are forgotten oldest first;
    tags keep counting up, never reused."""
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    many = render.MAX_REMEMBERED_CALLS + 500
    for i in range(many):
        r.message({"type": "assistant", "message": {"id": f"m{i}", "content": [
            {"type": "tool_use", "id": f"u{i}", "name": "mcp__s__t", "input": {}}]}})
    assert len(r._calls) == len(r._tags) == render.MAX_REMEMBERED_CALLS
    assert r.tag(f"u{many - 1}") == f"#{many} "  # still the one it was shown with
    assert r.tag("u0") == f"#{many + 1} "  # forgotten: a new number, not an old one
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "u1", "content": "late"}]}})
    # its name is gone (not a wrong one), and it gets a number no remembered call has
    assert out.getvalue().splitlines()[-1] == f"  #{many + 2} ← late"


def test_each_turn_shows_its_own_cost_and_the_sessions() -> None:
    """red team runner6: the CLI's total_cost_usd is the session's so far, and every turn's
    line showed it as if it were that turn's ($0.0003, $0.0006, $0.0010 for equal turns)."""
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for total in (0.0003, 0.0006, 0.001):
        r.message({"type": "result", "subtype": "success", "duration_ms": 100,
                   "total_cost_usd": total})
    assert out.getvalue().splitlines() == [
        "— done: 0 turns, 0.1 s, $0.0003",
        "— done: 0 turns, 0.1 s, $0.0003 (session $0.0006)",
        "— done: 0 turns, 0.1 s, $0.0004 (session $0.0010)"]


def test_a_turn_the_person_interrupted_is_said_interrupted_not_failed() -> None:
    # Ctrl-C: the CLI ends the turn with error_during_execution; it was shown "failed"
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    stopped = [True]
    r.interrupted = lambda: stopped[0]
    for flag in (True, False):
        stopped[0] = flag
        r.message({"type": "result", "subtype": "error_during_execution", "is_error": True,
                   "duration_ms": 1500})
    assert out.getvalue().splitlines() == [
        "— interrupted (error_during_execution): 0 turns, 1.5 s",
        "— failed (error_during_execution): 0 turns, 1.5 s"]


def test_a_call_with_no_result_when_the_session_ends_is_said_lost() -> None:
    # the CLI exited (or a signal ended the session) while #2 ran: its call line stood
    # there with no result and nothing said it never came
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    r.message({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "a", "name": "mcp__s__one", "input": {}},
        {"type": "tool_use", "id": "b", "name": "mcp__s__two", "input": {}}]}})
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "fine"}]}})
    r.close()
    r.close()  # said once
    assert out.getvalue().splitlines()[2:] == [
        "  #1 ← mcp__s__one: fine",
        "  #2 ✗ mcp__s__two: no result came back before the session ended"]


def test_a_turn_stopped_at_its_turn_limit_says_why_and_what_to_do() -> None:
    # a model that never stops calling tools (or repeats a denied call) meets --max-turns:
    # the line said only "failed (error_max_turns)", not the limit nor what to change
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    r.message({"type": "result", "subtype": "error_max_turns", "is_error": True,
               "duration_ms": 1500, "errors": ["Reached maximum number of turns (2)"]})
    assert out.getvalue().splitlines() == [
        "— failed (error_max_turns): 0 turns, 1.5 s",
        "toolhost: Reached maximum number of turns (2): the model was still calling tools when "
        "the turn limit stopped it. Raise --max-turns (or run.max_turns; toolhost's default "
        "is 100 a turn) if the task needs more; a model that calls a denied tool again and "
        "again is stopped only by such a limit."]


def test_a_reply_of_thinking_alone_is_said_to_have_no_text() -> None:
    # the turn ended "done" with nothing above it: no way to tell the model said nothing
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for content in ([{"type": "thinking", "thinking": "hmm", "signature": "s"}],
                    [{"type": "text", "text": "Hello."}]):
        r.message({"type": "assistant", "message": {"id": f"m{len(content)}{content[0]['type']}",
                                                    "content": content}})
        r.message({"type": "result", "subtype": "success", "duration_ms": 100})
    assert out.getvalue().splitlines() == [
        "(the model ended the turn with no text: its last reply had none, only thinking or "
        "nothing)",
        "— done: 1 turn, 0.1 s",
        "Hello.",
        "— done: 1 turn, 0.1 s"]


def test_not_logged_in_says_what_to_do() -> None:
    out = io.StringIO()
    r = TextRenderer(out, io.StringIO(), color=False)
    for msg in _messages("not-logged-in.wire.jsonl"):
        r.message(msg)
    text = out.getvalue()
    assert "— failed (authentication_failed)" in text and "(success)" not in text
    assert "ANTHROPIC_API_KEY" in text and "claude /login" in text and "--script" in text


def test_api_retries_are_shown_as_progress() -> None:
    err = io.StringIO()
    r = TextRenderer(io.StringIO(), err, color=False)
    r.message({"type": "system", "subtype": "api_retry", "attempt": 3, "max_retries": 10,
               "retry_delay_ms": 2031, "error_status": None, "error": "unknown"})
    assert "the API did not answer (no answer; attempt 3 of 10, next in 2.0 s)" in err.getvalue()


def test_json_renderer_writes_each_message_as_one_line() -> None:
    out = io.StringIO()
    r = JsonRenderer(out)
    msgs = _messages("allow.wire.jsonl")
    for msg in msgs:
        r.message(msg)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == msgs


def test_shorten_keeps_one_line_and_says_how_much_was_cut() -> None:
    assert shorten("a\n b") == "a b"
    assert shorten("x" * 300, 50) == "x" * 49 + "… (+251 chars)"


def test_gives_up_only_on_the_third_unanswered_attempt() -> None:
    from toolhost.runner.diagnose import gives_up

    def retry(attempt: object, status: object = None) -> dict[str, object]:
        return {"type": "system", "subtype": "api_retry", "attempt": attempt,
                "max_retries": 10, "error_status": status}

    assert gives_up(retry(2), {}) is None
    assert "could not reach the API" in (gives_up(retry(3), {}) or "")
    assert gives_up(retry(5, 529), {}) is None  # an HTTP answer: the CLI's retries
    assert gives_up(retry(3), {"CLAUDE_CODE_MAX_RETRIES": "20"}) is None
    for odd in ("3", True, None, 3.0):
        assert gives_up(retry(odd), {}) is None
    assert gives_up({"type": "result"}, {}) is None
    assert gives_up(["api_retry"], {}) is None


def test_a_refused_key_is_named_and_given_up_on_like_no_answer() -> None:
    """red team runner6: with a wrong API key (HTTP 401, which the CLI retries ten times over
    about three minutes) the progress line said "the API did not answer ... check the
    network" and the run waited out every retry."""
    from toolhost.runner.diagnose import gives_up

    def retry(attempt: int, status: object) -> dict[str, object]:
        return {"type": "system", "subtype": "api_retry", "attempt": attempt,
                "max_retries": 10, "retry_delay_ms": 600, "error_status": status}

    shown = {}
    for status in (401, 429, 529, 500, None):
        err = io.StringIO()
        TextRenderer(io.StringIO(), err, color=False).message(retry(1, status))
        shown[status] = err.getvalue()
    assert "refused the credentials (HTTP 401; attempt 1 of 10" in shown[401]
    assert "ANTHROPIC_API_KEY" in shown[401] and "network" not in shown[401]
    assert "rate limiting requests (HTTP 429" in shown[429]
    assert "is overloaded (HTTP 529" in shown[529]
    assert "answered with an error (HTTP 500" in shown[500]
    assert all("did not answer" not in shown[s] for s in (401, 429, 529, 500))
    assert "did not answer (no answer" in shown[None]
    assert gives_up(retry(2, 401), {}) is None
    line = gives_up(retry(3, 401), {}) or ""
    assert "refused the Claude CLI's credentials" in line and "ANTHROPIC_API_KEY" in line
    assert gives_up(retry(3, 401), {"CLAUDE_CODE_MAX_RETRIES": "20"}) is None
    assert gives_up(retry(3, 403), {}) is None and gives_up(retry(9, 500), {}) is None


def test_lines_wait_while_a_question_is_open_and_progress_is_dropped() -> None:
    import io

    from toolhost.runner.render import TextRenderer

    out, err = io.StringIO(), io.StringIO()
    renderer = TextRenderer(out, err, color=False)
    asking = True
    renderer.hold_while = lambda: asking
    renderer._print("→ #2 second call")
    renderer.status("working")
    assert out.getvalue() == err.getvalue() == ""
    asking = False
    renderer._print("  #1 ✓ allowed")
    assert out.getvalue() == "→ #2 second call\n  #1 ✓ allowed\n"
    asking = True
    renderer._print("late")
    renderer.close()  # nothing held is lost at the end
    assert out.getvalue().endswith("late\n")


@pytest.mark.parametrize(("version", "warned"), [
    ("2.0.0", True), ("2.1.199", True), ("2.1.200", False), ("2.1.330", False),
    ("3.0.0", False), ("2.1.200 (Claude Code)", False), ("garbage", False), (None, False),
    ("9" * 50 + ".0.0", False)])
def test_an_older_cli_than_tested_is_warned_about(version: object, warned: bool) -> None:
    from toolhost.runner.diagnose import version_note

    note = version_note({"type": "system", "subtype": "init", "claude_code_version": version})
    assert (note is not None) is warned
    if note:
        assert "2.1.200" in note and "npm install -g @anthropic-ai/claude-code" in note


@pytest.mark.parametrize(("mode", "noted"), [
    ("dontAsk", True), ("default", False), ("plan", False), (None, False), (["dontAsk"], False)])
def test_dont_ask_mode_is_noted(mode: object, noted: bool) -> None:
    # red team runner5 R7: under `-- --permission-mode dontAsk` every call of a toolhost
    # tool was denied by the CLI without asking, and nothing said why the allow rules
    # did not apply
    from toolhost.runner.diagnose import mode_note

    note = mode_note({"type": "system", "subtype": "init", "permissionMode": mode})
    assert (note is not None) is noted
    if note:
        assert "dontAsk" in note and "allow rules" in note


def _harmful(char: str) -> bool:
    return char not in "\n\t" and (unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")
                                   and char != "\u200d")


_hostile = st.text(alphabet=st.characters(codec=None), max_size=40)


@settings(max_examples=150, deadline=None)
@given(text=_hostile, name=_hostile, key=_hostile, value=_hostile, color=st.booleans())
def test_nothing_the_session_sends_acts_on_the_terminal(
        text: str, name: str, key: str, value: str, color: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    r = TextRenderer(out, err, color=color)
    r.status(text)
    r.message({"type": "system", "subtype": "init", "model": text,
               "mcp_servers": [{"name": name, "status": value}]})
    r.message({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "text", "text": text},
        {"type": "tool_use", "id": "t", "name": name, "input": {key: value, "k": [text]}}]}})
    r.decision(name, Decision("deny", text, rule=value), tool_use_id="t")
    r.decision(name, Decision("allow", rule=key), tool_use_id="t")
    r.message({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t", "is_error": bool(text),
         "content": [{"type": "text", "text": value}]}]}})
    r.message({"type": "tool_progress", "heartbeat": True, "tool_name": name,
               "elapsed_time_seconds": text})
    r.message({"type": "result", "subtype": "error_during_execution", "is_error": True,
               "result": text, "terminal_reason": value})
    r.close()
    shown = re.sub(r"\x1b\[[0-9;]*[mK]|\r(?=\x1b\[K)", "", out.getvalue() + err.getvalue())
    assert not [c for c in shown if _harmful(c)]
    assert not re.search(r"[\u202a-\u202e\u2066-\u2069]", shown)
    if name:  # a name is shown exactly (escaped, never altered)
        assert visible(name, name=True) in shown


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("env", "out_tty", "err_tty", "out_color", "err_escapes"), [
    ({"TERM": "xterm"}, True, True, True, True),
    # stdout a terminal, stderr a file (`2> log`): the log got `\r\x1b[K` and colors
    ({"TERM": "xterm"}, True, False, True, False),
    ({"TERM": "xterm"}, False, True, False, True),  # `> out.txt`: progress still live
    ({"TERM": "xterm", "NO_COLOR": "1"}, True, True, False, True),  # no color, live line
    ({"TERM": "dumb"}, True, True, False, False),
    ({}, True, True, False, False),  # TERM unset: as dumb (colors and `\r\x1b[K` went out)
    ({"TERM": " "}, True, True, False, False),
    ({"FORCE_COLOR": "1"}, False, False, True, True),
    ({"TERM": "xterm", "FORCE_COLOR": "0"}, True, True, True, True),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False, False, True),
])
def test_colors_follow_each_stream_no_color_force_color_and_dumb_terminals(
        env: dict[str, str], out_tty: bool, err_tty: bool, out_color: bool,
        err_escapes: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = _Tty() if out_tty else io.StringIO()
    err = _Tty() if err_tty else io.StringIO()
    shown = TextRenderer(out, err)
    shown.status("starting")
    shown.message({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "t1", "name": "mcp__s__echo", "input": {}}]}})
    assert ("\x1b[" in out.getvalue()) is out_color, out.getvalue()
    assert ("\x1b[" in err.getvalue()) is err_escapes, err.getvalue()
    assert "… starting" in err.getvalue()


@pytest.mark.parametrize("columns", [10, 40])
def test_a_progress_line_fits_one_row_of_a_narrow_terminal(
        columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``\r ESC[K`` erases only the cursor's row: a progress line that wrapped left its
    # first rows on screen for good (a 10-column terminal kept every one of them)
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios

    from toolhost.runner.fit import fit

    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    err = open(slave, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    try:
        shown = TextRenderer(io.StringIO(), err)
        texts = ["loading /home/someone/projects/team/toolhost.yaml",
                 "starting the Claude CLI (漢字の道具/claude)", "ok"]
        for text in texts:
            shown.status(text)
        shown.close()
        err.flush()
        written = ""
        while not re.sub(r"\x1b\[[0-9;]*[mK]|\r", "", written).endswith("… ok") \
                and select.select([master], [], [], 10)[0]:
            written += os.read(master, 65536).decode()  # a pty gives what it has: a part
    finally:
        err.close()
        os.close(master)
        os.close(slave)
    rows = [re.sub(r"\x1b\[[0-9;]*m", "", row)
            for row in written.replace("\r\n", "\r\x1b[K").split("\r\x1b[K") if row]
    assert rows == [fit(f"… {text}", columns) for text in texts], rows
    for row in rows:
        assert sum(2 if "\u3000" <= c <= "\u9fff" else 1 for c in row) < columns, row
    assert rows[-1] == "… ok"


def test_output_json_is_the_same_json_with_nothing_a_terminal_acts_on() -> None:
    # ``--output json`` on a terminal wrote a model's 8-bit CSI (U+009B), NEL, bidi override
    # and line separator as they were; now as JSON's \uXXXX escapes (the same messages)
    import io
    import json

    from toolhost.runner.render import JsonRenderer

    message = {"type": "assistant", "message": {"content": [{"type": "text", "text":
               "\u009b2J\u0085\u202eevil\u2028\x7f\x1b]52;c;eA==\x07 \u65e5\u672c"}]}}
    out = io.StringIO()
    JsonRenderer(out).message(message)
    line = out.getvalue()
    assert line.endswith("\n") and line[:-1].isprintable(), line
    assert "\u65e5\u672c" in line and json.loads(line) == message
