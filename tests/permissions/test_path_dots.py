"""Round 7: a ``.`` segment inside a path rule (``Read(//etc/./shadow)``, ``Edit(//tmp/./x/**)``)
is dropped, as it is in the paths matched, so a deny written that way still denies; a NUL in a
path rule (no path holds one) is a located load error, not a rule that silently names nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.errors import ConfigError
from toolhost.permissions import compile_policy


def decide(rule: str, tool: str, inp: dict[str, Any], effect: str = "deny") -> str:
    policy = compile_policy(PermissionsConfig(
        rules=(RuleConfig(effect=effect, tool=rule),), default="ask"))  # type: ignore[arg-type]
    return str(policy.decide(tool, inp).behavior)


@pytest.mark.parametrize(("spec", "path"), [
    ("//etc/./shadow", "/etc/shadow"),
    ("//etc/./././shadow", "/etc/shadow"),
    ("//./etc/shadow", "/etc/shadow"),
    ("//etc/./", "/etc/shadow"),
    ("//etc/.", "/etc/shadow"),
    ("//tmp/./x/**", "/tmp/x/a/b"),
    ("//tmp/.//x/./**", "/tmp/x/a"),
])
@pytest.mark.parametrize("tool", ["Read", "Edit", "Write"])
def test_dot_segment_in_a_deny_rule_still_denies(spec: str, path: str, tool: str) -> None:
    assert decide(f"{tool}({spec})", tool, {"file_path": path}) == "deny"


def test_dot_segment_in_an_allow_rule_allows_what_it_names() -> None:
    assert decide("Read(//tmp/./x/**)", "Read", {"file_path": "/tmp/x/a"}, "allow") == "allow"
    assert decide("Read(//tmp/./x/**)", "Read", {"file_path": "/tmp/y/a"}, "allow") == "ask"


def test_dot_segment_relative_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    real = str(tmp_path.resolve())
    assert decide("Edit(./x/./y)", "Edit", {"file_path": f"{real}/x/y"}) == "deny"
    assert decide("Edit(x/./y/**)", "Edit", {"file_path": f"{real}/x/y/z"}) == "deny"


@pytest.mark.parametrize("spec", ["//etc/pass\0wd", "~/\0", "x\0/**"])
def test_nul_in_a_path_rule_is_a_load_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="NUL"):
        decide(f"Read({spec})", "Read", {"file_path": "/etc/passwd"})
