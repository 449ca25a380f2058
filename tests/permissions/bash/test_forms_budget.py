"""Each wrapper's command is a command whose own wrappers are tried from every later word,
so the forms of ``env A=1 env A=1 ... echo`` grew exponentially (twenty ``env A=1`` took 4 s,
and the time doubled every two more). One command now has a budget of calls shared by all
its nested forms; past it the rest is ``TOO_MANY_FORMS``, which every deny and ask rule meets
(fail closed). The work is counted, not timed."""

from __future__ import annotations

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.bash import forms

DENY = [("deny", "Bash(rm:*)"), ("allow", "Bash")]


def _decide(command: str) -> str:
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in DENY], default="ask"), cwd="/")
    return policy.decide("Bash", {"command": command}).behavior


@pytest.mark.parametrize("wrapper", ["env A=1 ", "sudo env ", "nice env B=2 timeout 5 "])
def test_nested_wrappers_cost_a_bounded_number_of_steps(
        wrapper: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    real = forms.command_strings

    def counting(form: tuple[str, ...]) -> list[str]:
        calls[0] += 1
        return real(form)

    monkeypatch.setattr(forms, "command_strings", counting)
    forms._cached_forms.cache_clear()
    assert _decide(wrapper * 16 + "rm x") == "deny"
    assert calls[0] <= 16 * forms._MAX_CALLS * 8  # (old code: 131,168 for `env A=1 `)


@pytest.mark.parametrize("command", ["ENV A=1 " * 24 + "echo hi", "env " * 40 + "rm x",
                                     "Sudo -u x " * 30 + "echo hi"])
def test_past_the_budget_a_deny_rule_still_holds(command: str) -> None:
    assert _decide(command) == "deny"


@pytest.mark.parametrize("wrapper", ["env A=1 ", "sudo -u x ", "ENV ENV ", "nice -n 1 ",
                                     "timeout 5 env ", "Env A=1 B=2 "])
@pytest.mark.parametrize("many", [300, 2000])
def test_the_words_a_long_command_s_forms_copy_are_bounded(wrapper: str, many: int) -> None:
    # each form after a wrapper is a copy of the rest of the words: 800 `env A=1 ` made
    # 2,000 calls of 1,600 words each (32 s, 2.5 GB) once calls alone were counted
    words = tuple((wrapper * many + "rm -rf x").split())
    found = forms.command_forms(words)
    assert sum(map(len, found)) <= forms._MAX_WORDS + 2 * len(words)
    for inner in (" ".join(words), f"bash -c '{' '.join(words)}'"):
        assert _decide(inner) == "deny"


@pytest.mark.parametrize("command", ["env A=1 " * 40 + "echo hi", "sudo -u x ls " + " ".join(
    f"f{n}" for n in range(300))])
def test_many_assignments_or_operands_stay_provable(command: str) -> None:
    # lowering an assignment's case is not another program: ``A=1`` forms were made twice
    assert _decide(command) == "allow"


@pytest.mark.parametrize("command", ["env A=1 echo hi", "sudo -u root env B=2 ls -la",
                                     "nice timeout 5 env A=1 echo hi"])
def test_a_few_wrappers_stay_provable(command: str) -> None:
    assert _decide(command) == "allow"
