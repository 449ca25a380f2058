"""A completion names its template as the client spells it: a scheme has no case and an
escape of an unreserved character is that character, so ``TICKETS://{id}`` and
``vault://kb/{+path}`` complete what ``tickets://{id}`` and ``Vault://kb/{+path}`` declare;
a template no resource declares is -32602 (as the TypeScript SDK answers), a static resource's
URI completes to nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from .mcp_testtools import ask, content_server

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      ticket:
        uri: "tickets://{id}"
        command: [echo, "ticket {{ id }}"]
        complete: {id: [T-1, T-2]}
      vault:
        uri: "Vault://kb/{+path}"
        command: [echo, "vault {{ path }}"]
        complete: {path: [a/one, b/two]}
      readme:
        uri: "docs://readme"
        file: readme.txt
"""


@pytest.mark.parametrize(("template", "argument", "values"), [
    ("tickets://{id}", "id", ["T-1", "T-2"]),
    ("TICKETS://{id}", "id", ["T-1", "T-2"]),
    ("Tickets://{id}", "id", ["T-1", "T-2"]),
    ("vault://kb/{+path}", "path", ["a/one", "b/two"]),
    ("VAULT://%6Bb/{+path}", "path", ["a/one", "b/two"]),
])
def test_a_template_completes_in_any_spelling(tmp_path: Path, template: str, argument: str,
                                              values: list[str]) -> None:
    (tmp_path / "readme.txt").write_text("read me")
    server = content_server(tmp_path, CONFIG)
    answer = ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": template},
        "argument": {"name": argument, "value": ""}})
    assert answer["result"]["completion"]["values"] == values, answer


@pytest.mark.parametrize("template", [
    "tickets://{ID}",  # another variable: another template
    "tickets://x/{id}",
    "nothing://{id}",
    "notes://readme",  # the static resource's URI in another scheme
])
def test_a_template_no_resource_declares_is_invalid_params(tmp_path: Path,
                                                           template: str) -> None:
    (tmp_path / "readme.txt").write_text("read me")
    server = content_server(tmp_path, CONFIG)
    answer = ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": template},
        "argument": {"name": "id", "value": ""}})
    assert answer["error"]["code"] == -32602, answer
    assert answer["error"]["message"] == \
        f"Invalid params: no resource template {template!r} here"


@pytest.mark.parametrize("uri", ["docs://readme", "DOCS://readme"])
def test_a_static_resource_completes_to_nothing(tmp_path: Path, uri: str) -> None:
    (tmp_path / "readme.txt").write_text("read me")
    server = content_server(tmp_path, CONFIG)
    answer = ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": "anything", "value": ""}})
    assert answer["result"]["completion"]["values"] == [], answer
