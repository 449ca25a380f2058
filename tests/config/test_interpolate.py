"""${VAR} interpolation and secrets."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.config.interpolate import expand
from toolhost.errors import ConfigError

ENV = {"HOST": "127.0.0.1", "EMPTY": "", "TOKEN": "tok-123456", "USER_ID": "u1"}


@pytest.mark.parametrize(("text", "expected"), [
    ("plain $HOME stays", "plain $HOME stays"),
    ("http://${HOST}:8080", "http://127.0.0.1:8080"),
    ("${MISSING:-fallback}", "fallback"),
    ("${EMPTY:-fallback}", "fallback"),
    ("${EMPTY}", ""),
    ("${MISSING:-${HOST}}", "127.0.0.1"),
    ("$${HOST} is literal", "${HOST} is literal"),
    ("a$", "a$"),
])
def test_expand(text: str, expected: str) -> None:
    assert expand(text, ENV) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("${MISSING}", "environment variable MISSING is not set"),
    ("${MISSING:?set MISSING to the API key}", "set MISSING to the API key"),
    ("${EMPTY:?}", "environment variable EMPTY is required"),
    ("${HOST", "unterminated"),
    ("${1X}", "expected a variable name"),
    ("${HOST:+x}", "invalid reference"),
])
def test_expand_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("+", r"\+")):
        expand(text, ENV)


def test_failures_name_the_place_and_overridden_values_are_not_expanded(
        write: Any, kinds: Any) -> None:
    write("base.yaml", "run: {model: '${NEVER_SET:?not reached}'}\n")
    main = write("main.yaml", """\
toolhost: 1
extends: [base.yaml]
run:
  model: x
  system_prompt: ${NEEDED:?set NEEDED first}
  cwd: "${ALSO}"
""")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={}, layers=False)
    found = [(p.line, p.key_path, p.message) for p in info.value.problems]
    assert found == [(5, "run.system_prompt", "set NEEDED first"),
                     (6, "run.cwd", "environment variable ALSO is not set")]


def test_secrets_are_collected_and_redacted(write: Any, kinds: Any) -> None:
    main = write("s.yaml", """\
toolhost: 1
servers:
  api:
    base_url: http://${HOST}:9
    headers: {Authorization: "Bearer ${TOKEN}", X-User: "${USER_ID}"}
    auth: {type: header, name: X-Key, value: literal-key-value}
    secrets: [password]
    tools:
      t:
        http: {url: /t, json: {password: hunter2-long}}
        params: {n: {type: integer, default: 1}}
""")
    config = load_config(main, kinds=kinds, environ=ENV, layers=False)
    assert config.servers["api"].defaults.base_url == "http://127.0.0.1:9"
    assert config.servers["api"].defaults.headers["Authorization"] == "Bearer tok-123456"
    # the token (from ${} in headers), auth credentials and declared keys; not the base URL
    # host, and not a value too short to redact safely
    assert config.secrets == {"tok-123456", "literal-key-value", "hunter2-long"}
    assert config.redact("Bearer tok-123456 hunter2-long") == "Bearer *** ***"


def test_secrets_never_appear_in_errors(write: Any, kinds: Any) -> None:
    main = write("e.yaml", """\
toolhost: 1
servers:
  api:
    tools:
      t:
        http: {url: /t, headers: {X-Key: "${TOKEN}"}, method: "${TOKEN}"}
""")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ=ENV, layers=False)
    assert "tok-123456" not in str(info.value)
    assert "***" in str(info.value)


@pytest.mark.parametrize("depth", [33, 1000, 5000])
def test_defaults_nested_too_deep_are_a_located_problem(write: Any, kinds: Any,
                                                        depth: int) -> None:
    value = "${NOPE:-" * depth + "x" + "}" * depth
    main = write("deep.yaml", f'toolhost: 1\nrun: {{model: "{value}"}}\n')
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={}, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (2, "run.model")
    assert "nested more than 32 deep" in problem.message
    assert expand("${NOPE:-" * 32 + "x" + "}" * 32, {}) == "x"  # the limit itself is fine


@pytest.mark.parametrize("shape", ["one value", "many values"])
def test_substitutions_cannot_grow_a_file_past_the_size_limit(
        write: Any, kinds: Any, monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_BYTES", "100000")
    big = "a" * 5_000
    if shape == "one value":
        text = 'toolhost: 1\nrun: {model: "' + "${BIG}" * 30 + '"}\n'
    else:
        text = "toolhost: 1\nrun:\n  cli_args:\n" + "    - --append-system-prompt=${BIG}\n" * 30
    main = write("big.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, environ={"BIG": big}, layers=False)
    (problem,) = info.value.problems  # once, where the budget ran out
    assert "add more text than the config size limit" in problem.message and problem.line
    load_config(main, kinds=kinds, environ={"BIG": big[:100]}, layers=False)


@pytest.mark.parametrize("value", ["q7!", "ab", "q7!z", "9"])
@pytest.mark.parametrize("name", ["DB_PASSWORD", "JIRA_PAT", "GITHUB_TOKEN", "MY_API_KEY"])
def test_a_secret_named_variable_is_hidden_whatever_its_length(
        write: Any, kinds: Any, name: str, value: str) -> None:
    main = write("n.yaml", "toolhost: 1\nservers:\n  c:\n    tools:\n      show:\n"
                 f"        command: [printf, '%s|x', '${{{name}}}']\n")
    config = load_config(main, kinds=kinds, environ={name: value}, layers=False)
    assert value in config.secrets
    assert config.redact(f"{value}|x") == "***|x"
