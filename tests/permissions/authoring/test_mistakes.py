"""``toolhost validate`` reports every author mistake in a config's rules, located, in one run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli

TOOLS = """\
toolhost: 1
servers:
  files:
    tools:
      grep:
        command: [grep, "{{ pattern }}", "{{ path }}"]
        params:
          pattern: {type: string}
          path: {type: string}
          count: {type: integer, default: 5}
          mode: {type: string, enum: [fast, slow], default: fast}
      ls:
        command: [ls, "{{ dir }}"]
        params: {dir: {type: string, default: "."}}
  dev:
    tools:
      build: {command: [make]}
"""

# (line of the mistake, a fragment of its message, "error" or "warning")
MISTAKES = """\
permissions:
  default: alow                             # 31 misspelt default
  deny:
    - tool: mcp__files__grep
      when: {patern: {regex: "x"}}          # 35 misspelt argument
    - tool: mcp__files__grep
      when: {path: "/etc/**"}               # 37 plain value that looks like a glob
    - tool: mcp__files__grep
      when: {count: {glob: "a*"}}           # 39 glob on an integer
    - mcp__files__lss                       # 40 misspelt tool
    - mcp__devv                             # 41 misspelt server
    - bash                                  # 42 wrong case of a built-in
    - tool: mcp__files__grep
      when: {pattern: {regex: "("}}         # 44 regex that does not compile
    - tool: mcp__files__grep
      when: {mode: {one_of: [medium]}}      # 46 value outside the enum
    - "WebFetch(domain:https://x.org/)"     # 47 a URL where a host goes
    - tool: mcp__files__grep
      when: {pattern: {lookslike: "x"}}     # 49 unknown operator
    - "Bash()"                              # 50 empty content
    - tool: mcp__files__grep
      when: {count: {min: "3"}}             # 52 operator value of the wrong type
    - tool: mcp__files__grep
      expr: "args.paht == 'x'"              # 54 misspelt argument in expr
    - tool: mcp__files__grep
      expr: "path == 'x'"                   # 56 a bare name expr cannot see
    - tool: Read
      when: {file_pth: {glob: "*.env"}}     # 58 misspelt argument of a built-in
    - tool: mcp__files__grep
      rewrite: {set: {count: 1}}            # 60 rewrite in a deny rule
    - mcp__Files__ls                        # 61 wrong case of a server
  allow:
    - tool: mcp__files__grep
      rewrite: {clamp: {count: {min: 10, max: 1}}}  # 64 clamp with min > max
    - tool: mcp__files__ls
      rewrite: {set: {dri: "."}}            # 66 rewrite of a path the schema lacks
    - "mcp__files__grep(foo)"               # 67 content form on a tool that takes none
    - tool: mcp__files__ls
      rewrite: {clamp: {dir: {max: 3}}}     # 69 clamp on a string
    - tool: mcp__files__grep
      when: {count: {min: 5, max: 2}}       # 71 condition that never holds
    - tool: mcp__files__grep
      when: {mode: fastest}                 # 73 plain value outside the enum
    - Bassh                                 # 74 typo of a built-in
    - mcp__dev__build                       # 75 fine
    - mcp__dev__build                       # 76 duplicate
    - tool: mcp__files__grep
      when: {}                              # 78 empty when: applies to every call
    - tool: mcp__dev__build
      message: "builds are fine"            # 80 a message an allow never shows
    - tool: mcp__files__grep
      rewrite: {clamp: {count: {max: 9}}}
      message: "count clamped"              # 83 fine: shown when the rewrite denies
  ask:
    - tool: mcp__files__grep
      when: {path: {path_glob: "**/*.pem"}}  # 86 relative path_glob in an ask rule
    - tool: mcp__files__ls
      when: {dir: {path_glob: "/srv/**"}}   # 88 fine: absolute
    - tool: mcp__files__ls
      when: {dir: {path_under: "etc"}}      # 90 relative path_under in an ask rule
    - tool: Bash
      when: {command: {glob: "rm *"}}       # 92 a textual test of the command line
"""
EXPECTED = [
    (31, "got 'alow' (did you mean 'allow'?)", "error"),
    (35, "no key 'patern'", "error"), (35, "did you mean 'pattern'?", "error"),
    (37, "for a pattern write {path_glob: \"/etc/**\"}", "warning"),
    (39, "'glob' matches strings, but the argument is an integer", "error"),
    (40, "server 'files' has no tool matching 'lss'", "error"),
    (40, "did you mean 'mcp__files__ls'?", "error"),
    (41, "did you mean 'mcp__dev'?", "error"),
    (42, "did you mean 'Bash'?", "error"),
    (44, "bad regex", "error"),
    (46, "none of the one_of values", "error"),
    (47, "write the host alone: WebFetch(domain:x.org)", "error"),
    (49, "unknown condition 'lookslike'", "error"),
    (50, "Bash() is empty", "error"),
    (52, "'min' takes a number", "error"),
    (54, "no key 'paht'", "error"), (54, "did you mean 'path'?", "error"),
    (56, "expr uses 'path', which is not defined", "error"),
    (58, "no key 'file_pth'", "warning"),
    (60, "only an allow rule can rewrite arguments", "error"),
    (61, "did you mean 'mcp__files__ls'?", "error"),
    (64, "min 10 is above max 1", "error"),
    (66, "no key 'dri'", "error"),
    (67, "has no content form", "error"),
    (69, "not a number", "error"),
    (71, "min 5 is above max 2", "error"),
    (73, '"fastest" is not a value it can take', "error"),
    (74, "did you mean 'Bash'?", "error"),
    (76, "duplicate", "warning"),
    (78, "'when' is empty", "warning"),
    (80, "'message' on an allow rule without 'rewrite' is never shown", "warning"),
    (86, "path_glob '**/*.pem' is relative", "warning"),
    (86, "to match it anywhere write '/**/*.pem'", "warning"),
    (90, "path_under 'etc' is relative", "warning"),
    (92, "does not see through 'sudo rm'", "warning"),
]


def toolhost(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env={"XDG_CONFIG_HOME": None, "HOME": str(home)})


def _code_lines(text: str) -> str:
    return "\n".join(line.split("  #", 1)[0].rstrip() for line in text.splitlines()) + "\n"


def test_every_mistake_is_reported_with_its_line_in_one_run(tmp_path: Path) -> None:
    # the numbers in MISTAKES' comments are tags; find the real line of each
    first = TOOLS.count("\n") + 1
    real = {int(text.rsplit("# ", 1)[1].split()[0]): first + i
            for i, text in enumerate(MISTAKES.splitlines()) if "  # " in text}
    config = tmp_path / "team.yaml"
    config.write_text(TOOLS + _code_lines(MISTAKES))
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    for line, fragment, level in EXPECTED:
        prefix = f"{config}:{real[line]}:"
        hits = [x for x in lines if x.startswith(prefix) and fragment in x]
        assert hits, f"line {line}: no report containing {fragment!r}:\n{out.stderr}"
        assert any(("warning: " in x) == (level == "warning") for x in hits), hits
    clean = {75, 83, 88}  # rules that are fine
    assert not [x for x in lines
                if any(x.startswith(f"{config}:{real[n]}:") for n in clean)]


def test_a_key_error_does_not_hide_import_template_and_rule_errors(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("""\
toolhost: 1
servers:
  s:
    tools:
      a: {python: "no_such_module_for_toolhost_tests:f", bogus: 1}
      b: {command: [echo, "{{ x "]}
permissions:
  default: alow
  deny: [mcp__s__c]
""")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 1
    for needle in (":5:", "bogus", "cannot import", ":6:", "template does not parse",
                   ":8:", "'alow'", ":9:", "has no tool matching 'c'"):
        assert needle in out.stderr, out.stderr


def test_undeclared_servers_warn_and_external_ones_pass(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("""\
toolhost: 1
servers:
  gh:
    external: {type: stdio, command: gh-mcp}
  s:
    tools:
      t: {command: [echo], description: Echo.}
permissions:
  default: deny
  allow:
    - mcp__gh__anything
    - tool: mcp__gh__whatever
      when: {owner: me}
    - mcp__elsewhere__tool
""")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and f"{config}:14:" in lines[0] and "warning: " in lines[0]
    assert "no server 'elsewhere' is declared" in lines[0]
    strict = toolhost("validate", "--strict", str(config), home=tmp_path)
    assert strict.returncode == 1


@pytest.mark.parametrize("written", ["s.t", "t"])
def test_a_rule_naming_a_tool_as_call_does_is_an_error_with_its_wire_name(
        tmp_path: Path, written: str) -> None:
    """`deny: [s.t]` (the name `toolhost call s.t` teaches) matched nothing, with only a
    warning: the tool the team meant to deny stayed allowed."""
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [echo], description: Echo.}\n"
                      f"permissions:\n  default: allow\n  deny: ['{written}']\n")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 1, out.stderr
    assert f"{config}:8:10: permissions.deny[0]: permission rule '{written}': " in out.stderr
    assert "(did you mean 'mcp__s__t'?)" in out.stderr and "warning" not in out.stderr


def test_validate_notes_the_tools_an_unanswerable_ask_denies(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(TOOLS + "permissions:\n  allow: [mcp__files]\n")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "ok (2 servers, 3 tools)" in out.stdout
    (denied,) = [x for x in out.stderr.splitlines() if "always denied" in x]
    assert "always denied: mcp__dev__build" in denied and "mcp__files__" not in denied
    quiet = toolhost("validate", "-q", str(config), home=tmp_path)
    assert quiet.stderr == "" and quiet.stdout == ""
    allowed = tmp_path / "d.yaml"
    allowed.write_text(TOOLS + "permissions:\n  default: deny\n")
    assert "always denied" not in toolhost("validate", str(allowed), home=tmp_path).stderr


@pytest.mark.parametrize("rule, fragment", [
    ('{tool: mcp__files__grep, expr: "' + "(" * 1500 + "1" + ")" * 1500 + '"}',
     "nests too deeply"),
    # (the rule's own length limit comes before the expression's: hostile18)
    ('{tool: mcp__files__grep, expr: "' + "a" * 20000 + '"}', "the limit is 4,096"),
    # each key is its own problem: the first 1,000 listed, the rest counted in one line
    ("{tool: mcp__files__grep, when: {" + ", ".join(f"k{i}: 1" for i in range(2000)) + "}}",
     "no key 'k199' (keys: count, mode, path, pattern)\n"),
    ('{tool: mcp__files__grep, when: {pattern: {equals: ' + "[" * 200 + "]" * 200 + "}}}",
     "nested more than 100 mappings or lists deep"),  # the config's depth limit comes first
    ('{tool: mcp__files__grep, when: {"' + "p" * 900 + '": 1}}', "…"),
    ("{tool: mcp__files__grep, when: [pattern]}", "expected a mapping"),
    ("{tool: [mcp__files__grep]}", "expected a string"),
])
def test_hostile_rules_get_located_errors(tmp_path: Path, rule: str, fragment: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(TOOLS + "permissions:\n  deny:\n    - " + rule + "\n")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert f"{config}:20:" in out.stderr and fragment in out.stderr, out.stderr[:2000]
    assert len(out.stderr.splitlines()) <= 1001  # a problem a line, at most 1,000 and a count


def test_an_operator_given_another_operators_value_is_a_warning(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(TOOLS + """\
permissions:
  default: deny
  deny:
    - tool: mcp__files__grep
      when: {path: {path_under: "/etc/**"}}
    - tool: mcp__files__grep
      when: {pattern: {glob: ".*secret.*"}}
    - tool: mcp__files__grep
      when: {pattern: {equals: "*.env"}}
    - tool: mcp__files__grep
      when: {mode: {one_of: [fast, quick]}}
""")
    out = toolhost("validate", str(config), home=tmp_path)
    assert out.returncode == 0, out.stderr
    # command tools' notes (facts about running them: option positions, no description)
    # are not rule warnings
    lines = [x for x in out.stderr.splitlines() if ": note: " not in x]
    assert all("warning: " in x for x in lines), lines
    for line, fragment in ((22, "path_under takes a directory"),
                           (24, "glob is a shell-style wildcard, not a regex"),
                           (26, "did you mean {glob: \"*.env\"}?"),
                           (28, 'one_of lists values the argument can never take: "quick"')):
        assert any(x.startswith(f"{config}:{line}:") and fragment in x for x in lines), (
            line, out.stderr)


@pytest.mark.parametrize(("mcp", "said"), [
    ("{cwd: other, command: [fs-server]}", "upstream server 'fs' runs in"),
    ("{url: 'http://127.0.0.1:9/mcp'}", "upstream server 'fs' is reached over HTTP"),
    ("{cwd: proj, command: [fs-server]}", ""),  # where the rules judge: nothing to say
    ("{command: [fs-server]}", ""),  # runs where the rules judge (gateway.start)
])
def test_a_path_condition_on_an_upstream_that_reads_paths_elsewhere_is_a_warning(
        tmp_path: Path, mcp: str, said: str) -> None:
    """A relative path argument is judged against the rules' directory (run.cwd); an
    upstream with an mcp.cwd of its own elsewhere, or one over HTTP, reads it elsewhere."""
    from toolhost.config.loader import load_config
    from toolhost.permissions.authoring.mistakes import review_rules

    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    config = tmp_path / "th.yaml"
    config.write_text(f"toolhost: 1\nrun: {{cwd: proj}}\nservers:\n  fs:\n    mcp: {mcp}\n"
                      "permissions:\n  allow:\n    - tool: mcp__fs__read\n"
                      "      when: {path: {path_under: proj}}\n")
    loaded = load_config(config, layers=False)
    shown = [str(f.problem) for f in review_rules(loaded) if "when.path" in str(f.problem)]
    if not said:
        assert shown == []
        return
    assert len(shown) == 1 and said in shown[0] and "th.yaml:9:" in shown[0], shown


@pytest.mark.parametrize(("tool", "said"), [
    ('command: {argv: [cat, "{{ path }}"], cwd: other}', "reads a relative path in "),
    ('http: {url: "http://127.0.0.1:9/f/{path}"}', "somewhere unknown"),
    ('command: {argv: [cat, "{{ path }}"], cwd: proj}', ""),
    ('command: [cat, "{{ path }}"]', ""),  # runs where toolhost runs: not known here
])
def test_a_path_condition_on_an_own_tool_that_reads_paths_elsewhere_is_a_warning(
        tmp_path: Path, tool: str, said: str) -> None:
    """Round 19: a command tool's cwd elsewhere, an HTTP tool: its relative paths are not
    judged by path_under (the policy fails closed on them); validate says so."""
    from toolhost.config.loader import load_config
    from toolhost.permissions.authoring.mistakes import review_rules

    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    config = tmp_path / "th.yaml"
    config.write_text(f"toolhost: 1\nrun: {{cwd: proj}}\nservers:\n  fs:\n    tools:\n"
                      f"      read:\n        {tool}\n"
                      "permissions:\n  allow:\n    - tool: mcp__fs__read\n"
                      "      when: {path: {path_under: proj}}\n")
    loaded = load_config(config, layers=False)
    shown = [str(f.problem) for f in review_rules(loaded) if "when.path" in str(f.problem)]
    if not said:
        assert shown == []
        return
    assert len(shown) == 1 and said in shown[0] and "th.yaml:11:" in shown[0], shown
