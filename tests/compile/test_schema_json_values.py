"""A schema value JSON cannot carry (an Enum of dates, Decimals or objects, a bytes Literal, a
NaN, a date in Annotated metadata) is a located load error naming the parameter, never a
tools/list that fails for the whole server; an Enum of tuples is advertised as lists and the
lists it advertises are accepted back."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODULE = '''
import dataclasses, datetime, decimal, enum
from typing import Annotated, Literal

class DateE(enum.Enum):
    D = datetime.date(2024, 1, 1)

class DecE(enum.Enum):
    D = decimal.Decimal("1.5")

class ObjE(enum.Enum):
    O = object()

class NanE(enum.Enum):
    N = float("nan")

class SetE(enum.Enum):
    S = frozenset({1})

class MixedE(enum.Enum):
    OK = "ok"
    BAD = datetime.time(1, 2)

class TupleE(enum.Enum):
    A = (1, 2)
    B = (3, ("x", 4))

@dataclasses.dataclass
class Holder:
    e: DateE

def date_e(a: DateE) -> str: return repr(a)
def dec_e(a: DecE) -> str: return repr(a)
def obj_e(a: ObjE) -> str: return repr(a)
def nan_e(a: NanE) -> str: return repr(a)
def set_e(a: SetE) -> str: return repr(a)
def mixed_e(a: MixedE) -> str: return repr(a)
def list_of_e(a: list[DateE]) -> str: return repr(a)
def nested_e(a: Holder) -> str: return repr(a)
def bytes_lit(a: Literal[b"x"]) -> str: return repr(a)
def meta_date(a: Annotated[int, {"examples": [datetime.date(2024, 1, 1)]}] = 1) -> str:
    return repr(a)
def tuple_e(a: TupleE) -> str: return repr(a)
def fine(a: int) -> str: return repr(a)
'''

BAD = {
    "date_e": "the Enum DateE's member D has the value datetime.date(2024, 1, 1)",
    "dec_e": "the Enum DecE's member D has the value Decimal('1.5')",
    "obj_e": "the Enum ObjE's member O has the value <object object at",
    "set_e": "the Enum SetE's member S has the value frozenset({1})",
    "mixed_e": "the Enum MixedE's member BAD has the value datetime.time(1, 2)",
    "list_of_e": "the Enum DateE's member D",
    "nested_e": "the Enum DateE's member D",
    "nan_e": "inputSchema is not JSON: at properties.a.enum[0]: nan",
    "bytes_lit": "inputSchema is not JSON: at properties.a.enum[0]: b'x'",
    "meta_date": "inputSchema is not JSON: at properties.a.examples[0]: datetime.date(2024, 1, 1)",
}


def _toolhost(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=60, check=False)


def _config(tmp_path: Path, tools: list[str]) -> Path:
    (tmp_path / "enum_tools.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  e:", "    tools:"]
    lines += [f"      {t}: {{python: 'enum_tools:{t}'}}" for t in tools]
    path = tmp_path / "enums.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("tool", "message"), list(BAD.items()))
def test_a_value_json_cannot_carry_is_a_located_load_error(tmp_path: Path, tool: str,
                                                            message: str) -> None:
    config = _config(tmp_path, ["fine", tool])
    for command in (["validate", str(config)], ["tools", str(config), "--json"]):
        done = _toolhost(*command, cwd=tmp_path)
        assert done.returncode != 0
        out = done.stdout + done.stderr
        assert "enums.yaml:7:" in out and f"servers.e.tools.{tool}" in out, out
        assert message in out, out
        assert "Traceback" not in out and "internal error" not in out


def test_an_enum_of_tuples_takes_the_lists_it_advertises(tmp_path: Path) -> None:
    config = _config(tmp_path, ["tuple_e"])
    listed = _toolhost("tools", str(config), "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert '"enum":[[1,2],[3,["x",4]]]' in "".join(listed.stdout.split())
    for sent, member in (([1, 2], "TupleE.A"), ([3, ["x", 4]], "TupleE.B")):
        done = _toolhost("call", str(config), "e.tuple_e", "--json", json.dumps({"a": sent}),
                         cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"<{member}: " in done.stdout
    wrong = _toolhost("call", str(config), "e.tuple_e", "--json", '{"a": [1, 3]}', cwd=tmp_path)
    assert wrong.returncode != 0 and "Invalid arguments" in wrong.stdout + wrong.stderr
