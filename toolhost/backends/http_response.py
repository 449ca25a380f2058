"""HTTP responses -> results, and when to retry.

Mapping by content type: JSON (``application/json``, ``*+json``) -> ``structuredContent`` plus
its JSON as text (after ``select``); ``image/*`` -> an image block; text and anything that
decodes as UTF-8 -> text; other bytes -> a text note naming the type and size. A non-2xx status
is an error result: the status, the request, and the start of the body.
"""

from __future__ import annotations

import codecs
import email.utils
import time
from collections.abc import Mapping
from typing import Any

import httpx
from jinja2 import TemplateError

from toolhost.backends.convert import bytes_result, read_json
from toolhost.compile.jsoncut import json_why
from toolhost.config.url_secrets import shown_url
from toolhost.excerpt import decode_cut
from toolhost.redaction import active
from toolhost.results import ToolResult

# binary bodies passed on as a blob resource (besides image/* and audio/*)
_BINARY = frozenset({"application/pdf", "application/octet-stream", "application/zip",
                     "application/gzip"})

__all__ = ["map_response", "resolve_pointer", "retry_delay", "stale_connection",
           "transport_why"]

EXCERPT = 1000


def _retry_after(value: str | None, cap: float) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), cap)
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, min(when - time.time(), cap))


def retry_delay(response: httpx.Response, attempt: int, retries: int, backoff: float,
                max_retry_after: float) -> float | None:
    """Seconds to wait before retrying ``response``; None when it is final."""
    if attempt >= retries or not (response.status_code == 429 or response.status_code >= 500):
        return None
    after = _retry_after(response.headers.get("retry-after"), max_retry_after)
    return after if after is not None else backoff * 2 ** attempt


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901 JSON pointer; raises ``LookupError`` naming the missing part."""
    if pointer == "":
        return document
    node = document
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise LookupError(f"select '{pointer}' found nothing at '{raw}' in the response")
    return node


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or content_type.endswith("+json")


# text codecs Python has that no server means (or that fail whatever the errors= handler)
_NOT_CHARSETS = frozenset({"undefined", "idna", "punycode", "unicode-escape",
                           "raw-unicode-escape"})


def _charset(response: httpx.Response) -> str:
    """The codec name of the charset the response declares; "" when it declares none, one
    nobody knows, or a codec that is no text encoding (``charset=base64``, ``rot13``,
    ``zlib``: Python has them as codecs, and decoding with them failed with a
    ``LookupError``)."""
    declared = response.charset_encoding
    if not declared:
        return ""
    try:
        info = codecs.lookup(declared)
    except LookupError:
        return ""
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return ""
    return info.name


def _text(data: bytes, response: httpx.Response, *, cut: bool = False) -> str:
    """The body as text; ``cut``: ``data`` stops at a byte cap, maybe inside a character."""
    charset = _charset(response) or "utf-8"  # none, or one nobody knows: read as UTF-8
    if cut and charset == "utf-8":
        return decode_cut(data, tail=True)
    return data.decode(charset, errors="replace")


def _json_source(data: bytes, response: httpx.Response) -> bytes | str:
    """The JSON body to parse: its bytes (JSON finds UTF-8, -16 or -32 itself), or its text
    when the response declares another charset (``charset=iso-8859-1``: read as UTF-8 it
    was "not valid JSON"). Raises ``ValueError`` when the body is not in that charset."""
    charset = _charset(response)  # none, or one nobody knows: JSON finds the encoding
    if not charset or charset.startswith(("utf-8", "utf-16", "utf-32")):
        return data
    return data.decode(charset)


def _kept(text: str, truncated: bool) -> str:
    # the read stopped at the cap, maybe inside a secret: its start is hidden (whole secrets
    # are the tool's to redact, as its redact_results says)
    return active().mask_edges(text, tail=True) if truncated else text


def map_response(response: httpx.Response, data: bytes, truncated: bool, *, method: str,
                 select: str, expression: Any, arguments: Mapping[str, Any],
                 cap: int) -> ToolResult:
    """Turn one final response into the tool's result."""
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not 200 <= response.status_code < 300:
        where = f"{method} {shown_url(str(response.request.url.copy_with(query=None)))}"
        # hidden before cutting (a server's error page may echo the request's credentials)
        head = data[:EXCERPT * 4]
        sliced = truncated or len(head) < len(data)
        excerpt = active().cut_edges(_text(head, response, cut=sliced),
                                     tail=sliced)[:EXCERPT].strip()
        message = f"HTTP {response.status_code} {response.reason_phrase} from {where}"
        location = response.headers.get("location")
        if location and 300 <= response.status_code < 400:
            message += f" (redirect to {location} not followed)"
        return ToolResult.error(message + (f"\n{excerpt}" if excerpt else ""))
    note = (f"\n[toolhost: the response passed {cap:,} bytes; the rest was not read]"
            if truncated else "")
    if content_type.startswith(("image/", "audio/")) or content_type in _BINARY:
        if truncated:
            return ToolResult.error(f"The {content_type} response is larger than {cap:,} "
                                    "bytes.")
        return bytes_result(data, content_type)
    if _is_json(content_type) and not truncated:
        try:
            document = read_json(_json_source(data, response)) if data else None
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            return ToolResult.error(f"The response is not valid JSON ({json_why(exc)}).")
        try:
            if expression is not None:
                document = expression({**arguments, "response": document})
            elif select:
                document = resolve_pointer(document, select)
        except (LookupError, TemplateError) as exc:
            return ToolResult.error(str(exc))
        if isinstance(document, str):
            return ToolResult.text(document)
        return ToolResult.json(document)
    if content_type.startswith("text/") or _is_json(content_type) or "xml" in content_type:
        return ToolResult.text(_kept(_text(data, response, cut=truncated), truncated) + note)
    try:  # text if it is UTF-8 (a character the cap split at the end does not count)
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not truncated)
        return ToolResult.text(_kept(text, truncated) + note)
    except UnicodeDecodeError:
        if truncated:
            return ToolResult.text(f"(binary response: more than {cap:,} bytes of "
                                   f"{content_type or 'unknown type'}; not read)")
        return bytes_result(data, content_type or None)


def stale_connection(exc: httpx.TransportError) -> bool:
    """Whether the request failed before any answer because the connection went away: a
    kept-alive connection the server closed (at its idle deadline) just as the request was
    sent. Safe to send again for an idempotent method."""
    if isinstance(exc, httpx.RemoteProtocolError):
        return str(exc).startswith("Server disconnected without sending a response")
    return isinstance(exc, (httpx.ReadError, httpx.WriteError))


def transport_why(exc: httpx.HTTPError) -> str:
    """One line saying why a request got no usable response (httpx's own message is empty
    for a reset connection, and names its buffers for oversized headers)."""
    text = " ".join(str(exc).split())
    if "Receive buffer too long" in text:
        return "the response's headers are too long (more than the client reads)"
    if isinstance(exc, httpx.TimeoutException):
        return f"no data came for too long ({type(exc).__name__})"
    if isinstance(exc, (httpx.ReadError, httpx.WriteError)):
        way = "reading the response" if isinstance(exc, httpx.ReadError) else "sending"
        return f"the connection broke while {way} ({text or type(exc).__name__})"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the server's answer is not valid HTTP ({text[:200] or 'no detail'})"
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
