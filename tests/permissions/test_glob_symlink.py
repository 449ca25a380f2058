"""Round 17: a ``when`` ``glob``/``regex`` on a path argument tests the text as written, so
a symlink below it led out unseen (``glob: /work/src/**`` allowed ``/work/src/link/passwd``
with ``link`` -> ``/etc``). A value whose symlinks lead where the test answers otherwise
cannot be judged: an allow rule does not match it, a deny or ask rule does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("s\n")
    (tmp_path / "src" / "link").symlink_to(tmp_path / "outside")
    (tmp_path / "src" / "inner").symlink_to(tmp_path / "src")
    return tmp_path


def decide(root: Path, effect: str, op: str, pattern: str, path: str) -> str:
    rule = RuleConfig(effect=effect, tool="Read",  # type: ignore[arg-type]
                      when={"file_path": {op: pattern}})
    policy = compile_policy(PermissionsConfig(rules=[rule], default="ask"), cwd=str(root))
    tool_input: dict[str, Any] = {"file_path": path}
    return policy.decide("Read", tool_input).behavior


def test_an_allow_glob_does_not_follow_a_symlink_out(root: Path) -> None:
    assert decide(root, "allow", "glob", f"{root}/src/**", f"{root}/src/link/secret") == "ask"
    assert decide(root, "allow", "regex", f"^{root}/src/.*", f"{root}/src/link/secret") == "ask"
    assert decide(root, "allow", "glob", "src/**", "src/link/secret") == "ask"


def test_a_deny_glob_meets_a_path_that_leads_into_it(root: Path) -> None:
    assert decide(root, "deny", "glob", f"{root}/outside/**",
                  f"{root}/src/link/secret") == "deny"


def test_paths_without_a_symlink_or_staying_inside_are_decided_as_before(root: Path) -> None:
    assert decide(root, "allow", "glob", f"{root}/src/**", f"{root}/src/a.py") == "allow"
    assert decide(root, "allow", "glob", f"{root}/src/**", f"{root}/src/new.py") == "allow"
    assert decide(root, "allow", "glob", f"{root}/src/**", f"{root}/src/inner/a.py") == "allow"
    assert decide(root, "allow", "glob", "src/**", "src/a.py") == "allow"
    assert decide(root, "deny", "glob", f"{root}/outside/**", f"{root}/src/a.py") == "ask"
