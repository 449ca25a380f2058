"""The CLI may send requests before it answers ``initialize``: a ``tools/call`` and a
``resources/read`` then meet the same locks as during a turn (the rules decide, the audit
log says so). Nothing runs as it is because the session has not finished starting."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.runner.cli_harness import TOOLHOST, fake_cli

# Before answering ``initialize``: a call of a denied tool, a read of a denied resource and a
# call of an allowed one, each logged with its answer; every turn then ends at once
EARLY = r'''#!{python}
import json, os, sys
log = open(os.environ["FAKE_LOG"], "a")
def send(o):
    print(json.dumps(o), flush=True)
def call(rid, method, params):
    send({{"type": "control_request", "request_id": rid, "request": {{
          "subtype": "mcp_message", "server_name": "s", "message": {{
          "jsonrpc": "2.0", "id": rid, "method": method, "params": params}}}}}})
early = 0
for line in sys.stdin:
    log.write(line)
    log.flush()
    m = json.loads(line)
    if m.get("type") == "control_request" and m["request"]["subtype"] == "initialize":
        init = m["request_id"]
        call("touch", "tools/call", {{"name": "touch", "arguments": {{}},
             "_meta": {{"claudecode/toolUseId": "t1"}}}})
        call("read", "resources/read", {{"uri": "toolhost://s/secret"}})
        call("echo", "tools/call", {{"name": "echo", "arguments": {{"text": "hi"}}}})
    elif m.get("type") == "control_response":
        early += 1
        if early == 3:  # every early request answered: now initialize
            send({{"type": "control_response", "response": {{"subtype": "success",
                  "request_id": init, "response": {{}}}}}})
    elif m.get("type") == "control_request":
        send({{"type": "control_response", "response": {{"subtype": "success",
              "request_id": m["request_id"], "response": {{}}}}}})
    elif m.get("type") == "user":
        send({{"type": "result", "subtype": "success", "is_error": False, "result": "ok",
              "uuid": "u"}})
'''


def test_requests_before_initialize_is_answered_meet_the_rules(tmp_path: Path) -> None:
    # They ran unguarded: the second lock and the read guard were put on the servers only
    # once ``initialize`` was answered. The denied tool ran (its file made), with no audit
    # line; the denied resource was read.
    made = tmp_path / "made"
    (tmp_path / "secret.txt").write_text("the secret")
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  s:
    tools:
      touch:
        command: [touch, {json.dumps(str(made))}]
      echo:
        command: [printf, "%s", "{{{{ text }}}}"]
        params: {{text: {{type: string}}}}
    resources:
      secret:
        file: secret.txt
permissions:
  default: deny
  allow: [mcp__s__echo]
  audit_log: {json.dumps(str(audit))}
""")
    cli = fake_cli(tmp_path, EARLY)
    log = tmp_path / "cli.log"
    done = subprocess.run([TOOLHOST, "run", str(config), "--cli", str(cli), "-p", "hi"],
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log)})
    assert done.returncode == 0, done.stderr
    assert not made.exists()
    answers = {m["response"]["request_id"]: m["response"]["response"]["mcp_response"]
               for m in map(json.loads, log.read_text().splitlines())
               if m["type"] == "control_response"}
    assert answers["touch"]["result"]["isError"] is True, answers
    assert "mcp__s__touch" in answers["touch"]["result"]["content"][0]["text"]
    assert "error" in answers["read"] and "the secret" not in json.dumps(answers["read"])
    assert answers["echo"]["result"] == {"content": [{"type": "text", "text": "hi"}],
                                         "isError": False}
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    decided = sorted((r["tool"], r["decision"]) for r in records)
    assert ("mcp__s__touch", "deny") in decided and ("mcp__s__echo", "allow") in decided
