"""Numbers only YAML 1.1 reads so (``0755`` octal, ``1:30`` base 60) are refused at their
line, never passed on changed (``command: [chmod, 0755, f]`` ran ``chmod 493 f``); a second
merge key ``<<`` in one mapping is a duplicate key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.cli import main

REFUSED = [
    ("command: [chmod, 0755, f]", "command[1]: '0755' is an octal number in YAML 1.1 (493)"),
    ("command: [at, 12:30]", "command[1]: '12:30' is a base-60 number in YAML 1.1 (750)"),
    ("command: [x, -010]", "command[1]: '-010' is an octal number in YAML 1.1 (-8)"),
    ("command: [x, 1:30.5]", "command[1]: '1:30.5' is a base-60 number in YAML 1.1 (90.5)"),
    ("timeout: 1:20\n        command: [echo]", "timeout: '1:20' is a base-60 number"),
    ("max_output_chars: 0100\n        command: [echo]",
     "max_output_chars: '0100' is an octal number in YAML 1.1 (64)"),
    ("command: [echo, '{{ p }}']\n        params: {p: {type: integer, default: 010}}",
     "params.p.default: '010' is an octal number"),
    ("command: [echo, '{{ p }}']\n        params: {p: {type: integer, enum: [1, 2:00]}}",
     "params.p.enum[1]: '2:00' is a base-60 number in YAML 1.1 (120)"),
]
# (-0, +0, 0x1F, 1_000 and 0b1 read alike in every YAML, but in argv they would reach the
# program as Python writes them, '0', '31', '1000': refused, tests/config/test_spelled_integers.py;
# where a number is meant they are kept, as the last line here)
KEPT = ["command: [echo, 0, '0x1F', '0755', \"1:30\", '1e5']",
        "command: [echo, 7, 10, -12, '3.25']",  # a float in argv: tests/config/test_argv_floats.py
        "command: [echo]\n        max_output_chars: 0x1F_00\n        timeout: +1_0"]


def _validate(tmp_path: Path, tool: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    config = tmp_path / "c.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      f"        description: d\n        {tool}\n")
    code = main(["validate", "--no-layers", str(config)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("tool", "said"), REFUSED)
def test_a_yaml_1_1_only_number_is_refused_at_its_line(
        tmp_path: Path, tool: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _validate(tmp_path, tool, capsys)
    key = said.split(":")[0].split("[")[0].split(".")[-1]
    line = 7 if key in tool.split("\n")[0] else 8
    assert code == 1 and f"c.yaml:{line}:" in err and said in err and "quote it" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("tool", KEPT)
def test_numbers_every_yaml_reads_alike_are_kept(
        tmp_path: Path, tool: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _validate(tmp_path, tool, capsys)
    assert code == 0, err


def test_a_second_merge_key_is_a_duplicate(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n"
                      "    <<: {tools: {a: {description: d, command: [echo]}}}\n"
                      "    <<: {tools: {b: {description: d, command: [echo]}}}\n")
    assert main(["validate", "--no-layers", str(config)]) == 1
    err = capsys.readouterr().err
    assert "c.yaml:5:5: servers.s: duplicate key '<<'" in err and "<<: [*a, *b]" in err, err


def test_an_openapi_document_is_read_as_before() -> None:
    from toolhost.config.yaml_source import parse_yaml

    text = "paths: {}\ncomponents: {schemas: {t: {type: string, example: 12:30, default: 0755}}}\n"
    problems: list[Any] = []
    doc = parse_yaml(text, "api.yaml", "openapi", problems)  # someone else's document
    assert problems == [] and doc is not None
    assert doc.data["components"]["schemas"]["t"]["default"] == 493
    parse_yaml(text, "c.yaml", "project", problems)  # a config's text: refused
    assert [p.key_path for p in problems] == ["components.schemas.t.example",
                                              "components.schemas.t.default"]
