"""Round 27: a line that writes a file and then runs a program that reads it as its
configuration or imports it (``cp evil json.py; python3 -c 1``, ``printf ... >
~/.ssh/config; ssh h``) is not provable under a deny or ask Bash rule: the readers look at
the files before the line runs. The program's own output, pipes and read-only commands
beside it stay provable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, decide
from toolhost.permissions.bash import home_config

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

WRITE_THEN_RUN = [
    "printf 'Host *\\n ProxyCommand ./evil\\n' > ~/.ssh/config; ssh h",
    "cp cfg ~/.ssh/config && scp a h:b", "echo 'use_askpass = ./evil' > ~/.wgetrc; wget http://x",
    "cat cfg >> ~/.wgetrc; wget http://x",
    "printf '#env\\nLESSOPEN=|./evil %s\\n' > ~/.lesskey; less f",
    "echo 'script-shell=./evil' > .npmrc; npx ls", "tee .npmrc < cfg; npm exec -- ls",
    "echo GOFLAGS=-toolexec=./evil > ~/.config/go/env; go build",
    "echo 'output=.git/hooks/pre-commit' > ~/.curlrc; curl http://x",
    "echo 'import os' > lib/sitecustomize.py; PYTHONPATH=lib python3 -c 1",
    "cp evil lib/sitecustomize.py; PYTHONPATH=lib python3 x.py",
    "echo 'import os' > json.py; python3 -c 1", "cp evil json.py && python3 -m json.tool f",
    "mv evil.py types.py; python3 - < s.py", "for i in 1 2; do python3 -c 1; cp a json.py; done",
    "cd ~ && cp a x/config; ssh h",
]
STILL_PROVABLE = [
    "cd sub; ssh h", "ssh h > out.txt", "ssh h 2>/dev/null", "ssh h | grep x", "cat a | less",
    "ssh h ls; ssh h2 ls", "python3 -c 1 > out", "PYTHONPATH=ok python3 x.py > log",
    "grep -r x . | less", "ls > list.txt", "npm test && git push", "make && ssh h",
    "tar c . | ssh h tar x", "ssh h && cp a b", "python3 -c 1 && cp a json.py",
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(home_config, "_passwd_home", lambda: str(tmp_path))
    (tmp_path / "evil").write_text("#!/bin/sh\nrm -rf x\n")
    (tmp_path / "ok").mkdir()
    return tmp_path


@pytest.mark.parametrize("command", WRITE_THEN_RUN)
def test_a_file_the_line_writes_before_its_reader_runs_is_not_provable(
        folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "deny"
    assert decide(folder, command, ASKED) == "ask"


@pytest.mark.parametrize("command", STILL_PROVABLE)
def test_a_line_writing_nothing_a_reader_reads_stays_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "allow"
