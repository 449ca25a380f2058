"""A moved pin's lock lists what it changes in the policy, not only the files' diffs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.lockfile.rulediff import MAX_CHANGES

MakeRepo = Callable[..., str]

V1 = """\
permissions:
  default: deny
  ask_mode: deny
  allow: ["Bash(git status)"]
  deny: ["Read(./secrets/**)", WebFetch]
servers:
  team:
    tools:
      add: {python: 'toolhost.demo:add'}
"""

V2 = """\
# the rules moved down a line: the same rules are not listed
permissions:
  default: allow
  ask_mode: deny
  allow: ["Bash(*)"]
  deny: [WebFetch]
servers:
  team:
    tools:
      add: {python: 'toolhost.demo:add'}
      sh: {command: [sh, -c, 'echo hi']}
"""


def _moved(tmp_path: Path, make_repo: MakeRepo, v1: str, v2: str) -> tuple[Path, Path]:
    """A team repository at v1 then v2, a project locked at v1 whose rev is edited to v2."""
    team = tmp_path / "team"
    make_repo(team, {"wide.yaml": v1}, tag="v1")
    make_repo(team, {"wide.yaml": v2}, tag="v2")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    entry = f"toolhost: 1\nextends:\n  - {{repo: {team.as_uri()}, rev: REV, path: wide.yaml}}\n"
    config.write_text(entry.replace("REV", "v1"))
    write_for(str(config))
    config.write_text(entry.replace("REV", "v2"))
    return team, config


def test_a_moved_rev_lists_rules_and_settings_added_removed_and_changed(
        tmp_path: Path, make_repo: MakeRepo) -> None:
    team, config = _moved(tmp_path, make_repo, V1, V2)
    [moved, files] = write_for(str(config))
    head, *under = moved.split("\n")
    assert head.startswith(f"~ repo:{team.as_uri()}: rev v1 -> v2, commit "), head
    assert under == [
        "    rule removed: deny Read(./secrets/**) (wide.yaml)",
        "    tool added: team.sh runs sh -c 'echo hi' (wide.yaml:11)",
        "    rule changed: allow Bash(git status) -> allow Bash(*) (wide.yaml:5)",
        "    setting changed: permissions.default = deny -> allow (wide.yaml:3)",
    ], under
    assert files.startswith(f"~ repo:{team.as_uri()}@v2 wide.yaml: ")  # the diff still follows
    assert "-  default: deny" in files and "+  default: allow" in files


@pytest.mark.parametrize(("v2", "expected"), [
    # only a comment changed: the file's diff, and no policy line
    ("# reviewed\n" + V1, []),
    # two allows replaced by two others: never a guess which became which
    (V1.replace('["Bash(git status)"]', '["Bash(ls)", "Bash(pwd)"]'),
     ["rule removed: allow Bash(git status) (wide.yaml)",
      "rule added: allow Bash(ls) (wide.yaml:4)", "rule added: allow Bash(pwd) (wide.yaml:4)"]),
])
def test_what_a_move_lists_is_what_changed_and_nothing_guessed(
        tmp_path: Path, make_repo: MakeRepo, v2: str, expected: list[str]) -> None:
    _team, config = _moved(tmp_path, make_repo, V1, v2)
    moved = write_for(str(config))[0]
    assert [line.strip() for line in moved.split("\n")[1:]] == expected


def test_a_move_that_changes_many_items_is_cut(tmp_path: Path, make_repo: MakeRepo) -> None:
    many = "".join(f"      t{n}: {{python: 'toolhost.demo:add'}}\n"
                   for n in range(MAX_CHANGES + 5))
    _team, config = _moved(tmp_path, make_repo, "servers: {}\n",
                           f"servers:\n  s:\n    tools:\n{many}")
    under = write_for(str(config))[0].split("\n")[1:]
    assert len(under) == MAX_CHANGES + 1 and under[-1].endswith("5 more policy changes")


def test_a_lock_naming_paths_outside_the_checkout_writes_nothing_there(tmp_path: Path) -> None:
    """The old pin's files come from the lock, which a pull request can edit: a path that
    leads out of the temporary copy is never read nor written."""
    from toolhost.lockfile.rulediff import policy_changes

    outside = tmp_path / "pwn.yaml"
    hostile = {f"{'../' * 12}{outside.relative_to('/')}": "sha256:x", "/etc/passwd": "x",
               ".git/config": "x", "a/../../b.yaml": "x"}
    assert policy_changes(tmp_path, "0" * 40, hostile, {}) == []
    assert not outside.exists()


def test_a_rule_whose_condition_is_widened_is_a_changed_rule(tmp_path: Path,
                                                              make_repo: MakeRepo) -> None:
    """The same pattern with another ``when``: the condition is compared, not `when ...`."""
    rule = 'permissions:\n  allow: [{tool: Read, when: {file_path: {glob: "GLOB"}}}]\n'
    _team, config = _moved(tmp_path, make_repo, rule.replace("GLOB", "./src/**"),
                           rule.replace("GLOB", "/**"))
    assert write_for(str(config))[0].split("\n")[1:] == [
        '    rule changed: allow Read when {"file_path": {"glob": "./src/**"}} -> allow Read '
        'when {"file_path": {"glob": "/**"}} (wide.yaml:2)']


def test_a_secret_in_a_rule_is_never_shown(tmp_path: Path, make_repo: MakeRepo,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_API_TOKEN", "s3cr3t-value-zq")
    rule = 'permissions:\n  allow: [{tool: Read, when: {file_path: "${TEAM_API_TOKEN}X"}}]\n'
    _team, config = _moved(tmp_path, make_repo, rule.replace("X", "a"), rule.replace("X", "b"))
    text = "\n".join(write_for(str(config)))
    assert "rule changed: allow Read when" in text and "s3cr3t-value-zq" not in text, text



def test_a_file_that_does_not_load_at_one_end_is_said_not_listed_as_all_new(
        tmp_path: Path, make_repo: MakeRepo) -> None:
    """The old commit's file does not load alone: its rules are not "added" at the new one."""
    from toolhost.lockfile.rulediff import policy_changes

    team = tmp_path / "team"
    old = make_repo(team, {"wide.yaml": "permissions: [\n"})
    make_repo(team, {"wide.yaml": V1})
    assert policy_changes(team, old, {"wide.yaml": "sha256:a"}, {"wide.yaml": "sha256:b"}) == [
        f"(wide.yaml at {old[:12]} does not load as a fragment: its diff below)"]
