"""A deny or ask path rule naming a directory covers everything inside it, as gitignore reads a
pattern (and as the CLI reads ``--disallowedTools Read(~/.ssh)``): ``deny: Read(~/.ssh)``
denies ``~/.ssh/id_rsa``, ``deny: Edit(//etc)`` denies writing ``/etc/passwd``. An allow rule
still names exactly what it says (``Read(./src)`` does not allow ``src/x``: write
``./src/**``); a dead allow hides nothing, a dead deny was a hole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.paths import compile_path_glob


def _decide(tmp_path: Path, effect: str, rule: str, tool: str, tool_input: dict[str, Any],
            default: str = "allow") -> str:
    config = PermissionsConfig(default=default, rules=(RuleConfig(  # type: ignore[arg-type]
        effect, rule, origin=Origin(str(tmp_path / "conf" / "perms.yaml"), 1)),))  # type: ignore[arg-type]
    return compile_policy(config, cwd=str(tmp_path / "proj")).decide(tool, tool_input).behavior


# (rule specifier, a path inside what it names): {t} is the temporary directory, {home} ~
INSIDE = [
    ("~/.ssh", "~/.ssh/id_rsa"), ("~/.ssh", "{home}/.ssh/keys/id_ed25519"),
    ("//{t}/etc", "{t}/etc/passwd"), ("//{t}/etc", "{t}/etc/ssh/sshd_config"),
    ("./secrets", "{t}/proj/secrets/a"), ("secrets", "{t}/proj/secrets/deep/a"),
    (".aws", "{t}/proj/.aws/credentials"), (".aws", "{t}/proj/sub/.aws/credentials"),
    ("/notes", "{t}/conf/notes/x.md"), ("*.d", "{t}/proj/conf.d/a.conf"),
    ("./src/*", "{t}/proj/src/deep/x.py"), ("./secrets/", "{t}/proj/secrets/a"),
    ("./secrets/**", "{t}/proj/secrets/a"), ("./a?c", "{t}/proj/abc/x"),
    ("./[s]ecrets", "{t}/proj/secrets/x"), ("**/secrets", "{t}/proj/x/secrets/y"),
]
READ_TOOLS = [("Read", "file_path"), ("NotebookRead", "notebook_path"),
              ("Grep", "path"), ("Glob", "path"), ("LS", "path")]
EDIT_TOOLS = [("Edit", "file_path"), ("Write", "file_path"), ("MultiEdit", "file_path"),
              ("NotebookEdit", "notebook_path")]


def _fill(text: str, tmp_path: Path) -> str:
    return text.replace("{t}", str(tmp_path).lstrip("/") if text.startswith("//") else
                        str(tmp_path)).replace("{home}", str(Path.home()))


@pytest.mark.parametrize("effect", ["deny", "ask"])
@pytest.mark.parametrize(("spec", "inside"), INSIDE)
@pytest.mark.parametrize(("family", "tools"), [("Read", READ_TOOLS), ("Edit", EDIT_TOOLS)])
def test_a_deny_or_ask_of_a_directory_covers_what_is_inside(
        tmp_path: Path, effect: str, spec: str, inside: str, family: str,
        tools: list[tuple[str, str]]) -> None:
    rule = f"{family}({_fill(spec, tmp_path)})"
    for tool, key in tools:
        got = _decide(tmp_path, effect, rule, tool, {key: _fill(inside, tmp_path)})
        assert got == effect, (rule, tool, inside)


@pytest.mark.parametrize(("spec", "beside"), [
    ("./secrets", "{t}/proj/secretsX/a"), ("./secrets", "{t}/proj/secrets.txt"),
    ("~/.ssh", "~/.sshx/id_rsa"), ("//{t}/etc", "{t}/etcetera/passwd"),
    (".aws", "{t}/proj/x.aws/credentials"), ("./src/*", "{t}/proj/src"),
])
def test_what_lies_beside_the_directory_is_not_covered(tmp_path: Path, spec: str,
                                                         beside: str) -> None:
    rule = f"Read({_fill(spec, tmp_path)})"
    assert _decide(tmp_path, "deny", rule, "Read", {"file_path": _fill(beside, tmp_path)}) \
        == "allow"


@pytest.mark.parametrize(("spec", "inside"), [
    ("./src", "{t}/proj/src/a.py"), ("./src/*", "{t}/proj/src/deep/x.py"),
    ("~/notes", "~/notes/a.md"),
])
def test_an_allow_names_exactly_what_it_says(tmp_path: Path, spec: str, inside: str) -> None:
    rule = f"Read({_fill(spec, tmp_path)})"
    assert _decide(tmp_path, "allow", rule, "Read", {"file_path": _fill(inside, tmp_path)},
                   default="deny") == "deny"


SEGMENT = st.text(alphabet="abc.-_", min_size=1, max_size=4).filter(lambda s: s not in
                                                                     (".", ".."))


@settings(max_examples=200, deadline=None)
@given(pattern=st.lists(st.one_of(SEGMENT, st.sampled_from(["*", "?", "**", "a*", "[ab]"])),
                        min_size=1, max_size=4),
       path=st.lists(SEGMENT, min_size=1, max_size=4),
       below=st.lists(SEGMENT, min_size=1, max_size=3))
def test_whatever_a_pattern_names_it_covers_with_all_inside(pattern: list[str], path: list[str],
                                                            below: list[str]) -> None:
    compiled = compile_path_glob("/".join(pattern), "/base")
    named = "/base/" + "/".join(path)
    inside = named + "/" + "/".join(below)
    if compiled.matches(named):
        assert compiled.covers(named) and compiled.covers(inside)
    if not compiled.covers(named):  # nothing above it is named either
        assert not any(compiled.matches("/base/" + "/".join(path[:i]))
                       for i in range(1, len(path) + 1))
