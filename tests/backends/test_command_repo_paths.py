"""A shared repository's command tool runs the repository's own files, and nothing outside it.

Real git repositories in a real cache: each tool of a fragment is bound as a load binds it;
a relative path in its argv (the program, or a literal argument naming a file of the
repository) becomes that file of the pinned checkout, wherever toolhost runs, and a path that
leads out of the checkout, into its ``.git`` or to no file is one located problem. The real
CLI shows it end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.backends.base import BindContext
from toolhost.backends.command import CommandKind
from toolhost.config import load_config
from toolhost.config.model import ServerConfig
from toolhost.errors import CompileError, ConfigError

from ..plugins.conftest import _make_repo

FILES = {"scripts/x.sh": "#!/bin/sh\necho team-script\n", "scripts/x.py": "print('team-py')\n",
         "run.py": "print('run')\n", "log": "a file named like a git subcommand\n",
         "base.yaml": "{}\n"}
OK, OUT, NOFILE, NOTCOMMIT = "ok", "leads out of the repository", "is not a file of the repo", \
    "not a file of the repository's commit"

# (argv, the server's cwd or None, what binding gives: OK and the argv rendered, relative to
# the checkout ("@/..."), or the problem)
CASES: dict[str, tuple[list[object], str | None, str, list[str]]] = {
    "dot-slash program": (["./scripts/x.sh"], None, OK, ["@/scripts/x.sh"]),
    "bare relative program": (["scripts/x.sh"], None, OK, ["@/scripts/x.sh"]),
    "program with ..": (["scripts/../scripts/x.sh"], None, OK, ["@/scripts/x.sh"]),
    "interpreter and script": (["python3", "scripts/x.py"], None, OK,
                               ["python3", "@/scripts/x.py"]),
    "script without a directory": (["python3", "run.py"], None, OK, ["python3", "@/run.py"]),
    "script in an if group": (["python3", {"if": "v", "argv": ["scripts/x.py"]}], None, OK,
                              ["python3", "@/scripts/x.py"]),
    "program out by ..": (["../../../outside/x.sh"], None, OUT, []),
    "program out by deeper ..": (["scripts/../../../../outside/x.sh"], None, OUT, []),
    "program missing": (["./scripts/nope.sh"], None, NOFILE, []),
    "program a directory": (["./scripts"], None, NOFILE, []),
    "program in .git": (["./.git/config"], None, NOTCOMMIT, []),
    "program is the metadata": (["./.toolhost-checkout.json"], None, NOTCOMMIT, []),
    "argument in .git": (["sh", ".git/config"], None, NOTCOMMIT, []),
    "a path of the user's": (["grep", "-rn", "TODO", "src/"], None, OK,
                             ["grep", "-rn", "TODO", "src/"]),
    "a word that names a file": (["git", "log"], None, OK, ["git", "log"]),
    "an option": (["python3", "--version"], None, OK, ["python3", "--version"]),
    "an option's value": (["node", "--require=scripts/x.py"], None, OK,
                          ["node", "--require=@/scripts/x.py"]),
    "cwd: an option's value out": (["tool", "--config=../../../../outside/x.sh"], "scripts",
                                   OUT, []),
    "an option's value of the user's": (["tool", "--out=build/x.txt"], None, OK,
                                        ["tool", "--out=build/x.txt"]),
    "a url": (["curl", "https://x.example/a.sh"], None, OK,
              ["curl", "https://x.example/a.sh"]),
    "system program": (["/bin/echo", "x"], None, OK, ["/bin/echo", "x"]),
    "cwd: program there": (["./x.sh"], "scripts", OK, ["@/scripts/x.sh"]),
    "cwd: script there": (["python3", "x.py"], "scripts", OK, ["python3", "@/scripts/x.py"]),
    "cwd: parent inside": (["ls", ".."], "scripts", OK, ["ls", ".."]),
    "cwd: argument out": (["sh", "../../../../outside/x.sh"], "scripts", OUT, []),
    "cwd: argument out to the cache": (["ls", "../.."], "scripts", OUT, []),
    "cwd: program out": (["../../../../outside/x.sh"], "scripts", OUT, []),
    "cwd: argument into .git": (["cat", "../.git/config"], "scripts", NOTCOMMIT, []),
    "script inside an if tag": (["python3", "{% if v %}scripts/x.py{% endif %}"], None,
                                "inside a template", []),
    "cwd: out inside an if tag": (["cat", "{% if v %}../../../../x{% endif %}"], "scripts",
                                  "inside a template", []),
    "file named by a value": (["cat", "scripts/{{ name }}.sh"], None, "inside a template", []),
    "cwd: file named by a value": (["cat", "{{ name }}.py"], "scripts", OK, ["cat", "x.py"]),
    "a user's path with a value": (["cat", "logs/{{ name }}.txt"], None, OK,
                                   ["cat", "logs/x.txt"]),
    "a word inside an if tag": (["grep", "{% if v %}-i{% endif %}", "x"], None, OK,
                                ["grep", "-i", "x"]),
    "cwd of the machine": (["./x.sh", "logs/", "../y"], "/tmp", OK, ["./x.sh", "logs/", "../y"]),
}


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cached checkout of a team repository (its real path)."""
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.joinpath("x.sh").write_text("#!/bin/sh\necho OUTSIDE\n")
    origin = tmp_path / "origin"
    _make_repo(origin, FILES, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: base.yaml}\n")
    load_config(config, layers=False)
    (meta,) = (tmp_path / "cache" / "repos").glob("*/.toolhost-checkout.json")
    return Path(os.path.realpath(meta.parent))


def _bind(checkout: Path, argv: list[object], cwd: str | None) -> list[str]:
    """Bind one tool declared in a fragment of the checkout; its argv for a call with v."""
    fragment = checkout / "frag.yaml"  # written after the check: a file of the checkout
    server: dict[str, object] = {"tools": {"t": {"command": argv, "params": {
        "v": "boolean", "name": {"type": "string", "default": "x"}}}}}
    if cwd is not None:
        server["cwd"] = cwd
    fragment.write_text(json.dumps({"toolhost": 1, "servers": {"s": server}}))
    try:
        config = load_config(fragment, layers=False)
    finally:
        fragment.unlink()
    found: ServerConfig = config.servers["s"]
    invoke = CommandKind().bind(found.tools["t"], BindContext(found)).invoke
    return list(invoke.plan.render({"v": True, "name": "x"}))  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(CASES))
def test_argv_paths_of_a_shared_repository(checkout: Path, name: str) -> None:
    argv, cwd, expect, rendered = CASES[name]
    if expect != OK:
        with pytest.raises(CompileError) as caught:
            _bind(checkout, argv, cwd)
        (problem,) = caught.value.problems
        assert expect in problem.message, problem.message
        assert problem.file.endswith("frag.yaml") and problem.line >= 1, problem
        assert ".argv[" in problem.key_path and "\n" not in problem.message
        return
    got = _bind(checkout, argv, cwd)
    assert got == [a.replace("@/", f"{checkout}/", 1) for a in rendered]


def test_a_config_outside_any_repository_keeps_its_paths(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                    "      t: {command: [./x.sh, ../y.py, run.py]}\n")
    server = load_config(path, layers=False).servers["s"]
    invoke = CommandKind().bind(server.tools["t"], BindContext(server)).invoke
    assert invoke.plan.render({}) == ["./x.sh", "../y.py", "run.py"]  # type: ignore[attr-defined]


_SEGMENT = st.sampled_from(["..", ".", "scripts", "x.sh", "x.py", "nope", ".git", "config",
                            "run.py", "outside"])


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(_SEGMENT, min_size=1, max_size=6), as_program=st.booleans(),
       cwd=st.sampled_from([None, "scripts", "."]))
def test_a_bound_path_is_a_file_of_the_checkout_or_refused(checkout: Path, parts: list[str],
                                                            as_program: bool,
                                                            cwd: str | None) -> None:
    written = "/".join(parts)
    argv: list[object] = [written] if as_program else ["cat", written]
    try:
        got = _bind(checkout, argv, cwd)
    except CompileError:
        return
    path = got[0] if as_program else got[1]
    if as_program and "/" not in written:
        assert path == written  # a name the OS looks up in PATH, as everywhere
        return
    if path == written and not as_program:
        # passed as written: no file of the repository, and (with a cwd there) inside it
        if cwd is not None:
            real = os.path.realpath(checkout / cwd / written)
            assert real == str(checkout) or real.startswith(f"{checkout}{os.sep}")
        return
    real = os.path.realpath(path)
    assert real.startswith(f"{checkout}{os.sep}") and os.path.isfile(real), (written, path)
    rel = Path(real).relative_to(checkout).parts
    assert rel[0] not in (".git", ".toolhost-checkout.json"), (written, path)


def test_the_cli_runs_the_pinned_script_wherever_it_is_started(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    _make_repo(origin, {**FILES, "base.yaml": (
        "servers:\n  t:\n    tools:\n"
        "      a: {description: a, command: [./scripts/x.sh]}\n"
        "      b: {description: b, command: [python3, scripts/x.py]}\n")}, tag="v1")
    os.chmod(origin / "scripts" / "x.sh", 0o755)
    _make_repo(origin, {}, tag="v2")
    _make_repo(origin, {"escape.yaml": "servers:\n  t:\n    cwd: .\n    tools:\n"
                        "      c: {command: [sh, ../../../outside/x.sh]}\n"}, tag="v3")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.sh").write_text("echo OUTSIDE\n")
    proj = tmp_path / "proj"
    (proj / "scripts").mkdir(parents=True)  # a same-named script where toolhost starts
    (proj / "scripts" / "x.sh").write_text("#!/bin/sh\necho PROJECT\n")
    os.chmod(proj / "scripts" / "x.sh", 0o755)
    config = proj / "toolhost.yaml"
    env = {**os.environ, "TOOLHOST_CACHE": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "toolhost", *args], cwd=proj, env=env,
                              text=True, capture_output=True, timeout=120)

    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v2, "
                      "path: base.yaml}\n")
    assert run("lock", str(config)).returncode == 0
    for tool, out in (("t.a", "team-script"), ("t.b", "team-py")):
        done = run("call", str(config), tool)
        assert (done.returncode, done.stdout.strip()) == (0, out), done.stderr
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v3, "
                      "path: escape.yaml}\n")
    config.with_suffix(".lock").unlink()
    for args in (("validate", str(config)), ("call", str(config), "t.c")):
        done = run(*args)
        assert done.returncode == 1 and "OUTSIDE" not in done.stdout, done.stdout
        assert "escape.yaml:5:" in done.stderr and "argv[1]" in done.stderr, done.stderr
        assert "leads out of the repository" in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


# an imported MCP server's stdio command (docs/gateway.md) is a command line of the same file
MCP_CASES: dict[str, tuple[list[str], str | None, str, list[str]]] = {
    name: ([str(a) for a in argv], cwd, expect, rendered)
    for name, (argv, cwd, expect, rendered) in CASES.items()
    if all(isinstance(a, str) and "{" not in a for a in argv)  # no templates there
}


@pytest.mark.parametrize("name", sorted(MCP_CASES))
def test_an_imported_servers_command_is_checked_alike(checkout: Path, name: str) -> None:
    argv, cwd, expect, rendered = MCP_CASES[name]
    fragment = checkout / "frag.yaml"
    block: dict[str, object] = {"command": argv, **({"cwd": cwd} if cwd else {})}
    fragment.write_text(json.dumps({"toolhost": 1, "servers": {"s": {"mcp": block}}}))
    try:
        if expect != OK:
            with pytest.raises(ConfigError) as caught:
                load_config(fragment, layers=False)
            (problem,) = caught.value.problems
            assert expect in problem.message and "\n" not in problem.message, problem.message
            assert problem.key_path.startswith("servers.s.mcp.command["), problem.key_path
            assert problem.file.endswith("frag.yaml") and problem.line >= 1
            return
        spec = load_config(fragment, layers=False).servers["s"].upstream
    finally:
        fragment.unlink()
    assert list(spec.command) == [a.replace("@/", f"{checkout}/", 1) for a in rendered]


@pytest.mark.parametrize("name", sorted(MCP_CASES))
def test_an_external_servers_command_is_checked_alike(checkout: Path, name: str) -> None:
    argv, cwd, expect, rendered = MCP_CASES[name]
    fragment = checkout / "frag.yaml"
    block: dict[str, object] = {"command": argv[0], "args": argv[1:],
                                **({"cwd": cwd} if cwd else {})}
    fragment.write_text(json.dumps({"toolhost": 1, "servers": {"s": {"external": block}}}))
    try:
        if expect != OK:
            with pytest.raises(ConfigError) as caught:
                load_config(fragment, layers=False)
            (problem,) = caught.value.problems
            assert expect in problem.message and "\n" not in problem.message, problem.message
            assert problem.key_path.startswith(("servers.s.external.command",
                                                "servers.s.external.args[")), problem.key_path
            return
        spec = load_config(fragment, layers=False).servers["s"].external
    finally:
        fragment.unlink()
    assert spec is not None
    got = [spec["command"], *spec.get("args", [])]
    assert got == [a.replace("@/", f"{checkout}/", 1) for a in rendered]
    if cwd:
        assert spec["cwd"] == os.path.normpath(checkout / cwd)


def test_an_external_server_outside_any_repository_is_passed_as_written(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    external: {command: ./x.sh, "
                    "args: [../y.py], cwd: sub}\n")
    spec = load_config(path, layers=False).servers["s"].external
    assert spec is not None
    assert (spec["command"], spec["args"], spec["cwd"]) == ("./x.sh", ["../y.py"], "sub")


# a param printed whole ({{ script }}) whose own value (default, const, enum), written in the
# repository's file, names a file of the repository: without a cwd inside the repository it
# would be resolved where toolhost runs (found by the teams4 red team; was not checked)
WHOLE_VALUES: dict[str, tuple[dict[str, object], str | None, str]] = {
    "default names a script": ({"type": "string", "default": "scripts/x.py"}, None,
                               "its default 'scripts/x.py' names a file of the repository"),
    "an enum value names one": ({"enum": ["none", "run.py"]}, None,
                                "its enum value 'run.py' names a file"),
    "const names one": ({"const": "scripts/x.sh"}, None, "its const 'scripts/x.sh'"),
    "in an if group": ({"type": "string", "default": "run.py"}, None, "its default 'run.py'"),
    "cwd inside: read there": ({"type": "string", "default": "scripts/x.py"}, ".", OK),
    "a path of the user's": ({"type": "string", "default": "src/"}, None, OK),
    "a word": ({"enum": ["log", "status"]}, None, OK),
}


@pytest.mark.parametrize("name", sorted(WHOLE_VALUES))
def test_a_whole_value_the_repository_gives_is_checked(checkout: Path, name: str) -> None:
    schema, cwd, expect = WHOLE_VALUES[name]
    script: object = "{{ script }}"
    if name == "in an if group":
        script = {"if": "script", "argv": ["{{ script }}"]}
    fragment = checkout / "frag.yaml"
    server: dict[str, object] = {"tools": {"t": {"command": ["cat", script],
                                                 "params": {"script": schema}}}}
    if cwd is not None:
        server["cwd"] = cwd
    fragment.write_text(json.dumps({"toolhost": 1, "servers": {"s": server}}))
    try:
        found = load_config(fragment, layers=False).servers["s"]
    finally:
        fragment.unlink()
    if expect == OK:
        CommandKind().bind(found.tools["t"], BindContext(found))
        return
    with pytest.raises(CompileError) as caught:
        CommandKind().bind(found.tools["t"], BindContext(found))
    (problem,) = caught.value.problems
    assert expect in problem.message and "param 'script'" in problem.message
    assert problem.key_path.startswith("servers.s.tools.t.command.argv[1]"), problem
    assert "cwd: ." in problem.hint
