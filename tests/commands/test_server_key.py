"""``--name`` of ``install``, ``mcp-config`` and ``init`` is one check: it becomes every tool's
wire name (``mcp__<name>__<tool>``), so anything but lowercase letters, digits and single
dashes (at most 40) is refused in one line, exit 2, and nothing is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")
TOOLHOST = str(Path(sys.executable).parent / "toolhost")
BAD = {"empty": "", "line break": "a\nb", "space": "a b", "slash": "a/c", "quote": 'a"b',
       "300 chars": "x" * 300, "41 chars": "a" * 41, "double underscore": "a__b",
       "underscore": "a_b", "upper": "Tools", "leading digit": "1a", "leading dash": "-a",
       "double dash": "a--b", "bidi": "a\u202eb", "zero width": "a\u200bb",
       "escape": "a\x1b[2Kb", "non-ascii": "caf\u00e9", "dot": "a.b"}
GOOD = ["a", "team-tools", "toolhost", "x1", "a" * 40, "a-b-c"]


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    return subprocess.run([TOOLHOST, *args], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL)


COMMANDS = {
    "install": lambda name: ("install", "claude-code", DEMO, "--all", "--file", "ok.json",
                             f"--name={name}"),
    "mcp-config": lambda name: ("mcp-config", DEMO, "--all", f"--name={name}"),
    "init": lambda name: ("init", "proj", f"--name={name}"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_name_is_one_line_and_nothing_is_written(tmp_path: Path, command: str,
                                                       case: str) -> None:
    (tmp_path / "ok.json").write_text('{"mcpServers": {}}\n')
    done = _run(tmp_path, *COMMANDS[command](BAD[case]))
    assert done.returncode == 2, done
    assert "lowercase letters, digits and single dashes" in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "--name" in last or "argument --name" in done.stderr
    for char in "\n\x1b\u202e\u200b":
        assert char not in last
    assert (tmp_path / "ok.json").read_text() == '{"mcpServers": {}}\n'
    assert not (tmp_path / "proj").exists()


@pytest.mark.parametrize("name", GOOD)
def test_a_good_name_is_the_key(tmp_path: Path, name: str) -> None:
    done = _run(tmp_path, *COMMANDS["mcp-config"](name))
    assert done.returncode == 0, done
    assert f'"{name}"' in done.stdout


@given(st.text(max_size=50))
def test_the_check_accepts_exactly_the_names_a_wire_name_keeps(name: str) -> None:
    from toolhost.commands._argtypes import server_key_problem

    ok = not server_key_problem(name)
    plain = (name[:1].isascii() and name[:1].islower() and len(name) <= 40
             and all(c.isascii() and (c.islower() or c.isdigit() or c == "-") for c in name)
             and "--" not in name)
    assert ok == plain
    if not ok:
        assert "\n" not in server_key_problem(name)


@pytest.mark.parametrize(("name", "near"), [("My-Shop", "my-shop"), ("my server", "my-server"),
                                            ("shop--v2", "shop-v2"), ("2shop", "shop"),
                                            ("123", ""), ("Ünïcode", "unicode"),
                                            ("Café Crème", "cafe-creme")])
def test_a_bad_name_suggests_one_that_works(name: str, near: str) -> None:
    from toolhost.commands._argtypes import server_key_problem

    problem = server_key_problem(name)
    assert problem.endswith(f"; e.g. --name {near}") if near else "e.g." not in problem


@given(st.text(max_size=60))
def test_a_suggested_name_is_always_a_good_one(name: str) -> None:
    from toolhost.commands._argtypes import key_like, server_key_problem

    near = key_like(name)
    assert near == "" or server_key_problem(near) == ""
