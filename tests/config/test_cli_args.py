"""``run.cli_args`` that would let the Claude CLI decide permissions without toolhost are
located problems, from any layer (toolhost.config.cli_args); the same test decides the
command line's ``-- CLI_ARGS`` (tests/commands/test_run_cli_args.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.config import load_config
from toolhost.config.cli_args import ALLOWED, ASKING_MODES, weakening
from toolhost.errors import ConfigError

REFUSED = [
    ["--dangerously-skip-permissions"],
    ["--allow-dangerously-skip-permissions"],
    ["--allowedTools", "Bash"], ["--allowedTools=Bash(rm:*)"], ["--allowed-tools", "Read"],
    ["--permission-prompt-tool", "mcp__x__approve"], ["--permission-prompt-tool=stdio"],
    ["--settings", '{"permissions": {"allow": ["Bash"]}}'], ["--settings=/tmp/s.json"],
    ["--permission-mode", "bypassPermissions"], ["--permission-mode=acceptEdits"],
    ["--permission-mode", "auto"], ["--permission-mode", "BYPASSPERMISSIONS"],
    ["--permission-mode"], ["--permission-mode", ""], ["--permission-mode", "newMode"],
    ["--permission-prompts", "none"], ["--permission-prompts=none"],
    ["--model", "x", "--verbose", "--permission-mode", "bypassPermissions"],
]
# options that carry hooks, permission rules, modes, agents or plugins (teams2 F3), in every
# spelling the CLI's parser reads
CARRIERS = {
    "--plugin-dir": "./evilplug", "--plugin-url": "https://x.example/p.zip",
    "--agents": '{"a": {"description": "d", "prompt": "p", "permissionMode": "bypass"}}',
    "--agent": "reviewer", "--setting-sources": "project,local", "--mcp-config": "{}",
    "--add-dir": "../other", "--settings": "{}", "--debug-file": "/tmp/log",
}
SPELLINGS = {
    "space": lambda f, v: [f, v], "equals": lambda f, v: [f"{f}={v}"],
    "after a flag": lambda f, v: ["--verbose", f, v],
    "after a valued option": lambda f, v: ["--model", "m", f, v],
    "after a variadic one": lambda f, v: ["--disallowedTools", "Bash", "Edit", f, v],
    "after an optional one": lambda f, v: ["--debug", f, v],
    "after an optional one with its value": lambda f, v: ["--debug", "api", f, v],
    "as a value of a valued option": lambda f, v: ["--model", f, v],
    "as a value of an optional one": lambda f, v: ["-d", f, v],
    "abbreviated": lambda f, v: [f[:-2], v], "abbreviated, equals": lambda f, v: [f"{f[:-1]}={v}"],
    "upper case": lambda f, v: [f.upper(), v], "trailing space": lambda f, v: [f + " ", v],
    "single dash": lambda f, v: [f[1:], v], "after --": lambda f, v: ["--", f, v],
}
OTHERS = [
    ["--no-such-option-here"], ["prompt text"], ["plugin", "install", "x"], ["mcp", "add"],
    ["--"], ["-"], ["-dp"], ["-nname"], ["-p"], ["--print"], ["--output-format", "text"],
    ["--input-format=text"], ["-w"],
    ["--worktree", "x"], ["--chrome"], ["--ide"], ["--file", "f:x"], ["--verbose=1"],
    ["--bare=0"], ["--model"], ["--disallowedTools"], ["--disallowedTools", "--verbose"],
    ["--betas=a", "b"], ["--help"], ["-h"], ["--version"], ["--replay-user-messages"],
    ["--mcp-debug"], ["--permission-mode", "plan", "x"],
]
KEPT = [
    [], ["--permission-mode", "plan"],
    ["--permission-mode=default"], ["--permission-mode", "dontAsk"],
    ["--permission-prompts", "host"], ["--disallowedTools", "Bash"], ["--max-budget-usd", "1"],
    ["--append-system-prompt", "be brief"], ["--strict-mcp-config"], ["--verbose"],
    ["--include-partial-messages"], ["--model", "sonnet", "--fallback-model", "opus"],
    ["--disallowed-tools", "Bash", "Edit", "--tools", "Read,Grep"], ["--debug"],
    ["--debug", "api,hooks"], ["-d", "--verbose"], ["--debug=!hooks"], ["--bare"],
    ["--append-system-prompt=--plugin-dir x"], ["--system-prompt", "x --plugin-dir y"],
    ["--effort", "high", "--max-turns", "3", "-n", "job", "--session-id",
     "1b4e28ba-2fa1-11d2-883f-0016d3cca427"], ["--restricted", "--safe-mode"],
    ["--disable-slash-commands", "--no-session-persistence", "--betas", "x", "y"],
    ["--continue"], ["-c", "--fork-session"], ["--resume"], ["--resume", "abc"],
    ["-r", "abc", "--verbose"],
]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("flag", sorted(CARRIERS))
def test_options_that_carry_decisions_are_refused_in_every_spelling(
        flag: str, spelling: str) -> None:
    args = SPELLINGS[spelling](flag, CARRIERS[flag])
    found = weakening(args)
    assert found is not None, args
    assert "not allowed" in found[1] or "not an option" in found[1]
    assert "\n" not in found[1]


@pytest.mark.parametrize("args", OTHERS, ids=" ".join)
def test_what_the_list_does_not_know_is_refused_naming_it(args: list[str]) -> None:
    found = weakening(args)
    assert found is not None, args
    index, why = found
    assert 0 <= index < len(args)
    assert "not allowed" in why or "not an option" in why
    assert "docs/running.md" in why or "not allowed" in why


@given(st.lists(st.sampled_from(["--model", "x", "--verbose", "--debug", "-d", "hooks",
                                 "--disallowedTools", "Bash", "--plugin-dir", "p",
                                 "--agents", "{}", "--add-dir", ".", "-", "--", "=",
                                 "--model=--plugin-dir", "--setting-sources", "project",
                                 "--settings", "--permission-mode", "plan", "bypassPermissions",
                                 "--mcp-config", "-p", "--print", *sorted(ASKING_MODES)]),
                max_size=12))
def test_every_option_of_an_accepted_list_is_a_known_safe_one(args: list[str]) -> None:
    if weakening(args) is not None:
        return
    for arg in args:
        if arg.startswith("-") and len(arg) > 1:
            assert arg.split("=", 1)[0] in ALLOWED, args
    for carrier in CARRIERS:
        assert carrier not in args


def test_the_allowlist_names_options_of_the_pinned_cli() -> None:
    import glob
    import subprocess
    import sys

    found = glob.glob(str(Path(sys.prefix) / "lib" / "python*" / "site-packages" /
                          "claude_agent_sdk" / "_bundled" / "claude"))
    if not found:
        pytest.skip("the bundled CLI is not installed")
    done = subprocess.run([found[0], "--help"], capture_output=True, text=True, timeout=60,
                          check=False)
    hidden = {"--max-turns", "--debug-to-stderr"}  # passed by toolhost and the SDK; unlisted
    for option in set(ALLOWED) - hidden:
        assert option in done.stdout.replace(",", " ").split(), option
    for option in CARRIERS:
        assert option in done.stdout.split(), option


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a) or "none")
def test_every_way_to_take_decisions_away_is_refused(args: list[str]) -> None:
    found = weakening(args)
    assert found is not None
    index, why = found
    assert args[index].startswith("--permission") or args[index].split("=")[0] in why
    assert "not allowed" in why


@pytest.mark.parametrize("args", KEPT, ids=lambda a: " ".join(a) or "none")
def test_arguments_that_keep_the_cli_asking_are_kept(args: list[str]) -> None:
    assert weakening(args) is None


@given(st.lists(st.sampled_from(["--model", "x", "--verbose", "--debug", "-d",
                                 *sorted(ASKING_MODES)]), max_size=8),
       st.sampled_from(REFUSED))
def test_a_refused_argument_is_found_among_any_others(before: list[str],
                                                      refused: list[str]) -> None:
    found = weakening([*before, *refused])
    assert found is not None


@pytest.mark.parametrize("layer", ["main", "extended", "local"])
@pytest.mark.parametrize("args", [["--permission-mode", "bypassPermissions"],
                                  ["--allowedTools", "mcp__kb__note"]])
def test_each_layer_is_located(tmp_path: Path, layer: str, args: list[str]) -> None:
    run = "run:\n  cli_args: " + json.dumps(["--verbose", *args]) + "\n"
    main = "toolhost: 1\npermissions:\n  default: ask\n"
    files = {"main": "toolhost.yaml", "extended": "team.yaml", "local": "toolhost.local.yaml"}
    if layer == "main":
        main += run
    else:
        (tmp_path / files[layer]).write_text(run if layer == "extended"
                                             else "toolhost: 1\n" + run)
        if layer == "extended":
            main += "extends: [./team.yaml]\n"
    (tmp_path / "toolhost.yaml").write_text(main)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "toolhost.yaml", layers=layer == "local")
    (problem,) = info.value.problems
    assert Path(problem.file).name == files[layer]
    assert problem.key_path == "run.cli_args[1]" and "not allowed" in problem.message
    assert problem.line > 0


HOOK = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                 "command": "true"}]}]}}
CWD_CARRIERS = {
    "settings.json hooks": (".claude/settings.json", json.dumps(HOOK)),
    "settings.local.json hooks": (".claude/settings.local.json", json.dumps(HOOK)),
    "allow": (".claude/settings.json", '{"permissions": {"allow": ["Bash"]}}'),
    "defaultMode": (".claude/settings.json",
                    '{"permissions": {"defaultMode": "bypassPermissions"}}'),
    "plugins": (".claude/settings.json", '{"enabledPlugins": {"x@y": true}}'),
    "not json": (".claude/settings.json", "{hooks: "),
    "skill": (".claude/skills/s/SKILL.md", "---\nallowed-tools: Bash\n---\n"),
    "agent": (".claude/agents/a.md", "---\npermissionMode: bypassPermissions\n---\n"),
    "command": (".claude/commands/c.md", "---\nallowed-tools: Bash\n---\n"),
}


@pytest.mark.parametrize("layer", ["main", "extended"])
@pytest.mark.parametrize("carrier", sorted(CWD_CARRIERS))
def test_a_run_cwd_with_settings_that_decide_is_a_located_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, carrier: str, layer: str) -> None:
    name, text = CWD_CARRIERS[carrier]
    target = tmp_path / "w" / name
    target.parent.mkdir(parents=True)
    target.write_text(text)
    run = "run:\n  cwd: ./w\n"
    main = "toolhost: 1\n" + (run if layer == "main" else "extends: [./frag.yaml]\n")
    if layer == "extended":
        (tmp_path / "frag.yaml").write_text(run)
    (tmp_path / "toolhost.yaml").write_text(main)
    with caplog.at_level("WARNING", logger="toolhost.config"):
        load_config(tmp_path / "toolhost.yaml", layers=False)
    (record,) = [r for r in caplog.records if "run.cwd" in r.getMessage()]
    message = record.getMessage()
    shown = "toolhost.yaml:3:3" if layer == "main" else "frag.yaml:2:3"
    assert shown in message and ".claude/" in message


@pytest.mark.parametrize("text", ['{"permissions": {"deny": ["Bash"]}}', '{"model": "x"}',
                                  '{"hooks": {}}'])
def test_a_run_cwd_with_harmless_settings_says_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str) -> None:
    (tmp_path / "w" / ".claude").mkdir(parents=True)
    (tmp_path / "w" / ".claude" / "settings.json").write_text(text)
    (tmp_path / "toolhost.yaml").write_text("toolhost: 1\nrun:\n  cwd: ./w\n")
    with caplog.at_level("WARNING", logger="toolhost.config"):
        load_config(tmp_path / "toolhost.yaml", layers=False)
    assert not [r for r in caplog.records if "run.cwd" in r.getMessage()]


@pytest.mark.parametrize("args", [
    ["--max-turns", "0"], ["--max-turns=0"], ["--max-turns=-3"], ["--max-turns", "abc"],
    ["--max-turns", "1.5"], ["--max-turns", "\u0663"], ["--verbose", "--max-turns", "00"],
], ids=" ".join)
def test_a_turn_limit_that_is_no_limit_is_refused(args: list[str]) -> None:
    # the CLI takes --max-turns 0 as no limit: a model calling tools for ever (110 replies,
    # $2.87 with the scripted model) ran past toolhost's default of 100, said nowhere
    found = weakening(args)
    assert found is not None, args
    index, why = found
    assert args[index].startswith("--max-turns") and "at least 1" in why


@pytest.mark.parametrize("args", [["--max-turns", "1"], ["--max-turns=250"],
                                  ["--max-turns", "007"]], ids=" ".join)
def test_a_turn_limit_of_one_or_more_is_kept(args: list[str]) -> None:
    assert weakening(args) is None
