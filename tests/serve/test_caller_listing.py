"""What ``resources/list`` shows is decided for the caller asking (``--auth-issuer``): a read
deny restricted to ``callers:`` hides a resource from those callers only, whoever listed
first (the listing's remembered decisions are per caller). In-process: the real build of a
config and its rules, each request handled as an authenticated caller."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolhost.permissions.caller import Caller, as_caller
from toolhost.serve.build import Server, build_serve

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb/"}
permissions:
  default: allow
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "docs://kb/secret*"}}
      callers: {groups: [interns]}
"""
STAFF = Caller("bob", groups=frozenset({"staff"}))
INTERN = Caller("ivan", groups=frozenset({"interns"}))
SECRET = "docs://kb/secret.md"


@pytest.mark.parametrize("order", [(STAFF, INTERN, None), (INTERN, STAFF, None),
                                   (None, INTERN, STAFF)])
def test_each_caller_is_shown_what_the_rules_show_it(tmp_path: Path,
                                                     order: tuple[Caller | None, ...]) -> None:
    (tmp_path / "docs").mkdir()
    for name in ("open.md", "secret.md"):
        (tmp_path / "docs" / name).write_text(name)
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    server = Server(build_serve(config))

    async def listed(caller: Caller | None) -> set[str]:
        with as_caller(caller):
            answer = await server.served.handle({"jsonrpc": "2.0", "id": 1,
                                                 "method": "resources/list"})
        assert answer is not None
        return {entry["uri"] for entry in answer["result"]["resources"]}

    async def go() -> None:
        for _ in range(2):  # asked again: the remembered decisions answer the same
            for caller in order:
                shown = await listed(caller)
                assert "docs://kb/open.md" in shown
                assert (SECRET in shown) is (caller is not INTERN), (caller, shown)
        await server.aclose()
    anyio.run(go)
