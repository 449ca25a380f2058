"""A first lock of a source lists what its files bring: rules, settings, servers, tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.lockfile.contents import MAX_BROUGHT

MakeRepo = Callable[..., str]

WIDE = """\
permissions:
  default: allow
  ask_mode: allow
  allow: ["Bash(*)"]
  deny: ["Read(./secrets/**)"]
servers:
  team:
    tools:
      add: {python: 'toolhost.demo:add'}
      sh: {command: [sh, -c, "echo hi \\x1b]52;c;aGk=\\x07"]}
  ext:
    external: {command: npx, args: [-y, some-server]}
"""


def _project(tmp_path: Path, repo: Path, own: str = "") -> Path:
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {repo.as_uri()}, rev: v1, "
                      f"path: wide.yaml}}\n{own}")
    return config


def test_a_first_lock_lists_what_the_repository_brings(tmp_path: Path,
                                                       make_repo: MakeRepo) -> None:
    team = tmp_path / "team"
    make_repo(team, {"wide.yaml": WIDE}, tag="v1")
    # the project's own rule and its own ask_mode are not the repository's
    config = _project(tmp_path, team, "permissions:\n  ask_mode: deny\n  deny: [WebFetch]\n")
    [line] = write_for(str(config))
    head, *under = line.split("\n")
    assert head.startswith(f"+ repo:{team.as_uri()}@v1 ") and head.endswith("(1 file(s))")
    assert under == [
        "    rule: allow Bash(*) (wide.yaml:4)",
        "    rule: deny Read(./secrets/**) (wide.yaml:5)",
        "    setting: permissions.default = allow (wide.yaml:2)",
        "    tool: team.add calls toolhost.demo:add (wide.yaml:9)",
        "    tool: team.sh runs sh -c 'echo hi \\x1b]52;c;aGk=\\x07' (wide.yaml:10)",
        "    server: ext runs npx -y some-server (wide.yaml:11)",
    ], under
    assert write_for(str(config)) == []  # locked: nothing new, nothing listed


def test_what_a_source_brings_is_cut_for_the_terminal(tmp_path: Path,
                                                      make_repo: MakeRepo) -> None:
    many = "".join(f"      t{n}: {{python: 'toolhost.demo:add'}}\n"
                   for n in range(MAX_BROUGHT + 20))
    team = tmp_path / "team"
    make_repo(team, {"wide.yaml": f"servers:\n  s:\n    tools:\n{many}"}, tag="v1")
    [line] = write_for(str(_project(tmp_path, team)))
    under = line.split("\n")[1:]
    assert len(under) == MAX_BROUGHT + 1 and under[-1].endswith("(the source's files hold "
                                                                "the rest)"), under[-3:]


def test_a_secret_in_what_a_source_brings_is_never_shown(
        tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_API_TOKEN", "s3cr3t-value-zq")
    team = tmp_path / "team"
    make_repo(team, {"wide.yaml": "servers:\n  s:\n    tools:\n      get: {command: [curl, -H, "
                                  "'${TEAM_API_TOKEN}', 'https://x.example']}\n"}, tag="v1")
    [line] = write_for(str(_project(tmp_path, team)))
    assert "tool: s.get runs curl -H *** https://x.example" in line, line
    assert "s3cr3t-value-zq" not in line


@pytest.mark.parametrize("before", [105, 112])
def test_a_secret_a_long_line_cuts_is_hidden_before_the_cut(
        tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
        before: int) -> None:
    # the argv is cut at 120 characters: cut first, the secret's head stood alone
    secret = "Zq7sk-live-4f9a8b7c6d5e4f3a2b1c"
    monkeypatch.setenv("TEAM_API_TOKEN", secret)
    team = tmp_path / "team"
    pad = "p" * (before - len("echo "))
    make_repo(team, {"wide.yaml": "servers:\n  s:\n    tools:\n      get: {command: [echo, "
                                  f"{pad}, '${{TEAM_API_TOKEN}}', tail]}}\n"}, tag="v1")
    [line] = write_for(str(_project(tmp_path, team)))
    said = line.replace(str(tmp_path), "")
    assert "tool: s.get runs echo ppp" in said and "***" in said, said
    assert secret[:8] not in said, said
