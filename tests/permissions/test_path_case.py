"""Round 12: on a file system that ignores case and Unicode normalisation (macOS APFS,
Windows NTFS) ``.ENV`` is the file ``.env``: a deny or ask path rule meets a path in any case
and in either composed form, while an allow still proves only the spelling it names (fail
closed both ways)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

CWD = "/tmp/toolhost-case-proj"


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default), cwd=CWD)


DENY = policy([("deny", "Read(.env)"), ("deny", "Read(**/secrets/**)"),
               ("deny", "Read(~/.ssh/**)"), ("deny", "Edit(//etc/**)"),
               ("deny", "Read(./caf\u00e9/**)")], "allow")
ASK = policy([("ask", "Read(.env)"), ("ask", "Edit(//etc/**)")], "allow")
ALLOW = policy([("allow", "Read(./src/**)"), ("allow", "Read(.env.example)")], "ask")

CAUGHT = [
    ("Read", {"file_path": ".ENV"}), ("Read", {"file_path": "a/.Env"}),
    ("Read", {"file_path": "x/SECRETS/k"}), ("Read", {"file_path": "x/Secrets/deep/k"}),
    ("Read", {"file_path": "~/.SSH/id_rsa"}), ("Edit", {"file_path": "/ETC/hosts"}),
    ("Write", {"file_path": "/Etc/cron.d/x"}), ("Read", {"file_path": "CAF\u00c9/x"}),
    ("Read", {"file_path": "cafe\u0301/x"}),  # decomposed (NFD), as macOS may spell it
    ("Read", {"file_path": os.path.join(CWD.upper(), ".env")}),
    ("Grep", {"pattern": "k", "path": "x/SECRETS"}), ("LS", {"path": "x/Secrets"}),
]


@pytest.mark.parametrize("tool,tool_input", CAUGHT)
def test_deny_meets_any_case(tool: str, tool_input: dict[str, Any]) -> None:
    assert DENY.decide(tool, tool_input).behavior == "deny"


@pytest.mark.parametrize("path", [".ENV", "sub/.eNv"])
def test_ask_meets_any_case(path: str) -> None:
    assert ASK.decide("Read", {"file_path": path}).behavior == "ask"
    assert ASK.decide("Edit", {"file_path": "/ETC/x"}).behavior == "ask"


@pytest.mark.parametrize("path,expected", [
    ("src/a.py", "allow"), ("SRC/a.py", "ask"), ("Src/a.py", "ask"),
    (".env.example", "allow"), (".ENV.EXAMPLE", "ask"),
])
def test_allow_proves_only_its_spelling(path: str, expected: str) -> None:
    assert ALLOW.decide("Read", {"file_path": path}).behavior == expected


def test_other_names_stay_apart() -> None:
    for path in (".envrc", "x/secretsx/k", "~/.sshx/k", "/etcx/hosts"):
        tool = "Edit" if path.startswith("/etc") else "Read"
        assert DENY.decide(tool, {"file_path": path}).behavior == "allow", path


def when_policy(effect: str, when: dict[str, Any], default: str) -> Any:
    return compile_policy(PermissionsConfig(rules=[RuleConfig(
        effect=effect, tool="Read", when=when)], default=default), cwd=CWD)


@pytest.mark.parametrize("when,path", [
    ({"file_path": {"path_glob": "**/.env"}}, ".ENV"),
    ({"file_path": {"path_glob": "**/.env"}}, "a/.Env"),
    ({"file_path": {"path_under": "/etc"}}, "/ETC/passwd"),
    ({"file_path": {"path_under": "./src"}}, "SRC/a"),
])
def test_a_when_path_test_meets_any_case_as_deny_or_ask_never_as_allow(
        when: dict[str, Any], path: str) -> None:
    for effect, default, expected in (("deny", "allow", "deny"), ("ask", "allow", "ask"),
                                      ("allow", "ask", "ask")):
        decision = when_policy(effect, when, default).decide("Read", {"file_path": path})
        assert decision.behavior == expected, (effect, when, path)


def test_a_when_path_test_still_tells_other_paths_apart() -> None:
    deny = when_policy("deny", {"file_path": {"path_under": "/etc"}}, "allow")
    assert deny.decide("Read", {"file_path": "/etcx/passwd"}).behavior == "allow"
    allow = when_policy("allow", {"file_path": {"path_under": "./src"}}, "ask")
    assert allow.decide("Read", {"file_path": "src/a.py"}).behavior == "allow"
