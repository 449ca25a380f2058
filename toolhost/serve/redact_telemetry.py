"""One setup, shared by ``serve``, ``run`` and ``call``: no secret leaves in telemetry.

Under ``opentelemetry-instrument`` (or in a program that embeds toolhost and configures
OpenTelemetry itself, before or after the command starts) the process's logs and spans may
be exported. ``redact_telemetry`` makes the collector's own credentials secrets, gives every
log handler but toolhost's stderr one redacted records (``log_handlers``), and makes the
current SDK tracer provider, and every one made later, redact its spans
(``span_redaction``), and its logger providers, now and later, redact the records
written to the logs API directly (``log_redaction``). The SDK's own warnings (an exporter
retrying a collector that is down) are rate-limited like the MCP client library's
(``toolhost.gateway.liblogs``).
"""

from __future__ import annotations

import sys

__all__ = ["redact_telemetry"]


def redact_telemetry() -> None:
    """Install every redaction hook (each once per process; cheap when OpenTelemetry is off)."""
    from toolhost.redaction import remember_own
    from toolhost.serve.log_handlers import hide_secrets_in_handlers
    from toolhost.serve.log_redaction import redact_future_log_providers, redact_logs
    from toolhost.serve.span_redaction import redact_future_providers, redact_spans
    from toolhost.serve.telemetry import collector_credentials

    remember_own(collector_credentials())  # the OTLP collector's: ours, like a --token-env one
    hide_secrets_in_handlers()  # OpenTelemetry's log export, a library's file handler
    redact_spans()  # the provider set up at start (spans of other instrumentations)
    redact_future_providers()  # and any provider made later
    redact_logs()  # records written to the OpenTelemetry logs API itself, not via logging
    redact_future_log_providers()
    if "opentelemetry.sdk" in sys.modules:  # an exporter's retries: a few lines a minute
        from toolhost.gateway.liblogs import quiet_telemetry_logs

        quiet_telemetry_logs()
