"""Round 10: rules copied from somewhere else are reported by ``validate``, each at its
file:line, all in one run: typographic characters (a no-break space, a dash for ``--``, curly
quotes, full-width letters), a shell prompt, Markdown backticks, a ``!`` meant as "not",
``:`` between command words, a ``.gitignore`` comment or exception, a template placeholder,
a ``;`` list or a line break in a path rule, quotes around a WebFetch host; rules that mean
what they say are not."""

from __future__ import annotations

import json
import re
from pathlib import Path

from toolhost.config.loader import load_config
from toolhost.permissions.authoring.mistakes import review_rules

RULES = {
    "Bash(rm\u00a0-rf:*)": "U+00A0",
    "Bash(git push \u2014force:*)": "write Bash(git push --force:*)",
    "Bash(git push \u2013force:*)": "U+2013", "Bash(rm \u2212rf:*)": "U+2212",
    "Bash(\uff52\uff4d:*)": "write Bash(rm:*)", "Bash(\u201crm\u201d:*)": "U+201C",
    "Bash(\u2018rm\u2019:*)": "U+2018", "Bash(rm\u200b:*)": "U+200B",
    "Bash(curl\u3000*)": "U+3000", "Bash(git\u202fpush:*)": "U+202F",
    "Bash(rm \u2010rf:*)": "U+2010", "Bash(npm\ufeff:*)": "U+FEFF",
    "Bash($ rm -rf:*)": "shell prompt", "Bash(% rm:*)": "shell prompt",
    "Bash($ git push:*)": "write Bash(git push:*)", "Bash(\u276f rm:*)": "shell prompt",
    "Bash(`rm`:*)": "Markdown backticks", "Bash(`git push`:*)": "Markdown backticks",
    "Bash(!rm:*)": "does not negate", "Bash(!git push:*)": "does not negate",
    "Bash(npm:publish:*)": "write Bash(npm publish:*)", "Bash(git:push)": "write Bash(git push:*)",
    "Bash(rm::*)": "write Bash(rm:*)", "Bash(rm: *)": "write Bash(rm:*)",
    "Bash(docker:rm:*)": "':' inside the command word",
    "Bash(kubectl:delete)": "write Bash(kubectl delete:*)",
    "Read(\uff0f\uff0fetc/passwd)": "write Read(//etc/passwd)",
    "Read(~/.ssh/\u201cid_rsa\u201d)": "U+201C",
    "Edit(//etc/\u00a0hosts)": "U+00A0", "Read(~/.aws/credentials\u200b)": "U+200B",
    "Read(!//etc/**)": ".gitignore exception", "Read(!.env)": ".gitignore exception",
    "Edit(!src/**)": ".gitignore exception", "Read(!~/.ssh)": ".gitignore exception",
    "Read(#.env)": ".gitignore comment", "Edit(# secrets/**)": ".gitignore comment",
    "Read(<home>/.ssh/**)": "template placeholder", "Read({HOME}/.ssh/**)": "template placeholder",
    "Read({{HOME}}/.aws/**)": "template placeholder", "Edit({{ cwd }}/x)": "template placeholder",
    "Read(<project>/secrets/**)": "template placeholder",
    "Edit({project_root}/.env)": "template placeholder",
    "Read(~/<user>/.ssh)": "template placeholder",
    "Read(//etc/passwd;//etc/shadow)": "list of paths", "Read(.env; .env.local)": "list of paths",
    "Edit(//etc/**;~/.ssh/**)": "list of paths", "Read(.env, .env.local)": "list of paths",
    "Read(//etc/\npasswd)": "line break", "Read(.env\n.env.local)": "line break",
    "Edit(//etc/hosts\r\n//etc/passwd)": "line break",
    "WebFetch(domain:\"example.com\")": "write WebFetch(domain:example.com)",
    "WebFetch(domain:'example.com')": "quotes are part of the host",
    "WebFetch(domain:'api.example.com')": "quotes are part of the host",
    "Read(~/.ssh/**\u00a0/x)": "U+00A0",
    "Bash(rm -rf <dir>:*)": "write the words meant", "Bash(git checkout {branch}:*)": "placeholder",
    "Bash(npm install [package]:*)": "write the words meant, or end the rule at the "
                                     "placeholder: Bash(npm install:*)",
    "Bash(git push origin <branch>)": "placeholder", "Bash(kubectl delete {{ns}}:*)": "placeholder",
    "Bash(docker rm [OPTIONS] CONTAINER:*)": "placeholder", "Bash(rm [-rf] FILE)": "placeholder",
    "Bash(git commit -m \"<msg>\":*)": "Bash(git commit -m:*)",
    "Bash(rm -rf \u2026)": "U+2026", "Read(~/Library/Mobile Documents/\u2026)": "U+2026",
    "WebFetch(domain:{host})": "template placeholder",
    # another machine's absolute paths with one '/': anchored at the rule's file
    "Read(/Users/me/.ssh/**)": "write Read(//Users/me/.ssh/**)",
    "Edit(/Volumes/x/**)": "anchored at the directory", "Read(/Library/Keychains/**)":
        "anchored at the directory", "Read(/private/etc/**)": "anchored at the directory",
    "Read(/nix/store/**)": "anchored at the directory",
    # round 14: a blank next to a separator or a wildcard
    "Read(./secrets/ **)": "write Read(./secrets/**)", "Read(./secrets /**)": "blank next to",
    "Edit(src/ *.py)": "write Edit(src/*.py)", "Read(~/.ssh/ *)": "blank next to",
    # round 17: invisible characters besides the zero-width ones (a deny holding one matched
    # nothing, without a word): bidi marks and controls, a soft hyphen, tag and variation
    # selectors, a combining grapheme joiner, a Hangul filler
    "Bash(rm\u200e -rf:*)": "write Bash(rm -rf:*)", "Bash(rm\u202e:*)": "U+202E",
    "Bash(ls\ufe0f)": "U+FE0F", "Bash(rm\u00ad:*)": "write Bash(rm:*)",
    "Read(./.e\u2066nv)": "write Read(./.env)", "Bash(r\U000e0041m:*)": "U+E0041",
    "Edit(./secrets\u200f/**)": "U+200F", "Bash(rm\u034f:*)": "write Bash(rm:*)",
    "Bash(git\u3164push:*)": "U+3164", "Read(.env\u061c)": "U+061C",
    "Bash(sudo\U000e0101:*)": "write Bash(sudo:*)",
}
FINE = ["Bash(npm run build:prod:*)", "Bash(rm:*)", "Bash(git push:*)",
        "Bash(echo \u00e9t\u00e9:*)",
        "Read(//etc/passwd)", "Read(~/.ssh/**)", "Read(src/caf\u00e9/**)", "Read(.env)",
        "Read(a,b)", "Edit(./notes/#x.md)", "WebFetch(domain:example.com)",
        "WebFetch(domain:b\u00fccher.de)", "Bash(docker compose run:*)",
        "Bash(curl http\\://x:*)", "Task(my-plugin:reviewer)", "Bash(npx:*)",
        "Read(/docs/**)", "Edit(/src/app.py)", "Read(~/My Documents/**)",
        "Read(./a b/c d.txt)"]


_PAIR = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def _wide(pair: re.Match[str]) -> str:
    high, low = int(pair[1], 16), int(pair[2], 16)
    return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08X}"


def _review(tmp_path: Path, rules: list[str], effect: str = "deny") -> list[str]:
    # (YAML takes a character past U+FFFF as \\U0001XXXX, not as JSON's surrogate pair)
    lines = "".join(f"    - {_PAIR.sub(_wide, json.dumps(r))}\n" for r in rules)
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  {effect}:\n{lines}", encoding="utf-8")
    return [f"{f.level} {f.problem}" for f in review_rules(load_config(str(config), layers=False))]


def test_every_pasted_rule_is_reported_with_its_line_in_one_run(tmp_path: Path) -> None:
    found = _review(tmp_path, [*RULES, *FINE])
    for k, (rule, words) in enumerate(RULES.items()):
        mine = [f for f in found if f"toolhost.yaml:{k + 4}:7:" in f]
        assert any(words in f for f in mine), (rule, mine)
    fine = [f for f in found if "shadowed:" not in f and any(
        f"toolhost.yaml:{k + 4 + len(RULES)}:" in f for k in range(len(FINE)))]
    assert not fine, fine


def test_an_allow_is_reported_too(tmp_path: Path) -> None:
    found = _review(tmp_path, ["Bash($ npm test:*)", "Read(!.env)", "Bash(npm:test:*)"],
                    effect="allow")
    assert [k for k in (4, 5, 6) if any(f"toolhost.yaml:{k}:7:" in f for f in found)] == [
        4, 5, 6], found
