"""``completion/complete`` on a resource template meets the read rules (a real ``toolhost
serve`` over stdio): it is decided as a read of the template with the value typed so far, so
a deny covering the template keeps its completion source from running and listing what the
deny hides, in any spelling; completions the rules allow still answer, without the values
a deny covers (``S-9`` under a deny on ``tickets://S*``, also when nothing is typed yet), and
a prompt argument's values a ``GetMcpPromptTool`` deny covers are left out likewise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .stdio_peer import StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      echo:
        command: [echo, "{{ text }}"]
        params: {text: {type: string}}
    resources:
      ticket:
        uri: "tickets://{id}"
        command: [echo, "ticket {{ id }}"]
        complete: {id: [T-1, T-2, S-9]}
      vault:
        uri: "Vault://kb/{+path}"
        command: [echo, "vault {{ path }}"]
        complete: {path: [a/one, a/two, b/three]}
      pair:
        uri: "pairs://{team}/{doc}"
        command: [echo, "{{ team }} {{ doc }}"]
        complete: {doc: [plan, budget], team: [red, blue]}
      file:
        uri: "files://kb/{+path}"
        command: [echo, "file {{ path }}"]
        complete: {path: [pub/a.md, private/keys.md, pub/../private/x.md, pub%2Fb.md]}
    prompts:
      brief:
        arguments:
          team: {complete: [alpha, beta, payroll-team, Payroll-B]}
          year: {complete: ["2025", "2026"]}
        template: "Brief {{ team }} {{ year }}"
permissions:
  default: deny
  allow:
    - tool: ReadMcpResourceTool
      when: {server: kb}
    - tool: GetMcpPromptTool
      when: {server: kb}
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "vault://kb/*"}}
      message: the vault is sealed
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "tickets://S*"}}
      message: S tickets are sealed
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "files://kb/private/*"}}
    - tool: ReadMcpResourceTool
      when: {uri: pairs://red/budget}
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "pairs://sealed/*"}}
    - tool: GetMcpPromptTool
      when: {arguments.team: {glob: "payroll*"}}
    - tool: GetMcpPromptTool
      when: {arguments.team: Payroll-B, arguments.year: "2025"}
"""


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("completion")
    (root / "c.yaml").write_text(CONFIG)
    with stdio_peer(root / "c.yaml") as the_peer:
        yield the_peer


def _complete(peer: StdioPeer, uri: str, name: str, value: str) -> dict[str, Any]:
    return peer.ask(f"c-{uri}-{name}-{value}", "completion/complete", {
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": name, "value": value}}, timeout=30)


@pytest.mark.parametrize(("uri", "name", "value"), [
    ("Vault://kb/{+path}", "path", ""),
    ("Vault://kb/{+path}", "path", "a"),
    ("vault://kb/{+path}", "path", "b/"),
    ("VAULT://kb/{+path}", "path", "a/o"),
    ("tickets://{id}", "id", "S"),
    ("tickets://{id}", "id", "S-"),
    ("tickets://{id}", "id", "%53"),
])
def test_a_completion_the_read_rules_deny_is_refused(peer: StdioPeer, uri: str, name: str,
                                                     value: str) -> None:
    answer = _complete(peer, uri, name, value)
    assert answer.get("error", {}).get("code") == -32600, answer
    assert "sealed" in answer["error"]["message"]
    assert "one" not in str(answer) and "S-9" not in str(answer)


@pytest.mark.parametrize(("value", "values"), [("T", ["T-1", "T-2"]), ("t-1", ["T-1"])])
def test_a_completion_the_rules_allow_answers(peer: StdioPeer, value: str,
                                              values: list[str]) -> None:
    answer = _complete(peer, "tickets://{id}", "id", value)
    assert answer["result"]["completion"]["values"] == values, answer


@pytest.mark.parametrize(("uri", "name", "value", "values"), [
    ("tickets://{id}", "id", "", ["T-1", "T-2"]),
    ("files://kb/{+path}", "path", "", ["pub/a.md", "pub%2Fb.md"]),
    ("files://kb/{+path}", "path", "p", ["pub/a.md", "pub%2Fb.md"]),
])
def test_a_completion_leaves_out_the_values_a_deny_covers(peer: StdioPeer, uri: str,
                                                          name: str, value: str,
                                                          values: list[str]) -> None:
    completion = _complete(peer, uri, name, value)["result"]["completion"]
    assert completion["values"] == values
    assert completion["total"] == len(values) and completion["hasMore"] is False


@pytest.mark.parametrize(("context", "values"), [
    (None, ["alpha", "beta", "Payroll-B"]),
    ({"year": "2025"}, ["alpha", "beta"]),
    ({"year": "2026"}, ["alpha", "beta", "Payroll-B"]),
])
def test_a_prompt_completion_leaves_out_the_values_a_deny_covers(
        peer: StdioPeer, context: dict[str, str] | None, values: list[str]) -> None:
    params: dict[str, Any] = {"ref": {"type": "ref/prompt", "name": "brief"},
                              "argument": {"name": "team", "value": ""}}
    if context is not None:
        params["context"] = {"arguments": context}
    answer = peer.ask(f"p-{context}", "completion/complete", params, timeout=30)
    assert answer["result"]["completion"]["values"] == values, answer


@pytest.mark.parametrize(("name", "context", "answer"), [
    ("doc", {"team": "red"}, ["plan"]),
    ("doc", {"team": "blue"}, ["plan", "budget"]),
    ("doc", None, ["plan", "budget"]),
    ("doc", {"team": "sealed"}, "refused"),
    ("team", {"doc": "budget"}, ["blue"]),
])
def test_the_other_variables_the_client_filled_in_are_part_of_the_uri(
        peer: StdioPeer, name: str, context: dict[str, str] | None,
        answer: list[str] | str) -> None:
    params: dict[str, Any] = {"ref": {"type": "ref/resource", "uri": "pairs://{team}/{doc}"},
                              "argument": {"name": name, "value": ""}}
    if context is not None:
        params["context"] = {"arguments": context}
    got = peer.ask(f"pair-{name}-{context}", "completion/complete", params, timeout=30)
    if answer == "refused":
        assert got["error"]["code"] == -32600, got
    else:
        assert got["result"]["completion"]["values"] == answer, got
