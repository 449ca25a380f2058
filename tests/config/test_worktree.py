"""A cached checkout is compared with its commit without trusting its ``.git``.

Each tampering below edits the team module *and* hides the edit from git (replace refs,
alternates, a lying object, attribute filters, hooks, ``GIT_*`` variables ...): the edit is
still found, no command the cache planted runs, and the module that runs is the commit's.
Symlinks of the commit that lead out of the checkout refuse it; files a tool adds are removed
without the network; a modified checkout is never thrown away before a fresh copy is in place.
"""

from __future__ import annotations

import os
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.config import load_config
from toolhost.config.gitrepos import fetch_repo
from toolhost.config.repotree import dirt
from toolhost.errors import ConfigError

from ..plugins.conftest import _make_repo, git
from .test_removetree import nest
from .test_repotree import EVIL, MODULE, _edit, _url_rev, cached, team, toolhost

MARK = "planted-command-ran"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user layer


def _hidden_commit(d: Path) -> str:
    """The edit committed in the cache; the new commit's id."""
    _edit(d)
    git(d, "add", "teamtools.py")
    return git(d, "-c", "user.email=t@x", "-c", "user.name=t", "commit-tree",
               git(d, "write-tree"), "-m", "v1")


def _replace_ref(d: Path) -> None:
    git(d, "replace", d.joinpath(".git", "HEAD").read_text().strip(), _hidden_commit(d))


def _packed_replace_ref(d: Path) -> None:
    _replace_ref(d)
    git(d, "pack-refs", "--all")


def _graft(d: Path) -> None:
    new = _hidden_commit(d)
    d.joinpath(".git", "info").mkdir(exist_ok=True)
    d.joinpath(".git", "info", "grafts").write_text(f"{new}\n")


def _alternates(d: Path) -> None:
    other = d.parent / "other-store"
    other.mkdir()
    git(other, "init", "-q")
    _edit(d)
    d.joinpath(".git", "objects", "info").mkdir(exist_ok=True)
    d.joinpath(".git", "objects", "info", "alternates").write_text(f"{other}/.git/objects\n")


def _lying_objects(d: Path) -> None:
    """The loose blob the commit names is overwritten with the edited bytes (git does not
    check an object's hash when it reads it)."""
    blob = git(d, "rev-parse", "HEAD:teamtools.py")
    _edit(d)
    loose = d / ".git" / "objects" / blob[:2] / blob[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(f"blob {len(EVIL)}\0{EVIL}".encode()))


def _filter(mark: Path) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:  # a clean filter that shows git the original bytes
        original = d.parent / "original.py"
        original.write_text(MODULE)
        _edit(d)
        d.joinpath(".git", "info").mkdir(exist_ok=True)
        d.joinpath(".git", "info", "attributes").write_text("teamtools.py filter=lie\n")
        git(d, "config", "filter.lie.clean", f"sh -c 'touch {mark}; cat {original}'")
        git(d, "config", "filter.lie.smudge", "cat")
    return tamper


def _fsmonitor(mark: Path) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:
        _edit(d)
        git(d, "config", "core.fsmonitor", f"touch {mark}; echo")
    return tamper


def _include(mark: Path) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:
        _edit(d)
        d.parent.joinpath("inc.cfg").write_text(f"[core]\n\tfsmonitor = touch {mark}; echo\n")
        git(d, "config", "include.path", str(d.parent / "inc.cfg"))
    return tamper


def _hook(mark: Path) -> Callable[[Path], None]:
    def tamper(d: Path) -> None:
        _edit(d)
        hooks = d / ".git" / "hooks"
        hooks.mkdir(exist_ok=True)
        hooks.joinpath("post-checkout").write_text(f"#!/bin/sh\ntouch {mark}\n")
        hooks.joinpath("post-checkout").chmod(0o755)
    return tamper


def _gitfile(d: Path) -> None:
    """``.git`` replaced by a pointer to a repository whose HEAD is the edited tree."""
    elsewhere = d.parent / "elsewhere.git"
    new = _hidden_commit(d)
    os.rename(d / ".git", elsewhere)
    elsewhere.joinpath("HEAD").write_text(f"{new}\n")
    d.joinpath(".git").write_text(f"gitdir: {elsewhere}\n")


def _remote(d: Path) -> None:
    _edit(d)
    git(d, "remote", "set-url", "origin", "file:///elsewhere")


TAMPER: dict[str, Callable[[Path], Callable[[Path], None]]] = {
    "replace-ref": lambda mark: _replace_ref,
    "packed-replace-ref": lambda mark: _packed_replace_ref,
    "graft": lambda mark: _graft,
    "alternates": lambda mark: _alternates,
    "lying-object": lambda mark: _lying_objects,
    "clean-filter": _filter,
    "fsmonitor": _fsmonitor,
    "config-include": _include,
    "hook": _hook,
    "gitfile": lambda mark: _gitfile,
    "remote-url": lambda mark: _remote,
}


@pytest.mark.parametrize("kind", sorted(TAMPER))
def test_an_edit_hidden_in_git_is_found_and_nothing_planted_runs(
        tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    _, config = team(tmp_path)
    load_config(config)
    mark = tmp_path / MARK
    TAMPER[kind](mark)(cached(tmp_path))
    mark.unlink(missing_ok=True)  # git itself ran it while we planted it
    load_config(config)
    assert "was modified on disk" in caplog.text
    assert cached(tmp_path).joinpath("teamtools.py").read_text() == MODULE
    assert dirt(fetch_repo(*_url_rev(config))) == []
    assert not mark.exists()


GIT_ENV = {
    "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
    "GIT_CONFIG_VALUE_0": "touch {mark}; echo",
    "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='touch {mark}; echo'",
    "GIT_INDEX_FILE": "{tmp}/other-index", "GIT_WORK_TREE": "{tmp}",
    "GIT_REPLACE_REF_BASE": "refs/hidden/", "GIT_OBJECT_DIRECTORY": "{tmp}/nowhere",
}


@pytest.mark.parametrize("name", sorted(GIT_ENV))
def test_git_variables_of_the_caller_change_nothing(
        tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _, config = team(tmp_path)
    load_config(config)
    mark = tmp_path / MARK
    checkout = cached(tmp_path)
    _replace_ref(checkout)  # under a base only the variable names, where no check looks
    os.rename(checkout / ".git" / "refs" / "replace", checkout / ".git" / "refs" / "hidden")
    for key, value in GIT_ENV.items():
        if key == name or (name.startswith("GIT_CONFIG_") and key.startswith("GIT_CONFIG_")):
            monkeypatch.setenv(key, value.format(mark=mark, tmp=tmp_path))
    assert dirt(fetch_repo(*_url_rev(config))) != []
    assert not mark.exists()


def test_an_edit_hidden_by_a_replace_ref_never_runs(tmp_path: Path) -> None:
    _, config = team(tmp_path)
    assert toolhost("lock", str(config), cwd=tmp_path).returncode == 0
    assert toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path).stdout == "hello x\n"
    _replace_ref(cached(tmp_path))
    done = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path)
    assert done.stdout == "hello x\n" and "modified on disk" in done.stderr
    _replace_ref(cached(tmp_path))
    checked = toolhost("lock", "--check", str(config), cwd=tmp_path)
    assert checked.returncode == 0 and "modified on disk" in checked.stderr


# -- symlinks of the commit ---------------------------------------------------------------


def _links(out: Path) -> dict[str, Callable[[Path], None]]:
    return {
        "module-absolute": lambda r: r.joinpath("symmod.py").symlink_to(out / "evilmod.py"),
        "module-dotdot": lambda r: r.joinpath("symmod.py").symlink_to("../outside/evilmod.py"),
        "chain": lambda r: (r.joinpath("a.py").symlink_to("b.py"),
                            r.joinpath("b.py").symlink_to(out / "evilmod.py")),
        "directory": lambda r: r.joinpath("lib").symlink_to(out),
        "nested-dir": lambda r: (r.joinpath("sub").mkdir(),
                                 r.joinpath("sub", "up").symlink_to("../../outside")),
        "script": lambda r: r.joinpath("run.sh").symlink_to(out / "run.sh"),
        "data": lambda r: r.joinpath("data.txt").symlink_to("/etc/hostname"),
        "into-git": lambda r: r.joinpath("cfg").symlink_to(".git/config"),
        "dangling-outside": lambda r: r.joinpath("gone.py").symlink_to(out / "nothing.py"),
    }


@pytest.mark.parametrize("kind", sorted(_links(Path("/x"))))
def test_a_symlink_leading_out_of_the_repository_refuses_it(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    out.joinpath("evilmod.py").write_text(EVIL.replace("hello", "hello", 1))
    out.joinpath("run.sh").write_text("#!/bin/sh\necho outside\n")
    origin, config = team(tmp_path)
    _links(out)[kind](origin)
    _make_repo(origin, {}, tag="v2")
    config.write_text(config.read_text().replace("rev: v1", "rev: v2"))
    for args in (("validate", str(config)), ("call", str(config), "py.hello", "name=x"),
                 ("lock", str(config))):
        done = toolhost(*args, cwd=tmp_path)
        assert done.returncode == 1 and "PWNED" not in done.stdout, done.stderr
        (line,) = [ln for ln in done.stderr.splitlines() if "leads out" in ln]
        assert f"{config}:3:5: extends[0]: {origin.as_uri()} at v2: the symlink " in line
    assert not config.with_suffix(".lock").exists()


def test_symlinks_inside_the_repository_still_work(tmp_path: Path) -> None:
    origin, config = team(tmp_path)
    origin.joinpath("alias.py").symlink_to("teamtools.py")
    origin.joinpath("sub").mkdir()
    origin.joinpath("sub", "up.py").symlink_to("../teamtools.py")
    origin.joinpath("same").symlink_to(".")
    _make_repo(origin, {"base.yaml": BASE_ALIAS}, tag="v2")
    config.write_text(config.read_text().replace("rev: v1", "rev: v2"))
    done = toolhost("call", str(config), "py.hello", "name=x", cwd=tmp_path)
    assert done.stdout == "hello x\n", done.stderr


BASE_ALIAS = ("servers:\n  py:\n    tools:\n      hello:\n        python: {function: "
              "'alias:hello'}\npermissions:\n  allow: [mcp__py__hello]\n")


# -- a tool that writes into its checkout ---------------------------------------------------

WRITES = ("servers:\n  w:\n    cwd: .\n    tools:\n      build:\n        command: [sh, -c, "
          "'echo built >> build.log; mkdir -p out; echo x > out/a.py; echo done']\n"
          "permissions:\n  allow: [mcp__w]\n")


def test_files_a_tool_writes_are_removed_offline_without_refetch(tmp_path: Path) -> None:
    origin, config = team(tmp_path, {"writes.yaml": WRITES}, path="writes.yaml")
    assert toolhost("lock", str(config), cwd=tmp_path).returncode == 0
    assert toolhost("call", str(config), "w.build", cwd=tmp_path).stdout == "done\n"
    origin.rename(tmp_path / "away")  # offline
    for _ in range(2):
        done = toolhost("call", str(config), "w.build", cwd=tmp_path)
        assert done.returncode == 0 and done.stdout == "done\n", done.stderr
        assert "files were added" in done.stderr and "'build.log'" in done.stderr
        assert "give it a cwd outside" in done.stderr and "Traceback" not in done.stderr
    assert toolhost("lock", "--check", str(config), cwd=tmp_path).returncode == 0


def test_added_module_then_tracked_edit_offline_keeps_the_copy(tmp_path: Path) -> None:
    origin, config = team(tmp_path)
    load_config(config)
    checkout = cached(tmp_path)
    _edit(checkout)
    checkout.joinpath("helpers.py").write_text("import os\n")
    origin.rename(tmp_path / "away")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    message = str(caught.value)
    assert "cannot be fetched again" in message and "'?? helpers.py'" in message
    assert checkout.joinpath("teamtools.py").read_text() == EVIL  # kept, never used


# -- the hash check agrees with git on any tree -----------------------------------------------

_NAMES = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x24f,
                               blacklist_characters="/\\\x7f"), min_size=1, max_size=12
                 ).filter(lambda n: n not in (".", "..") and n.lower() != ".git"
                          and not n.startswith(".toolhost"))
_FILES = st.dictionaries(st.lists(_NAMES, min_size=1, max_size=3).map("/".join),
                         st.tuples(st.binary(max_size=300), st.booleans()),
                         min_size=1, max_size=8)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(files=_FILES, victim=st.integers(min_value=0), how=st.sampled_from(["bytes", "mode"]))
def test_the_commit_hashed_here_is_what_git_stored(
        tmp_path_factory: pytest.TempPathFactory, files: dict[str, tuple[bytes, bool]],
        victim: int, how: str) -> None:
    root = tmp_path_factory.mktemp("h")
    origin = root / "origin"
    _make_repo(origin, {})
    written = {}
    for name, (data, executable) in files.items():
        path = origin / name
        if any(p.is_file() for p in path.parents) or path.is_dir():
            continue  # a file where a directory is (or the other way round)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if executable else 0o644)
        written[name] = (data, executable)
    _make_repo(origin, {}, tag="v1")
    checkout = fetch_repo(origin.as_uri(), "v1")
    assert dirt(checkout) == []
    name = sorted(written)[victim % len(written)]
    target = checkout.path / name
    if how == "bytes":
        target.write_bytes(written[name][0] + b"\0")
    else:
        target.chmod(0o644 if written[name][1] else 0o755)
    assert dirt(checkout) == [f"M {name}"]
    shutil.rmtree(root)


DEEP = "/".join(["d"] * 1200)  # deeper than Python's recursion limit, within PATH_MAX


def test_a_repository_nesting_directories_a_thousand_deep_loads(deep_tmp_path: Path) -> None:
    """The check of the work tree, the removal of what a tool added and the swap after a
    fresh clone recursed once per level: RecursionError, an internal error, on every load."""
    tmp_path = deep_tmp_path
    origin = tmp_path / "origin"
    _make_repo(origin, {"README": "team\n"})
    nest(origin).joinpath("f.txt").write_text("deep\n")
    _, config = team(tmp_path, {
        "base.yaml": "servers:\n  t:\n    tools:\n      e: {command: [echo, hi]}\n"})
    assert load_config(config).servers["t"].tools["e"]
    checkout = cached(tmp_path)
    added = nest(checkout / "a")  # a tool wrote deep into the checkout
    added.joinpath("out.log").write_text("x")
    assert load_config(config).servers["t"].tools["e"]
    assert not (checkout / "a").exists()
    checkout.joinpath(DEEP, "f.txt").write_text("edited\n")  # cloned again, the old removed
    assert load_config(config).servers["t"].tools["e"]
    assert checkout.joinpath(DEEP, "f.txt").read_text() == "deep\n"
    assert sorted(p.name for p in checkout.parent.iterdir()) == sorted(
        [checkout.name, checkout.name + ".lock"])
