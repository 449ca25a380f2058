"""Values are never options, whatever character makes an option: '-' (getopt), '+' (vi/ex/vim
'+command', the obsolete '+N' of sort and tail) and '@' (gcc's and javac's '@file' of options).

Real programs for the attacks (ex runs a shell command from '+call system(...)', sort and tail
change what they read, gcc takes its options from a file), a recorder for the exemptions, and
a property over generated values.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.backends.argv import ArgvRefused, compile_argv

from .test_command_backend import ARGV_JSON, PY, Config, cmd, every_slot, every_slot_call, run

pytestmark = pytest.mark.anyio

OPTION_CHARS = "-+@"  # what programs read as the start of an option

CHARS = [("-", "-x"), ("+", "+x"), ("@", "@x")]
VALUES = ["+", "@", "+1", "+1 555 0100", "+call system('id')", "+/TODO", "@opts",
          "@/etc/passwd", "@-", "+-x", "@@", "++x"]


@pytest.mark.parametrize("value", VALUES)
async def test_plus_and_at_values_are_refused_where_options_are_read(
        config: Config, value: str) -> None:
    cfg = every_slot(config)
    for tool, args in every_slot_call(value):
        result = await run(cfg, tool, args)
        assert result.is_error, (tool, result)
        name = next(iter(args))
        assert result.text_content.startswith(
            f"Refused to run the command: the value of '{name}' starts with {value[0]!r}"), result
        assert "allow_dash" in result.text_content and "'--'" in result.text_content
        assert "\n" not in result.text_content


@pytest.mark.parametrize(("char", "value"), CHARS)
async def test_the_exemptions_hold_for_every_option_character(
        config: Config, char: str, value: str) -> None:
    cfg = config({
        "dd": cmd([PY, "-c", ARGV_JSON, "--", "{{ a }}"]),
        "allow": cmd([PY, "-c", ARGV_JSON, "{{ a }}"], options={"allow_dash": ["a"]}),
        "eq": cmd([PY, "-c", ARGV_JSON, "--file={{ a }}", "x{{ a }}"]),
        "own": cmd([PY, "-c", ARGV_JSON, f"{char}{{{{ a }}}}"]),
        "group": cmd([PY, "-c", ARGV_JSON, {"if": "a", "argv": ["--", "{{ a }}"]}],
                     params={"a": {"type": "string"}}),
    })
    assert json.loads((await run(cfg, "dd", {"a": value})).text_content) == ["--", value]
    assert json.loads((await run(cfg, "allow", {"a": value})).text_content) == [value]
    assert json.loads((await run(cfg, "eq", {"a": value})).text_content) == \
        [f"--file={value}", f"x{value}"]
    assert json.loads((await run(cfg, "group", {"a": value})).text_content) == ["--", value]
    own = await run(cfg, "own", {"a": "5"})
    if char == "-":  # a bare dash: the value would choose the option ('-5', '--5')
        assert own.is_error and "follows a bare '-'" in own.text_content
    else:  # the config's own '+' or '@': the value is what follows it ('+5' is line 5)
        assert json.loads(own.text_content) == [f"{char}5"]


@pytest.mark.parametrize("value", ["+1", "+5", "@1"])
async def test_only_a_dash_is_a_number_s_sign(config: Config, value: str) -> None:
    """A JSON number never renders with '+'; a string '+1' is text, refused like '+x'."""
    cfg = config({"n": cmd([PY, "-c", ARGV_JSON, "{{ n }}"], params={"n": {"type": "number"}},
                           required=("n",)),
                  "s": cmd([PY, "-c", ARGV_JSON, "{{ s }}"])})
    assert json.loads((await run(cfg, "n", {"n": 1})).text_content) == ["1"]
    assert json.loads((await run(cfg, "n", {"n": -1.5})).text_content) == ["-1.5"]
    refused = await run(cfg, "s", {"s": value})
    assert refused.is_error and f"starts with {value[0]!r}" in refused.text_content


def _program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


async def test_ex_never_runs_a_command_from_a_value(config: Config, tmp_path: Path) -> None:
    ex = _program("ex")
    note = tmp_path / "a.txt"
    note.write_text("TODO: one\n")
    marker = tmp_path / "pwned"
    cfg = config({"done": cmd([ex, "-s", "{{ file }}", "-c", "%s/TODO/DONE/g", "-c", "x"],
                              options={"cwd": str(tmp_path)})})
    attack = await run(cfg, "done", {"file": f"+call system('touch {marker}')"})
    assert attack.is_error and "starts with '+'" in attack.text_content
    assert not marker.exists()
    assert not (await run(cfg, "done", {"file": "a.txt"})).is_error
    assert note.read_text() == "DONE: one\n"


@pytest.mark.parametrize(("program", "argv", "value"), [
    ("sort", ["{{ file }}"], "+1"),
    ("tail", ["{{ file }}"], "+2"),
    ("gcc", ["-fsyntax-only", "{{ file }}", "m.c"], "@opts"),
])
async def test_real_programs_get_no_option_from_a_value(
        config: Config, tmp_path: Path, program: str, argv: list[str], value: str) -> None:
    path = _program(program)
    (tmp_path / "opts").write_text(f"-o {tmp_path / 'pwned'}\n")
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / value).write_text("b 2\na 1\n")
    cfg = config({"t": cmd([path, *argv], options={"cwd": str(tmp_path)}),
                  "dd": cmd([path, "--", "{{ file }}"], options={"cwd": str(tmp_path)})})
    refused = await run(cfg, "t", {"file": value})
    assert refused.is_error and f"starts with {value[0]!r}" in refused.text_content
    assert not (tmp_path / "pwned").exists()
    if program != "gcc":  # after '--' the value is the file's name
        read = await run(cfg, "dd", {"file": value})
        assert not read.is_error and "a 1" in read.text_content, read


def test_validate_notes_name_every_option_character(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n"
        "      edit:\n        command: [ex, -s, '{{ file }}', -c, x]\n"
        "        description: Run an ex script on a file.\n"
        "permissions:\n  allow: [mcp__s]\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (note,) = proc.stderr.strip().splitlines()
    assert "a value starting with '-', '+' or '@' is refused here" in note
    assert "allow_dash: [file]" in note


SHAPES: list[tuple[list[Any], list[str]]] = [
    (["{{ a }}"], []), (["{{ a }}.txt"], []), (["{{ a | trim }}"], []),
    (["{{ a ~ '' }}"], []), (["{% for x in a %}{{ x }}{% endfor %}"], []),
    (["{% set b = a %}{{ b }}"], []), (["{% set b = a %}{{ b }}"], ["b"]),
    ([{"each": "a", "argv": ["{{ item }}"]}], []), (["--", "{{ a }}"], []),
    (["{{ a }}"], ["a"]), (["=={{ a }}"], []),
]


@given(st.tuples(st.sampled_from(["", *OPTION_CHARS, " ", "x"]),
                 st.text(max_size=6)).map("".join)
       | st.lists(st.text(max_size=4), max_size=3))
def test_no_rendered_option_position_starts_with_an_option_character(value: Any) -> None:
    for template, allow in SHAPES:
        plan = compile_argv(["prog", *template], allow)
        try:
            argv = plan.render({"a": value})
        except ArgvRefused:
            continue
        allowed = "a" in allow or template[0] in ("--", "=={{ a }}")
        for arg in argv[1:]:
            if arg == "--" and template[0] == "--":
                continue
            assert allowed or not arg.startswith(tuple(OPTION_CHARS)), (template, value, argv)


# allow_dash follows a value to the params it may come from: (template, those params)
REBOUND = [
    ("{% with a = b %}{{ a }}{% endwith %}", ["b"]),
    ("{% set a = b %}{{ a }}", ["b"]),
    ("{% set a %}{{ b }}{% endset %}{{ a }}", ["b"]),
    ("{% for a in v %}{{ a }}{% endfor %}", ["v"]),
    ("{% for x in v %}{{ x }}{{ loop.index0 }}{% endfor %}", ["v"]),
    ("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b) }}", ["b"]),
    ("{% set ns = namespace(a=b) %}{{ ns.a }}", ["b"]),
    ("{{ a }}{% set a = b %}{{ a }}", ["a", "b"]),
    ("{% if a %}{% set a = b %}{% endif %}{{ a }}", ["a", "b"]),
    ("{% filter trim %}{{ b }}{% endfilter %}", ["b"]),
    ("{{ [b] | first }}", ["b"]),
]
PARAMS = {"a": {"type": "string", "default": "ok"}, "b": {"type": "string", "default": "ok"},
          "v": {"type": "array", "items": {"type": "string"}, "default": []}}


@pytest.mark.parametrize(("template", "sources"), REBOUND)
async def test_allow_dash_follows_the_param_not_the_printed_name(
        config: Config, template: str, sources: list[str]) -> None:
    tools = {"by_name": cmd([PY, "-c", ARGV_JSON, template], params=PARAMS,
                            options={"allow_dash": ["a"]}),
             "by_param": cmd([PY, "-c", ARGV_JSON, template], params=PARAMS,
                             options={"allow_dash": sources})}
    if sources == ["a", "b"]:  # 'a' is a source too: allowing it alone is not enough
        tools["by_name"]["options"]["allow_dash"] = ["b"]
    cfg = config(tools)
    args = {"a": "-rf", "b": "-rf", "v": ["-rf"]}
    refused = await run(cfg, "by_name", args)
    assert refused.is_error and "starts with '-'" in refused.text_content, refused
    for name in sources:
        assert f"'{name}'" in refused.text_content
    allowed = await run(cfg, "by_param", args)
    assert not allowed.is_error, allowed
    assert json.loads(allowed.text_content)[0].startswith("-")


@pytest.mark.parametrize(("template", "sources"), REBOUND)
def test_validate_advises_an_allow_dash_that_loads(
        config: Config, template: str, sources: list[str]) -> None:
    from toolhost.backends.command_checks import option_notes
    from toolhost.compile import compile_tools

    (note,) = option_notes(config({"t": cmd([PY, "-c", ARGV_JSON, template], params=PARAMS)}))
    advised = note.hint.split("allow_dash: [")[1].split("]")[0]
    assert advised == ", ".join(sources)  # every param the value may come from
    allowing = config({"t": cmd([PY, "-c", ARGV_JSON, template], params=PARAMS,
                                options={"allow_dash": sources})})
    compile_tools(allowing)  # the advice is accepted: no "allow_dash names ..." error
    assert not option_notes(allowing)
