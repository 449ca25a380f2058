"""`toolhost run --script` warns about scenario tool calls the config has no tool for."""

from __future__ import annotations

from pathlib import Path

import anyio

from toolhost.commands.run import unknown_scenario_tools
from toolhost.host import load_host
from toolhost.scripted import parse_scenario


def test_unknown_scenario_tools_name_the_line_and_the_nearest_tool(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  calc:\n    tools:\n"
                      "      add: {python: 'toolhost.demo:add'}\n"
                      "  fs:\n    external: {command: npx}\n")
    scenario = parse_scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__calc__add, input: {a: 1, b: 2}}
      - {tool: mcp__calc__ad, input: {}}
      - {tool: calc.add, input: {}}
      - {tool: Bash, input: {command: ls}}
      - {tool: mcp__fs__read, input: {}}
      - {tool: frobnicate, input: {}}
  - text: done
""", "s.yaml")
    host = load_host(config, layers=False)
    try:
        warnings = unknown_scenario_tools(scenario, host)
    finally:
        anyio.run(host.aclose)
    assert warnings == [
        "s.yaml:4: turn 1, tool_calls[1]: mcp__calc__ad is not a tool of this config "
        "(did you mean mcp__calc__add?)",
        "s.yaml:5: turn 1, tool_calls[2]: calc.add is not a tool of this config "
        "(did you mean mcp__calc__add?)",
        "s.yaml:8: turn 1, tool_calls[5]: frobnicate is not a tool of this config "
        "(the model sees mcp__SERVER__TOOL)",
    ]
