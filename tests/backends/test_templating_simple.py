"""Simple templates (``prefix{{ name }}suffix``) are analysed without jinja2 and compiled at
their first render: the analysis must be jinja2's own, and the rendering identical."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError, meta

from toolhost.backends import templating
from toolhost.backends.argv_names import analyse, jinja_analysis

SOURCES = [
    "{{ name }}", "{{name}}", "{{ name }}.txt", "--out={{ path }}", "a b {{ x_1 }} c\nd",
    "{{\tname\t}}", "pre-{{ _ }}-post", "{{ true }}", "{{ none }}", "{{ not }}", "{{ in }}",
    "{{ loop }}", "{{ a.b }}", "{{ a }}{{ b }}", "{ {{ a }} }", "{{ a }}}", "{{- a }}",
    "{{ a|upper }}", "x\r{{ a }}", "{{ a }}\n", "{{\na }}", "{% if a %}{{ a }}{% endif %}",
    "{# c #}{{ a }}", "{{ range }}", "{{ é }}", "{{ 1a }}",
]


def test_globals_are_the_sandbox_globals() -> None:
    assert frozenset(templating.ENV.globals) == templating.GLOBALS


def test_the_quick_path_is_taken_for_the_common_shapes() -> None:
    for source in ("{{ name }}", "{{ name }}.txt", "--out={{ path }}", "{{name}}"):
        assert templating.simple_variable(source) is not None
        assert isinstance(templating.compile_template(source), templating.LazyTemplate)


@pytest.mark.parametrize("source", SOURCES)
def test_simple_sources_analyse_and_render_as_jinja2_does(source: str) -> None:
    if templating.simple_variable(source) is None:
        return  # jinja2 decides: nothing to compare
    assert analyse(source) == jinja_analysis(source)
    names = frozenset(meta.find_undeclared_variables(templating.ENV.parse(source)))
    assert templating.placeholders([source]) == names
    lazy, real = templating.compile_template(source), templating.ENV.from_string(source)
    for value in ("v", "", None, True, 7, 1.5, [1, "a"], {"k": None}, "{{ 7*7 }}"):
        context = dict.fromkeys(names, value)
        assert lazy.render(context) == real.render(context)
    if names & templating.GLOBALS:
        return  # a global renders without a value
    with pytest.raises(UndefinedError) as lazy_error:
        templating.compile_template(source).render({})
    with pytest.raises(UndefinedError) as real_error:
        real.render({})
    assert str(lazy_error.value) == str(real_error.value)
