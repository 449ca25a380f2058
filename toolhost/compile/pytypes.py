"""Python type annotations -> JSON Schema, and JSON values -> the Python objects they describe.

``TypeMapper.schema(tp)`` understands str/int/float/bool/None, ``Any``, ``list[T]`` /
``Sequence[T]`` / ``set[T]``, ``tuple[T, ...]`` and fixed tuples, ``dict[str, T]``, unions and
``T | None``, ``Literal``, ``Enum``, ``TypedDict``, dataclasses, pydantic models (when pydantic is
installed), ``Annotated[T, "description"]`` (a dict in the metadata is merged into the schema),
``datetime``/``date``/``time``/``UUID``/``Path``/``bytes`` (base64). Recursive classes go to
``$defs``. ``TypeMapper.converter(tp)`` builds the function that turns the validated JSON
argument back into that type (a dict into the dataclass, a string into the Enum member, ...).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import pathlib
import sys
import types
import typing
from collections import abc
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from toolhost.compile.pyunions import literal_converter, schema_kinds, union_converter

__all__ = ["Converter", "TypeMapper", "UnsupportedType", "is_object_type", "jsonable"]

Converter = Callable[[Any], Any]
NoneType = type(None)
_V = TypeVar("_V")

# standard base64, padded: what the schema promises (jsonschema does not check
# contentEncoding), so text that is not base64 is an argument error, never silently dropped
BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
_SIMPLE: dict[Any, dict[str, Any]] = {
    str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
    bool: {"type": "boolean"}, NoneType: {"type": "null"},
    dt.datetime: {"type": "string", "format": "date-time"},
    dt.date: {"type": "string", "format": "date"},
    dt.time: {"type": "string", "format": "time"},
    pathlib.Path: {"type": "string"}, pathlib.PurePath: {"type": "string"},
    bytes: {"type": "string", "contentEncoding": "base64", "pattern": BASE64_PATTERN},
}
_PARSERS: dict[Any, Converter] = {
    dt.datetime: dt.datetime.fromisoformat, dt.date: dt.date.fromisoformat,
    dt.time: dt.time.fromisoformat, pathlib.Path: pathlib.Path,
    pathlib.PurePath: pathlib.PurePath,
    bytes: lambda v: base64.b64decode(v, validate=True),
}
_LISTS = {list, abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection}
_SETS = {set, frozenset, abc.Set, abc.MutableSet}
_MAPS = {dict, abc.Mapping, abc.MutableMapping}


class UnsupportedType(TypeError):
    """An annotation that has no JSON Schema."""


def _pydantic_model(tp: Any) -> bool:
    # A class can only be a pydantic model if pydantic is loaded already: never import it
    # (about 20 ms) just to answer no. pydantic is optional.
    pydantic = sys.modules.get("pydantic")
    base = getattr(pydantic, "BaseModel", None)
    return base is not None and isinstance(tp, type) and issubclass(tp, base)


def _is_class_object(tp: Any) -> bool:
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or typing.is_typeddict(tp))


def is_object_type(tp: Any) -> bool:
    """True for annotations whose values are JSON objects (dataclass, TypedDict, model, dict)."""
    tp = _strip_annotated(tp)
    origin = typing.get_origin(tp) or tp
    return _is_class_object(tp) or _pydantic_model(tp) or origin in _MAPS


# TypedDict key qualifiers: they say whether a key is required, not what its value is.
_QUALIFIERS = (typing.Required, typing.NotRequired)


def _lookup(table: Mapping[Any, _V], tp: Any) -> _V | None:
    # `Annotated[T, {...}]` (dict metadata) cannot be hashed, nor can anything containing it
    try:
        found = table.get(tp)
    except TypeError:
        return None
    uuid = sys.modules.get("uuid")  # imported by whoever annotates with it (~3 ms otherwise)
    if found is None and uuid is not None and tp is uuid.UUID:
        _SIMPLE[uuid.UUID] = {"type": "string", "format": "uuid"}
        _PARSERS[uuid.UUID] = uuid.UUID
        found = table.get(tp)
    return found


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated or typing.get_origin(tp) in _QUALIFIERS:
        tp = typing.get_args(tp)[0]
    return tp


def _uniform_type(values: list[Any]) -> dict[str, Any]:
    kinds = {type(v) for v in values}
    for py, name in ((bool, "boolean"), (str, "string"), (int, "integer"), (float, "number")):
        if kinds == {py}:
            return {"type": name}
    return {}


class TypeMapper:
    """One mapping session; collects ``$defs`` shared by all the schemas it produces."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self._stack: list[Any] = []
        self._recursive: set[Any] = set()
        self._done: dict[Any, Converter] = {}

    # -- schema -------------------------------------------------------------------------------
    def schema(self, tp: Any) -> dict[str, Any]:
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated:  # first: with dict metadata it cannot be hashed
            return self._annotated(args)
        if tp is Any or tp is object or tp is typing.Any:
            return {}
        if (simple := _lookup(_SIMPLE, tp)) is not None:
            return dict(simple)
        if isinstance(tp, typing.NewType):
            return self.schema(tp.__supertype__)
        if origin in _QUALIFIERS:
            return self.schema(args[0])
        if origin is typing.Literal:
            values = [v.value if isinstance(v, enum.Enum) else v for v in args]
            return {**_uniform_type(values), "enum": values}
        if origin is typing.Union or origin is types.UnionType:
            return self._union(args)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            values = [_enum_value(tp, m) for m in tp]
            return {**_uniform_type(values), "enum": values, "title": tp.__name__}
        if _pydantic_model(tp):
            return self._pydantic(tp)
        if _is_class_object(tp):
            return self._class_object(tp)
        base = origin or tp
        if base in _LISTS or base in _SETS:
            item = self.schema(args[0]) if args else {}
            out = {"type": "array", "items": item}
            return {**out, "uniqueItems": True} if base in _SETS else out
        if base is tuple:
            return self._tuple(args)
        if base in _MAPS:
            if args and args[0] not in (str, Any):
                raise UnsupportedType(f"dict keys must be str, not {args[0]!r}")
            return {"type": "object", "additionalProperties": self.schema(args[1]) if args else {}}
        raise UnsupportedType(f"no JSON Schema for the annotation {tp!r}")

    def _annotated(self, args: tuple[Any, ...]) -> dict[str, Any]:
        out = self.schema(args[0])
        for meta in args[1:]:
            if isinstance(meta, str):
                out["description"] = meta
            elif isinstance(meta, dict):
                out.update(meta)
            else:
                if isinstance(getattr(meta, "description", None), str):  # pydantic.Field(...)
                    out["description"] = meta.description
                _constraints(meta, out, 0)
        return out

    def _union(self, args: tuple[Any, ...]) -> dict[str, Any]:
        variants = [self.schema(a) for a in args if a is not NoneType]
        nullable = NoneType in args
        simple = [v.get("type") for v in variants if set(v) == {"type"}]
        if len(simple) == len(variants) and all(isinstance(t, str) for t in simple):
            names = list(dict.fromkeys(simple + (["null"] if nullable else [])))
            return {"type": names[0] if len(names) == 1 else names}
        if nullable:
            variants.append({"type": "null"})
        return variants[0] if len(variants) == 1 else {"anyOf": variants}

    def _tuple(self, args: tuple[Any, ...]) -> dict[str, Any]:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            return {"type": "array", "items": self.schema(args[0]) if args else {}}
        prefix = [self.schema(a) for a in args]
        # `items` is kept (the Claude API wants it on every array): any of the member types.
        return {"type": "array", "prefixItems": prefix, "items": {"anyOf": prefix},
                "minItems": len(args), "maxItems": len(args)}

    def _pydantic(self, tp: Any) -> dict[str, Any]:
        schema: dict[str, Any] = tp.model_json_schema(ref_template="#/$defs/{model}")
        self.defs.update(schema.pop("$defs", {}))
        return schema

    def _class_object(self, tp: Any) -> dict[str, Any]:
        if tp in self._stack:
            self._recursive.add(tp)
            return {"$ref": f"#/$defs/{tp.__name__}"}
        self._stack.append(tp)
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
            props: dict[str, Any] = {}
            required: list[str] = []
            if typing.is_typeddict(tp):
                for name, hint in hints.items():
                    props[name] = self.schema(hint)
                required = [n for n, hint in hints.items() if _typeddict_required(tp, n, hint)]
            else:
                for f in dataclasses.fields(tp):
                    if not f.init:
                        continue
                    props[f.name] = self.schema(hints.get(f.name, Any))
                    if isinstance(f.metadata.get("description"), str):
                        props[f.name]["description"] = f.metadata["description"]
                    if f.default is not dataclasses.MISSING:
                        if jsonable(f.default):
                            props[f.name]["default"] = f.default
                    elif f.default_factory is dataclasses.MISSING:
                        required.append(f.name)
        finally:
            self._stack.pop()
        out: dict[str, Any] = {"type": "object", "title": tp.__name__, "properties": props,
                               "additionalProperties": False}
        if required:
            out["required"] = required
        if tp in self._recursive:
            self.defs[tp.__name__] = out
            return {"$ref": f"#/$defs/{tp.__name__}"}
        return out

    # -- conversion ---------------------------------------------------------------------------
    def converter(self, tp: Any) -> Converter | None:
        """A function from the JSON value to ``tp``; None when the JSON value is already right."""
        tp = _strip_annotated(tp)
        if isinstance(tp, typing.NewType):
            return self.converter(tp.__supertype__)
        if (parser := _lookup(_PARSERS, tp)) is not None:
            return parser
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Literal:
            return literal_converter(args)
        if origin is typing.Union or origin is types.UnionType:
            return self._union_converter(args)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            if any(isinstance(m.value, tuple) for m in tp):  # sent as a list
                return lambda v: tp(_tuples(v))
            return tp
        if _pydantic_model(tp):
            validate: Converter = tp.model_validate
            return validate
        if _is_class_object(tp):
            return self._object_converter(tp)
        base = origin or tp
        if base is tuple and args and args[-1] is not Ellipsis:
            convs = [self.converter(a) or _same for a in args]
            return lambda v: tuple(c(x) for c, x in zip(convs, v, strict=False))
        if base in _LISTS or base in _SETS or base is tuple:
            item = self.converter(args[0]) if args else None
            make: Callable[[Any], Any] = list
            if base is tuple:
                make = tuple
            elif base in _SETS:
                make = set if base in (set, abc.MutableSet) else frozenset
            if item is None:
                return None if make is list else make
            conv_item = item
            return lambda v: make(conv_item(x) for x in v)
        if base in _MAPS and len(args) == 2:
            conv_value = self.converter(args[1])
            if conv_value is not None:
                return lambda v: {k: conv_value(x) for k, x in v.items()}
        return None

    def _union_converter(self, args: tuple[Any, ...]) -> Converter | None:
        inner = [a for a in args if a is not NoneType]
        convs = [self.converter(a) for a in inner]
        if len(inner) == 1:
            conv = convs[0]
            return None if conv is None else (lambda v: None if v is None else conv(v))
        kinds = [schema_kinds(TypeMapper().schema(a)) for a in inner]
        # a TypedDict needs no converter alone, but in a union it must refuse a dict that is
        # another member's (so the next member is tried)
        convs = [_checked(_typeddict_check(a), c) if typing.is_typeddict(a) else c
                 for a, c in zip(inner, convs, strict=True)]
        if all(c is None for c in convs) and not any(
                "integer" in k and "number" not in k for k in kinds):
            return None
        members = list(zip(kinds, convs, strict=True))
        if NoneType in args:
            members.insert(0, (frozenset({"null"}), None))
        return union_converter(members)

    def _object_converter(self, tp: Any) -> Converter | None:
        if tp in self._stack:  # recursive: resolved once the outer call has finished
            return lambda v: self._done[tp](v)
        self._stack.append(tp)
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
            convs = {n: c for n, h in hints.items() if (c := self.converter(h)) is not None}
        finally:
            self._stack.pop()
        conv: Converter
        if typing.is_typeddict(tp) and not convs:
            self._done[tp] = _same
            return None
        if typing.is_typeddict(tp):
            conv = lambda v: {k: convs[k](x) if k in convs else x for k, x in v.items()}  # noqa: E731
        else:
            conv = lambda v: tp(**{k: convs[k](x) if k in convs else x for k, x in v.items()})  # noqa: E731
        self._done[tp] = conv
        return conv


def _checked(check: Converter, conv: Converter | None) -> Converter:
    return check if conv is None else (lambda v: conv(check(v)))


def _typeddict_check(tp: Any) -> Converter:
    """The dict as is, if its keys are ``tp``'s (else ``TypeError``)."""
    hints = typing.get_type_hints(tp, include_extras=True)
    required = {n for n, h in hints.items() if _typeddict_required(tp, n, h)}

    def check(value: Any) -> Any:
        if not isinstance(value, Mapping) or not required <= set(value) <= set(hints):
            raise TypeError(f"not a {tp.__name__}")
        return value
    return check


def _typeddict_required(tp: Any, name: str, hint: Any) -> bool:
    # `__required_keys__` misses Required/NotRequired written as strings (`from __future__
    # import annotations`, before Python 3.14), so the resolved hint has the last word.
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) is typing.NotRequired:
        return False
    if typing.get_origin(hint) is typing.Required:
        return True
    return name in tp.__required_keys__


def _enum_value(tp: Any, member: enum.Enum) -> Any:
    """An Enum member's value as the schema's ``enum`` lists it: JSON (a tuple as a list), or
    ``UnsupportedType`` naming the member."""
    value = member.value
    if not jsonable(value):
        raise UnsupportedType(
            f"the Enum {tp.__name__}'s member {member.name} has the value {value!r}, which "
            "JSON cannot carry (the model could never send it); give the members str, int, "
            "float, bool or None values, or list/tuple of those")
    return _lists(value)


def _lists(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


def _tuples(value: Any) -> Any:
    """A JSON list as the tuple an Enum member's value is (recursively)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def _same(value: Any) -> Any:
    return value


def jsonable(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(jsonable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and jsonable(v) for k, v in value.items())
    return False


# annotated_types / pydantic constraint attributes -> JSON Schema keywords (length keywords
# depend on the type: a string's minLength, an array's minItems, an object's minProperties)
_BOUND_KEYS = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum",
               "lt": "exclusiveMaximum", "multiple_of": "multipleOf"}
_LENGTH_KEYS = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems"),
                "object": ("minProperties", "maxProperties")}


def _constraints(meta: Any, out: dict[str, Any], depth: int) -> None:
    """Fold the constraints of ``Annotated`` metadata (``annotated_types.Ge(1)``,
    ``Interval``, ``Len``, ``pydantic.Field(ge=1, le=5, max_length=9, pattern=...)``) into
    ``out``."""
    if depth > 4:
        return
    for attr, key in _BOUND_KEYS.items():
        value = getattr(meta, attr, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
    kind = out.get("type")
    lengths = _LENGTH_KEYS.get(kind if isinstance(kind, str) else "", ("minLength", "maxLength"))
    for attr, key in zip(("min_length", "max_length"), lengths, strict=True):
        value = getattr(meta, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            out[key] = value
    pattern = getattr(meta, "pattern", None)
    if isinstance(pattern, str):
        out["pattern"] = pattern
    for inner in getattr(meta, "metadata", None) or ():  # pydantic FieldInfo carries a list
        _constraints(inner, out, depth + 1)
