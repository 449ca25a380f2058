"""What ``resources/list`` shows is decided for the caller asking (``--auth-issuer``): a read
deny restricted to ``callers:`` hides a resource from those callers only, whoever listed
first (the listing's remembered decisions are per caller). In-process: the real build of a
config and its rules, each request handled as an authenticated caller."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.modern import modern_meta
from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.serve import served
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


def _served(tmp_path: Path, text: str) -> tuple[Path, Server]:
    """The config ``text`` written beside a ``docs`` directory (an open and a secret file),
    and a server built from it."""
    (tmp_path / "docs").mkdir(parents=True)
    for name in ("open.md", "secret.md"):
        (tmp_path / "docs" / name).write_text(name)
    config = tmp_path / "kb.yaml"
    config.write_text(text)
    return config, Server(build_serve(config))


@pytest.mark.parametrize("order", [(STAFF, INTERN, None), (INTERN, STAFF, None),
                                   (None, INTERN, STAFF)])
def test_each_caller_is_shown_what_the_rules_show_it(tmp_path: Path,
                                                     order: tuple[Caller | None, ...]) -> None:
    _, server = _served(tmp_path, CONFIG)

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


RELOADED = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb/"}
permissions:
  default: deny
  allow:
    - tool: ReadMcpResourceTool
      callers: {groups: [staff, interns]}
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "docs://kb/secret*"}}
      callers: {groups: [interns]}
"""


def test_a_reload_judges_each_subscription_as_its_caller(tmp_path: Path) -> None:
    """A reload ends the subscriptions (``resources/subscribe`` and a listen stream's) its
    rules now deny to their caller, and only those: a caller-restricted allow keeps staff's,
    a caller-restricted deny ends the intern's."""
    config, server = _served(tmp_path, RELOADED.split("  deny:")[0])  # no deny yet
    meta = modern_meta()
    heard: dict[str, list[str]] = {"staff": [], "intern": []}

    async def subscribe(caller: Caller, peer: str) -> None:
        with as_caller(caller):
            answer = await server.served.handle(
                {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                 "params": {"uri": SECRET}}, peer=peer)
        assert answer == {"jsonrpc": "2.0", "id": 1, "result": {}}, answer

    async def listen(caller: Caller, who: str) -> None:
        async def notify(note: dict[str, object]) -> None:
            heard[who].append(str(note.get("method")))
        with as_caller(caller):
            await server.served.handle(
                {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
                    "notifications": {"resourceSubscriptions": [SECRET]}, "_meta": meta}},
                notify=notify)

    async def go() -> None:
        await subscribe(STAFF, "staff-session")
        await subscribe(INTERN, "intern-session")
        async with anyio.create_task_group() as tg:
            tg.start_soon(listen, STAFF, "staff")
            tg.start_soon(listen, INTERN, "intern")
            with anyio.fail_after(10):
                while not all(heard.values()):  # both acknowledged
                    await anyio.sleep(0.01)
            config.write_text(RELOADED)
            await server.swap(build_serve(config))
            subscribed = server.served.core.resource_subscriptions()
            assert subscribed.get("staff-session") == {SECRET}  # the allow still holds
            assert not subscribed.get("intern-session")  # the new deny ends it
            listeners = {next(iter(lst.uris), None) for lst in server.served._listeners}
            assert listeners == {SECRET, None}, listeners  # staff's kept, the intern's emptied
            server.served.close()
        await server.aclose()
    anyio.run(go)


def test_a_reload_compares_the_listing_as_the_caller_who_listed(tmp_path: Path) -> None:
    """``notifications/resources/list_changed`` after a reload compares what the listing shows
    before and after as one caller: a reload that changes nothing that caller sees is quiet,
    one whose rules newly hide a resource from them is announced."""
    config, server = _served(tmp_path, RELOADED.split("  deny:")[0])  # staff reads all
    heard: list[str] = []

    async def broadcast(message: dict[str, object], peers: object) -> None:
        heard.append(str(message["method"]))
    server.served.broadcast = broadcast

    async def go() -> None:
        with as_caller(STAFF):
            answer = await server.served.handle({"jsonrpc": "2.0", "id": 1,
                                                 "method": "resources/list"})
        assert answer is not None and len(answer["result"]["resources"]) == 2
        await server.swap(build_serve(config))  # the same rules: staff sees the same
        assert heard == []
        config.write_text(RELOADED.replace("[interns]", "[staff]"))  # now hidden from staff
        await server.swap(build_serve(config))
        assert heard == ["notifications/resources/list_changed"]
        await server.aclose()
    anyio.run(go)


# notifications/resources/list_changed after a reload is decided for every caller who listed:
# a change only the second caller to list would see is announced, a reload that changes
# nothing anyone who listed sees is quiet, and past the callers a reload compares, every
# reload is announced
RULES = CONFIG.replace("[interns]", "[GROUP]")


def _heard_after(tmp_path: Path, listers: list[Caller | None],
                 reloads: list[str]) -> list[list[str]]:
    """The methods broadcast after each reload (rules text with GROUP filled in)."""
    config, server = _served(tmp_path, RULES.replace("GROUP", "interns"))
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
    monkeypatch.setattr(served, "SHOWN_CALLERS", 1)
    assert _heard_after(tmp_path / "a", [STAFF], ["interns"]) == [[]]  # one caller: compared
    heard = _heard_after(tmp_path / "b", [STAFF, INTERN], ["interns"])  # the intern's not kept
    assert heard == [["notifications/resources/list_changed"]]
