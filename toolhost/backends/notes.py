"""``validate``'s notes on the tools of a config: facts about how they will run and how the
model will see them, which do not fail the check.

- each command argv position where a value may be read as an option, and each ``{each}``
  group whose items may be lists or objects (``toolhost.backends.command_checks``);
- each command or http tool with no ``description``: the model is shown its name alone (a
  python tool's docstring gives one; these kinds have nothing else to say what they do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolhost.backends.command_checks import option_notes

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

__all__ = ["description_notes", "validate_notes"]

_UNDESCRIBED_KINDS = ("command", "http")


def description_notes(config: HostConfig) -> list[Problem]:
    """A note for each command or http tool whose description is missing or blank."""
    notes: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            if tool.backend.kind not in _UNDESCRIBED_KINDS or (tool.description or "").strip():
                continue
            notes.append(tool.origin.problem(
                f"note: {tool.backend.kind} tool '{tool.name}' has no description: the model "
                f"is shown its name alone ({tool.wire_name}) to decide when to call it",
                hint="add description: one sentence on what it does and when to use it"))
    return notes


def validate_notes(config: HostConfig) -> list[Problem]:
    """Every note ``validate`` prints after its verdict."""
    return [*option_notes(config), *description_notes(config)]
