"""``extends`` that points somewhere hostile: a symlink loop or an over-long name inside a git
repository or a package, an unusable cache directory, a chain hundreds of files long. Each is
one located line from a real ``toolhost validate``, exit 1, never an internal error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli

LONG = "a" * 300


def _validate(config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    cache = os.environ.get("TOOLHOST_CACHE", str(config.parent / "cache"))
    return run_cli(["validate", "--no-compile", str(config)], cwd=config.parent,
                   env={"XDG_CONFIG_HOME": str(config.parent / "xdg"),
                        "TOOLHOST_CACHE": cache, **env})


def _one_located_line(proc: subprocess.CompletedProcess[str], config: Path,
                      line: int = 3) -> str:
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{config.name}:{line}:") or \
        lines[0].startswith(f"{config}:{line}:"), lines[0]
    assert len(lines[0]) < 500
    return lines[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A tagged repository holding a symlink loop."""
    path = tmp_path / "repo"
    path.mkdir()
    (path / "toolhost.yaml").write_text("servers: {}\n")
    (path / "loop.yaml").symlink_to("loop.yaml")
    (path / "a.yaml").symlink_to("b.yaml")
    (path / "b.yaml").symlink_to("a.yaml")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    return path


@pytest.mark.parametrize(("target", "reason"), [("loop.yaml", "symbolic links"),
                                                ("a.yaml", "symbolic links"),
                                                (f"{LONG}.yaml", "File name too long"),
                                                (f"sub/{LONG}/x.yaml", "has no file")])
def test_a_git_path_that_cannot_be_stat_is_located(tmp_path: Path, repo: Path, target: str,
                                                   reason: str) -> None:
    config = tmp_path / "g1.yaml"
    config.write_text(f'toolhost: 1\nextends:\n  - {{repo: ./repo, rev: v1, path: "{target}"}}\n')
    line = _one_located_line(_validate(config), config)
    assert "extends[0]:" in line and reason in line, line


@pytest.mark.parametrize("target", [f"pkg:toolhost-files/{LONG}.yaml",
                                    f"pkg:toolhost-files/{LONG}/x.yaml"])
def test_a_package_path_that_cannot_be_stat_is_located(tmp_path: Path, target: str) -> None:
    config = tmp_path / "p.yaml"
    config.write_text(f'toolhost: 1\nextends: ["{target}"]\n')
    line = _one_located_line(_validate(config), config, line=2)
    assert "File name too long" in line, line


@pytest.mark.parametrize("cache", ["/dev/null", "/proc/1/x", "FILE"])
def test_an_unusable_cache_directory_is_located(tmp_path: Path, repo: Path, cache: str) -> None:
    config = tmp_path / "g2.yaml"
    config.write_text("toolhost: 1\nextends:\n  - {repo: ./repo, rev: v1}\n")
    if cache == "FILE":
        cache = str(config)
    line = _one_located_line(_validate(config, TOOLHOST_CACHE=cache), config)
    assert "cannot use the cache directory" in line and "TOOLHOST_CACHE" in line, line


def _chain(tmp_path: Path, links: int) -> Path:
    for i in range(links):
        (tmp_path / f"c{i}.yaml").write_text(f"extends: [c{i + 1}.yaml]\n")
    (tmp_path / f"c{links}.yaml").write_text("servers: {}\n")
    config = tmp_path / "chain.yaml"
    config.write_text("toolhost: 1\nextends: [c0.yaml]\n")
    return config


@pytest.mark.parametrize("env", [{}, {"TOOLHOST_MAX_EXTENDS_CHAIN": "100000"}])
def test_a_chain_hundreds_of_files_long_is_one_located_line(tmp_path: Path,
                                                            env: dict[str, str]) -> None:
    config = _chain(tmp_path, 500)
    proc = _validate(config, **env)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    if env:  # an override past the ceiling is said so (once), and the ceiling used
        assert lines.pop(0) == ("toolhost: WARNING: TOOLHOST_MAX_EXTENDS_CHAIN='100000': it "
                                "is above the most it can be; using 200")
    assert len(lines) == 1 and "extends chain of more than" in lines[0], lines
    assert "chain.yaml -> " in lines[0] and "c0.yaml -> ... (" in lines[0]
    assert "TOOLHOST_MAX_EXTENDS_CHAIN" in lines[0] and len(lines[0]) < 600
    limit = 200 if env else 50  # the override is capped: the loader recurses per link
    assert lines[0].startswith(f"{tmp_path}/c{limit - 2}.yaml:1:11: extends[0]: extends "
                               f"chain of more than {limit} files"), lines[0]


def test_a_chain_within_the_limit_loads_and_the_limit_can_be_raised(tmp_path: Path) -> None:
    config = _chain(tmp_path, 60)
    assert _validate(config).returncode == 1
    proc = _validate(config, TOOLHOST_MAX_EXTENDS_CHAIN="80")
    assert proc.returncode == 0, proc.stderr


def _huge(path: Path) -> None:
    with path.open("wb") as f:  # sparse: 2 GiB that take no disk
        f.truncate(2 * 1024 ** 3)


def _proc_mem(path: Path) -> None:
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc/self/mem here")
    path.symlink_to("/proc/self/mem")


def _unreadable(path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path.write_text("toolhost: 1\n")
    path.chmod(0)


def _utf16(path: Path) -> None:
    path.write_bytes("toolhost: 1\n".encode("utf-16"))


def _bad_byte(path: Path) -> None:
    path.write_bytes(b"toolhost: 1\nservers:\n  s: \xff\n")


def _bad_deep_byte(path: Path) -> None:  # the key path inside the fragment is named too
    path.write_bytes(b"toolhost: 1\nservers:\n  s:\n    tools: {t: {command: [echo, \"\xfe\"]}}\n")


@pytest.mark.parametrize(("make", "said"), [
    (_huge, "extends: frag.yaml: config file too large (2,147,483,648 bytes"),
    (_proc_mem, "extends: frag.yaml: cannot read: "),
    (_unreadable, "extends: frag.yaml: cannot read: Permission denied"),
    (_utf16, "extends: frag.yaml:1:1: not UTF-8 text: this is UTF-16"),
    (_bad_byte, "extends: frag.yaml:3:6: servers.s: not UTF-8 text (byte 0xff)"),
    (_bad_deep_byte, "extends: frag.yaml:4:34: servers.s.tools.t.command[1]: not UTF-8 "
                     "text (byte 0xfe)"),
], ids=["2GB", "proc-self-mem", "unreadable", "utf16", "bad-byte", "bad-deep-byte"])
def test_a_fragment_that_cannot_be_read_is_located_at_the_entry_naming_it(
        tmp_path: Path, make: Any, said: str) -> None:
    """The fragment's own refusal names the fragment *and* the `extends[i]` line that pulled
    it in (it named only the fragment: which of a team's files brought it was a search)."""
    make(tmp_path / "frag.yaml")
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\n\nextends:\n  - ./ok.yaml\n  - frag.yaml\n")
    (tmp_path / "ok.yaml").write_text("toolhost: 1\n")
    line = _one_located_line(_validate(config), config, line=5).replace(f"{tmp_path}/", "")
    assert line.startswith(f"{config.name}:5:5: extends[1]: {said}"), line


def test_a_nested_fragment_is_located_at_the_fragment_that_named_it(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    _huge(tmp_path / "team" / "big.toml")
    (tmp_path / "team" / "base.toml").write_text('toolhost = 1\nextends = ["big.toml"]\n')
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nextends: [team/base.toml]\n")
    proc = _validate(config)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().replace(f"{tmp_path}/", "") == (
        "team/base.toml:2:12: extends[0]: extends: team/big.toml: config file too large "
        "(2,147,483,648 bytes, the limit is 16,777,216) (raise it with "
        "TOOLHOST_MAX_CONFIG_BYTES if the file is meant to be this big)"), proc.stderr


def test_a_full_cache_file_system_says_so_not_check_the_url(tmp_path: Path, repo: Path) -> None:
    """git's "No space left on device" on the first fetch: the hint sent the user to the
    URL, the network and the credentials."""
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"  # git itself, but a fetch fails as on a full disk
    fake.write_text("#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = fetch ]; then echo 'fatal: "
                    "unable to write loose object file: No space left on device' >&2; "
                    f"exit 128; fi; done\nexec {shutil.which('git')} \"$@\"\n")
    fake.chmod(0o755)
    config = tmp_path / "g3.yaml"
    config.write_text("toolhost: 1\nextends:\n  - {repo: ./repo, rev: v1}\n")
    line = _one_located_line(_validate(config, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
                             config)
    assert "No space left on device" in line and "is full: free space there" in line, line
    assert "credentials" not in line, line


@pytest.mark.parametrize(("url", "shown"), [
    ("../shared", "file://{root}/shared"),  # relative to the superproject, as git joins it
    ("https://git.example.com/team/shared.git", "https://git.example.com/team/shared.git")])
def test_a_file_in_a_submodule_is_named_as_such_not_sent_to_commit_it(
        tmp_path: Path, url: str, shown: str) -> None:
    """A path under a git submodule: the clone holds an empty directory there. The hint said
    the file "is in the working tree ... but not in the commit: commit it, tag it"."""
    top = tmp_path / "top"
    top.mkdir()
    (top / ".gitmodules").write_text(f'[submodule "sub"]\n\tpath = sub\n\turl = {url}\n')
    (top / "sub").mkdir()
    (top / "sub" / "x.yaml").write_text("toolhost: 1\n")  # a local checkout's submodule
    sha = "5683484c25bc" + "0" * 28
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for args in (["init", "-q"], ["add", ".gitmodules"],
                 ["update-index", "--add", "--cacheinfo", f"160000,{sha},sub"],
                 ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=top, check=True, capture_output=True)
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nextends:\n  - {repo: ./top, rev: v1, path: sub/x.yaml}\n")
    line = _one_located_line(_validate(config), config)
    where = shown.format(root=tmp_path)
    assert ("has no file 'sub/x.yaml': 'sub' is a git submodule (commit 5683484c25bc of "
            "another repository), whose files toolhost does not fetch") in line, line
    assert f"pin that repository itself: {{repo: {where}, rev: ITS_TAG, path: x.yaml}}" \
        in line, line
    assert "commit it" not in line, line


def test_a_cycle_across_two_repositories_names_each_file_by_repository_and_rev(
        tmp_path: Path) -> None:
    """team@v2's base.yaml extends r2@v1's f.yaml, which extends team@v2's base.yaml: the
    cycle reads as files of repositories at revs, not as hashed cache directories."""
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for name, other, rev, file in (("team", "r2", "v1", "f.yaml"),
                                   ("r2", "team", "v2", "base.yaml")):
        path = tmp_path / name
        path.mkdir()
        mine = "base.yaml" if name == "team" else "f.yaml"
        (path / mine).write_text(f"toolhost: 1\nextends:\n  - repo: ../{other}\n"
                                 f"    rev: {rev}\n    path: {file}\n")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"],
                     ["tag", "v2" if name == "team" else "v1"]):
            subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n  - repo: ../team\n    rev: v2\n"
                      "    path: base.yaml\n")
    proc = _validate(config)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    team, r2 = (tmp_path / "team").as_uri(), (tmp_path / "r2").as_uri()
    assert (f"extends cycle: base.yaml of {team} at v2 -> f.yaml of {r2} at v1 -> "
            f"base.yaml of {team} at v2") in lines[0], lines[0]


def test_a_too_large_fragment_of_a_repository_is_named_by_repository_and_rev(
        tmp_path: Path) -> None:
    """It was named by its hashed cache path, which says neither which repository nor rev."""
    path = tmp_path / "team"
    path.mkdir()
    (path / "big.yaml").write_text("#" * 5000 + "\n")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n  - repo: ../team\n    rev: v1\n"
                      "    path: big.yaml\n")
    line = _one_located_line(_validate(config, TOOLHOST_MAX_CONFIG_BYTES="1000"), config)
    assert f"extends: big.yaml of {path.as_uri()} at v1: config file too large (5,001 " \
        "bytes" in line, line


def test_a_rule_warning_of_a_repository_fragment_names_the_repository_once(
        tmp_path: Path) -> None:
    """A shared fragment widening the rules was warned about at its hashed cache path only:
    the reviewer could not tell which repository or rev it came from."""
    path = tmp_path / "team"
    path.mkdir()
    (path / "wide.yaml").write_text('toolhost: 1\npermissions:\n  allow: ["Bash(*)"]\n')
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n  - repo: ../team\n    rev: v1\n"
                      "    path: wide.yaml\n")
    proc = _validate(config)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if "broad-allow" in x]
    assert line.count(f"wide.yaml of {path.as_uri()} at v1") == 1, line
