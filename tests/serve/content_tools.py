"""Python functions behind the content test config (resources, prompts, completions)."""

from __future__ import annotations


def ticket(id: str) -> dict[str, str]:
    """A ticket by id."""
    return {"id": id, "title": f"Ticket {id}"}


def briefing(topic: str, audience: str = "engineers") -> list[dict[str, str]]:
    """A two-message briefing prompt."""
    return [{"role": "user", "content": f"Brief {audience} on {topic}."},
            {"role": "assistant", "content": f"Here is what {audience} need about {topic}:"}]


def environments(value: str) -> list[str]:
    """Environments whose names start with ``value``."""
    return ["production", "preview", "staging"]
