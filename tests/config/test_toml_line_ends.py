"""A TOML file whose lines end with a bare CR (no LF) is one long line to TOML: the error
says why, not only "Expected newline"."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.errors import ConfigError


@pytest.mark.parametrize("text", ["toolhost = 1\r[servers]\r", "toolhost = 1\r\r[servers.s]\r"])
def test_bare_cr_line_ends_are_named(tmp_path: Path, text: str) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(text.encode())
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    (problem,) = caught.value.problems
    assert problem.line == 1 and "invalid TOML" in problem.message
    assert "bare CR" in problem.hint, problem


def test_crlf_line_ends_still_load(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(b"toolhost = 1\r\n[servers]\r\n")
    load_config(config, layers=False)
