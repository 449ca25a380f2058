"""``completion/complete`` on a resource template meets the read rules (a real ``toolhost
serve`` over stdio): it is decided as a read of the template with the value typed so far, so
a deny covering the template keeps its completion source from running and listing what the
deny hides, in any spelling; completions the rules allow still answer."""

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
permissions:
  default: deny
  allow:
    - tool: ReadMcpResourceTool
      when: {server: kb}
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "vault://kb/*"}}
      message: the vault is sealed
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "tickets://S*"}}
      message: S tickets are sealed
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
