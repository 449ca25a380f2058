"""Secrets never reach the screen: every renderer sees the session through ``redact``.

The config knows which values are secret (``HostConfig.secrets``: values interpolated into
``env``, ``headers`` and ``auth``, and keys listed in ``secrets:``); a tool may still echo one
back, or the model may repeat it. ``RedactingRenderer`` wraps any renderer and replaces each
secret (in any encoding, see ``toolhost.redaction``) with ``***`` in every string it is
shown: messages (tool arguments, results, text, the raw ``--output json`` stream), permission
decisions and status lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.permissions.decision import Decision
from toolhost.redaction import mask_arguments, redact_strings
from toolhost.runner.render import Renderer

__all__ = ["RedactingRenderer", "redact_value"]

Redact = Callable[[str], str]


def redact_value(value: Any, redact: Redact) -> Any:
    """``value`` with ``redact`` applied to every string in it (keys too), at any depth; the
    ``input`` of every ``tool_use`` block is shown as ``mask_arguments`` shows arguments
    (secret-named ones are ``***``), as the audit log and the ask prompt show them."""
    if isinstance(value, Mapping) and value.get("type") == "tool_use" \
            and isinstance(value.get("input"), Mapping):
        return {**redact_strings({k: v for k, v in value.items() if k != "input"}, redact),
                "input": mask_arguments(value["input"], redact)}
    if isinstance(value, Mapping):
        return {redact(k) if isinstance(k, str) else k: redact_value(v, redact)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, redact) for v in value]
    return redact(value) if isinstance(value, str) else value


class RedactingRenderer:
    """A ``Renderer`` that hands ``inner`` only redacted text.

    ``redact`` is looked up on every call (a reload may bring new secrets): pass a function
    that reads the current config, e.g. ``lambda s: live.config.redact(s)``.
    """

    def __init__(self, inner: Renderer, redact: Redact) -> None:
        self.inner = inner
        self.redact = redact

    def message(self, message: Mapping[str, Any]) -> None:
        self.inner.message(redact_value(message, self.redact))

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        r = self.redact
        message = r(decision.message)
        rule = r(decision.rule) if decision.rule is not None else None
        shown = decision  # one per call: a copy only when something is hidden
        if message != decision.message or rule != decision.rule \
                or decision.updated_input is not None:
            shown = dataclasses.replace(
                decision, message=message, rule=rule,
                updated_input=(mask_arguments(decision.updated_input, r)
                               if decision.updated_input is not None else None))
        self.inner.decision(r(tool_name), shown, tool_use_id=tool_use_id)

    def status(self, text: str) -> None:
        self.inner.status(self.redact(text))

    def close(self) -> None:
        self.inner.close()
