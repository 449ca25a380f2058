"""Export what OpenTelemetry still holds before ``serve`` exits, within a bound.

The SDK's batch processors export every few seconds and flush at interpreter exit
(``atexit``). ``serve --transport http`` ends by re-raising the signal that stopped it, as
uvicorn does, so no ``atexit`` handler runs and the spans of the last calls (those of the
shutdown's own drain among them) were never exported. ``flush_telemetry`` flushes the
current tracer, meter and logger providers once the server has stopped.

The SDK's flush blocks on the exporter and ignores its own timeout, and a collector may be
slow or gone: the flush runs on a daemon thread that ``serve`` waits for at most
``FLUSH_SECONDS``. Nothing is imported: a process without OpenTelemetry pays nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

__all__ = ["FLUSH_SECONDS", "flush_telemetry"]

FLUSH_SECONDS = 2.0

# module, the function that returns its current provider
_PROVIDERS = (("opentelemetry.trace", "get_tracer_provider"),
              ("opentelemetry.metrics", "get_meter_provider"),
              ("opentelemetry._logs", "get_logger_provider"))


def _current_providers() -> list[Any]:
    found: list[Any] = []
    for module_name, getter in _PROVIDERS:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        try:
            provider = getattr(module, getter)()
        except Exception:  # an SDK of another make: nothing to flush, never a failed exit
            continue
        if callable(getattr(provider, "force_flush", None)):
            found.append(provider)
    return found


def flush_telemetry(seconds: float = FLUSH_SECONDS) -> bool:
    """Flush every OpenTelemetry provider the process set up; wait at most ``seconds``.

    Returns False when the flush did not finish in time (it goes on, on a daemon thread, and
    is cut off by the exit), True otherwise, and at once when nothing is set up."""
    providers = _current_providers()
    if not providers:
        return True
    deadline = time.monotonic() + seconds

    def flush() -> None:
        for provider in providers:
            left_ms = int(max(0.0, deadline - time.monotonic()) * 1000)
            try:
                provider.force_flush(timeout_millis=left_ms)
            except Exception:  # an exporter's failure is the SDK's to log, never ours to raise
                continue

    worker = threading.Thread(target=flush, name="toolhost-telemetry-flush", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    return not worker.is_alive()
