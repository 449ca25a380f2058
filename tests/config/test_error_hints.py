"""Mistakes people make in config files get a hint that says how to fix them."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

CASES = {
    # a tab in the indentation
    "tab": ("toolhost: 1\nservers:\n  s:\n\tdescription: x\n",
            (4, "found character", "indent with spaces: YAML does not allow tabs")),
    # an unquoted ': ' inside a value
    "colon": ("toolhost: 1\nservers:\n  s:\n    description: Note: read this\n",
              (4, "mapping values are not allowed",
               "quote a value that contains ': ', as in description: \"Note: this\"")),
    # a key indented one space too far
    "indent": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        command: [echo]\n"
               "         description: y\n",
               (7, "did not find expected key",
                "check the indentation of line 7: the keys of one mapping line up")),
    # an unquoted template
    "template": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                 "        command: [echo, {{ x }}]\n",
                 (6, "a mapping key must be a plain string",
                  "quote templates: unquoted, {{ x }} is read as a mapping")),
    # a tool key written at the level of the tool names
    "outdented": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                  "        command: [echo, x]\n      description: y\n",
                  (7, "expected a mapping (a tool), got a string",
                   "'description' is read as the name of a tool: indent it under a tool")),
    # a shell string where the argv list belongs
    "argv": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
             "        command: echo \"{{ x }}\" | wc\n",
             (6, "expected array, got a string",
              'write a list, one element per argument: ["echo", "{{ x }}", "|", "wc"]; there '
              "is no shell, so pipes, globs and $VARS are not interpreted")),
    # a shell string whose templates hold spaces: each template stays one element
    "argv-templates": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                       "        command: 'grep -rn {% if i %}-i{% endif %} -- {{ pattern }} .'\n",
                       (6, "expected array, got a string",
                        'write a list, one element per argument: ["grep", "-rn", '
                        '"{% if i %}-i{% endif %}", "--", "{{ pattern }}", "."]; there is no '
                        "shell, so pipes, globs and $VARS are not interpreted")),
    "argv-template-in-a-word": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                                "        command: \"echo hello {{ name }}!\"\n",
                                (6, "expected array, got a string",
                                 'write a list, one element per argument: ["echo", "hello", '
                                 '"{{ name }}!"]; there is no shell, so pipes, globs and $VARS '
                                 "are not interpreted")),
    # one plugin named where the list belongs
    "plugins a string": ("toolhost: 1\nplugins: toolhost-files\n",
                         (2, "expected a list of plugin names, got the string 'toolhost-files'",
                          "write it as a list: plugins: [toolhost-files]")),
    # hostile18: a key past YAML's 1,024 characters was told to quote a value holding ': '
    **{f"long-key-{kind}": (text.replace("K", "k" * 1100),
                            (line, problem, "a mapping key of 1,100 characters: YAML reads a "
                             "key of at most 1,024 on one line; shorten it"))
       for kind, text, line, problem in [
           ("block", "toolhost: 1\nservers:\n  K: {}\n", 3, "mapping values are not allowed"),
           ("flow", "toolhost: 1\nservers: {K: {}}\n", 2, "did not find expected ','"),
           ("item", "toolhost: 1\nservers:\n  - K: 1\n", 3, "mapping values are not allowed")]},
    # a long value holding ': ' keeps the quoting hint
    "long-colon": ("toolhost: 1\nservers:\n  s:\n    description: " + "d" * 1500 + ": x\n",
                   (4, "mapping values are not allowed",
                    "quote a value that contains ': ', as in description: \"Note: this\"")),
}

YAML_HABIT = ("this line is written as YAML: TOML writes key = value, [servers.NAME] tables "
              "and [a, b] lists (or name the file .yaml)")
TOML_CASES = {
    "yaml mapping": ("toolhost = 1\nservers:\n  p:\n    tools: {}\n",
                     (2, "Expected '=' after a key", YAML_HABIT)),
    "yaml list item": ("toolhost = 1\n[servers.p.tools.t]\ncommand = [\"echo\"]\nparams:\n"
                       "  - a\n", (4, "Expected '='", YAML_HABIT)),
    "bare word": ("toolhost = 1\n[servers.p.tools.t]\ncommand = [\"echo\"]\n"
                  "description = list files\n",
                  (4, "Invalid value", 'quote text in TOML: description = "list files"')),
    "duration unquoted": ("toolhost = 1\n[servers.p.tools.t]\ncommand = [\"echo\"]\n"
                          "timeout = 5s\ndescription = \"x\"\n",
                          (4, "Expected newline or end of document after a statement",
                           'quote text in TOML: timeout = "5s"')),
    "yaml boolean": ("toolhost = 1\n[servers.p.tools.t]\ncommand = [\"echo\"]\n"
                     "[servers.p.tools.t.params.x]\ntype = \"boolean\"\ndefault = yes\n",
                     (6, "Invalid value",
                      "TOML's booleans are true and false, lower case and unquoted")),
    "unclosed array": ("toolhost = 1\n[servers.p.tools.t]\ncommand = [\"echo\"\n",
                       (3, "still open at the end of the file", "")),
}


@pytest.mark.parametrize("name", sorted(TOML_CASES))
def test_toml_written_with_yaml_habits_gets_a_hint(name: str, tmp_path: Path) -> None:
    text, (line, message, hint) = TOML_CASES[name]
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert (problem.file, problem.line) == (str(path), line), problem
    assert message in problem.message and "\n" not in problem.message
    assert problem.hint == hint
    if "end of the file" not in message:  # a statement in the middle is not the end
        assert "end of the file" not in problem.message


@pytest.mark.parametrize("name", sorted(CASES))
def test_common_mistakes_get_a_hint(name: str, tmp_path: Path) -> None:
    text, (line, message, hint) = CASES[name]
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert (problem.file, problem.line) == (str(path), line)
    assert message in problem.message
    assert problem.hint == hint


def test_a_tool_named_like_a_key_is_still_a_tool_when_it_is_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                    "      description: {command: [echo, x]}\n")
    config = load_config(path, layers=False)
    assert list(config.servers["s"].tools) == ["description"]


def test_a_default_the_param_schema_rejects_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                    "        command: [echo, '{{ n }}', '{{ m }}']\n"
                    "        params:\n"
                    "          n: {type: integer, default: \"forty\"}\n"
                    "          m: {type: integer, minimum: 1, default: 1}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (8, "servers.s.tools.t.params.n.default")
    assert problem.message == ("the default does not match the param's schema: 'forty' is "
                               "not of type 'integer'")


def test_an_unknown_backend_kind_points_at_plugins(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  db:\n    tools:\n"
                    "      q: {sqlite: {database: x.db}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert problem.key_path == "servers.db.tools.q.sqlite"
    assert problem.hint == ("backend kinds available: command, http, python; a plugin's kind "
                            "needs the plugin listed in `plugins:` (see `toolhost plugins`)")


@pytest.mark.parametrize("plugin", ["not-installed", "fails-at-import"])
def test_a_kind_of_a_listed_plugin_that_did_not_load_is_not_sent_to_list_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin: str) -> None:
    """The plugin is in `plugins:` and failed (said on its line): "needs the plugin listed in
    `plugins:`" sent the reader to do what was done."""
    import importlib

    from ..plugins.conftest import write_plugin

    name = "tp-none-here"
    if plugin == "fails-at-import":
        name = "tp-kind-broken"
        write_plugin(tmp_path / "site", name, "1.0", {"tp_kind_broken": "raise ImportError('x')\n"})
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
        importlib.invalidate_caches()
    path = tmp_path / "c.yaml"
    path.write_text(f"toolhost: 1\nplugins: [{name}]\nservers:\n  db:\n    tools:\n"
                    "      q: {tpkind: {database: x.db}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    first, kind = info.value.problems
    assert first.key_path == "plugins[0]", first
    assert kind.key_path == "servers.db.tools.q.tpkind", kind
    assert "a plugin listed in `plugins:` did not load (said above)" in kind.hint, kind.hint
    assert "needs the plugin listed" not in kind.hint, kind.hint


# an unknown key with no near miss: where it belongs, or the keys that are valid there
UNKNOWN = {
    "backend option on the tool": (
        "        http: {url: 'http://127.0.0.1:1/x'}\n        headers: {A: b}\n",
        "servers.s.tools.t.headers",
        "'headers' is an option of the http backend: write it inside http: {headers: ...}"),
    "a tool key nobody has": (
        "        command: [echo]\n        wibble: 1\n", "servers.s.tools.t.wibble",
        "a tool's keys: annotations, description, input_schema, max_output_chars, output, "
        "output_schema, params, redact_results, secrets, task_support, timeout, title; and one "
        "backend (command)"),
    "a backend option nobody has": (
        "        command: {argv: [echo], colour: x}\n", "servers.s.tools.t.command.colour",
        "the keys here: allow_dash, allow_remote, argv, cwd, env, max_memory, max_output_bytes, "
        "mime_type, ok_codes, stderr, stdin, stdout, unsafe_code_placeholders"),
}


@pytest.mark.parametrize("name", sorted(UNKNOWN))
def test_an_unknown_key_says_what_is_valid_there(name: str, tmp_path: Path) -> None:
    tool, key_path, hint = UNKNOWN[name]
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n" + tool)
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert (problem.key_path, problem.message, problem.hint) == (key_path, "unknown key", hint)


def test_an_unknown_server_key_lists_the_server_keys(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    wibble: 1\n    tools: {}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    (problem,) = info.value.problems
    assert problem.hint.startswith("the keys here: ") and "base_url" in problem.hint


SURROGATES = {
    "pair.yaml": ('toolhost: 1\nx: "\\ud83d\\ude00"\n',
                  "2:7: x: invalid YAML: found invalid Unicode character escape code",
                  "write \\U0001F600 or the character itself"),
    "half.yaml": ('toolhost: 1\nx: "a \\udc00 b"\n', "2:9: x: invalid YAML",
                  "\\udc00 is half of a UTF-16 surrogate pair"),
    "pair.toml": ('toolhost = 1\nx = "\\uD83D\\uDE00"\n',
                  "2:12: x: invalid TOML: Escaped character is not a Unicode scalar value",
                  "write \\U0001F600 or the character itself"),
    "half.toml": ('toolhost = 1\nx = "\\ud800"\n', "2:12: x: invalid TOML",
                  "\\ud800 is half of a UTF-16 surrogate pair"),
}


@pytest.mark.parametrize("name", sorted(SURROGATES))
def test_a_json_surrogate_escape_gets_the_escape_to_write(name: str, tmp_path: Path) -> None:
    text, where, hint = SURROGATES[name]
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / name, layers=False)
    problem = caught.value.problems[0]
    assert str(problem).startswith(f"{tmp_path / name}:{where}"), problem
    assert hint in problem.hint, problem
