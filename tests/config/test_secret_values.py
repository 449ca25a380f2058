"""A value under a key named in ``secrets:`` is hidden whatever YAML made of it: a number is
the text the program sees; a template (whose rendering is per call) is a located load error,
never a silent "protected"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError
from toolhost.redaction import MAX_SECRET, active


def _write(tmp_path: Path, body: str) -> Path:
    config = tmp_path / "t.yaml"
    config.write_text("toolhost: 1\npermissions: {default: allow}\nservers:\n  c:\n" + body)
    return config


@pytest.mark.parametrize(("written", "shown"), [
    ("98765432", "98765432"), ("-42424242", "-42424242"),
])
def test_a_number_under_secrets_is_hidden_as_the_program_sees_it(
        tmp_path: Path, written: str, shown: str) -> None:
    config = _write(tmp_path, f"    env: {{PIN: {written}}}\n    secrets: [PIN]\n"
                              "    tools:\n      show:\n"
                              "        command: [sh, -c, 'echo \"pin=$PIN\"']\n")
    load_config(config, layers=False)
    assert active().redact(f"pin={shown}") == "pin=***"
    out = subprocess.run([sys.executable, "-m", "toolhost", "call", "--no-layers", str(config),
                          "c.show"], capture_output=True, text=True, timeout=60)
    assert "pin=***" in out.stdout and shown not in out.stdout + out.stderr


@pytest.mark.parametrize("written", ["0x1F2E3D", "12_345_678"])
def test_a_spelled_integer_under_secrets_is_refused_without_its_value(
        tmp_path: Path, written: str) -> None:
    # 0x1F2E3D reached the program as 2043453 (hidden, but not what was written): refused
    # at its line as a float is, and neither form of the value is shown
    config = _write(tmp_path, f"    env: {{PIN: {written}}}\n    secrets: [PIN]\n"
                              "    tools:\n      show:\n        command: [env]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 1 and "t.yaml:5:11: servers.c.env.PIN: an integer written " \
        "otherwise" in messages[0], messages
    said = messages[0].split("t.yaml:5:11:", 1)[1]
    assert written not in said and "2043453" not in said and "12345678" not in said, messages


@pytest.mark.parametrize("written", ["1234.5678", "1e+20"])
def test_a_float_under_secrets_is_refused_without_its_value(tmp_path: Path,
                                                            written: str) -> None:
    # a float would reach the program as Python writes it (1e+20 as 1e+20, 1.10 as 1.1)
    config = _write(tmp_path, f"    env: {{PIN: {written}}}\n    secrets: [PIN]\n"
                              "    tools:\n      show:\n        command: [env]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 1 and "t.yaml:5:11:" in messages[0], messages
    assert "servers.c.env.PIN: a float" in messages[0] and "quote it" in messages[0]
    said = messages[0].split("t.yaml:5:11:", 1)[1]  # the temp path may hold any digits
    assert "1234" not in said and "e+20" not in said, messages


def test_a_number_at_tool_level(tmp_path: Path) -> None:
    config = _write(tmp_path, "    tools:\n      t:\n        command:\n"
                              "          argv: [sh, -c, 'echo $CODE']\n"
                              "          env: {CODE: 55667788}\n"
                              "        secrets: [CODE]\n")
    load_config(config, layers=False)
    assert active().redact("55667788") == "***"


@pytest.mark.parametrize("template", ["{{ x }} supersecretstdin8",
                                      "{% if x %}s3cr3tvalue{% endif %}",
                                      "a{# note #}b secretvalue", "{{x}}"])
def test_a_template_under_secrets_is_a_located_error(tmp_path: Path, template: str) -> None:
    config = _write(tmp_path, "    tools:\n      st2:\n"
                              f"        command: {{argv: [cat], stdin: '{template}'}}\n"
                              "        secrets: [stdin]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    messages = [str(p) for p in caught.value.problems]
    assert any("servers.c.tools.st2.command.stdin: 'stdin' is listed under secrets, but its "
               "value is a template" in m and "t.yaml:7:" in m for m in messages), messages


def test_a_var_whose_value_holds_braces_is_a_secret_not_a_template(tmp_path: Path) -> None:
    config = _write(tmp_path, "    env: {TOK: '${TOK}'}\n    secrets: [TOK]\n"
                              "    tools:\n      e: {command: [echo, x]}\n")
    load_config(config, environ={"TOK": "ab{{cd}}ef99"}, layers=False)
    assert active().redact("ab{{cd}}ef99") == "***"


def test_validate_says_so(tmp_path: Path) -> None:
    config = _write(tmp_path, "    env: {FLAG: true}\n    secrets: [FLAG]\n"
                              "    tools:\n      e: {command: [echo, x]}\n")
    out = run_cli(["validate", "--no-layers", str(config)])
    assert out.returncode != 0
    assert "servers.c.env.FLAG: 'FLAG' is listed under secrets, but its value is True" \
        in out.stderr


@pytest.mark.parametrize(("body", "where"), [
    ("    env: {K: ' '}\n    secrets: [K]\n    tools:\n      t:\n        command: [echo, a b]\n",
     "t.yaml:5:11: servers.c.env.K: "),
    ("    tools:\n      t:\n        command: {argv: [cat], stdin: \"\\t\"}\n"
     "        secrets: [stdin]\n", "t.yaml:7:"),
    ("    base_url: 'http://h/'\n    auth: {type: bearer, token: '  '}\n",
     "t.yaml:6:26: servers.c.auth.token: "),
    ("    openapi: {spec: api.yaml, security: {k: ' '}}\n",
     "t.yaml:5:42: servers.c.openapi.security.k: "),
])
def test_a_whitespace_only_secret_is_a_located_error(tmp_path: Path, body: str,
                                                     where: str) -> None:
    # hidden, it hid every space of every message: "a***b", "t.yaml:1:2:***servers..."
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h/'}]\n"
        "paths: {}\ncomponents:\n  securitySchemes:\n"
        "    k: {type: apiKey, in: header, name: X-Key}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, body), layers=False)
    messages = [str(p) for p in caught.value.problems]
    hits = [m for m in messages if where in m and "this secret is only whitespace" in m]
    assert len(hits) == 1 and not any("***" in m for m in messages), messages


@pytest.mark.parametrize("value", [" ", "\t", " \n "])
def test_a_whitespace_only_secret_by_its_name_is_a_located_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    # a secret by its variable's name (used in an argv): hidden, it hid every space too
    monkeypatch.setenv("MY_TOKEN", value)
    body = "    tools:\n      t:\n        command: [printf, '%s', '${MY_TOKEN}', 'a b']\n"
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, body), layers=False)
    messages = [str(p) for p in caught.value.problems]
    assert any("t.yaml:7:" in m and "MY_TOKEN is a secret by its name, and its value is "
               "only whitespace" in m for m in messages), messages
    assert not any("***" in m for m in messages), messages


@pytest.mark.parametrize(("body", "where"), [
    ("    env: {KEY: '${BIG}'}\n    secrets: [KEY]\n", "servers.c.env.KEY"),
    ("    headers: {X-Key: '${BIG}'}\n", "servers.c.headers.X-Key"),
    ("    auth: {type: bearer, token: '${BIG}'}\n", "servers.c.auth.token"),
    ("    base_url: 'https://u:${BIG}@example.test/'\n", "servers.c.base_url"),
])
@pytest.mark.parametrize("over", [0, 1])
def test_a_secret_longer_than_the_bound_is_a_located_error(
        tmp_path: Path, body: str, where: str, over: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # each secret's forms cost a set-up linear in its length, on every load: a value past
    # MAX_SECRET is refused, located, without its value, and no other message is shown
    # (the bound made small here: a Redactor of 65,536 characters costs seconds to build)
    from toolhost.config import layers

    assert layers.MAX_SECRET == MAX_SECRET == 65_536
    monkeypatch.setattr(layers, "MAX_SECRET", 96)
    size = 96 + over
    value = "k3y" * (size // 3) + "k3y"[:size % 3]
    config = _write(tmp_path, body + "    base_url: https://example.test/\n"
                    * ("base_url" not in body) + "    tools:\n      t:\n"
                    "        http: {url: x, method: GET}\n")
    environ = {"BIG": value}
    if not over:  # the bound itself is taken, and hidden
        load_config(config, layers=False, environ=environ)
        assert active().redact(f"a {value} b") == "a *** b"
        return
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False, environ=environ, problems=[])
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 1 and f"{where}: a secret of {size:,} characters" in messages[0]
    assert "t.yaml:" in messages[0] and "k3yk3y" not in messages[0], messages
