"""Every server scenario of the newest conformance suite (``NEWEST``: 2026-07-28, tasks, the
stateless round trip, as well as the 2025 ones) against `toolhost serve`.

A scenario the suite stops reporting fails (a renamed or dropped one must be looked at, not
silently lost); a new one the list does not name fails too, until it is added here.
"""

from __future__ import annotations

import pytest

from .conftest import Results

SCENARIOS = [
    "caching", "completion-complete", "dns-rebinding-protection",
    "elicitation-sep1034-defaults", "elicitation-sep1330-enums",
    "http-custom-header-server-validation", "http-header-validation",
    "input-required-result-basic-elicitation", "input-required-result-basic-list-roots",
    "input-required-result-basic-sampling", "input-required-result-capability-check",
    "input-required-result-ignore-extra-params", "input-required-result-missing-input-response",
    "input-required-result-multi-round", "input-required-result-multiple-input-requests",
    "input-required-result-non-tool-request", "input-required-result-request-state",
    "input-required-result-result-type", "input-required-result-tampered-state",
    "input-required-result-unsupported-methods", "input-required-result-validate-input",
    "json-schema-2020-12", "logging-set-level", "ping", "prompts-get-embedded-resource",
    "prompts-get-simple", "prompts-get-with-args", "prompts-get-with-image", "prompts-list",
    "resources-list", "resources-read-binary", "resources-read-text", "resources-subscribe",
    "resources-templates-read", "resources-unsubscribe", "sep-2164-resource-not-found",
    "sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest",
    "server-initialize", "server-session-lifecycle", "server-sse-multiple-streams",
    "server-sse-polling", "server-stateless", "tasks-capability-negotiation",
    "tasks-dispatch-and-envelope", "tasks-lifecycle", "tasks-mrtr-composition",
    "tasks-mrtr-input", "tasks-request-headers", "tasks-request-state-removal",
    "tasks-required-task-error", "tasks-status-notifications", "tasks-wire-fields",
    "tools-call-audio", "tools-call-elicitation", "tools-call-embedded-resource",
    "tools-call-error", "tools-call-image", "tools-call-mixed-content", "tools-call-sampling",
    "tools-call-simple-text", "tools-call-with-logging", "tools-call-with-progress",
    "tools-list",
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(scenario: str, newest_results: Results) -> None:
    checks = newest_results.get(scenario)
    assert checks, f"the suite reported nothing for {scenario} (ran: {sorted(newest_results)})"
    failed = [f"{c['id']}: {c.get('errorMessage') or c.get('description')}"
              for c in checks if c["status"] == "FAILURE"]
    assert not failed, "\n".join(failed)


def test_no_scenario_goes_unnamed(newest_results: Results) -> None:
    assert sorted(set(newest_results) - set(SCENARIOS)) == []
