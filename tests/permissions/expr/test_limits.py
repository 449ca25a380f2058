"""``expr`` is bounded in time and memory: only ``args``/``tool``, allowlisted filters and
methods; padding, formatting, repetition and generators are refused at load (with the name),
and a value too big to build while deciding is an error (a deny, fail closed)."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.expr.core import ExprError, compile_expr

N = "200000000"
REFUSED_AT_LOAD = [
    f"lipsum(n={N}) == 'x'", f"range({N})|length > 1", "cycler(1, 2).next() == 1",
    "namespace(a=1).a == 1", "dict(a=1).a == 1", "joiner()() == ''",
    f"'%0{N}d' % 1 == 'x'", f"'%{N}s' % 'a' == 'x'", f"'%.{N}f' % 1 == 'x'",
    f"'{{:>{N}}}'.format(1) == 'x'", "args.s.format(1) == 'x'",
    f"args.s.center({N}) == 'x'", f"args.s.ljust({N}) == 'x'", f"args.s.rjust({N}) == 'x'",
    f"args.s.zfill({N}) == 'x'", f"args.s.expandtabs({N}) == 'x'",
    "args.s.replace('a', args.s) == 'x'", "', '.join(args.l) == 'x'",
    f"args.s|center({N}) == 'x'", "args.l|join(args.s) == 'x'", "args.l|batch(3)|list",
    f"args.s|wordwrap({N}) == 'x'", f"args.s|indent({N}) == 'x'",
    "'%s'|format(args.s) == 'x'", f"args.s|truncate({N}) == 'x'", "args.s|replace('a', 'bb')",
    "args.s|attr('center') == 1", "args.l|slice(3)|list", "args.s|pprint == 'x'",
    "args.s|filesizeformat == 'x'", "args.s|urlize == 'x'", "args.s|random == 'x'",
    "(args.s|attr('center'))(9) == 1", "args.get.__call__('s') == 'x'",
    " ~ ".join(["args.s"] * 70) + " == 'x'", " + ".join(["args.s"] * 70) + " == 'x'",
]


@pytest.mark.parametrize("source", REFUSED_AT_LOAD)
def test_what_could_build_huge_values_is_refused_at_load(source: str) -> None:
    started = time.thread_time()  # CPU time, not a loaded wall clock
    with pytest.raises(ValueError, match="expr"):
        compile_expr(source)
    assert time.thread_time() - started < 2


BIG_AT_DECISION = [
    "args.s * 100000000 == 'x'", "args.l * 100000000 == []", "args.n ** 100000 > 1",
    "(args.n ** 1000) ** 1000 > 1", "((args.n ** 900) ** 900) ** 900 > 1",
    "args.f % 1 == 'x'",
    "(args.s ~ args.s) * 100000 == 'x'",
]


@pytest.mark.parametrize("source", BIG_AT_DECISION)
def test_a_value_too_big_to_build_is_an_error_while_deciding(source: str) -> None:
    expr = compile_expr(source)
    started = time.thread_time()  # CPU time, not a loaded wall clock
    with pytest.raises(ExprError):
        expr.holds("t", {"s": "ab", "l": [1, 2], "n": 2**4000 + 1, "f": "%099999999d"})
    assert time.thread_time() - started < 2


@pytest.mark.parametrize(("source", "expected"), [
    ("args.s.lower() == 'ab'", True), ("args.s.startswith('a')", True),
    ("args.get('s') == 'ab'", True), ("args.get('zz', 3) == 3", True),
    ("args.s|upper == 'AB'", True), ("args.l|length == 2", True),
    ("args.l|map('string')|list == ['1', '2']", True), ("args.n % 7 == 2 % 7", True),
    ("args.s * 3 == 'ababab'", True), ("args.n ** 2 == 4", True), ("'b' in args.s", True),
    ("args.s ~ '!' == 'ab!'", True), ("args.l + [3] == [1, 2, 3]", True),
    ("args.s is string and args.s|default('') != ''", True), ("tool == 't'", True),
    ("args.keys() | list | length == 3", True), ("args.s.split('b')[0] == 'a'", True),
])
def test_the_documented_forms_still_work(source: str, expected: bool) -> None:
    assert compile_expr(source).holds("t", {"s": "ab", "l": [1, 2], "n": 2}) is expected


def test_filters_and_methods_outside_the_allowlist_are_refused() -> None:
    from jinja2 import Environment

    from toolhost.permissions.expr.limits import FILTERS, METHODS

    for name in set(Environment().filters) - FILTERS:
        with pytest.raises(ValueError, match=repr(name)):
            compile_expr(f"args.s|{name} == 1")
    for method in {n for n in dir("") + dir([]) + dir({}) if not n.startswith("_")} - METHODS:
        with pytest.raises(ValueError, match=method):
            compile_expr(f"args.s.{method}() == 1")


@pytest.mark.parametrize(("effect", "expected"), [("deny", "deny"), ("allow", "deny")])
def test_an_expr_that_cannot_be_computed_fails_closed(effect: str, expected: str) -> None:
    rule = RuleConfig(effect, "mcp__a__b", expr="args.s * 100000000 == 'x'")  # type: ignore[arg-type]
    policy = compile_policy(PermissionsConfig(default="allow" if effect == "deny" else "deny",
                                              rules=(rule,)))
    assert policy.decide("mcp__a__b", {"s": "ab"}).behavior == expected


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.parametrize("expr", [f"lipsum(n={N}) == 'x'", f"'%0{N}d' % 1 == 'x'",
                                  f"args.s.center({N}) == 'x'", f"args.s|center({N}) == 'x'"])
def test_validate_names_the_rule_and_returns_quickly(tmp_path: Path, expr: str) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  default: allow\n  deny:\n"
                      f"    - tool: WebFetch\n      expr: \"{expr}\"\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60,
                          preexec_fn=_limit_memory)
    assert done.returncode != 0
    assert "toolhost.yaml:6:7" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
