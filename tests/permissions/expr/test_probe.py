"""Round 13: an ``expr`` that fails on every value its tool's arguments can take denies every
call reaching its rule (fail closed), whatever the rule's effect; ``validate`` names it at
its ``expr`` line, all in one run. Expressions that evaluate on some values are not named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.permissions.authoring.mistakes import review_rules

FAILING = [
    ("Bash", "args.command + 1 > 2", "TypeError"),
    ("Bash", "args.timeout ~ 1 > 2 and args.command > 3", "TypeError"),
    ("Read", "args.file_path > 3", "TypeError"),
    ("Read", "args.limit.endswith('x')", "expr"),
    ("WebFetch", "args.url - 1 == 0", "TypeError"),
    ("Grep", "args.pattern * args.path", "TypeError"),
    ("mcp__srv__t", "args.count // 0 > 1", "ZeroDivisionError"),
    ("mcp__srv__t", "args.path > args.count", "TypeError"),
    ("mcp__srv__t", "args.mode + 1", "TypeError"),
    ("mcp__srv__t", "args.tags + 'x'", "TypeError"),
]
EVALUATES = [
    ("Bash", "'rm' in args.command"),
    ("Read", "args.file_path.endswith('.env')"),
    ("Read", "args.limit > 10"),
    ("mcp__srv__t", "'..' in (args.path | default(''))"),
    ("mcp__srv__t", "args.path | int > 3"),
    ("mcp__srv__t", "args.path.split('/')[1] == 'etc'"),
    ("mcp__srv__t", "args.tags | length > 3"),
    ("mcp__srv__t", "args.count + args.ratio > 3"),
    ("mcp__srv__t", "100 // args.count > 1"),  # fails only when count is 0
    ("mcp__srv__t", "args.mode == 'fast' and not args.on"),
    ("mcp__srv__t", "tool == 'mcp__srv__t'"),
    ("mcp__srv__u", "args.anything + 1 > 2"),  # an open argument: no sample is proof
]
HEAD = """toolhost: 1
servers:
  srv:
    tools:
      t:
        command: [echo, "{{ path }}"]
        params:
          path: {type: string}
          count: {type: integer}
          tags: {type: array, items: {type: string}}
          mode: {type: string, enum: [fast, slow]}
          ratio: {type: number}
          on: {type: boolean}
      u:
        command: [echo, hi]
        input_schema: {type: object, properties: {anything: {}}}
permissions:
"""


@pytest.mark.parametrize("effect", ["allow", "deny", "ask"])
def test_each_failing_expr_is_named_at_its_line(tmp_path: Path, effect: str) -> None:
    rules = [(t, e) for t, e, _ in FAILING] + EVALUATES
    body = "".join(f"    - tool: {t}\n      expr: {json.dumps(e)}\n" for t, e in rules)
    path = tmp_path / "toolhost.yaml"
    path.write_text(f"{HEAD}  {effect}:\n{body}")
    config = load_config(str(path), layers=False)
    found = [str(f.problem).rsplit("/", 1)[-1] for f in review_rules(config, compile_tools(config))
             if "expr fails on every value" in str(f.problem)]
    first = HEAD.count("\n") + 2
    for k, (_, _, words) in enumerate(FAILING):
        line = f"toolhost.yaml:{first + 1 + 2 * k}:"
        assert any(f.startswith(line) and words in f and f"this {effect} rule denies" in f
                   for f in found), (k, found)
    assert len(found) == len(FAILING), found
