"""``--write-timeout`` and the config's ``serve.write_timeout``: how long an HTTP client may
take none of a write before it is dropped. The flag wins over the config, the config over
the default (10 s); a bad value is a located error (config) or a usage error (flag)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from toolhost.commands.serve import add_arguments, limits_from
from toolhost.config import load_config
from toolhost.errors import ToolhostError

HEAD = """\
toolhost: 1
servers:
  kb:
    tools:
      t: {command: [echo, hi]}
"""


def parsed(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["kb.yaml", *flags])


@pytest.mark.parametrize(("section", "flags", "seconds"), [
    ("", [], 10.0),
    ("serve: {write_timeout: 30s}\n", [], 30.0),
    ("serve: {write_timeout: 1.5}\n", [], 1.5),
    ("serve: {write_timeout: 2m}\n", ["--write-timeout", "4"], 4.0),
    ("", ["--write-timeout", "0.25"], 0.25),
    ("serve: {}\n", [], 10.0),
])
def test_the_flag_wins_over_the_config_and_the_config_over_the_default(
        tmp_path: Path, section: str, flags: list[str], seconds: float) -> None:
    (tmp_path / "kb.yaml").write_text(HEAD + section)
    config = load_config(tmp_path / "kb.yaml", layers=False)
    assert limits_from(parsed(*flags), config.serve).write_timeout == seconds


@pytest.mark.parametrize(("section", "line", "words"), [
    ("serve: {write_timeout: 0}\n", "6:", ["serve.write_timeout", "positive duration"]),
    ("serve:\n  write_timeout: -5s\n", "7:", ["serve.write_timeout", "positive duration"]),
    ("serve:\n  write_timeout: ten\n", "7:", ["serve.write_timeout", "'ten'"]),
    ("serve:\n  write_timeout: 30d\n", "7:", ["serve.write_timeout"]),
    ("serve:\n  write_timeout: true\n", "7:", ["serve.write_timeout"]),
    ("serve:\n  writ_timeout: 5\n", "7:", ["serve.writ_timeout", "did you mean 'write_timeout'"]),
    ("serve: [write_timeout]\n", "6:", ["serve", "mapping"]),
])
def test_a_bad_config_value_is_a_located_error(tmp_path: Path, section: str, line: str,
                                               words: list[str]) -> None:
    (tmp_path / "kb.yaml").write_text(HEAD + section)
    with pytest.raises(ToolhostError) as raised:
        load_config(tmp_path / "kb.yaml", layers=False)
    text = str(raised.value)
    assert f"kb.yaml:{line}" in text and all(word in text for word in words), text
    assert "Traceback" not in text and len(text.splitlines()) == 1, text


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "ten", "1e9"])
def test_a_bad_flag_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parsed("--write-timeout", value)
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--write-timeout" in err, err
