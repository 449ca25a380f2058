"""``toolhost permissions check`` and ``test`` decide an imported server's call without
starting its upstream: the config's own ``defaults:`` for the reshaped tool are filled in, as
the live host fills them (a ``deny when {limit: {max: 5}}`` judged a call leaving ``limit``
out as allowed offline, and the live host, filling ``limit: 5``, denied it), and the check
says the upstream's own defaults are not known."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from .conftest import gateway_config

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
RULE = "    - tool: mcp__gh__search\n      when: {limit: {max: 5}}\n"


def check(config: Path, arguments: dict[str, Any]) -> tuple[str, str]:
    done = subprocess.run([TOOLHOST, "permissions", "check", str(config), "mcp__gh__search",
                           "--input", json.dumps(arguments), "--json"],
                          capture_output=True, text=True, timeout=60, check=False)
    return json.loads(done.stdout)["decision"], done.stderr


def live(config: Path, arguments: dict[str, Any]) -> str:
    from toolhost.host import load_host

    async def main() -> str:
        host = load_host(config)
        try:
            return host.policy.decide("mcp__gh__search", arguments).behavior
        finally:
            await host.aclose()

    return anyio.run(main)


def test_the_configs_defaults_are_filled_offline_as_live(tmp_path: Path) -> None:
    config = gateway_config(tmp_path, extra=RULE)
    for arguments, expected in [({"query": "bug"}, "deny"),  # limit: 5 filled in
                                ({"query": "bug", "limit": 8}, "allow"),
                                ({"query": "bug", "limit": 2}, "deny")]:
        offline, said = check(config, arguments)
        assert offline == expected, (arguments, said)
        assert live(config, arguments) == expected, arguments
        assert "imported server 'gh'" in said and "--input" in said, said
        assert "is not a tool of this config" not in said


def test_a_case_file_judges_the_imported_tool_with_the_configs_defaults(
        tmp_path: Path) -> None:
    config = gateway_config(tmp_path, extra=RULE)
    cases = tmp_path / "cases.yaml"
    cases.write_text(f"config: {config.name}\ncases:\n"
                     "  - {tool: mcp__gh__search, input: {query: bug}, expect: deny}\n"
                     "  - {tool: mcp__gh__search, input: {query: bug, limit: 9}, "
                     "expect: allow}\n")
    done = subprocess.run([TOOLHOST, "permissions", "test", str(cases)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "PASS: 2 case(s): 2 passed, 0 failed"
