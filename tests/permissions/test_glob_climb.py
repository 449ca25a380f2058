"""A Glob pattern with a ``..`` component anywhere (after a wildcard, in braces, escaped) may
leave its ``path``: an allow rule cannot prove it stays inside, a deny or ask rule matches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

CLIMBING = ["x/../../*", "*/../../*", "{x,../..}/*", "{../x,y}/*", "**/../*", "*/..",
            "a/{b,..}/c", ".\\./*", "[.][.]/*", "src/*/../../../etc/*", "{a,{b,..}}/*"]
STAYING = ["*.py", "**/*.py", "..?/*", "a..b/*", "{x,y}/*", "...", "x/.../*"]


def _policy(tmp_path: Path, default: str, *rules: tuple[str, str]) -> Any:
    (tmp_path / "src").mkdir(exist_ok=True)
    return compile_policy(PermissionsConfig(default=default, rules=tuple(  # type: ignore[arg-type]
        RuleConfig(e, t) for e, t in rules)), cwd=str(tmp_path))  # type: ignore[arg-type]


@pytest.mark.parametrize("pattern", CLIMBING)
def test_a_climbing_glob_is_never_allowed_by_a_path_rule(tmp_path: Path, pattern: str) -> None:
    policy = _policy(tmp_path, "deny", ("allow", "Read(./src/**)"))
    assert policy.decide("Glob", {"pattern": pattern, "path": "src"}).behavior == "deny"
    held = _policy(tmp_path, "allow", ("deny", "Read(./other/**)"))
    assert held.decide("Glob", {"pattern": pattern, "path": "src"}).behavior == "deny"


@pytest.mark.parametrize("pattern", STAYING)
def test_a_glob_that_stays_inside_is_allowed(tmp_path: Path, pattern: str) -> None:
    policy = _policy(tmp_path, "deny", ("allow", "Read(./src/**)"))
    assert policy.decide("Glob", {"pattern": pattern, "path": "src"}).behavior == "allow"
