"""What ``compile_argv`` takes as argv values, and what a literal template is: the quick
type tests (a plain str first) decide as the full ones do."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from toolhost.backends.argv import ArgvConfigError, compile_argv
from toolhost.backends.templating import is_literal


class Text(str):
    pass


@pytest.mark.parametrize("program", [{"a": 1}, OrderedDict(a=1), ["x"], True, None, ""])
def test_a_program_that_is_not_a_literal_string_is_refused(program: Any) -> None:
    with pytest.raises(ArgvConfigError) as err:
        compile_argv([program, "x"])
    assert err.value.key == ".argv[0]"


@pytest.mark.parametrize("program", ["echo", Text("echo"), 7, 2.5])
def test_a_literal_program(program: Any) -> None:
    assert compile_argv([program]).program == str(program)


@pytest.mark.parametrize("value", [["x"], ("x",), True, None])
def test_a_value_that_is_no_template_is_refused(value: Any) -> None:
    with pytest.raises(ArgvConfigError):
        compile_argv(["echo", value])
    with pytest.raises(ArgvConfigError):
        compile_argv(["echo", {"if": "v", "argv": [value]}])


def test_a_mapping_of_any_kind_is_a_group() -> None:
    plan = compile_argv(["echo", OrderedDict([("if", "v"), ("argv", ["-v"])]), Text("x")])
    assert plan.elements[0].when == "v" and plan.elements[1].source == "x"


@pytest.mark.parametrize("text", ["", "x", "a b", "{", "}{", "{ {", "{{ v }}", "{% if %}",
                                  "{# c #}", "a\rb", "{\r", "x{y}", "{{", "{%", "{#"])
def test_literal_is_no_jinja_mark_and_no_carriage_return(text: str) -> None:
    expected = not any(mark in text for mark in ("{{", "{%", "{#", "\r"))
    assert is_literal(text) is expected
