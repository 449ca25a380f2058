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


def embedded(kind: str, size: str) -> object:
    """An embedded resource (or image) of ``size`` characters or bytes, as a backend may
    return it instead of text."""
    from toolhost.content import Image, Resource

    n = int(size)
    if kind == "text":
        return Resource("other://text", text="E" * n, mime_type="text/plain")
    if kind == "blob":
        return Resource("other://blob", blob=b"\x00" * n, mime_type="application/octet-stream")
    if kind == "many":
        return [Resource(f"other://{i}", text="E" * n, mime_type="text/plain")
                for i in range(4)]
    return Image(b"\x89PNG\r\n\x1a\n" + b"\x00" * n)


def sized_prompt(shape: str, size: str) -> object:
    """A python prompt's answer of ``size`` characters, as a string, a list of strings or a
    list of {role, content} messages."""
    n = int(size)
    if shape == "string":
        return "S" * n
    if shape == "strings":
        return ["S" * n, "T" * n]
    return [{"role": "user", "content": "U" * n},
            {"role": "assistant", "content": {"type": "text", "text": "V" * n}}]


def sized_messages(size: str) -> list[dict[str, object]]:
    """Two {role, content} messages of ``size`` characters each, declared as a list (so the
    answer has an outputSchema)."""
    n = int(size)
    return [{"role": "user", "content": "U" * n},
            {"role": "assistant", "content": {"type": "text", "text": "V" * n}}]
