"""``requestState`` for the 2026-07-28 round trips (``InputRequiredResult``).

A stateless server keeps nothing between the rounds of a call that asks the client: the
answers given so far travel with the client, in ``requestState``, as base64url JSON. The
client can read and change them, but they are its own answers (it could have answered
otherwise to begin with), so nothing is signed. Both the state and the new
``inputResponses`` are bounded and checked: a mapping of string keys to answer objects.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire

__all__ = ["MAX_ANSWERS", "MAX_STATE", "decode_state", "encode_state"]

MAX_STATE = 256 * 1024  # characters of requestState
MAX_ANSWERS = 64  # questions one call may ask


def encode_state(answered: Mapping[str, Any]) -> str:
    """The ``requestState`` that carries ``answered``."""
    text = json.dumps(dict(answered), separators=(",", ":"), ensure_ascii=True)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_state(state: Any, responses: Any, limits: Limits = DEFAULT_LIMITS
                 ) -> dict[str, Any]:
    """The answers so far: ``requestState``'s plus ``inputResponses``. Raises ValueError
    saying what is wrong with either. The state is client data: parsed within ``limits``
    (nesting is decided by the wire's linear scan, so nothing recurses)."""
    answered: dict[str, Any] = {}
    if state is not None:
        if not isinstance(state, str) or len(state) > MAX_STATE:
            raise ValueError("requestState must be the string toolhost sent")
        try:
            raw = base64.b64decode(state + "=" * (-len(state) % 4), altchars=b"-_",
                                   validate=True)
        except (ValueError, binascii.Error):
            raise ValueError("requestState is not one toolhost sent") from None
        try:
            decoded = wire.decode(raw, limits) if raw else {}
        except wire.WireError as exc:
            if exc.code == rpc.PARSE_ERROR:
                raise ValueError("requestState is not one toolhost sent") from None
            why = exc.message.removeprefix("Invalid Request: the message ")
            raise ValueError(f"requestState is not one toolhost sent: it {why} "
                             "(toolhost serve --max-depth, --max-values)") from None
        answered.update(_answers(decoded, "requestState"))
    if responses is not None:
        answered.update(_answers(responses, "inputResponses"))
    if len(answered) > MAX_ANSWERS:
        raise ValueError(f"more than {MAX_ANSWERS} answers to one call")
    return answered


def _answers(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, Mapping) for k, v in value.items()):
        raise ValueError(f"{where} must map request keys to answer objects")
    return {str(k): v for k, v in value.items()}
