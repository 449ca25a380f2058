"""An upstream's structuredContent is checked by toolhost against the outputSchema it listed
(RE2 patterns, linear time), not by the mcp client's jsonschema with Python's ``re``: a
pattern that backtracks for ever, listed and answered by the same hostile upstream, used to
hold the GIL, so the whole host, for good."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile.validators import LazyValidator
from toolhost.gateway.output_check import output_problem

from .conftest import HOSTILE

SCHEMA = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
          "required": ["s"]}
TEXT = [{"type": "text", "text": "x"}]


@pytest.mark.parametrize(("answer", "said"), [
    ({"content": TEXT, "structuredContent": {"s": "aaaa"}}, ""),
    ({"content": TEXT, "isError": True}, ""),  # an error result is not checked
    ({"content": TEXT}, "it has an outputSchema but answered no structuredContent"),
    ({"content": TEXT, "structuredContent": {"s": 5}},
     "its structuredContent does not match its outputSchema: s: 5 is not of type 'string'"),
    ({"content": TEXT, "structuredContent": {"s": "a" * 5000 + "!"}},
     "its structuredContent does not match its outputSchema: s: 'aaaaaaaa"),
    ({"content": TEXT, "structuredContent": {}},
     "its structuredContent does not match its outputSchema: (root): 's' is a required"),
])
def test_a_result_is_checked_against_the_listed_output_schema(answer: dict[str, Any],
                                                              said: str) -> None:
    found = output_problem(answer, LazyValidator(SCHEMA))
    assert found.startswith(said) if said else found == ""
    assert "\n" not in found and len(found) < 400


def test_a_backtracking_pattern_of_the_upstream_cannot_hang_the_host(tmp_path: Path) -> None:
    tools = [{"name": "typed", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}]
    raw = json.dumps({"jsonrpc": "2.0", "id": 0, "result": {
        "content": TEXT, "structuredContent": {"s": "a" * 40 + "!"}}}).replace(
        '"id": 0', '"id": @ID@')
    config = tmp_path / "typed.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  h:
    mcp:
      command: [{sys.executable}, {HOSTILE}]
      env: {{HOSTILE_TOOLS: '{json.dumps(tools)}', HOSTILE_RAW: '{raw}'}}
      timeout: 5s
permissions: {{default: allow}}
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "h.typed"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 1, done.stderr
    line = ("upstream server 'h' answered the call of 'typed' with a result that does not "
            "fit: its structuredContent does not match its outputSchema: s: 'aaaa")
    assert done.stdout.startswith(line), done.stdout
    assert "Traceback" not in done.stderr
