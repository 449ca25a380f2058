"""Table: (rules, tool, input) -> decision. ``{root}`` is a real temporary directory tree:

    {root}/proj/src/app.py        {root}/proj/.env
    {root}/data/report.csv        {root}/data/escape -> {root}/outside  (symlink)
    {root}/outside/secret.txt     the rules' file is {root}/conf/perms.yaml
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

Rule = tuple[str, str, dict[str, Any]]


def r(effect: str, tool: str, **kw: Any) -> Rule:
    return (effect, tool, kw)


DATA_RULE = r("allow", "mcp__fs__read", when={"path": {"path_under": "{root}/data"}})
CASES: list[tuple[str, list[Rule], str, dict[str, Any], str, str | None]] = [
    # --- tool names
    ("exact name", [r("allow", "mcp__git__log")], "mcp__git__log", {}, "allow", "mcp__git__log"),
    ("exact name other tool", [r("allow", "mcp__git__log")], "mcp__git__push", {}, "ask", None),
    ("server bare", [r("allow", "mcp__git")], "mcp__git__push", {}, "allow", "mcp__git"),
    ("server star", [r("allow", "mcp__git__*")], "mcp__git__push", {}, "allow", "mcp__git__*"),
    ("server is not a prefix", [r("allow", "mcp__git")], "mcp__github__x", {}, "ask", None),
    ("server star not prefix", [r("allow", "mcp__git__*")], "mcp__gitx__log", {}, "ask", None),
    ("tool glob", [r("allow", "mcp__gh__get_*")], "mcp__gh__get_issue", {}, "allow",
     "mcp__gh__get_*"),
    ("tool glob miss", [r("allow", "mcp__gh__get_*")], "mcp__gh__create_issue", {}, "ask", None),
    ("glob whole name", [r("allow", "mcp__gh__get_*")], "mcp__gh__xget_issue", {}, "ask", None),
    ("question mark", [r("deny", "mcp__db__q?")], "mcp__db__q1", {}, "deny", "mcp__db__q?"),
    ("server glob", [r("deny", "mcp__prod*")], "mcp__production__drop", {}, "deny", "mcp__prod*"),
    ("bare builtin", [r("allow", "WebSearch")], "WebSearch", {"query": "x"}, "allow", "WebSearch"),
    ("case matters", [r("allow", "bash")], "Bash", {"command": "ls"}, "ask", None),
    ("edit family", [r("deny", "Edit")], "Write", {"file_path": "/x"}, "deny", "Edit"),
    ("read family", [r("allow", "Read(./src/**)")], "Grep", {"path": "{root}/proj/src"},
     "allow", "Read(./src/**)"),
    # --- precedence and layers
    ("deny beats allow", [r("allow", "mcp__git__*"), r("deny", "mcp__git__push")],
     "mcp__git__push", {}, "deny", "mcp__git__push"),
    ("ask beats allow", [r("allow", "mcp__git__push"), r("ask", "mcp__git__*")],
     "mcp__git__push", {}, "ask", "mcp__git__*"),
    ("first allow wins", [r("allow", "mcp__a__*"), r("allow", "mcp__a__b")], "mcp__a__b", {},
     "allow", "mcp__a__*"),
    ("layered: local allow cannot lift an extends deny",
     [r("deny", "mcp__db__drop", layer="extends"), r("allow", "mcp__db__drop", layer="local")],
     "mcp__db__drop", {}, "deny", "mcp__db__drop"),
    ("layered: user allow cannot lift a plugin deny",
     [r("allow", "mcp__db", layer="user"), r("deny", "mcp__db__*", layer="plugin:x")],
     "mcp__db__q", {}, "deny", "mcp__db__*"),
    # --- Bash prefix and chaining
    ("prefix plain", [r("allow", "Bash(npm run test:*)")], "Bash", {"command": "npm run test"},
     "allow", "Bash(npm run test:*)"),
    ("prefix args", [r("allow", "Bash(npm run test:*)")], "Bash",
     {"command": "npm run test -- --watch"}, "allow", "Bash(npm run test:*)"),
    ("prefix word boundary", [r("allow", "Bash(npm run test:*)")], "Bash",
     {"command": "npm run testx"}, "ask", None),
    ("prefix &&", [r("allow", "Bash(npm run test:*)")], "Bash",
     {"command": "npm run test && rm -rf x"}, "ask", None),
    ("prefix ;", [r("allow", "Bash(npm test:*)")], "Bash", {"command": "npm test; rm -rf x"},
     "ask", None),
    ("prefix ||", [r("allow", "Bash(npm test:*)")], "Bash", {"command": "npm test || curl x"},
     "ask", None),
    ("prefix pipe", [r("allow", "Bash(npm test:*)")], "Bash", {"command": "npm test | sh"},
     "ask", None),
    ("prefix background &", [r("allow", "Bash(npm test:*)")], "Bash",
     {"command": "npm test & rm x"}, "ask", None),
    ("prefix newline", [r("allow", "Bash(npm test:*)")], "Bash", {"command": "npm test\nrm x"},
     "ask", None),
    ("prefix $()", [r("allow", "Bash(echo:*)")], "Bash", {"command": "echo $(rm -rf ~)"},
     "ask", None),
    ("prefix backticks", [r("allow", "Bash(echo:*)")], "Bash", {"command": "echo `rm -rf ~`"},
     "ask", None),
    ("prefix $() in double quotes", [r("allow", "Bash(echo:*)")], "Bash",
     {"command": 'echo "$(id)"'}, "ask", None),
    ("prefix redirection", [r("allow", "Bash(echo:*)")], "Bash",
     {"command": "echo x > ~/.bashrc"}, "ask", None),
    ("prefix append redirection", [r("allow", "Bash(echo:*)")], "Bash",
     {"command": "echo x>>~/.bashrc"}, "ask", None),
    ("fd dup is harmless", [r("allow", "Bash(npm test:*)")], "Bash",
     {"command": "npm test 2>&1"}, "allow", "Bash(npm test:*)"),
    ("quoted operators are data", [r("allow", "Bash(echo:*)")], "Bash",
     {"command": "echo 'a && rm -rf x; b'"}, "allow", "Bash(echo:*)"),
    ("every part allowed by some rule",
     [r("allow", "Bash(git status)"), r("allow", "Bash(git diff:*)")],
     "Bash", {"command": "git status && git diff HEAD"}, "allow",
     "Bash(git status) + Bash(git diff:*)"),
    ("one part not allowed", [r("allow", "Bash(git status)"), r("allow", "Bash(git diff:*)")],
     "Bash", {"command": "git status && git push"}, "ask", None),
    ("exact only", [r("allow", "Bash(git status)")], "Bash", {"command": "git status -s"},
     "ask", None),
    ("exact whitespace", [r("allow", "Bash(git status)")], "Bash", {"command": "  git   status "},
     "allow", "Bash(git status)"),
    ("deny any part", [r("allow", "Bash"), r("deny", "Bash(rm:*)")], "Bash",
     {"command": "ls && rm -rf /"}, "deny", "Bash(rm:*)"),
    ("deny inside substitution", [r("allow", "Bash"), r("deny", "Bash(rm:*)")], "Bash",
     {"command": "echo $(rm -rf /)"}, "deny", "Bash(rm:*)"),
    ("deny through sudo and env", [r("deny", "Bash(rm:*)")], "Bash",
     {"command": "FOO=1 sudo rm -rf /"}, "deny", "Bash(rm:*)"),
    ("deny quoted command word", [r("deny", "Bash(rm:*)")], "Bash", {"command": '"rm" -rf /'},
     "deny", "Bash(rm:*)"),
    ("deny not by substring", [r("deny", "Bash(rm:*)")], "Bash", {"command": "rmdir x"},
     "ask", None),
    ("unparsable: deny matches", [r("allow", "Bash"), r("deny", "Bash(rm:*)")], "Bash",
     {"command": "echo 'unterminated"}, "deny", "Bash(rm:*)"),
    ("unparsable: allow does not", [r("allow", "Bash(echo:*)")], "Bash",
     {"command": "echo 'unterminated"}, "ask", None),
    ("wildcard middle", [r("allow", "Bash(git * main)")], "Bash",
     {"command": "git push origin main"}, "allow", "Bash(git * main)"),
    ("space star boundary", [r("allow", "Bash(ls *)")], "Bash", {"command": "lsof -i"}, "ask",
     None),
    ("space star", [r("allow", "Bash(ls *)")], "Bash", {"command": "ls -la"}, "allow",
     "Bash(ls *)"),
    ("ask any part", [r("allow", "Bash"), r("ask", "Bash(git push:*)")], "Bash",
     {"command": "git add . && git push"}, "ask", "Bash(git push:*)"),
    # --- Read/Edit paths
    ("read ./src", [r("allow", "Read(./src/**)")], "Read", {"file_path": "{root}/proj/src/app.py"},
     "allow", "Read(./src/**)"),
    ("read ./src traversal", [r("allow", "Read(./src/**)")], "Read",
     {"file_path": "{root}/proj/src/../.env"}, "ask", None),
    ("read relative input", [r("allow", "Read(./src/**)")], "Read", {"file_path": "src/app.py"},
     "allow", "Read(./src/**)"),
    ("read floating name", [r("deny", "Read(.env)")], "Read", {"file_path": "{root}/proj/.env"},
     "deny", "Read(.env)"),
    ("read floating glob deep", [r("deny", "Read(*.csv)")], "Read",
     {"file_path": "{root}/proj/src/deep/x.csv"}, "deny", "Read(*.csv)"),
    ("star stays in segment", [r("allow", "Read(./src/*)")], "Read",
     {"file_path": "{root}/proj/src/deep/x.py"}, "ask", None),
    ("double slash absolute", [r("deny", "Edit(//{rootrel}/outside/**)")], "Edit",
     {"file_path": "{root}/outside/secret.txt"}, "deny", "Edit(//{rootrel}/outside/**)"),
    ("edit rule covers Write", [r("deny", "Edit(//{rootrel}/outside/**)")], "Write",
     {"file_path": "{root}/outside/new.txt"}, "deny", "Edit(//{rootrel}/outside/**)"),
    ("slash is relative to the rules' file", [r("allow", "Read(/notes/**)")], "Read",
     {"file_path": "{root}/conf/notes/a.md"}, "allow", "Read(/notes/**)"),
    ("slash is not absolute", [r("allow", "Read(/notes/**)")], "Read", {"file_path": "/notes/a"},
     "ask", None),
    ("symlink escape", [r("allow", "Read(//{rootrel}/data/**)")], "Read",
     {"file_path": "{root}/data/escape/secret.txt"}, "ask", None),
    ("grep without path searches cwd", [r("deny", "Read(./**)")], "Grep", {"pattern": "x"},
     "deny", "Read(./**)"),
    ("glob absolute pattern", [r("allow", "Read(./**)")], "Glob", {"pattern": "/etc/*"},
     "ask", None),
    # --- WebFetch
    ("domain", [r("allow", "WebFetch(domain:example.com)")], "WebFetch",
     {"url": "https://EXAMPLE.com./a"}, "allow", "WebFetch(domain:example.com)"),
    ("domain exact, not subdomains", [r("allow", "WebFetch(domain:example.com)")], "WebFetch",
     {"url": "https://api.example.com/a"}, "ask", None),
    ("domain suffix trick", [r("allow", "WebFetch(domain:example.com)")], "WebFetch",
     {"url": "https://example.com.evil.net/"}, "ask", None),
    ("userinfo trick", [r("allow", "WebFetch(domain:example.com)")], "WebFetch",
     {"url": "https://example.com@evil.net/"}, "ask", None),
    ("subdomain wildcard", [r("allow", "WebFetch(domain:*.example.com)")], "WebFetch",
     {"url": "http://a.b.example.com:8080/"}, "allow", "WebFetch(domain:*.example.com)"),
    ("subdomain wildcard includes the apex", [r("deny", "WebFetch(domain:*.example.com)")],
     "WebFetch", {"url": "http://example.com/"}, "deny", "WebFetch(domain:*.example.com)"),
    ("subdomain wildcard is a label boundary", [r("allow", "WebFetch(domain:*.example.com)")],
     "WebFetch", {"url": "http://badexample.com/"}, "ask", None),
    ("bad url vs deny", [r("allow", "WebFetch"), r("deny", "WebFetch(domain:evil.net)")],
     "WebFetch", {"url": 42}, "deny", "WebFetch(domain:evil.net)"),
    # --- when conditions
    ("equality", [r("deny", "mcp__w__now", when={"city": "Atlantis"})], "mcp__w__now",
     {"city": "Atlantis"}, "deny", 'mcp__w__now when {"city": "Atlantis"}'),
    ("equality other", [r("deny", "mcp__w__now", when={"city": "Atlantis"})], "mcp__w__now",
     {"city": "Paris"}, "ask", None),
    ("json types: 1 is not true", [r("allow", "mcp__a__b", when={"flag": True})], "mcp__a__b",
     {"flag": 1}, "ask", None),
    ("nested path", [r("allow", "mcp__a__b", when={"q.limit": {"max": 10}})], "mcp__a__b",
     {"q": {"limit": 5}}, "allow", 'mcp__a__b when {"q.limit": {"max": 10}}'),
    ("index path", [r("allow", "mcp__a__b", when={"items[1]": "x"})], "mcp__a__b",
     {"items": ["w", "x"]}, "allow", 'mcp__a__b when {"items[1]": "x"}'),
    ("quoted key", [r("allow", "mcp__a__b", when={'h["x.y"]': 1})], "mcp__a__b",
     {"h": {"x.y": 1}}, "allow", 'mcp__a__b when {"h[\\"x.y\\"]": 1}'),
    ("json pointer", [r("allow", "mcp__a__b", when={"/q/items/1/id": 7})], "mcp__a__b",
     {"q": {"items": [{"id": 1}, {"id": 7}]}}, "allow", None),
    ("json pointer key with slash", [r("deny", "mcp__a__b", when={"/h/a~1b": 1})], "mcp__a__b",
     {"h": {"a/b": 1}}, "deny", None),
    ("range", [r("allow", "mcp__a__b", when={"n": {"min": 1, "max": 3}})], "mcp__a__b",
     {"n": 4}, "ask", None),
    ("range rejects bool", [r("allow", "mcp__a__b", when={"n": {"min": 0}})], "mcp__a__b",
     {"n": True}, "ask", None),
    ("glob", [r("allow", "mcp__a__b", when={"name": {"glob": "rep-*"}})], "mcp__a__b",
     {"name": "rep-1"}, "allow", 'mcp__a__b when {"name": {"glob": "rep-*"}}'),
    ("regex is whole value", [r("allow", "mcp__a__b", when={"id": {"regex": "[0-9]+"}})],
     "mcp__a__b", {"id": "12; drop"}, "ask", None),
    ("one_of", [r("allow", "mcp__a__b", when={"env": {"one_of": ["dev", "test"]}})],
     "mcp__a__b", {"env": "prod"}, "ask", None),
    ("absent", [r("deny", "mcp__a__b", when={"force": {"present": True}})], "mcp__a__b", {},
     "ask", None),
    ("missing key fails equality", [r("allow", "mcp__a__b", when={"x": None})], "mcp__a__b", {},
     "ask", None),
    ("all conditions must hold", [r("allow", "mcp__a__b", when={"a": 1, "b": 2})], "mcp__a__b",
     {"a": 1, "b": 3}, "ask", None),
    ("path_under", [DATA_RULE], "mcp__fs__read", {"path": "{root}/data/report.csv"}, "allow",
     None),
    ("path_under dotdot", [DATA_RULE], "mcp__fs__read",
     {"path": "{root}/data/../../../etc/passwd"}, "ask", None),
    ("path_under prefix sibling", [DATA_RULE], "mcp__fs__read", {"path": "{root}/data2/x"},
     "ask", None),
    ("path_under symlink", [DATA_RULE], "mcp__fs__read",
     {"path": "{root}/data/escape/secret.txt"}, "ask", None),
    ("path_glob", [r("deny", "mcp__fs__read", when={"path": {"path_glob": "{root}/**/*.txt"}})],
     "mcp__fs__read", {"path": "{root}/data/escape/../escape/secret.txt"}, "deny", None),
    # --- expr
    ("expr", [r("allow", "mcp__a__b", expr="args.n < 10 and tool.startswith('mcp__a')")],
     "mcp__a__b", {"n": 3}, "allow", None),
    ("expr false", [r("allow", "mcp__a__b", expr="args.n < 10")], "mcp__a__b", {"n": 30},
     "ask", None),
    ("expr error fails closed", [r("allow", "mcp__a__b", expr="args.n < 10")], "mcp__a__b",
     {}, "deny", None),
    ("expr type error fails closed", [r("allow", "mcp__a__b", expr="args.n < 10")], "mcp__a__b",
     {"n": "x"}, "deny", None),
    ("expr sandbox blocks internals", [r("allow", "mcp__a__b", expr="args.__class__.__mro__")],
     "mcp__a__b", {}, "deny", None),
    ("expr huge value", [r("allow", "mcp__a__b", expr="(args.get('s', 'a') * 10**9)|length > 0")],
     "mcp__a__b", {}, "deny", None),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("perm")))
    (base / "proj" / "src" / "deep").mkdir(parents=True)
    (base / "proj" / "src" / "app.py").write_text("")
    (base / "proj" / ".env").write_text("")
    (base / "data").mkdir()
    (base / "data" / "report.csv").write_text("")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("")
    (base / "data" / "escape").symlink_to(base / "outside")
    (base / "conf" / "notes").mkdir(parents=True)
    return base


def fill(value: Any, root: Path) -> Any:
    text = json.dumps(value).replace("{rootrel}", str(root).lstrip("/"))
    return json.loads(text.replace("{root}", str(root)))


@pytest.mark.parametrize("rules,tool,tool_input,expected,rule_text", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_decision(root: Path, rules: list[Rule], tool: str, tool_input: dict[str, Any],
                  expected: str, rule_text: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root / "proj")  # relative *inputs* resolve against the process cwd
    config = PermissionsConfig(rules=tuple(
        RuleConfig(effect, fill(t, root), origin=Origin(str(root / "conf" / "perms.yaml"), i + 1),
                   **fill(kw, root))  # type: ignore[arg-type]
        for i, (effect, t, kw) in enumerate(rules)))
    policy = compile_policy(config, cwd=str(root / "proj"))
    decision = policy.decide(tool, fill(tool_input, root))
    assert decision.behavior == expected, decision
    if rule_text is not None:
        assert decision.rule == fill(rule_text, root)
    if expected == "deny":
        assert decision.message
    if decision.rule is not None:
        assert decision.origin is not None and decision.origin.file.endswith("perms.yaml")
