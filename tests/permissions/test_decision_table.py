"""Round 11: the decision table beyond Bash, from docs/permissions.md alone (path rules in
each spelling, WebFetch hosts, MCP names, wrong-typed inputs), and two findings: a tool input
that is not an object gets a deny from ``decide`` (was a traceback), and a deny/ask path rule
naming one tool of a family (``Write(//etc/**)``) is named by ``validate``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.authoring.spec_hints import content_hints

BIG = "/etc/" + "x" * 1_000_000
TABLE: list[tuple[str, str, str, str, dict[str, Any], str]] = [
    # (effect, rule, default, tool, input, decision)
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "/etc//passwd"}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "/tmp/../etc/passwd"}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "/etc"}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "LS", {"path": "/etc/"}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "/ETC/passwd"}, "deny"),  # r12
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "etc/passwd"}, "allow"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": BIG}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": "/etc/passwd\x00"}, "deny"),
    ("deny", "Read(~/.ssh/**)", "allow", "Read", {"file_path": "~/x/../.ssh/id_rsa"}, "deny"),
    ("deny", "Read(~/.ssh/**)", "allow", "Read", {"file_path": "$HOME/.ssh/id_rsa"}, "deny"),
    ("deny", "Read(~/.ssh/**)", "allow", "Read", {"file_path": "~/.sshx/id"}, "allow"),
    ("deny", "Read(/secret/**)", "allow", "Read", {"file_path": "secret/k"}, "deny"),
    ("deny", "Read(/secret/**)", "allow", "Read", {"file_path": "/secret/k"}, "allow"),
    ("deny", "Read(.env)", "allow", "Read", {"file_path": "sub/.env"}, "deny"),
    ("deny", "Read(.env)", "allow", "Read", {"file_path": ".envrc"}, "allow"),
    ("deny", "Read(secrets/)", "allow", "Read", {"file_path": "a/secrets/x"}, "deny"),
    ("deny", "Read(./src/*)", "allow", "Read", {"file_path": "src/deep/x.py"}, "deny"),
    ("allow", "Read(./src/**)", "ask", "Read", {"file_path": "src//a.py"}, "allow"),
    ("allow", "Read(./src/**)", "ask", "Read", {"file_path": "src/.hidden"}, "allow"),
    ("allow", "Read(./src/**)", "ask", "Read", {"file_path": "src/../.env"}, "ask"),
    ("allow", "Read(./src/*)", "ask", "Read", {"file_path": "src/deep/x.py"}, "ask"),
    ("allow", "Read(./src)", "ask", "Read", {"file_path": "src/a.py"}, "ask"),
    ("allow", "Read(./**)", "ask", "Read", {"file_path": 1}, "ask"),
    ("allow", "Read(./**)", "ask", "Read", {"file_path": ["src/a"]}, "ask"),
    ("allow", "Read(./**)", "ask", "Read", {"file_path": None}, "ask"),
    ("allow", "Read(./**)", "ask", "Read", {}, "ask"),
    ("deny", "Read(//etc/**)", "allow", "Read", {"file_path": {"p": "/etc"}}, "deny"),
    ("deny", "Edit(//etc/**)", "allow", "NotebookEdit", {"notebook_path": "/etc/x"}, "deny"),
    ("deny", "Edit(//etc/**)", "allow", "MultiEdit", {"file_path": "/etc/x"}, "deny"),
    ("allow", "Read(./**)", "ask", "Write", {"file_path": "src/a.py"}, "ask"),
    ("allow", "WebFetch(domain:example.com)", "ask", "WebFetch",
     {"url": "https://USER:pw@EXAMPLE.com.:8443/x"}, "allow"),
    ("allow", "WebFetch(domain:example.com)", "ask", "WebFetch",
     {"url": "https://evil.net\\@example.com/"}, "ask"),
    ("allow", "WebFetch(domain:example.com)", "ask", "WebFetch", {"url": ["x"]}, "ask"),
    ("deny", "WebFetch(domain:*.example.com)", "allow", "WebFetch",
     {"url": "https://example.com/"}, "deny"),
    ("deny", "WebFetch(domain:*.example.com)", "allow", "WebFetch",
     {"url": "https://badexample.com/"}, "allow"),
    ("deny", "WebFetch(domain:bücher.de)", "allow", "WebFetch",
     {"url": "https://xn--bcher-kva.de/"}, "deny"),
    ("deny", "WebFetch(domain:[::1])", "allow", "WebFetch", {"url": "http://[0:0::1]/"}, "deny"),
    ("deny", "WebFetch(domain:example.com)", "allow", "WebFetch", {"url": None}, "deny"),
    ("allow", "mcp__srv", "ask", "mcp__srv__t", {}, "allow"),
    ("allow", "mcp__srv", "ask", "mcp__srv2__t", {}, "ask"),
    ("allow", "mcp__srv__tool", "ask", "mcp__srv__Tool", {}, "ask"),
    ("allow", "mcp__srv__tool", "ask", "mcp__srv__t\u043eol", {}, "ask"),
    ("allow", "mcp__a", "ask", "mcp__a__b__c", {}, "ask"),
    ("deny", "mcp__a", "allow", "mcp__a__b__c", {}, "deny"),
    ("deny", "Read(//etc/**)", "allow", "mcp__srv__Read", {"file_path": "/etc/x"}, "allow"),
    ("allow", "Read", "ask", "mcp__srv__Read", {"file_path": "x"}, "ask"),
    ("deny", "Task(explorer)", "allow", "Agent", {"subagent_type": None}, "deny"),
]


@pytest.fixture()
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "proj" / "src").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "proj"


def test_the_table(proj: Path) -> None:
    wrong = []
    for effect, text, default, tool, inp, want in TABLE:
        rule = RuleConfig(effect=effect, tool=text,  # type: ignore[arg-type]
                          origin=Origin(file=str(proj / "toolhost.yaml"), line=1))
        pol = compile_policy(PermissionsConfig(rules=(rule,), default=default),  # type: ignore[arg-type]
                             cwd=str(proj))
        got = pol.decide(tool, inp).behavior
        if got != want:
            wrong.append((effect, text, tool, str(inp)[:80], want, got))
    assert wrong == []


@pytest.mark.parametrize("value", [None, [], "file_path=/etc/passwd", 5, ["/etc/passwd"]])
@pytest.mark.parametrize("tool", ["Read", "Bash", "WebFetch", "Agent", "Grep", "mcp__s__t"])
def test_an_input_that_is_no_object_is_denied(tool: str, value: Any) -> None:
    pol = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="allow", tool="*"),
        RuleConfig(effect="allow", tool="mcp__s__t", when={"a": "x"})), default="allow"))
    got = pol.decide(tool, value)
    assert got.behavior == "deny" and "not an object" in got.message


@pytest.mark.parametrize(("rule", "family"), [
    ("Write(//etc/**)", "Edit"), ("MultiEdit(~/.ssh/**)", "Edit"),
    ("NotebookEdit(./x.ipynb)", "Edit"), ("Grep(//etc/**)", "Read"), ("Glob(~/.aws)", "Read"),
    ("LS(//root)", "Read"), ("NotebookRead(./n.ipynb)", "Read")])
def test_a_deny_naming_one_tool_of_a_family_is_named(rule: str, family: str) -> None:
    spec = rule[rule.index("(") + 1:-1]
    for effect in ("deny", "ask"):
        hints = content_hints(rule, "/tmp", effect)
        assert any(f"write {family}({spec})" in fix for _, _, fix in hints), hints
    assert not any("holds back" in msg for _, msg, _ in content_hints(rule, "/tmp", "allow"))
    for whole in (f"Edit({spec})", f"Read({spec})"):
        assert not any("holds back" in msg for _, msg, _ in content_hints(whole, "/tmp", "deny"))


@pytest.mark.parametrize(("effect", "rule", "tool", "inp", "want"), [
    # a Glob pattern's fixed directories are a path of the call even when relative: a
    # symlink there lists where it leads
    ("deny", "Read(//etc/**)", "Glob", {"pattern": "src/etclink/*"}, "deny"),
    ("allow", "Read(./**)", "Glob", {"pattern": "src/etclink/*"}, "ask"),
    ("deny", "Read(//etc/**)", "Glob", {"pattern": "src/etclink"}, "deny"),
    # (``src/etclink/..`` is ``/``, symlink first: a search above /etc, held for a person)
    ("deny", "Read(//etc/**)", "Glob", {"pattern": "x/*", "path": "src/etclink/.."}, "ask"),
    ("allow", "Read(./**)", "Glob", {"pattern": "src/**/*.py"}, "allow"),
    ("allow", "Read(./src/**)", "Glob", {"pattern": "deep/*.py", "path": "src"}, "allow"),
    # a file: URL in every RFC 8089 form, percent-escapes decoded
    ("deny", "Read(//etc/**)", "Read", {"file_path": "file:/etc/passwd"}, "deny"),
    ("deny", "Read(//etc/**)", "Read", {"file_path": "file://localhost/etc/passwd"}, "deny"),
    ("deny", "Read(//etc/**)", "Read", {"file_path": "FILE://LocalHost/etc/passwd"}, "deny"),
    ("deny", "Read(//etc/**)", "Read", {"file_path": "file:///%65tc/passwd"}, "deny"),
    ("deny", "Edit(//etc/**)", "Write", {"file_path": "file:/%65tc/hosts"}, "deny"),
    ("allow", "Read(./**)", "Read", {"file_path": "file:///%65tc/passwd"}, "ask"),
    ("allow", "Read(./**)", "Read", {"file_path": "src/a%20b.py"}, "allow"),
])
def test_glob_dirs_and_file_urls(proj: Path, effect: str, rule: str, tool: str,
                                 inp: dict[str, Any], want: str) -> None:
    (proj / "src" / "etclink").symlink_to("/etc")
    (proj / "src" / "deep").mkdir()
    pol = compile_policy(PermissionsConfig(rules=(RuleConfig(
        effect=effect, tool=rule, origin=Origin(file=str(proj / "t.yaml"), line=1)),),  # type: ignore[arg-type]
        default="allow" if effect != "allow" else "ask"), cwd=str(proj))
    assert pol.decide(tool, inp).behavior == want


@pytest.mark.parametrize("spec", ["domain:localhost", "domain:LOCALHOST.", "domain:127.0.0.1",
                                  "domain:127.1", "domain:[::1]", "domain:0.0.0.0",
                                  "domain:*.localhost"])
def test_a_deny_of_one_loopback_name_is_named(spec: str) -> None:
    for effect in ("deny", "ask"):
        hints = content_hints(f"WebFetch({spec})", "/tmp", effect)
        assert [level for level, msg, _ in hints if "other names" in msg] == ["warning"], hints
        assert "127.0.0.2" in hints[0][1]
    assert content_hints(f"WebFetch({spec})", "/tmp", "allow") == []
    assert content_hints("WebFetch(domain:example.com)", "/tmp", "deny") == []
    assert content_hints("WebFetch(domain:127.0.0.10)", "/tmp", "deny") == []


@pytest.mark.parametrize(("rule", "tool", "inp", "want"), [
    # a search reads what lies below the directory it searches: an allow proves it only when
    # it names everything there (an allow proves only the paths it names)
    ("Read(./src)", "Grep", {"pattern": "x", "path": "src"}, "ask"),
    ("Read(./src)", "Glob", {"pattern": "**", "path": "src"}, "ask"),
    ("Read(./src/*)", "Grep", {"pattern": "x", "path": "src/deep"}, "ask"),
    ("Read(./*)", "Grep", {"pattern": "x"}, "ask"),
    ("Read(./src/**/*.py)", "Grep", {"pattern": "x", "path": "src"}, "ask"),
    # as before: a directory rule and LS, a search of a file, rules naming all below
    ("Read(./src)", "LS", {"path": "src"}, "allow"),
    ("Read(./src/a.py)", "Grep", {"pattern": "x", "path": "src/a.py"}, "allow"),
    ("Read(./src/**)", "Grep", {"pattern": "x", "path": "src"}, "allow"),
    ("Read(src/)", "Glob", {"pattern": "*", "path": "src"}, "allow"),
    ("Read(./**)", "Grep", {"pattern": "x"}, "allow"),
    ("Read", "Grep", {"pattern": "x", "path": "/"}, "allow"),
])
def test_an_allow_proves_a_search_only_of_all_below(proj: Path, rule: str, tool: str,
                                                    inp: dict[str, Any], want: str) -> None:
    (proj / "src" / "deep").mkdir()
    (proj / "src" / "a.py").write_text("x\n")
    pol = compile_policy(PermissionsConfig(rules=(RuleConfig(effect="allow", tool=rule),),
                                           default="ask"), cwd=str(proj))
    assert pol.decide(tool, inp).behavior == want


@pytest.mark.parametrize(("effect", "cond", "value", "want"), [
    # path_under/path_glob meet a path in each spelling a tool may read it as, as the
    # content forms do: where the spellings disagree the value cannot be judged (deny/ask:
    # a match; allow: none)
    ("deny", {"path_under": "~/.ssh"}, "$HOME/.ssh/id_rsa", "deny"),
    ("deny", {"path_under": "~/.ssh"}, "${HOME}/.ssh/id_rsa", "deny"),
    ("deny", {"path_under": "~/.ssh"}, "file://{home}/.ssh/id_rsa", "deny"),
    ("deny", {"path_under": "~/.ssh"}, "file:{home}/.ssh/id_rsa", "deny"),
    ("deny", {"path_under": "~/.ssh"}, " {home}/.ssh/id_rsa", "deny"),
    ("deny", {"path_glob": "/**/.env"}, "$PWD/.env", "deny"),
    ("deny", {"path_under": "~/.ssh"}, "src/a.py", "allow"),
    ("deny", {"path_under": "~/.ssh"}, "$HOME/notes", "allow"),
    ("allow", {"path_under": "./src"}, "src/a.py", "allow"),
    ("allow", {"path_under": "./src"}, " src/a.py", "ask"),
    ("allow", {"path_under": "./src"}, "src/$UNSET_P11_X/a", "allow"),
    ("allow", {"path_glob": "./src/**"}, "$HOME/src/a", "ask"),
])
def test_path_conditions_meet_each_spelling(proj: Path, effect: str, cond: dict[str, str],
                                            value: str, want: str) -> None:
    home = str(proj.parent / "home")
    rule = RuleConfig(effect=effect, tool="Read", when={"file_path": cond},  # type: ignore[arg-type]
                      origin=Origin(file=str(proj / "t.yaml"), line=1))
    pol = compile_policy(PermissionsConfig(rules=(rule,), default="allow" if effect == "deny"
                                           else "ask"), cwd=str(proj))
    got = pol.decide("Read", {"file_path": value.replace("{home}", home)}).behavior
    assert got == want


@pytest.mark.parametrize(("effect", "rule", "tool", "inp", "want"), [
    # ``Read(.)`` and ``Read(~)`` name the directory itself, as ``Read(./src)`` names ``src``:
    # an allow proves it alone, a deny covers everything inside it
    ("allow", "Read(.)", "Read", {"file_path": "src/a.py"}, "ask"),
    ("allow", "Read(~)", "Read", {"file_path": "~/.ssh/id_rsa"}, "ask"),
    ("allow", "Read(.)", "Grep", {"pattern": "x"}, "ask"),
    ("allow", "Read(.)", "LS", {"path": "."}, "allow"),
    ("allow", "Read(~)", "LS", {"path": "~"}, "allow"),
    ("allow", "Read(./)", "Read", {"file_path": "src/a.py"}, "allow"),
    ("allow", "Read(~/)", "Read", {"file_path": "~/x"}, "allow"),
    ("deny", "Read(.)", "Read", {"file_path": "src/a.py"}, "deny"),
    ("deny", "Read(~)", "Read", {"file_path": "~/.ssh/id_rsa"}, "deny"),
    ("deny", "Read(~)", "Grep", {"pattern": "x", "path": "/"}, "ask"),
    ("deny", "Read(~)", "Read", {"file_path": "/etc/hosts"}, "allow"),
])
def test_a_bare_directory_names_the_directory(proj: Path, effect: str, rule: str, tool: str,
                                              inp: dict[str, Any], want: str) -> None:
    (proj / "src" / "a.py").write_text("x\n")
    pol = compile_policy(PermissionsConfig(rules=(RuleConfig(effect=effect, tool=rule),),  # type: ignore[arg-type]
                                           default="allow" if effect == "deny" else "ask"),
                         cwd=str(proj))
    assert pol.decide(tool, inp).behavior == want


def test_an_allow_of_a_bare_directory_is_named() -> None:
    for rule in ("Read(.)", "Read(~)", "Edit(.)"):
        hints = content_hints(rule, "/tmp", "allow")
        assert [h[0] for h in hints] == ["warning"] and "/**)" in hints[0][2], hints
        assert content_hints(rule, "/tmp", "deny") == []
    assert content_hints("Read(./**)", "/tmp", "allow") == []
