"""A ``${VAR}`` value inside a command's or an http tool's template stays text: a value holding
``{{``, ``{%`` or ``{#`` (a branch name, a password with braces) is never read as jinja, and
adds no param. What the author wrote as a template is one still."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.cli import main
from toolhost.config.template_values import escape_spans

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      t:
        description: echo values
        command: [echo, "${BR}", "x-${BR}-y", "{{ n }}"]
        params:
          n: {type: integer}
      i:
        description: read stdin
        command: {argv: [cat], stdin: "<${BR}>"}
permissions: {default: allow}
"""

VALUES = ["{{ 7*7 }}", "{{ n }}", "{% if true %}yes{% endif %}", "{#x#}", "{{{", "a{b}c",
          "}}{{", "{{ ''.__class__ }}", "{% raw %}", "plain", "{", "%}{{"]


@pytest.mark.parametrize("value", VALUES)
def test_an_environment_value_reaches_the_program_as_it_was_set(
        tmp_path: Path, value: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    monkeypatch.setenv("BR", value)
    assert main(["call", str(config), "s.t", "n=3"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.rstrip("\n") == f"{value} x-{value}-y 3"
    assert main(["call", str(config), "s.i"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.rstrip("\n") == f"<{value}>"
    # the schema still has the one param the author wrote
    assert main(["tools", str(config), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    tools = {t["wireName"]: t for server in listed["servers"] for t in server["tools"]}
    assert list(tools["mcp__s__t"]["inputSchema"]["properties"]) == ["n"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}%# ab'\"", max_size=30), st.text(alphabet="{}%#ab ", max_size=8),
       st.text(alphabet="{}%#ab ", max_size=8))
def test_escaped_spans_render_as_written(value: str, before: str, after: str) -> None:
    from toolhost.backends import templating

    if "{" in before + after or "}" in before + after:  # the author's own text must parse
        return
    text = before + value + after
    escaped = escape_spans(text, ((len(before), len(before) + len(value)),))
    assert templating.compile_template(escaped).render({}) == text


def test_a_secret_with_braces_in_an_argv_is_still_warned_of(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      "        description: log in\n"
                      "        command: [login, --password, '${DB_PASSWORD}']\n")
    monkeypatch.setenv("DB_PASSWORD", "pa{{ss}}w{%rd")
    main(["validate", str(config)])
    err = capsys.readouterr().err
    assert "puts a secret in the program's arguments" in err and "pa{{" not in err, err


BASE_CONFIG = """\
toolhost: 1
servers:
  h:
    base_url: "http://127.0.0.1:{port}/${{P}}/"
    tools:
      t: {{http: {{url: "items/{{id}}"}}, params: {{id: {{type: string}}}}}}
      s: {{http: {{url: "http://127.0.0.1:{port}/z", select: "${{SEL}}"}}}}
permissions: {{default: allow}}
"""


@pytest.fixture(scope="module")
def echo_port() -> Iterator[int]:
    """A local HTTP server answering each GET with the path it was asked for."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"path": self.path}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("value", ["{{7*7}}", "{x}", "{{y}}", "{%raw%}", "a{{b", "ok"])
def test_a_base_url_value_is_text(tmp_path: Path, value: str, echo_port: int,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(BASE_CONFIG.format(port=echo_port))
    monkeypatch.setenv("P", value)
    monkeypatch.setenv("SEL", "path")
    assert main(["call", str(config), "h.t", "id=1"]) == 0, capsys.readouterr().err
    path = json.loads(capsys.readouterr().out)["path"]
    assert unquote(path) == f"/{value}/items/1", path  # never /49/...
    assert main(["tools", str(config), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    tools = {t["wireName"]: t for server in listed["servers"] for t in server["tools"]}
    assert list(tools["mcp__h__t"]["inputSchema"]["properties"]) == ["id"]  # no param added


@pytest.mark.parametrize(("value", "ok"), [
    ("path", True), ("data.items.0", True), ("/items/0", True), ("/a b/{{x}}", True),
    ("path|length", False), ("'a'*3", False), ("path.__class__", False), ("x()", False),
    ("{{ x }}", False), ("range(10**9)|list", False), ("", True)])
def test_a_select_value_is_a_plain_name_or_refused(
        tmp_path: Path, value: str, ok: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(BASE_CONFIG.format(port=9))
    monkeypatch.setenv("P", "ok")
    monkeypatch.setenv("SEL", value)
    code = main(["validate", str(config)])
    err = capsys.readouterr().err
    if ok:
        assert code == 0 and "http.select" not in err, err
    else:
        assert code == 1 and "c.yaml:7:" in err and "tools.s.http.select: a ${...} value " \
            "here would be run as jinja expression code" in err, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("value", ["SECRETvalue{{x", "SECRET{value", "SECRET{%v"])
def test_a_secret_with_braces_in_a_base_url_stays_hidden(
        tmp_path: Path, value: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  h:\n"
                      "    base_url: 'http://127.0.0.1:1/?key=${EXAMPLE_API_KEY}'\n"
                      "    tools:\n      t: {description: d, http: {url: 'items/{id}'}, "
                      "params: {id: {type: string}}}\n")
    monkeypatch.setenv("EXAMPLE_API_KEY", value)
    assert main(["validate", "--no-layers", str(config)]) == 1
    err = capsys.readouterr().err
    assert "base_url 'http://127.0.0.1:1/?key=***' has a query" in err and "SECRET" not in err, err


@pytest.mark.parametrize(("base", "at"), [("{{p}}/", "'{{' at character 20"),
                                          ("{%raw%}/", "'{%' at character 20"),
                                          ("v1/{{p}}/", "'{{' at character 23")])
def test_jinja_written_in_a_base_url_is_refused_at_its_line(
        tmp_path: Path, base: str, at: str, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "b.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  h:\n    base_url: 'http://127.0.0.1:1/{base}'\n"
                      "    tools:\n      t:\n        description: d\n"
                      "        http: {url: 'items/{{ p }}'}\n        params: {p: {type: string}}\n")
    assert main(["validate", "--no-layers", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"b.yaml:4:5: servers.h.base_url: {at}: a base_url is plain text" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
