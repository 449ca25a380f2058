"""Every annotation shape the schema generator accepts gets its argument converted as the
annotation says (through ``Optional``, ``Union`` members, recursive dataclasses, ``**kwargs``,
lists and dicts, ``Literal``), in-process and in a worker; ``bytes`` that are not base64 are an
argument error."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

Config = Callable[..., HostConfig]

MODULE = '''
from __future__ import annotations
import dataclasses, datetime, enum, json, uuid
from typing import Literal, Optional, TypedDict, Union

@dataclasses.dataclass
class DC:
    n: int
    inner: Optional[DC] = None

@dataclasses.dataclass
class Other:
    when: datetime.date

class TD(TypedDict):
    d: datetime.date

class Mode(enum.Enum):
    UP = "up"

def desc(v):
    """The types in ``v``, for the test to compare."""
    if dataclasses.is_dataclass(v):
        return [type(v).__name__, {f.name: desc(getattr(v, f.name)) for f in dataclasses.fields(v)}]
    if isinstance(v, dict):
        return {k: desc(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set)):
        return [type(v).__name__, [desc(x) for x in v]]
    return type(v).__name__

def opt_dc(a: Optional[DC] = None) -> str: return json.dumps(desc(a))
def pipe_dc(a: DC | None = None) -> str: return json.dumps(desc(a))
def rec_dc(a: DC) -> str: return json.dumps(desc(a))
def union_dc_int(a: Union[DC, int]) -> str: return json.dumps(desc(a))
def union_int_dc(a: Union[int, DC]) -> str: return json.dumps(desc(a))
def union_date_int(a: Union[datetime.date, int]) -> str: return json.dumps(desc(a))
def union_date_str(a: Union[datetime.date, str]) -> str: return json.dumps(desc(a))
def union_dcs(a: Union[DC, Other]) -> str: return json.dumps(desc(a))
def union_td_dc(a: Union[TD, DC]) -> str: return json.dumps(desc(a))
def union_enum_int(a: Union[Mode, int]) -> str: return json.dumps(desc(a))
def union_uuid_none(a: Optional[uuid.UUID] = None) -> str: return json.dumps(desc(a))
def opt_list_dc(a: Optional[list[DC]] = None) -> str: return json.dumps(desc(a))
def list_opt_dc(a: list[Optional[DC]]) -> str: return json.dumps(desc(a))
def dict_union(a: dict[str, Union[DC, int]]) -> str: return json.dumps(desc(a))
def kw_dc(**kw: DC) -> str: return json.dumps(desc(kw))
def kw_opt_date(**kw: Optional[datetime.date]) -> str: return json.dumps(desc(kw))
def kw_int(**kw: int) -> str: return json.dumps(desc(kw))
def lit(a: Literal[1, 2, "x"]) -> str: return json.dumps(desc(a))
def lit_enum(a: Literal[Mode.UP]) -> str: return json.dumps(desc(a))
def td_in_opt(a: Optional[TD] = None) -> str: return json.dumps(desc(a))
def tuple_union(a: tuple[Union[DC, int], datetime.date]) -> str: return json.dumps(desc(a))
def raw(a: bytes) -> str: return json.dumps([desc(a), a.decode("latin-1")])
'''

DC1 = ["DC", {"n": "int", "inner": "NoneType"}]
CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("opt_dc", {"a": {"n": 1.0}}, DC1),
    ("opt_dc", {"a": None}, "NoneType"),
    ("pipe_dc", {"a": {"n": 1.0}}, DC1),
    ("rec_dc", {"a": {"n": 1, "inner": {"n": 2.0}}},
     ["DC", {"n": "int", "inner": DC1}]),
    ("rec_dc", {"a": {"n": 1, "inner": {"n": 2, "inner": {"n": 3.0}}}},
     ["DC", {"n": "int", "inner": ["DC", {"n": "int", "inner": DC1}]}]),
    ("union_dc_int", {"a": {"n": 1}}, DC1),
    ("union_dc_int", {"a": 3.0}, "int"),
    ("union_int_dc", {"a": {"n": 1.0}}, DC1),
    ("union_int_dc", {"a": 3}, "int"),
    ("union_date_int", {"a": "2024-01-01"}, "date"),
    ("union_date_int", {"a": 5.0}, "int"),
    ("union_date_str", {"a": "2024-01-01"}, "date"),
    ("union_date_str", {"a": "soon"}, "str"),
    ("union_dcs", {"a": {"n": 2.0}}, DC1),
    ("union_dcs", {"a": {"when": "2024-01-01"}}, ["Other", {"when": "date"}]),
    ("union_td_dc", {"a": {"d": "2024-01-01"}}, {"d": "date"}),
    ("union_td_dc", {"a": {"n": 1.0}}, DC1),
    ("union_enum_int", {"a": "up"}, "Mode"),
    ("union_enum_int", {"a": 7.0}, "int"),
    ("union_uuid_none", {"a": "12345678-1234-1234-1234-123456789012"}, "UUID"),
    ("opt_list_dc", {"a": [{"n": 1.0}]}, ["list", [DC1]]),
    ("list_opt_dc", {"a": [{"n": 1.0}, None]}, ["list", [DC1, "NoneType"]]),
    ("dict_union", {"a": {"x": {"n": 1.0}, "y": 2.0}}, {"x": DC1, "y": "int"}),
    ("kw_dc", {"x": {"n": 1.0}, "y": {"n": 2}}, {"x": DC1, "y": DC1}),
    ("kw_opt_date", {"x": "2024-01-01", "y": None}, {"x": "date", "y": "NoneType"}),
    ("kw_int", {"x": 1.0}, {"x": "int"}),
    ("lit", {"a": 1.0}, "int"),
    ("lit", {"a": "x"}, "str"),
    ("lit_enum", {"a": "up"}, "Mode"),
    ("td_in_opt", {"a": {"d": "2024-01-01"}}, {"d": "date"}),
    ("tuple_union", {"a": [{"n": 1.0}, "2024-01-01"]}, ["tuple", [DC1, "date"]]),
    ("tuple_union", {"a": [4.0, "2024-01-01"]}, ["tuple", ["int", "date"]]),
]


@pytest.fixture
def shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_shapes_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _tools(module: str, isolation: str) -> dict[str, dict[str, Any]]:
    names = sorted({c[0] for c in CASES} | {"raw"})
    return {n: {"kind": "python", "options": {"function": f"{module}:{n}",
                                              "isolation": isolation}} for n in names}


@pytest.mark.anyio
@pytest.mark.parametrize("isolation", ["in-process", "process"])
async def test_arguments_arrive_as_their_annotations_say(config: Config, shapes: str,
                                                         isolation: str) -> None:
    compiled = compile_tools(config(_tools(shapes, isolation)))
    try:
        wrong = []
        for tool, arguments, expected in CASES:
            result = await compiled.tool("demo", tool).call(arguments, CallContext(tool=tool))
            assert not result.is_error, (tool, arguments, result.text_content)
            got = json.loads(result.text_content)
            if got != expected:
                wrong.append((tool, arguments, got, expected))
        assert not wrong
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "ok"), [
    ("aGk=", True), ("aGVsbG8h", True), ("", True), ("YQ==", True),
    ("!!!!", False), ("a", False), ("aGk", False), ("aGk=\n", False), ("aG k=", False),
    ("aGk==", False), ("=aGk", False), ("aGk=aGk=", False), ("a-_b", False),
])
async def test_bytes_must_be_base64(config: Config, shapes: str, text: str, ok: bool) -> None:
    compiled = compile_tools(config(_tools(shapes, "in-process")))
    try:
        result = await compiled.tool("demo", "raw").call({"a": text}, CallContext())
        if ok:
            assert not result.is_error
            assert json.loads(result.text_content)[0] == "bytes"
        else:
            assert result.is_error
            assert result.text_content.startswith("Invalid arguments for tool 'raw': a: ")
    finally:
        await compiled.aclose()
