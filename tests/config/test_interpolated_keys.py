"""``${...}`` is expanded in values only: one written in a key is an error at the key, not a
key spelt ``${NAME}`` (``env: {"${NAME}": v}`` set a variable of that very name, silently).
"""

from __future__ import annotations

from pathlib import Path

import pytest


def _load_problems(config: Path) -> list[str]:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    try:
        load_config(config, layers=False, environ={"NAME": "X"})
    except ConfigError as exc:
        return [str(p) for p in exc.problems]
    return []


@pytest.mark.parametrize(("suffix", "text", "key"), [
    (".yaml", 'toolhost: 1\nservers:\n  s:\n    env: {"${NAME}": v}\n    tools:\n'
     "      t: {command: [env], description: d}\n", "servers.s.env.${NAME}"),
    (".toml", 'toolhost = 1\n[servers.s]\nenv = {"${NAME:-X}" = "v"}\n[servers.s.tools.t]\n'
     'command = ["env"]\ndescription = "d"\n', "servers.s.env.${NAME:-X}"),
    (".yaml", 'toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command: [env]\n'
     '        description: d\n        params: {"a${NAME}": '
     "{type: string}}\n", "servers.s.tools.t.params.a${NAME}"),
])
def test_a_reference_in_a_key_is_refused_not_kept_as_text(tmp_path: Path, suffix: str,
                                                          text: str, key: str) -> None:
    # keys are never expanded: env: {"${NAME}": v} set a variable named ${NAME}, silently
    config = tmp_path / f"c{suffix}"
    config.write_text(text)
    said = [p for p in _load_problems(config) if "is expanded in values only" in p]
    assert len(said) == 1 and f": {key}: " in said[0], _load_problems(config)


def test_a_literal_dollar_brace_key_and_values_still_load(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text('toolhost: 1\nservers:\n  s:\n    env: {"$${LIT}": "${NAME}"}\n'
                      "    tools:\n      t: {command: [env], description: d}\n")
    assert _load_problems(config) == []
