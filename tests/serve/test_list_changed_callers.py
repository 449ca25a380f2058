"""``notifications/resources/list_changed`` after a reload is decided for every caller who
listed (rules may name callers): a change only the second caller to list would see is
announced, a reload that changes nothing anyone sees is quiet, and past the callers a reload
compares, every reload is announced. In-process: the real build of a config and its rules."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolhost.permissions.caller import Caller, as_caller
from toolhost.serve import served as served_module
from toolhost.serve.build import Server, build_serve

RULES = """\
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
      callers: {groups: [GROUP]}
"""
STAFF = Caller("bob", groups=frozenset({"staff"}))
INTERN = Caller("ivan", groups=frozenset({"interns"}))


def _heard_after(tmp_path: Path, listers: list[Caller | None],
                 reloads: list[str]) -> list[list[str]]:
    """The methods broadcast after each reload (rules text with GROUP filled in)."""
    (tmp_path / "docs").mkdir(exist_ok=True)
    for name in ("open.md", "secret.md"):
        (tmp_path / "docs" / name).write_text(name)
    config = tmp_path / "kb.yaml"
    config.write_text(RULES.replace("GROUP", "interns"))
    server = Server(build_serve(config))
    heard: list[str] = []
    out: list[list[str]] = []

    async def broadcast(message: dict[str, object], peers: object) -> None:
        heard.append(str(message["method"]))
    server.served.broadcast = broadcast

    async def go() -> None:
        for caller in listers:
            with as_caller(caller):
                answer = await server.served.handle({"jsonrpc": "2.0", "id": 1,
                                                     "method": "resources/list"})
            assert answer is not None and "result" in answer, answer
        for group in reloads:
            config.write_text(RULES.replace("GROUP", group))
            await server.swap(build_serve(config))
            out.append(list(heard))
            heard.clear()
        await server.aclose()
    anyio.run(go)
    return out


@pytest.mark.parametrize("listers", [[INTERN, STAFF], [STAFF, INTERN], [None, INTERN, STAFF]])
def test_a_change_only_one_lister_sees_is_announced(
        tmp_path: Path, listers: list[Caller | None]) -> None:
    # the same rules: quiet; the secret hidden from staff too: staff's list changed (the
    # intern's did not); the same again: quiet
    heard = _heard_after(tmp_path, listers, ["interns", "interns, staff", "interns, staff"])
    assert heard == [[], ["notifications/resources/list_changed"], []]


def test_a_reload_that_changes_nothing_a_lister_sees_is_quiet(tmp_path: Path) -> None:
    # hidden from guests instead of interns: staff, the one who listed, sees the same
    assert _heard_after(tmp_path, [STAFF], ["guests"]) == [[]]


def test_past_the_callers_compared_every_reload_is_announced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(served_module, "SHOWN_CALLERS", 1)
    assert _heard_after(tmp_path, [STAFF], ["interns"]) == [[]]  # one caller: compared
    heard = _heard_after(tmp_path, [STAFF, INTERN], ["interns"])  # the intern's not kept
    assert heard == [["notifications/resources/list_changed"]]
