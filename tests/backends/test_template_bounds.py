"""A template cannot build a huge value or render forever, when it compiles (jinja folds
constant filters) or when a call renders it; honest templates render as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.backends import template_bounds
from toolhost.backends.templating import TemplateError, compile_template
from toolhost.cli import main

BIG = 20_000_000  # twice what a template may build
LONG = "a" * 5000

HOSTILE: list[tuple[str, dict[str, Any]]] = [
    # filters of constants, folded while the template compiled (validate built them)
    ("{{ 'a'|center(20000000) }}", {}),
    ("{{ '%20000000s'|format(1) }}", {}),
    # sized filters and str methods with a size from the arguments
    ("{{ s|center(n) }}", {"s": "a", "n": BIG}),
    ("{{ ('%' ~ n ~ 's')|format('a') }}", {"n": BIG}),
    ("{{ s|indent(n) }}", {"s": "a\nb", "n": BIG}),
    ("{{ s|replace('', s) }}", {"s": LONG}),
    ("{{ s|wordwrap(1, true, s) }}", {"s": LONG}),
    ("{{ range(100000)|join(s) }}", {"s": "x" * 200}),
    ("{{ range(9)|batch(n, 0)|list|length }}", {"n": BIG}),
    ("{{ lipsum(n, false, 100, 100) }}", {"n": 10_000}),
    ("{{ s.ljust(n) }}", {"s": "a", "n": BIG}),
    ("{{ s.zfill(n) }}", {"s": "1", "n": BIG}),
    ("{{ s.center(n) }}", {"s": "a", "n": BIG}),
    ("{{ s.expandtabs(n) }}", {"s": "\t\t", "n": BIG}),
    ("{{ s.replace('a', s) }}", {"s": LONG}),
    ("{{ ('{:>' ~ n ~ '}').format('a') }}", {"n": BIG}),
    # `~` doubling in a loop
    ("{% set ns = namespace(a=s) %}{% for i in range(n) %}{% set ns.a = ns.a ~ ns.a %}"
     "{% endfor %}{{ ns.a|length }}", {"s": "ab", "n": 24}),
    # loops and recursion without end (steps lowered to 10,000 below)
    ("{% for i in range(n) %}{% for j in range(n) %}x{% endfor %}{% endfor %}", {"n": 200}),
    ("{% macro f(x) %}{% if x %}{{ f(x - 1) }}{{ f(x - 1) }}{% endif %}{% endmacro %}"
     "{{ f(n) }}", {"n": 14}),
    ("{% for i in range(n) %}{{ s.upper() }}{% endfor %}", {"n": 20_000, "s": ""}),
]


@pytest.mark.parametrize(("source", "values"), HOSTILE)
def test_a_template_cannot_build_a_huge_value_or_run_forever(
        source: str, values: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_bounds, "MAX_STEPS", 10_000)
    template = compile_template(source)
    with pytest.raises(TemplateError, match=r"the template (would build|takes more than)"):
        template.render(**values)


HONEST: list[tuple[str, dict[str, Any], str]] = [
    ("{{ 'ab'|center(6) }}|{{ '%5s'|format(s) }}|{{ s|indent(2, true) }}", {"s": "x"},
     "  ab  |    x|  x"),
    ("{{ s|replace('a', 'bb') }} {{ [1, 2]|join('-') }} {{ range(5)|batch(2, 0)|list }}",
     {"s": "aXa"}, "bbXbb 1-2 [[0,1],[2,3],[4,0]]"),
    ("{{ s|wordwrap(3) }}|{{ s|truncate(5, true, '', 0) }}", {"s": "ab cd ef"},
     "ab\ncd\nef|ab cd"),
    ("{{ s.ljust(4, '.') }}{{ s.zfill(3) }} {{ '{}-{:>3}'.format(s, 1) }} {{ s ~ '!' }}",
     {"s": "7"}, "7...007 7-  1 7!"),
    ("{% macro m(x) %}<{{ x }}>{% endmacro %}{% for i in range(3) %}{{ m(i) }}{% endfor %}"
     "{% set b %}{{ s }}{% endset %}{{ b }}", {"s": "z"}, "<0><1><2>z"),
]


@pytest.mark.parametrize(("source", "values", "expected"), HONEST)
def test_honest_templates_render_as_before(source: str, values: dict[str, Any],
                                           expected: str) -> None:
    assert compile_template(source).render(**values) == expected


def test_validate_does_not_fold_a_huge_filter_and_a_call_refuses_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      "        description: d\n"
                      "        command: [echo, \"{{ 'a'|center(1000000000) }}\"]\n")
    assert main(["validate", str(config)]) == 0
    assert main(["call", str(config), "s.t"]) == 1
    out = capsys.readouterr().out
    assert "Could not build the command line: the template would build" in out, out
