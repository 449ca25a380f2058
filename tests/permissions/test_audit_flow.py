"""The audit log's arguments read as one flow: a secret written a piece per call, or a piece
per key or value of one call, is ``***`` in the log (``toolhost.permissions.audit_flow``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Decision
from toolhost.redaction import active, remember

SECRET = "sk-live-9f8e7d6c5b4a3921"
A, B, C = "sk-live-9", "f8e7d6c5", "b4a3921"  # each under the 10 letters and digits of a piece
ALLOW = Decision("allow", rule="mcp__t__echo")


def _log(tmp_path: Path) -> tuple[AuditLog, Path]:
    remember([SECRET])
    path = tmp_path / "audit.jsonl"
    return AuditLog(str(path), active().redact, plain=lambda: False), path


def _written(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _strings(value: Any) -> str:
    """Every string of ``value`` (keys too), joined, as a reader would join them."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "".join(_strings(k) + _strings(v) for k, v in value.items())
    if isinstance(value, list):
        return "".join(map(_strings, value))
    return ""


CALLS = {
    "a piece per call": [{"text": A}, {"text": B}, {"text": C}],
    "a piece per value": [{"a": A, "b": B, "c": C}],
    "a piece per key": [{A: 1, B: 2, C: 3}],
    "a key, then its value": [{A: B}, {"x": C}],
    "nested, over calls": [{"q": {"deep": [A]}}, {"q": [{"n": B}]}, {"r": [C]}],
}


@pytest.mark.parametrize("calls", CALLS.values(), ids=list(CALLS))
def test_a_secret_spread_over_the_logs_strings_is_hidden(
        tmp_path: Path, calls: list[dict[str, Any]]) -> None:
    log, path = _log(tmp_path)
    for arguments in calls:
        log.record("mcp__t__echo", arguments, ALLOW)
    log.record_stopped("mcp__t__echo", {"text": "after"}, "stopped")
    log.close()
    records = _written(path)
    everything = "".join(_strings(r["arguments"]) for r in records)
    assert B not in everything and C not in everything
    assert "***" in everything
    assert records[-1]["arguments"] == {"text": "after"}  # what follows is shown


def test_ordinary_arguments_and_keys_hidden_alike_stay(tmp_path: Path) -> None:
    log, path = _log(tmp_path)
    log.record("mcp__t__echo", {"text": "sk-live notes"}, ALLOW)
    log.record("mcp__t__echo", {"limit": 10, "table": "users"}, ALLOW)
    log.record("mcp__t__echo", {A: 1, B + C: 2}, ALLOW,)
    log.close()
    first, second, third = (r["arguments"] for r in _written(path))
    assert first == {"text": "sk-live notes"} and second == {"limit": 10, "table": "users"}
    assert sorted(third.values()) == [1, 2] and B not in _strings(third)


# (tool name, arguments, tool-use id, deny message): a secret's pieces over a record's fields
FIELDS = {
    "name, arguments, id": (A, {"text": B}, C, None),
    "arguments, message, id": ("mcp__t__echo", {"text": A}, C, B),
    "name, message, id": (A, {}, C, B),
}


@pytest.mark.parametrize("fields", FIELDS.values(), ids=list(FIELDS))
def test_a_secret_spread_over_a_records_fields_is_hidden(
        tmp_path: Path, fields: tuple[str, dict[str, Any], str, str | None]) -> None:
    tool, arguments, tool_use_id, message = fields
    log, path = _log(tmp_path)
    decision = ALLOW if message is None else Decision("deny", message, rule="x")
    log.record(tool, arguments, decision, tool_use_id=tool_use_id)
    log.record_stopped(A, {"x": B}, C)  # the stopped record: name, arguments, message
    log.close()
    for record in _written(path):
        shown = "".join(_strings({k: v for k, v in record.items() if k != "time"}))
        assert B not in shown and C not in shown, record
    assert _written(path)[0]["decision"] == decision.behavior
