"""Rules with ``callers:``: they apply to the authenticated callers they name, and to nobody
else (no caller at all included): an allow for a group lets nobody else through."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.callers.identity import Caller, as_caller, parse_callers

ANA = Caller("ana", frozenset({"tools:call"}), frozenset({"platform"}))
BOB = Caller("bob", frozenset({"tools:read"}), frozenset({"sales"}))


def policy(*rules: RuleConfig, default: str = "deny") -> object:
    return compile_policy(PermissionsConfig(default=default, rules=rules),  # type: ignore[arg-type]
                          cwd=str(Path.cwd()))


def rule(effect: str, callers: dict[str, object]) -> RuleConfig:
    return RuleConfig(effect=effect, tool="mcp__db__migrate", callers=callers,  # type: ignore[arg-type]
                      origin=Origin("p.yaml", 3, 5))


@pytest.mark.parametrize(("callers", "caller", "expected"), [
    ({"groups": ["platform"]}, ANA, "allow"),
    ({"groups": ["platform"]}, BOB, "deny"),
    ({"groups": ["platform"]}, None, "deny"),  # no caller: never admitted
    ({"subjects": ["bob"]}, BOB, "allow"),
    ({"scopes": ["tools:call"]}, ANA, "allow"),
    ({"scopes": ["tools:call"]}, BOB, "deny"),
    ({"subjects": "ana"}, ANA, "allow"),
])
def test_an_allow_admits_only_the_callers_it_names(callers: dict[str, object],
                                                   caller: Caller | None, expected: str) -> None:
    decide = policy(rule("allow", callers)).decide  # type: ignore[attr-defined]
    with as_caller(caller):
        assert decide("mcp__db__migrate", {}).behavior == expected


def test_a_deny_for_some_callers_leaves_the_others_to_the_next_rules() -> None:
    p = policy(rule("deny", {"groups": ["sales"]}),
               RuleConfig(effect="allow", tool="mcp__db__migrate"))
    with as_caller(BOB):
        assert p.decide("mcp__db__migrate", {}).behavior == "deny"  # type: ignore[attr-defined]
    with as_caller(ANA):
        assert p.decide("mcp__db__migrate", {}).behavior == "allow"  # type: ignore[attr-defined]


def test_a_callers_rule_is_never_a_blanket_cli_deny() -> None:
    p = policy(rule("deny", {"groups": ["sales"]}))
    assert "mcp__db__migrate" not in p.disallowed_tools()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("value", "words"), [
    ([], "must be a mapping"), ({"team": ["x"]}, "unknown key 'team'"),
    ({"groups": [1]}, "list of non-empty strings"), ({"groups": [""]}, "non-empty strings"),
    ({}, "names nobody"), ({"groups": []}, "names nobody"),
])
def test_wrong_callers_are_refused_saying_why(value: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_callers(value)


def test_validate_locates_a_wrong_callers_key(tmp_path: Path) -> None:

    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  db:\n    tools:\n"
                      "      migrate: {command: [echo, hi]}\n"
                      "permissions:\n  allow:\n    - tool: mcp__db__migrate\n"
                      "      callers: {team: [platform]}\n")
    done = run_cli(["validate", "--no-layers", str(config)])
    assert done.returncode == 1
    assert f"{config}:9:" in done.stderr and "permissions.allow[0].callers" in done.stderr
    assert "unknown key 'team'" in done.stderr and "Traceback" not in done.stderr


def test_a_match_admits_the_current_caller_only_while_it_is_current() -> None:
    match = parse_callers({"groups": ["platform"]})
    assert not match.admits_current()  # no caller outside a request
    with as_caller(ANA):
        assert match.admits_current()
    with as_caller(BOB):
        assert not match.admits_current()


@pytest.mark.parametrize(("callers", "caller", "admitted"), [
    ({"groups": ["contractor-*"]}, Caller("x", groups=frozenset({"contractor-acme"})), True),
    ({"groups": ["contractor-*"]}, Caller("x", groups=frozenset({"contractor"})), False),
    ({"subjects": ["*@vendor.example"]}, Caller("joe@vendor.example"), True),
    ({"subjects": ["*@vendor.example"]}, Caller("joe@vendor.example.evil"), False),
    ({"scopes": ["tools:*"]}, Caller("x", scopes=frozenset({"tools:write"})), True),
    ({"scopes": ["tools:?"]}, Caller("x", scopes=frozenset({"tools:ab"})), False),
    ({"groups": ["team[1]"]}, Caller("x", groups=frozenset({"team1"})), False),  # [ is literal
    ({"groups": ["team[1]"]}, Caller("x", groups=frozenset({"team[1]"})), True),
    ({"groups": ["a.b*"]}, Caller("x", groups=frozenset({"aXb"})), False),  # . is literal
])
def test_callers_values_are_globs_with_star_and_question_mark(
        callers: dict[str, object], caller: Caller, admitted: bool) -> None:
    for effect, hit in (("deny", "deny"), ("allow", "allow")):
        p = policy(rule(effect, callers), default="allow" if effect == "deny" else "deny")
        with as_caller(caller):
            got = p.decide("mcp__db__migrate", {}).behavior  # type: ignore[attr-defined]
        assert (got == hit) == admitted, (effect, got)
