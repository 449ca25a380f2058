"""What goes wrong asking the client, and the checks every way of asking shares: a
question's params must be JSON, a tool's own key for a question must be well formed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.backends.base import ToolFailure
from toolhost.excerpt import cut

__all__ = ["DEFAULT_TIMEOUT", "ClientRequestError", "check_key", "sendable"]

DEFAULT_TIMEOUT = 600.0  # seconds: a person may be answering; the call's own timeout still rules


class ClientRequestError(ToolFailure):
    """The client could not be asked, refused, or answered something unusable."""


_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def sendable(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as a dict, once it is known JSON can carry them: a NaN, an infinity or an
    object JSON has no form for (in an elicitation schema's default, say) raises
    ``ClientRequestError`` to the tool here. Sent as it was, the transport could not write
    the request: the client got an error "answer" to a request it never sent, and the tool
    waited for an answer that never came (its call was never answered)."""
    from toolhost.mcp.wire import encode

    params = dict(params)
    try:
        encode(params)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ClientRequestError(f"cannot send {method}: its params are not valid JSON "
                                 f"({cut(str(exc), 120)})") from None
    return params


def check_key(key: object) -> None:
    """A tool's own name for a question (``ctx.elicit(..., key="user_name")``): 1-64
    letters, digits, ``_.-``, not of toolhost's own ``toolhost-N`` form."""
    if key is None:
        return
    if not isinstance(key, str) or not _KEY.fullmatch(key) or key.startswith("toolhost-"):
        raise ClientRequestError(
            f"was given the key {cut(repr(key), 80)}: a key is 1-64 letters, digits, "
            "'_', '.' or '-', starting with a letter or digit, and not 'toolhost-...'")
