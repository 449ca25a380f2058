"""The `mcp:` block and its reshaping: every mistake located, all in one run, offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

BAD = """\
toolhost: 1
servers:
  a:
    mcp: {command: [], url: "http://x"}
  b:
    mcp: {url: "ftp://x/mcp", hedaers: {}}
  c:
    mcp: {command: [srv]}
    include: 5
    tools:
      t1: {name: "bad name", fixed: {x: 1}, defaults: {x: 2}}
      t2: {name: t3}
      t3: {descripton: x}
  d:
    include: ["x*"]
    tools:
      t: {python: "m:f"}
"""


def test_every_upstream_mistake_is_located_in_one_run(tmp_path: Path) -> None:
    config = tmp_path / "g.yaml"
    config.write_text(BAD)
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    rows = str(info.value).splitlines()
    for line, words in {4: "'command' (stdio) or 'url'", 6: "is not an http(s) URL",
                        9: "include", 11: "invalid tool name 'bad name'",
                        13: "both be called 't3'", 15: "needs 'mcp:'"}.items():
        assert any(f"g.yaml:{line}:" in row and words in row for row in rows), (line, rows)
    assert any("hedaers" in row and "unknown key" in row for row in rows)
    assert any("descripton" in row and "unknown key" in row for row in rows)
    assert any("fixed arguments need no default" in row for row in rows)


def test_a_secret_in_an_upstreams_command_is_a_warning(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An upstream's argv is as public (ps, /proc/PID/cmdline) as a command tool's."""
    from toolhost.cli import main

    token = "tok-5ecret-upstream-9f"
    monkeypatch.setenv("GH_TOKEN", token)
    config = tmp_path / "u.yaml"
    config.write_text("toolhost: 1\nservers:\n  gh:\n    mcp:\n      command: [srv, --token, "
                      '"${GH_TOKEN}"]\n      env: {SAFE: "${GH_TOKEN}"}\n')
    assert main(["validate", "--no-layers", "--no-compile", str(config)]) == 0
    out, err = capsys.readouterr()
    assert "1 warning" in out and token not in err
    assert f"{config}:4:5: servers.gh.mcp.command[2]: warning: '***' puts a secret in the " \
        "program's arguments" in err, err
    assert main(["validate", "--no-layers", "--no-compile", "--strict", str(config)]) == 1
    assert err.rstrip().endswith("(pass it in env: (the program's environment is private to "
                                 "its user))"), err
