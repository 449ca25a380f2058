"""Round 10: a path tool's input may spell a path a tool reads another way: ``$HOME/.ssh/x``
or ``${HOME}`` (expanded by a tool that expands variables), blanks around it, a ``file://``
URL. A deny or ask rule meets every such spelling and an allow rule must prove each (fail
closed); plain paths are decided as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


@pytest.fixture()
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, str]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".ssh").mkdir(parents=True)
    (proj / "src").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("KEYS", str(home / ".ssh"))
    pol = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="Read(~/.ssh/**)"),
        RuleConfig(effect="deny", tool="Edit(~/.ssh)"),
        RuleConfig(effect="allow", tool="Read(./**)"),
        RuleConfig(effect="allow", tool="Edit(./**)")), default="ask"), cwd=str(proj))
    return pol, str(home)


@pytest.mark.parametrize(("tool", "path", "want"), [
    ("Read", "$HOME/.ssh/id_rsa", "deny"), ("Read", "${HOME}/.ssh/id_rsa", "deny"),
    ("Read", "$KEYS/id_rsa", "deny"), ("Edit", "$HOME/.ssh/authorized_keys", "deny"),
    ("Write", "${HOME}/.ssh/config", "deny"), ("Read", "file://{home}/.ssh/id_rsa", "deny"),
    ("Read", "FILE://{home}/.ssh/id_rsa", "deny"), ("Read", " {home}/.ssh/id_rsa", "deny"),
    ("Read", "{home}/.ssh/id_rsa\n", "deny"), ("Edit", "\t{home}/.ssh/x", "deny"),
    ("Read", "$HOME/notes.txt", "ask"),  # outside ./**: the allow cannot prove it
    # plain paths as before
    ("Read", "src/a.py", "allow"), ("Read", "src/$unset_var_x.py", "allow"),
    ("Read", "{home}/.ssh/id_rsa", "deny"), ("Read", "~/.ssh/id_rsa", "deny"),
    # round 14: a Windows separator (`\` is `/` to a tool on Windows): deny and ask meet
    # it, an allow must prove the path it stands for too
    ("Read", "{home}\\.ssh\\id_rsa", "deny"), ("Read", "~\\.ssh\\id_rsa", "deny"),
    ("Read", "{home}/.ssh\\id_rsa", "deny"), ("Edit", "{home}\\.ssh", "deny"),
    ("Read", "$HOME\\.ssh\\id_rsa", "deny"), ("Read", "src\\..\\..\\home\\x", "ask"),
    ("Read", "src\\a.py", "allow"),
    # round 18: a file URL naming a host (it may be this machine: curl reads
    # file://127.0.0.1/x as /x) and a plain path with percent-escapes (a tool taking a URI
    # path decodes them) meet the deny too; an allow must prove the decoded path
    ("Read", "file://127.0.0.1{home}/.ssh/id_rsa", "deny"),
    ("Read", "file://host.example{home}/.ssh/id_rsa", "deny"),
    ("Read", "{home}/.ssh%2fid_rsa", "deny"), ("Read", "%7E/.ssh/id_rsa", "deny"),
    ("Read", "{home}%2F.ssh%2Fid_rsa", "deny"), ("Read", "src/%2e%2e/%2e%2e/x", "ask"),
    ("Read", "src/100%25.md", "allow"), ("Read", "src/50%.md", "allow"),
])
def test_each_spelling_meets_the_rules(layout: tuple[object, str], tool: str, path: str,
                                       want: str) -> None:
    pol, home = layout
    key = "file_path"
    got = pol.decide(tool, {key: path.replace("{home}", home)}).behavior  # type: ignore[attr-defined]
    assert got == want


@pytest.mark.parametrize("path", ["/etc%2fpasswd", "%2Fetc%2Fpasswd", "/%65tc/passwd",
                                  "file://127.0.0.1/etc/passwd", "file://[::1]/etc/passwd"])
def test_a_when_path_condition_meets_the_decoded_path_of_an_mcp_argument(path: str) -> None:
    """Round 18: an MCP tool's path argument under ``path_under``: the decoded spellings."""
    pol = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="mcp__fs__read", when={"path": {"path_under": "/etc"}}),
        RuleConfig(effect="allow", tool="mcp__fs__read")), default="ask"), cwd="/tmp")
    assert pol.decide("mcp__fs__read", {"path": path}).behavior == "deny"
    assert pol.decide("mcp__fs__read", {"path": "/tmp/x%20y"}).behavior == "allow"


# (round 22) /proc/self, /dev/fd lead where the reading process is (its cwd, root, open
# files): resolved by toolhost they lead where toolhost is. Not judged: a deny or ask rule
# meets them, an allow rule does not prove them; so does a symlink leading there.
@pytest.mark.parametrize("path", [
    "/proc/self/cwd/secrets/k", "/proc/thread-self/cwd/secrets/k", "/dev/fd/../cwd/secrets/k",
    "/proc/self/root{proj}/secrets/k", "{proj}/l/secrets/k", "{proj}/l2/secrets/k",
    "/proc/{pid}/cwd/secrets/k",
])
def test_a_path_through_the_reading_process_is_not_judged(
        tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    (proj / "secrets").mkdir(parents=True)
    elsewhere.mkdir()
    (proj / "l").symlink_to("/proc/self/cwd")
    (proj / "l2").symlink_to(proj / "l")
    path = path.format(proj=proj, pid=os.getpid())
    guarded = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="Read(./secrets/**)"),
        RuleConfig(effect="allow", tool="Read")), default="ask"), cwd=str(proj))
    proven = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="allow", tool="Read(//**)"),), default="ask"), cwd=str(proj))
    monkeypatch.chdir(elsewhere)  # (toolhost runs elsewhere than the session)
    assert guarded.decide("Read", {"file_path": path}).behavior == "deny"
    assert proven.decide("Read", {"file_path": path}).behavior == "ask"
    assert proven.decide("Read", {"file_path": str(proj / "a.py")}).behavior == "allow"


# (round 22) Windows drops a name's trailing dots and blanks and reads NAME::$DATA or
# NAME:stream as NAME: a deny or ask rule meets those spellings, an allow must prove them
@pytest.mark.parametrize("name,want", [
    (".env.", "deny"), (".env::$DATA", "deny"), (".env:x", "deny"), (".env .", "deny"),
    ("secrets./k", "deny"), ("secrets ./k", "deny"), ("src/a.py", "allow"), ("a.b", "allow"),
    ("x...y", "allow"),
])
def test_a_windows_spelling_of_a_denied_name_is_met(tmp_path: Path, name: str,
                                                    want: str) -> None:
    pol = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool="Read(./.env)"),
        RuleConfig(effect="deny", tool="Read(./secrets/**)"),
        RuleConfig(effect="allow", tool="Read(./**)")), default="ask"), cwd=str(tmp_path))
    assert pol.decide("Read", {"file_path": str(tmp_path / name)}).behavior == want
