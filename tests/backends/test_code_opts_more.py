"""More options whose argument a program runs or loads as code: sdiff/diff3
``--diff-program``, apt ``-o`` hooks, java ``-XX:OnError``/``-D`` class loaders, rustc
``-C linker``, gpg's helper programs, ssh-keygen's PKCS#11 library, git clone ``--template``
and ``-c init.templateDir``/``diff.external``, docker's host mounts and engine, hg/svn
config, cmake ``-D`` toolchains, ffmpeg filter graphs, Ghostscript ``-c``. A value there is a
load error; the data forms of the same options load. The real programs show the literal
option runs the command (so the table's entry is no guess)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd

V = "{{ v }}"


@pytest.mark.parametrize("argv", [
    ["sdiff", "--diff-program=" + V, "a", "b"],
    ["make", "-I", V, "all"],
    ["make", "-kI" + V, "all"],
    ["make", "--include-dir=" + V],
    ["gmake", "--include", V],
    ["sdiff", "--diff-prog", V, "a", "b"],
    ["diff3", "--diff-program", V, "a", "b", "c"],
    ["apt-get", "-o", "APT::Update::Pre-Invoke::=" + V, "update"],
    ["apt-get", "-oDPkg::Post-Invoke::=" + V, "install", "x"],
    ["apt", "-o", V, "update"],
    ["apt-get", "--option", "Dir::Bin::dpkg=" + V, "install", "x"],
    ["apt-get", "-c", V, "update"],
    ["java", "-XX:OnOutOfMemoryError=" + V, "Main"],
    ["java", "-XX:OnError=" + V, "-jar", "a.jar"],
    ["java", "-XX:" + V, "Main"],
    ["java", "-XX:+" + V, "Main"],
    ["java", "-D" + V, "Main"],
    ["java", "-Djava.system.class.loader=" + V, "Main"],
    ["javac", "-J" + V, "A.java"],
    ["javac", "-processorpath", V, "A.java"],
    ["rustc", "-C", "linker=" + V, "x.rs"],
    ["rustc", "-Clinker=" + V, "x.rs"],
    ["rustc", "--codegen", "link-arg=" + V, "x.rs"],
    ["rustc", "-C", V, "x.rs"],
    ["rustc", "-Z", "codegen-backend=" + V, "x.rs"],
    ["gpg", "--agent-program", V, "--list-keys"],
    ["gpg", "--photo-viewer=" + V, "--list-keys"],
    ["gpg2", "--dirmngr-program", V, "--recv-keys", "x"],
    ["ssh-keygen", "-D", V],
    ["ssh-keygen", "-w", V, "-t", "ecdsa-sk"],
    ["ssh-add", "-s", V],
    ["ssh-agent", "-P", V],
    ["git", "clone", "--template=" + V, "https://h/r", "d"],
    ["git", "clone", "--templ", V, "https://h/r"],
    ["git", "init", "--template", V],
    ["git", "daemon", "--access-hook=" + V],
    ["git", "-c", "init.templateDir=" + V, "clone", "https://h/r"],
    ["git", "-c", "diff.external=" + V, "diff"],
    ["git", "-c", "submodule.x.update=" + V, "submodule", "update"],
    ["git", "-c", "remote.origin.url=" + V, "fetch"],
    ["git", "-c", "sendemail.smtpServer=" + V, "send-email", "x.patch"],
    ["git", "-c", "safe.directory=" + V, "status"],
    ["docker", "run", "-v", V + ":/data", "img"],
    ["docker", "run", "--volume=" + V, "img"],
    ["podman", "run", "--mount", "type=bind,src=" + V + ",dst=/x", "img"],
    ["docker", "run", "--device", V, "img"],
    ["docker", "run", "--network", V, "img"],
    ["docker", "run", "--pid=" + V, "img"],
    ["docker", "run", "--security-opt", V, "img"],
    ["docker", "run", "--cap-add", V, "img"],
    ["docker", "run", "-e", V, "img"],
    ["docker", "run", "-e", "LD_PRELOAD=" + V, "img"],
    ["docker", "run", "--env-file", V, "img"],
    ["docker", "-H", V, "ps"],
    ["docker", "--context=" + V, "ps"],
    ["docker", "--config", V, "pull", "img"],
    ["hg", "--config", "hooks.pre-commit=" + V, "commit"],
    ["hg", "--config", V, "log"],
    ["hg", "-R", V, "log"],
    ["hg", "pull", "--ssh", V, "ssh://h/r"],
    ["hg", "clone", "-e", V, "ssh://h/r"],
    ["hg", "push", "--remotecmd=" + V],
    ["jj", "--config", "ui.diff-editor=" + V, "diffedit"],
    ["jj", "--config", "merge-tools.x.program=" + V, "resolve"],
    ["jj", "--config=aliases.x=" + V, "log"],
    ["jj", "--config", V, "log"],
    ["jj", "--config-toml", V, "log"],
    ["jj", "--config-file", V, "log"],
    ["jj", "-R", V, "log"],
    ["svn", "--config-option", "config:tunnels:ssh=" + V, "up"],
    ["svn", "diff", "--diff-cmd", V],
    ["cmake", "-D", V, "."],
    ["cmake", "-DCMAKE_PROJECT_INCLUDE=" + V, "."],
    ["cmake", "-D", "CMAKE_C_COMPILER:FILEPATH=" + V, "."],
    ["cmake", "-DCMAKE_C_COMPILER_LAUNCHER=" + V, "."],
    ["ffmpeg", "-i", "in.mp4", "-vf", V, "out.mp4"],
    ["ffmpeg", "-i", "in.mp4", "-vf", "scale=" + V, "out.mp4"],
    ["ffmpeg", "-filter_complex", V, "out.mp4"],
    ["ffprobe", "-lavfi", V],
    ["gs", "-c", V],
    ["psql", "-v", V],
    ["psql", "--set=PROMPT1=" + V],
    ["lldb", "-o", V, "prog"],
    ["ghc", "-e", V],
    ["ghci", "-pgmF", V, "x.hs"],
    ["rake", "-e", V],
    ["mysql", "--plugin-dir=" + V, "--default-auth=x"],
    ["mysql", "--default-auth", V],
    ["cpio", "--rsh-command=" + V, "-o"],
    ["helm", "template", "c", "--post-renderer", V],
    ["kubectl", "--kubeconfig=" + V, "get", "pods"],
    ["timeout", "9", "sdiff", "--diff-program", V, "a", "b"],
    # R36-7: nmap runs NSE (Lua) scripts and loads them from its data directory, and
    # --resume takes the options of a saved scan; tshark's -X lua_script: runs Lua; mutt's
    # -e is a muttrc command (backticks run a shell, sendmail= a program), -F a muttrc;
    # sqlmap's --eval is Python, --tamper Python modules
    ["nmap", "--script", V, "host"],
    ["nmap", "--script=" + V, "host"],
    ["nmap", "--datadir", V, "host"],
    ["nmap", "--resume", V],
    ["tshark", "-X", "lua_script:" + V, "-r", "a.pcap"],
    ["tshark", "-X", V, "-r", "a.pcap"],
    ["tshark", "-Xlua_script:" + V, "-r", "a.pcap"],
    ["wireshark", "-X", V],
    ["mutt", "-e", V, "-s", "hi", "a@b"],
    ["neomutt", "-F", V],
    ["sqlmap", "-u", "http://h/x?id=1", "--eval=" + V],
    ["sqlmap", "-u", "http://h/x?id=1", "--tamper", V],
])
def test_a_value_in_an_option_that_runs_code_is_a_load_error(config: Config,
                                                             argv: list[Any]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    # (a value glued to a wrapper's option may be reported twice: also as the program)
    problem = next(p for p in info.value.problems if "option's argument" in p.message)
    assert problem.key_path.startswith("servers.demo.tools.t.command.argv[")
    assert "unsafe_code_placeholders" in (problem.hint or ""), problem
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.parametrize("argv", [
    ["nmap", "-p", V, "host"],
    ["nmap", "--script", "default", "--", V],
    ["tshark", "-r", "a.pcap", "-Y", V],
    ["mutt", "-s", V, "a@b"],
    ["sqlmap", "-u", "http://h/x?id=1", "--level", V],
])
def test_data_of_the_r36_programs_still_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))


@pytest.mark.parametrize("argv", [
    ["java", "-Dapp.name=" + V, "Main"],
    ["java", "-XX:MaxRAM=" + V, "Main"],
    ["java", "-cp", "app.jar", "Main", V],
    ["rustc", "-C", "opt-level=" + V, "x.rs"],
    ["rustc", "-Copt-level=" + V, "x.rs"],
    ["apt-get", "-o", "Debug::NoLocking=" + V, "update"],
    ["apt-get", "install", "-y", "--", V],
    ["git", "commit", "--template=" + V],  # a message template, no hooks
    ["git", "-c", "user.name=" + V, "log"],
    ["docker", "run", "-e", "FOO=" + V, "img"],
    ["docker", "run", "--rm", "-v", "/srv/data:/data", "img", "ls", "--", V],
    ["docker", "run", "--name", V, "img"],
    ["docker", "run", "-w", V, "img"],
    ["psql", "-v", "id=" + V, "-f", "q.sql"],
    ["hg", "--config", "ui.username=" + V, "commit"],
    ["jj", "--config", "user.name=" + V, "describe", "-m", "x"],
    ["svn", "--config-option", "servers:global:http-timeout=" + V, "up"],
    ["cmake", "-DCMAKE_BUILD_TYPE=" + V, "."],
    ["ffmpeg", "-i", "in.mp4", "-vframes", V, "out.mp4"],
    ["ssh-keygen", "-lf", V],
    ["javac", "-d", V, "A.java"],
    ["gpg", "--recipient", V, "-e", "f"],
])
def test_data_in_the_same_programs_still_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))


def _program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def _marker_script(tmp_path: Path) -> tuple[Path, Path]:
    """An executable that leaves a marker when something runs it."""
    marker = tmp_path / "ran"
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    script.chmod(0o755)
    return script, marker


@pytest.mark.parametrize("argv", [
    ["sdiff", "--diff-program={script}", "a", "b"],
    ["diff3", "--diff-program={script}", "a", "b", "a"],
])
def test_the_real_diff_programs_run_their_diff_program(tmp_path: Path, argv: list[str]) -> None:
    program = _program(argv[0])
    script, marker = _marker_script(tmp_path)
    (tmp_path / "a").write_text("a\n")
    (tmp_path / "b").write_text("b\n")
    subprocess.run([program, *(a.format(script=script) for a in argv[1:])], cwd=tmp_path,
                   capture_output=True, timeout=30, check=False)
    assert marker.exists()


def test_real_git_runs_a_template_s_hooks_and_an_external_diff(tmp_path: Path) -> None:
    git = _program("git")
    script, marker = _marker_script(tmp_path)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path),
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    (tmp_path / "tpl" / "hooks").mkdir(parents=True)
    shutil.copy(script, tmp_path / "tpl" / "hooks" / "post-checkout")
    subprocess.run([git, "init", "-q", "src"], cwd=tmp_path, env=env, check=True)
    subprocess.run([git, "-C", "src", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=tmp_path, env=env, check=True)
    for option in (["clone", "--template=tpl"], ["-c", "init.templateDir=tpl", "clone"]):
        marker.unlink(missing_ok=True)
        dest = tmp_path / f"d{len(option[0])}"
        subprocess.run([git, *option, "-q", "src", str(dest)], cwd=tmp_path, env=env,
                       check=True, timeout=60)
        assert marker.exists(), option
    marker.unlink()
    (tmp_path / "src" / "f").write_text("x\n")
    subprocess.run([git, "-C", "src", "add", "f"], cwd=tmp_path, env=env, check=True)
    subprocess.run([git, "-C", "src", "-c", f"diff.external={script}", "diff", "--cached"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=60)
    assert marker.exists()


def test_real_rustc_runs_the_linker_it_is_given(tmp_path: Path) -> None:
    rustc = _program("rustc")
    script, marker = _marker_script(tmp_path)
    (tmp_path / "m.rs").write_text("fn main() {}\n")
    subprocess.run([rustc, f"-Clinker={script}", "m.rs", "-o", "m"], cwd=tmp_path,
                   capture_output=True, timeout=300, check=False)
    assert marker.exists()


def test_real_ssh_keygen_opens_the_library_it_is_given(tmp_path: Path) -> None:
    keygen = _program("ssh-keygen")
    done = subprocess.run([keygen, "-D", str(tmp_path / "lib.so")], capture_output=True,
                          text=True, timeout=30, check=False)
    # it tries to open (dlopen) the model's path as a PKCS#11 library
    assert str(tmp_path / "lib.so") in done.stderr
