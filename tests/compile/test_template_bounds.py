"""A template of tens of thousands of tags, or nested thousands deep, is a located "does not
parse" problem at load, in every place a config holds a template (a prompt, an argv element,
stdin, env, an HTTP url): not a gigabyte of jinja2 compile (100,000 ``{{ x }}`` took 1 GB and
7 s) nor a RecursionError ("internal error")."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.backends.templating import MAX_TEMPLATE_TAGS
from toolhost.cli import main

DEEP = "{% if 1 %}" * 600 + "x" + "{% endif %}" * 600  # under the tag cap
BRACKETS = "{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}"
LONG = "{{ x }}" * (MAX_TEMPLATE_TAGS + 1)
_HEAD = "toolhost: 1\nservers:\n  s:\n"
_TOOL = "    tools:\n      t:\n        description: d\n        "


def _prompt(template: str) -> str:
    return (_HEAD + _TOOL + "command: [echo]\n    prompts:\n      q:\n"
            "        arguments: {x: {description: d}}\n"
            f"        template: '{template}'\n")


@pytest.mark.parametrize(("text", "key", "said"), [
    (_prompt(DEEP), "servers.s.prompts.q.template", "nested too deeply"),
    (_prompt(LONG), "servers.s.prompts.q.template", "tags"),
    (_prompt(BRACKETS), "servers.s.prompts.q.template", "nested too deeply"),
    (_HEAD + _TOOL + f"command: [echo, '{LONG}']\n", "servers.s.tools.t.command.argv[1]",
     "tags"),
    (_HEAD + _TOOL + f"command: [echo, '{BRACKETS}']\n", "servers.s.tools.t.command.argv[1]",
     "nested too deeply"),
    (_HEAD + _TOOL + f"command: {{argv: [cat], stdin: '{DEEP}'}}\n",
     "servers.s.tools.t.command", "nested too deeply"),
    (_HEAD + _TOOL + f"command: {{argv: [env], env: {{A: '{LONG}'}}}}\n",
     "servers.s.tools.t.command", "tags"),
    (_HEAD + _TOOL + "http: {url: 'http://h/" + "{{ x }}" * (MAX_TEMPLATE_TAGS + 1) + "'}\n",
     "servers.s.tools.t.http.url", "tags"),
    (_HEAD + _TOOL + "http: {url: 'http://h/" + BRACKETS + "'}\n",
     "servers.s.tools.t.http.url", "nested too deeply"),
])
def test_a_huge_or_deep_template_is_a_located_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str,
        said: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert main(["validate", "-q", str(path)]) == 1
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:") and f": {key}: " in first and said in first, err
    assert "internal error" not in err and "\\n" not in first


def test_a_template_of_as_many_tags_as_allowed_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(_prompt("{{ x }}" * MAX_TEMPLATE_TAGS))
    assert main(["validate", "-q", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("where", ["prompt", "argv"])
def test_the_templates_of_one_config_are_bounded_in_all(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    """Templates each under the cap but many (100 of 1,900 tags took 17 s): the one that
    passes the load's budget (50,000 tags; 3,000 here, through TOOLHOST_MAX_TEMPLATE_TAGS,
    to be quick) is the located problem; the first ones are kept."""
    from toolhost.config.limits import LIMITS

    assert LIMITS.template_tags == 50_000
    monkeypatch.setenv("TOOLHOST_MAX_TEMPLATE_TAGS", "3000")
    each = MAX_TEMPLATE_TAGS // 2
    count = 3000 // each + 1
    text = _HEAD + _TOOL + "command: [echo]\n"
    if where == "prompt":
        text += "    prompts:\n" + "".join(
            f"      q{i}:\n        arguments: {{x: {{description: d}}}}\n"
            f"        template: 'p{i}" + "{{ x }}" * each + "'\n" for i in range(count))
    else:
        text = _HEAD + "    tools:\n" + "".join(
            f"      t{i}:\n        description: d\n        command: [echo, 'a{i}"
            + "{{ x }}" * each + "']\n" for i in range(count))
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert main(["validate", "-q", str(path)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if "in all" in line]
    # (an argv template is parsed for its names, then compiled: it spends twice)
    assert lines and all(line.startswith(f"{path}:") for line in lines)
    assert ".q0." not in lines[0] and ".t0." not in lines[0]
    if where == "prompt":
        assert len(lines) == 1 and f".q{count - 1}." in lines[0]
