"""Finding the CLI: --cli, $TOOLHOST_CLI, PATH, the bundled binary; a clear error otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.errors import CLINotFoundError
from toolhost.runner import discovery
from toolhost.runner.discovery import find_cli


def _exe(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_order_explicit_then_env_then_path_then_bundled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = _exe(tmp_path / "a" / "my-claude")
    from_env = _exe(tmp_path / "b" / "env-claude")
    on_path = _exe(tmp_path / "bin" / "claude")
    bundled = _exe(tmp_path / "sdk" / "claude")
    monkeypatch.setattr(discovery, "bundled_cli", lambda: Path(bundled))
    env = {"TOOLHOST_CLI": from_env, "PATH": str(tmp_path / "bin")}
    assert find_cli(explicit, environ=env) == explicit
    assert find_cli(None, environ=env) == from_env
    assert find_cli(None, environ={"PATH": env["PATH"]}) == on_path
    assert find_cli(None, environ={"PATH": str(tmp_path / "empty")}) == bundled


def test_bad_explicit_choices_are_errors_not_skipped(tmp_path: Path) -> None:
    with pytest.raises(CLINotFoundError, match=r"--cli .*nope: no executable file there"):
        find_cli(str(tmp_path / "nope"), environ={})
    with pytest.raises(CLINotFoundError, match=r"\$TOOLHOST_CLI=.*nope: no executable"):
        find_cli(None, environ={"TOOLHOST_CLI": str(tmp_path / "nope")})


def test_nothing_found_names_all_four_places(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "bundled_cli", lambda: None)
    with pytest.raises(CLINotFoundError) as info:
        find_cli(None, environ={"PATH": str(tmp_path)})
    text = str(info.value)
    for place in ("--cli PATH", "$TOOLHOST_CLI", "'claude' on $PATH", "claude-agent-sdk"):
        assert place in text


def test_the_bundled_cli_is_found_in_the_installed_sdk() -> None:
    found = discovery.bundled_cli()
    assert found is not None and found.parts[-2:] == ("_bundled", "claude")


def test_an_empty_cli_path_is_an_error_not_a_reason_to_look_further() -> None:
    with pytest.raises(CLINotFoundError, match="--cli '': no executable file there"):
        find_cli("", environ={"PATH": "/usr/bin"})
