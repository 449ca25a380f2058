"""Run policy test cases against a config's compiled rules, and say how each went.

The runner decides each case exactly as a running host would (every layer, the same compiled
policy), without asking anyone and without running a tool. A case passes when the decision is
the one expected and, when given, the rule that decided it and the rewritten input match.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolhost.config.model import Origin
from toolhost.excerpt import cut
from toolhost.permissions.authoring.casefile import Case
from toolhost.permissions.conditions import json_equal
from toolhost.permissions.decision import Decision
from toolhost.permissions.policy import CompiledPolicy
from toolhost.permissions.resource_rules import read_forms

__all__ = ["Outcome", "run_case"]

_AT = re.compile(r"(?P<file>.+?):(?P<line>\d+)(?::\d+)?")


@dataclass(frozen=True)
class Outcome:
    """How one case went: ``failure`` is empty when it passed."""

    case: Case
    decision: Decision | None
    failure: str = ""

    @property
    def passed(self) -> bool:
        return not self.failure

    def decided_by(self) -> str:
        d = self.decision
        if d is None:
            return ""
        if d.rule is None:
            return "no rule matched: the default"
        if d.error:
            return (f"rule {cut(d.rule, 120)!r} ({_shown(d.origin)}), which could not be "
                    f"evaluated ({cut(d.error, 160)})")
        return f"rule {cut(d.rule, 120)!r} ({_shown(d.origin)})"

    def line(self) -> str:
        head = f"{self.case.origin}: {'ok' if self.passed else 'FAIL'}: {self.case.name}"
        if self.passed:
            assert self.decision is not None
            return f"{head}: {self.decision.behavior} by {self.decided_by()}"
        return f"{head}: {self.failure}"


def _shown(origin: Origin | None) -> str:
    """``origin`` with its file relative to the current directory when it lies below it."""
    if origin is None:
        return ""
    rel = os.path.relpath(origin.file) if os.path.isabs(origin.file) else origin.file
    return str(dataclasses.replace(origin, file=origin.file if rel.startswith("..") else rel))


def _rule_matches(expected: str, decision: Decision, case_dir: str) -> bool:
    if expected.strip().lower() == "default":
        return decision.rule is None
    if decision.rule is None:
        return False
    if expected.strip() == decision.rule:
        return True
    at = _AT.fullmatch(expected.strip())
    origin = decision.origin
    if at is None or origin is None or int(at["line"]) != origin.line:
        return False
    want = at["file"]
    if os.path.basename(want) == want:  # a bare file name: the rule's file by name
        return os.path.basename(origin.file) == want
    return os.path.abspath(os.path.join(case_dir, want)) == os.path.abspath(origin.file)


def run_case(policy: CompiledPolicy, case: Case) -> Outcome:
    """Decide ``case`` with ``policy`` and compare with what it expects."""
    from toolhost.permissions.callers.check import caller_from_options
    from toolhost.permissions.callers.identity import as_caller

    caller = caller_from_options(case.caller, None, (), ()) if case.caller is not None else None
    try:
        with as_caller(caller):
            for form in read_forms(case.tool, case.input):  # a read: as a running host does
                decision = policy.decide(case.tool, form)
                if decision.behavior != "allow":
                    break
    except RecursionError:
        return Outcome(case, None, "the input nests too deeply to decide")
    got = Outcome(case, decision)
    if decision.behavior != case.expect:
        return Outcome(case, decision, f"expected {case.expect}, got {decision.behavior} "
                       f"({got.decided_by()})")
    case_dir = os.path.dirname(os.path.abspath(case.origin.file))
    if case.rule is not None and not _rule_matches(case.rule, decision, case_dir):
        return Outcome(case, decision, f"{decision.behavior} as expected, but by "
                       f"{got.decided_by()}, not {cut(case.rule, 120)!r}")
    if case.updated_input is not None:
        updated: Mapping[str, Any] = (decision.updated_input if decision.updated_input
                                      is not None else case.input)
        if not json_equal(dict(updated), dict(case.updated_input)):
            shown = cut(json.dumps(updated, ensure_ascii=False, default=str), 200)
            return Outcome(case, decision, f"allowed, but the tool would receive {shown}, "
                           "not updated_input")
    return got
