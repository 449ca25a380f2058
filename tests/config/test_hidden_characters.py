"""Bidi overrides and zero-width characters from a config (in a key, a value, the file's
name) reach the terminal escaped in every error line of the real ``toolhost validate``, as
control characters do: a value never reads as something it is not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
CHARS = {"rlo": "\u202e", "lri": "\u2066", "pdi": "\u2069", "zwsp": "\u200b",
         "zwj": "\u200d", "bom": "\ufeff", "lrm": "\u200e", "tag": "\U000e0041"}
PLACES = {
    "yaml key": ("c.yaml", "toolhost: 1\nservers:\n  s:\n    descripton{c}: x\n"
                 "    tools:\n      t: {{command: [echo, hi]}}\n"),
    "yaml value": ("c.yaml", "toolhost: 1\nservers:\n  s:\n    tools:\n"
                   "      t: {{command: [echo, hi], output: \"{c}txet\"}}\n"),
    "toml value": ("c.toml", "toolhost = 1\n[servers.s.tools.t]\ncommand = [\"echo\"]\n"
                   "output = \"{c}txet\"\n"),
    "file name": ("c{c}.yaml", "toolhost: 1\nnope: 1\n"),
}


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("name", sorted(CHARS))
def test_a_hidden_character_is_escaped_in_the_error_line(tmp_path: Path, place: str,
                                                         name: str) -> None:
    char = CHARS[name]
    file, text = PLACES[place]
    path = tmp_path / file.format(c=char)
    path.write_text(text.format(c=char), encoding="utf-8")
    done = subprocess.run([TOOLHOST, "validate", "--no-layers", "--no-compile", path.name],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert char not in out, ascii(out)
    assert f"\\u{ord(char):04x}" in out or f"\\U{ord(char):08x}" in out, ascii(out)
