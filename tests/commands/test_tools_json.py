"""``toolhost tools --json`` is JSON for programs that a person may also cat: a bidi override,
a C1 control, DEL, a zero-width or tag character, a line separator or a lone surrogate from
config text is written as a ``\\uXXXX`` escape (json.dumps leaves them raw), so the same
strings reach a program and nothing reaches a terminal that it would act on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolhost.cli import main
from toolhost.visible import visible

HOSTILE = ("srv \u202e evil \x9b31m \x7f \u2028 z\u200b \U000e0041 "
           "\u2066iso\u2069 \u061c \ufeff emoji \U0001f468\u200d\U0001f469 é")
CONFIG = """\
toolhost: 1
servers:
  s:
    description: {server}
    tools:
      t:
        description: "tool ${{V}} \\e[31m"
        command: [echo, hi]
        params:
          x: {{type: string, enum: [{server}], description: "\\x85 \\u202d"}}
permissions: {{default: allow}}
"""


def _quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar: every non-ASCII character escaped (YAML takes
    no UTF-16 pair, so not json.dumps)."""
    return '"' + "".join(c if " " <= c < "\x7f" and c not in '"\\' else
                         f"\\U{ord(c):08x}" for c in text) + '"'


@pytest.mark.parametrize("explain", [False, True])
def test_hidden_characters_are_json_escapes(explain: bool, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("V", "a\udcffb")  # a non-UTF-8 environment value: a lone surrogate
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.format(server=_quoted(HOSTILE)), encoding="utf-8")
    assert main(["tools", str(config), "--json", *(["--explain"] if explain else [])]) == 0
    out = capsys.readouterr().out
    # nothing a terminal acts on or a reader cannot see: visible() would change nothing
    assert visible(out, lines=True) == out, [c for c in out if visible(c) != c]
    data = json.loads(out)  # still JSON, with the very strings the config holds
    server = data["servers"][0]
    assert server["description"] == HOSTILE
    tool = server["tools"][0]
    assert tool["description"] == "tool a\udcffb \x1b[31m"
    assert tool["inputSchema"]["properties"]["x"]["enum"] == [HOSTILE]
    assert tool["inputSchema"]["properties"]["x"]["description"] == "\x85 \u202d"
    assert "\U0001f468\u200d\U0001f469 é" in out  # printable text (a ZWJ emoji) stays as it is
