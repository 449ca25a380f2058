"""Lint: a content rule an earlier deny or ask rule of another text always beats (shadowed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy, lint_policy

HOME = os.path.expanduser("~")

# (earlier effect, earlier rule, later effect, later rule, hidden?)
CASES = [
    ("deny", "Bash(git push:*)", "allow", "Bash(git push origin main)", True),
    ("deny", "Bash(git push:*)", "allow", "Bash(git push *)", True),
    ("deny", "Bash(git push:*)", "allow", "Bash(git push --dry-run:*)", True),
    ("deny", "Bash(git push:*)", "allow", "Bash(sudo git push:*)", True),
    ("deny", "Bash(git push:*)", "ask", "Bash(git push origin main)", True),
    ("ask", "Bash(rm:*)", "allow", "Bash(rm -f x.tmp)", True),
    ("ask", "Bash(npm publish:*)", "allow", "Bash(npm publish --dry-run)", True),
    ("deny", "Bash(curl:*)", "allow", "Bash(curl https://example.com)", True),
    ("deny", "Read(//etc/**)", "allow", "Read(//etc/passwd)", True),
    ("deny", "Read(//etc/**)", "allow", "Read(//etc/ssl/**)", True),
    ("deny", "Read(~/.ssh)", "allow", "Read(~/.ssh/config)", True),
    ("deny", "Read(.env)", "allow", "Read(./config/.env)", True),
    ("deny", "Edit(./secrets/**)", "allow", "Edit(secrets/a.txt)", True),
    ("deny", "Edit(./secrets/**)", "allow", "Edit(./secrets/**)", True),
    ("ask", "Read(./private/**)", "allow", "Read(private/notes.md)", True),
    ("deny", "Read(//etc/**)", "allow", "LS(//etc/ssl)", True),
    ("deny", "WebFetch(domain:*.example.com)", "allow", "WebFetch(domain:docs.example.com)",
     True),
    ("deny", "WebFetch(domain:*.example.com)", "allow", "WebFetch(domain:example.com)", True),
    ("ask", "WebFetch(domain:example.com)", "allow", "WebFetch(domain:EXAMPLE.com)", True),
    # not hidden: the earlier rule matches only some of the later one's calls, or none
    ("deny", "Bash(git push:*)", "allow", "Bash(git status)", False),
    ("deny", "Bash(git push origin main)", "allow", "Bash(git push:*)", False),
    ("deny", "Bash(git push:*)", "allow", "Bash(git pushy)", False),
    ("deny", "Bash(rm -rf:*)", "allow", "Bash(rm:*)", False),
    ("ask", "Bash(npm publish:*)", "allow", "Bash(npm:*)", False),
    ("deny", "Read(//etc/shadow)", "allow", "Read(//etc/**)", False),
    # round 14: a rule with a wildcard inside, under a prefix rule covering its fixed part
    ("deny", "Read(//etc/**)", "allow", "Read(//etc/*.conf)", True),
    ("deny", "Read(//etc/**)", "allow", "Read(//etc/ssl/**/*.pem)", True),
    ("ask", "Read(~/.ssh/**)", "allow", "Read(~/.ssh/id_*.pub)", True),
    ("deny", "Edit(./secrets/**)", "allow", "Edit(./secrets/*/k?.txt)", True),
    ("deny", "Read(./private/**)", "allow", "Read(private/[ab]*.md)", True),
    ("deny", "Bash(git:*)", "allow", "Bash(git * main)", True),
    ("deny", "Bash(git push:*)", "allow", "Bash(git push * --force)", True),
    ("ask", "Bash(kubectl *)", "allow", "Bash(kubectl get * -o json)", True),
    ("deny", "WebFetch(domain:*.example.com)", "allow", "WebFetch(domain:*.docs.example.com)",
     True),
    # ... and not: the prefix rule does not cover the fixed part, or the earlier rule is no
    # prefix rule (its wildcards could miss some of the later rule's calls)
    ("deny", "Read(//etc/ssl/**)", "allow", "Read(//etc/*.conf)", False),
    ("deny", "Read(//etc/*.conf)", "allow", "Read(//etc/*.conf.d)", False),
    ("deny", "Read(//etc/**)", "allow", "Read(//et*/x)", False),
    ("deny", "Read(//etc/**)", "allow", "Read(**/etc/x)", False),
    ("deny", "Read(./private/**)", "allow", "Read(*.md)", False),
    ("deny", "Bash(git push:*)", "allow", "Bash(git * main)", False),
    ("deny", "Bash(git:*)", "allow", "Bash(gi* status)", False),
    ("deny", "Bash(git * main)", "allow", "Bash(git push * main)", False),
    ("deny", "Bash(git:*)", "allow", "Bash(git * | sh)", False),
    ("deny", "WebFetch(domain:*.docs.example.com)", "allow", "WebFetch(domain:*.example.com)",
     False),
    ("deny", "Read(./private/**)", "allow", "Read(./src/**)", False),
    ("deny", "Read(//etc/**)", "allow", "Edit(//etc/hosts)", False),  # another family
    ("deny", "Edit(./secrets/**)", "allow", "Read(./secrets/a)", False),
    ("deny", "WebFetch(domain:docs.example.com)", "allow", "WebFetch(domain:example.com)",
     False),
    ("deny", "WebFetch(domain:example.com)", "allow", "WebFetch(domain:badexample.com)",
     False),
    ("allow", "Bash(git push:*)", "allow", "Bash(git push origin main)", False),
    ("deny", "Bash(rm:*)", "deny", "Bash(rm -rf /)", False),  # redundant, not wrong
]


def _rule(effect: str, tool: str, line: int, **kw: object) -> RuleConfig:
    return RuleConfig(effect, tool, origin=Origin("team.yaml", line, 7, "permissions.x"),
                      **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("e1,r1,e2,r2,hidden", CASES)
def test_content_rule_hidden_by_earlier_rule(e1: str, r1: str, e2: str, r2: str,
                                             hidden: bool) -> None:
    policy = compile_policy(PermissionsConfig(rules=(_rule(e1, r1, 3), _rule(e2, r2, 9))),
                            cwd="/tmp/proj")
    found = [f for f in lint_policy(policy) if f.code in ("shadowed", "duplicate")]
    if not hidden:
        assert found == []
        return
    assert len(found) == 1, found
    assert found[0].rule == r2 and found[0].origin.line == 9
    assert f"{e1} rule {r1!r} at team.yaml:3" in found[0].message


@pytest.mark.parametrize("kw", [{"when": {"command": {"glob": "git push*"}}},
                                {"expr": "true"}])
def test_a_conditional_earlier_rule_hides_nothing(kw: dict[str, object]) -> None:
    policy = compile_policy(PermissionsConfig(rules=(
        _rule("deny", "Bash", 3, **kw), _rule("allow", "Bash(git push origin main)", 9))),
        cwd="/tmp/proj")
    assert [f for f in lint_policy(policy) if f.code == "shadowed"] == []


def test_layers_name_the_file_of_the_hiding_rule(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A team fragment's deny hides a local file's allow; the user file's ask hides the
    project's allow: each reported at the later rule, naming the earlier one's file:line."""
    (tmp_path / "xdg" / "toolhost").mkdir(parents=True)
    (tmp_path / "team").mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "toolhost" / "config.yaml").write_text(
        "toolhost: 1\npermissions:\n  ask: ['Bash(npm publish:*)']\n")
    (tmp_path / "team" / "base.yaml").write_text(
        "toolhost: 1\npermissions:\n  deny:\n    - 'Read(//etc/**)'\n    - 'Bash(git push:*)'\n")
    (tmp_path / "toolhost.yaml").write_text(
        "toolhost: 1\nextends: [team/base.yaml]\nservers: {}\npermissions:\n"
        "  allow: ['Bash(npm publish --dry-run)', 'Bash(git status)']\n")
    (tmp_path / "toolhost.local.yaml").write_text(
        "toolhost: 1\npermissions:\n  allow:\n    - 'Read(//etc/hosts)'\n"
        "    - 'Bash(git push origin main)'\n")
    config = load_config(tmp_path / "toolhost.yaml")
    found = sorted((f.rule, f.origin.file.rsplit("/", 1)[-1], f.origin.line, f.message)
                   for f in lint_policy(compile_policy(config.permissions, cwd=str(tmp_path)))
                   if f.code == "shadowed")
    assert [(r, f, n) for r, f, n, _ in found] == [
        ("Bash(git push origin main)", "toolhost.local.yaml", 5),
        ("Bash(npm publish --dry-run)", "toolhost.yaml", 5),
        ("Read(//etc/hosts)", "toolhost.local.yaml", 4)]
    assert "base.yaml:5" in found[0][3] and "config.yaml:3" in found[1][3]
    assert "base.yaml:4" in found[2][3]


# (earlier effect, earlier when/expr, later effect, later when/expr, hidden?) on mcp__s__t
CONDITIONAL = [
    ("deny", {"when": {"mode": "fast"}}, "allow", {"when": {"mode": "fast"}}, True),
    ("ask", {"when": {"mode": "fast"}}, "allow", {"when": {"mode": "fast"}}, True),
    ("deny", {"when": {"mode": "fast"}}, "ask", {"when": {"mode": "fast"}}, True),
    ("deny", {"expr": "args.n > 3"}, "allow", {"expr": "args.n > 3"}, True),
    ("deny", {"when": {"mode": "fast"}}, "allow",
     {"when": {"mode": "fast", "path": {"glob": "b*"}}}, True),
    ("deny", {"when": {"mode": "fast"}}, "allow",
     {"when": {"mode": "fast"}, "expr": "args.n > 3"}, True),
    ("deny", {"when": {"p": {"path_under": "/etc"}}}, "allow",
     {"when": {"p": {"path_under": "/etc"}}, "rewrite": {"set": {"n": 1}}}, True),
    ("deny", {"when": {"mode": "fast"}}, "allow", {"when": {"mode": "slow"}}, False),
    ("deny", {"when": {"mode": "fast", "n": 1}}, "allow", {"when": {"mode": "fast"}}, False),
    ("deny", {"expr": "args.n > 3"}, "allow", {"expr": "args.n > 4"}, False),
    ("deny", {"when": {"mode": "fast"}, "callers": {"subjects": ["ana"]}}, "allow",
     {"when": {"mode": "fast"}}, False),
    ("allow", {"when": {"mode": "fast"}}, "allow", {"when": {"mode": "fast"}}, True),  # dup
    ("deny", {"when": {"mode": "fast"}}, "deny", {"when": {"mode": "fast", "n": 1}}, False),
]


@pytest.mark.parametrize("e1,k1,e2,k2,hidden", CONDITIONAL)
def test_rule_hidden_by_earlier_conditional_rule(e1: str, k1: dict[str, object], e2: str,
                                                 k2: dict[str, object], hidden: bool) -> None:
    policy = compile_policy(PermissionsConfig(rules=(
        _rule(e1, "mcp__s__t", 3, **k1), _rule(e2, "mcp__s__t", 9, **k2))), cwd="/tmp/proj")
    found = [f for f in lint_policy(policy, ["mcp__s__t"])
             if f.code in ("shadowed", "duplicate")]
    assert [f.origin.line for f in found] == ([9] if hidden else []), found
    if hidden and e1 != e2:
        assert f"{e1} rule 'mcp__s__t" in found[0].message and "team.yaml:3" in found[0].message


def test_a_relative_path_condition_in_another_directory_hides_nothing() -> None:
    when = {"when": {"p": {"path_glob": "secrets/**"}}}
    rules = (RuleConfig("deny", "mcp__s__t", origin=Origin("team/a.yaml", 3, 7, "x"), **when),
             RuleConfig("allow", "mcp__s__t", origin=Origin("b.yaml", 3, 7, "x"), **when))
    policy = compile_policy(PermissionsConfig(rules=rules), cwd="/tmp/proj")
    assert [f for f in lint_policy(policy, ["mcp__s__t"]) if f.code == "shadowed"] == []


@pytest.mark.parametrize("kw", [{"when": {"timeout": {"max": 100}}},
                                {"expr": "args.command | length < 100"},
                                {"callers": {"subjects": ["ana"]}}])
def test_a_later_rule_narrowed_by_when_is_still_hidden(kw: dict[str, object]) -> None:
    policy = compile_policy(PermissionsConfig(rules=(
        _rule("deny", "Bash(git push:*)", 3), _rule("allow", "Bash(git push origin main)", 9,
                                                    **kw))), cwd="/tmp/proj")
    found = [f for f in lint_policy(policy) if f.code == "shadowed"]
    assert [f.origin.line for f in found] == [9], found


# (earlier deny's when, later allow, hidden?): a deny testing only the path/URL by an
# operator comparing normalised values hides an allow naming one exact call
PATH_WHEN = [
    ("Edit", {"file_path": {"path_under": "/etc"}}, "Write(//etc/hosts)", True),
    ("Edit", {"file_path": {"path_glob": "/**/.env"}}, "Write(./app/.env)", True),
    ("Edit", {"file_path": {"path_under": "/srv"}}, "MultiEdit(//srv/www/index.html)", True),
    ("Read", {"path": {"path_under": "/etc"}}, "LS(//etc/hosts)", True),
    # round 15: a Read(...)/Edit(...) rule also allows the family's tools that lack the
    # argument tested (Grep, Glob, LS have `path`; NotebookEdit `notebook_path`): reached
    ("Read", {"file_path": {"path_under": "/etc"}}, "Read(//etc/hosts)", False),
    ("Read", {"file_path": {"path_glob": "/**/.env"}}, "Read(./app/.env)", False),
    ("Edit", {"file_path": {"path_under": "/srv"}}, "Edit(//srv/www/index.html)", False),
    ("Read", {"path": {"path_under": "/etc"}}, "Read(//etc/hosts)", False),
    ("WebFetch", {"url": {"host": "*.example.com"}}, "WebFetch(domain:docs.example.com)",
     False),  # a host rule has two witnesses (not one exact call): not judged
    # round 14: a path_under-only deny hides a rule naming a whole directory below it
    ("LS", {"path": {"path_under": "/etc"}}, "LS(//etc/**)", True),
    ("Read", {"path": {"path_under": "/etc"}}, "LS(//etc/ssl/**)", True),
    ("Edit", {"file_path": {"path_under": "/etc"}}, "Write(//etc/*.conf)", True),
    ("Edit", {"file_path": {"path_under": "/srv"}}, "Write(//srv/www/**/*.html)", True),
    ("Read", {"file_path": {"path_under": "/etc"}}, "Read(//etc/ssl/**)", False),
    ("Edit", {"file_path": {"path_under": "/srv"}}, "Edit(//srv/www/**/*.html)", False),
    ("Read", {"file_path": {"path_under": "/etc/ssl"}}, "Read(//etc/**)", False),
    ("Read", {"file_path": {"path_under": "/etc"}}, "Read(//var/**)", False),
    ("Read", {"file_path": {"path_glob": "/etc/*"}}, "Read(//etc/**)", False),  # one level
    ("Read", {"file_path": {"path_under": "/etc"}}, "Read(**/*.conf)", False),
    ("Read", {"file_path": {"path_under": "/etc"}}, "Read(//var/log/x)", False),
    ("Read", {"file_path": {"glob": "/etc/*"}}, "Read(//etc/hosts)", False),  # as written
    ("Read", {"file_path": {"path_under": "/etc"}, "limit": {"max": 10}},
     "Read(//etc/hosts)", False),  # another argument: calls without it escape
    ("Bash", {"command": {"glob": "git push*"}}, "Bash(git push origin main)", False),
]


@pytest.mark.parametrize("tool,when,later,hidden", PATH_WHEN)
def test_an_exact_allow_under_a_path_when_deny(tool: str, when: dict[str, object],
                                               later: str, hidden: bool) -> None:
    policy = compile_policy(PermissionsConfig(rules=(
        _rule("deny", tool, 3, when=when), _rule("allow", later, 9))), cwd="/tmp/proj")
    found = [f.origin.line for f in lint_policy(policy) if f.code == "shadowed"]
    assert found == ([9] if hidden else []), found
