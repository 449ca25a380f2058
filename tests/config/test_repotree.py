"""A cached team repository runs only as its locked commit, and only from inside itself.

Real git repositories, a real cache, and real ``toolhost`` processes: a checkout edited in the
cache in any way (module, new or ignored file, staged, hidden from ``git status``, planted
bytecode, another HEAD) is cloned again before anything of it is used; a path a repository's
file names (``extends``, a python ``path:``, a ``cwd``) may not lead out of the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.config.gitrepos import fetch_repo
from toolhost.config.repotree import dirt
from toolhost.errors import ConfigError

from ..plugins.conftest import _make_repo, git

BASE = ("servers:\n  py:\n    tools:\n      hello:\n        python: {function: 'teamtools:hello'}\n"
        "permissions:\n  allow: [mcp__py__hello]\n")
MODULE = 'def hello(name: str) -> str:\n    """Say hello."""\n    return f"hello {name}"\n'
EVIL = 'def hello(name: str) -> str:\n    """Say hello."""\n    return "PWNED"\n'


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user layer


def toolhost(*args: str, cwd: Path, bytecode: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" or not bytecode}
    return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120, env=env)


def team(tmp_path: Path, files: dict[str, str] | None = None, path: str = "base.yaml",
         ) -> tuple[Path, Path]:
    """A team repository (tag v1) and a project extending ``path`` of it."""
    origin = tmp_path / "origin"
    _make_repo(origin, files or {"base.yaml": BASE, "teamtools.py": MODULE,
                                 ".gitignore": "*.local\n", "data/notes.txt": "notes\n"},
               tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      f"path: {path}}}\n")
    return origin, config


def cached(tmp_path: Path) -> Path:
    (meta,) = (tmp_path / "cache" / "repos").glob("*/.toolhost-checkout.json")
    return meta.parent


def _edit(d: Path) -> None:
    d.joinpath("teamtools.py").write_text(EVIL)


def _new_module(d: Path) -> None:  # shadows a module the tool imports, say
    d.joinpath("helpers.py").write_text("import os\n")


def _ignored(d: Path) -> None:
    d.joinpath("secret.local").write_text("x\n")


def _deleted(d: Path) -> None:
    d.joinpath("data", "notes.txt").unlink()


def _data(d: Path) -> None:
    d.joinpath("data", "notes.txt").write_text("other\n")


def _mode(d: Path) -> None:
    d.joinpath("teamtools.py").chmod(0o755)


def _symlink(d: Path) -> None:
    d.joinpath("data", "notes.txt").unlink()
    d.joinpath("data", "notes.txt").symlink_to("/etc/hostname")


def _staged(d: Path) -> None:
    _edit(d)
    git(d, "add", "teamtools.py")


def _assume_unchanged(d: Path) -> None:
    _edit(d)
    git(d, "update-index", "--assume-unchanged", "teamtools.py")


def _skip_worktree(d: Path) -> None:
    _edit(d)
    git(d, "update-index", "--skip-worktree", "teamtools.py")


def _committed(d: Path) -> None:
    _edit(d)
    git(d, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-qam", "evil")


def _pyc(d: Path) -> None:  # bytecode that would run instead of the (unchanged) source
    d.joinpath("__pycache__").mkdir()
    d.joinpath("__pycache__", f"teamtools.{sys.implementation.cache_tag}.pyc").write_bytes(
        b"planted")


TAMPERING = [_edit, _new_module, _ignored, _deleted, _data, _mode, _symlink, _staged,
             _assume_unchanged, _skip_worktree, _committed, _pyc]


@pytest.mark.parametrize("tamper", TAMPERING, ids=lambda f: f.__name__.strip("_"))
def test_any_edit_of_a_cached_checkout_is_fetched_again(
        tmp_path: Path, tamper: Callable[[Path], None], caplog: pytest.LogCaptureFixture) -> None:
    _, config = team(tmp_path)
    load_config(config)
    checkout = cached(tmp_path)
    tamper(checkout)
    load_config(config)
    meta = fetch_repo(*_url_rev(config))
    assert dirt(meta) == []  # exactly the commit again
    assert checkout.joinpath("teamtools.py").read_text() == MODULE
    if tamper is not _pyc:  # bytecode is derived: deleted without a word
        assert "was modified on disk" in caplog.text


def _url_rev(config: Path) -> tuple[str, str]:
    origin = config.parent.parent / "origin"
    return origin.as_uri(), "v1"


def test_edited_module_never_runs_and_lock_check_heals(tmp_path: Path) -> None:
    _, config = team(tmp_path)
    assert toolhost("lock", str(config), cwd=tmp_path).returncode == 0
    assert toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path).stdout == "hello x\n"
    _edit(cached(tmp_path))
    done = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path)
    assert done.stdout == "hello x\n" and "PWNED" not in done.stdout
    # the diff is shown a line each, indented under the warning (it was one line of "\\n"s)
    assert "modified on disk" in done.stderr
    assert "\n    -    return f\"hello {name}\"" in done.stderr
    _edit(cached(tmp_path))
    checked = toolhost("lock", "--check", str(config), cwd=tmp_path)
    assert checked.returncode == 0 and "modified on disk" in checked.stderr
    assert cached(tmp_path).joinpath("teamtools.py").read_text() == MODULE


def test_edited_checkout_with_origin_gone_is_one_located_line(tmp_path: Path) -> None:
    origin, config = team(tmp_path)
    assert toolhost("validate", str(config), cwd=tmp_path).returncode == 0
    _edit(cached(tmp_path))
    origin.rename(tmp_path / "away")
    done = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "internal error" not in done.stderr and "PWNED" not in done.stdout
    errors = [line for line in done.stderr.splitlines() if "toolhost.yaml:3:5" in line]
    assert errors and "extends[0]" in errors[-1] and "cannot be fetched again" in errors[-1]
    assert "'M teamtools.py'" in errors[-1] and str(cached(tmp_path)) in errors[-1]
    # the modified copy was kept (unused), and heals once the repository is back
    assert cached(tmp_path).joinpath("teamtools.py").read_text() == EVIL
    (tmp_path / "away").rename(origin)
    again = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path)
    assert again.stdout == "hello x\n", again.stderr


def test_bytecode_written_by_a_run_is_not_an_edit(tmp_path: Path) -> None:
    _, config = team(tmp_path)
    for _ in range(2):
        done = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path, bytecode=True)
        assert done.stdout == "hello x\n" and "modified on disk" not in done.stderr, done.stderr


# -- paths named inside a checkout stay inside it ------------------------------------------


def _outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir(exist_ok=True)
    out.joinpath("common.yaml").write_text(
        "servers:\n  sh:\n    tools:\n      date:\n        command: [sh, -c, id]\n")
    return out


ESCAPES: dict[str, Callable[[Path], dict[str, str]]] = {
    "symlink": lambda out: {"frag.yaml": "extends: [./common.yaml]\n"},
    "dotdot": lambda out: {"frag.yaml": "extends: [../../../outside/common.yaml]\n"},
    "absolute": lambda out: {"frag.yaml": f"extends: [{out / 'common.yaml'}]\n"},
    "linked-dir": lambda out: {"frag.yaml": "extends: [./sub/common.yaml]\n"},
    "nested": lambda out: {"frag.yaml": "extends: [./inner.yaml]\n",
                           "inner.yaml": "extends: [./common.yaml]\n"},
    "python-path": lambda out: {"frag.yaml": "servers:\n  p:\n    tools:\n      t:\n"
                                "        python: {function: 'm:f', path: ../../../outside}\n"},
    "tool-cwd": lambda out: {"frag.yaml": "servers:\n  s:\n    tools:\n      t:\n"
                             "        command: {argv: [ls], cwd: ./sub}\n"},
    "server-cwd": lambda out: {"frag.yaml": "servers:\n  s:\n    cwd: ../../../outside\n"
                               "    tools:\n      t: {command: [ls]}\n"},
}


@pytest.mark.parametrize("kind", sorted(ESCAPES))
def test_a_repository_file_names_nothing_outside_its_checkout(tmp_path: Path,
                                                             kind: str) -> None:
    out = _outside(tmp_path)
    origin = tmp_path / "origin"
    _make_repo(origin, {})
    if kind in ("symlink", "nested"):
        origin.joinpath("common.yaml").symlink_to(out / "common.yaml")
    if kind in ("linked-dir", "tool-cwd"):
        origin.joinpath("sub").symlink_to(out)
    _make_repo(origin, ESCAPES[kind](out), tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: frag.yaml}\n")
    compiled = kind in ("python-path", "tool-cwd")  # checked when the tool is bound
    for args in (("validate", str(config)), ("call", str(config), "sh.date"),
                 *(() if compiled else (("lock", str(config)),))):
        done = toolhost(*args, cwd=tmp_path)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "uid=" not in done.stdout and "Traceback" not in done.stderr
        assert "internal error" not in done.stderr
        assert "out of" in done.stderr, done.stderr
        # a symlink of the commit is refused with the checkout (at the extends entry), a
        # path a file names where that file names it
        assert any(f in done.stderr for f in ("frag.yaml:", "inner.yaml:",
                                               "toolhost.yaml:3:5")), done.stderr
    assert not config.with_suffix(".lock").exists()


def test_extends_inside_the_repository_still_work_and_are_locked(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    _make_repo(origin, {})
    origin.joinpath("common.yaml").symlink_to("shared/common.yaml")  # a link inside is fine
    _make_repo(origin, {"frag.yaml": "extends: [./common.yaml]\n",
                        "shared/common.yaml": "servers:\n  sh:\n    tools:\n      date:\n"
                                              "        command: {argv: [date], cwd: .}\n"},
               tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: frag.yaml}\n")
    done = toolhost("lock", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "shared/common.yaml" in config.with_suffix(".lock").read_text()
    assert "date" in load_config(config).servers["sh"].tools


def test_guard_refuses_a_file_a_source_names_outside_it(tmp_path: Path) -> None:
    from toolhost.config.model import Origin
    from toolhost.lockfile import LockGuard, Pulled

    root = tmp_path / "root"
    root.mkdir()
    (root / "frag.yaml").write_text("{}\n")
    (tmp_path / "elsewhere.yaml").write_text("{}\n")
    guard = LockGuard(None, tmp_path / "toolhost.lock")
    here = Origin(str(root / "frag.yaml"), 1, 1, "extends[0]")
    guard.sources["repo:x@v1"] = Pulled("repo:x@v1", "0" * 40, root, here)
    with pytest.raises(ConfigError, match="outside repo:x@v1"):
        guard.pulled("path", "../elsewhere.yaml", here, tmp_path / "elsewhere.yaml")
    assert guard.pulled("path", "./frag.yaml", here, root / "frag.yaml") == root / "frag.yaml"


@pytest.mark.parametrize("path", [".git/config", ".toolhost-checkout.json",
                                  "data/../.git/HEAD", ".GIT/config"])
def test_an_extends_path_into_the_caches_own_files_is_refused(tmp_path: Path,
                                                              path: str) -> None:
    """The checkout's .git and toolhost's record are the cache's, no file of the commit:
    `path: .git/config` was read (and only its format refused it)."""
    _, config = team(tmp_path, path=json.dumps(path))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (3, "extends[0]")
    assert problem.message == f"path {path!r} must be relative and inside the repository"
    assert "the checkout's .git and .toolhost-checkout.json are the cache's" in problem.hint


@pytest.mark.parametrize("value", [".git", "data/../.git/hooks", ".GIT"])
def test_a_path_a_repository_file_names_into_its_git_is_refused(tmp_path: Path,
                                                                value: str) -> None:
    """What a checkout's .git holds is the cache's (fetched refs, toolhost's config), never
    pinned or reviewed: a tool run there (or writing there) is no tool of the commit."""
    base = (f"servers:\n  sh:\n    cwd: {json.dumps(value)}\n    tools:\n"
            "      ls: {command: [ls], description: List.}\n")
    _, config = team(tmp_path, {"base.yaml": base})
    with pytest.raises(ConfigError) as info:
        load_config(config)
    (problem,) = info.value.problems
    assert problem.key_path == "servers.sh.cwd", problem
    assert f"{value!r} leads out of the repository checked out in" in problem.message


def test_a_cached_checkout_without_git_on_path_says_git_is_missing_not_modified(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new team member's machine without git: the cache (fetched before, or copied) cannot
    be checked, which is said as such, not as a checkout modified on disk."""
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    team = tmp_path / "team"
    _make_repo(team, {"base.yaml": "permissions:\n  allow: [Read]\n"}, tag="v1")
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {team.as_uri()}, rev: v1, "
                      "path: base.yaml}\n")
    load_config(config, layers=False)  # cached, with git
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    [problem] = info.value.problems
    assert problem.message.startswith(f"cannot check the cached checkout of {team.as_uri()} "
                                      "at v1 against commit "), problem.message
    assert problem.message.endswith(": git is not installed")
    assert "install git" in problem.hint


def test_a_python_path_leading_out_of_the_checkout_names_its_key(tmp_path: Path) -> None:
    """The problem's key path is `...python.path` (it read `...pythonpath`)."""
    from toolhost.commands._configs import compile_config

    base = ("servers:\n  t:\n    tools:\n"
            "      x: {python: {function: 'teamtools:f', path: ../..}}\n")
    _, config = team(tmp_path, {"base.yaml": base, "teamtools.py": MODULE})
    loaded = load_config(config)
    with pytest.raises(ConfigError) as info:
        compile_config(loaded)
    (problem,) = info.value.problems
    assert problem.key_path == "servers.t.tools.x.python.path", problem
    assert "'../..' leads out of the repository checked out in" in problem.message
