"""An argument that renders nothing (an empty list, an absent ``{if}`` group, an ``{each}``
over nothing, an ``{% if %}`` flag that is off) makes the option before it adjacent to what
follows: a ``--`` there may be read as that option's value, so it no longer waives the dash
check. And only an element that is exactly ``{{ name }}`` spreads a list over arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.backends.argv import ArgvRefused, compile_argv, is_given

from .test_command_backend import ARGV_JSON, PY, Config, cmd, run

VALUE = {"type": "array", "items": {"type": "string"}}

# (argv after the program, context): each leaves an option right before the '--'
TAKEN = [
    (["--hide", "{{ hide }}", "--", "{{ path }}"], {"hide": []}),
    (["--hide", "{{ hide }}", "--", "{{ path }}"], {"hide": ()}),
    (["-o", {"if": "x", "argv": ["{{ x }}"]}, "--", "{{ path }}"], {}),
    (["-o", {"if": "x", "argv": ["{{ x }}"]}, "--", "{{ path }}"], {"x": None}),
    (["-o", {"if": "x", "argv": ["{{ x }}"]}, "--", "{{ path }}"], {"x": False}),
    (["-o", {"if": "x", "argv": ["{{ x }}"]}, "--", "{{ path }}"], {"x": []}),
    (["-o", {"each": "x", "argv": ["{{ item }}"]}, "--", "{{ path }}"], {"x": []}),
    (["-o", {"each": "x", "argv": ["{{ item }}"]}, "--", "{{ path }}"], {"x": None}),
    (["-o", "{% if x %}y{% endif %}", "--", "{{ path }}"], {"x": False}),
    ([{"if": "e", "argv": ["--exclude", "{{ x }}"]}, "--", "{{ path }}"], {"e": 1, "x": []}),
    (["-o", "{{ a }}", "{{ b }}", "--", "{{ path }}"], {"a": [], "b": []}),
    (["-o", {"if": "x", "argv": ["{{ x }}"]}, {"each": "y", "argv": ["{{ item }}"]}, "--",
      {"if": "path", "argv": ["{{ path }}"]}], {"y": []}),
]


@pytest.mark.parametrize(("argv", "context"), TAKEN)
@pytest.mark.parametrize("value", ["-la", "--output=/tmp/x", "-", "--"])
def test_a_dash_after_a_dashdash_an_option_may_take_is_refused(
        argv: list[Any], context: dict[str, Any], value: str) -> None:
    plan = compile_argv(["prog", *argv])
    with pytest.raises(ArgvRefused, match="could read that '--' as the option's value"):
        plan.render({**context, "path": value})
    assert plan.render({**context, "path": "x" + value})[-1] == "x" + value


# what vanished starts with a flag the config wrote: the option before it takes no value
KEPT = [
    (["-rn", {"if": "i", "argv": ["-i"]}, "--", "{{ path }}"], {}),
    (["-rn", {"each": "e", "argv": ["-e", "{{ item }}"]}, "--", "{{ path }}"], {"e": []}),
    (["-rn", {"if": "x", "argv": ["--exclude", "{{ x }}"]}, "--", "{{ path }}"], {"x": []}),
    (["-rn", "{% if v %}--verbose{% endif %}", "--", "{{ path }}"], {"v": False}),
    (["--hide", "{{ hide }}", "--", "{{ path }}"], {"hide": ["x"]}),
    (["--hide=x", {"if": "x", "argv": ["{{ x }}"]}, "--", "{{ path }}"], {}),
    (["{{ a }}", "--", "{{ path }}"], {"a": []}),
    (["-o", "{{ a }}", "--", "{{ path }}"], {"a": ""}),
]


@pytest.mark.parametrize(("argv", "context"), KEPT)
def test_a_dashdash_the_config_put_after_a_flag_still_protects(
        argv: list[Any], context: dict[str, Any]) -> None:
    rendered = compile_argv(["prog", *argv]).render({**context, "path": "-la"})
    assert rendered[-2:] == ["--", "-la"]


def test_an_if_group_over_an_empty_list_is_absent() -> None:
    assert not is_given([]) and not is_given(()) and is_given([0]) and is_given("")
    assert compile_argv(["grep", {"if": "x", "argv": ["--exclude", "{{ x }}"]}]).render(
        {"x": []}) == ["grep"]


@given(st.lists(st.sampled_from(["-o", "--hide", "x", "--", "{{ a }}", "{{ b }}",
                                 {"if": "c", "argv": ["{{ c }}"]},
                                 {"each": "d", "argv": ["{{ item }}"]},
                                 "{% if e %}z{% endif %}"]), max_size=8),
       st.sampled_from([[], ["-q"], ["v", "-q"]]), st.sampled_from([None, [], "-q", "v"]),
       st.sampled_from(["-q", "--", "-"]))
def test_no_option_ever_follows_an_option_that_took_the_dashdash(
        argv: list[Any], a: Any, c: Any, path: str) -> None:
    """Whatever renders empty: if the argv holds an option-like argument, then '--', then a
    value starting with '-', the '--' is one the config placed right after that option."""
    plan = compile_argv(["prog", *argv, "--", "{{ path }}"], allow_dash=())
    context = {"a": a, "b": [], "c": c, "d": [], "e": False, "path": path}
    try:
        out = plan.render(context)
    except ArgvRefused:
        return
    last = out[-1]
    assert last == path and out[-2] == "--"
    before = out[-3] if len(out) > 2 else ""
    # an earlier '--' (only the config writes one here) already ended the options: `before`
    # is an operand, whatever it looks like
    if before.startswith("-") and before not in ("-", "--") and "=" not in before \
            and "--" not in out[1:-3]:
        # a literal option of the config sits right before the last element's '--' only
        # when nothing between them could vanish: the config's own choice
        assert argv and argv[-1] == before


@pytest.mark.parametrize("source", [" {{ files }}", "{{ files }} ", "\n{{ files }}",
                                    "{{ files }}\n", "\t{{files}}", " {{- files }}",
                                    "x{{ files }}", "{{ files }}\r"])
def test_a_list_with_text_around_it_is_one_argument(source: str) -> None:
    out = compile_argv(["prog", source]).render({"files": ["-rf", "--output=/tmp/x"]})
    assert len(out) == 2 and "-rf" in out[1] and not out[1].startswith("-")


@pytest.mark.parametrize("source", ["{{ files }}", "{{files}}", "{{- files -}}"])
def test_only_an_exact_placeholder_spreads_a_list(source: str) -> None:
    plan = compile_argv(["prog", "--", source])
    assert plan.render({"files": ["a", "-b"]}) == ["prog", "--", "a", "-b"]


@pytest.mark.anyio
async def test_grep_with_an_empty_exclude_list_searches_the_pattern(
        config: Config, tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("a --version line\n")
    cfg = config({
        "search": cmd(["grep", "-rn", {"if": "excl", "argv": ["--exclude", "{{ excl }}"]},
                       "--", "{{ pattern }}", "."],
                      params={"excl": VALUE, "pattern": {"type": "string"}},
                      required=("pattern",), options={"cwd": str(tmp_path), "ok_codes": [0, 1]}),
        "list": cmd([PY, "-c", ARGV_JSON, "--hide", "{{ hide }}", "--", "{{ path }}"],
                    params={"hide": {**VALUE, "default": []},
                            "path": {"type": "string", "default": "."}}),
    })
    found = await run(cfg, "search", {"excl": [], "pattern": "--version"})
    assert "d.txt:1:a --version line" in found.text_content
    refused = await run(cfg, "list", {"path": "-la"})
    assert refused.is_error and "'path'" in refused.text_content
    ok = await run(cfg, "list", {"hide": ["x"], "path": "-la"})
    assert json.loads(ok.text_content) == ["--hide", "x", "--", "-la"]


def test_validate_notes_lists_after_options_and_lists_inside_text(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\npermissions: {allow: [mcp__s]}\nservers:\n  s:\n    tools:\n"
        "      sp:\n        command: [echo, ' {{ files }}']\n"
        "        params: {files: {type: array, items: {type: string}}}\n"
        "      ls:\n        command: [ls, --hide, '{{ hide }}', --, '{{ p }}']\n"
        "        params: {hide: {type: array, items: {type: string}, default: []}, p: string}\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "servers.s.tools.sp.command.argv[1]: note: ' {{ files }}' has text around" \
        in proc.stderr
    assert "servers.s.tools.ls.command.argv[2]: note: the list 'hide' follows '--hide'" \
        in proc.stderr
    assert "{each: hide, argv: [--hide" in proc.stderr
