"""What a ``POST /mcp``'s headers must say, checked before its body is read and against it.

Before the body: the media (415: not JSON, a charset other than UTF-8, compressed, or a
browser page's POST without a Content-Type) and Accept (406). With the parsed message: the
version header (400 for a version no era knows), the headers a 2025 request must carry,
and the routing and ``Mcp-Param-*`` headers that must agree with the body (``-32001``).
Each refusal is a JSON-RPC error with its HTTP status (``refusal``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from toolhost.excerpt import cut
from toolhost.mcp import jsonrpc as rpc
from toolhost.serve.base import error_response, is_request
from toolhost.serve.headers import (
    HEADER_MISMATCH,
    accepted,
    foreign_charset,
    is_json_content_type,
    legacy_body_mismatch,
    request_version,
    unsupported_version_header,
)
from toolhost.serve.http_limits import JsonAnswer
from toolhost.serve.param_headers import param_problem
from toolhost.serve.route_headers import routing_problem

__all__ = ["accepts", "header_refusal", "media_refusal", "refusal", "shutting_down"]

ParamFields = Callable[[Any], Any]  # the handler's ``param_fields``: a tool's Mcp-Param-*


def refusal(request_id: Any, message: str, status: int = 400, code: int = -32600) -> Response:
    """A JSON-RPC error answered with ``status``."""
    return JsonAnswer(error_response(request_id, code, message), status_code=status)


def shutting_down(request_id: Any) -> Response:
    """503 for a new request while the server shuts down: a clean answer the client can
    retry elsewhere (``toolhost.serve.shutdown``, step 2)."""
    return JsonAnswer(error_response(request_id, -32000, "Server shutting down; retry on "
                                     "another replica"), status_code=503,
                      headers={"retry-after": "1", "connection": "close"})


def media_refusal(request: Request, answers: tuple[bool, bool]) -> Response | None:
    """The refusal of a POST whose body is not UTF-8 JSON sent as it is (415), or whose
    Accept admits no answer (406; ``answers``: what ``accepts`` says of it); None when it
    may be read."""
    headers = request.headers
    if "content-type" not in headers and "origin" in headers:
        # a browser page's POST without a Content-Type (a Blob body, mode "no-cors") is a
        # "simple" request: no preflight asks first. A loopback page passes the Origin
        # check, so any page a local server serves could run tools blind; with
        # application/json the browser asks first, and only --allow-origin pages may
        return refusal(None, "Unsupported Media Type: a POST from a browser page "
                       "(Origin) must say Content-Type: application/json", 415)
    if not is_json_content_type(headers.get("content-type")):
        return refusal(None, f"Unsupported Media Type {cut(headers['content-type'], 100)!r}: "
                       "POST a JSON-RPC message as application/json", 415)
    charset = foreign_charset(headers.get("content-type"))
    if charset is not None:
        return refusal(None, f"Unsupported Media Type: charset {cut(charset, 40)!r}; "
                       "send the JSON-RPC message in UTF-8", 415)
    coding = headers.get("content-encoding", "identity").strip().lower()
    if coding not in ("", "identity"):
        return JsonAnswer(error_response(
            None, -32600, f"Unsupported Media Type: Content-Encoding {cut(coding, 40)!r}; "
            "send the JSON-RPC message uncompressed"), status_code=415,
            headers={"accept-encoding": "identity"})
    if not any(answers):
        return refusal(None, f"Not Acceptable: Accept {cut(headers['accept'], 100)!r}"
                       " admits neither application/json nor text/event-stream", 406)
    return None


def accepts(request: Request) -> tuple[bool, bool]:
    """Whether the POST's Accept admits a JSON answer, and an event stream."""
    return accepted(request.headers.get("accept"))


def header_refusal(message: Mapping[str, Any], request: Request,
                   param_fields: ParamFields | None) -> Response | None:
    """The refusal of a message its headers disagree with, or that lacks those its era
    asks for; None when they agree."""
    request_id = message.get("id")
    version = request_version(message)
    if version is None:
        # a version no era knows (400, as the spec asks), or the stateless revision's on a
        # request that does not name its version where that revision keeps it (a
        # notification or an answer of a 2025 client carries no version of its own)
        unsupported = unsupported_version_header(request.headers)
        if unsupported is not None:
            return refusal(request_id, unsupported)
        missing = legacy_body_mismatch(request.headers) if is_request(message) else None
        if missing is not None:
            return refusal(request_id, missing, code=rpc.INVALID_PARAMS)
    # a modern body naming a version the header does not is a mismatch; one naming the
    # header's unknown version is the core's to refuse (-32022, with the versions served)
    problem = routing_problem(message, request.headers, version=version,
                              request=is_request(message))
    if problem is None and message.get("method") == "tools/call" and is_request(message):
        problem = _param_problem(message, request, param_fields, version is not None)
    if problem is not None:
        return refusal(request_id, problem, code=HEADER_MISMATCH)
    return None


def _param_problem(message: Mapping[str, Any], request: Request,
                   param_fields: ParamFields | None, modern: bool) -> str | None:
    """Why a call's ``Mcp-Param-*`` headers disagree with its arguments (SEP-2243)."""
    params = message.get("params")
    if param_fields is None or not isinstance(params, Mapping):
        return None
    found = param_fields(params.get("name"))
    if not found:
        return None
    return param_problem(found, params.get("arguments"), request.headers, modern=modern)
