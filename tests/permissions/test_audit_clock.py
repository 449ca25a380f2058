"""The audit record's ``time``: the same text as the formatted clock it replaced (issue #18:
the millisecond and zone are looked up, not formatted, per record)."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from toolhost.permissions import audit as audit_module
from toolhost.permissions.audit import AuditLog


def formatted(now: float) -> str:
    second = int(now)
    return (f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(second))}"
            f".{int((now - second) * 1000):03d}+00:00")


@pytest.mark.parametrize("now", [0.0, 0.0005, 1.001, 59.999, 1_700_000_000.0,
                                 1_700_000_000.9995, 1_700_000_000.999999999,
                                 1_799_999_999.0123, 4_102_444_800.5, -0.5, -1.25])
def test_the_time_is_the_formatted_clock(now: float, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    monkeypatch.setattr(audit_module.time, "time", lambda: now)
    assert log._now() == formatted(now)
    assert log._now() == formatted(now)  # the second's text kept from the first record


def test_every_millisecond(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    for ms in range(1000):
        now = 1_700_000_123 + ms / 1000 + 0.0004
        monkeypatch.setattr(audit_module.time, "time", lambda now=now: now)
        text = log._now()
        assert text == formatted(now)
        assert text == datetime.fromtimestamp(now, timezone.utc).isoformat(
            timespec="milliseconds")
