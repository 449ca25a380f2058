"""``UUID`` is known without importing uuid at load: a function annotated with it has imported
it, and the mapper then adds it to its tables."""

from __future__ import annotations

import uuid

import pytest

from toolhost.compile.pytypes import TypeMapper, UnsupportedType
from toolhost.compile.signature import inspect_callable


def fetch(id: uuid.UUID, ids: list[uuid.UUID]) -> str:
    return f"{id} {ids}"


def test_a_uuid_param_is_a_string_in_uuid_format_and_arrives_as_a_uuid() -> None:
    info = inspect_callable(fetch)
    props = info.input_schema["properties"]
    assert props["id"] == {"type": "string", "format": "uuid"}
    assert props["ids"]["items"] == {"type": "string", "format": "uuid"}
    value = "12345678-1234-5678-1234-567812345678"
    assert info.converters["id"](value) == uuid.UUID(value)
    assert info.converters["ids"]([value]) == [uuid.UUID(value)]


def test_a_uuid_subclass_is_no_uuid() -> None:
    class Tagged(uuid.UUID):
        pass

    assert TypeMapper().schema(uuid.UUID) == {"type": "string", "format": "uuid"}
    with pytest.raises(UnsupportedType):  # as before: the tables match the class itself
        TypeMapper().schema(Tagged)
