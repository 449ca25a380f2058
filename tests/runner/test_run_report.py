"""``RunReport``: a long session's report stays bounded, and its verdict counts every turn."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import anyio

from tests.runner.cli_harness import ECHO_CONFIG
from toolhost.host import load_host
from toolhost.runner import TextRenderer, run_host
from toolhost.runner.run import KEPT_RESULTS, RunReport

# A CLI that answers every turn at once with a result of ~10 KB (as the real CLI's, with its
# usage tables, can be): what a long interactive session piles up
MANY_TURNS_CLI = r'''#!{python}
import json, sys
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "control_request":
        print(json.dumps({{"type": "control_response", "response": {{
            "subtype": "success", "request_id": msg["request_id"], "response": {{}}}}}}),
            flush=True)
    elif msg.get("type") == "user":
        n += 1
        print(json.dumps({{"type": "result", "subtype": "success", "is_error": n == 3,
                          "result": msg["message"]["content"], "uuid": f"u{{n}}",
                          "pad": "x" * 10000}}), flush=True)
'''

CONFIG = ECHO_CONFIG


def _result(ok: bool = True, subtype: str = "success") -> dict[str, Any]:
    return {"type": "result", "subtype": subtype, "is_error": not ok}


def test_a_long_session_keeps_the_last_results_and_counts_them_all(tmp_path: Path) -> None:
    # RunReport.results kept every turn's result (~10 KB each): memory grew with each turn
    cli = tmp_path / "cli.py"
    cli.write_text(MANY_TURNS_CLI.format(python=sys.executable))
    cli.chmod(0o755)
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    turns = [f"turn {i}" for i in range(1, 301)]

    async def main() -> RunReport:
        host = load_host(config, layers=False)
        try:
            with anyio.fail_after(120):
                return await run_host(host, turns, cli=str(cli), renderer=TextRenderer(
                    io.StringIO(), io.StringIO(), color=False))
        finally:
            await host.aclose()

    report = anyio.run(main)
    assert len(report.results) == KEPT_RESULTS < 300
    assert [r["result"] for r in report.results] == turns[-KEPT_RESULTS:]
    assert (report.turns, report.failed_turns) == (300, 1)  # turn 3 failed, long gone
    assert not report.ok


def test_the_verdict_counts_turns_no_longer_kept() -> None:
    report = RunReport()
    report.add(_result(ok=False), interrupted=True)  # interrupted: not a failure (-p aside)
    report.add(_result(subtype="error_during_execution"))
    for _ in range(3 * KEPT_RESULTS):
        report.add(_result())
    report.add(_result(ok=False), interrupted=True)
    assert len(report.results) == KEPT_RESULTS and report.turns == 3 * KEPT_RESULTS + 3
    assert (report.failed_turns, report.failed_interrupted, report.error_subtypes) == (3, 2, 1)
    assert report.interrupted_turns == {KEPT_RESULTS - 1}  # indexes in ``results``
    assert not report.ok
    clean = RunReport()
    for _ in range(2 * KEPT_RESULTS):
        clean.add(_result())
    assert clean.ok and not RunReport().ok
