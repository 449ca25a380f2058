"""A schema that ``allOf`` names and that reaches itself through ``allOf``/``anyOf``/
``oneOf``/``items``/``not``: openapi-spec-validator's collection of property names used to
recurse until the stack ran out. A recursive schema so written (a list of lists, a
``JsonValue``) is valid and is imported; a cycle that never reaches a value is refused by
toolhost's own located problem alone (before, with an extra line at ``1:1`` and no key path,
"the document nests too deeply to check", and the valid ones were refused by that line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

S = "#/components/schemas/"
VERSIONS = ["3.0.3", "3.1.0"]


def problems(tmp_path: Path, version: str, schemas: dict[str, Any]) -> list[str]:
    """What ``toolhost validate`` says of a document whose one operation's body is
    ``schemas['A']`` (its lines; none when it is valid)."""
    doc = {"openapi": version, "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": schemas},
           "paths": {"/a": {"post": {
               "operationId": "a", "responses": {"200": {"description": "ok"}},
               "requestBody": {"content": {"application/json": {
                   "schema": {"$ref": S + "A"}}}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc, indent=1))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "TOOLHOST_CACHE": str(tmp_path)})
    assert "Traceback" not in done.stderr
    if done.returncode == 0:
        return []
    return [line for line in done.stderr.splitlines() if line.strip()]


def ref(name: str) -> dict[str, str]:
    return {"$ref": S + name}


CYCLES = {
    "allOf": {"A": {"allOf": [ref("B")]}, "B": {"allOf": [ref("A")]}},
    "anyOf": {"A": {"anyOf": [ref("B")]}, "B": {"anyOf": [ref("A")]}},
    "oneOf": {"A": {"oneOf": [ref("B")]}, "B": {"oneOf": [ref("A")]}},
    "not": {"A": {"not": ref("B")}, "B": {"not": ref("A")}},
    "mixed": {"A": {"anyOf": [ref("B")]},
              "B": {"oneOf": [{"type": "string"}, {"allOf": [ref("A")]}]}},
    "itself": {"A": {"allOf": [ref("A")]}},
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("schemas", list(CYCLES.values()), ids=list(CYCLES))
def test_a_cycle_of_parts_is_only_its_located_problem(tmp_path: Path, version: str,
                                                      schemas: dict[str, Any]) -> None:
    found = problems(tmp_path, version, schemas)
    assert len(found) == 1, found
    assert "api.json:" in found[0] and "paths./a.post" in found[0]
    assert "cycle" in found[0]
    assert "nests too deeply" not in "\n".join(found)


RECURSIVE = {
    "list of lists": {"A": {"allOf": [ref("B")]},
                      "B": {"type": "array", "items": ref("C")},
                      "C": {"type": "array", "items": ref("B")}},
    "JsonValue": {"A": {"allOf": [ref("V")], "description": "any JSON value"},
                  "V": {"anyOf": [{"type": "string"}, {"type": "number"},
                                  {"type": "array", "items": ref("V")}]}},
    "a part's items": {"A": {"allOf": [{"type": "array", "items": ref("A")}]}},
    "a cycle no operation uses": {"A": {"type": "string"}, "X": {"allOf": [ref("Y")]},
                                  "Y": {"allOf": [ref("X")]}},
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("schemas", list(RECURSIVE.values()), ids=list(RECURSIVE))
def test_a_recursive_schema_named_by_allof_is_imported(tmp_path: Path, version: str,
                                                       schemas: dict[str, Any]) -> None:
    assert problems(tmp_path, version, schemas) == []


def test_required_still_checked_through_the_parts(tmp_path: Path) -> None:
    """The guarded collection finds the names the validator's own did: a ``required`` name
    no part defines is still its problem, one a recursive part defines is not."""
    base = {"type": "object", "properties": {"id": {"type": "string"},
                                              "kids": {"type": "array", "items": ref("N")}}}
    ok = {"A": {"allOf": [ref("N")], "required": ["id"]}, "N": base}
    assert problems(tmp_path, "3.1.0", ok) == []
    bad = {"A": {"allOf": [ref("N")], "required": ["nope"]}, "N": base}
    assert any("nope" in p for p in problems(tmp_path, "3.1.0", bad))
