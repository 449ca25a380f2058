"""The audit record built without calling the redaction when it hides nothing (a config
without secrets): the same line, field for field, as the record that calls it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import HostConfig, Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import PermissionGate
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.permissions.decision import Decision

ORIGIN = Origin("team.yaml", 9, 3, "permissions.allow[2]")
DECISIONS = (
    Decision("allow", rule="mcp__db__query", origin=ORIGIN),
    Decision("allow", updated_input={"limit": 10, "token": "t", "deep": {"api_key": "k"}},
             rule="mcp__db__load", origin=ORIGIN),
    Decision("deny", "Never.", rule="mcp__db__drop", origin=ORIGIN),
    Decision("deny", answered_by="default"),
    Decision("deny", "asking failed", answered_by="error", error="x"),
)
INPUTS: tuple[Any, ...] = (
    {},
    {"table": "n1", "limit": 10},
    {"password": "hunter2", "api_key": "", "token": None, "secret": 0, "Auth": False},
    {"n": 1.5, "big": 10 ** 30, "t": True, "none": None, "é": "ünï", "s": "\ud800"},
    {"nested": {"password": "p", "list": [1, {"token": "t"}, ("a", "b")]}},
    {"list": ["x", 1, None]},
    {"tuple": ("x", "y")},
)


def _lines(log: AuditLog, path: Path, caller: Caller | None) -> list[dict[str, Any]]:
    with as_caller(caller):
        for decision in DECISIONS:
            for tool_input in INPUTS:
                log.record("mcp__db__query", tool_input, decision, tool_use_id="toolu_1")
                log.record("mcp__db__query", tool_input, decision)
    log.close()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        del entry["time"]
        out.append(entry)
    return out


@pytest.mark.parametrize("caller", [None, Caller(subject="ci-bot", scopes=frozenset({"read"}), issuer="https://idp")])
def test_a_record_that_hides_nothing_is_the_record_that_calls_the_redaction(
        tmp_path: Path, caller: Caller | None) -> None:
    def never(text: str) -> str:
        raise AssertionError(f"redaction called on {text!r}")

    plain = _lines(AuditLog(str(tmp_path / "plain.jsonl"), never, plain=lambda: True),
                   tmp_path / "plain.jsonl", caller)
    called = _lines(AuditLog(str(tmp_path / "called.jsonl"), lambda text: text),
                    tmp_path / "called.jsonl", caller)
    assert plain == called
    assert len(plain) == 2 * len(DECISIONS) * len(INPUTS)
    # and secret-named arguments are masked all the same
    assert plain[4]["arguments"] == {"password": "***", "api_key": "", "token": None,
                                     "secret": "***", "Auth": "***"}


def test_an_audit_log_without_a_redaction_never_calls_one(tmp_path: Path) -> None:
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    assert log.plain is not None and log.plain()
    assert AuditLog(str(tmp_path / "audit.jsonl"), lambda text: text).plain is None
    log.redact = lambda text: text.replace("drop", "***")  # one set later is called
    assert not log.plain()
    log.record("mcp__db__drop", {}, Decision("deny", "no"))
    log.close()
    assert json.loads((tmp_path / "audit.jsonl").read_text())["tool"] == "mcp__db__***"


def test_a_gate_skips_the_redaction_only_while_its_config_has_no_secret(
        tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    rules = (RuleConfig("deny", "mcp__db__drop", origin=Origin("base.yaml", 2)),)
    config = HostConfig(version=1, servers={},
                        permissions=PermissionsConfig(rules=rules, audit_log=str(log)))
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        assert gate.audit is not None and gate.audit.plain is not None
        assert gate.audit.plain()
        assert gate.check_now("mcp__db__drop", {"dsn": "new-secret"}) is not None
        reloaded = HostConfig(version=1, servers={}, secrets=frozenset({"new-secret"}))
        gate.redact = reloaded.redact  # what a reload does when the secrets change
        assert not gate.audit.plain()
        assert gate.check_now("mcp__db__drop", {"dsn": "new-secret"}) is not None
        gate.redact = lambda text: text.replace("drop", "***")  # anything else: it may hide
        assert not gate.audit.plain()
        assert gate.check_now("mcp__db__drop", {"dsn": "x"}) is not None
    finally:
        gate.close()
    first, second, third = (json.loads(line) for line in log.read_text().splitlines())
    assert first["arguments"] == {"dsn": "new-secret"} and second["arguments"] == {"dsn": "***"}
    assert third["tool"] == "mcp__db__***" and third["rule"] == "mcp__db__***"


def test_a_call_the_stop_cut_short_is_recorded_with_every_field_redacted(
        tmp_path: Path) -> None:
    # toolhost run stopping (a signal) with the call running: an "event": "stopped" line
    path = tmp_path / "audit.jsonl"
    log = AuditLog(str(path), redact=lambda s: s.replace("s3cr3t", "***"))
    log.record_stopped("mcp__db__s3cr3t", {"sql": "s3cr3t", "password": "p"},
                       "cancelled: s3cr3t", tool_use_id="toolu_s3cr3t")
    log.close()
    [line] = path.read_text().splitlines()
    record = json.loads(line)
    assert "s3cr3t" not in line and "decision" not in record
    assert {k: v for k, v in record.items() if k != "time"} == {
        "tool": "mcp__db__***", "arguments": {"sql": "***", "password": "***"},
        "event": "stopped", "message": "cancelled: ***", "tool_use_id": "toolu_***"}


@pytest.mark.parametrize("remembered", [False, True], ids=["own only", "both remembered"])
def test_a_gates_audit_hides_its_configs_and_the_processs_secrets_in_one_pass(
        tmp_path: Path, remembered: bool) -> None:
    from toolhost.redaction import remember

    own, process = "cfg-Secret-7Qx2Lw9Pz4", "proc-Secret-3Mv8Kd1Rt6"
    remember([process, *([own] if remembered else [])])
    log = tmp_path / "audit.jsonl"
    config = HostConfig(version=1, servers={}, secrets=frozenset({own}),
                        permissions=PermissionsConfig(audit_log=str(log)))
    gate = PermissionGate.from_config(config, interactive=False)
    try:
        assert gate.audit is not None
        gate.audit.record(f"t_{own}", {"a": own, "b": process.encode().hex()},
                          Decision("deny", f"no {process}"))
    finally:
        gate.close()
    text = log.read_text()
    assert own not in text and process not in text and process.encode().hex() not in text
    assert json.loads(text)["tool"] == "t_***"
