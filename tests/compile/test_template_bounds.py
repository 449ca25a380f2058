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
