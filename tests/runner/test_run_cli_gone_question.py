"""A Claude CLI that ends while one of its permission questions is open: the question's
audit line says the CLI ended, and how (not "the request was cancelled")."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.runner.cli_harness import ECHO_CONFIG, cli_text, fake_cli
from toolhost.errors import RunnerError
from toolhost.host import load_host
from toolhost.permissions import Decision
from toolhost.runner import TextRenderer, run_host

# Asks about a call, then ends (exit code 3, or the OOM killer) with the question open
DIES_AT_A_QUESTION = r'''
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})
        threading.Timer(0.2, die).start()
'''


class Thinking:
    """A person who never answers: the question stays open until the CLI ends."""

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        await anyio.sleep_forever()
        raise AssertionError


@pytest.mark.parametrize(("die", "said"), [
    ("os._exit(3)", "the Claude CLI exited (exit code 3)"),
    ("os.kill(os.getpid(), signal.SIGKILL)",
     "the Claude CLI was killed by SIGKILL (out of memory, or killed from outside)"),
])
def test_a_question_open_when_the_cli_ends_is_audited_as_the_cli_ending(
        tmp_path: Path, die: str, said: str) -> None:
    cli = fake_cli(tmp_path, cli_text(DIES_AT_A_QUESTION, prelude=f"def die():\n    {die}\n"))
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(ECHO_CONFIG + f"permissions:\n  default: ask\n  audit_log: {audit}\n")

    async def main() -> None:
        host = load_host(config, layers=False)
        try:
            with anyio.fail_after(30):
                await run_host(host, ["go"], cli=str(cli), asker=Thinking(),
                               renderer=TextRenderer(io.StringIO(), io.StringIO(),
                                                     color=False))
        finally:
            await host.aclose()

    with pytest.raises(RunnerError):
        anyio.run(main)
    [record] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert record["decision"] == "deny", record
    assert record["message"] == f"Nobody answered the question about mcp__s__echo: {said}.", \
        record
