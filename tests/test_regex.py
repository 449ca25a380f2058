"""toolhost.regex: RE2 behind one small interface; every pattern matches in linear time."""

from __future__ import annotations

import pytest

from toolhost import regex


def test_a_catastrophic_pattern_for_backtracking_answers_at_once() -> None:
    rx = regex.compile("^(a+)+$")
    assert not rx.search("a" * 40 + "!")
    assert not rx.search("a" * 100_000 + "!")
    assert rx.fullmatch("a" * 100_000)


@pytest.mark.parametrize(("pattern", "hint"), [
    (r"^(a)\1$", "backreferences are not supported"),
    ("(?=a)b", "lookaround is not supported"),
    ("(?<!a)b", "lookaround is not supported"),
    ("([", "missing ]"),
    ("a{1000}{1000}", "too large"),
    ("x" * 10_001, "regular expression too long"),
])
def test_a_pattern_re2_cannot_honour_is_refused_with_a_hint(pattern: str, hint: str) -> None:
    with pytest.raises(regex.RegexError) as info:
        regex.compile(pattern)
    assert hint in str(info.value)
    assert "\n" not in str(info.value)
    assert regex.problem(pattern) == str(info.value)


def test_search_is_unanchored_and_fullmatch_is_whole() -> None:
    rx = regex.compile("b+")
    assert rx.search("abba") and not rx.fullmatch("abba") and rx.fullmatch("bb")


def test_a_lone_surrogate_is_matched_not_raised() -> None:
    assert regex.compile("a.b").fullmatch("a\ud800b")


def test_jsonschema_pattern_and_format_regex_go_through_re2() -> None:
    cls = regex.validator_class()
    v = cls({"type": "object", "properties": {"p": {"type": "string", "pattern": "^(a+)+$"},
                                              "r": {"type": "string", "format": "regex"}},
             "patternProperties": {"^x-(a+)+$": {"type": "integer"}},
             "additionalProperties": False}, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(e.message for e in v.iter_errors(
        {"p": "a" * 40 + "!", "r": "(?=x)", "x-aaaa": "s", "zz": 1}))
    assert len(errors) == 4, errors
    assert any("does not match '^(a+)+$'" in e for e in errors)
    assert any("is not a 'regex'" in e for e in errors)
    assert any("'s' is not of type 'integer'" in e for e in errors)
    assert any("'zz' was unexpected" in e for e in errors)
    assert list(v.iter_errors({"p": "aaa", "r": "a+", "x-aa": 1})) == []


@pytest.mark.parametrize("pattern", [
    "^[a-z]+$", "^[A-Za-z0-9_-]{1,64}$", r"\d{4}-\d{2}-\d{2}", r"^\w+@\w+\.com$", "", "^$",
    ".{0,100}", "[^/]+?", r"^v[0-9]+\.[0-9]+$", "a{3}", "ab{2,}c"])
def test_a_plain_pattern_is_proven_without_re2(pattern: str) -> None:
    assert regex._surely_compiles(pattern)
    assert regex.problem(pattern) == "" and regex.compile.__wrapped__(pattern)


def test_what_the_quick_proof_accepts_re2_compiles() -> None:
    """Random patterns of the proof's alphabet and beyond: whatever it accepts, RE2 must
    compile (it may leave out, never let in)."""
    import random

    rng = random.Random(18)
    tokens = ["a", "z", "Z", "0", "9", "_", "-", " ", ".", "^", "$", "[", "]", "[^", "]-",
              "a-z", "z-a", "9-0", "*", "+", "?", "??", "{", "}", "{0}", "{2,1}", "{1,100}",
              "{101}", "{3,}", ",", "(", ")", "|", "\\", "\\d", "\\w", "\\.", "\\-", "\\_",
              "\\1", "[[:alpha:]]", "é", "/", "@", "%"]
    accepted = 0
    for _ in range(20_000):
        pattern = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 8)))
        if regex._surely_compiles(pattern):
            accepted += 1
            regex.compile.__wrapped__(pattern)  # raises RegexError if the proof was wrong
    assert accepted > 500  # the test reaches the proof's whole grammar, not only ""


def test_keys_times_patterns_past_the_limit_is_refused_not_checked() -> None:
    # each key is matched with each pattern: 5,000 patterns and 20,000 keys took minutes
    patterns = {f"^p{i}_": {"type": "string"} for i in range(1000)}
    schema = {"type": "object", "patternProperties": patterns, "additionalProperties": False}
    validator = regex.validator_class()(schema)
    assert validator.is_valid({"p7_x": "a", "p999_": "b"})
    assert not validator.is_valid({"p7_x": 1})
    errors = [e.message for e in validator.iter_errors({f"p1_{i}": "a" for i in range(1001)})]
    assert len(errors) == 1 and "1,001 keys, with 1,000 patternProperties" in errors[0], errors


def test_regex_does_not_import_compile_formats() -> None:
    """The format checkers live in the low-level ``toolhost.jsonformats``: ``toolhost.regex``
    and ``toolhost.compile.formats`` each import them, not each other (no import circle)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(regex.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "toolhost.compile.formats" not in imported
    assert "toolhost.jsonformats" in imported
