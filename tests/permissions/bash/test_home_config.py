"""Round 27: a file of the home folder that chooses the code a program runs
(``~/.ssh/config``'s ``ProxyCommand``, ``~/.wgetrc``'s ``use_askpass``, a lesskey
``#env`` setting ``LESSOPEN``, go's env file setting ``GOFLAGS=-toolexec``) makes that
program not provable under a deny or ask Bash rule; the same programs with harmless home
files stay provable. less and wget are the judges where installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide
from toolhost.permissions.bash import home_config

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

# (home file, its text, the commands it makes not provable)
FAMILIES = [
    (".ssh/config", "Host *\n  ProxyCommand rm -rf x\n",
     ["ssh h", "ssh h ls", "scp a h:b", "sftp h", "rsync -a a h:b", "git fetch",
      "git clone h:x y", "sudo ssh h"]),
    (".ssh/config", "Host h\n  PermitLocalCommand yes\n  LocalCommand rm -rf x\n", ["ssh h"]),
    (".ssh/config", "Match exec \"rm -rf x\"\n  User u\n", ["scp a h:b"]),
    (".ssh/config", "Include ~/.ssh/more\n", ["ssh h"]),
    (".ssh/config", "KnownHostsCommand=rm -rf x\n", ["ssh h"]),
    (".wgetrc", "use_askpass = ./ask\n", ["wget http://x", "wget -q -O o http://x"]),
    (".wgetrc", "useAskPass=./ask\n", ["wget http://x"]),
    (".lesskey", "#env\nLESSOPEN=|rm -rf x %s\n", ["less f", "git -p log",
                                                    "git --paginate log"]),
    (".config/lesskey", "#env\nLESSOPEN=|rm -rf x %s\n", ["less -R f"]),
    (".config/go/env", "GOFLAGS=-toolexec=./evil\n", ["go build", "go vet", "go list ./..."]),
    (".config/go/env", "CC=./evil\n", ["go build ."]),
    (".curlrc", "output = .git/hooks/pre-commit\n", ["curl http://x", "curl -s http://x"]),
    (".curlrc", "-sO\n", ["curl http://x/a"]),
    (".npmrc", "script-shell=./evil\n", ["npx ls", "npm exec -- ls", "npm x -- ls",
                                         "npm explore x -- ls", "npm init x", "npm create x"]),
]
HARMLESS = [
    (".ssh/config", "Host h\n  User u\n  ProxyJump j\n", ["ssh h", "scp a h:b", "git fetch"]),
    (".wgetrc", "robots = off\n", ["wget http://x"]),
    (".lesskey", "#command\nq quit\n", ["less f", "git -p log"]),
    (".config/go/env", "GOPROXY=direct\n", ["go build"]),
    (".curlrc", "silent\nlocation\nuser-agent = \"x\"\n", ["curl http://x"]),
    (".npmrc", "registry=https://r.example/\n", ["npx ls", "npm exec -- ls"]),
]
# the home folder needs no file for these: the line writes what later go commands run
WRITES = ["go env -w GOFLAGS=-toolexec=./evil", "go env -w CC=./evil",
          "go build -toolexec ./evil .", "go vet -vettool=./evil", "curl -K cfg http://x",
          "curl -sK cfg http://x", "curl --config cfg http://x", "CURL_HOME=d curl http://x"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(home_config, "_passwd_home", lambda: str(home))
    (tmp_path / "evil").write_text("#!/bin/sh\nrm -rf x\n")
    return home


def _put(home: Path, name: str, text: str) -> None:
    (home / name).parent.mkdir(parents=True, exist_ok=True)
    (home / name).write_text(text)


@pytest.mark.parametrize(("name", "text", "commands"), FAMILIES)
def test_a_home_file_choosing_code_makes_the_program_not_provable(
        home: Path, name: str, text: str, commands: list[str]) -> None:
    _put(home, name, text)
    for command in commands:
        assert decide(home.parent, command, GUARDED) == "deny", command
        assert decide(home.parent, command, ASKED) == "ask", command
        assert decide(home.parent, command, OPEN) == "allow", command


@pytest.mark.parametrize(("name", "text", "commands"), HARMLESS)
def test_a_harmless_home_file_stays_provable(
        home: Path, name: str, text: str, commands: list[str]) -> None:
    _put(home, name, text)
    for command in commands:
        assert decide(home.parent, command, GUARDED) == "allow", command


def test_a_home_file_that_cannot_be_read_fails_closed(home: Path) -> None:
    (home / ".ssh").mkdir()
    os.mkfifo(home / ".ssh" / "config")  # (never opened: it would block)
    assert decide(home.parent, "ssh h", GUARDED) == "deny"


@pytest.mark.parametrize("command", WRITES)
def test_a_line_choosing_what_go_runs_is_not_provable(home: Path, command: str) -> None:
    assert decide(home.parent, command, GUARDED) == "deny"
    assert decide(home.parent, command, ASKED) == "ask"


@pytest.mark.skipif(shutil.which("less") is None, reason="less not installed")
def test_less_really_runs_the_lessopen_of_a_home_lesskey(home: Path) -> None:
    _put(home, ".lesskey", "#env\nLESSOPEN=|touch RAN; cat %s\n")
    (home.parent / "f").write_text("hi\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    subprocess.run(["less", "f"], cwd=home.parent, env=env, capture_output=True, check=False,
                   stdin=subprocess.DEVNULL)
    assert (home.parent / "RAN").exists()


@pytest.mark.skipif(shutil.which("wget") is None, reason="wget not installed")
def test_wget_really_runs_the_askpass_of_a_home_wgetrc(home: Path) -> None:
    ask = home.parent / "ask"
    ask.write_text("#!/bin/sh\ntouch RAN\necho pw\n")
    ask.chmod(0o755)
    _put(home, ".wgetrc", f"use_askpass = {ask}\n")
    with socket.socket() as s:  # a port nothing listens on: wget asks before it connects
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    subprocess.run(["wget", "-q", "--tries=1", "--user=u", f"http://127.0.0.1:{port}/"],
                   cwd=home.parent, env=env, capture_output=True, check=False,
                   stdin=subprocess.DEVNULL, timeout=60)
    assert (home.parent / "RAN").exists()


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_npm_exec_really_runs_the_script_shell_of_an_npmrc(tmp_path: Path) -> None:
    shell = tmp_path / "evil"
    shell.write_text('#!/bin/sh\ntouch RAN\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    (tmp_path / ".npmrc").write_text("script-shell=./evil\n")
    (tmp_path / "package.json").write_text("{}\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    subprocess.run(["npm", "exec", "--offline", "--", "true"], cwd=tmp_path, env=env,
                   capture_output=True, check=False, stdin=subprocess.DEVNULL, timeout=120)
    assert (tmp_path / "RAN").exists()
