"""The lock beside a config is read with the loader's guards: whatever sits in its place (a
FIFO, a device, a huge integer, NaN) is one located line and exit 1, never a hang, a swollen
process or an internal error -- for every command that loads the config."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.errors import ConfigError
from toolhost.lockfile import Lock, lock_path, read_lock
from toolhost.lockfile.model import write_lock

TOOLHOST = str(Path(sys.executable).parent / "toolhost")


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers: {}\n")
    return config


def _bounded_memory() -> None:
    # reading /dev/zero is the bug: with a cap it fails in seconds instead of swelling
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    # a hang is the bug: the timeout ends the test instead of the suite
    return subprocess.run([TOOLHOST, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL,
                          preexec_fn=_bounded_memory)


def _one_located_line(done: subprocess.CompletedProcess[str], lock: Path, *text: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].removeprefix("toolhost: error: ").startswith(f"{lock}"), done.stderr
    for part in text:
        assert part in lines[0], done.stderr


@pytest.mark.parametrize("command", [["validate"], ["tools"], ["lock", "--check"]])
def test_a_fifo_as_the_lock_is_refused_without_blocking(tmp_path: Path,
                                                        command: list[str]) -> None:
    config = _config(tmp_path)
    os.mkfifo(lock_path(config))
    done = _run(*command, str(config), cwd=tmp_path)
    _one_located_line(done, lock_path(config), "not a regular file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_as_the_lock_is_refused_without_reading_it(tmp_path: Path,
                                                            device: str) -> None:
    config = _config(tmp_path)
    lock_path(config).symlink_to(device)
    done = _run("validate", str(config), cwd=tmp_path)
    _one_located_line(done, lock_path(config), "not a regular file")


@pytest.mark.parametrize(("text", "expected"), [
    ('{"x": ' + "9" * 5000 + "}", "1:7: not valid JSON: an integer of 5,000 digits"),
    ('{"toolhost_lock": 1, "sources": {}, "n": -' + "9" * 4500 + "}", "integer of 4,500"),
    ('{"x": NaN}', "1:7: not valid JSON: NaN is not JSON"),
    ('{"x":\n  Infinity}', "2:3: not valid JSON: Infinity is not JSON"),
    ('{"x": 1e400}', "not valid JSON: number 1e400 is too large"),
    ('{"toolhost_lock": 1,\n "toolhost_lock": 1}', "2:2: not valid JSON: the key "
                                                   '"toolhost_lock" appears twice'),
    ("[" * 300 + "]" * 300, "1:257: not valid JSON: nested more than 256"),
    ('{"toolhost_lock": 1, "owner": "Jos\udce9"}', "1:35: not UTF-8 text (byte 0xe9)"),
])
def test_values_json_loads_would_choke_on_are_located(tmp_path: Path, text: str,
                                                      expected: str) -> None:
    config = _config(tmp_path)
    lock_path(config).write_text(text, errors="surrogateescape")
    done = _run("validate", str(config), cwd=tmp_path)
    _one_located_line(done, lock_path(config), expected, "toolhost lock CONFIG")


@pytest.mark.parametrize(("text", "language"), [
    ("toolhost_lock = 1\n[sources]\n", "TOML"),
    ("# pinned\ntoolhost_lock: 1\nsources: {}\n", "YAML"),
    ("  toolhost_lock :  1\n", "YAML"),
])
def test_a_lock_written_in_a_configs_language_is_told_a_lock_is_json(
        tmp_path: Path, text: str, language: str) -> None:
    lock = tmp_path / "x.lock"
    lock.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_lock(lock)
    (problem,) = caught.value.problems
    assert "not valid JSON" in problem.message
    assert problem.hint == (
        f"this lock is written as {language}, but a lock is the JSON `toolhost lock` writes, "
        "whatever the config's language; `toolhost lock CONFIG` writes it anew from what the "
        "config pulls in")


def test_read_lock_raises_a_located_config_error(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    os.mkfifo(lock)
    with pytest.raises(ConfigError) as caught:
        read_lock(lock)
    (problem,) = caught.value.problems
    assert problem.file == str(lock) and "not a regular file" in problem.message


def test_a_missing_lock_is_no_lock_a_dangling_link_is_refused(tmp_path: Path) -> None:
    assert read_lock(tmp_path / "none.lock") is None
    # a link someone put there names a lock that is not there: checking nothing is fail-open
    (tmp_path / "dangling.lock").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ConfigError) as caught:
        read_lock(tmp_path / "dangling.lock")
    (problem,) = caught.value.problems
    assert problem.file == str(tmp_path / "dangling.lock")
    assert "a symlink to" in problem.message and "which does not exist" in problem.message


def test_the_lock_is_written_readable_through_a_link_or_refused_in_one_line(
        tmp_path: Path) -> None:
    lock = Lock({}, {"a": "1.0"})
    mask = os.umask(0o022)
    try:
        write_lock(tmp_path / "new.lock", lock)  # was 0600 (mkstemp's): no other account
        assert (tmp_path / "new.lock").stat().st_mode & 0o777 == 0o644  # could load
        (tmp_path / "kept.lock").write_text("{}")
        (tmp_path / "kept.lock").chmod(0o640)
        write_lock(tmp_path / "kept.lock", lock)
        assert (tmp_path / "kept.lock").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(mask)
    (tmp_path / "real.json").write_text('{"toolhost_lock": 1, "sources": {}, "plugins": {}}')
    (tmp_path / "linked.lock").symlink_to("real.json")
    write_lock(tmp_path / "linked.lock", lock)
    assert (tmp_path / "linked.lock").is_symlink()
    assert read_lock(tmp_path / "real.json") == lock
    (tmp_path / "dir.lock").mkdir()  # was: internal error IsADirectoryError
    with pytest.raises(ConfigError, match="a directory has its name"):
        write_lock(tmp_path / "dir.lock", lock)


@pytest.mark.parametrize("target", [b"export PATH=~/bin:$PATH\n", b'{"auths": {}}',
                                    b"<<<<<<< HEAD\n", "fifo"])
def test_a_link_to_a_file_that_is_no_lock_is_never_written_through(
        tmp_path: Path, target: bytes | str) -> None:
    # a cloned project's `toolhost.lock -> ~/.bashrc`: `toolhost lock` overwrote the profile
    # with JSON (a link to a lock, or to an empty file, is still written through, above)
    outside = tmp_path / "home" / "profile"
    outside.parent.mkdir()
    if target == "fifo":
        os.mkfifo(outside)
    else:
        assert isinstance(target, bytes)
        outside.write_bytes(target)
    (tmp_path / "c.lock").symlink_to(outside)
    with pytest.raises(ConfigError) as caught:
        write_lock(tmp_path / "c.lock", Lock({}, {"a": "1.0"}))
    (problem,) = caught.value.problems
    assert problem.file == str(tmp_path / "c.lock")
    assert f"a symbolic link to {outside}, which is not a toolhost lock" in problem.message
    assert "remove the link" in problem.hint
    if target != "fifo":
        assert outside.read_bytes() == target
    assert (tmp_path / "c.lock").is_symlink() and not list(tmp_path.glob(".toolhost-lock.*"))


def test_a_good_lock_still_reads(tmp_path: Path) -> None:
    lock = tmp_path / "ok.lock"
    lock.write_text('{"toolhost_lock": 1, "sources": {}, "plugins": {"a": "1.0"}}')
    read = read_lock(lock)
    assert read is not None and dict(read.plugins) == {"a": "1.0"}


# -- config paths the OS refuses (F18) ------------------------------------------------------

@pytest.mark.parametrize(("config", "lock"), [
    ("", ".lock"), (".", ".lock"), ("/", "/.lock"), ("..", "../.lock"), ("dir/", "dir.lock"),
    ("a/team.yaml", "a/team.lock"),
])
def test_lock_path_of_a_path_without_a_file_name(config: str, lock: str) -> None:
    assert lock_path(config) == Path(lock)  # was ValueError: has an empty name


@pytest.mark.parametrize("command", [["validate"], ["tools"], ["tools", "--explain"],
                                     ["mcp-config"], ["lock"], ["lock", "--check"]])
def test_an_empty_config_path_is_one_line(tmp_path: Path, command: list[str]) -> None:
    done = _run(*command, "", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize("command", [["validate"], ["tools"], ["lock"], ["update"]])
def test_a_config_name_too_long_is_reported_for_the_config(tmp_path: Path,
                                                           command: list[str]) -> None:
    name = "a" * 300 + ".yaml"
    done = _run(*command, name, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert f"{name}: cannot read: File name too long" in done.stderr
    assert ".lock" not in done.stderr


def test_a_lock_whose_name_fills_the_limit_is_written(tmp_path: Path) -> None:
    config = tmp_path / ("b" * 250 + ".yaml")  # 255 bytes: a temporary name beside it is not
    config.write_text("toolhost: 1\nservers: {}\n")
    done = _run("lock", config.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert read_lock(lock_path(config)) is not None


def test_the_printed_command_pastes_into_a_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    from toolhost.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "t.yaml").write_text("toolhost: 1\nservers: {}\n")
    assert main(["lock", "--check", "my dir/t.yaml"]) == 1
    command = capsys.readouterr().err.split("create it with `", 1)[1].split("`", 1)[0]
    assert shlex.split(command) == ["toolhost", "lock", "my dir/t.yaml"]  # was 3 arguments


class _CountingHash:
    """hashlib.sha256 that counts the bytes it is handed."""

    handed = 0

    def __init__(self) -> None:
        import hashlib

        self._inner = hashlib.new("sha256")

    def update(self, data: bytes) -> None:
        _CountingHash.handed += len(data)
        self._inner.update(data)

    def hexdigest(self) -> str:
        return self._inner.hexdigest()


@pytest.mark.parametrize("locked", [False, True])
def test_a_pinned_fragment_past_the_size_limit_is_refused_before_it_is_hashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locked: bool) -> None:
    """A `pkg:` fragment of 2 GB was read and hashed whole (8-27 s) before the reader
    refused it as too large."""
    import hashlib

    from toolhost.config import load_config

    package = tmp_path / "site" / "bigpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "big.yaml").write_text("#" * 5000 + "\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_BYTES", "1000")
    monkeypatch.setattr(hashlib, "sha256", _CountingHash)
    monkeypatch.setattr(_CountingHash, "handed", 0)
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nextends:\n  - pkg:bigpkg/big.yaml\n")
    if locked:
        write_lock(lock_path(config), Lock({}, {}))
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    (problem,) = caught.value.problems
    assert (problem.line, problem.key_path) == (3, "extends[0]"), problem
    assert "big.yaml: config file too large (5,001 bytes, the limit is 1,000)" in str(problem)
    assert _CountingHash.handed == 0
