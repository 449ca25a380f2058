"""Numbers and ``{each}`` items never put an option on a command line the config did not place.

A Python float renders with ``e``, ``inf`` or ``nan`` (``str(-1e16)`` is ``-1e+16``, which
getopt reads as ``-1 -e +16``); numbers now render as plain decimals and only a plain number is
exempt from the dash check. An ``{each}`` item that is a list renders as one JSON argument, so
each repeat gives exactly its group's arguments. Real subprocesses (grep and a recorder) plus a
property over every JSON value.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.backends.argv import ArgvRefused, compile_argv
from toolhost.backends.templating import UnrenderableValue, number_text, render_value

from .test_command_backend import ARGV_JSON, PY, Config, cmd, run

PLAIN = re.compile(r"-?[0-9]+(\.[0-9]+)?")

json_scalars = (st.none() | st.booleans() | st.integers()
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8)
                | st.sampled_from(["-", "--", "-e", "--output=/tmp/x", "-1e+16", "-5", "+5",
                                   "+call system('id')", "@opts", "+", "@"]))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                           max_leaves=8)


@pytest.mark.parametrize(("value", "text"), [
    (-1e16, "-10000000000000000"), (1e16, "10000000000000000"), (2.0, "2"), (-0.0, "0"),
    (-1e-05, "-0.00001"), (1.5e-7, "0.00000015"), (1.5e16, "15000000000000000"),
    (1e22, "10000000000000000000000"),
])
def test_numbers_render_as_plain_decimals(value: float, text: str) -> None:
    assert number_text(value) == text == render_value(value)


@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
def test_every_finite_number_is_plain_and_reads_back(value: float) -> None:
    text = render_value(value)
    assert PLAIN.fullmatch(text), text
    assert float(text) == value if isinstance(value, float) else int(text) == value


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_infinity_and_nan_have_no_text(value: float) -> None:
    with pytest.raises(UnrenderableValue):
        render_value(value)
    with pytest.raises(UnrenderableValue):
        render_value([1, value])  # not JSON either


@pytest.mark.anyio
async def test_a_float_integer_cannot_shift_grep_s_pattern(config: Config,
                                                           tmp_path: Path) -> None:
    """The red team's reproduction: ``[grep, "{{ lines }}", beta, data.txt]``."""
    (tmp_path / "data.txt").write_text("alpha\n-05 beta\n")
    cfg = config({"context": cmd(["grep", "{{ lines }}", "beta", "data.txt"],
                                 options={"ok_codes": [0, 1], "cwd": str(tmp_path)},
                                 params={"lines": {"type": "integer"}}, required=("lines",))})
    for lines in (-2, -2.0, -1e16):
        result = await run(cfg, "context", {"lines": lines})
        assert not result.is_error, (lines, result)  # grep -N beta data.txt: beta matched
        assert result.text_content == "alpha\n-05 beta\n"


@pytest.mark.anyio
async def test_numbers_reach_the_program_as_plain_decimals(config: Config) -> None:
    cfg = config({"t": cmd([PY, "-c", ARGV_JSON, "{{ n }}", "x{{ n }}", "{{ xs }}",
                            {"each": "xs", "argv": ["-k", "{{ item }}"]}],
                           params={"n": {"type": "number"},
                                   "xs": {"type": "array", "items": {"type": "number"}}},
                           required=("n", "xs"))})
    result = await run(cfg, "t", {"n": -1e-05, "xs": [1e16, -2.0]})
    assert json.loads(result.text_content) == [
        "-0.00001", "x-0.00001", "10000000000000000", "-2",
        "-k", "10000000000000000", "-k", "-2"]


@pytest.mark.anyio
async def test_a_number_after_a_bare_dash_cannot_name_a_long_option(config: Config) -> None:
    cfg = config({"h": cmd([PY, "-c", ARGV_JSON, "-{{ n }}", "x"],
                           params={"n": {"type": "integer"}}, required=("n",))})
    # a short option made of digits, as documented for head
    assert json.loads((await run(cfg, "h", {"n": 1e16})).text_content) == \
        ["-10000000000000000", "x"]
    for n, text in ((-1e16, "--10000000000000000"), (-5, "--5")):
        result = await run(cfg, "h", {"n": n})
        assert result.is_error, result
        assert f"the value of 'n' follows a bare '-' ({text!r})" in result.text_content


@pytest.mark.anyio
async def test_text_a_template_builds_around_a_number_is_checked_as_text(
        config: Config) -> None:
    cfg = config({"j": cmd([PY, "-c", ARGV_JSON, "{{ n | tojson }}"],
                           params={"n": {"type": "number"}}, required=("n",)),
                  "s": cmd([PY, "-c", ARGV_JSON, "{{ n }}e5"],
                           params={"n": {"type": "number"}}, required=("n",))})
    for tool in ("j", "s"):
        result = await run(cfg, tool, {"n": -1e16})
        assert result.is_error and "starts with '-'" in result.text_content, (tool, result)
    assert json.loads((await run(cfg, "s", {"n": 2})).text_content) == ["2e5"]


@pytest.mark.anyio
async def test_infinity_and_nan_are_refused_naming_the_param(config: Config) -> None:
    cfg = config({"t": cmd([PY, "-c", ARGV_JSON, "--", "{{ n }}", "{{ xs }}"],
                           params={"n": {"type": "number"},
                                   "xs": {"type": "array", "items": {"type": "number"}}},
                           required=("n", "xs")),
                  "env": cmd([PY, "-c", "import os; print(os.environ['N'])"],
                             options={"env": {"N": "{{ n }}"}},
                             params={"n": {"type": "number"}}, required=("n",))})
    result = await run(cfg, "t", {"n": -math.inf, "xs": []})
    assert result.text_content == (
        "Refused to run the command: the value of 'n' is -inf, which is not a finite number "
        "(numbers are passed in plain decimal notation, and it has none).")
    listed = await run(cfg, "t", {"n": 1, "xs": [1, math.nan]})
    assert listed.is_error and "the value of 'xs' holds nan" in listed.text_content
    env = await run(cfg, "env", {"n": math.inf})
    assert env.is_error and "the value of 'n' is inf" in env.text_content
    assert (await run(cfg, "env", {"n": -1e-7})).text_content == "-0.0000001\n"


def test_toolhost_call_passes_json_infinity_to_no_program(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\npermissions: {default: allow}\nservers:\n  s:\n    tools:\n"
        f"      sort:\n        command: [{json.dumps(PY)}, -c, {json.dumps(ARGV_JSON)},"
        " '{{ n }}']\n        params:\n          n: {type: number}\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "s.sort",
                           "--json", '{"n": -Infinity}'], capture_output=True, text=True,
                          timeout=60)
    # refused at the door now (call's JSON reader takes no Infinity); the backend's own
    # refusal of a non-finite number is tested through the API above
    assert proc.returncode != 0 and "-Infinity is not JSON" in proc.stderr, proc
    assert '"-inf"' not in proc.stdout


# -- {each} items -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_an_each_item_that_is_a_list_is_one_json_argument(config: Config) -> None:
    """``{each: pats, argv: ["-e", "{{ item }}"]}`` with ``allow_dash: [pats]``: an item
    ``["b", "--output=/tmp/x"]`` used to run ``-e b --output=/tmp/x``."""
    nested = {"type": "array", "items": {"type": ["string", "array", "object"],
                                         "items": {"type": "string"}}}
    argv = [PY, "-c", ARGV_JSON, {"each": "pats", "argv": ["-e", "{{ item }}"]}, "--", "{{ f }}"]
    cfg = config({"allowed": cmd(argv, options={"allow_dash": ["pats"]},
                                 params={"pats": nested, "f": {"type": "string"}}),
                  "plain": cmd(argv, params={"pats": nested, "f": {"type": "string"}})})
    for tool in ("allowed", "plain"):
        result = await run(cfg, tool, {"pats": ["a", ["b", "--output=/tmp/x"], {"k": "-v"}],
                                       "f": "f"})
        assert json.loads(result.text_content) == [
            "-e", "a", "-e", '["b","--output=/tmp/x"]', "-e", '{"k":"-v"}', "--", "f"], tool
    refused = await run(cfg, "plain", {"pats": ["-x"], "f": "f"})
    assert refused.is_error and "the value of 'pats' starts with '-'" in refused.text_content


@given(json_values)
def test_no_value_of_any_type_becomes_an_option(value: Any) -> None:
    """Every argument that starts with an option character ('-', '+', '@') is one the config
    wrote, one allow_dash permits, or a plain number ('-' only); an {each} repeat gives
    exactly its group's arguments."""
    shapes: list[tuple[list[Any], list[str]]] = [
        (["{{ a }}"], []), (["{{ a }}.txt"], []), (["-{{ a }}"], []), (["--{{ a }}"], []),
        (["{{ a | tojson }}"], []), (["--opt={{ a }}"], []),
        ([{"each": "a", "argv": ["-e", "{{ item }}"]}], []),
        ([{"each": "a", "argv": ["-e", "{{ item }}"]}], ["a"]),
        ([{"each": "a", "argv": ["{{ item }}", "x{{ item }}"]}], []),
    ]
    for template, allow in shapes:
        plan = compile_argv(["prog", "-n", *template], allow)
        try:
            argv = plan.render({"a": value})
        except (ArgvRefused, UnrenderableValue):
            continue
        args = argv[2:]
        if isinstance(template[0], dict):
            items = value if isinstance(value, (list, tuple)) else [value]
            if value is None:
                items = []
            group = template[0]["argv"]
            assert len(args) == len(group) * len(items), (template, value, argv)
            for i, arg in enumerate(args):
                source = group[i % len(group)]
                if source == "-e" or source.startswith("x") or allow:
                    continue
                assert not arg.startswith(("-", "+", "@")) or PLAIN.fullmatch(arg), \
                    (template, value, arg)
            continue
        expanded = template[0] == "{{ a }}" and isinstance(value, list)
        sources = value if expanded else [value] * len(args)  # the value each arg came from
        assert len(sources) == len(args), (template, value, argv)
        for arg, source in zip(args, sources, strict=True):
            if template[0].startswith("--opt="):
                assert arg.startswith("--opt=")
            elif template[0].startswith("-{{"):  # the config's dash and a plain number
                assert re.fullmatch(r"-[0-9]+(\.[0-9]+)?", arg), (template, value, arg)
            elif arg.startswith(("+", "@")):  # an option character no number renders with
                raise AssertionError((template, value, arg))
            elif arg.startswith("-"):  # only a plain number may start with a dash here
                assert PLAIN.fullmatch(arg), (template, value, arg)
                assert isinstance(source, (int, float)) and not isinstance(source, bool), \
                    (template, value, arg)


def test_validate_notes_an_each_whose_items_may_be_lists(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\npermissions: {default: allow}\nservers:\n  s:\n    tools:\n"
        "      grep:\n        description: Search.\n        command:\n"
        "          argv: [grep, {each: pats, argv: [-e, '{{ item }}']}, --, '{{ f }}']\n"
        "          allow_dash: [pats]\n"
        "        params:\n"
        "          pats: {type: array, items: {type: [string, array], items: {type: string}}}\n"
        "          f: string\n"
        "      flat:\n        description: Search.\n        command:\n"
        "          argv: [grep, {each: pats, argv: [-e, '{{ item }}']}, --, '{{ f }}']\n"
        "          allow_dash: [pats]\n"
        "        params:\n          pats: {type: array, items: {type: string}}\n"
        "          f: string\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    notes = proc.stderr.strip().splitlines()
    assert len(notes) == 1, proc.stderr
    assert "servers.s.tools.grep.command.argv[1].each: note: the items of 'pats' may be " \
        "lists or objects" in notes[0]
    assert "one JSON argument" in notes[0]
