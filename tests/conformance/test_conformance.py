"""Every server scenario of the official MCP conformance suite against `toolhost serve`.

A scenario toolhost cannot pass yet is listed in EXPECTED_FAILURES with the reason; the mark
is strict, so a scenario that starts passing fails the run until it is taken off the list.
"""

from __future__ import annotations

from typing import Any

import pytest

SCENARIOS = [
    "server-initialize", "logging-set-level", "ping", "completion-complete", "tools-list",
    "tools-call-simple-text", "tools-call-image", "tools-call-audio",
    "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
    "tools-call-error", "tools-call-with-progress", "tools-call-sampling",
    "tools-call-elicitation", "json-schema-2020-12", "elicitation-sep1034-defaults",
    "server-sse-polling", "server-sse-multiple-streams", "elicitation-sep1330-enums",
    "resources-list", "resources-read-text", "resources-read-binary",
    "resources-templates-read", "resources-subscribe", "resources-unsubscribe",
    "prompts-list", "prompts-get-simple", "prompts-get-with-args",
    "prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
]

EXPECTED_FAILURES: dict[str, str] = {}  # every scenario passes


@pytest.mark.parametrize("scenario", [
    pytest.param(name, marks=pytest.mark.xfail(reason=EXPECTED_FAILURES[name], strict=True))
    if name in EXPECTED_FAILURES else name for name in SCENARIOS])
def test_scenario(scenario: str, suite_results: dict[str, list[dict[str, Any]]]) -> None:
    checks = suite_results.get(scenario)
    assert checks, f"the suite reported nothing for {scenario} (ran: {sorted(suite_results)})"
    failed = [f"{c['id']}: {c.get('errorMessage') or c.get('description')}"
              for c in checks if c["status"] == "FAILURE"]
    assert not failed, "\n".join(failed)
