"""Command lines that contradict themselves are refused (argparse's exit 2, one line) instead
of silently doing something other than what was asked: ``--all`` with ``--server`` served
every server; a second ``permissions check --input`` (or ``--caller``, ``--cwd``) decided a
call other than the first; a second ``run -p`` dropped the first prompt; an empty
TOOL_NAME (an unset shell variable) was checked as a tool. ``install --file`` into a
directory that does not exist (a typo) created the whole chain and said "added"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.inproc import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")
CONFIG = "toolhost: 1\nservers:\n  a:\n    tools: {t: {command: [echo, a]}}\n" \
         "  b:\n    tools: {t: {command: [echo, b]}}\n"


def _usage_error(done: subprocess.CompletedProcess[str], *said: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "", done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    for part in said:
        assert part in last, last


@pytest.mark.parametrize("command", [
    ["mcp-config", "{config}"],
    ["install", "claude-code", "{config}", "--dry-run", "--file", "{dir}/x.json"],
])
@pytest.mark.parametrize("flags", [["--all", "--server", "a"], ["-s", "a", "--all"]])
def test_all_and_server_together_are_refused(tmp_path: Path, command: list[str],
                                             flags: list[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    args = [w.format(config=config, dir=tmp_path) for w in command]
    _usage_error(run_cli([*args, *flags], cwd=tmp_path), "not allowed with argument")
    assert not (tmp_path / "x.json").exists()


def test_serve_refuses_all_and_server_together(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    done = subprocess.run([sys.executable, "-m", "toolhost", "serve", str(config), "--all",
                           "--server", "a"], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)
    _usage_error(done, "not allowed with argument")


@pytest.mark.parametrize(("flags", "named"), [
    (["--input", '{"command": "ls"}', "--input", '{"command": "rm -rf /"}'], "--input"),
    (["--input={}", "--input={}"], "--input"),
    (["--caller", '{"sub": "a"}', "--caller", '{"sub": "b"}'], "--caller"),
    (["--caller-sub", "a", "--caller-sub", "b"], "--caller-sub"),
    (["--cwd", "/", "--cwd", "/tmp"], "--cwd"),
])
def test_permissions_check_takes_each_part_of_the_call_once(tmp_path: Path, flags: list[str],
                                                          named: str) -> None:
    done = run_cli(["permissions", "check", DEMO, "Bash", *flags], cwd=tmp_path)
    _usage_error(done, f"argument {named}", "given twice")


@pytest.mark.parametrize("name", ["", " "])
def test_permissions_check_refuses_an_empty_tool_name(tmp_path: Path, name: str) -> None:
    _usage_error(run_cli(["permissions", "check", DEMO, name], cwd=tmp_path),
                 "TOOL_NAME", "empty")


def test_one_check_of_each_flag_still_works(tmp_path: Path) -> None:
    done = run_cli(["permissions", "check", DEMO, "Bash", "--input", '{"command": "ls"}',
                    "--cwd", str(tmp_path), "--caller-sub", "a"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("flags", [["-p", "one", "-p", "two"], ["-p", "x", "--prompt", "y"],
                                   ["--script", "a.yaml", "--script", "b.yaml"]])
def test_run_takes_one_prompt_and_one_script(tmp_path: Path, flags: list[str]) -> None:
    _usage_error(run_cli(["run", DEMO, *flags], cwd=tmp_path), "given twice")


@pytest.mark.parametrize("where", ["missing/x.json", "a/b/c/x.json", "file.txt/x.json"])
def test_install_file_in_a_directory_that_is_not_there_is_refused(tmp_path: Path,
                                                                  where: str) -> None:
    (tmp_path / "file.txt").write_text("")
    done = run_cli(["install", "claude-code", DEMO, "--all", "--name", "demo", "--file", where],
                   cwd=tmp_path, env={"HOME": str(tmp_path),
                                      "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing was written" in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_install_file_in_a_directory_that_is_there_is_written(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    done = run_cli(["install", "claude-code", DEMO, "--all", "--name", "demo", "--file",
                    "conf/x.json"], cwd=tmp_path, env={"HOME": str(tmp_path),
                                                      "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert done.returncode == 0, done.stderr
    assert "demo" in (tmp_path / "conf" / "x.json").read_text()


@pytest.mark.parametrize(("args", "missing"), [
    (["run"], "required: CONFIG ("), (["call"], "required: config ("),
    (["install"], "required: client, config"),
])
def test_a_missing_argument_names_only_what_is_required(tmp_path: Path, args: list[str],
                                                        missing: str) -> None:
    # `toolhost run` said "required: CONFIG, -- CLI_ARGS" and `call` "config, tool,
    # key=value": both may be left out
    done = run_cli(args, cwd=tmp_path)
    _usage_error(done, missing)
    assert "CLI_ARGS" not in done.stderr.splitlines()[-1]
    assert "key=value" not in done.stderr.splitlines()[-1]


def test_call_with_a_config_and_no_tool_lists_its_tools(tmp_path: Path) -> None:
    # the tool may be left out: the config's tools are listed (commands/_call_menu)
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = run_cli(["call", "c.yaml", "--no-layers"], cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "  a.t\n  b.t\n" in done.stderr


def test_update_takes_one_rev(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\n")
    _usage_error(run_cli(["update", str(config), "--rev", "v1", "--rev", "v2"], cwd=tmp_path),
                 "argument --rev", "given twice")


@pytest.mark.parametrize(("flags", "said"), [
    # mcp-config's: install writes the whole file, so it was taken and did nothing
    (["--entry-only"], "'--entry-only' is not an option of `toolhost install`; "
                       "`toolhost mcp-config` has it"),
    (["--scope", "user"], "--scope: not used here: Claude Desktop has one config file"),
    (["--scope", "project"], "--scope: not used here"),
    (["--uninstall", "--force"], "--force: not used here: --uninstall only removes"),
    (["--uninstall", "--watch", "--no-check"], "--watch, --no-check: not used here"),
    (["--uninstall", "--absolute"], "--absolute: not used here"),
])
def test_install_refuses_a_flag_it_would_not_use(tmp_path: Path, flags: list[str],
                                                  said: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    target = tmp_path / "x.json"
    target.write_text('{"mcpServers": {"a": {"command": "x"}}}\n')
    client = "claude-desktop" if "--scope" in flags else "claude-code"
    _usage_error(run_cli(["install", client, str(config), "--server", "a", "--file",
                          str(target), *flags], cwd=tmp_path), said)
    assert target.read_text() == '{"mcpServers": {"a": {"command": "x"}}}\n'


def test_install_still_takes_scope_for_claude_code_and_uninstall_alone(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    target = tmp_path / "x.json"
    done = run_cli(["install", "claude-code", str(config), "--server", "a", "--scope",
                    "user", "--file", str(target)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = run_cli(["install", "claude-code", str(config), "--server", "a", "--uninstall",
                    "--file", str(target)], cwd=tmp_path)
    assert done.returncode == 0 and "removed 'a'" in done.stdout, (done.stdout, done.stderr)


@pytest.mark.parametrize(("argv", "said"), [
    (["tools", "{config}", "--transport", "http"], "`toolhost serve` has it"),
    (["validate", "{config}", "--dry-run"],
     "`toolhost install`, `toolhost lock` and `toolhost update` have it"),
    (["validate", "{config}", "--zzz"], "(its --help lists them)"),
])
def test_another_commands_option_names_the_command_that_has_it(
        tmp_path: Path, argv: list[str], said: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    _usage_error(run_cli([w.format(config=config) for w in argv], cwd=tmp_path), said)
