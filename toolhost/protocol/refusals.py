"""The error answers the control session writes: a request it refuses (too many in flight,
an id already being served) and one whose handling failed. Each is logged here, once."""

from __future__ import annotations

import logging
from typing import Any

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.protocol.handlers import ControlRequestError
from toolhost.protocol.tasks import RequestTasks

__all__ = ["busy", "duplicate", "failed"]

log = logging.getLogger("toolhost.protocol")


def busy(request_id: str, tasks: RequestTasks) -> dict[str, Any]:
    log.warning("control session: refused request %s: %d requests are being served",
                cut(request_id, 100), len(tasks.scopes))
    return {"type": "control_response", "response": {
        "subtype": "error", "request_id": request_id,
        "error": f"toolhost is serving {len(tasks.scopes):,} requests (the limit is "
                 f"{tasks.max_in_flight:,} requests or {tasks.max_in_flight_bytes:,} bytes "
                 "of them); this one was refused, try it again when some have finished"}}


def duplicate(request_id: str) -> dict[str, Any]:
    # A second request under the id of one still being served: served too, it would take
    # the first one's place in the table (which could then be neither withdrawn nor
    # cancelled, nor counted against the limit of requests in flight).
    log.warning("control session: refused request %s: a request with this id is already "
                "being served", cut(request_id, 100))
    return {"type": "control_response", "response": {
        "subtype": "error", "request_id": request_id,
        "error": "a control request with this request_id is already being served; "
                 "this one was refused (request ids must be unique)"}}


def failed(request_id: str, exc: Exception) -> dict[str, Any]:
    if not isinstance(exc, ControlRequestError):
        log_failure(log, f"control request {cut(request_id, 100)}", exc)
    return {"type": "control_response",
            "response": {"subtype": "error", "request_id": request_id,
                         "error": cut(str(exc)) or type(exc).__name__}}
