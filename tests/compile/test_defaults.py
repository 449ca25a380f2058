"""Defaults are filled 100 levels down a call (``MAX_FILL_DEPTH``) while the wire takes 256:
a call nested deeper where the schema declares a default still to fill is refused, by the
policy (its rules would judge arguments without the defaults the tool then runs with) and
by the tool, in one line; a call as deep that gives every default is filled and runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

import toolhost.compile.defaults as defaults_module
from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.compile.declared import declared_defaults
from toolhost.compile.defaults import (
    MAX_FILL_DEPTH,
    FillTooDeep,
    FillUnsure,
    fill_choices,
    fill_defaults,
)
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.results import ToolResult

NODE = {"type": "object", "properties": {  # a tree: a default at every level
    "depth": {"type": "integer", "default": 3},
    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
ROWS = {"items": {"$ref": "#/$defs/Rows"},  # lists of lists ... of objects
        "properties": {"limit": {"type": "integer", "default": 50}}}


def _tree(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    node = leaf
    for _ in range(levels):
        node = {"depth": 1, "children": [node]}
    return node


def _rows(levels: int, leaf: dict[str, Any]) -> Any:
    node: Any = leaf
    for _ in range(levels):
        node = [node]
    return node


DEEP = MAX_FILL_DEPTH + 20  # within the wire's 256 levels
CASES = [  # (the definition, a call whose deepest object leaves a default out, as deep
    #         but giving it)
    ({"Node": NODE}, {"opts": _tree(DEEP // 2, {})}, {"opts": _tree(DEEP // 2, {"depth": 1})}),
    ({"Rows": ROWS}, {"opts": _rows(DEEP, {})}, {"opts": _rows(DEEP, {"limit": 5})}),
]


@pytest.mark.parametrize(("definitions", "left", "given"), CASES, ids=["tree", "lists"])
def test_a_call_deeper_than_the_fill_with_a_default_left_is_refused(
        definitions: dict[str, Any], left: dict[str, Any], given: dict[str, Any]) -> None:
    name = next(iter(definitions))
    schema = {"type": "object", "properties": {"opts": {"$ref": f"#/$defs/{name}"}},
              "$defs": definitions}
    defaults = declared_defaults(schema)
    deny = RuleConfig("deny", "mcp__demo__t", origin=Origin("t.yaml", 3, 5, "permissions.x"),
                      when={"q": "never"})
    policy = compile_policy(PermissionsConfig(rules=(deny,), default="allow"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    ran: list[Mapping[str, Any]] = []

    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        ran.append(arguments)
        return ToolResult.text("ran")

    tool = make_tool("t", invoke, schema=schema, defaults=defaults)

    async def call(arguments: dict[str, Any]) -> ToolResult:
        return await tool.call(arguments, CallContext(call_id="1", tool="mcp__demo__t"))

    refused = policy.decide("mcp__demo__t", left)
    assert refused.behavior == "deny"
    assert refused.message == FillTooDeep().said("mcp__demo__t")
    said = anyio.run(call, left).to_mcp()
    assert said["isError"] and said["content"][0]["text"] == (
        "Invalid arguments for tool 't': " + FillTooDeep().said(None))
    assert "\n" not in said["content"][0]["text"] and ran == []
    # as deep, every default given: nothing left to fill, judged and run as sent
    assert policy.decide("mcp__demo__t", given).behavior == "allow"
    assert not anyio.run(call, given).is_error and ran == [given]


CAT = {"type": "object", "properties": {"pet_type": {"const": "cat", "type": "string"},
                                        "lives": {"type": "integer", "default": 9}},
       "required": ["pet_type"]}
DOG = {"type": "object", "properties": {"pet_type": {"enum": ["dog"]},
                                        "lives": {"type": "integer", "default": 1},
                                        "bark": {"type": "string", "default": "loud"}},
       "required": ["pet_type"]}
BIRD = {"type": "object", "properties": {"wings": {"type": "integer", "default": 2}}}
DATE = {"type": "object", "properties": {"when": {"type": "string"}}, "required": ["when"]}
UNIONS = [  # (the pet's schema, a call, the call filled in as the tool fills it, or None:
    #          refused, the defaults it gets cannot be told)
    ({"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
      "discriminator": {"propertyName": "pet_type"}},
     {"pet_type": "cat"}, {"pet_type": "cat", "lives": 9}),  # pydantic's Cat | Dog
    ({"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]},
     {"pet_type": "dog", "bark": "soft"}, {"pet_type": "dog", "bark": "soft", "lives": 1}),
    ({"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Bird"}, {"type": "null"}]},
     {"wings": 3}, {"wings": 3}),  # no pet_type: not a Cat
    ({"anyOf": [{"$ref": "#/$defs/Dog"}, {"$ref": "#/$defs/Bird"}]},
     {"wings": 3, "pet_type": "dog"}, None),  # a Bird? a Dog with wings? (extra ignored)
    ({"anyOf": [{"$ref": "#/$defs/Bird"}, {"$ref": "#/$defs/Bird"}]}, {}, {"wings": 2}),
    ({"anyOf": [{"$ref": "#/$defs/Bird"}, {"$ref": "#/$defs/Date"}]}, {}, {"wings": 2}),  # no
    # "when": not a Date
    ({"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Bird"}]},
     {"wings": 3, "lives": 2}, {"wings": 3, "lives": 2}),  # nothing left to fill
]


@pytest.mark.parametrize(("pet", "given", "filled"), UNIONS)
def test_the_defaults_of_a_union_branch_are_judged_or_the_call_refused(
        pet: dict[str, Any], given: dict[str, Any], filled: dict[str, Any] | None) -> None:
    """An object given where a oneOf/anyOf offers several models: the branch its
    discriminator (a ``const``, a one-value ``enum``) names gives its defaults; when more
    than one branch fits with other defaults, the call is judged in each way."""
    schema = {"type": "object", "properties": {"pet": pet},
              "$defs": {"Cat": CAT, "Dog": DOG, "Bird": BIRD, "Date": DATE}}
    defaults = declared_defaults(schema)
    deny = RuleConfig("deny", "mcp__demo__t", origin=Origin("t.yaml", 3, 5, "permissions.x"),
                      when={"pet.lives": {"min": 5}})
    policy = compile_policy(PermissionsConfig(rules=(deny,), default="allow"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    decision = policy.decide("mcp__demo__t", {"pet": given})
    if filled is None:  # judged in each way (below): a Dog's lives is 1
        with pytest.raises(FillUnsure):
            fill_defaults(defaults, {"pet": given})
        assert decision.behavior == "allow"
        return
    assert fill_defaults(defaults, {"pet": given}) == {"pet": filled}
    big = isinstance(filled.get("lives"), int) and filled["lives"] >= 5
    assert decision.behavior == ("deny" if big else "allow")


SMALL = {"type": "object", "properties": {"size": {"type": "integer", "default": 1}}}
BIG = {"type": "object", "properties": {"size": {"type": "integer", "default": 10},
                                        "extra": {"type": "string", "default": "y"}}}
DOG_OR_BIRD = {"anyOf": [{"$ref": "#/$defs/Dog"}, {"$ref": "#/$defs/Bird"}]}
SMALL_OR_BIG = {"anyOf": [{"$ref": "#/$defs/Small"}, {"$ref": "#/$defs/Big"}]}
AMBIGUOUS = [  # (properties, a call, where the refusal says the object is, what to give,
    #           whether a discriminator could name the branch)
    ({"pet": DOG_OR_BIRD}, {"pet": {"wings": 3, "pet_type": "dog"}}, "pet", "bark and lives",
     True),
    ({"box": SMALL_OR_BIG}, {"box": {}}, "box", "extra and size", False),  # untagged
    ({"pets": {"type": "array", "items": {"type": "object", "properties": {
        "o\nk": SMALL_OR_BIG}}}}, {"pets": [{}, {"o\nk": {"extra": "z"}}]},
     'pets[1]."o\\nk"', "size", False),
]


@pytest.mark.parametrize(("properties", "given", "where", "keys", "tagged"), AMBIGUOUS)
def test_an_ambiguous_union_is_refused_naming_where_and_what_to_give(
        properties: dict[str, Any], given: dict[str, Any], where: str, keys: str,
        tagged: bool) -> None:
    """An untagged union (or a tagged one whose tag is left out) that several branches fit
    with other defaults, where the fill cannot judge each way (past ``_MAX_FILLS``, or a
    guard filling a re-listed tool's own): the refusal names the object's place in the
    arguments and the values that would make every branch fill the same (one line; a
    hostile key quoted), and a call giving them is filled."""
    schema = {"type": "object", "properties": properties,
              "$defs": {"Dog": DOG, "Bird": BIRD, "Small": SMALL, "Big": BIG}}
    defaults = declared_defaults(schema)
    with pytest.raises(FillUnsure) as caught:
        fill_defaults(defaults, given)
    said = caught.value.said("mcp__demo__t")
    assert f" at {where} (" in said and "\n" not in said
    assert f"other defaults for {keys}:" in said
    assert said.endswith(
        f"(name the branch (its discriminator property), or give {keys})" if tagged
        else f"(give {keys})")
    # giving what it names: every branch fills the same
    inner: Any = given
    for step in caught.value.where:
        inner = inner[step]
    inner.update({key: 1 if key in ("size", "lives") else "v" for key in caught.value.keys})
    fill_defaults(defaults, given)


def _boxes(count: int, **given: Any) -> list[dict[str, Any]]:
    return [dict(given) for _ in range(count)]  # (each its own object, as from the wire)


BOXES = {"type": "object", "properties": {
    "box": SMALL_OR_BIG, "boxes": {"type": "array", "items": SMALL_OR_BIG}},
    "$defs": {"Small": SMALL, "Big": BIG}}
EACH_WAY = [  # (a call, the decision under `deny when {box.size: {min: 5}}` and
    #           `deny when {boxes[5].size: {min: 5}}`, what the tool sends when it runs)
    ({"box": {}}, "deny", {"box": {}}),  # a Big's size is 10
    ({"box": {"size": 2}}, "allow", {"box": {"size": 2}}),  # Small or Big: its upstream's
    ({"box": {"size": 2, "extra": "y"}}, "allow", {"box": {"size": 2, "extra": "y"}}),
    ({"boxes": [*_boxes(5, size=1, extra="z"), {}]}, "deny", None),  # the sixth: Big, 10
    ({"boxes": [*_boxes(4), *_boxes(1, size=2)]}, "allow",
     {"boxes": [*_boxes(4), *_boxes(1, size=2)]}),
    ({"boxes": _boxes(6, size=1)}, "refused", None),  # 2**6 ways: more than are judged
    # 2 ways, each filling 25,001 objects: more work than is done
    ({"box": {"size": 2}, "boxes": _boxes(25_000, size=1, extra="z")}, "refused", None),
]


@pytest.mark.parametrize(("given", "behavior", "sent"), EACH_WAY)
def test_an_untagged_union_is_judged_in_every_way_its_upstream_may_fill_it(
        given: dict[str, Any], behavior: str, sent: dict[str, Any] | None) -> None:
    """An object several branches of a union fit with other defaults (no discriminator):
    the rules judge the call as each branch would fill it (every combination, at most 32)
    and as sent; a deny in any way denies. An allowed call is sent with that object as
    given: its upstream fills it in one of the judged ways."""
    defaults = declared_defaults(BOXES)
    origin = Origin("t.yaml", 3, 5, "permissions.x")
    rules = (RuleConfig("deny", "mcp__demo__t", origin=origin, when={"box.size": {"min": 5}}),
             RuleConfig("deny", "mcp__demo__t", origin=origin,
                        when={"boxes[5].size": {"min": 5}}))
    policy = compile_policy(PermissionsConfig(rules=rules, default="allow"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    decision = policy.decide("mcp__demo__t", given)
    assert decision.behavior == behavior.replace("refused", "deny"), decision
    assert (decision.rule is None) == (behavior != "deny"), decision  # a rule's, or none's
    if behavior == "refused":  # one line naming the first such object
        assert decision.message.startswith("mcp__demo__t's arguments give an object at " + (
            "box ({\"size\": 2})" if "box" in given else "boxes[0] ({\"size\": 1})"))
        assert "more such ways than the rules judge (at most 32, 50,000 objects filled in " \
            "all); refused (give " in decision.message
    ran: list[Mapping[str, Any]] = []

    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        ran.append(arguments)
        return ToolResult.text("ran")

    tool = make_tool("t", invoke, schema=BOXES, defaults=defaults)
    if sent is not None:
        assert not anyio.run(tool.call, given, CallContext(call_id="1")).is_error
        assert ran == [sent]


def test_a_recursive_union_is_filled_once_per_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree whose every node is a ``Union[A, B]`` (an expression tree; an upstream may list
    it on purpose) that both branches fit alike: each node is filled once, not once per
    branch per level above it (2**depth fills: 20 levels held the host for 14 s)."""
    node = {"type": "object", "properties": {"n": {"type": "integer", "default": 1},
                                             "c": {"$ref": "#/$defs/U"}}}
    schema = {"type": "object", "properties": {"c": {"$ref": "#/$defs/U"}}, "$defs": {
        "U": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, "A": node, "B": node}}
    defaults = declared_defaults(schema)
    call: dict[str, Any] = {"n": 0}
    for _ in range(12):
        call = {"c": call}
    chosen = defaults_module._chosen
    seen: list[int] = []
    monkeypatch.setattr(defaults_module, "_chosen",
                        lambda default, value: seen.append(1) or chosen(default, value))
    filled: Any = fill_defaults(defaults, call)
    assert len(seen) == 12  # one per node given where the union is
    levels = []
    while "c" in filled:
        filled = filled["c"]
        levels.append(filled["n"])
    assert levels == [1] * 11 + [0]


def _ints(**defaults: int) -> dict[str, Any]:
    return {"type": "object", "properties": {
        key: {"type": "integer", "default": value} for key, value in defaults.items()}}


def test_a_union_inside_the_branches_of_a_union_is_judged_in_every_way() -> None:
    """Whether a union's branches fill differently may depend on the branch taken at a union
    inside them: ``o: A | B`` with ``A.c: X1 | Y1`` and ``B.c: X2 | Y2`` fill the same while
    both inner unions take their first branch. Every way is judged all the same, ``B``
    with ``Y2`` (x 3) too."""
    schema = {"type": "object", "properties": {"o": {"$ref": "#/$defs/U"}}, "$defs": {
        "U": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
        "A": {"type": "object", "properties": {
            "c": {"anyOf": [{"$ref": "#/$defs/X1"}, {"$ref": "#/$defs/Y1"}]}}},
        "B": {"type": "object", "properties": {
            "c": {"anyOf": [{"$ref": "#/$defs/X2"}, {"$ref": "#/$defs/Y2"}]}}},
        "X1": _ints(x=1), "Y1": _ints(x=2), "X2": _ints(x=1), "Y2": _ints(x=3)}}
    defaults = declared_defaults(schema)
    ways = fill_choices(defaults, {"o": {"c": {}}})
    assert {way["o"]["c"].get("x") for way in ways} == {1, 2, 3, None}  # None: as sent
    deny = RuleConfig("deny", "mcp__demo__t", origin=Origin("t.yaml", 3, 5, "permissions.x"),
                      when={"o.c.x": 3})
    policy = compile_policy(PermissionsConfig(rules=(deny,), default="allow"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    assert policy.decide("mcp__demo__t", {"o": {"c": {}}}).behavior == "deny"
    assert policy.decide("mcp__demo__t", {"o": {"c": {"x": 2}}}).behavior == "allow"


def test_a_rewrite_of_a_call_judged_in_several_ways_denies_it() -> None:
    """An allow rule that rewrites the call rewrites the input of one way, a branch's fill,
    which another way's upstream would not run: the call is denied, naming the rule."""
    defaults = declared_defaults(BOXES)
    rewrite = RuleConfig("allow", "mcp__demo__t", origin=Origin("t.yaml", 3, 5, "permissions.x"),
                         rewrite={"set": {"/note": "x"}})
    policy = compile_policy(PermissionsConfig(rules=(rewrite,), default="deny"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    decision = policy.decide("mcp__demo__t", {"box": {"size": 2}})
    assert decision.behavior == "deny" and decision.rule is not None
    assert "rule that rewrites the call" in decision.message
    # one branch's fill (the object names every value): rewritten as ever
    given = policy.decide("mcp__demo__t", {"box": {"size": 2, "extra": "y"}})
    assert given.behavior == "allow" and given.updated_input is not None
