"""extends: merge order, rule lists, relative paths, cycles, layers of rules."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError


def test_fragments_merge_in_order_and_rules_concatenate(write: Any, kinds: Any) -> None:
    write("team/base.yaml", """\
servers:
  git:
    description: from base
    timeout: 5s
    tools:
      log: {command: [git, log], description: base log}
permissions:
  default: deny
  allow: [mcp__git__log]
""")
    write("team/more.toml", """\
toolhost = 1
extends = ["base.yaml"]   # relative to team/, and already read: not merged twice

[servers.git]
description = "from more"

[[permissions.deny]]
tool = "mcp__git__push"
""")
    main = write("main.yaml", """\
toolhost: 1
extends: [team/base.yaml, ./team/more.toml]
servers:
  git:
    tools:
      log: {description: main log}
permissions:
  allow: [mcp__git__status]
""")
    config = load_config(main, kinds=kinds, layers=False)
    git = config.servers["git"]
    assert git.description == "from more"
    assert git.defaults.timeout == 5.0
    log = git.tools["log"]
    assert log.description == "main log"
    assert log.backend.options == {"argv": ["git", "log"]}
    assert config.permissions.default == "deny"
    rules = [(r.effect, r.tool, r.layer, r.origin.file.split("/")[-1], r.origin.line)
             for r in config.permissions.rules]
    assert rules == [("allow", "mcp__git__log", "extends", "base.yaml", 9),
                     ("allow", "mcp__git__status", "project", "main.yaml", 8),
                     ("deny", "mcp__git__push", "extends", "more.toml", 7)]
    assert [f.split("/")[-1] for f in config.files] == ["main.yaml", "base.yaml", "more.toml"]
    origins = config.origins
    assert origins["servers.git.description"].file.endswith("more.toml")
    assert origins["servers.git.timeout"].file.endswith("base.yaml")
    assert origins["servers.git.tools.log.description"].file.endswith("main.yaml")


def test_cycle_shows_the_chain(write: Any, kinds: Any) -> None:
    write("a.yaml", "extends: [b.yaml]\n")
    write("b.yaml", "extends:\n  - a.yaml\n")
    main = write("main.yaml", "toolhost: 1\nextends: [a.yaml]\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems
    assert problem.file.endswith("b.yaml") and problem.line == 2
    chain = problem.message.removeprefix("extends cycle: ").split(" -> ")
    assert [c.split("/")[-1] for c in chain] == ["a.yaml", "b.yaml", "a.yaml"]


def test_missing_fragment_and_bad_fragment_version(write: Any, kinds: Any) -> None:
    write("v2.yaml", "toolhost: 2\n")
    main = write("main.yaml", "toolhost: 1\nextends:\n  - nope.yaml\n  - v2.yaml\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems  # the version problem comes alone
    assert problem.file.endswith("v2.yaml") and "version 2" in problem.message
    write("v2.yaml", "toolhost: 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems
    assert problem.line == 3 and "no such file" in problem.message


def test_errors_in_a_fragment_name_the_fragment(write: Any, kinds: Any) -> None:
    write("frag.toml", '[servers.s.tools.t]\npython = "m:f"\ntimout = 3\n')
    main = write("main.yaml", "toolhost: 1\nextends: [frag.toml]\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems
    assert (problem.file.split("/")[-1], problem.line, problem.hint) == (
        "frag.toml", 3, "did you mean 'timeout'?")


@pytest.mark.parametrize("entry", ["notes.txt", "env", "frag.json", "${FRAG_FILE}"])
def test_a_fragment_that_is_no_config_file_is_located_at_its_entry(
        entry: str, write: Any, kinds: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the problem is the entry (what it names), not the file's text: "/etc/passwd: unknown
    # config format ''" named the fragment only, never which file's extends pulled it in
    monkeypatch.setenv("FRAG_FILE", "/etc/passwd")
    for name in ("notes.txt", "env", "frag.json"):
        write(name, "toolhost: 1\n")
    main = write("main.yaml", f"toolhost: 1\nextends:\n  - {entry}\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems
    assert (problem.file, problem.line, problem.key_path) == (str(main), 3, "extends[0]")
    assert "is not a config file" in problem.message
    assert problem.hint == "a fragment is a .yaml, .yml or .toml file"


@pytest.mark.parametrize("url", ["https://example.com/team.yaml", "git+ssh://git@host/x.toml",
                                 "file:///etc/team.yaml", "HTTP://EXAMPLE.COM/a.yml",
                                 "git@github.com:team/config.yaml",  # git's scp-like form
                                 "me@host.example:team.toml"])
def test_a_url_in_extends_is_named_a_url_with_how_to_share_a_config(
        write: Any, kinds: Any, url: str) -> None:
    # read as a path it was "no such file: https:/example.com/team.yaml", its // squeezed
    main = write("main.yaml", f"toolhost: 1\nextends:\n  - {url}\n")
    with pytest.raises(ConfigError) as info:
        load_config(main, kinds=kinds, layers=False)
    (problem,) = info.value.problems
    assert problem.line == 3 and f"{url} is a URL" in problem.message
    assert "{repo: URL, rev: TAG-OR-COMMIT, path: FILE}" in problem.hint


def test_a_file_named_like_a_git_address_is_still_a_file(write: Any, kinds: Any) -> None:
    write("me@host:x.yaml", "servers: {}\n")
    main = write("main.yaml", "toolhost: 1\nextends: ['me@host:x.yaml']\n")
    load_config(main, kinds=kinds, layers=False)
