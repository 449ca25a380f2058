""""did you mean" names the close key for a typo, and costs nothing for a huge unknown key
(difflib indexed every character of it: a 15 MB key took 600 MB for the hint)."""

from __future__ import annotations

import tracemalloc

import pytest

from toolhost.config.checks import did_you_mean

KEYS = ("servers", "permissions", "settings", "toolhost", "extends")


@pytest.mark.parametrize(("word", "hint"), [
    ("sever", "did you mean 'servers'?"), ("permisions", "did you mean 'permissions'?"),
    ("toolhots", "did you mean 'toolhost'?"), ("x", ""), ("completely-unrelated", ""),
])
def test_a_typo_gets_the_close_key(word: str, hint: str) -> None:
    assert did_you_mean(word, KEYS) == hint


@pytest.mark.parametrize("word", ["k" * 200_000, "servers" * 30_000,
                                  "servers" + "x" * 200_000])
def test_a_huge_unknown_key_gets_no_hint_in_memory_of_its_size(word: str) -> None:
    tracemalloc.start()
    try:
        hint = did_you_mean(word, KEYS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hint == "" and peak < len(word) // 4


@pytest.mark.parametrize(("text", "hint"), [
    ("toolhost: 1\nSERVERS: {}\n", "2:1: SERVERS: unknown key (did you mean 'servers'?)"),
    ("toolhost: 1\nservers:\n  a:\n    tools:\n      t:\n        COMMAND: [echo]\n",
     "6:9: servers.a.tools.t.COMMAND: unknown key (did you mean 'command'?)"),
    ("toolhost: 1\nservers:\n  a:\n    tools:\n      t:\n        command: [echo]\n"
     "        Description: x\n",
     "7:9: servers.a.tools.t.Description: unknown key (did you mean 'description'?)"),
    ('toolhost = 1\n[servers.a.tools.t]\ncommand = ["echo"]\nTIMEOUT = 5\n',
     "4:1: servers.a.tools.t.TIMEOUT: unknown key (did you mean 'timeout'?)"),
])
def test_a_key_in_other_capitals_gets_the_key(text: str, hint: str, tmp_path: object) -> None:
    from pathlib import Path

    from toolhost.config import load_config
    from toolhost.errors import ConfigError

    path = Path(str(tmp_path)) / ("c.toml" if text.startswith("toolhost =") else "c.yaml")
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert hint in str(raised.value), str(raised.value)
