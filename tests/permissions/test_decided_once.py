"""A rule's allow (without a rewrite) and deny are built once and shared by every call it
decides; the audit log writes each origin's text, redacted at each record."""

from __future__ import annotations

import json
from pathlib import Path

from toolhost.config.model import HostConfig, Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import PermissionGate, compile_policy
from toolhost.permissions.decision import Decision

A = Origin("a.yaml", 3, 5, "permissions.allow[0]")
B = Origin("b.yaml", 7)
RULES = (
    RuleConfig("allow", "mcp__db__load", origin=A, rewrite={"clamp": {"limit": {"max": 10}}}),
    RuleConfig("allow", "mcp__db__query", origin=A),
    RuleConfig("allow", "mcp__db__list", origin=B),  # the same text as the next, elsewhere
    RuleConfig("allow", "mcp__db__*", origin=Origin("c.yaml", 1)),
    RuleConfig("allow", "mcp__db__*", origin=Origin("d.yaml", 2), layer="user"),
    RuleConfig("deny", "mcp__db__drop", origin=B),
    RuleConfig("deny", "mcp__db__wipe", origin=A, message="Never."),
    RuleConfig("ask", "mcp__db__write", origin=B),
)


def test_a_rules_decision_is_built_once_and_is_the_one_it_always_made() -> None:
    policy = compile_policy(PermissionsConfig(rules=RULES, default="deny"))
    expected = {
        "mcp__db__query": Decision("allow", rule="mcp__db__query", origin=A),
        "mcp__db__list": Decision("allow", rule="mcp__db__list", origin=B),
        "mcp__db__other": Decision("allow", rule="mcp__db__*", origin=Origin("c.yaml", 1)),
        "mcp__db__drop": Decision(
            "deny", "Denied by permission rule 'mcp__db__drop' (b.yaml:7).",
            rule="mcp__db__drop", origin=B),
        "mcp__db__wipe": Decision("deny", "Never.", rule="mcp__db__wipe", origin=A),
    }
    for tool, decision in expected.items():
        first = policy.decide(tool, {"n": 1})
        assert first == decision
        assert policy.decide(tool, {"n": 2}) is first  # shared: nothing in it is the call's
    # the same text in two places: each rule keeps its own decision (its origin)
    assert policy.decide("mcp__db__x", {}).origin == Origin("c.yaml", 1)
    # a rewrite, an ask and the default are each the call's own
    one, two = (policy.decide("mcp__db__load", {"limit": n}) for n in (50, 5))
    assert (one.updated_input, two.updated_input) == ({"limit": 10}, {"limit": 5})
    assert policy.decide("mcp__db__write", {}) is not policy.decide("mcp__db__write", {})
    assert policy.decide("mcp__x__y", {}).answered_by == "default"


def test_the_audit_log_writes_each_records_own_origin_redacted_as_of_now(
        tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    secret_dir = "team-s3cr3t"  # an origin's file path may hold a secret, once it is known
    rules = (RuleConfig("allow", "mcp__db__query", origin=Origin(f"/{secret_dir}/a.yaml", 3)),
             RuleConfig("deny", "mcp__db__drop", origin=Origin("b.yaml", 7, 2)))
    config = HostConfig(version=1, servers={}, permissions=PermissionsConfig(
        rules=rules, audit_log=str(log)))
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        for tool in ("mcp__db__query", "mcp__db__query", "mcp__db__drop", "mcp__db__query"):
            assert gate.check_now(tool, {}) is not None
        gate.redact = HostConfig(version=1, servers={},
                                 secrets=frozenset({secret_dir})).redact  # a reload
        gate.check_now("mcp__db__query", {})
    finally:
        gate.close()
    origins = [json.loads(line)["origin"] for line in log.read_text().splitlines()]
    mine = f"/{secret_dir}/a.yaml:3"
    assert origins == [mine, mine, "b.yaml:7:2", mine, "/***/a.yaml:3"]
