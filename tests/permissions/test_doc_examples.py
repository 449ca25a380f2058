"""Every example docs/permissions.md gives is what the engine does. The tables and lists the
page spells out (canonical hosts, unreadable URLs, program words that are not provable,
programs whose arguments are not modelled) are read from the page itself; each example of
its prose is a case here that also checks the page still says it, so the two cannot drift."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.urls import url_host

DOC = (Path(__file__).parents[2] / "docs" / "permissions.md").read_text(encoding="utf-8")
FLAT = " ".join(DOC.split())
_TICKS = re.compile(r"``\s(.+?)\s``|`([^`]+)`")


def _ticked(text: str) -> list[str]:
    return [a or b for a, b in _TICKS.findall(text)]


def _between(start: str, end: str) -> str:
    at = FLAT.index(start) + len(start)
    return FLAT[at:FLAT.index(end, at)]


def _decide(rules: dict[str, list[Any]], tool: str, tool_input: dict[str, Any],
            default: str = "ask", cwd: str = "/") -> str:
    origin = Origin(os.path.join(cwd, "toolhost.yaml"), 1, 1, "")
    compiled = [RuleConfig(effect, r, origin=origin) if isinstance(r, str)  # type: ignore[arg-type]
                else RuleConfig(effect, origin=origin, **r)  # type: ignore[arg-type]
                for effect in ("deny", "ask", "allow") for r in rules.get(effect, [])]
    policy = compile_policy(PermissionsConfig(default=default,  # type: ignore[arg-type]
                                              rules=tuple(compiled)), cwd=cwd)
    return policy.decide(tool, tool_input).behavior


def _host_rows() -> list[tuple[str, str]]:
    table = DOC.split("| Spelling in the URL or the rule | Canonical host |", 1)[1]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        spelled, canonical = line.strip("|").split(" | ", 1)
        spellings = _ticked(re.sub(r"\([^()]*\)", "", spelled))
        hosts = _ticked(re.sub(r"\([^()]*\)", "", canonical))
        pairs = zip(spellings, hosts, strict=True) if len(hosts) > 1 else (
            (s, hosts[0]) for s in spellings)
        rows += [(s.encode().decode("unicode_escape") if "\\u" in s else s, h)
                 for s, h in pairs]
    return rows


HOSTS = _host_rows()


def test_the_host_table_was_read() -> None:
    assert len(HOSTS) >= 25 and ("0x7f.0.0.1", "127.0.0.1") in HOSTS


@pytest.mark.parametrize(("spelling", "canonical"), HOSTS)
def test_each_spelling_of_the_host_table_is_its_canonical_host(spelling: str,
                                                               canonical: str) -> None:
    assert url_host(f"https://{spelling}/x") == canonical
    rule = f"WebFetch(domain:{canonical.strip('[]') if ':' not in canonical else canonical})"
    assert _decide({"allow": [rule]}, "WebFetch", {"url": f"http://{spelling}/"}) == "allow"
    assert _decide({"deny": [f"WebFetch(domain:{spelling})"]}, "WebFetch",
                   {"url": f"http://{canonical}/"}, default="allow") == "deny"


# "A URL whose host cannot be read": the list's items, as URLs
UNREADABLE = _ticked(_between("**A URL whose host cannot be read matches every deny and ask "
                              "rule and no allow rule**:", "a name IDNA refuses"))
AS_URL = {"ftp:": "ftp://example.com/", "file:": "file:///etc/passwd",
          "example.com": "example.com", ":abc": "http://example.com:abc/",
          ":99999": "http://example.com:99999/", "<": "http://exa<mple.com/",
          "^": "http://exa^mple.com/", "%": "http://exa%mple.com/"}


@pytest.mark.parametrize("item", UNREADABLE)
def test_each_unreadable_url_of_the_doc_meets_deny_and_never_allow(item: str) -> None:
    url = AS_URL.get(item, f"http://{item}/")
    assert url_host(url) is None, url
    assert _decide({"deny": ["WebFetch(domain:example.com)"]}, "WebFetch", {"url": url},
                   default="allow") == "deny"
    assert _decide({"allow": ["WebFetch"]}, "WebFetch", {"url": url}) == "allow"
    assert _decide({"allow": ["WebFetch(domain:example.com)"]}, "WebFetch",
                   {"url": url}) == "ask"


NOT_PLAIN = _ticked(_between("**Not provable**, whatever the rules say: a program word that "
                             "is not a plain literal (", ");"))
OPAQUE = _ticked(_between("or an extended glob `@(...)`);", "and similar"))
ANYWHERE = _ticked(_between("`~/bin/x`);", "anywhere;"))


def test_the_lists_were_read() -> None:
    assert "$'rm'" in NOT_PLAIN and "`echo rm`" in NOT_PLAIN and len(NOT_PLAIN) == 14
    assert "taskset" in OPAQUE and "nq" in OPAQUE and len(OPAQUE) > 50
    assert ANYWHERE[0] == "eval" and "trap" in ANYWHERE


@pytest.mark.parametrize("word", NOT_PLAIN)
def test_a_program_word_the_doc_calls_not_plain_is_never_allowed(word: str) -> None:
    command = {"command": f"{word} x"}
    assert _decide({"allow": ["Bash"]}, "Bash", command, default="allow") == "ask"
    assert _decide({"deny": ["Bash(git push:*)"]}, "Bash", command, default="allow") == "deny"


@pytest.mark.parametrize("name", OPAQUE + ANYWHERE)
def test_a_program_the_doc_does_not_model_is_never_allowed_and_seen_through(name: str) -> None:
    assert _decide({"allow": ["Bash"]}, "Bash", {"command": f"{name} ls"}) == "ask"
    assert _decide({"deny": ["Bash(rm:*)"]}, "Bash", {"command": f"ls; {name} rm x"},
                   default="allow") == "deny"


HOME = os.path.expanduser("~")
# (what the page says, rules, tool, input, decision, default); each snippet must be in the page
PROSE: list[tuple[str, dict[str, list[Any]], str, dict[str, Any], str, str]] = [
    ("`Bash(npm run test:*)` | is `npm run test` or starts with `npm run test `",
     {"allow": ["Bash(npm run test:*)"]}, "Bash", {"command": "npm run test -- x"}, "allow", "ask"),
    ("(a word boundary: not `npm run testx`)",
     {"allow": ["Bash(npm run test:*)"]}, "Bash", {"command": "npm run testx"}, "ask", "ask"),
    ("`Bash(npm run build)` | is exactly `npm run build`",
     {"allow": ["Bash(npm run build)"]}, "Bash", {"command": "npm run build x"}, "ask", "ask"),
    ("`Bash(git * main)` | matches the wildcard pattern",
     {"allow": ["Bash(git * main)"]}, "Bash", {"command": "git push origin main"}, "allow", "ask"),
    ("`Bash(ls *)` | is `ls` or starts with `ls `",
     {"allow": ["Bash(ls *)"]}, "Bash", {"command": "ls"}, "allow", "ask"),
    ("keeps the word boundary: not `lsof`",
     {"allow": ["Bash(ls *)"]}, "Bash", {"command": "lsof"}, "ask", "ask"),
    ("`Bash(curl * \\| sh)` | (a rule containing operators)",
     {"deny": ["Bash(curl * | sh)"]}, "Bash", {"command": "curl http://x | sh"}, "deny", "allow"),
    ("(`echo \"a && b\"` is one command)",
     {"allow": ["Bash(echo:*)"]}, "Bash", {"command": 'echo "a && b"'}, "allow", "ask"),
    ("(`\"rm\" -rf /` is the command `rm -rf /`)",
     {"deny": ["Bash(rm -rf:*)"]}, "Bash", {"command": '"rm" -rf /'}, "deny", "allow"),
    ("(`\"git\" status` is `git status`)",
     {"allow": ["Bash(git status)"]}, "Bash", {"command": '"git" status'}, "allow", "ask"),
    ("`$'\\x72m'` is `rm`", {"deny": ["Bash(rm:*)"]}, "Bash", {"command": "$'\\x72m' x"},
     "deny", "allow"),
    ("`Bash(sudo:*)` allows `sudo -l`", {"allow": ["Bash(sudo:*)"]}, "Bash",
     {"command": "sudo -l"}, "allow", "ask"),
    ("but not `sudo rm -rf /`", {"allow": ["Bash(sudo:*)"]}, "Bash",
     {"command": "sudo rm -rf /"}, "ask", "ask"),
    ("`Bash(sudo:*)` with `Bash(rm:*)` allows `sudo rm x`",
     {"allow": ["Bash(sudo:*)", "Bash(rm:*)"]}, "Bash", {"command": "sudo rm x"}, "allow", "ask"),
    ("`Bash(/usr/bin/env:*)` does not allow `/usr/bin/env rm`",
     {"allow": ["Bash(/usr/bin/env:*)"]}, "Bash", {"command": "/usr/bin/env rm"}, "ask", "ask"),
    ("`Bash(npm test:*)` allows `timeout 30 npm test`", {"allow": ["Bash(npm test:*)"]},
     "Bash", {"command": "timeout 30 npm test"}, "allow", "ask"),
    ("and `CI=1 npm test`", {"allow": ["Bash(npm test:*)"]}, "Bash",
     {"command": "CI=1 npm test"}, "allow", "ask"),
    ("`Bash(sudo npm test:*)` allows `sudo npm test --watch`",
     {"allow": ["Bash(sudo npm test:*)"]}, "Bash", {"command": "sudo npm test --watch"},
     "allow", "ask"),
    ("(`git status && git status` with `Bash(git status)`)", {"allow": ["Bash(git status)"]},
     "Bash", {"command": "git status && git status"}, "allow", "ask"),
    ("(`git status && npm test` with `Bash(git status)` and `Bash(npm test:*)`",
     {"allow": ["Bash(git status)", "Bash(npm test:*)"]}, "Bash",
     {"command": "git status && npm test"}, "allow", "ask"),
    *[("So `Bash(npm run test:*)` does **not** allow " + shown, {"allow": ["Bash(npm run test:*)"]},
       "Bash", {"command": command}, "ask", "ask")
      for shown, command in [("`npm run test && rm -rf x`", "npm run test && rm -rf x")]],
    *[(f"`{c}`", {"allow": ["Bash(npm run test:*)"]}, "Bash", {"command": c}, "ask", "ask")
      for c in ["npm run test; rm -rf x", "npm run test | sh", "npm run test $(rm -rf x)",
                "npm run test > ~/.profile"]],
    ("`Bash(rm:*)` denies `ls && FOO=1 sudo rm -rf /`", {"deny": ["Bash(rm:*)"]}, "Bash",
     {"command": "ls && FOO=1 sudo rm -rf /"}, "deny", "allow"),
    ("and `echo $(rm -rf /)`", {"deny": ["Bash(rm:*)"]}, "Bash",
     {"command": "echo $(rm -rf /)"}, "deny", "allow"),
    ("(`find . -exec rm {} +` runs `rm`)", {"deny": ["Bash(rm:*)"]}, "Bash",
     {"command": "find . -exec rm {} +"}, "deny", "allow"),
    ("`echo rm x | xargs nohup`", {"allow": ["Bash"]}, "Bash",
     {"command": "echo rm x | xargs nohup"}, "ask", "ask"),
    ("(`sudo --frobnicate ls`)", {"allow": ["Bash"]}, "Bash",
     {"command": "sudo --frobnicate ls"}, "ask", "ask"),
    ("(`echo rm x | sudo -s`)", {"deny": ["Bash(rm:*)"]}, "Bash",
     {"command": "echo rm x | sudo -s"}, "deny", "allow"),
    ("(`fish -c 'rm x'`)", {"allow": ["Bash"]}, "Bash", {"command": "fish -c 'rm x'"}, "ask",
     "ask"),
    ("(`test -v 'a[$(rm x)]'` runs `rm`)", {"deny": ["Bash(rm:*)"]}, "Bash",
     {"command": "test -v 'a[$(rm x)]'"}, "deny", "allow"),
    # paths
    ("`Read(./src/**)` does not allow `src/../.env`", {"allow": ["Read(./src/**)"]}, "Read",
     {"file_path": "src/../.env"}, "ask", "ask"),
    ("`deny: Read(~/.ssh)` denies `~/.ssh/id_rsa`", {"deny": ["Read(~/.ssh)"]}, "Read",
     {"file_path": "~/.ssh/id_rsa"}, "deny", "allow"),
    ("`deny: Edit(//etc)` denies writing `/etc/passwd`", {"deny": ["Edit(//etc)"]}, "Write",
     {"file_path": "/etc/passwd", "content": "x"}, "deny", "allow"),
    ("`deny: Read(./src/*)` denies `src/deep/x.py`", {"deny": ["Read(./src/*)"]}, "Read",
     {"file_path": "src/deep/x.py"}, "deny", "allow"),
    ("`deny: Read(.aws)` denies `sub/.aws/credentials`", {"deny": ["Read(.aws)"]}, "Read",
     {"file_path": "sub/.aws/credentials"}, "deny", "allow"),
    ("`allow: Read(./src)` does not allow `src/a.py`", {"allow": ["Read(./src)"]}, "Read",
     {"file_path": "src/a.py"}, "ask", "ask"),
    ("(write `Read(./src/**)`)", {"allow": ["Read(./src/**)"]}, "Read",
     {"file_path": "src/a.py"}, "allow", "ask"),
    ("`//etc/**` | the filesystem root: `/etc/**`", {"allow": ["Read(//etc/**)"]}, "Read",
     {"file_path": "/etc/hosts"}, "allow", "ask"),
    ("`~/.ssh/**` | the home directory", {"allow": ["Read(~/.ssh/**)"]}, "Read",
     {"file_path": f"{HOME}/.ssh/config"}, "allow", "ask"),
    ("`/docs/**` | the directory of the file that declared the rule", {"allow": ["Read(/docs/**)"]},
     "Read", {"file_path": "/docs/a.md"}, "ask", "ask"),
    ("`./src/**`, `src/**` | the working directory", {"allow": ["Read(src/**)"]}, "Read",
     {"file_path": "src/a.py"}, "allow", "ask"),
    ("(`deny: Read(.env)` and a Grep of the project", {"deny": ["Read(.env)"]}, "Grep",
     {"pattern": "x"}, "ask", "allow"),
    ("`deny: Read(~/.ssh/**)` and `Grep {\"path\": \"~\", \"glob\": \".ssh/*\"}`",
     {"deny": ["Read(~/.ssh/**)"]}, "Grep", {"pattern": "x", "path": "~", "glob": ".ssh/*"},
     "ask", "allow"),
    ("(`Grep src` with `deny: Read(./secret/**)`)", {"deny": ["Read(./secret/**)"]}, "Grep",
     {"pattern": "x", "path": "src"}, "allow", "allow"),
    ("with `Read(./.env)` (the top-level file only) a search of a subdirectory does not",
     {"deny": ["Read(./.env)"]}, "Grep", {"pattern": "x", "path": "src"}, "allow", "allow"),
    ("(`*/../../*`)", {"allow": ["Read"]}, "Glob", {"pattern": "*/../../*", "path": "src"},
     "allow", "ask"),
    ("(`{x,../..}/*`)", {"allow": ["Read(./src/**)"]}, "Glob",
     {"pattern": "{x,../..}/*", "path": "src"}, "ask", "ask"),
    ("`..?` or `a..b` are names, not `..`", {"allow": ["Read(./src/**)"]}, "Glob",
     {"pattern": "a..b", "path": "src"}, "allow", "ask"),
    ("`~/.ssh/*` is under the home directory, not under `path`",
     {"deny": ["Read(~/.ssh/**)"]}, "Glob", {"pattern": "~/.ssh/*", "path": "/tmp"}, "deny",
     "allow"),
    # WebFetch
    *[(f"not `{bad}`", {"allow": ["WebFetch(domain:example.com)"]}, "WebFetch",
       {"url": f"https://{bad}/"}, "ask", "ask")
      for bad in ["api.example.com", "example.com.evil.net"]],
    ("not `https://example.com@evil.net/`", {"allow": ["WebFetch(domain:example.com)"]},
     "WebFetch", {"url": "https://example.com@evil.net/"}, "ask", "ask"),
    ("`WebFetch(domain:*.example.com)` matches `example.com` and every subdomain",
     {"allow": ["WebFetch(domain:*.example.com)"]}, "WebFetch",
     {"url": "https://a.b.example.com/"}, "allow", "ask"),
    ("(not `badexample.com`", {"allow": ["WebFetch(domain:*.example.com)"]}, "WebFetch",
     {"url": "https://badexample.com/"}, "ask", "ask"),
    ("(`https://evil.net\\@example.com/` goes to `evil.net`)",
     {"deny": ["WebFetch(domain:evil.net)"]}, "WebFetch",
     {"url": "https://evil.net\\@example.com/"}, "deny", "allow"),
    ("(`http:example.com`, `https:///example.com`)", {"allow": ["WebFetch(domain:example.com)"]},
     "WebFetch", {"url": "https:///example.com"}, "allow", "ask"),
    ("(`http://a@b/` goes to `b`)", {"allow": ["WebFetch(domain:b)"]}, "WebFetch",
     {"url": "http://a@b/"}, "allow", "ask"),
    # names
    ("| `mcp__git` or `mcp__git__*` | every tool of server `git` (not `mcp__github__...`)",
     {"allow": ["mcp__git"]}, "mcp__github__log", {}, "ask", "ask"),
    ("| `mcp__github__get_*` | tools of `github` whose name starts with `get_`",
     {"allow": ["mcp__github__get_*"]}, "mcp__github__get_issue", {}, "allow", "ask"),
    ("| `mcp__prod*` | every tool of every server whose name starts with `prod`",
     {"allow": ["mcp__prod*"]}, "mcp__production__x", {}, "allow", "ask"),
    ("| `Edit` | `Edit`, `Write`, `MultiEdit`, `NotebookEdit`", {"deny": ["Edit"]},
     "NotebookEdit", {"notebook_path": "/x.ipynb"}, "deny", "allow"),
    ("| `Read` | `Read`, `Grep`, `Glob`, `LS`, `NotebookRead`", {"deny": ["Read"]}, "LS",
     {"path": "/"}, "deny", "allow"),
    ("`Rea?`, `Re*` name the whole Read family", {"allow": ["Rea?"]}, "Grep", {"pattern": "x"},
     "allow", "ask"),
    ("`Ag*` both sub-agent names", {"allow": ["Ag*"]}, "Task", {"subagent_type": "x"}, "allow",
     "ask"),
    ("Names are case-sensitive (`bash` is not `Bash`", {"allow": ["Bash"]}, "bash",
     {"command": "ls"}, "ask", "ask"),
    ("`mcp__git___log` (server `git` or `git_`)", {"allow": ["mcp__git"]}, "mcp__git___log", {},
     "ask", "ask"),
    ("an allow rule matches it only by its exact full name (`mcp__git___log`)",
     {"allow": ["mcp__git___log"]}, "mcp__git___log", {}, "allow", "ask"),
    ("a deny or ask rule naming either server", {"deny": ["mcp__git_"]}, "mcp__git___log", {},
     "deny", "allow"),
    ("A rule written `mcp__a__b` is the tool `b` of server `a`, exactly.",
     {"allow": ["mcp__a__b"]}, "mcp__a__b__c", {}, "ask", "ask"),
    ("`Task(explorer)` matches a sub-agent call whose `subagent_type` is exactly `explorer`",
     {"allow": ["Task(explorer)"]}, "Agent", {"subagent_type": "explorer"}, "allow", "ask"),
    ("`Agent(explorer)` is the same rule", {"allow": ["Agent(explorer)"]}, "Task",
     {"subagent_type": "explorer"}, "allow", "ask"),
    # conditions
    ("`{\"sql\": [\"DELETE FROM users\"]}`",
     {"deny": [{"tool": "mcp__db__query", "when": {"sql": {"regex": "(?is).*delete.*"}}}],
      "allow": ["mcp__db__query"]}, "mcp__db__query", {"sql": ["DELETE FROM users"]}, "deny",
     "ask"),
    ("`{\"sql\": 1}` and `{\"sql\": null}` are denied",
     {"deny": [{"tool": "mcp__db__query", "when": {"sql": {"regex": "(?is).*delete.*"}}}],
      "allow": ["mcp__db__query"]}, "mcp__db__query", {"sql": None}, "deny", "ask"),
    ("(`1` is not `true`; `1` equals `1.0`)", {"allow": [{"tool": "mcp__a__b",
                                                         "when": {"n": 1}}]},
     "mcp__a__b", {"n": 1.0}, "allow", "ask"),
    ("a missing argument never equals anything, not even `null`",
     {"allow": [{"tool": "mcp__a__b", "when": {"n": None}}]}, "mcp__a__b", {}, "ask", "ask"),
    ("`drop\\vtable`", {"deny": [{"tool": "mcp__db__query",
                                  "when": {"sql": {"regex": "(?is).*drop\\s+table.*"}}}]},
     "mcp__db__query", {"sql": "drop\vtable"}, "allow", "allow"),
]


@pytest.mark.parametrize(("said", "rules", "tool", "tool_input", "expected", "default"), PROSE,
                         ids=[p[0][:60] for p in PROSE])
def test_each_prose_example_is_what_the_engine_does(
        tmp_path: Path, said: str, rules: dict[str, list[Any]], tool: str,
        tool_input: dict[str, Any], expected: str, default: str) -> None:
    assert " ".join(said.split()) in FLAT, f"the page no longer says {said!r}"
    (tmp_path / "src" / "deep").mkdir(parents=True)
    assert _decide(rules, tool, tool_input, default, cwd=str(tmp_path)) == expected
