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
from toolhost.config.cli_args import ASKING_MODES, weakening
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
KEPT = [
    [], ["--add-dir", "../other"], ["--permission-mode", "plan"],
    ["--permission-mode=default"], ["--permission-mode", "dontAsk"],
    ["--permission-prompts", "host"], ["--disallowedTools", "Bash"], ["--max-budget-usd", "1"],
    ["--append-system-prompt", "be brief"], ["--strict-mcp-config"],
]


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


@given(st.lists(st.sampled_from(["--model", "x", "--verbose", "--add-dir", ".",
                                 *sorted(ASKING_MODES)]), max_size=8),
       st.sampled_from(REFUSED))
def test_a_refused_argument_is_found_among_any_others(before: list[str],
                                                      refused: list[str]) -> None:
    found = weakening([*before, *refused])
    assert found is not None and found[0] >= len(before) - 1


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
