"""A config saved as UTF-16 or UTF-32 (PowerShell 5's `>` and Out-File write UTF-16 with a
byte order mark) is one located line that names the encoding and how to save UTF-8, not
"byte 0xff" or "control character U+0000" at column 2. UTF-8 with a BOM still loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

YAML = "toolhost: 1\nservers:\n  s:\n    tools:\n      t: {command: [echo, hi]}\n"
TOML = "toolhost = 1\n[servers.s.tools.t]\ncommand = ['echo', 'hi']\n"
WIDE = {
    "utf-16": "UTF-16 text (byte order mark FF FE)",
    "utf-16-be": "UTF-16 or UTF-32 text (a NUL byte beside each character)",
    "utf-16-le": "UTF-16 or UTF-32 text (a NUL byte beside each character)",
    "utf-32": "UTF-32 text (byte order mark FF FE 00 00)",
    "utf-32-be": "UTF-16 or UTF-32 text (a NUL byte beside each character)",
}


@pytest.mark.parametrize("suffix", [".yaml", ".toml"])
@pytest.mark.parametrize("encoding", sorted(WIDE))
def test_a_wide_encoding_is_named(encoding: str, suffix: str, tmp_path: Path) -> None:
    config = tmp_path / f"c{suffix}"
    config.write_bytes((YAML if suffix == ".yaml" else TOML).encode(encoding))
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    problems = caught.value.problems
    assert len(problems) == 1
    assert str(problems[0]).startswith(f"{config}:1:1: not UTF-8 text: this is "
                                       f"{WIDE[encoding]}"), problems[0]
    assert "save the file as UTF-8" in problems[0].hint


@pytest.mark.parametrize("text", [YAML, TOML])
def test_utf8_with_or_without_a_bom_loads(text: str, tmp_path: Path) -> None:
    for name, data in (("plain", text.encode()), ("bom", b"\xef\xbb\xbf" + text.encode())):
        config = tmp_path / f"{name}{'.yaml' if text is YAML else '.toml'}"
        config.write_bytes(data)
        assert set(load_config(config, layers=False).servers) == {"s"}
