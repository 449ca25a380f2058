"""The rules judge the arguments a tool will run with: a top-level default the tool fills in
for an argument the call leaves out is filled in before the rules (a deny on ``limit >= 10``
met a call leaving out a ``limit`` defaulting to 20 only when the model wrote it)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from toolhost.host import load_host

CONFIG = """\
toolhost: 1
servers:
  t:
    tools:
      search:
        command: [echo, "{{ query }}", "{{ limit }}"]
        params:
          query: {type: string}
          limit: {type: integer, default: 20}
          where: {type: string, default: "/etc"}
permissions:
  default: allow
  deny:
    - tool: mcp__t__search
      when: {limit: {min: 10}}
  ask:
    - tool: mcp__t__search
      when: {where: {path_under: /etc}}
"""


@pytest.mark.parametrize(("arguments", "behavior"), [
    ({"query": "x"}, "deny"),  # limit 20 by default: the deny meets it
    ({"query": "x", "limit": 5}, "ask"),  # where /etc by default: the ask meets it
    ({"query": "x", "limit": 5, "where": "/srv"}, "allow"),
    ({"query": "x", "limit": 50, "where": "/srv"}, "deny"),
])
def test_a_left_out_argument_is_judged_at_its_default(tmp_path: Path,
                                                      arguments: dict[str, object],
                                                      behavior: str) -> None:
    (tmp_path / "th.yaml").write_text(CONFIG)
    host = load_host(tmp_path / "th.yaml")
    try:
        assert host.policy.decide("mcp__t__search", arguments).behavior == behavior
        assert host.policy.decide("mcp__t__other", {}).behavior == "allow"  # no defaults
    finally:
        anyio.run(host.aclose)


def test_serve_judges_a_left_out_argument_at_its_default(tmp_path: Path) -> None:
    from toolhost.serve.build import build_serve

    (tmp_path / "th.yaml").write_text(CONFIG)
    build = build_serve(tmp_path / "th.yaml")
    try:
        decided = anyio.run(build.gate.check, "mcp__t__search", {"query": "x"})
        assert decided.behavior == "deny"
    finally:
        anyio.run(build.host.aclose)


def test_a_tool_list_swapped_later_brings_its_own_defaults(tmp_path: Path) -> None:
    # (an imported server's list changes when its upstream announces one: set_tools)
    import dataclasses

    (tmp_path / "th.yaml").write_text(CONFIG)
    host = load_host(tmp_path / "th.yaml")
    try:
        decide = host.policy.decide
        assert decide("mcp__t__search", {"query": "x"}).behavior == "deny"
        server = host.servers["t"]
        tool = server.tools[0]
        server.set_tools([dataclasses.replace(tool, defaults={"limit": 5, "where": "/srv"})])
        assert decide("mcp__t__search", {"query": "x"}).behavior == "allow"
        server.set_tools([dataclasses.replace(tool, defaults={"limit": 5})])
        assert decide("mcp__t__search", {"query": "x"}).behavior == "allow"  # where unset
        server.set_tools([dataclasses.replace(tool, defaults={"limit": 99})])
        assert decide("mcp__t__search", {"query": "x"}).behavior == "deny"
    finally:
        anyio.run(host.aclose)


def test_permissions_test_and_check_fill_the_declared_defaults(tmp_path: Path) -> None:
    """A case that leaves ``limit`` out tests the call ``run`` decides: with the default."""
    from tests.inproc import run_cli

    (tmp_path / "c.yaml").write_text(CONFIG)
    (tmp_path / "cases.yaml").write_text(
        "config: c.yaml\ncases:\n"
        "  - {name: left out, tool: mcp__t__search, input: {query: q}, expect: deny}\n"
        "  - {name: written low, tool: mcp__t__search, input: {query: q, limit: 3, where: /srv},"
        " expect: allow}\n")
    done = run_cli(["permissions", "test", str(tmp_path / "cases.yaml")],
                   env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    checked = run_cli(["permissions", "check", str(tmp_path / "c.yaml"), "mcp__t__search",
                       "--input", '{"query": "q"}', "--json"], env={"HOME": str(tmp_path)})
    assert json.loads(checked.stdout)["decision"] == "deny", checked.stdout + checked.stderr
