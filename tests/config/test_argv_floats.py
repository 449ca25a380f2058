"""A float in a command's argv or env is refused at its line: it reached the program as Python
writes it (``1.10`` -> ``1.1``, ``1e3`` -> ``1000.0``), not as the author wrote it. YAML and
TOML alike (TOML keeps no source text to pass instead); quoting it passes the text. The same
holds for every other value passed on as text: an http tool's query, headers and form, a
server's env and headers, an upstream's env and headers, an OpenAPI credential."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

YAML = "toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n        description: d\n"
TOML = "toolhost = 1\n[servers.s.tools.t]\ndescription = \"d\"\n"
CASES = [
    ("c.yaml", YAML + "        command: [nvm, use, 1.10]\n", 7, "command[2]: a float (1.1)"),
    ("c.yaml", YAML + "        command: [echo, 1e3]\n", 7, "command[1]: a float (1000.0)"),
    ("c.yaml", YAML + "        command:\n          argv: [echo, {each: p, argv: [-n, 2.50]}]\n"
     "        params: {p: {type: array, items: {type: string}}}\n", 8,
     "command.argv[1].argv[1]: a float (2.5)"),
    ("c.yaml", YAML + "        command: {argv: [env], env: {V: 1.0}}\n", 7,
     "command.env.V: a float (1.0)"),
    ("c.toml", TOML + "command = [\"nvm\", \"use\", 1.10]\n", 4, "command[2]: a float (1.1)"),
    ("c.toml", TOML + "command = {argv = [\"env\"], env = {V = 3e2}}\n", 4,
     "command.env.V: a float (300.0)"),
    # an http tool's query, headers and form are text too
    ("c.yaml", YAML + "        http: {url: 'http://h/x', query: {v: 1.10}}\n", 7,
     "http.query.v: a float (1.1)"),
    ("c.yaml", YAML + "        http: {url: 'http://h/x', method: POST, form: {v: 2.50}}\n", 7,
     "http.form.v: a float (2.5)"),
    ("c.toml", TOML + "http = {url = \"http://h/x\", headers = {X-V = 1e3}}\n", 4,
     "http.headers.X-V: a float (1000.0)"),
]
FLOAT = "a float would be passed as Python writes it"
# a server's env and headers, a stdio upstream's env, an http upstream's headers, an OpenAPI
# credential: the value is not shown (it may be a credential)
MAPS = [
    ("c.yaml", "toolhost: 1\nservers:\n  s:\n    env: {V: 1.10}\n    tools:\n      t:\n"
     "        description: d\n        command: [env]\n", 4, "servers.s.env.V"),
    ("c.yaml", "toolhost: 1\nservers:\n  h:\n    base_url: 'http://h/'\n"
     "    headers: {X-Api-Version: 2.10}\n", 5, "servers.h.headers.X-Api-Version"),
    ("c.yaml", "toolhost: 1\nservers:\n  g:\n    mcp: {command: [up], env: {V: 0.5}}\n", 4,
     "servers.g.mcp.env.V"),
    ("c.toml", "toolhost = 1\n[servers.g.mcp]\nurl = \"http://h/mcp\"\n"
     "headers = {X-V = 1.10}\n", 4, "servers.g.mcp.headers.X-V"),
    ("c.yaml", "toolhost: 1\nservers:\n  o:\n    openapi: {spec: api.yaml, security: "
     "{key: 12345.678}}\n", 4, "servers.o.openapi.security.key"),
]


@pytest.mark.parametrize(("name", "text", "line", "said"), CASES)
def test_a_float_in_argv_or_env_is_refused_at_its_line(
        tmp_path: Path, name: str, text: str, line: int, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / name
    config.write_text(text)
    code = main(["validate", "--no-layers", str(config)])
    err = capsys.readouterr().err
    assert code == 1 and f"{name}:{line}:" in err and said in err and "quote it" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("argv", ["[nvm, use, '1.10']", "[echo, 7, -3, '1e3']"])
def test_quoted_floats_and_ints_are_kept(tmp_path: Path, argv: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(YAML + f"        command: {argv}\n")
    assert main(["validate", "--no-layers", str(config)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(("name", "text", "line", "said"), MAPS)
def test_a_float_in_a_text_map_is_refused_at_its_line(
        tmp_path: Path, name: str, text: str, line: int, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://h/'}]\n"
        "paths: {}\ncomponents:\n  securitySchemes:\n"
        "    key: {type: apiKey, in: header, name: X-Key}\n")
    config = tmp_path / name
    config.write_text(text)
    main(["validate", "--no-layers", str(config)])
    err = capsys.readouterr().err
    found = [row for row in err.splitlines() if FLOAT in row]
    assert len(found) == 1 and f"{name}:{line}:" in found[0] and f"{said}: " in found[0], err
    said = err.replace(str(tmp_path), "")  # the temp path may hold any digits
    assert "quote it" in found[0] and "12345" not in said and "Traceback" not in err, err


def test_ints_and_quoted_floats_in_text_maps_are_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    env: {N: 7, V: '1.10'}\n"
                      "    tools:\n      t:\n        description: d\n"
                      "        command: {argv: [env], env: {M: -3}}\n"
                      "  h:\n    base_url: 'http://h/'\n    headers: {X-N: 2}\n    tools:\n"
                      "      u:\n        description: d\n"
                      "        http: {url: x, query: {n: 3, v: '1.10'}, json: {f: 1.5}}\n")
    assert main(["validate", "--no-layers", str(config)]) == 0, capsys.readouterr().err
