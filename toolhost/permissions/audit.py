"""The audit log: one JSON line per decision, appended to a file."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from toolhost import jsonfast
from toolhost.fileopen import open_regular
from toolhost.permissions.audit_flow import AuditFlow
from toolhost.permissions.decision import Decision
from toolhost.permissions.redact import redact_value
from toolhost.redaction import MASK
from toolhost.redaction.values import secret_key

__all__ = ["AuditLog"]

# The argument values written as they are when nothing is hidden (no nesting to walk; a
# number is only ever hidden by a secret: JSON writes it as str()/repr() does).
_SCALARS = frozenset({str, int, float, bool, type(None)})

# A record's fields read as one flow (``_shown``), in this order: the ones the model or the
# client writes first, side by side (a secret split between them is read whole), then the
# ones the config's rules write. ``time``, ``decision`` and ``event`` are toolhost's own.
_FLOW = ("tool", "arguments", "updatedInput", "message", "tool_use_id", "caller", "rule",
         "origin", "answered_by")
_INPUTS = frozenset({1, 2})  # (arguments, updatedInput: read alone too, after the records')

# Built once: json.dumps with non-default options builds an encoder per call.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode

# What a terminal acts on when a `cat` or `tail -f` of the log shows it, in UTF-8: DEL, the
# C1 controls (U+009B is CSI to many terminals, as ESC [), the bidi controls (they reorder
# what is shown: an argument reads as another) and the line and paragraph separators. JSON
# writes them raw (C0 controls it escapes itself); each is written as its \uXXXX escape,
# which reads back as the same character, and every other character stays readable.
_ACTIVE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]"
                     rb"|\xe2\x81[\xa6-\xa9]")


def _escape_active(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode())


def _inert(data: bytes) -> bytes:
    """The encoded record ``data`` with what a terminal acts on escaped (``_ACTIVE``): the
    JSON structure is ASCII, so each such character is inside a string, where its escape
    means the same character."""
    if data.isascii() and b"\x7f" not in data:  # (the usual record: two scans in C)
        return data
    return _ACTIVE.sub(_escape_active, data) if _ACTIVE.search(data) else data


# A record's time after its second: the millisecond and the zone, made once, by the first
# log (one lookup and one join per record instead of a formatted f-string: ~0.3 us of a
# decision; not at import: the gate imports this module with or without a log).
_MILLIS: tuple[str, ...] = ()


def _unchanged(text: str) -> str:
    return text


class AuditLog:
    """Appends decision records to ``path`` (JSON Lines). Opened on first use; call ``close()``.

    Each record (every field but ``time`` and ``decision`` redacted): ``time`` (UTC, ISO
    8601), ``tool``, ``arguments``,
    ``decision`` (allow/deny), ``rule`` and ``origin`` (file:line, null for the default),
    ``answered_by`` (policy, default, person, no-terminal, --yes, ...), ``message`` on deny,
    ``updatedInput`` when a rule rewrote the input, ``tool_use_id`` when the CLI sent one.
    """

    def __init__(self, path: str, redact: Callable[[str], str] | None = None, *,
                 plain: Callable[[], bool] | None = None) -> None:
        self.path = path
        self.redact: Callable[[str], str] = _unchanged if redact is None else redact
        # True when ``redact`` is the identity right now (no secret to hide): the record is
        # then built without calling it (the same line). None: it always may hide something.
        # Without a ``redact`` nothing is hidden (while none is set on the log later).
        self.plain = self._unredacted if redact is None and plain is None else plain
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._clock: tuple[int | None, str] = (None, "")  # (a second, its date and time)
        global _MILLIS
        if not _MILLIS:
            _MILLIS = tuple(f".{ms:03d}+00:00" for ms in range(1000))
        # the last origin written and its text: a session's decisions repeat a few rules,
        # and an Origin is immutable (its text is what str() makes; redacted at each record)
        self._origin: tuple[object, str] = (None, "")
        # the records' arguments read as one flow: a secret a piece per call is *** too
        self._flow = AuditFlow()
        # Loaded here, not at import: the gate imports this module with or without a log.
        from toolhost.permissions.callers.identity import current_caller

        self._caller = current_caller

    def record(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision,
               *, tool_use_id: str | None = None) -> dict[str, Any]:
        if self.plain is not None and self.plain():
            entry = self._plain_entry(tool_name, tool_input, decision, tool_use_id)
        else:
            entry = self._entry(tool_name, tool_input, decision, tool_use_id)
        self._append(entry)
        return entry

    def record_stopped(self, tool_name: str, tool_input: Mapping[str, Any], message: str,
                       *, tool_use_id: str | None = None) -> dict[str, Any]:
        """A call still running when the host stopped (``toolhost run`` got a signal): its
        record, ``"event": "stopped"`` (no ``decision``: its allow was recorded when it was
        decided), with the ``message`` the model was given as its result."""
        r = self.redact
        entry: dict[str, Any] = {"time": self._now(), "tool": r(tool_name),
                                 "arguments": redact_value(tool_input, r),
                                 "event": "stopped",
                                 "message": r(message)}
        if tool_use_id:
            entry["tool_use_id"] = r(tool_use_id)
        entry = self._shown(entry)
        self._append(entry)
        return entry

    def _shown(self, entry: dict[str, Any]) -> dict[str, Any]:
        """``entry`` (its fields redacted each alone) with its fields but ``time``,
        ``decision`` and ``event`` read as one flow (``_FLOW``), after the records before:
        a secret split between the tool's name, its arguments, a message, the tool-use id
        and the caller (the model writes most of them) is ``***`` too."""
        names = [name for name in _FLOW if name in entry or name in _FLOW[1:3]]
        values = [entry.get(name) for name in names]  # (the inputs at 1 and 2, None or not)
        shown = self._flow.shown(values, _INPUTS)
        if shown is values:  # nothing hidden
            return entry
        return {**entry, **{name: value for name, value in zip(names, shown, strict=True)
                            if name in entry}}

    def _append(self, entry: dict[str, Any]) -> None:
        data = jsonfast.dumps(entry, newline=True)  # orjson, when it writes the same JSON
        if data is jsonfast.NOT_FAST:
            text = _encode(entry) + "\n"
            try:
                data = text.encode()
            except UnicodeEncodeError:  # a lone surrogate: keep it escaped, the line stays UTF-8
                data = (json.dumps(entry, separators=(",", ":"), default=str) + "\n").encode()
        data = _inert(data)
        with self._lock:
            if self._fd is None:
                parent = os.path.dirname(os.path.abspath(self.path))
                os.makedirs(parent, exist_ok=True)
                # Never blocks: a FIFO or a device is refused (fail closed) before writing.
                self._fd = open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            # One append per record, no buffer: the line is on file before the CLI is answered.
            written = os.write(self._fd, data)
            while written < len(data):  # a short write (a full disk fails with OSError)
                written += os.write(self._fd, data[written:])

    def _entry(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision,
               tool_use_id: str | None) -> dict[str, Any]:
        r = self.redact  # every field: a tool name or a tool-use id may hold a secret too
        entry: dict[str, Any] = {
            "time": self._now(),
            "tool": r(tool_name),
            "arguments": redact_value(tool_input, r),
            "decision": decision.behavior,
            "rule": r(decision.rule) if decision.rule is not None else None,
            "origin": r(self._origin_text(decision.origin))
            if decision.origin is not None else None,
            "answered_by": r(decision.answered_by),
        }
        if decision.behavior != "allow":
            entry["message"] = r(decision.to_control_response()["message"])
        if decision.updated_input is not None:
            entry["updatedInput"] = redact_value(decision.updated_input, r)
        if tool_use_id:
            entry["tool_use_id"] = r(tool_use_id)
        caller = self._caller()
        if caller is not None:
            entry["caller"] = redact_value(caller.to_audit(), r)
        return self._shown(entry)

    def _plain_entry(self, tool_name: str, tool_input: Mapping[str, Any], decision: Decision,
                     tool_use_id: str | None) -> dict[str, Any]:
        """``_entry`` when ``redact`` hides nothing: the same fields, no call of it; secret-named
        arguments are still masked (``mask_arguments``)."""
        arguments: Any = {}
        if type(tool_input) is dict:  # flat (the usual call): one loop, no walk
            for k, v in tool_input.items():
                if type(k) is not str or type(v) not in _SCALARS:
                    arguments = None
                    break
                arguments[k] = MASK if secret_key(k) and v not in (None, "") else v
        else:
            arguments = None
        if arguments is None:  # nested, or not a plain dict: the general walk, hiding nothing
            arguments = redact_value(tool_input)
        origin = decision.origin
        entry: dict[str, Any] = {
            "time": self._now(),
            "tool": tool_name,
            "arguments": arguments,
            "decision": decision.behavior,
            "rule": decision.rule,
            "origin": self._origin_text(origin) if origin is not None else None,
            "answered_by": decision.answered_by,
        }
        if decision.behavior != "allow":
            entry["message"] = decision.to_control_response()["message"]
        if decision.updated_input is not None:
            entry["updatedInput"] = redact_value(decision.updated_input)
        if tool_use_id:
            entry["tool_use_id"] = tool_use_id
        caller = self._caller()
        if caller is not None:
            entry["caller"] = redact_value(caller.to_audit())
        return entry

    def _unredacted(self) -> bool:
        return self.redact is _unchanged

    def _origin_text(self, origin: object) -> str:
        last = self._origin  # one tuple, swapped whole (as the clock)
        if last[0] is not origin:
            last = self._origin = (origin, str(origin))
        return last[1]

    def _now(self) -> str:
        # The same text as datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        # with the date and time formatted once a second, not once a record.
        now = time.time()
        second = int(now)
        clock = self._clock  # one tuple, swapped whole: threads never see half an update
        if clock[0] != second:
            clock = self._clock = (second, time.strftime("%Y-%m-%dT%H:%M:%S",
                                                         time.gmtime(second)))
        ms = int((now - second) * 1000)
        return clock[1] + _MILLIS[ms] if 0 <= ms < 1000 else f"{clock[1]}.{ms:03d}+00:00"

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
