"""Asking the client the 2026-07-28 way (``InputRequiredResult``): a stateless request
cannot carry a request to the client, so the call stops with :class:`InputRequired` and
the client repeats it with the answers (:class:`RoundTrip`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from toolhost.mcp.client_errors import DEFAULT_TIMEOUT, ClientRequestError, check_key, sendable

__all__ = ["MAX_ROUND", "InputRequired", "RoundTrip", "input_required_in"]

MAX_ROUND = 64  # questions one 2026-07-28 round asks at once


class InputRequired(BaseException):
    """Raised out of a tool in the stateless era: the client must answer ``request`` (and
    repeat the call). A BaseException, so ``except Exception`` in a tool does not catch it."""

    toolhost_control = True  # the host's, not the tool's failure (python_calls)

    def __init__(self, key: str, request: dict[str, Any], answered: dict[str, Any],
                 requests: Mapping[str, dict[str, Any]] | None = None) -> None:
        super().__init__(key)
        self.key, self.request, self.answered = key, request, answered
        # every question of this round: those the tool asked at once (a task group) too
        self.requests = dict(requests) if requests else {key: request}


def input_required_in(exc: BaseException) -> InputRequired | None:
    """The ``InputRequired`` that ``exc`` is or holds: a tool asking several questions at
    once (a task group) stops with an exception group of them, not with one."""
    if isinstance(exc, InputRequired):
        return exc
    if isinstance(exc, BaseExceptionGroup):  # noqa: F821 (a builtin since 3.11)
        for inner in exc.exceptions:
            found = input_required_in(inner)
            if found is not None:
                return found
    return None


class RoundTrip:
    """The 2026-07-28 way to ask a client (``InputRequiredResult``): no request is sent.

    The call runs until it needs an answer it does not have; then it stops
    (``InputRequired``) and the core answers ``resultType: input_required`` with the request.
    The client asks its person or model and repeats the call with ``inputResponses``, the
    answers so far travelling in ``requestState``; the call runs again from the start, and
    this time the ``n``-th question of the run finds its answer. So a tool that asks must ask
    the same questions in the same order when run again (it runs once per answer).
    """

    def __init__(self, capabilities: Mapping[str, Any], answered: Mapping[str, Any]) -> None:
        self.capabilities = capabilities
        self.answered = dict(answered)
        self._asked = 0
        # capabilities a request was refused for (the tool may still have done without)
        self.refused: dict[str, Any] = {}
        self._keys: set[str] = set()
        self._unanswered: dict[str, dict[str, Any]] = {}  # this round's questions

    def _new_key(self, capability: str, method: str, key: str | None, within: str) -> str:
        """The key of a new question (``key``, or the next ``toolhost-N``), once the client
        declared ``capability`` and no question of this ``within`` used it."""
        check_key(key)
        if not self.supports(capability):
            self.refused[capability] = {}
            raise ClientRequestError(
                f"cannot send {method}: the MCP client did not declare the "
                f"'{capability}' capability")
        self._asked += 1
        if key is None:
            key = f"toolhost-{self._asked}"
        if key in self._keys:
            raise ClientRequestError(f"asked the client twice under the key {key!r} in one "
                                     f"{within}")
        return key

    def supports(self, capability: str) -> bool:
        return isinstance(self.capabilities.get(capability), Mapping)

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        key = self._new_key(capability, method, key,
                            "call (each question of a call needs its own key)")
        self._keys.add(key)
        answer = self.answered.get(key)
        if answer is None:
            if len(self._unanswered) >= MAX_ROUND:
                raise ClientRequestError(f"asked the client more than {MAX_ROUND} questions "
                                         "at once")
            request = {"method": method, "params": sendable(method, params)}
            self._unanswered[key] = request
            # questions asked at the same time (a task group, asyncio.gather) join this
            # round: they are asked together, and each stops once all have been seen
            for _ in range(3):
                await anyio.sleep(0)
            raise InputRequired(key, request, self.answered, self._unanswered)
        if not isinstance(answer, Mapping):
            raise ClientRequestError(f"got an answer to {method} that is not an object")
        return answer
