"""`toolhost update` moves the pins it names, and accepts nothing else into the lock.

Real git repositories and the real ``toolhost`` command line, run in-process (one process
per command cost ~1-2 s each under load, and nothing here lives in a process of its own):
when the lock is stale before the update (another repository's tag moved, a plugin was
upgraded), rewriting the lock after the update would accept that change without a word; the
update is refused instead, the config and the lock untouched, until `toolhost lock` has
shown it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.cli import main
from toolhost.lockfile import lock_path

from ..plugins.conftest import _make_repo, git

TOOL = "servers:\n  {name}:\n    tools:\n      x: {{description: x, command: [echo, {word}]}}\n"
Run = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def toolhost(capsys: pytest.CaptureFixture[str]) -> Run:
    """``toolhost ARGS`` through its command line, in this process: exit status and output."""
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["toolhost", *args], code, out, err)

    return run


def two_repos(tmp_path: Path, toolhost: Run) -> tuple[Path, Path, Path]:
    """Repositories one (tags v1, v2) and two (v1), a project pinning both at v1, locked."""
    one, two = tmp_path / "one", tmp_path / "two"
    _make_repo(one, {"one.yaml": TOOL.format(name="one", word="one-v1")}, tag="v1")
    _make_repo(one, {"one.yaml": TOOL.format(name="one", word="one-v2")}, tag="v2")
    _make_repo(two, {"two.yaml": TOOL.format(name="two", word="two-v1")}, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nplugins: [toolhost-files]\nextends:\n"
                      f"  - {{repo: {one.as_uri()}, rev: v1, path: one.yaml}}\n"
                      f"  - {{repo: {two.as_uri()}, rev: v1, path: two.yaml}}\n")
    done = toolhost("lock", str(config))
    assert done.returncode == 0, done.stderr
    return one, two, config


def _retag_two(tmp_path: Path) -> None:  # someone moved two's v1 to new content
    two = tmp_path / "two"
    _make_repo(two, {"two.yaml": TOOL.format(name="two", word="two-EVIL")})
    git(two, "tag", "-f", "v1")
    for meta in (tmp_path / "cache" / "repos").glob("*/.toolhost-checkout.json"):
        if "two" in meta.read_text():
            import shutil

            shutil.rmtree(meta.parent)  # a fresh machine: the moved tag is what it clones


def _plugin_upgraded(tmp_path: Path) -> None:  # the lock names another release
    lock = lock_path(tmp_path / "proj" / "toolhost.yaml")
    data = json.loads(lock.read_text())
    data["plugins"]["toolhost-files"] = "0.0.1"
    lock.write_text(json.dumps(data, indent=2))


STALE: dict[str, tuple[Callable[[Path], None], str]] = {
    "another repo's tag moved": (_retag_two, "changed since toolhost.lock"),
    "a plugin upgraded": (_plugin_upgraded, "locked at 0.0.1"),
}


@pytest.mark.parametrize("stale", sorted(STALE))
def test_update_refuses_when_the_lock_is_stale_before_it(tmp_path: Path, stale: str,
                                                        toolhost: Run) -> None:
    """Every form of update (one repo to a rev, one repo, all, a dry run) is refused, one
    after the other on the same project: each leaves the config and the lock as they were."""
    one, _, config = two_repos(tmp_path, toolhost)
    edit, says = STALE[stale]
    edit(tmp_path)
    before = config.read_text(), lock_path(config).read_text()
    for args in (["--repo", one.as_uri(), "--rev", "v2"], ["--repo", one.as_uri()], [],
                 ["--dry-run"]):
        done = toolhost("update", str(config), *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert says in done.stderr and "nothing changed" in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        assert (config.read_text(), lock_path(config).read_text()) == before, args
    run = toolhost("call", str(config), "two.x")
    assert "two-EVIL" not in run.stdout


def test_update_with_a_current_lock_moves_the_pin_and_the_lock(tmp_path: Path,
                                                               toolhost: Run) -> None:
    one, _, config = two_repos(tmp_path, toolhost)
    done = toolhost("update", str(config), "--repo", one.as_uri())
    assert done.returncode == 0, done.stderr
    assert "one.yaml}" in config.read_text() and "rev: v2, path: one.yaml" in config.read_text()
    assert "@v2" in lock_path(config).read_text()
    assert toolhost("call", str(config), "one.x").stdout.strip() == "one-v2"
    assert toolhost("lock", "--check", str(config)).returncode == 0


def test_an_update_to_a_revision_that_does_not_load_changes_nothing(tmp_path: Path,
                                                                     toolhost: Run) -> None:
    """The config was left at the new revision beside a lock of the old one: every load
    then failed, and `toolhost lock` (the hint) could not load it either."""
    one = tmp_path / "one"
    _make_repo(one, {"one.yaml": TOOL.format(name="one", word="v1")}, tag="v1")
    _make_repo(one, {"one.yaml": TOOL.format(name="one", word="v2")
                     + "plugins: [toolhost-not-installed]\n"}, tag="v2")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {one.as_uri()}, rev: v1, "
                      "path: one.yaml}\n")
    assert toolhost("lock", str(config)).returncode == 0
    before = config.read_text(), lock_path(config).read_text()

    done = toolhost("update", str(config))
    assert done.returncode == 1
    assert "plugin 'toolhost-not-installed' is not installed" in done.stderr
    assert f"{config}: left as it was (no rev changed)" in done.stderr
    assert (config.read_text(), lock_path(config).read_text()) == before
    assert toolhost("lock", str(config), "--check").returncode == 0


def _interrupt(how: str) -> Callable[..., list[str]]:
    """``write_for`` stopped by ``how`` while relocking (its dry runs, the stale-lock check,
    go through)."""
    import signal

    from toolhost.commands import lock

    real = lock.write_for

    def write_for(config: str, **kw: object) -> list[str]:
        if kw.get("dry_run"):
            return real(config, **kw)  # type: ignore[arg-type]
        if how == "Ctrl-C":
            raise KeyboardInterrupt
        # a kill or a closed terminal: without a handler it ends the process (and pytest)
        assert signal.getsignal(getattr(signal, how)) is not signal.SIG_DFL, \
            f"{how} would end toolhost here, leaving the new revs beside the old lock"
        signal.raise_signal(getattr(signal, how))
        raise AssertionError("not reached")

    return write_for


@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM", "SIGHUP"])
def test_an_update_stopped_while_relocking_leaves_the_pair_as_it_was(
        tmp_path: Path, toolhost: Run, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The config was written, then the lock computed (a load: fetches, seconds): a stop in
    between left the new revs beside a lock of the old ones, and every load refused them."""
    from toolhost.commands import lock

    one, _, config = two_repos(tmp_path, toolhost)
    before = config.read_text(), lock_path(config).read_text()
    monkeypatch.setattr(lock, "write_for", _interrupt(how))
    done = toolhost("update", str(config), "--repo", one.as_uri())
    # a kill reports itself as the signal's own status would (143, 129), Ctrl-C as 130
    assert done.returncode == {"Ctrl-C": 130, "SIGTERM": 143, "SIGHUP": 129}[how], done.stderr
    assert "interrupted: left as it was (no rev changed)" in done.stderr
    assert (config.read_text(), lock_path(config).read_text()) == before
    monkeypatch.undo()
    assert toolhost("lock", "--check", str(config)).returncode == 0


def test_a_rev_changed_without_the_lock_is_said_with_the_locked_rev(tmp_path: Path,
                                                                    toolhost: Run) -> None:
    """What a stop past any handler (SIGKILL, a power cut) between the two files leaves, or a
    rev edited by hand: the load names the rev the lock pins."""
    _, _, config = two_repos(tmp_path, toolhost)
    config.write_text(config.read_text().replace("rev: v1, path: one", "rev: v2, path: one"))
    done = toolhost("validate", str(config))
    assert done.returncode == 1
    assert "one@v2 is not in toolhost.lock (toolhost.lock pins this repo at v1: " in done.stderr
    assert "or put the rev back" in done.stderr and "Traceback" not in done.stderr


def test_an_update_of_a_linked_config_writes_the_file_it_links_to(tmp_path: Path,
                                                                   toolhost: Run) -> None:
    """toolhost.yaml -> cfg/team.yaml: the link was replaced by an updated copy, the file
    the team commits left at the old revs (the lock, beside the link, at the new ones)."""
    one, _, config = two_repos(tmp_path, toolhost)
    real = config.parent / "cfg" / "team.yaml"
    real.parent.mkdir()
    config.rename(real)
    config.symlink_to(Path("cfg") / "team.yaml")
    done = toolhost("update", str(config), "--repo", one.as_uri())
    assert done.returncode == 0, done.stderr
    assert config.is_symlink() and config.resolve() == real.resolve()
    assert "rev: v2, path: one.yaml" in real.read_text()
    assert "@v2" in lock_path(config).read_text()
    assert sorted(p.name for p in real.parent.iterdir()) == ["team.yaml"]  # no temp left
