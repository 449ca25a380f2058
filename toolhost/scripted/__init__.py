"""The scripted model: a local Messages API that plays a scenario file.

``toolhost run CONFIG --script SCENARIO.yaml`` points the Claude CLI at it, so a whole session
runs through the real CLI with no API key and no network; scenarios assert on the tool results
the "model" receives. See docs/running.md.
"""

from toolhost.scripted.player import Player, Reply
from toolhost.scripted.scenario import (
    Expectation,
    Scenario,
    ToolCall,
    Turn,
    load_scenario,
    parse_scenario,
)
from toolhost.scripted.server import ScriptedModel

__all__ = [
    "Expectation",
    "Player",
    "Reply",
    "Scenario",
    "ScriptedModel",
    "ToolCall",
    "Turn",
    "load_scenario",
    "parse_scenario",
]
