"""The audit log: one JSON line per decision, appended to a file."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import IO, Any

from toolhost.permissions.caller import current_caller
from toolhost.permissions.decision import Decision
from toolhost.permissions.redact import redact_value

__all__ = ["AuditLog"]


class AuditLog:
    """Appends decision records to ``path`` (JSON Lines). Opened on first use; call ``close()``.

    Each record: ``time`` (UTC, ISO 8601), ``tool``, ``arguments`` (secrets redacted),
    ``decision`` (allow/deny), ``rule`` and ``origin`` (file:line, null for the default),
    ``answered_by`` (policy, default, person, no-terminal, --yes, ...), ``message`` on deny,
    ``updatedInput`` when a rule rewrote the input, ``tool_use_id`` when the CLI sent one.
    """

    def __init__(self, path: str, redact: Callable[[str], str] = lambda s: s) -> None:
        self.path = path
        self.redact = redact
        self._file: IO[str] | None = None
        self._lock = threading.Lock()

    def record(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision,
               *, tool_use_id: str | None = None) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "tool": tool_name,
            "arguments": redact_value(tool_input, self.redact),
            "decision": decision.behavior,
            "rule": self.redact(decision.rule) if decision.rule is not None else None,
            "origin": str(decision.origin) if decision.origin is not None else None,
            "answered_by": decision.answered_by,
        }
        if decision.behavior != "allow":
            entry["message"] = self.redact(decision.to_control_response()["message"])
        if decision.updated_input is not None:
            entry["updatedInput"] = redact_value(decision.updated_input, self.redact)
        if tool_use_id:
            entry["tool_use_id"] = tool_use_id
        caller = current_caller()
        if caller is not None:
            entry["caller"] = caller.to_audit()
        line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            if self._file is None:
                parent = os.path.dirname(os.path.abspath(self.path))
                os.makedirs(parent, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
            self._file.write(line)
            self._file.flush()
        return entry

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
