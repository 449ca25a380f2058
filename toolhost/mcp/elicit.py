"""``ctx.elicit`` and ``ctx.sample``: what a python tool asks of the client's person and model.

The elicitation schema is the spec's restricted form, checked before anything is sent
(``toolhost.mcp.elicit_schema``). What the client accepts is validated against it; an
answer that does not fit is an error, never data.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolhost.excerpt import cut
from toolhost.mcp.client_requests import DEFAULT_TIMEOUT, Channel, ClientRequestError
from toolhost.mcp.elicit_schema import MAX_PROPERTIES, check_elicitation_schema
from toolhost.mcp.elicit_url import elicits
from toolhost.redaction import active
from toolhost.redaction.binary import without_secret_data
from toolhost.redaction.process import scrub_value

__all__ = ["MAX_PROPERTIES", "MAX_ROOTS", "Elicited", "Sampled", "check_elicitation_schema",
           "elicit", "roots", "sample"]

MAX_ROOTS = 1_000  # roots one answer may list



@dataclass(frozen=True)
class Elicited:
    """The person's answer: ``action`` is ``accept`` (``content`` holds the values),
    ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True)
class Sampled:
    """The client's model's reply: ``text`` for a text reply, ``content`` as sent."""

    content: Mapping[str, Any]
    model: str = ""
    role: str = "assistant"
    stop_reason: str | None = None

    @property
    def text(self) -> str:
        value = self.content.get("text")
        return value if isinstance(value, str) else ""


async def elicit(channel: Channel | None, message: str,
                 schema: Mapping[str, Any] | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT, key: str | None = None) -> Elicited:
    """Ask the person at the client (``elicitation/create``); see ``Elicited``. ``key``
    names the question in a 2026-07-28 round trip (``inputRequests``), else ``toolhost-N``."""
    if not isinstance(message, str) or not message.strip():
        raise ClientRequestError("called ctx.elicit without a message for the person")
    requested = dict(schema) if schema is not None else {"type": "object", "properties": {}}
    problem = check_elicitation_schema(requested)
    if problem is not None:
        raise ClientRequestError(f"called ctx.elicit with a schema that cannot be elicited: "
                                 f"{problem}")
    sent_to = _channel(channel, "elicitation/create")
    if sent_to.supports("elicitation") and not elicits(sent_to, "form"):
        raise ClientRequestError("cannot send elicitation/create: the MCP client declared "
                                 "only url mode elicitation, not form (elicitation.form)")
    result = await sent_to.request(
        "elicitation", "elicitation/create",
        _hidden({"message": message, "requestedSchema": requested}), timeout=timeout,
        key=key)
    action = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise ClientRequestError("got an answer to elicitation/create without a valid "
                                 f"'action' ({cut(repr(action), 60)})")
    if action != "accept":
        return Elicited(action)
    content = result.get("content", {})
    if not isinstance(content, Mapping):
        raise ClientRequestError("got an accepted elicitation/create without an object of "
                                 "values")
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(requested, format_checker=_formats())
                    .iter_errors(dict(content)),
                    key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(the values)"
        raise ClientRequestError(f"got values that do not fit the schema: {where}: "
                                 f"{cut(errors[0].message, 200)}")
    # only what was asked for: a client's extra keys (any number of them) never reach the tool
    asked: Any = requested.get("properties", {})  # a mapping: the schema was checked
    return Elicited("accept", {k: _as_asked(asked[k], v) for k, v in content.items()
                               if k in asked})


def _as_asked(prop: Any, value: Any) -> Any:
    # JSON Schema counts 2.0 as an integer, and a client may send one so: the tool that
    # asked for an integer gets an int (range(2.0) would fail in its hands)
    if isinstance(value, float) and isinstance(prop, Mapping) \
            and prop.get("type") == "integer" and value.is_integer():
        return int(value)
    return value


_EMAIL = re.compile(r"[^@\s\x00-\x1f]+@[^@\s\x00-\x1f.]+(\.[^@\s\x00-\x1f.]+)*")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f<>\"{}|\\^`]*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
                        r"([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


def _formats() -> Any:
    """The elicitation formats, each checked (jsonschema's own checks of ``uri`` and
    ``date-time`` need packages that may be missing, and then pass anything): an answer
    ``"tomorrow"`` for a ``date`` is an error, never data."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("email")(lambda v: not isinstance(v, str) or bool(_EMAIL.fullmatch(v)))
    checker.checks("uri")(lambda v: not isinstance(v, str) or bool(_URI.fullmatch(v)))
    checker.checks("date")(lambda v: not isinstance(v, str) or _is_date(v))
    checker.checks("date-time")(lambda v: not isinstance(v, str) or _is_date_time(v))
    return checker


def _is_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_date_time(value: str) -> bool:
    found = _DATE_TIME.fullmatch(value)
    if found is None or not _is_date(found.group(1)):
        return False
    hour, minute, second = (int(found.group(i)) for i in (2, 3, 4))
    zone = found.group(6)
    if len(zone) > 1 and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
        return False
    return hour <= 23 and minute <= 59 and second <= 60  # 60: a leap second


async def sample(channel: Channel | None, messages: str | Sequence[Mapping[str, Any]],
                 *, max_tokens: int = 1000,
                 system_prompt: str | None = None, temperature: float | None = None,
                 stop_sequences: Sequence[str] | None = None,
                 model_preferences: Mapping[str, Any] | None = None,
                 timeout: float = DEFAULT_TIMEOUT, key: str | None = None) -> Sampled:
    """Ask the client's model (``sampling/createMessage``). ``messages``: a prompt string,
    or MCP sampling messages (``{"role": "user", "content": {"type": "text", ...}}``)."""
    if isinstance(messages, str):
        sent: list[Any] = [{"role": "user", "content": {"type": "text", "text": messages}}]
    else:
        sent = [dict(m) for m in messages]
    if not sent or isinstance(max_tokens, bool) or not isinstance(max_tokens, int) \
            or max_tokens < 1:
        raise ClientRequestError("called ctx.sample without messages or a positive max_tokens")
    params: dict[str, Any] = {"messages": sent, "maxTokens": max_tokens}
    if system_prompt is not None:
        params["systemPrompt"] = system_prompt
    if temperature is not None:
        params["temperature"] = temperature
    if stop_sequences:
        params["stopSequences"] = list(stop_sequences)
    if model_preferences:
        params["modelPreferences"] = dict(model_preferences)
    result = await _channel(channel, "sampling/createMessage").request(
        "sampling", "sampling/createMessage", _hidden(params), timeout=timeout, key=key)
    content = result.get("content")
    if isinstance(content, list) and content and isinstance(content[0], Mapping):
        content = content[0]  # a revision that allows several blocks: the first one
    if not isinstance(content, Mapping) or not isinstance(content.get("type"), str):
        raise ClientRequestError("got an answer to sampling/createMessage without content "
                                 "(a {type, ...} block)")
    kind = content["type"]
    if kind == "text" and not isinstance(content.get("text"), str):
        raise ClientRequestError("got an answer to sampling/createMessage whose text "
                                 "content has no string 'text'")
    if kind not in ("text", "image", "audio"):  # no tools were offered: nothing else fits
        raise ClientRequestError("got an answer to sampling/createMessage whose content is "
                                 f"of type {cut(repr(kind), 60)} (text, image or audio)")
    if kind != "text" and not (isinstance(content.get("data"), str)
                               and isinstance(content.get("mimeType"), str)):
        raise ClientRequestError(f"got an answer to sampling/createMessage whose {kind} "
                                 "content has no string 'data' and 'mimeType'")
    model, reason = result.get("model"), result.get("stopReason")
    role = result.get("role")
    if role is not None and role not in ("user", "assistant"):  # never taken as the model's
        raise ClientRequestError("got an answer to sampling/createMessage whose 'role' is "
                                 f"{cut(repr(role), 60)} (user or assistant)")
    return Sampled(dict(content), cut(model, 200) if isinstance(model, str) else "",
                   role if role in ("user", "assistant") else "assistant",
                   cut(reason, 200) if isinstance(reason, str) else None)


def _hidden(params: dict[str, Any]) -> Any:
    # What the person or the client's model reads: a tool's request carries no secret of
    # this process (an image whose bytes hold one is hidden whole).
    return scrub_value(without_secret_data(params, active()))


async def roots(channel: Channel | None, *, timeout: float = DEFAULT_TIMEOUT,
                key: str | None = None) -> list[dict[str, str]]:
    """The client's roots (``roots/list``): each ``{"uri": ..., "name": ...}`` (``name``
    when the client gave one). A ``uri`` is a ``file://`` URI; anything else is an error."""
    result = await _channel(channel, "roots/list").request(
        "roots", "roots/list", {}, timeout=timeout, key=key)
    listed = result.get("roots")
    if not isinstance(listed, list) or len(listed) > MAX_ROOTS:
        raise ClientRequestError(f"got an answer to roots/list without a 'roots' list (of at "
                                 f"most {MAX_ROOTS:,})")
    out: list[dict[str, str]] = []
    for root in listed:
        uri = root.get("uri") if isinstance(root, Mapping) else None
        if not isinstance(uri, str) or not uri.startswith("file://") or len(uri) > 4096:
            raise ClientRequestError("got an answer to roots/list with a root that is not "
                                     "{uri: 'file://...'}")
        name = root.get("name")
        out.append({"uri": uri, "name": cut(name, 200)} if isinstance(name, str)
                   else {"uri": uri})
    return out


def _channel(channel: Channel | None, method: str) -> Channel:
    if channel is None:
        raise ClientRequestError(
            f"cannot send {method} from here: only `toolhost serve` can ask the client (an "
            "HTTP client of the 2025 revisions must accept text/event-stream)")
    return channel
