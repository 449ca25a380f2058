"""A completion names its template as the client spells it: a scheme has no case and an
escape of an unreserved character is that character, so ``TICKETS://{id}`` and
``vault://kb/{+path}`` complete what ``tickets://{id}`` and ``Vault://kb/{+path}`` declare;
a template no resource declares still answers nothing."""

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
"""


@pytest.mark.parametrize(("template", "argument", "values"), [
    ("tickets://{id}", "id", ["T-1", "T-2"]),
    ("TICKETS://{id}", "id", ["T-1", "T-2"]),
    ("Tickets://{id}", "id", ["T-1", "T-2"]),
    ("vault://kb/{+path}", "path", ["a/one", "b/two"]),
    ("VAULT://%6Bb/{+path}", "path", ["a/one", "b/two"]),
    ("tickets://{ID}", "id", []),  # another variable: another template
    ("tickets://x/{id}", "id", []),
    ("nothing://{id}", "id", []),
])
def test_a_template_completes_in_any_spelling(tmp_path: Path, template: str, argument: str,
                                              values: list[str]) -> None:
    server = content_server(tmp_path, CONFIG)
    answer = ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": template},
        "argument": {"name": argument, "value": ""}})
    assert answer["result"]["completion"]["values"] == values, answer
