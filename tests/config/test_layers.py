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


@pytest.mark.parametrize(("user", "project", "local", "expected"), [
    # (the user file, the project file, toolhost.local.toml) -> the notes, "path: file:line"
    ("default: deny", "default: allow", "", ["permissions.default@proj/toolhost.yaml:3 "
                                             "'allow' over 'deny' user:3"]),
    ("default: deny", "default: deny", "", []),  # the same value: nothing lost
    ("default: deny", "allow: [x]", "", []),  # not set twice
    ("ask_mode: deny", "ask_mode: prompt", "ask_mode = \"allow\"",
     ["permissions.ask_mode@proj/toolhost.yaml:3 'prompt' over 'deny' user:3",
      "permissions.ask_mode@proj/toolhost.local.toml:2 'allow' over 'prompt' project:3"]),
    ("", "default: allow", "default = \"ask\"",
     ["permissions.default@proj/toolhost.local.toml:2 'ask' over 'allow' project:3"]),
])
def test_a_policy_setting_another_layer_overrides_is_noted(
        write: Any, kinds: Any, tmp_path: Path, user: str, project: str, local: str,
        expected: list[str]) -> None:
    write("home/.config/toolhost/config.yaml", f"toolhost: 1\npermissions:\n  {user}\n")
    main = write("proj/toolhost.yaml", f"toolhost: 1\npermissions:\n  {project}\n")
    if local:
        write("proj/toolhost.local.toml", f"[permissions]\n{local}\n")
    config = load_config(main, kinds=kinds, environ={"HOME": str(tmp_path / "home")})
    said = []
    for note in config.notes:
        where = Path(note.file).relative_to(tmp_path)
        before = note.message.split("'")[3]
        layer, line = note.message.split(" file ")[1].split(" ")[0].rsplit(":", 1)
        said.append(f"{note.key_path}@{where}:{note.line} '{note.message.split(chr(39))[1]}' "
                    f"over '{before}' {_layer(layer, tmp_path)}:{line}")
        assert note.message.startswith("note: ") and "later layers win" in note.message
    assert said == expected


def _layer(file: str, tmp_path: Path) -> str:
    return {"home/.config/toolhost/config.yaml": "user",
            "proj/toolhost.yaml": "project"}[str(Path(file).relative_to(tmp_path))]


def test_validate_prints_the_override_note(write: Any, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from toolhost.cli import main as cli

    user = write("home/.config/toolhost/config.yaml", "permissions:\n  default: deny\n")
    project = write("proj/toolhost.yaml", "toolhost: 1\npermissions:\n  default: allow\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert cli(["validate", str(project)]) == 0
    err = capsys.readouterr().err
    assert f"{project}:3:3: permissions.default: note: 'allow' here overrides 'deny' set in " \
           f"the user file {user}:2 " in err, err
    assert cli(["validate", "--no-layers", str(project)]) == 0
    assert "overrides" not in capsys.readouterr().err
