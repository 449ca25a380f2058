"""TerminalAsker: "a" remembers the tool, and for Bash exactly the input the person was shown
(the command and every field beside it); the question shows every field and nothing in it can
act on the terminal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.permissions import TerminalAsker
from toolhost.permissions.decision import Decision
from toolhost.visible import visible

ASKED = Decision("ask", "", rule=None)


class Answers:
    """A ``LineReader`` that answers from a list and keeps every prompt shown."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    async def readline(self, prompt: str, *, question: bool = False,
                       keep_typeahead: bool = False) -> str | None:
        self.prompts.append(prompt)
        return self.answers.pop(0) if self.answers else None


def ask(asker: TerminalAsker, tool: str, tool_input: Mapping[str, Any]) -> Decision:
    return anyio.run(asker.ask, tool, tool_input, ASKED)


BASH = {"command": "make test"}
WIDER = [
    (BASH, {**BASH, "dangerouslyDisableSandbox": True}),
    (BASH, {**BASH, "run_in_background": True}),
    (BASH, {**BASH, "timeout": 600000}),
    ({**BASH, "dangerouslyDisableSandbox": False}, {**BASH, "dangerouslyDisableSandbox": True}),
    (BASH, {"command": "make test "}),
    (BASH, {"command": "make test; rm -rf ~"}),
    (BASH, {"command": ["make test"]}),
]


@pytest.mark.parametrize(("approved", "other"), WIDER)
def test_a_for_bash_never_covers_another_input(approved: dict[str, Any],
                                               other: dict[str, Any]) -> None:
    reader = Answers("a", "n", "")
    asker = TerminalAsker(reader=reader)
    assert ask(asker, "Bash", approved).behavior == "allow"
    assert ask(asker, "Bash", dict(reversed(list(approved.items())))).answered_by == \
        "person (this session)"  # the same input: remembered, key order aside
    assert len(reader.prompts) == 1
    assert ask(asker, "Bash", other).behavior == "deny"  # asked again, and denied
    assert "permission needed" in reader.prompts[1]


@pytest.mark.parametrize("tool", ["mcp__db__write", "Read", "Edit"])
def test_a_for_another_tool_covers_its_calls_for_the_session(tool: str) -> None:
    reader = Answers("a")
    asker = TerminalAsker(reader=reader)
    assert ask(asker, tool, {"file_path": "/a", "sql": "x"}).behavior == "allow"
    assert ask(asker, tool, {"file_path": "/b", "n": 2}).answered_by == "person (this session)"
    assert len(reader.prompts) == 1


def test_a_is_per_tool() -> None:
    asker = TerminalAsker(reader=Answers("a", ""))
    ask(asker, "mcp__a__t", {"x": 1})
    assert ask(asker, "mcp__b__t", {"x": 1}).behavior == "deny"


def test_the_question_shows_every_field_even_after_a_long_command() -> None:
    reader = Answers("n", "")
    asker = TerminalAsker(reader=reader)
    ask(asker, "Bash", {"command": "x" * 9000, "description": "d" * 5000,
                        "dangerouslyDisableSandbox": True, "run_in_background": True})
    question = reader.prompts[0]
    assert '"dangerouslyDisableSandbox": true' in question
    assert '"run_in_background": true' in question
    assert "more characters" in question and len(question) < 6000


def test_the_header_shows_the_exact_tool_name() -> None:
    reader = Answers("")
    name = "mcp__zz__t\x1b]52;c;ZXZpbA==\x07\r\x1b[2Kmcp__s__echo"
    ask(TerminalAsker(reader=reader), name, {"x": "abc\u202etxt.exe"})
    question = reader.prompts[0]
    assert f"permission needed for {visible(name, name=True)} (" in question
    assert "\x1b" not in question and "\r" not in question and "\u202e" not in question
    assert "abc\\u202etxt.exe" in question


@settings(max_examples=100, deadline=None)
@given(name=st.text(), key=st.text(), value=st.text(), message=st.text())
def test_no_question_can_act_on_the_terminal(name: str, key: str, value: str,
                                             message: str) -> None:
    import unicodedata
    reader = Answers("")
    anyio.run(TerminalAsker(reader=reader).ask, name, {key: value, "v": [value]},
              Decision("ask", message, rule=value))
    for char in "".join(reader.prompts):
        assert char in "\n\t" or unicodedata.category(char) not in (
            "Cc", "Cf", "Cs", "Zl", "Zp") or char == "\u200d", repr(char)


@pytest.mark.parametrize("answer", ["", "   ", "x", "no way", "N", None])
def test_only_n_asks_for_a_reason(answer: str | None) -> None:
    reader = Answers(answer, "the reason") if answer is not None else Answers()
    decision = ask(TerminalAsker(reader=reader), "mcp__db__write", {})
    assert decision.behavior == "deny"
    asked_reason = answer is not None and answer.strip().lower().startswith("n")
    assert len(reader.prompts) == (2 if asked_reason else 1)
    assert decision.message.endswith(": the reason" if asked_reason else ".")


@pytest.mark.parametrize("name", ["mcp__s__xs3cr3t-value", "mcp__s__x\\u0073\\u0033cr3t-value",
                                  "mcp__s3cr3t%2Dvalue__x"])
def test_the_question_never_shows_a_secret_in_the_tool_name_or_the_rule(name: str) -> None:
    from toolhost.redaction import Redactor

    reader = Answers("n", "")
    asker = TerminalAsker(reader=reader, redact=Redactor(frozenset({"s3cr3t-value"})))
    asked = Decision("ask", f"{name} needs a person", rule=name)
    anyio.run(asker.ask, name, {"v": 1}, asked)
    assert "s3cr3t" not in "".join(reader.prompts) and "***" in reader.prompts[0]
