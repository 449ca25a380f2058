"""Round 26: options that choose the code a program runs, in step with the command backends
(backends25). A long option written shorter (``tar --to-com=./x``), a command line an option
names that runs a script of this folder (``tar -I ./x``, ``rsync -e ./x``, ``git -c
core.pager=./x``), a directory a wrapper moves to (``env -C d make``), a git remote helper
(``evil::x``), keys typed into vim, a less key file, an ssh config file, Miller's DSL: not
provable under a deny or ask Bash rule; with none, decided as before. git is the judge of
a remote helper."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

# a script of the folder that a deny rule meets, run through an option's command line
RUNS_THE_SCRIPT = [
    "tar --to-command=./evil -xf a.tar", "tar --to-com=./evil -xf a.tar",
    "tar --to-com ./evil -xf a.tar", "tar -I ./evil -xf a.tar", "tar -I./evil -xf a.tar",
    "tar --use=./evil -xf a.tar", "tar --to-command='sh evil' -xf a.tar",
    "tar --checkpoint=1 --checkpoint-act=exec=./evil -cf b.tar t",
    "rsync -e ./evil a h:b", "rsync --rs=./evil a h:b", "rsync -avze ./evil a h:b",
    "git -c core.pager=./evil log", "git -c core.fsmonitor=./evil status",
    "git -c 'alias.x=!./evil' x", "git clone --upload-pa=./evil r y",
    "git clone --conf core.pager=./evil r y", "GIT_SSH_COMMAND=./evil git fetch",
    "PAGER=./evil man ls", "man -P ./evil ls", "man --pag=./evil ls",
    "sort --compress-p=./evil f", "split --fil=./evil f", "sed --expr='1e ./evil' f",
    "vim -c '!./evil'", "less '+!./evil' f", "gdb -ex 'shell ./evil'",
    "wget --use-ask=./evil http://x", "ssh -o ProxyCommand=./evil h", "scp -S ./evil a h:b",
    "sudo tar --to-command=./evil -xf a.tar", "mlr --prepipe ./evil cat f",
]
CHOOSES_CODE = [
    "git clone evil::x y", "git ls-remote evil::x", "git fetch evil::x", "git push evil::x",
    "git remote add o evil::x", "git submodule add evil::x s", "git clone 'ext::sh -c id' y",
    "git -c protocol.ext.allow=always clone 'ext::./evil' y",
    "env -C d make", "env --chdir=d make", "env -Cd make",
    "sudo -D d make", "sudo --chdir=d make", "sudo -R /r ls",
    "vim -s keys.vim f", "vim --remote-send ':!id<CR>'", "gvim --remote-expr 'system(\"id\")'",
    "less -k keys f", "less --lesskey-src=keys f", "less --lesskey-s=keys f",
    "LESSKEY=keys less f", "less '+|a id' f", "ssh -F ./cfg h", "ssh -vF./cfg h",
    "scp -F ./cfg a h:b", "wget -e use_askpass=./ask http://x", "wget -qe useAskPass=x http://x",
    "wget --execute='use-askpass = x' http://x", "wget --exe=use_askpass=x http://x",
    "wget --config=rc http://x", "wget --conf rc http://x", "WGETRC=rc wget http://x",
]
# never provable, whatever the rules (as interpreter code naming `system` is, round 19)
NEVER_PROVABLE = [
    "mlr -n put 'end{system(\"id\")}'", "mlr -n put 'end{exec(\"id\", [])}'",
    "mlr -n filter 'system(\"id\") == \"\"' f", "env --chd=d make",
]
STILL_PROVABLE = [
    "tar --to-command=cat -xf a.tar", "tar -I gzip -xf a.tar", "tar --to-command=./ok -xf a.tar",
    "git -c core.pager=less log", "man -P cat ls", "rsync -e ssh a h:b", "git clone ../o y",
    "git clone https://x/y", "git show HEAD:a", "env -i ls", "env A=1 make -f missing.mk",
    "vim -es -s f", "ex -s f", "vim -S keys.vim", "less -N f", "less +10 f", "ssh -v h ls",
    "ssh -o ProxyCommand=nc h", "mlr --icsv cat f", "mlr -n put 'end{print 1}'",
    "wget -e robots=off http://x", "wget -q -O out http://x", "wget --exclude-domains=a http://x",
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "evil").write_text("#!/bin/sh\nrm -rf x\n")
    (tmp_path / "ok").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "Makefile").write_text("all:\n\trm -rf x\n")
    return tmp_path


@pytest.mark.parametrize("command", RUNS_THE_SCRIPT + CHOOSES_CODE)
def test_code_an_option_chooses_is_not_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "deny"
    assert decide(folder, command, ASKED) == "ask"
    assert decide(folder, command, OPEN) == "allow"  # (no deny or ask rule to dodge)


@pytest.mark.parametrize("command", NEVER_PROVABLE)
def test_code_that_may_run_anything_is_never_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "deny"
    assert decide(folder, command, OPEN) == "ask"


@pytest.mark.parametrize("command", STILL_PROVABLE)
def test_what_chooses_no_code_stays_provable(folder: Path, command: str) -> None:
    assert decide(folder, command, GUARDED) == "allow"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_really_runs_a_remote_helper_from_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    helper = bin_dir / "git-remote-evil"
    helper.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    helper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "ls-remote", "evil::x"], cwd=tmp_path, env=env,
                   capture_output=True, timeout=30, check=False)
    assert (tmp_path / "ran").exists()  # git ran the helper, named by no word on the line
    assert decide(tmp_path, "git ls-remote evil::x", GUARDED) == "deny"


@pytest.mark.parametrize(("rules", "flagged"), [
    ([("allow", "Bash(git clone evil::x)"), ("deny", "Bash(rm:*)")], ["Bash(git clone evil::x)"]),
    ([("allow", "Bash(env -C d make)"), ("ask", "Bash(rm:*)")], ["Bash(env -C d make)"]),
    ([("allow", "Bash(vim -s keys:*)"), ("deny", "Bash(rm:*)")], ["Bash(vim -s keys:*)"]),
    ([("allow", "Bash(less -k keys:*)"), ("deny", "Bash(rm:*)")], ["Bash(less -k keys:*)"]),
    ([("allow", "Bash(git clone evil::x)")], []),  # (no deny or ask rule: it allows)
    ([("allow", "Bash(git clone https://x/y)"), ("deny", "Bash(rm:*)")], []),
])
def test_lint_flags_an_allow_of_code_an_option_chooses(
        rules: list[tuple[str, str]], flagged: list[str]) -> None:
    from toolhost.config.model import PermissionsConfig, RuleConfig
    from toolhost.permissions import compile_policy, lint_policy

    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd="/")
    assert [f.rule for f in lint_policy(policy) if f.code == "never-allows"] == flagged
    for rule in flagged:  # (and the engine agrees)
        assert policy.decide("Bash", {"command": rule[5:-1].replace(":*", "")}).behavior \
            != "allow"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
@pytest.mark.parametrize(("setting", "command", "expected"), [
    ("remote.origin.url evil::x", "git fetch origin", "deny"),
    ("remote.origin.url evil::x", "git pull", "deny"),
    ("remote.origin.pushurl evil::x", "git push", "deny"),
    ("url.evil::x.insteadOf gh:", "git ls-remote gh:y", "deny"),
    ("remote.origin.url evil::x", "git status", "allow"),  # (no remote reached)
    ("remote.origin.url https://x/y", "git fetch origin", "allow"),
])
def test_a_configured_remote_helper_is_not_provable(tmp_path: Path, setting: str,
                                                    command: str, expected: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(tmp_path)], env=env, check=True, timeout=30)
    subprocess.run(["git", "config", *setting.split()], cwd=tmp_path, env=env, check=True,
                   timeout=30)
    assert decide(tmp_path, command, GUARDED) == expected
