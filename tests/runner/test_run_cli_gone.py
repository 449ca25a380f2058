"""A Claude CLI that ends between turns ends the session at once, said how it went (the
next turn typed was lost, said only once it was sent)."""

from __future__ import annotations

import io
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from tests.runner.cli_harness import ECHO_CONFIG
from toolhost.errors import RunnerError
from toolhost.host import load_host
from toolhost.runner import TextRenderer, run_host

# Answers the first turn, then dies (the OOM killer) while nobody has typed the next one
DIES_AFTER_A_TURN = r'''#!{python}
import json, os, signal, sys, threading
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "control_request":
        print(json.dumps({{"type": "control_response", "response": {{
            "subtype": "success", "request_id": msg["request_id"], "response": {{}}}}}}),
            flush=True)
    elif msg.get("type") == "user":
        print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                          "result": "ok", "uuid": "u1"}}), flush=True)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGKILL)).start()
'''

CONFIG = ECHO_CONFIG


def test_a_cli_killed_between_turns_ends_the_session_at_once(tmp_path: Path) -> None:
    # the `> ` prompt stayed, and the turn typed next was lost ("before the turn was sent")
    cli = tmp_path / "cli.py"
    cli.write_text(DIES_AFTER_A_TURN.format(python=sys.executable))
    cli.chmod(0o755)
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    typed = anyio.Event()

    async def person() -> AsyncIterator[str]:
        yield "first"
        await anyio.sleep_forever()  # at the `> ` prompt, thinking
        typed.set()
        yield "never sent"

    async def main() -> None:
        host = load_host(config, layers=False)
        try:
            with anyio.fail_after(30):
                await run_host(host, person(), cli=str(cli), renderer=TextRenderer(
                    io.StringIO(), io.StringIO(), color=False))
        finally:
            await host.aclose()

    with pytest.raises(RunnerError) as info:
        anyio.run(main)
    assert str(info.value).splitlines()[0] == (
        "the Claude CLI was killed by SIGKILL while the next turn was awaited (out of memory, "
        "or killed from outside)"), info.value
    assert not typed.is_set()
