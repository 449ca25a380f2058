"""Elicitation modes: which ones a client declared, and a URL-mode question (2025-11-25).

A client declares ``elicitation: {form: {}, url: {}}`` for the modes it offers; an empty
``elicitation: {}`` is form mode only (the specification's rule for clients of earlier
revisions). A question in a mode the client did not declare is never sent.

In URL mode the person is sent to a web page (a sign-in, a payment) instead of filling a
form: the client shows the message and the URL and asks before opening it. What is sent is
checked first, so that the person reads the address the browser will go to
(``url_problem``):

- an absolute ``https`` or ``http`` URL (not ``javascript:``, ``data:``, ``file:``) with a
  host, of at most ``MAX_URL`` characters;
- printable ASCII only: nothing hides in it, and a host in another script must come as its
  ``xn--`` form, so no letter that looks like another passes;
- no user name or password (``https://bank.example@evil.example/`` reads as the bank's and
  goes to evil.example) and no backslash (browsers read it as ``/``);
- no secret of this process (masked, the URL would lead elsewhere: it is refused); the
  message has them masked, as a form's has.

The answer is the person's ``action`` only (``accept``: they agreed to open it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from toolhost.excerpt import cut
from toolhost.mcp.client_requests import DEFAULT_TIMEOUT, Channel, ClientRequestError
from toolhost.redaction.process import scrub_value

__all__ = ["MAX_ELICITATION_ID", "MAX_URL", "elicit_url", "elicits", "id_problem",
           "url_problem"]

MAX_URL = 2_000
MAX_ELICITATION_ID = 200


def elicits(channel: Any, mode: str) -> bool:
    """Whether the client behind ``channel`` declared elicitation in ``mode`` (a channel
    that tells only ``supports``: form mode, when it supports elicitation)."""
    capabilities = getattr(channel, "capabilities", None)
    if not isinstance(capabilities, Mapping):
        return mode == "form" and bool(channel.supports("elicitation"))
    declared = capabilities.get("elicitation")
    if not isinstance(declared, Mapping):
        return False
    if "form" not in declared and "url" not in declared:
        return mode == "form"  # (an empty capability: form mode only)
    return isinstance(declared.get(mode), Mapping)


def _printable(text: str) -> bool:
    return text.isascii() and text.isprintable() and " " not in text


def url_problem(url: Any) -> str | None:
    """Why ``url`` is not passed on to a person (see the module), or None."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        return f"the url must be text of 1 to {MAX_URL:,} characters"
    if not _printable(url) or "\\" in url:
        return ("the url must be printable ASCII without spaces or backslashes (a host "
                "in another script as its xn-- form)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return f"the url {cut(url, 200)!r} cannot be read"
    if parts.scheme.lower() not in ("https", "http") or not parts.hostname:
        return "the url must be an absolute https or http URL with a host"
    if "@" in parts.netloc:
        return "the url must not carry a user name or password (user@host)"
    return None


def id_problem(elicitation_id: Any) -> str | None:
    """Why an ``elicitationId`` is not passed on, or None."""
    if not isinstance(elicitation_id, str) or not elicitation_id \
            or len(elicitation_id) > MAX_ELICITATION_ID or not _printable(elicitation_id):
        return (f"the elicitationId must be printable ASCII of 1 to {MAX_ELICITATION_ID} "
                "characters")
    return None


async def elicit_url(channel: Channel, message: str, url: str, elicitation_id: str, *,
                     timeout: float = DEFAULT_TIMEOUT) -> str:
    """Ask the person at the client to open ``url`` (``elicitation/create``, url mode): the
    action it answered (``accept``, ``decline`` or ``cancel``). ClientRequestError when the
    client did not declare url mode, the URL or id fails the checks above, or the answer has
    no valid action."""
    if not elicits(channel, "url"):
        raise ClientRequestError("cannot send elicitation/create in url mode: the MCP client "
                                 "did not declare it (elicitation.url)")
    problem = url_problem(url) or id_problem(elicitation_id)
    if problem is None and scrub_value(url) != url:  # (masked, it would lead elsewhere)
        problem = "the url holds a secret toolhost knows"
    if problem is not None:
        raise ClientRequestError(f"cannot send elicitation/create in url mode: {problem}")
    result = await channel.request(
        "elicitation", "elicitation/create",
        {"mode": "url", "message": scrub_value(message), "url": url,
         "elicitationId": elicitation_id}, timeout=timeout)
    action = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise ClientRequestError("got an answer to elicitation/create without a valid "
                                 f"'action' ({cut(repr(action), 60)})")
    return str(action)
