"""`toolhost plugins` and `toolhost update`, run as the real command line."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.inproc import run_cli

MakeRepo = Callable[..., str]


def toolhost(*args: str) -> subprocess.CompletedProcess[str]:
    """``toolhost ARGS``: its command line, run in this process (a process per command cost
    1-2 s; the plugins it imports are the installed example plugins, as in a process)."""
    return run_cli(args)


def test_plugins_lists_installed_provides_and_enabled(tmp_path: Path) -> None:
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins:\n  - toolhost-files\n")
    proc = toolhost("plugins", str(config), "--json", "--no-layers")
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)["plugins"]}
    files, sqlite = rows["toolhost-files"], rows["toolhost-sqlite"]
    assert files["enabled"] is True and files["enabled_at"] == f"{config}:3:5"
    assert files["version"] == "0.1.0"
    assert "mcp__files__read" in files["provides"]["tools"]
    assert files["provides"]["fragments"] == ["presets/readonly.yaml"]
    assert sqlite["enabled"] is False and sqlite["provides"]["kinds"] == ["sqlite"]
    assert rows["toolhost"]["builtin"] is True and "python" in rows["toolhost"]["provides"][
        "kinds"]

    human = toolhost("plugins", str(config), "--no-layers")
    assert "toolhost-sqlite 0.1.0  [installed, not enabled]" in human.stdout
    assert f"toolhost-files 0.1.0  [enabled at {config}:3:5]" in human.stdout


def test_plugins_reports_what_to_install(tmp_path: Path) -> None:
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-files, 'toolhost-sqlite>=9']\n")
    proc = toolhost("plugins", str(config), "--no-layers")
    assert proc.returncode == 1
    assert "is installed, but the config needs 'toolhost-sqlite>=9'" in proc.stderr
    assert "pip install 'toolhost-sqlite>=9'" in proc.stderr


YAML = """\
toolhost: 1
# team config, pinned
extends:
  - {{repo: {url}, rev: v1.0.0, path: base.yaml}}   # flow style
  - repo: {url}
    rev: "v1.0.0"     # quoted, with a comment
    path: base.yaml
  - ./local.yaml
"""

TOML = """\
toolhost = 1

[[extends]]
repo = "{url}"
rev = 'v1.0.0'  # pinned
path = "base.yaml"
"""


def test_update_moves_pins_to_the_newest_tag_keeping_the_rest(tmp_path: Path,
                                                              make_repo: MakeRepo) -> None:
    origin = tmp_path / "team"
    make_repo(origin, {"base.yaml": "toolhost: 1\n"}, tag="v1.0.0")
    make_repo(origin, {"base.yaml": "toolhost: 1\n"}, tag="v1.10.0")
    make_repo(origin, {"base.yaml": "toolhost: 1\n"}, tag="v1.9.0")
    make_repo(origin, {"base.yaml": "toolhost: 1\n"}, tag="nightly")
    url = origin.as_uri()
    yaml_file, toml_file = tmp_path / "app.yaml", tmp_path / "app.toml"
    yaml_file.write_text(YAML.format(url=url))
    toml_file.write_text(TOML.format(url=url))

    dry = toolhost("update", str(yaml_file), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"{yaml_file}:4: {url}: v1.0.0 -> v1.10.0" in dry.stdout
    assert yaml_file.read_text() == YAML.format(url=url)

    assert toolhost("update", str(yaml_file)).returncode == 0
    assert yaml_file.read_text() == YAML.format(url=url).replace("v1.0.0", "v1.10.0")
    again = toolhost("update", str(yaml_file))
    assert "v1.10.0 is the newest" in again.stdout

    assert toolhost("update", str(toml_file), "--rev", "v1.9.0").returncode == 0
    assert toml_file.read_text() == TOML.format(url=url).replace("v1.0.0", "v1.9.0")


def test_update_reports_unreachable_repos(tmp_path: Path) -> None:
    config = tmp_path / "app.yaml"
    gone = (tmp_path / "gone").as_uri()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {gone}, rev: v1, path: a.yaml}}\n")
    proc = toolhost("update", str(config))
    assert proc.returncode == 1
    assert f"{config}:3: {gone}: git ls-remote failed" in proc.stderr
    assert "v1," in config.read_text()


def test_update_skips_pre_releases_unless_pinned_to_one_or_asked(tmp_path: Path,
                                                                 make_repo: MakeRepo) -> None:
    origin = tmp_path / "team"
    for tag in ("v1.0.0", "v1.1.0", "v2.0.0rc1"):
        make_repo(origin, {"base.yaml": "toolhost: 1\n"}, tag=tag)
    url = origin.as_uri()
    config = tmp_path / "app.toml"
    config.write_text(TOML.format(url=url))

    assert "v1.0.0 -> v1.1.0" in toolhost("update", str(config), "--dry-run").stdout
    assert "v1.0.0 -> v2.0.0rc1" in toolhost("update", str(config), "--dry-run",
                                               "--pre").stdout
    config.write_text(TOML.format(url=url).replace("v1.0.0", "v2.0.0a1"))
    assert "v2.0.0a1 -> v2.0.0rc1" in toolhost("update", str(config)).stdout
    assert "rev = 'v2.0.0rc1'  # pinned" in config.read_text()

    other = toolhost("update", str(config), "--repo", "https://example.invalid/x", "--rev", "v1")
    assert other.returncode == 1
    assert f"no pinned `extends` entry has repo https://example.invalid/x (its repos: {url})" \
        in other.stderr
    assert "v2.0.0rc1" in config.read_text()


def test_plugins_shows_an_upgraded_plugin_as_enabled_with_the_locks_refusal(
        tmp_path: Path, make_plugin: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A plugin upgraded under the lock made the config fail to load, and `toolhost plugins`
    then called every plugin "installed, not enabled": the one the config lists is enabled,
    and the row says why it is refused."""
    import shutil

    from toolhost.cli import main

    site = make_plugin("tp-up", "1.0.0", modules={"tpup": "def register(reg):\n    pass\n"})
    monkeypatch.chdir(tmp_path)
    Path("toolhost.yaml").write_text("toolhost: 1\nplugins: [tp-up]\n")
    assert main(["lock", "toolhost.yaml"]) == 0
    shutil.rmtree(site / "tp_up-1.0.0.dist-info")  # pip install of another version
    make_plugin("tp-up", "2.0.0", modules={"tpup": "def register(reg):\n    pass\n"})
    capsys.readouterr()
    assert main(["plugins", "toolhost.yaml"]) == 1
    out, err = capsys.readouterr()
    assert "tp-up 2.0.0  [enabled at toolhost.yaml:2:11]" in out
    assert "    error: plugin tp-up 2.0.0 is installed, locked at 1.0.0" in out
    assert "plugin tp-up 2.0.0 is installed, locked at 1.0.0 (toolhost.lock)" in err


def test_plugins_shows_what_the_config_enables_when_an_extends_fails(tmp_path: Path) -> None:
    """The config did not load (a fragment missing, a repository unreachable): every plugin
    was "installed, not enabled", the one the config lists included."""
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-files]\nextends: [./gone.yaml]\n")
    proc = toolhost("plugins", str(config), "--json", "--no-layers")
    assert proc.returncode == 1
    rows = {r["name"]: r for r in json.loads(proc.stdout)["plugins"]}
    assert rows["toolhost-files"]["enabled"] is True
    assert rows["toolhost-files"]["enabled_at"] == f"{config}:2:11"
    assert rows["toolhost-sqlite"]["enabled"] is False
    assert any("gone.yaml" in p for p in json.loads(proc.stdout)["problems"])


MANY = '''
    from toolhost.plugins import Registry

    def _tool(i):
        def f(x: int) -> int:
            """A tool."""
            return x + i
        f.__name__ = f.__qualname__ = f"t{i:04d}"
        return f

    def register(registry: Registry) -> None:
        registry.add_server("many", description="Many tools")
        for i in range(1000):
            registry.add_tool(_tool(i), server="many")
'''


def test_a_plugin_with_a_thousand_tools_is_listed_bounded(
        tmp_path: Path, make_plugin: Callable[..., Path]) -> None:
    """`toolhost plugins` printed all 1,000 tool names on one 17 KB line."""
    make_plugin("toolhost-many", modules={"many_plugin": MANY})
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-many]\n")
    human = toolhost("plugins", str(config), "--no-layers")
    assert human.returncode == 0, human.stderr
    (line,) = [row for row in human.stdout.splitlines() if "mcp__many__t0000" in row]
    assert len(line) < 1000 and "mcp__many__t0019" in line and "t0020" not in line
    assert line.endswith(" (+980 more; `toolhost plugins --json` lists them all)"), line
    rows = {r["name"]: r for r in json.loads(toolhost("plugins", str(config), "--json",
                                                      "--no-layers").stdout)["plugins"]}
    assert len(rows["toolhost-many"]["provides"]["tools"]) == 1000


def test_a_plugins_metadata_reaches_the_terminal_escaped(
        make_plugin: Callable[..., Path], site: Path) -> None:
    """Any installed package with a toolhost entry point (enabled or not) is listed: its
    Summary held an escape sequence that cleared the screen and a bidi override, printed raw."""
    make_plugin("toolhost-esc", modules={"esc_plugin": "def register(registry):\n    pass\n"})
    (meta,) = site.glob("toolhost_esc-*.dist-info/METADATA")
    meta.write_text(meta.read_text().replace(
        "Summary: test plugin toolhost-esc", "Summary: evil \x1b]0;pwned\x07\x1b[2J \u202egnirts"))
    for args in (["plugins"], ["plugins", "--no-import"]):
        human = toolhost(*args)
        assert human.returncode == 0, human.stderr
        assert "\x1b" not in human.stdout and "\u202e" not in human.stdout
        assert "    evil \\x1b]0;pwned\\x07\\x1b[2J \\u202egnirts" in human.stdout, human.stdout


def test_a_plugins_long_entry_point_name_is_cut_in_its_line(
        make_plugin: Callable[..., Path]) -> None:
    # an entry point name is what its author wrote: 100,000 characters made one line that long
    make_plugin("toolhost-long", modules={"long_plugin": "def register(registry):\n    pass\n"},
                entry_points={"e" * 100_000: "long_plugin"})
    human = toolhost("plugins", "--no-import")
    assert human.returncode == 0, human.stderr
    line = next(x for x in human.stdout.splitlines() if "entry points: eee" in x)
    assert len(line) < 1_100 and line.endswith(" more characters")


SHARED_KIND = '''\
from toolhost.backends.base import Binding, ToolResult

class Kind:
    name = "shared"
    options_schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    shorthand = "x"

    def bind(self, tool, ctx):
        async def invoke(arguments, ctx):
            return ToolResult.text("ok")
        return Binding(input_schema={"type": "object", "properties": {}}, invoke=invoke)

def register(registry):
    registry.add_kind(Kind())
'''


@pytest.mark.parametrize("with_config", [False, True])
def test_two_plugins_adding_one_kind_blame_the_second(
        tmp_path: Path, make_plugin: Callable[..., Path], with_config: bool) -> None:
    """The clash was listed under the plugin that was there first (the first installed name
    the message quoted), and the one that failed showed no error."""
    make_plugin("toolhost-aaa", modules={"aaa_plugin": SHARED_KIND})
    make_plugin("toolhost-bbb", modules={"bbb_plugin": SHARED_KIND})
    config = tmp_path / "app.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-aaa, toolhost-bbb]\n")
    args = [str(config), "--no-layers"] if with_config else []
    rows = {r["name"]: r for r in json.loads(toolhost("plugins", "--json", *args).stdout)[
        "plugins"]}
    assert rows["toolhost-aaa"]["error"] is None, rows["toolhost-aaa"]
    assert rows["toolhost-bbb"]["error"] == ("plugin 'toolhost-bbb' adds backend kind "
                                             "'shared', which 'toolhost-aaa' already provides")
