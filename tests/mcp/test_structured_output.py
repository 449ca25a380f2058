"""Structured tool output as a validating client reads it: every ``structuredContent`` a
python tool's return annotation promises fits the ``outputSchema`` listed for it, formats
included (the official clients validate one against the other)."""

from __future__ import annotations

import sys
from typing import Any

import jsonschema
import pytest

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer

from .mcp_testtools import ask

MODULE = '''\
import dataclasses, datetime
from typing import TypedDict
import pydantic
from pydantic.alias_generators import to_camel

class Person(pydantic.BaseModel):
    first_name: str = pydantic.Field(alias="firstName")
    born: datetime.date = datetime.date(1990, 5, 17)

class Camel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=to_camel,
                                       populate_by_name=True)
    user_id: int = 1
    seen_at: datetime.datetime = datetime.datetime(2026, 1, 2, 3, 4, 5,
                                                   tzinfo=datetime.timezone.utc)

@dataclasses.dataclass
class Event:
    name: str
    at: datetime.datetime
    day: datetime.date
    clock: datetime.time

class Slot(TypedDict):
    at: datetime.datetime

@dataclasses.dataclass
class Blob:
    name: str
    data: bytes

AT = datetime.datetime(2026, 11, 27, 8, 30, tzinfo=datetime.timezone.utc)

def person() -> Person:
    return Person(firstName="Ada")

def people() -> list[Person]:
    return [Person(firstName="Ada"), Person(firstName="Bob")]

def camel() -> Camel:
    return Camel()

def event() -> Event:
    return Event("launch", AT, AT.date(), datetime.time(8, 30, tzinfo=datetime.timezone.utc))

def slot() -> Slot:
    return {"at": AT}

def nested() -> dict[str, list[Event]]:
    return {"events": [event()]}

def blob() -> Blob:
    return Blob("x", b"\\x00\\x01hi")
'''

TOOLS = ["person", "people", "camel", "event", "slot", "nested", "blob"]
CONFIG = "toolhost: 1\nservers:\n  kb:\n    tools:\n" + "".join(
    f'      {name}: {{python: "structured_out:{name}"}}\n' for name in TOOLS
) + "permissions:\n  default: allow\n"


@pytest.fixture(scope="module")
def listed_and_called(tmp_path_factory: pytest.TempPathFactory
                      ) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    root = tmp_path_factory.mktemp("structured")
    (root / "structured_out.py").write_text(MODULE)
    (root / "kb.yaml").write_text(CONFIG)
    try:
        compiled = compile_tools(load_config(root / "kb.yaml", layers=False))
    finally:
        sys.modules.pop("structured_out", None)
    server = McpServer("kb", "1", compiled.servers["kb"])
    tools = {t["name"]: t for t in ask(server, "tools/list", {})["result"]["tools"]}
    return {name: (tools[name], ask(server, "tools/call", {"name": name, "arguments": {}})
                   ["result"]) for name in TOOLS}


@pytest.mark.parametrize("name", TOOLS)
def test_structured_content_fits_the_listed_output_schema(
        name: str, listed_and_called: dict[str, tuple[dict[str, Any], dict[str, Any]]]) -> None:
    tool, result = listed_and_called[name]
    assert "outputSchema" in tool, name
    assert not result.get("isError"), result["content"]
    jsonschema.validate(result["structuredContent"], tool["outputSchema"],
                        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_aliases_and_times_are_written_as_json_clients_expect(
        listed_and_called: dict[str, tuple[dict[str, Any], dict[str, Any]]]) -> None:
    assert listed_and_called["person"][1]["structuredContent"] == {
        "firstName": "Ada", "born": "1990-05-17"}
    assert listed_and_called["camel"][1]["structuredContent"] == {
        "userId": 1, "seenAt": "2026-01-02T03:04:05Z"}
    assert listed_and_called["event"][1]["structuredContent"] == {
        "name": "launch", "at": "2026-11-27T08:30:00+00:00", "day": "2026-11-27",
        "clock": "08:30:00+00:00"}
    assert listed_and_called["slot"][1]["structuredContent"] == {
        "at": "2026-11-27T08:30:00+00:00"}
    # bytes as a bytes parameter takes them (the schema says base64), not their repr
    assert listed_and_called["blob"][1]["structuredContent"] == {"name": "x", "data": "AAFoaQ=="}
