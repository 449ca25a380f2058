"""``validate`` reports a ``when`` condition that no value its argument can take satisfies
(red team policy F9): any operator against an enum/const/boolean, operators combined with
``one_of``/``equals``, ``min``/``max`` outside the schema's range; and stays silent for every
condition that can match (a property test against brute force over the real engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.inproc import run_cli
from toolhost.config.model import Origin, RuleConfig
from toolhost.permissions.authoring.rulecheck import Target, check_rule_paths
from toolhost.permissions.conditions import MISSING, compile_when

TOOLS = """\
toolhost: 1
servers:
  db:
    tools:
      query:
        command: [echo, "{{ mode }}"]
        params:
          mode: {type: string, enum: [fast, slow]}
          level: {type: integer, enum: [1, 2, 3]}
          limit: {type: integer, minimum: 0, maximum: 100}
          ratio: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
          flag: {type: boolean}
          kind: {const: report}
          sql: {type: string}
          site: {type: string, enum: ["a.example.com", "b.example.org"]}
          opts: {type: object, properties: {mode: {type: string, enum: [x, y]}}}
"""
# (rule's `when`, effect, whether validate must report it as never holding)
CASES: list[tuple[str, str, bool]] = [
    ('{mode: {regex: "fastest"}}', "deny", True),
    ('{mode: {glob: "FAST"}}', "deny", True),
    ("{limit: {min: 5, one_of: [1, 2]}}", "deny", True),
    ("{level: {min: 5}}", "deny", True),
    ("{level: {max: 0}}", "ask", True),
    ("{level: {min: 2, max: 2}}", "allow", False),
    ('{mode: {equals: fast, glob: "s*"}}', "allow", True),
    ('{mode: {regex: "f.*", one_of: [slow]}}', "deny", True),
    ('{mode: {regex: "(?i)FAST"}}', "deny", False),
    ('{mode: {glob: "s*"}}', "deny", False),
    ('{mode: {one_of: [fast, medium], regex: "f.*"}}', "allow", False),
    ('{site: {host: "example.net"}}', "deny", True),
    ('{site: {host: "*.example.org"}}', "deny", False),
    ('{kind: {glob: "r*"}}', "deny", False),
    ('{kind: {regex: "x.*"}}', "ask", True),
    ("{flag: {one_of: [true], equals: false}}", "deny", True),
    ('{sql: {equals: "x", regex: "y"}}', "allow", True),
    ('{sql: {equals: "x", regex: "x"}}', "allow", False),
    ('{sql: {regex: "y"}}', "deny", False),
    ("{limit: {min: 500}}", "deny", True),
    ("{limit: {max: -1}}", "allow", True),
    ("{limit: {min: 100}}", "deny", False),
    ("{limit: {min: 99.5, max: 99.9}}", "deny", True),
    ("{ratio: {min: 1}}", "deny", True),
    ("{ratio: {max: 0.5}}", "deny", False),
    ('{opts.mode: {regex: "z"}}', "allow", True),
    ('{"/opts/mode": {regex: "x"}}', "deny", False),
    ('{mode: {regex: "f.*"}, "/mode": {regex: "s.*"}}', "deny", True),
    ('{mode: {regex: "f.*"}, "/mode": {glob: "*t"}}', "deny", False),
    ("{mode: {present: false}}", "deny", False),
]


def _config(tmp_path: Path) -> tuple[Path, dict[int, tuple[str, bool]]]:
    lines = [*TOOLS.splitlines(), "permissions:", "  default: allow"]
    at: dict[int, tuple[str, bool]] = {}
    for effect in ("allow", "deny", "ask"):
        lines.append(f"  {effect}:")
        for when, eff, never in CASES:
            if eff == effect:
                lines += ["    - tool: mcp__db__query", f"      when: {when}"]
                at[len(lines)] = (when, never)
    config = tmp_path / "t.yaml"
    config.write_text("\n".join(lines) + "\n")
    return config, at


def test_validate_reports_each_condition_that_can_never_hold_and_only_those(
        tmp_path: Path) -> None:
    config, at = _config(tmp_path)
    out = run_cli(["validate", str(config)], env={"HOME": str(tmp_path)})
    assert "Traceback" not in out.stderr
    reported = out.stderr.splitlines()
    for line, (when, never) in at.items():
        hits = [x for x in reported if x.startswith(f"{config}:{line}:")]
        if never:
            assert any("never hold" in x and "permission rule 'mcp__db__query'" in x
                       for x in hits), f"line {line} {when}: not reported\n{out.stderr}"
        else:
            errors = [x for x in hits if "warning: " not in x]
            assert not errors, f"line {line} {when}: reported but can match: {errors}"
    assert out.returncode == 1


def test_the_message_names_the_argument_and_its_values(tmp_path: Path) -> None:
    config, at = _config(tmp_path)
    out = run_cli(["validate", str(config)], env={"HOME": str(tmp_path)})
    line = next(n for n, (w, _) in at.items() if w == '{mode: {regex: "fastest"}}')
    hit = next(x for x in out.stderr.splitlines() if x.startswith(f"{config}:{line}:"))
    assert 'when.mode never holds' in hit and '"fast", "slow"' in hit, hit
    line = next(n for n, (w, _) in at.items() if w == "{limit: {min: 500}}")
    hit = next(x for x in out.stderr.splitlines() if x.startswith(f"{config}:{line}:"))
    assert "at least 0 and at most 100" in hit, hit


# -- no false positives, nothing missed: brute force over the real engine ----------------------

_POOL = st.one_of(st.sampled_from(["a", "b", "ab", "ba", "", "A", "a.b"]),
                  st.integers(-3, 3), st.booleans(), st.none())
_OPS: dict[str, Any] = {
    "equals": _POOL,
    "one_of": st.lists(_POOL, min_size=1, max_size=3),
    "regex": st.sampled_from(["a.*", ".*b", "a", "(?i)A", "[ab]+", ".*", "x"]),
    "glob": st.sampled_from(["a*", "*b", "?", "*", "[!a]*"]),
    "min": st.integers(-4, 4),
    "max": st.integers(-4, 4),
    "present": st.booleans(),
}


def _key(v: Any) -> tuple[str, Any]:
    return (type(v).__name__, v)


@st.composite
def _conditions(draw: Any) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(sorted(_OPS)), min_size=1, max_size=3, unique=True))
    return {n: draw(_OPS[n]) for n in names}


@st.composite
def _schemas(draw: Any) -> dict[str, Any]:
    values = draw(st.lists(_POOL, min_size=1, max_size=5, unique_by=_key))
    return draw(st.sampled_from([{"enum": values}, {"const": values[0]}, {"type": "boolean"},
                                 {"type": ["boolean", "null"]}, {"type": "string"},
                                 {"type": "integer"}, {}]))


def _values(schema: dict[str, Any]) -> list[Any] | None:
    if "enum" in schema:
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    if schema.get("type") == "boolean":
        return [True, False]
    if schema.get("type") == ["boolean", "null"]:
        return [True, False, None]
    return None


def _findings(when: dict[str, Any], effect: str, schema: dict[str, Any] | None) -> list[str]:
    rule = RuleConfig(effect, "mcp__t__x", when={"x": when})  # type: ignore[arg-type]
    targets = [] if schema is None else [Target("mcp__t__x", {
        "type": "object", "properties": {"x": schema}, "additionalProperties": False})]
    found = check_rule_paths(rule, lambda _s: Origin("t.yaml", 1, 1), targets,
                             cwd="/", rule_dir="/")
    return [f.problem.message for f in found if f.level == "error"]


@settings(max_examples=400, deadline=None)
@given(_conditions(), _schemas(), st.sampled_from(["allow", "deny", "ask"]),
       st.booleans())
def test_never_holds_agrees_with_brute_force(when: dict[str, Any], schema: dict[str, Any],
                                             effect: str, known: bool) -> None:
    try:
        (condition,) = compile_when({"x": when}, cwd="/", rule_dir="/")
    except ValueError:
        return  # a load error, reported elsewhere
    strict = effect == "allow"
    listed = _values(schema) if known else None
    errors = _findings(when, effect, schema if known else None)
    never = [e for e in errors if "never hold" in e]
    # every value the argument can take, or (any string, any integer...) a good sample of them
    sample = ["a", "b", "ab", "ba", "", "A", "a.b", "x", *range(-5, 6), True, False, None,
              *([when["equals"]] if "equals" in when else when.get("one_of", []))]
    checker = Draft202012Validator({} if not known else schema)
    candidates = [*(listed if listed is not None else
                    [v for v in sample if checker.is_valid(v)]), MISSING]
    holds = [v for v in candidates
             if condition.holds({} if v is MISSING else {"x": v}, strict=strict)]
    judged = [v for v in candidates
              if all(t({} if v is MISSING else v) is True for t in condition.tests)]
    if never:  # sound: no value the argument can take passes every test
        assert not judged, (never, judged)
    if never and any("none of the values" in e for e in never):
        assert not holds, (never, holds)  # ... nor counts as passing for this effect
    if listed is not None and not holds:  # complete where the values are finite
        assert never, (when, schema, effect, errors)


@settings(max_examples=300, deadline=None)
@given(st.integers(-5, 5), st.integers(-5, 5), st.booleans(), st.booleans(),
       st.one_of(st.none(), st.integers(-6, 6)), st.one_of(st.none(), st.integers(-6, 6)),
       st.sampled_from(["integer", "number"]), st.sampled_from(["allow", "deny"]))
def test_numeric_bounds_agree_with_brute_force(low: int, high: int, low_open: bool,
                                               high_open: bool, cmin: int | None,
                                               cmax: int | None, kind: str,
                                               effect: str) -> None:
    schema: dict[str, Any] = {"type": kind,
                              ("exclusiveMinimum" if low_open else "minimum"): low,
                              ("exclusiveMaximum" if high_open else "maximum"): high}
    when = {k: v for k, v in (("min", cmin), ("max", cmax)) if v is not None}
    if not when or low > high:
        return
    never = [e for e in _findings(when, effect, schema) if "never hold" in e]
    step = 1 if kind == "integer" else 0.25
    grid = [low + i * step for i in range(int((high - low) / step) + 1)]
    valid = [v for v in grid if (v > low if low_open else v >= low)
             and (v < high if high_open else v <= high)]
    some = [v for v in valid if (cmin is None or v >= cmin) and (cmax is None or v <= cmax)]
    crossed = cmin is not None and cmax is not None and cmin > cmax
    assert bool(never) == (crossed or (bool(valid) and not some)), (schema, when, never, some)


@pytest.mark.parametrize("effect", ["allow", "deny", "ask"])
def test_a_rule_matching_several_tools_is_reported_only_when_none_can_match(
        effect: str) -> None:
    rule = RuleConfig(effect, "mcp__t", when={"m": {"regex": "b.*"}})  # type: ignore[arg-type]
    one = Target("mcp__t__x", {"type": "object", "properties": {"m": {"enum": ["a"]}}})
    two = Target("mcp__t__y", {"type": "object", "properties": {"m": {"enum": ["b"]}}})
    where = lambda _s: Origin("t.yaml", 1, 1)  # noqa: E731
    assert not check_rule_paths(rule, where, [one, two], cwd="/", rule_dir="/")
    found = check_rule_paths(rule, where, [one, one], cwd="/", rule_dir="/")
    assert [f.level for f in found] == ["error"]
