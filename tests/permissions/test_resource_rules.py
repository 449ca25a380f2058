"""Rules on ``ReadMcpResourceTool``'s ``uri``: the URI a rule writes is compared in the
canonical spelling reads are decided on, and ``validate`` warns about a URI pattern that can
never match (no declared resource has it, or a regex spells what reads never show)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.inproc import run_cli
from tests.serve.kb_config import KB_HEAD
from toolhost.compile.resource_uri import decoded, normalize, quote_value
from toolhost.config.model import Origin, RuleConfig
from toolhost.permissions.resource_rules import canonical_when, never_matches, regex_spelling
from toolhost.permissions.rules import compile_rule

DECLARED = [("directory", "Notes://kb"), ("template", "tickets://{id}"),
            ("file", "toolhost://kb/deploy")]


def _rule(when: dict[str, object], tool: str = "ReadMcpResourceTool") -> RuleConfig:
    return RuleConfig(effect="deny", tool=tool, when=when, origin=Origin(file="<t>"))


def _denies(when: dict[str, object], uri: str) -> bool:
    rule = compile_rule(_rule(when), cwd="/")
    return all(c.holds({"server": "kb", "uri": uri}, strict=False) for c in rule.conditions)


_ANY_CHAR = st.characters(min_codepoint=0x21, max_codepoint=0x7e,
                          blacklist_characters="%*?[]{}#/")


def _respell(text: str, choices: list[int]) -> str:
    """``text`` with some characters percent-encoded, in either hex case."""
    out = []
    for char, choice in zip(text, choices + [0] * len(text), strict=False):
        if choice == 1:
            out.append(f"%{ord(char):02X}")
        elif choice == 2:
            out.append(f"%{ord(char):02x}")
        else:
            out.append(char)
    return "".join(out)


@settings(max_examples=200, deadline=None)
# a name that is a dot segment ('.', '..') names another resource once normalized (kb/. is
# kb/ itself): no rule written for it is meant to match it
@given(name=st.text(_ANY_CHAR, min_size=1, max_size=12).filter(lambda n: n not in (".", "..")),
       spell=st.lists(st.integers(0, 2), max_size=12), read=st.lists(st.integers(0, 2),
                                                                     max_size=12),
       upper=st.booleans(), op=st.sampled_from(["glob", "equals", "plain", "one_of"]))
def test_a_rule_matches_whatever_spelling_rule_and_read_use(
        name: str, spell: list[int], read: list[int], upper: bool, op: str) -> None:
    scheme = "NOTES" if upper else "Notes"
    written = f"{scheme}://kb/{_respell(name, spell)}"
    spec: object = {"glob": written + "*"} if op == "glob" else (
        {"equals": written} if op == "equals" else written if op == "plain" else
        {"one_of": ["x://y", written]})
    # what the read guard asks about: the canonical spelling and its decoded form
    seen = normalize("notes://kb/" + quote_value(decoded(_respell(name, read)), reserved=True))
    assert _denies({"uri": spec}, seen) or _denies({"uri": spec}, decoded(seen))


def test_only_uri_and_only_the_read_tool_are_rewritten() -> None:
    when = {"uri": {"glob": "A://b/%7e*", "regex": "A://.*"}, "server": "KB"}
    assert canonical_when(when) == {"uri": {"glob": "a://b/~*", "regex": "A://.*"},
                                    "server": "KB"}
    assert canonical_when({"uri": "A://b/%2f%7e"}) == {"uri": {"one_of": ["a://b/%2F~",
                                                                          "a://b//~"]}}
    other = compile_rule(_rule({"uri": "A://b"}, tool="mcp__kb__echo"), cwd="/")
    assert not other.conditions[0].holds({"uri": "a://b"}, strict=False)


@pytest.mark.parametrize("spec, dead", [
    ({"glob": "Notes://kb/secret*"}, []), ({"glob": "notes://kb*"}, []),
    ({"glob": "*secret*"}, []), ({"glob": "tickets://a%2fb*"}, []),
    ({"equals": "toolhost://kb/deploy"}, []), ("TOOLHOST://kb/%64eploy", []),
    ({"glob": "note://kb/*"}, ["note://kb/*"]), ("toolhost://kb/deploy2", ["toolhost://kb/deploy2"]),
    ({"one_of": ["tickets://1", "ticket://1"]}, ["ticket://1"]), ("notes://kb", ["notes://kb"]),
    ({"regex": "nothing.*"}, []),
])
def test_never_matches(spec: object, dead: list[str]) -> None:
    assert never_matches(spec, DECLARED) == dead


@pytest.mark.parametrize("pattern, why", [
    ("Notes://kb/.*", "scheme"), ("^NOTES://.*", "scheme"), ("tickets://a%2fb.*", "hex"),
    ("notes://kb/%7Esecret.*", "escapes"), ("notes://kb/%2D.*", "escapes"),
    ("notes://kb/secret.*", None), ("tickets://a%2Fb.*", None), (".*%20.*", None),
])
def test_regex_spelling(pattern: str, why: str | None) -> None:
    found = regex_spelling({"regex": pattern})
    assert (found is None) if why is None else (why in (found or ""))


CONFIG = KB_HEAD + """\
    resources:
      notes: {directory: data, uri: "Notes://kb"}
      ticket: {uri: "tickets://{id}", command: [echo, "{{ id }}"]}
permissions:
  default: deny
  deny:
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "Notes://kb/secret*"}}
    - tool: ReadMcpResourceTool
      when: {uri: {glob: "note://kb/secret*"}}
    - tool: ReadMcpResourceTool
      when: {uri: {regex: "tickets://a%2fb.*"}}
"""


def test_validate_warns_about_uri_rules_that_cannot_match(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = run_cli(["validate", str(tmp_path / "c.yaml")])
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "2 warnings" in out, out
    assert ":17:" in out and "'note://kb/secret*' can match no resource" in out, out
    assert ":19:" in out and "lower-case hex" in out, out
    assert ":15:" not in out, out
