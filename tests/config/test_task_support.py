"""``task_support``: a mode (``forbidden | optional | required``) or a mapping ``{mode,
ask_first}`` (ask first in the request, then a task: toolhost.mcp.tasks_first); every wrong
spelling is one located problem, and the schema agrees with the loader."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from toolhost.config import load_config
from toolhost.errors import ConfigError

SCHEMA = json.loads((Path(__file__).parents[2] / "toolhost/config/schema.json").read_text())


def config(value: str) -> str:
    return ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
            "        command: [echo, hi]\n"
            f"        task_support: {value}\n")


def schema_allows(text: str) -> bool:
    try:
        jsonschema.Draft202012Validator(SCHEMA).validate(yaml.safe_load(text))
    except jsonschema.ValidationError:
        return False
    return True


@pytest.mark.parametrize(("value", "mode", "ask_first"), [
    ("optional", "optional", False),
    ("required", "required", False),
    ("forbidden", None, False),
    ("{mode: required, ask_first: true}", "required", True),
    ("{mode: optional, ask_first: true}", "optional", True),
    ("{mode: optional, ask_first: false}", "optional", False),
    ("{mode: required}", "required", False),
    ("{mode: forbidden}", None, False),
])
def test_each_spelling_loads(value: str, mode: str | None, ask_first: bool,
                             tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(config(value))
    tool = load_config(path, layers=False).servers["s"].tools["t"]
    assert (tool.task_support, tool.task_ask_first) == (mode, ask_first)
    assert schema_allows(config(value))


@pytest.mark.parametrize(("value", "key_path", "message"), [
    ("{ask_first: true}", "servers.s.tools.t.task_support",
     "missing required key 'mode' (forbidden | optional | required)"),
    ("{mode: sometimes}", "servers.s.tools.t.task_support.mode",
     "expected one of forbidden | optional | required, got 'sometimes'"),
    ("{mode: optional, ask_first: yes please}", "servers.s.tools.t.task_support.ask_first",
     "expected true or false, got a string"),
    ("{mode: optional, ask_frist: true}", "servers.s.tools.t.task_support.ask_frist",
     "unknown key"),
    ("{mode: forbidden, ask_first: true}", "servers.s.tools.t.task_support.ask_first",
     "ask_first is for a tool that runs as a task"),
    ("[optional]", "servers.s.tools.t.task_support",
     "expected forbidden | optional | required, or a mapping {mode, ask_first}, got a list"),
    ("7", "servers.s.tools.t.task_support",
     "expected forbidden | optional | required, or a mapping {mode, ask_first}, got an "
     "integer"),
])
def test_each_mistake_is_one_located_problem(value: str, key_path: str, message: str,
                                             tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(config(value))
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (7, key_path)
    assert problem.message.startswith(message), problem.message
    assert str(path) in str(problem.file)
    if "forbidden, ask_first" not in value:  # a rule across two keys: the loader's alone
        assert not schema_allows(config(value))
