"""``prompts/get`` meets the permission rules under ``toolhost serve`` (a real process over
stdio): a prompt is decided as ``GetMcpPromptTool`` with input ``{server, name, arguments}``,
in both protocol eras, under ``--all`` (listed ``kb__<prompt>``) as under ``--server``; a
deny or an ask (nobody to ask) refuses it, a rule's message is redacted, and a completion of
a refused prompt's arguments is refused too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.modern import modern_meta

from .stdio_peer import INIT, StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      echo:
        command: [echo, "{{ text }}"]
        params: {text: {type: string}}
    prompts:
      review:
        arguments:
          diff: {required: true}
          tone: {complete: [kind, blunt]}
        template: "Review in {{ tone or 'kind' }}: {{ diff }}"
      payroll:
        arguments: {who: {complete: [ana, bo]}}
        template: "PAYROLL for {{ who }}"
      sealed_one: {template: "SEALED one"}
      sealed_two: {template: "SEALED two"}
      careful:
        arguments: {level: {complete: [low, high]}}
        template: "CAREFUL text"
      open: {template: "OPEN text"}
  other:
    tools:
      add: {python: "toolhost.demo:add"}
    prompts:
      payroll: {template: "OTHER payroll"}
permissions:
  default: %(default)s
  audit_log: audit.jsonl
  allow:
    - tool: GetMcpPromptTool
      when: {name: {one_of: [review, payroll, open, careful]}}
  ask:
    - tool: GetMcpPromptTool
      when: {name: careful}
      message: "ask about ${PROMPT_API_TOKEN}"
  deny:
    - tool: GetMcpPromptTool
      when: {server: kb, name: payroll}
      message: "payroll is for people; key ${PROMPT_API_TOKEN}"
    - tool: GetMcpPromptTool
      when: {name: {glob: "sealed_*"}}
    - tool: GetMcpPromptTool
      when: {arguments.diff: {glob: "*DROP*"}}
      message: no drops
"""
KEY = "pk-4f9a8b7c6d5e3a2b"
MODERN = modern_meta()


@pytest.fixture(scope="module", params=[("--all", "allow"), ("--server=kb", "allow"),
                                        ("--all", "deny"), ("--server=kb", "deny")],
                ids=lambda p: "-".join(p))
def peer(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    flag, default = request.param
    root = tmp_path_factory.mktemp("prompts")
    (root / "prompts.yaml").write_text(CONFIG % {"default": default})
    args = ["--all"] if flag == "--all" else ["--server", "kb"]
    with stdio_peer(root / "prompts.yaml", *args,
                    extra_env={"PROMPT_API_TOKEN": KEY}) as the_peer:
        the_peer.prefix = "kb__" if flag == "--all" else ""  # type: ignore[attr-defined]
        yield the_peer


def _get(peer: StdioPeer, name: str, arguments: dict[str, Any] | None = None,
         modern: bool = False) -> dict[str, Any]:
    params: dict[str, Any] = {"name": peer.prefix + name}  # type: ignore[attr-defined]
    if arguments is not None:
        params["arguments"] = arguments
    if modern:
        params["_meta"] = MODERN
    return peer.ask(f"get-{name}-{id(params)}", "prompts/get", params, timeout=30)


@pytest.mark.parametrize("modern", [False, True], ids=["2025", "2026"])
@pytest.mark.parametrize(("name", "arguments", "said"), [
    ("payroll", {"who": "ana"}, "payroll is for people"),
    ("payroll", None, "payroll is for people"),
    ("sealed_one", None, "Denied by permission rule"),
    ("sealed_two", {}, "Denied by permission rule"),
    ("review", {"diff": "x; DROP TABLE users"}, "no drops"),
    ("careful", None, "needs a person's approval"),
])
def test_a_deny_or_an_unanswerable_ask_refuses_the_prompt(
        peer: StdioPeer, name: str, arguments: dict[str, Any] | None, said: str,
        modern: bool) -> None:
    answer = _get(peer, name, arguments, modern)
    error = answer.get("error")
    assert error and error["code"] == -32600 and said in error["message"], answer
    assert "PAYROLL" not in str(answer) and "SEALED" not in str(answer)
    assert "CAREFUL" not in str(answer) and "messages" not in str(answer)
    assert KEY not in str(answer)  # a rule's message may quote a secret


@pytest.mark.parametrize("modern", [False, True], ids=["2025", "2026"])
def test_an_allowed_prompt_is_served(peer: StdioPeer, modern: bool) -> None:
    answer = _get(peer, "review", {"diff": "a small fix"}, modern)
    assert "Review in kind: a small fix" in str(answer.get("result")), answer
    assert "OPEN text" in str(_get(peer, "open", None, modern).get("result"))


def test_the_server_of_a_rule_is_the_prompt_s_own(peer: StdioPeer) -> None:
    if peer.prefix != "kb__":  # type: ignore[attr-defined]
        pytest.skip("other is served under --all only")
    answer = peer.ask("other-payroll", "prompts/get", {"name": "other__payroll"})
    assert "OTHER payroll" in str(answer.get("result")), answer


@pytest.mark.parametrize(("name", "argument", "refused"), [
    ("payroll", "who", True), ("sealed_one", "x", True), ("review", "tone", False)])
def test_completing_a_refused_prompt_is_refused(peer: StdioPeer, name: str, argument: str,
                                                refused: bool) -> None:
    answer = peer.ask(f"complete-{name}", "completion/complete", {
        "ref": {"type": "ref/prompt", "name": peer.prefix + name},  # type: ignore[attr-defined]
        "argument": {"name": argument, "value": ""}})
    if refused:
        assert answer.get("error", {}).get("code") == -32600, answer
        assert "ana" not in str(answer)
    else:
        assert answer["result"]["completion"]["values"] == ["kind", "blunt"], answer


def test_each_decision_has_an_audit_line_without_the_secret(peer: StdioPeer) -> None:
    _get(peer, "payroll", {"who": "bo"})
    lines = [json.loads(line) for line in
             (peer.stderr.parent / "audit.jsonl").read_text().splitlines()]
    mine = [line for line in lines if line.get("tool") == "GetMcpPromptTool"
            and line["arguments"].get("arguments") == {"who": "bo"}]
    assert mine and mine[-1]["decision"] == "deny", lines[-3:]
    assert mine[-1]["arguments"]["server"] == "kb"
    assert mine[-1]["arguments"]["name"] == "payroll"
    assert KEY not in json.dumps(lines)


@pytest.mark.parametrize(("action", "served"), [("accept", True), ("decline", False),
                                                ("cancel", False)])
def test_an_ask_is_put_to_the_person_at_a_client_that_can_elicit(
        tmp_path: Path, action: str, served: bool) -> None:
    (tmp_path / "p.yaml").write_text(CONFIG % {"default": "allow"})
    init = {**INIT, "params": {**INIT["params"], "capabilities": {"elicitation": {}}}}
    with stdio_peer(tmp_path / "p.yaml", "--server", "kb", initialize=init,
                    extra_env={"PROMPT_API_TOKEN": KEY}) as peer:
        # completing an argument asks nobody (an ask rule does not hide names): answered at
        # once, before any question (stdio is ordered: a question would come first)
        completed = peer.ask("complete", "completion/complete", {
            "ref": {"type": "ref/prompt", "name": "careful"},
            "argument": {"name": "level", "value": ""}}, timeout=5)
        assert completed["result"]["completion"]["values"] == ["low", "high"], completed
        peer.request("ask", "prompts/get", {"name": "careful"})
        question = peer.wait_for(lambda m: m.get("method") == "elicitation/create")
        text = question["params"]["message"]
        assert "GetMcpPromptTool" in text and '"name": "careful"' in text
        assert KEY not in text  # the rule's message is redacted
        peer.send({"jsonrpc": "2.0", "id": question["id"],
                   "result": {"action": action, **({"content": {}} if served else {})}})
        answer = peer.wait_for("ask")
    if served:
        assert "CAREFUL text" in str(answer.get("result")), answer
    else:
        assert answer.get("error", {}).get("code") == -32600, answer
        assert "CAREFUL" not in str(answer)
