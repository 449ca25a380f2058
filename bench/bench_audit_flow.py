"""What the audit log costs per record with a secret known: CPU time, and the parts of it.

Prints the CPU microseconds per record (an allow) of a gate's audit log
(``PermissionGate.from_config`` with a config that has a secret, remembered), of its
redaction alone (the closure the gate gives the log) and of the record's flow
(``AuditFlow.shown``), for a short call and for one with a 530-character argument; and the
ratio of each part to the whole. CPU time (``time.process_time``), not wall time: the wall
clock of a shared machine swings 2-5 times.
Run: .venv/bin/python bench/bench_audit_flow.py [RECORDS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from toolhost.config.model import HostConfig, PermissionsConfig
from toolhost.permissions.audit_flow import AuditFlow
from toolhost.permissions.decision import Decision
from toolhost.permissions.gate import PermissionGate
from toolhost.redaction import remember

SECRET = "sk-live-9f8e7d6c5b4a3921"
ALLOW = Decision("allow", rule="mcp__t__echo")
CALLS: dict[str, dict[str, Any]] = {
    "short": {"path": "src/main.py", "limit": 20},
    "530 chars": {"text": ("lorem ipsum dolor sit amet, consectetur 12 " * 13)[:530]},
}


def cpu_us(fn: Callable[[], object], n: int) -> float:
    """The least CPU microseconds per call of 5 runs of ``n`` (the others ran beside it)."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - start) / n)
    return best * 1e6


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    remember([SECRET])
    with tempfile.TemporaryDirectory() as tmp:
        config = HostConfig(version=1, servers={}, secrets=frozenset({SECRET}),
                            permissions=PermissionsConfig(audit_log=str(Path(tmp, "a.jsonl"))))
        gate = PermissionGate.from_config(config, interactive=False)
        audit = gate.audit
        assert audit is not None
        try:
            for name, arguments in CALLS.items():
                text = str(arguments)
                whole = cpu_us(partial(audit.record, "mcp__t__echo", arguments, ALLOW), n)
                redact = cpu_us(partial(audit.redact, text), n)
                shown = cpu_us(partial(AuditFlow().shown, ["mcp__t__echo", arguments]), n)
                print(f"{name:>10}: record {whole:8.1f} us; redaction of its text {redact:8.1f}"
                      f" us ({redact / whole:.2f}); flow {shown:8.1f} us ({shown / whole:.2f})")
        finally:
            gate.close()


if __name__ == "__main__":
    main()
