"""toolhost tools and toolhost schema on the command line (in process: tests/inproc.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.inproc import run_cli

CASES = Path(__file__).parent / "cases" / "valid"


def toolhost(*args: str, home: Path, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env={"XDG_CONFIG_HOME": None, "HOME": str(home), **(env or {})})


def test_tools_json_is_the_same_for_yaml_and_toml_twins(tmp_path: Path) -> None:
    from_yaml = toolhost("tools", str(CASES / "echo.yaml"), "--json", home=tmp_path)
    from_toml = toolhost("tools", str(CASES / "echo.toml"), "--json", home=tmp_path)
    assert from_yaml.returncode == 0, from_yaml.stderr
    assert from_yaml.stdout == from_toml.stdout
    listing = json.loads(from_yaml.stdout)
    (server,) = listing["servers"]
    echo = server["tools"][0]
    assert echo["wireName"] == "mcp__shell__echo"
    assert echo["inputSchema"]["properties"]["text"]["maxLength"] == 200
    assert echo["inputSchema"]["required"] == ["text"]
    assert echo["annotations"]["readOnlyHint"] is True


def test_tools_text_explain_and_redaction(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("servers:\n  api:\n    timeout: 7s\n")
    config = tmp_path / "c.yaml"
    config.write_text("""\
toolhost: 1
extends: [base.yaml]
servers:
  api:
    description: Talks to ${API_HOST}
    env: {API_TOKEN: "${SECRET_TOKEN}"}
    tools:
      hello: {command: [echo, "hello {{ who }}", "${SECRET_TOKEN}"]}
""")
    env = {"SECRET_TOKEN": "s3cr3t-value", "API_HOST": "example.invalid"}
    out = toolhost("tools", str(config), "--explain", home=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert "mcp__api__hello" in out.stdout
    assert "Talks to example.invalid" in out.stdout
    assert "s3cr3t-value" not in out.stdout and "***" in out.stdout
    assert f'servers.api.timeout = "7s"  [{tmp_path / "base.yaml"}:3:5, extends]' \
        in out.stdout
    data = json.loads(toolhost("tools", str(config), "--json", "--explain", home=tmp_path,
                               env=env).stdout)
    explained = {item["key"]: item for item in data["explain"]}
    assert explained["servers.api.env.API_TOKEN"]["value"] == "***"
    assert explained["servers.api.description"]["origin"] == f"{config}:5:5"


def test_tools_reports_problems_and_fails(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("toolhost = 1\n[servers.s.tools.t]\ncommand = ['x']\ntimout = 1\n")
    out = toolhost("tools", str(config), home=tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip() == (f"{config}:4:1: servers.s.tools.t.timout: unknown key "
                                  "(did you mean 'timeout'?)")


def test_schema_command(tmp_path: Path) -> None:
    plain = toolhost("schema", "--plain", home=tmp_path)
    full = toolhost("schema", home=tmp_path)
    assert plain.returncode == 0 and full.returncode == 0
    shipped = json.loads(plain.stdout)
    schema: dict[str, Any] = json.loads(full.stdout)
    Draft202012Validator.check_schema(schema)
    assert "command" not in shipped["$defs"]["tool"]["properties"]
    assert "command" in schema["$defs"]["tool"]["properties"]
    validator = Draft202012Validator(schema)
    good = {"toolhost": 1, "servers": {"s": {"tools": {"t": {"command": ["echo"]}}}}}
    assert list(validator.iter_errors(good)) == []
    bad = {"toolhost": 1, "servers": {"s": {"tols": {}}}}
    assert list(validator.iter_errors(bad))


def test_validate_reports_compile_errors_and_missing_files(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("""\
toolhost: 1
servers:
  s:
    tools:
      f: {python: "no_such_module_for_toolhost_tests:f"}
""")
    out = toolhost("validate", str(config), str(tmp_path / "missing.toml"), home=tmp_path)
    assert out.returncode == 1
    lines = out.stderr.splitlines()
    assert lines[0].startswith(f"{config}:5:11: servers.s.tools.f.python: cannot import")
    assert lines[1] == f"{tmp_path / 'missing.toml'}: no such file"
    skipped = toolhost("validate", "--no-compile", str(config), home=tmp_path)
    assert skipped.returncode == 0 and skipped.stdout.strip().endswith("ok (1 server, 1 tool)")


EXAMPLES = Path(__file__).parents[2] / "examples" / "configs"
TWINS = sorted(p.with_suffix("") for p in EXAMPLES.glob("*.toml")
               if p.with_suffix(".yaml").exists())


@pytest.mark.parametrize("stem", TWINS, ids=lambda p: p.name)
def test_example_twins_give_identical_tools_json(stem: Path, tmp_path: Path) -> None:
    outputs = [toolhost("tools", "--json", str(stem.with_suffix(suffix)), home=tmp_path)
               for suffix in (".yaml", ".toml")]
    assert [o.returncode for o in outputs] == [0, 0], outputs[0].stderr + outputs[1].stderr
    assert outputs[0].stdout == outputs[1].stdout


def test_validate_compiles_permission_rules_like_run(tmp_path: Path) -> None:
    # a rule that `run` refuses (it does not parse) must fail validate too, with or without
    # --no-compile, alongside the tools' own problems
    config = tmp_path / "c.yaml"
    config.write_text("""\
toolhost: 1
servers:
  s:
    tools:
      f: {python: "no_such_module_for_toolhost_tests:f"}
permissions:
  allow:
    - "Bash(npm test"
    - tool: mcp__s__f
      when: {x: {regexp: "y"}}
""")
    for flags in ((), ("--no-compile",)):
        out = toolhost("validate", *flags, str(config), home=tmp_path)
        assert out.returncode == 1, out.stdout
        lines = out.stderr.splitlines()
        assert lines[-2].startswith(f"{config}:8:7: permissions.allow[0]: permission rule "
                                    "'Bash(npm test': cannot parse rule")
        assert lines[-1].startswith(f"{config}:10:14: permissions.allow[1].when.x: ")
        assert "unknown condition 'regexp'" in lines[-1]
        assert ("cannot import" in out.stderr) == (not flags)
