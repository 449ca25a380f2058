"""``toolhost install``, ``mcp-config`` refusing broken configs, and ``--version``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.inproc import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "configs" / "demo.yaml"


def toolhost(*args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``toolhost ARGS`` in ``cwd`` with HOME ``home``: its command line, run in this process
    (a process per command cost 1-2 s)."""
    return run_cli(args, cwd=cwd, env={"HOME": str(home or cwd),
                                       "XDG_CONFIG_HOME": str(cwd / "xdg")})


def test_version(tmp_path: Path) -> None:
    done = toolhost("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("toolhost 0.") and "Python 3." in done.stdout


def test_project_install_merges_keeps_the_rest_and_backs_up(tmp_path: Path) -> None:
    original = {"mcpServers": {"other": {"command": "x", "args": ["1"]}}, "keep": [1, 2]}
    (tmp_path / ".mcp.json").write_text(json.dumps(original))
    dry = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "demo",
                   "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert '+    "demo": {' in dry.stdout and "dry run" in dry.stdout
    assert json.loads((tmp_path / ".mcp.json").read_text()) == original

    done = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "demo",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / ".mcp.json").read_text())
    assert data["keep"] == [1, 2] and data["mcpServers"]["other"] == original["mcpServers"][
        "other"]
    entry = data["mcpServers"]["demo"]
    assert entry["type"] == "stdio" and entry["args"][-3:] == ["serve", str(DEMO), "--all"]
    (backup,) = tmp_path.glob(".mcp.json.bak-*")
    assert json.loads(backup.read_text()) == original

    again = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "demo",
                     cwd=tmp_path)
    assert again.returncode == 0 and "already installed" in again.stdout
    other = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "other",
                     cwd=tmp_path)
    assert other.returncode == 1 and "--force" in other.stderr
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["other"] == \
        original["mcpServers"]["other"]
    forced = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "other",
                      "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "replaced 'other'" in forced.stdout


def test_user_scope_and_desktop_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text('{"numStartups": 3, "projects": {"/x": {}}}')
    os.chmod(home / ".claude.json", 0o600)
    done = toolhost("install", "claude-code", str(DEMO), "--all", "--scope", "user",
                    cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    data = json.loads((home / ".claude.json").read_text())
    assert data["numStartups"] == 3 and "toolhost" in data["mcpServers"]
    assert (home / ".claude.json").stat().st_mode & 0o777 == 0o600

    desk = toolhost("install", "claude-desktop", str(DEMO), "--all", cwd=tmp_path, home=home)
    assert desk.returncode == 0, desk.stderr
    target = (tmp_path / "xdg" / "Claude" / "claude_desktop_config.json"
              if sys.platform.startswith("linux") else None)
    if target is not None:
        entry = json.loads(target.read_text())["mcpServers"]["toolhost"]
        assert "type" not in entry and entry["args"][-2:] == [str(DEMO), "--all"]
    # there was no Claude Desktop directory: "restart Claude Desktop" would send the user
    # looking for a program that is not installed
    assert "Restart Claude Desktop" not in desk.stdout, desk.stdout
    assert "did not exist (created): Claude Desktop is not installed" in desk.stdout
    again = toolhost("install", "claude-desktop", str(DEMO), "--all", "--name", "two",
                     cwd=tmp_path, home=home)
    assert again.returncode == 0 and "Restart Claude Desktop to pick it up." in again.stdout


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ("\n  [1, 2]", ".mcp.json:2:3: expected a JSON object"),  # located, as every
    ('{\n  "a": {"mcpServers": 1},\n  "mcpServers": []\n}',  # other problem of the file
     ".mcp.json:3:3: mcpServers: 'mcpServers' is not an object"),
    ("[" * 50000 + "]" * 50000, "not valid JSON"),
])
def test_bad_client_file_is_left_alone(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".mcp.json").write_text(text)
    done = toolhost("install", "claude-code", str(DEMO), "--all", cwd=tmp_path)
    assert done.returncode == 1 and message in done.stderr
    assert "Traceback" not in done.stderr and ".mcp.json" in done.stderr
    assert (tmp_path / ".mcp.json").read_text() == text
    assert not list(tmp_path.glob(".mcp.json.bak-*"))


def test_a_config_that_does_not_compile_gets_no_entry(tmp_path: Path) -> None:
    config = tmp_path / "broken.yaml"
    config.write_text("toolhost: 1\nservers:\n  calc:\n    tools:\n"
                      "      add: {python: \"toolhost.demo:no_such_function\"}\n")
    done = toolhost("mcp-config", str(config), cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "broken.yaml:5" in done.stderr and "no_such_function" in done.stderr
    installed = toolhost("install", "claude-code", str(config), cwd=tmp_path)
    assert installed.returncode == 1 and not (tmp_path / ".mcp.json").exists()
    unchecked = toolhost("mcp-config", str(config), "--no-check", "--name", "calc", cwd=tmp_path)
    assert unchecked.returncode == 0 and json.loads(unchecked.stdout)["mcpServers"]["calc"]


@pytest.mark.parametrize(("indent", "newline"), [(4, "\n"), ("\t", "\r\n"), (2, "\n")])
def test_a_committed_mcp_json_keeps_its_indentation(tmp_path: Path, indent: int | str,
                                                    newline: str) -> None:
    """The file was rewritten with 2 spaces, raw UTF-8 and \\n: a team's 4-space (or tab,
    CRLF, ASCII-escaped) .mcp.json showed every line changed in review, hiding the entry."""
    original = {"mcpServers": {"other": {"command": "x", "args": ["é"]}}, "zeta": 1}
    text = json.dumps(original, indent=indent).replace("\n", newline) + newline
    (tmp_path / ".mcp.json").write_bytes(text.encode())
    done = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "demo",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = (tmp_path / ".mcp.json").read_bytes().decode()
    data = json.loads(after)
    assert after == json.dumps(data, indent=indent).replace("\n", newline) + newline
    assert list(data["mcpServers"]) == ["other", "demo"] and '"\\u00e9"' in after
    gone = toolhost("install", "claude-code", str(DEMO), "--all", "--name", "demo",
                    "--uninstall", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert (tmp_path / ".mcp.json").read_bytes().decode() == text  # byte for byte
