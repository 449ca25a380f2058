"""Layers: the user's config, the project file, then toolhost.local next to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError


def test_user_project_local(write: Any, kinds: Any, tmp_path: Path) -> None:
    write("home/.config/toolhost/config.yaml", """\
permissions:
  default: deny
  deny: [mcp__*__delete]
run: {model: user-model, max_turns: 5}
""")
    main = write("proj/toolhost.yaml", """\
toolhost: 1
run: {model: project-model}
permissions:
  allow: [mcp__git__*]
""")
    write("proj/toolhost.local.toml", """\
[run]
max_turns = 9

[permissions]
ask = ["mcp__git__push"]
""")
    env = {"HOME": str(tmp_path / "home")}
    config = load_config(main, kinds=kinds, environ=env)
    assert config.run.model == "project-model" and config.run.max_turns == 9
    assert config.permissions.default == "deny"
    assert [(r.effect, r.tool, r.layer) for r in config.permissions.rules] == [
        ("allow", "mcp__git__*", "project"),
        ("deny", "mcp__*__delete", "user"),
        ("ask", "mcp__git__push", "local")]
    assert config.files[0] == str(main) and len(config.files) == 3
    assert config.origins["run.max_turns"].file.endswith("toolhost.local.toml")
    assert config.origins["run.max_turns"].line == 2
    assert config.origins["permissions.default"].file.endswith("config.yaml")
    # without layers only the project file counts
    alone = load_config(main, kinds=kinds, environ=env, layers=False)
    assert alone.run.max_turns is None and alone.permissions.default == "ask"


def test_xdg_config_home_and_errors_name_the_layer(write: Any, kinds: Any,
                                                    tmp_path: Path) -> None:
    user = write("xdg/toolhost/config.toml", "[run]\nmodl = 'x'\n")
    main = write("p/main.yaml", "toolhost: 1\n")
    env = {"HOME": str(tmp_path / "nowhere"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ=env)
    (problem,) = info.value.problems
    assert (problem.file, problem.line, problem.hint) == (
        str(user), 2, "did you mean 'model'?")
