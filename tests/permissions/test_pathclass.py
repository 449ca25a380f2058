"""Bracket expressions in path rules read as gitignore reads them (round 25).

A class was handed to Python's ``re`` as written: ``[!_]`` became ``[^_]``, which matches
``/``, so ``allow: Read(./build[!_]*)`` allowed ``build/x`` (a file inside the directory);
``[[:alpha:]]`` (a POSIX class) was a set of ``[:alph`` followed by ``]``, so
``deny: Read(./keys/[[:alnum:]]*)`` denied no key (and Python warned of a nested set).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.errors import ConfigError
from toolhost.permissions import compile_policy


def decide(root: Path, effect: str, rule: str, path: str) -> str:
    other = "deny" if effect == "allow" else "allow"
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=effect, tool=rule)],  # type: ignore[arg-type]
        default=other), cwd=str(root))  # type: ignore[arg-type]
    return policy.decide("Read", {"file_path": path}).behavior


# (rule, path, whether the rule names the path); the first of a pair held the hole
NAMED = [
    ("Read(./build[!_]*)", "build/x", False), ("Read(./build[!_]*)", "build-x", True),
    ("Read(./a[!b]c)", "a/c", False), ("Read(./a[^b]c)", "a/c", False),
    ("Read(./x[/]y)", "x/y", False), ("Read(./x[--0]y)", "x/y", False),
    ("Read(./x[[:punct:]]y)", "x/y", False), ("Read(./x[[:punct:]]y)", "x!y", True),
    ("Read(./**/x[!.]*)", "a/x/b", False),
    ("Read(./keys/[[:alnum:]]*)", "keys/id9", True), ("Read(./keys/[[:alnum:]]*)", "keys/.k",
                                                      False),
    ("Read(./k[[:digit:][:upper:]])", "kQ", True), ("Read(./k[![:digit:]])", "k7", False),
    ("Read(./k[]a])", "k]", True), ("Read(./k[!]a])", "kb", True), ("Read(./k[!]a])", "k]", False),
    ("Read(./k[\\]])", "k]", True), ("Read(./k[a-])", "k-", True), ("Read(./k[[])", "k[", True),
    ("Read(./k[&~|])", "k~", True), ("Read(./**/k[[:lower:]]*)", "a/b/kz1", True),
]


@pytest.mark.parametrize(("rule", "path", "named"), NAMED)
@pytest.mark.parametrize("effect", ["allow", "deny"])
def test_a_bracket_names_one_character_that_is_never_a_slash(
        tmp_path: Path, effect: str, rule: str, path: str, named: bool) -> None:
    other = "deny" if effect == "allow" else "allow"
    assert decide(tmp_path, effect, rule, path) == (effect if named else other)


@pytest.mark.parametrize(("rule", "word"), [
    ("Read(./k[[:bogus:]])", "[:bogus:] is no character class"),
    ("Read(./k[z-a])", "the range z-a in a bracket goes backwards"),
])
def test_a_bracket_no_one_can_mean_is_a_located_load_error(rule: str, word: str) -> None:
    with pytest.raises(ConfigError) as caught:
        compile_policy(PermissionsConfig(rules=[RuleConfig(effect="deny", tool=rule)]))
    text = str(caught.value)
    assert word in text and rule in text and len(text.splitlines()) == 1


def test_a_path_glob_condition_reads_brackets_the_same_way(tmp_path: Path) -> None:
    keys = RuleConfig(effect="deny", tool="Read",
                      when={"file_path": {"path_glob": "./keys/[[:alnum:]]*"}})
    pub = RuleConfig(effect="allow", tool="Read",
                     when={"file_path": {"path_glob": "./pub[!_]*"}})
    policy = compile_policy(PermissionsConfig(rules=[keys, pub], default="ask"),
                            cwd=str(tmp_path))
    said = {f: policy.decide("Read", {"file_path": f}).behavior
            for f in ("keys/id9", "keys/.k", "pub-x", "pub/secret")}
    assert said == {"keys/id9": "deny", "keys/.k": "ask", "pub-x": "allow", "pub/secret": "ask"}


def test_a_run_of_unclosed_brackets_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # each '[' scanned to the end was quadratic: a 4,096-character rule of '[' held a load
    # for seconds (the rule-length limit); once one finds no ']', none after it does
    from toolhost.permissions import pathclass, paths

    calls: list[int] = []

    def counted(glob: str, start: int) -> tuple[str, int] | None:
        calls.append(start)
        return pathclass.bracket(glob, start)

    monkeypatch.setattr(paths, "bracket", counted)
    pattern = paths.compile_path_glob("x" + "[\\]" * 1_000, "/r")
    assert len(calls) == 1
    assert pattern.matches("/r/x" + "[]" * 1_000)  # each '[' literal, each '\]' a ']'
