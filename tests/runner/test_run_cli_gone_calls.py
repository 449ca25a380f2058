"""A Claude CLI that ends while its tool calls run: each call cut short has its audit line
saying so and how the CLI went, as at a signal (its allow line alone said it ran)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.runner.cli_harness import TOOLHOST, cli_text, fake_cli

# Calls the slow tool twice and asks about echo in a turn; exits (code 3) once both calls'
# tools run (each touches a file first)
DIES_IN_CALLS = cli_text(r'''
    elif m.get("type") == "user":
        for k in ("1", "2"):
            send({{"type": "control_request", "request_id": "c" + k, "request": {{
                  "subtype": "mcp_message", "server_name": "s", "message": {{
                  "jsonrpc": "2.0", "id": k, "method": "tools/call", "params": {{
                  "name": "slow", "arguments": {{"text": k}},
                  "_meta": {{"claudecode/toolUseId": "t" + k}}}}}}}}}})
        while not all(os.path.exists(os.environ["RUNNING"] + k) for k in "12"):
            time.sleep(0.01)
        sys.exit(3)
''')


def test_calls_the_cli_s_end_cut_short_have_their_audit_line(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    running = tmp_path / "running"
    (tmp_path / "c.yaml").write_text(f"""\
toolhost: 1
servers:
  s:
    tools:
      slow:
        command: [sh, -c, 'touch "$0$1"; exec sleep 60', {json.dumps(str(running))},
                  "{{{{ text }}}}"]
        params: {{text: {{type: string}}}}
permissions:
  default: allow
  audit_log: {json.dumps(str(audit))}
""")
    cli = fake_cli(tmp_path, DIES_IN_CALLS)
    done = subprocess.run([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "RUNNING": str(running)})
    assert done.returncode == 1 and "exited before the turn ended (exit code 3)" in \
        done.stderr, done.stderr
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    for use in ("t1", "t2"):
        lines = [r for r in records if r["tool_use_id"] == use]
        assert [r.get("decision") or r.get("event") for r in lines] == ["allow", "stopped"]
        assert lines[1]["message"] == ("The call was cancelled before it ended: the Claude "
                                       "CLI exited (exit code 3). It may have done part of "
                                       "its work."), lines
