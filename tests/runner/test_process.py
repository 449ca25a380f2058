"""The CLI process: stderr shown when it fails, never left running, results per turn.

A small Python script stands in for the CLI here; the real CLI is driven in tests/e2e.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import anyio
import pytest

from toolhost.errors import RunnerError
from toolhost.permissions.decision import Decision
from toolhost.runner import process
from toolhost.runner.command import CliCommand
from toolhost.runner.process import open_cli

FAKE_CLI = r'''
import json, os, signal, sys, time
mode = sys.argv[1]
if mode == "fail":
    print("error: unknown option '--bogus'", file=sys.stderr)
    sys.exit(1)
if mode == "leak":
    print("error: bad token " + os.environ["LEAKED"], file=sys.stderr, flush=True)
    os.close(0)  # gone before toolhost can write to it
    sys.exit(2)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "control_request":
        print(json.dumps({"type": "control_response", "response": {
            "subtype": "success", "request_id": msg["request_id"], "response": {}}}), flush=True)
    elif msg.get("type") == "user":
        print(json.dumps({"type": "system", "subtype": "novel_thing", "x": 1}), flush=True)
        if mode == "killed":  # mid-turn, as the OOM killer would
            print("about to die", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "exits":
            sys.exit(3)
        if mode == "asks_dies":  # a permission request open, then gone
            print(json.dumps({"type": "control_request", "request_id": "q", "request": {
                "subtype": "can_use_tool", "tool_name": "mcp__s__t", "input": {}}}), flush=True)
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "closes":  # its output closed mid-turn, the process alive
            os.close(1)
            time.sleep(60)
        if mode == "again" and msg["message"]["content"] == "two":
            # the first turn's result again, once the next turn was sent
            print(json.dumps(last), flush=True)
        last = {"type": "result", "subtype": "success", "is_error": False,
                "result": msg["message"]["content"], "uuid": "u-" + msg["message"]["content"]}
        print(json.dumps(last), flush=True)
        if mode == "twice":  # the turn's result again: no answer to the next turn
            print(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                              "result": "again " + msg["message"]["content"]}), flush=True)
            print(json.dumps({"type": "system", "subtype": "after_again"}), flush=True)
if mode == "stubborn":
    open(os.environ["PID_FILE"], "w").write(str(os.getpid()))
    while True:
        time.sleep(1)
'''


async def _deny(name: str, tool_input: dict[str, object], request: dict[str, object]
                ) -> Decision:
    return Decision("deny", "no")


def _command(tmp_path: Path, mode: str) -> CliCommand:
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    env = {**os.environ, "PID_FILE": str(tmp_path / "pid")}
    return CliCommand((sys.executable, str(script), mode), env)


def test_a_failing_cli_is_reported_with_its_stderr(tmp_path: Path) -> None:
    async def main() -> None:
        async with open_cli(_command(tmp_path, "fail"), {}, permission=_deny,
                            on_message=lambda m: None):
            pass

    with pytest.raises(RunnerError) as info:
        anyio.run(main)
    text = str(info.value)
    assert "the Claude CLI failed to start" in text and "(exit code 1)" in text
    assert "error: unknown option '--bogus'" in text


def test_the_cli_stderr_in_an_error_is_redacted(tmp_path: Path) -> None:
    command = _command(tmp_path, "leak")
    command = CliCommand(command.argv, {**command.env, "LEAKED": "tok-123456"})

    async def main() -> None:
        async with open_cli(command, {}, permission=_deny, on_message=lambda m: None,
                            redact=lambda s: s.replace("tok-123456", "***")):
            pass

    with pytest.raises(RunnerError) as info:
        anyio.run(main)
    text = str(info.value)
    assert "(exit code 2)" in text and "error: bad token ***" in text
    assert "tok-123456" not in text


def test_a_cli_killed_mid_turn_is_said_killed_by_its_signal(tmp_path: Path) -> None:
    # the message said "(exit code -9)": Python's way of writing it, not a person's
    async def main() -> None:
        async with open_cli(_command(tmp_path, "killed"), {}, permission=_deny,
                            on_message=lambda m: None) as cli:
            await cli.send_prompt("hi")

    with pytest.raises(RunnerError) as info:
        anyio.run(main)
    text = str(info.value)
    # not "exited ... (killed by SIGKILL)": a signal ended it, it did not exit
    assert "the Claude CLI was killed by SIGKILL before the turn ended (out of memory, " \
        "or killed from outside)" in text, text
    assert "exited" not in text
    assert "about to die" in text
    assert process._ended_how(-11) == " (killed by SIGSEGV: it crashed)"
    assert process._ended_how(-99) == " (killed by signal 99)"
    assert process._ended_how(3) == " (exit code 3)"


@pytest.mark.parametrize(("mode", "said"), [
    ("exits", "the Claude CLI exited before the turn ended (exit code 3)"),
    ("closes", "the Claude CLI closed its output before the turn ended")])
def test_a_cli_gone_mid_turn_is_said_as_it_went(tmp_path: Path, mode: str, said: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "EXIT_GRACE", 0.5)  # "closes" lives on: stopped sooner
    async def main() -> None:
        async with open_cli(_command(tmp_path, mode), {}, permission=_deny,
                            on_message=lambda m: None) as cli:
            await cli.send_prompt("hi")

    with pytest.raises(RunnerError) as info:
        anyio.run(main)
    text = str(info.value)
    assert text.splitlines()[0] == said, text


@pytest.mark.parametrize("mode", ["ok", "twice", "again"])
def test_turns_return_their_result_and_every_message_is_seen(tmp_path: Path,
                                                            mode: str) -> None:
    # "twice": a CLI that sent a turn's result twice: the second was kept and ended the
    # next turn at once with the old answer (and every turn after it took the one before's)
    # "again": the same, the result sent again (its uuid) once the next turn was sent
    seen: list[str] = []

    async def main() -> list[object]:
        with anyio.fail_after(30):
            return await turns()

    async def turns() -> list[object]:
        async with open_cli(_command(tmp_path, mode), {}, permission=_deny,
                            on_message=lambda m: seen.append(m["type"])) as cli:
            first = await cli.send_prompt("one")
            while mode == "twice" and "system" not in seen[2:]:  # the extra one has come
                await anyio.sleep(0.01)
            second = await cli.send_prompt("two")
            return [first["result"], second["result"]]

    assert anyio.run(main) == ["one", "two"]
    assert seen == (["system", "result", "system", "result"] if mode != "twice" else
                    ["system", "result", "system", "system", "result", "system"])


def test_a_cli_that_will_not_exit_is_killed(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "EXIT_GRACE", 0.5)
    monkeypatch.setattr(process, "TERMINATE_GRACE", 0.5)

    async def main() -> int | None:
        async with open_cli(_command(tmp_path, "stubborn"), {}, permission=_deny,
                            on_message=lambda m: None) as cli:
            await cli.send_prompt("hi")
            proc = cli.process
        return proc.returncode

    code = anyio.run(main)
    assert code is not None and code < 0  # killed by a signal
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_request_the_clis_end_cancels_is_known_as_such(tmp_path: Path) -> None:
    # a question open when the CLI died was said "withdrawn: the Claude CLI cancelled it"
    seen: list[bool] = []
    holder: list[process.CliSession] = []

    async def ask(name: str, tool_input: dict[str, object], request: dict[str, object]
                  ) -> Decision:
        seen.append(holder[0].output_ended)  # not ended while the request is open
        try:
            await anyio.sleep_forever()
        finally:
            seen.append(holder[0].output_ended)  # its cancel: the CLI is gone
        raise AssertionError("unreachable")

    async def main() -> None:
        with anyio.fail_after(30):
            async with open_cli(_command(tmp_path, "asks_dies"), {}, permission=ask,
                                on_message=lambda m: None, started=holder.append) as cli:
                await cli.send_prompt("hi")

    with pytest.raises(RunnerError, match="was killed by SIGKILL before the turn ended"):
        anyio.run(main)
    assert seen == [False, True]


def test_a_renderer_that_fails_is_said_once_per_kind_and_the_turns_go_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A bug in showing a message was logged at debug level only: silent. Now one warning
    per (message type, error), and every turn still gets its result."""
    def show(message: dict[str, object]) -> None:
        raise KeyError(f"no renderer for {message['type']}")

    async def main() -> list[object]:
        with anyio.fail_after(30):
            async with open_cli(_command(tmp_path, "ok"), {}, permission=_deny,
                                on_message=show) as cli:
                first = await cli.send_prompt("one")
                second = await cli.send_prompt("two")
                return [first["result"], second["result"]]

    with caplog.at_level(logging.WARNING):
        assert anyio.run(main) == ["one", "two"]
    said = [r.getMessage() for r in caplog.records if "could not show" in r.getMessage()]
    assert said == ["could not show a 'system' message of the Claude CLI (KeyError: 'no "
                    "renderer for system'); the turn goes on (this kind is said once)",
                    "could not show a 'result' message of the Claude CLI (KeyError: 'no "
                    "renderer for result'); the turn goes on (this kind is said once)"]
