"""Round 27: an environment variable that makes an interpreter load code the line does not
name (``PYTHONPATH`` to a folder holding ``sitecustomize.py`` or a standard library module,
``PYTHONSTARTUP``, ``PERL5OPT``, ``RUBYOPT``, ``NODE_OPTIONS`` ...) is not provable under a
deny or ask Bash rule; a ``PYTHONPATH`` to a folder holding neither stays provable. Also
bash's ``compgen -C/-F/-W '$(...)'`` and ``fc`` (a history line run again). python and bash
are the judges of the two the engine reads or refuses by name."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide
from toolhost.permissions.bash import home_config

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

LOADS_CODE = [
    "PYTHONPATH=lib python3 -c 1", "PYTHONPATH=./lib python3 -m json.tool f.json",
    "PYTHONPATH=ok:lib python3 x.py", "env PYTHONPATH=lib python3 -c 1",
    "export PYTHONPATH=lib; python3 -c 1", "declare -x PYTHONPATH=lib; python3 -c 1",
    "A=1 PYTHONPATH=pkg nice python3 x.py", "sudo PYTHONPATH=lib python3 x.py",
    "PYTHONPATH=$D python3 -c 1", "cd ok && PYTHONPATH=. python3 -c 1",
    "PYTHONPATH=lib pip list", "PYTHONSTARTUP=./evil python3 -i", "PYTHONINSPECT=1 python3 x.py",
    "PYTHONHOME=./lib python3 -c 1", "PYTHONUSERBASE=u python3 -c 1",
    "PYTHONBREAKPOINT=evil.x python3 x.py", "PERL5OPT=-Mevil perl -e 1",
    "PERL5LIB=lib perl x.pl", "RUBYOPT=-revil ruby -e 1", "RUBYLIB=lib ruby x.rb",
    "NODE_OPTIONS='--require ./evil' node x.js", "JAVA_TOOL_OPTIONS=-javaagent:e.jar java X",
    "GIT_TEMPLATE_DIR=./t git init y", "GOFLAGS=-toolexec=./evil go build",
    "GOFLAGS='-mod=mod -vettool=x' go vet", "GOENV=./e go build",
    "compgen -W '$(rm -rf x)' w", "compgen -aW'`rm -rf x`' w", "compgen -C 'rm -rf x' w",
    "compgen -F f w", "builtin compgen -W '$(rm -rf x)' w", "fc -s", "fc -e - rm", "fc",
    "set -o history; history -s 'rm -rf x'; fc -s",
    # a warnings filter's dotted category is imported at start; search paths and start-up
    # code of other interpreters
    "PYTHONWARNINGS=ignore::antigravity.X python3 -m json.tool f.json",
    "PYTHONWARNINGS='default,error::evil.W' python3 x.py",
    "PYTHONWARNINGS='ignore: :  evil.W ' python3 x.py", "PYTHONWARNINGS=$W python3 x.py",
    "export PYTHONWARNINGS=ignore::this.W; python3 x.py",
    "env PYTHONWARNINGS=error::a.b.C python3 -c 1", "PYTHONPYCACHEPREFIX=./c python3 x.py",
    "NODE_PATH=./m node x.js", "CLASSPATH=./c java X", "GEM_PATH=./g ruby x.rb",
    "GEM_HOME=./g gem list", "BUNDLE_GEMFILE=./G bundle exec rake", "TCLLIBPATH=./t tclsh x",
    "LUA_INIT='os.execute(\"rm -rf x\")' lua x.lua", "LUA_INIT_5_4=@evil lua x.lua",
    "LUA_PATH='./?.lua' lua x.lua", "LUA_CPATH_5_3='./?.so' lua x.lua",
    "R_PROFILE_USER=./p.R Rscript x.R", "R_ENVIRON_USER=./e Rscript x.R",
    "R_LIBS_USER=./l Rscript x.R", "PHPRC=./ini php x.php", "PHP_INI_SCAN_DIR=./d php x.php",
    "ZDOTDIR=./z zsh -c true", "DOTNET_STARTUP_HOOKS=./h.dll dotnet x.dll",
    # python's own -W option; more start-up code, options from the environment, the home
    "python3 -W ignore::antigravity.X -m json.tool f.json", "python3 -Werror::evil.W x.py",
    "python3 -u -W default::a.b.C -c 1", "python3 -W $W x.py",
    "python3 -uWignore::evil.X x.py", "python3 -uW ignore::evil.X x.py",  # (bundled)
    "NODE_REPL_EXTERNAL_MODULE=./m node", "ERL_FLAGS='-eval halt()' erl",
    "OPENSSL_CONF=./o.cnf openssl version", "GOROOT=./g go build", "GOTOOLCHAIN=go9 go build",
    "TAR_OPTIONS=--to-command=./evil tar xf a.tar", "LESS='+!./evil' less f",
    "ZIPOPT='-TT ./evil' zip a.zip f", "MANOPT='-P ./evil' man ls", "HOME=./h python3 x.py",
    "GH_PAGER='rm -rf x' gh pr list", "KUBE_EDITOR='rm -rf x' kubectl edit x",
    "RSYNC_CONNECT_PROG='rm -rf x' rsync rsync://h/m .", "SVN_SSH='rm -rf x' svn up",
    "PSQL_PAGER='rm -rf x' psql", "SUDO_EDITOR='rm -rf x' sudoedit f",
]
STILL_PROVABLE = [
    "PYTHONPATH=ok python3 x.py", "GOFLAGS=-mod=vendor go build",
    "PYTHONPATH=ok:/nowhere python3 -c 1",
    "env PYTHONPATH=ok python3 -c 1", "echo PYTHONSTARTUP=x", "PYTHONDONTWRITEBYTECODE=1 ls",
    "compgen -W 'a b' w", "compgen -c ls", "fc -l", "fc -ln -5",
    # builtin categories are not imported, nor is the module field (a regular expression)
    "PYTHONWARNINGS=ignore python3 x.py", "PYTHONWARNINGS=ignore::DeprecationWarning python3 x.py",
    "PYTHONWARNINGS='ignore:a.b.c:UserWarning' python3 x.py",
    "PYTHONWARNINGS='default:::my.mod,error' python3 x.py", "LUA_VERSION=5 lua -v",
    "python3 -W ignore x.py", "python3 -W error::DeprecationWarning -m json.tool f",
    "python3 x.py -W ignore::a.B",  # (the script's argument, not python's option)
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))  # (no go env file, ssh config ... of the host)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(home_config, "_passwd_home", lambda: str(tmp_path))
    (tmp_path / "evil").write_text("#!/bin/sh\nrm -rf x\n")
    for name, text in (("lib/sitecustomize.py", "import os\n"), ("pkg/json.py", "x = 1\n"),
                       ("ok/tool.py", "x = 1\n")):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("command", LOADS_CODE)
def test_code_an_environment_variable_loads_is_not_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "deny"
    assert decide(folder, command, ASKED) == "ask"


@pytest.mark.parametrize("command", STILL_PROVABLE)
def test_what_loads_no_code_off_the_line_stays_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "allow"
    assert decide(folder, command, OPEN) == "allow"


def test_python_really_imports_a_warning_categorys_module(tmp_path: Path) -> None:
    # the standard library's ``this`` prints the Zen of Python as it is imported
    env = {"PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "ignore::this.W"}
    done = subprocess.run([sys.executable, "-c", "1"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    assert "Zen of Python" in done.stdout


def test_python_really_runs_sitecustomize_of_pythonpath(folder: Path) -> None:
    (folder / "lib" / "sitecustomize.py").write_text("open('RAN', 'w').close()\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": "lib"}
    subprocess.run([sys.executable, "-c", "1"], cwd=folder, env=env,
                   check=True)
    assert (folder / "RAN").exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize("line", ["compgen -W '$(touch RAN)' w",
                                  "set -o history\nhistory -s 'touch RAN'\nfc -s"])
def test_bash_really_runs_what_compgen_and_fc_are_given(tmp_path: Path, line: str) -> None:
    subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "RAN").exists()


@pytest.mark.parametrize(("allowed", "flagged"), [
    ("Bash(PYTHONSTARTUP=s python3:*)", True), ("Bash(NODE_OPTIONS=x node:*)", True),
    ("Bash(GOFLAGS=-toolexec=x go build)", True), ("Bash(go env -w:*)", True),
    ("Bash(fc -s)", True), ("Bash(compgen -W $(x):*)", True), ("Bash(compgen -C x:*)", True),
    ("Bash(fc -l)", False), ("Bash(compgen -c:*)", False), ("Bash(go env:*)", False),
    ("Bash(PYTHONPATH=src python3:*)", False),  # (decided by what src holds)
])
def test_lint_flags_an_allow_that_loads_or_reruns_code(allowed: str, flagged: bool) -> None:
    from toolhost.config.model import PermissionsConfig, RuleConfig
    from toolhost.permissions import compile_policy, lint_policy

    policy = compile_policy(PermissionsConfig(rules=[
        RuleConfig(effect="allow", tool=allowed), RuleConfig(effect="deny", tool="Bash(rm:*)")],
        default="ask"), cwd="/")
    found = [f.rule for f in lint_policy(policy) if f.code == "never-allows"]
    assert found == ([allowed] if flagged else [])
    if flagged:  # (and the engine agrees)
        command = allowed[5:-1].removesuffix(":*")
        assert policy.decide("Bash", {"command": command}).behavior != "allow"
