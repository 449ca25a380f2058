"""``toolhost serve`` with several servers (a real process, a real upstream): a resource read
is judged as the server that owns the URI (``when: {server: h}`` holds under ``--all`` as
under ``--server h``); an upstream cannot claim a declared resource's URI or ``toolhost://``;
and a deny on an upstream's URIs holds however the dot-segments are spelled."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from .stdio_peer import StdioPeer, stdio_peer

UPSTREAM = Path(__file__).parent / "claiming_upstream.py"

CONFIG = f"""\
toolhost: 1
servers:
  h:
    mcp: {{command: [{sys.executable}, {UPSTREAM}], timeout: 10s}}
  kb:
    resources:
      runbook:
        file: runbook.md
      ticket:
        uri: "tickets://{{id}}"
        command: [echo, "--", "our ticket {{{{ id }}}}"]
permissions:
  default: allow
  deny:
    - tool: ReadMcpResourceTool
      when: {{server: h, uri: {{glob: "secret://*"}}}}
      message: no secret reads from the upstream h
    - tool: ReadMcpResourceTool
      when: {{uri: {{glob: "notes://kb/secret/*"}}}}
      message: secret notes are off limits
    - tool: ReadMcpResourceTool
      when: {{server: kb, uri: {{glob: "tickets://9*"}}}}
      message: ticket 9 is kb's and closed
"""


@pytest.fixture(scope="module", params=["--all", "--server=h"])
def peer(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioPeer]:
    root = tmp_path_factory.mktemp("owners")
    (root / "runbook.md").write_text("our runbook\n")
    (root / "owners.yaml").write_text(CONFIG)
    flags = [request.param] if request.param == "--all" else ["--server", "h"]
    with stdio_peer(root / "owners.yaml", *flags) as the_peer:
        the_peer.flag = request.param  # type: ignore[attr-defined]
        yield the_peer


def _read(peer: StdioPeer, uri: str) -> dict[str, object]:
    return peer.ask(f"read-{uri}-{id(uri)}", "resources/read", {"uri": uri}, timeout=30)


def test_a_server_rule_holds_for_the_upstream_that_serves_the_uri(peer: StdioPeer) -> None:
    answer = _read(peer, "secret://h/payroll")
    assert "no secret reads from the upstream h" in str(answer.get("error")), answer
    assert "content of" not in str(answer)


def test_a_server_rule_holds_for_the_declared_server_too(peer: StdioPeer) -> None:
    if peer.flag != "--all":  # type: ignore[attr-defined]
        pytest.skip("kb is served under --all only")
    answer = _read(peer, "tickets://9")
    assert "ticket 9 is kb's and closed" in str(answer.get("error")), answer
    assert "our ticket" in str(_read(peer, "tickets://8"))


@pytest.mark.parametrize("path", [
    "secret/payroll", "public/../secret/payroll", "public/..%2Fsecret/payroll",
    "public/..%2fsecret/payroll", "public/%2e%2e/secret/payroll",
    "public/%2E%2E%2Fsecret/payroll", "public/%2e./secret/payroll",
    "public/.%2E/secret/payroll", "public\\..\\secret/payroll", "public%5C..%5Csecret/payroll",
    "public/%252e%252e%252fsecret/payroll", "public/%25252e%25252e/secret/payroll",
    "public/./..%2F./secret/payroll", "x/y/..%2F..%2F..%2Fsecret/payroll",
    "public/..%252Fsecret/payroll", "public/..%5csecret/payroll",
])
def test_a_deny_holds_against_dot_segments_in_any_spelling(peer: StdioPeer, path: str) -> None:
    answer = _read(peer, f"notes://kb/{path}")
    assert "PAYROLL" not in str(answer), answer
    assert "error" in answer, answer


def test_harmless_notes_still_read(peer: StdioPeer) -> None:
    assert "hello" in str(_read(peer, "notes://kb/public/readme"))
    assert "hello" in str(_read(peer, "notes://kb/" + quote("public/readme", safe="")))


def test_an_upstream_cannot_claim_a_declared_uri_or_toolhost_ones(peer: StdioPeer) -> None:
    listed = peer.ask(f"list-{peer.flag}", "resources/list", {}, timeout=30)  # type: ignore[attr-defined]
    uris = [r["uri"] for r in listed["result"]["resources"]]
    templates = peer.ask(f"tpl-{peer.flag}", "resources/templates/list", {},  # type: ignore[attr-defined]
                         timeout=30)["result"]["resourceTemplates"]
    assert not any(t["uriTemplate"].startswith("toolhost:") for t in templates), templates
    for uri in ("toolhost://kb/runbook", "toolhost://kb/other"):
        answer = _read(peer, uri)
        assert "SPOOFED" not in str(answer), answer
    if peer.flag == "--all":  # type: ignore[attr-defined]
        assert uris.count("toolhost://kb/runbook") == 1
        assert "our runbook" in str(_read(peer, "toolhost://kb/runbook"))
        assert "our ticket 7" in str(_read(peer, "tickets://7"))  # kb's template owns it
        assert "tickets://7" not in uris
    else:
        assert "toolhost://kb/runbook" not in uris
    assert "left out" in peer.log() and "toolhost://kb/runbook" in peer.log()


ONE_OWNER = """\
toolhost: 1
servers:
  kb:
    resources:
      notes: {directory: notes, uri: "notes://kb"}
      ticket:
        uri: "tickets://{id}"
        command: [echo, "--", "ticket {{ id }}"]
    prompts:
      payroll: {template: "PAYROLL text"}
      hello: {template: "hello text"}
  other:
    tools:
      add: {python: "toolhost.demo:add"}
permissions:
  default: allow
  deny:
    - tool: ReadMcpResourceTool
      when: {server: kb, uri: {glob: "notes://kb/secret*"}}
      message: sealed notes
    - tool: ReadMcpResourceTool
      when: {server: kb, uri: {glob: "tickets://9*"}}
      message: sealed ticket
    - tool: GetMcpPromptTool
      when: {server: kb, name: payroll}
      message: sealed prompt
"""


@pytest.mark.parametrize("flags", [("--all",), ("--server", "kb"), ("--server", "kb",
                                                                    "--server", "other")])
def test_a_server_rule_holds_when_one_served_server_has_all_the_content(
        tmp_path: Path, flags: tuple[str, ...]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "secret.md").write_text("TOP SECRET\n")
    (tmp_path / "notes" / "open.md").write_text("open notes\n")
    (tmp_path / "one.yaml").write_text(ONE_OWNER)
    with stdio_peer(tmp_path / "one.yaml", *flags) as peer:
        for i, uri in enumerate(["notes://kb/secret.md", "notes://kb/%73ecret.md",
                                 "tickets://9", "tickets://%39"]):
            answer = peer.ask(f"r{i}", "resources/read", {"uri": uri}, timeout=30)
            assert "sealed" in str(answer.get("error")), (uri, answer)
            assert "TOP SECRET" not in str(answer) and "ticket 9" not in str(answer)
        assert "open notes" in str(peer.ask("open", "resources/read",
                                            {"uri": "notes://kb/open.md"}))
        subscribed = peer.ask("sub", "resources/subscribe", {"uri": "notes://kb/secret.md"})
        assert "sealed" in str(subscribed.get("error")), subscribed
        listed = peer.ask("list", "prompts/list")["result"]["prompts"]
        prefix = "kb__" if "kb__hello" in str(listed) else ""
        denied = peer.ask("p1", "prompts/get", {"name": prefix + "payroll"})
        assert "sealed prompt" in str(denied.get("error")), denied
        assert "hello text" in str(peer.ask("p2", "prompts/get", {"name": prefix + "hello"}))
