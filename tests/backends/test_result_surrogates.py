"""A lone surrogate in a tool's result (JSON can spell one, ``"\\ud800"``; a python tool can
return one) is the same result from every backend and every isolation, and ``toolhost call``
prints it escaped, as the MCP wire writes it: it was an internal error of ``call``, and a
worker turned it into ``?``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import Server

MODULE = '''
def text() -> str:
    return "a\\ud800b"

def structured() -> dict:
    return {"k\\udfff": ["v\\ud800", "\\udc00"]}

def listed() -> list:
    return ["x", "\\ud83d"]

def raises() -> str:
    raise ValueError("bad \\udbff")
'''
FUNCTIONS = {"text": "\\ud800", "structured": "\\udfff", "listed": "\\ud83d",
             "raises": "\\udbff"}


def _config(tmp_path: Path, server: Server) -> Path:
    (tmp_path / "surrogate_tools.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  p:",
             "    timeout: 20s", "    tools:"]
    for fn in FUNCTIONS:
        lines.append(f"      {fn}: {{python: 'surrogate_tools:{fn}'}}")
        lines.append(f"      w_{fn}: {{python: {{function: 'surrogate_tools:{fn}', "
                     "isolation: process}}")
    lines += ["      cmd:", "        command: {argv: [printf, '%s', '{\"a\": \"\\\\ud800\"}'],"
              " stdout: json}",
              "  h:", f"    base_url: {server.url}/api/", "    tools:",
              "      body: {http: {url: raw/surrogate}}"]
    path = tmp_path / "surrogates.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _call(config: Path, tool: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), tool, *extra],
                          capture_output=True, text=True, timeout=60, check=False,
                          cwd=config.parent)


CASES = [(f"p.{fn}", escape) for fn, escape in FUNCTIONS.items()] + [
    (f"p.w_{fn}", escape) for fn, escape in FUNCTIONS.items()] + [
    ("p.cmd", "\\ud800"), ("h.body", "\\ud800")]


@pytest.mark.parametrize("mode", ["text", "json"])
@pytest.mark.parametrize(("tool", "escape"), CASES)
def test_call_prints_a_lone_surrogate_escaped(tmp_path: Path, server: Server, tool: str,
                                              escape: str, mode: str) -> None:
    server.raw["surrogate"] = (b'{"v": "\\ud800abc"}', {"Content-Type": "application/json"})
    config = _config(tmp_path, server)
    done = _call(config, tool, *(["--json", "{}"] if mode == "json" else []))
    assert "internal error" not in done.stderr, done.stderr
    assert done.returncode == (1 if tool.endswith("raises") else 0), done.stderr
    assert escape in done.stdout, done.stdout
    if mode == "json":
        json.loads(done.stdout)  # still JSON, the escape read back as the surrogate


@pytest.mark.parametrize("fn", list(FUNCTIONS))
def test_a_worker_returns_what_in_process_returns(tmp_path: Path, server: Server,
                                                  fn: str) -> None:
    config = _config(tmp_path, server)
    here = json.loads(_call(config, f"p.{fn}", "--json", "{}").stdout)
    there = json.loads(_call(config, f"p.w_{fn}", "--json", "{}").stdout)
    there_text = json.dumps(there).replace(f"w_{fn}", fn)
    assert json.loads(there_text) == here
