"""Round 16: a ``glob``/``regex`` condition on a built-in tool's path reads the text as
written: an allow rule no longer lets ``..`` lead out of what it names (``glob: /work/src/*``
allowed ``/work/src/../../etc/passwd``), and ``validate`` warns of an allow rule's URL glob
with a wildcard in the host (``https://*.python.org/*`` allowed
``https://evil.com/.python.org/x``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(*rules: RuleConfig) -> Any:
    return compile_policy(PermissionsConfig(rules=rules, default="ask"), cwd="/work")


ALLOW = policy(RuleConfig(effect="allow", tool="Read",
                          when={"file_path": {"glob": "/work/src/*"}}),
               RuleConfig(effect="allow", tool="Grep", when={"path": {"regex": "/work/src/.*"}}))
DENY = policy(RuleConfig(effect="deny", tool="Read", when={"file_path": {"glob": "/etc/*"}}),
              RuleConfig(effect="allow", tool="Read"))


@pytest.mark.parametrize(("tool", "key", "value"), [
    ("Read", "file_path", "/work/src/../../etc/passwd"),
    ("Read", "file_path", "/work/src/x/../../../etc/shadow"),
    ("Read", "file_path", "/work/src/a\\..\\..\\x"),
    ("Read", "file_path", "/work/src/$HOME/.ssh/id_rsa"),
    ("Grep", "path", "/work/src/../../root"),
])
def test_an_allow_glob_does_not_let_a_climb_out(tool: str, key: str, value: str) -> None:
    assert ALLOW.decide(tool, {key: value, "pattern": "x"}).behavior == "ask"


@pytest.mark.parametrize("value", ["/work/src/a.py", "/work/src/sub/b.py",
                                   "/work/src/x/../a.py"])
def test_an_allow_glob_still_allows_what_it_names(value: str) -> None:
    assert ALLOW.decide("Read", {"file_path": value}).behavior == "allow"


@pytest.mark.parametrize("value", ["/work/../etc/passwd", "/tmp/x/../../etc/shadow"])
def test_a_deny_glob_meets_a_climb_into_what_it_names(value: str) -> None:
    assert DENY.decide("Read", {"file_path": value}).behavior == "deny"
    assert DENY.decide("Read", {"file_path": "/work/etc/x"}).behavior == "allow"


@pytest.mark.parametrize(("glob", "warned"), [
    ("https://*.python.org/*", True), ("https://docs.python.org*", True),
    ("https://docs.python.?rg/*", True), ("https://docs.python.org/3/*", False)])
def test_validate_warns_of_a_wildcard_host_in_an_allow_url_glob(
        tmp_path: Path, glob: str, warned: bool) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\npermissions:\n  allow:\n    - tool: WebFetch\n"
                      f"      when: {{url: {{glob: '{glob}'}}}}\n")
    done = run_cli(["validate", "--no-layers", str(config)])
    text = done.stdout + done.stderr
    assert ("wildcard in the host" in text) is warned
    if warned:
        assert f"{config}:5:" in text


def test_a_dot_dot_after_a_symlink_leads_to_the_target_s_parent(tmp_path: Path) -> None:
    # review18: `src/link/../x` is the parent of link's target, not `src/x`: the text folded
    # passed an allow glob of src while the file read was outside it
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "out" / "deep").mkdir(parents=True)
    (tmp_path / "out" / "secret").write_text("x")
    (tmp_path / "src" / "link").symlink_to(tmp_path / "out" / "deep")
    src, out = f"{tmp_path}/src", f"{tmp_path}/out"
    allow = policy(RuleConfig(effect="allow", tool="Read",
                              when={"file_path": {"glob": f"{src}/**"}}))
    deny = policy(RuleConfig(effect="deny", tool="Read", when={"file_path": {"glob": f"{out}/*"}}),
                  RuleConfig(effect="allow", tool="Read"))
    climb = f"{src}/link/../secret"
    assert Path(climb).read_text() == "x"  # (what the kernel opens: out/secret)
    assert allow.decide("Read", {"file_path": climb}).behavior == "ask"
    assert deny.decide("Read", {"file_path": climb}).behavior == "deny"
    honest = f"{src}/sub/../a.py"  # a real directory's `..`: as before
    assert allow.decide("Read", {"file_path": honest}).behavior == "allow"
    hostile = f"{src}/" + "a/../" * 5000 + "x"  # a walk per `..` is not taken: not judged
    assert allow.decide("Read", {"file_path": hostile}).behavior == "ask"
