"""A path rule whose path starts with an interpolated absolute path (``Edit(${HOME}/.bashrc)``
becomes ``Edit(/home/me/.bashrc)``, anchored at the rule's file, never matching) is a located
load error; the absolute forms the author writes (``//${HOME}/x``, ``~/x``) match; conditions
(``path_under``, ``path_glob``) read an interpolated absolute path as absolute."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config import load_config
from toolhost.config.interpolate import expand
from toolhost.errors import ConfigError
from toolhost.permissions import compile_policy

HOME = "/home/me"
ENV = {"HOME": HOME, "ETC": "/etc", "REL": "src", "EMPTY": "", "ROOT": "/"}


def _load(tmp_path: Path, rules: str, env: dict[str, str] | None = None) -> object:
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  default: allow\n{rules}")
    return load_config(config, environ=env or ENV, layers=False)


@pytest.mark.parametrize("rule", [
    "Edit(${HOME}/.bashrc)", "Read(${HOME}/.aws/**)", "Write(${ETC}/passwd)",
    "Grep(${HOME})", "LS( ${HOME}/x)", "NotebookEdit(${NOPE:-/srv}/x.ipynb)",
    "MultiEdit(${EMPTY}${HOME}/x)", "Glob(${HOME}${REL}/x)", "Read(${ROOT}etc/**)",
])
@pytest.mark.parametrize("form", ["  deny:\n    - '{rule}'\n",
                                  "  ask:\n    - tool: '{rule}'\n",
                                  "  allow:\n    - {{tool: '{rule}', message: m}}\n"])
def test_an_interpolated_absolute_path_at_the_start_is_a_located_load_error(
        tmp_path: Path, rule: str, form: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, form.format(rule=rule))
    text = str(caught.value)
    assert "toolhost.yaml:5:" in text, text
    assert "never matches" in text and rule.split("(")[0] + "(//" in text, text
    assert HOME not in text.replace("${HOME}", "")  # names the variable, not its value
    assert len(text.strip().splitlines()) == 1, text


@pytest.mark.parametrize("rule", [
    "Edit(//${HOME}/.bashrc)", "Edit(/${HOME}/.bashrc)", "Edit(~/.bashrc)",
    "Edit(${REL}/x)", "Edit(./${HOME}/x)", "Edit(/x/${HOME})", "Edit(${EMPTY}/docs/**)",
    "Bash(${HOME}/bin/tool:*)", "WebFetch(domain:${EMPTY}example.com)", "Edit",
    "mcp__${REL}__x",
])
def test_what_the_author_wrote_at_the_start_is_fine(tmp_path: Path, rule: str) -> None:
    _load(tmp_path, f"  deny:\n    - '{rule}'\n")


@pytest.mark.parametrize("rule", ["Edit(//${HOME}/.bashrc)", "Edit(/${HOME}/.bashrc)",
                                  "Edit(~/.bashrc)"])
def test_the_forms_the_error_suggests_match_the_absolute_path(tmp_path: Path,
                                                              rule: str) -> None:
    env = {**ENV, "HOME": os.path.expanduser("~")}
    config = _load(tmp_path, f"  deny:\n    - '{rule}'\n", env)
    policy = compile_policy(config.permissions)  # type: ignore[attr-defined]
    target = os.path.join(os.path.expanduser("~"), ".bashrc")
    assert policy.decide("Edit", {"file_path": target}).behavior == "deny"
    assert policy.decide("Edit", {"file_path": "/elsewhere/.bashrc"}).behavior == "allow"


@pytest.mark.parametrize("condition", ["{path_under: '${HOME}/notes'}",
                                       "{path_glob: '${HOME}/notes/**'}",
                                       "{path_under: '//${HOME}/notes'}",
                                       "{path_glob: '//${HOME}//notes/**'}"])
def test_conditions_read_an_interpolated_absolute_path_as_absolute(tmp_path: Path,
                                                                   condition: str) -> None:
    config = _load(tmp_path, "  deny:\n    - tool: Read\n"
                             f"      when: {{file_path: {condition}}}\n")
    policy = compile_policy(config.permissions)  # type: ignore[attr-defined]
    assert policy.decide("Read", {"file_path": f"{HOME}/notes/a.md"}).behavior == "deny"
    assert policy.decide("Read", {"file_path": f"{tmp_path}{HOME}/notes/a"}).behavior == "allow"


def test_validate_reports_it_with_the_line_and_the_fix(tmp_path: Path) -> None:
    config = tmp_path / "team.yaml"
    config.write_text("toolhost: 1\npermissions:\n  deny:\n    - Read(//${HOME}/.ssh/**)\n"
                      "    - Edit(${HOME}/.bashrc)\n")
    out = run_cli(["validate", str(config)], env={"HOME": str(tmp_path)})
    assert out.returncode == 1
    lines = [x for x in out.stderr.splitlines() if "never matches" in x]
    assert len(lines) == 1 and lines[0].startswith(f"{config}:5:"), out.stderr
    assert "Edit(//${HOME}/.bashrc)" in lines[0] and "Edit(~/.bashrc)" in lines[0]


@pytest.mark.parametrize(("text", "spans"), [
    ("a${HOME}b", [(1, 9)]), ("${EMPTY}${HOME}", [(0, 0), (0, 8)]),
    ("$${HOME}${REL}", [(7, 10)]), ("$x${NOPE:-${REL}}", [(2, 5)]), ("plain", []),
])
def test_expand_says_where_substituted_values_sit(text: str, spans: list[tuple[int, int]]
                                                  ) -> None:
    found: list[tuple[int, int]] = []
    expand(text, ENV, spans=found)
    assert found == spans
