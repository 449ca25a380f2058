"""``callers:`` globs are matched in time linear in the claim's length (RE2): a glob with a few
``*`` against a long subject, group or scope (the token's, which the caller may shape) decides
at once. Python's backtracking ``re`` took seconds for 200 characters and minutes for 400.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.inproc import run_cli
from toolhost.permissions.callers.identity import Caller, parse_callers

HOSTILE = [  # (glob, a long value it almost matches)
    ("*a*a*a*a*b", "a" * 100_000), ("x-*-*-*-*-y", "x-" * 50_000),
    ("*?*?*?*?*?*!", "?" * 100_000), ("*@*.*.*.example", "a@b." * 25_000),
    ("tools:*:*:*:*:z", "tools:" * 20_000), ("*" * 40 + "b", "a" * 100_000),
    ("?" * 300 + "*b", "a" * 100_000),
]


@pytest.mark.parametrize("kind", ["subjects", "groups", "scopes"])
@pytest.mark.parametrize(("glob", "value"), HOSTILE)
def test_a_glob_against_a_long_claim_decides_at_once(kind: str, glob: str, value: str) -> None:
    match = parse_callers({kind: [glob, "other-*"]})
    caller = Caller(value if kind == "subjects" else "s",
                    groups=frozenset({value}) if kind == "groups" else frozenset(),
                    scopes=frozenset({value}) if kind == "scopes" else frozenset())
    started = time.thread_time()  # CPU time, not a loaded wall clock
    assert match.admits(caller) is False
    assert match.admits(caller, strict=False) is False
    assert time.thread_time() - started < 1.0


def _reference(glob: str, text: str) -> bool:
    """What a glob means, by Python's re (fine on short text)."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.fullmatch(body, text, re.DOTALL) is not None


ALPHABET = st.sampled_from(list("ab*?.-_:@ [](){}|\\^$+\n\t\x00\x7fé\u200bß😀"))


@settings(max_examples=300, deadline=None)
@given(globs=st.lists(st.text(ALPHABET, min_size=1, max_size=8), min_size=1, max_size=4),
       text=st.text(ALPHABET, max_size=12))
def test_globs_mean_what_they_meant(globs: list[str], text: str) -> None:
    try:
        match = parse_callers({"subjects": globs})
    except ValueError as exc:  # round 16: blanks around a value, a control character
        assert "names nobody" in str(exc)
        assert any(g != g.strip() or any(not c.isprintable() for c in g) for g in globs)
        return
    expected = any(g == text or _reference(g, text) for g in globs)
    assert match.admits(Caller(text)) is expected


def test_many_globs_are_all_matched() -> None:
    globs = [f"team-{i:04}-*" for i in range(3000)]  # more than one RE2 pattern holds
    match = parse_callers({"groups": globs})
    for i in (0, 1499, 2999):
        assert match.admits(Caller("s", groups=frozenset({f"team-{i:04}-x"})))
    assert not match.admits(Caller("s", groups=frozenset({"team-3000-x"})))


def test_permissions_check_with_a_long_caller_answers_at_once(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  default: allow\n  deny:\n"
                      "    - tool: WebFetch\n      callers: {subjects: ['*a*a*a*a*a*b'],"
                      " groups: ['x-*-*-*-*-y']}\n")
    claims = json.dumps({"sub": "a" * 200_000, "groups": ["x-" * 100_000]})
    claims_file = tmp_path / "claims.json"
    claims_file.write_text(claims)
    done = run_cli(["permissions", "check", str(config), "WebFetch", "--input",
                    '{"url": "https://a.example"}', "--caller", f"@{claims_file}"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("allow")
