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
    (".ssh/config", "Host h\n  XAuthLocation ./evil\n  ForwardX11 yes\n", ["ssh h"]),
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
    # an Include of a file that is not there includes nothing (looked at again each time)
    (".ssh/config", "Include ~/.ssh/more\nInclude conf.d/*.conf\n", ["ssh h", "git fetch"]),
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
    # the machine's own system files are not the test's: an /etc of the test's
    monkeypatch.setattr(home_config, "_SYSTEM", {
        "ssh": [str(tmp_path / "etc" / "ssh" / "ssh_config")],
        "wget": [str(tmp_path / "etc" / "wgetrc")],
        "less": [str(tmp_path / "etc" / "syslesskey")]})
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


# (what ~/.ssh/config holds, the files beside it: name -> text); each runs a command
EVIL = "Host *\n  ProxyCommand rm -rf x\n"
INCLUDES = {
    "relative": ("Include more\n", {"more": EVIL}),
    "home": ("Include ~/.ssh/more\n", {"more": EVIL}),
    "absolute": ("Include {ssh}/more\n", {"more": EVIL}),
    "equals": ("include = more\n", {"more": EVIL}),
    "glob": ("Include conf.d/*.conf\n", {"conf.d/a.conf": "Host a\n", "conf.d/b.conf": EVIL}),
    "second of two": ("Include a \"b c\"\n", {"a": "Host a\n", "b c": EVIL}),
    "nested": ("Include a\n", {"a": "Include b\n", "b": "Match exec \"rm -rf x\"\n"}),
    "inside a Host": ("Host h\n  Include more\n", {"more": EVIL}),
    "unreadable": ("Include more\n", {}),
    "a token": ("Include %d/more\n", {}),
    "a variable": ("Include ${HOME}/more\n", {}),
    "too many": ("Include conf.d/*\n", {f"conf.d/{i:02}": "Host a\n"
                                        for i in range(home_config.MAX_INCLUDED + 1)}),
    # a glob in a folder's part would walk the disk at every decision
    "a glob of folders": ("Include /*/*/*/*/*/nowhere\n", {}),
    "a dot file": ("Include conf.d/.*\n", {"conf.d/.x": EVIL}),
}


@pytest.mark.parametrize("name", sorted(INCLUDES))
def test_what_an_ssh_include_names_is_read_as_the_config(home: Path, name: str) -> None:
    config, files = INCLUDES[name]
    ssh = home / ".ssh"
    _put(home, ".ssh/config", config.replace("{ssh}", str(ssh)))
    for file, text in files.items():
        _put(ssh, file, text)
    if name == "unreadable":
        os.mkfifo(ssh / "more")  # (never opened: it would block)
    assert decide(home.parent, "ssh h", GUARDED) == "deny"
    assert decide(home.parent, "git push", ASKED) == "ask"
    assert decide(home.parent, "ssh h", OPEN) == "allow"


def test_harmless_includes_and_a_loop_stay_provable(home: Path) -> None:
    _put(home, ".ssh/config", "Include a conf.d/* nothere/*.conf\n")
    _put(home, ".ssh/conf.d/.hidden", EVIL)  # (glob's `*` skips a dot file, as ssh's does)
    _put(home, ".ssh/a", "Host a\n  User u\nInclude config\n")  # (back to the first)
    _put(home, ".ssh/conf.d/x", "Host x\n  Port 2222\n")
    assert decide(home.parent, "ssh h", GUARDED) == "allow"


def test_system_files_are_read_where_this_process_could_have_written_them(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    etc = home.parent / "etc"
    _put(etc, "ssh/ssh_config", "Include ssh_config.d/*.conf\n")  # (Debian's, under /etc/ssh)
    _put(etc, "ssh/ssh_config.d/evil.conf", EVIL)
    _put(etc, "wgetrc", "use_askpass = ./ask\n")
    _put(etc, "syslesskey", "#env\nLESSOPEN=|rm -rf x %s\n")
    for command in ("ssh h", "git fetch", "wget http://x", "less f"):
        assert decide(home.parent, command, GUARDED) == "deny", command
    # the administrator's files, where this process could not have written them: not read
    monkeypatch.setattr(home_config.os, "access", lambda *args, **kwargs: False)
    for command in ("ssh h", "git fetch", "wget http://x", "less f"):
        assert decide(home.parent, command, GUARDED) == "allow", command


@pytest.mark.skipif(shutil.which("ssh") is None, reason="ssh not installed")
def test_ssh_really_runs_a_match_exec_of_an_included_file(tmp_path: Path) -> None:
    (tmp_path / "inc.conf").write_text(f'Match exec "touch {tmp_path}/RAN"\n  User u\n')
    (tmp_path / "cfg").write_text(f"Include {tmp_path}/inc.conf\n")
    subprocess.run(["ssh", "-F", str(tmp_path / "cfg"), "-G", "h"], capture_output=True,
                   check=False, stdin=subprocess.DEVNULL, timeout=60)
    assert (tmp_path / "RAN").exists()  # (-G only prints the config: it ran while reading)


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
