"""GNU tar reads an archive name with a ':' before any '/' as another host's file and runs
its remote shell there, and scp and rsync read such an operand as a file on that host (they
connect with ssh and the user's keys): a value may not make an operand remote unless the
tool sets ``allow_remote: true``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.remote_operands import remote_operand

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
@pytest.mark.parametrize("argv", [
    ["-cf", "{{ out }}"], ["--create", "--file={{ out }}"], ["-cvf{{ out }}"],
])
async def test_a_value_never_makes_tars_archive_remote(config: Config, tmp_path: Path,
                                                       argv: list[str]) -> None:
    marker = tmp_path / "rsh-ran"
    rsh = tmp_path / "rsh.sh"
    rsh.write_text(f"#!/bin/sh\ntouch {marker}\n")
    rsh.chmod(0o755)
    (tmp_path / "d").mkdir()
    full = ["tar", f"--rsh-command={rsh}", *argv, "-C", str(tmp_path / "d"), "."]
    cfg = config({"t": cmd(full, options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {"out": "127.0.0.1:stolen.tar"})
    assert result.is_error
    assert "another host's file" in result.text_content, result.text_content
    assert not marker.exists()
    local = await run(cfg, "t", {"out": "ok.tar"})
    assert not local.is_error, local.text_content
    assert (tmp_path / "ok.tar").exists()


@pytest.mark.parametrize(("out", "valued", "remote"), [
    (["tar", "-cf", "h:x"], [(2, 0)], "h:x"),
    (["tar", "cf", "h:x"], [(2, 0)], "h:x"),  # old-style bundled options
    (["tar", "-c", "-f", "h:x"], [(3, 0)], "h:x"),
    (["tar", "-c", "--file", "h:x"], [(3, 0)], "h:x"),
    (["tar", "-c", "--file=h:x"], [(2, 7)], "h:x"),
    (["tar", "-cvfh:x"], [(1, 4)], "h:x"),
    (["/bin/gtar", "-xf", "./h:x"], [(2, 0)], None),  # a '/' before the ':' is local
    (["tar", "-cf", "h:x", "--force-local"], [(2, 0)], None),
    (["tar", "-cf", "h:x"], [], None),  # the config's own literal
    (["tar", "-cf", "bk:x"], [(2, 3)], None),  # the ':' is the config's ("bk:{{ n }}")
    (["tar", "-cf", "/tmp/{{x}}"], [(2, 5)], None),
    (["bsdtar", "-cf", "h:x"], [(2, 0)], None),  # bsdtar has no remote archives
    (["tar", "-C", "h:x", "-cf", "a"], [(2, 0)], None),  # not the archive name
])
def test_which_archive_names_are_remote(out: list[str], valued: list[tuple[int, int]],
                                        remote: Any) -> None:
    assert remote_operand(out, valued) == remote


def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in for ssh that records that it ran (scp -S runs it to reach the host)."""
    marker = tmp_path / "ssh-ran"
    rsh = tmp_path / "rsh.sh"
    rsh.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    rsh.chmod(0o755)
    return rsh, marker


@pytest.mark.skipif(shutil.which("scp") is None, reason="needs scp")
@pytest.mark.parametrize(("argv", "args"), [
    (["{{ src }}", "out.txt"], {"src": "127.0.0.1:/etc/hostname"}),
    (["--", "in.txt", "{{ dst }}"], {"dst": "me@127.0.0.1:stolen"}),
    (["in.txt", "{{ dst }}"], {"dst": "scp://127.0.0.1/stolen"}),
    (["in.txt", "{{ user }}@127.0.0.1:x"], {"user": "u"}),  # the value is part of the host
    (["{{ files }}", "."], {"files": ["in.txt", "[::1]:x"]}),
])
async def test_a_value_never_makes_an_scp_operand_remote(config: Config, tmp_path: Path,
                                                        argv: list[str],
                                                        args: dict[str, Any]) -> None:
    rsh, marker = recorder(tmp_path)
    (tmp_path / "in.txt").write_text("x")
    params = {"files": {"type": "array", "items": {"type": "string"}}} if "files" in args \
        else None
    full = ["timeout", "20", "scp", "-S", str(rsh), "-o", "BatchMode=yes", *argv]
    cfg = config({"t": cmd(full, options={"cwd": str(tmp_path)},
                           **({"params": params} if params else {}))})
    result = await run(cfg, "t", args)
    assert result.is_error
    assert "another host's file" in result.text_content, result.text_content
    assert "allow_remote" in result.text_content
    assert not marker.exists()
    # the tool that opts in reaches the host (here: runs the stand-in for ssh)
    opted = config({"t": cmd(full, options={"cwd": str(tmp_path), "allow_remote": True},
                             **({"params": params} if params else {}))})
    result = await run(opted, "t", args)
    assert marker.exists(), result.text_content


@pytest.mark.skipif(shutil.which("scp") is None, reason="needs scp")
async def test_local_and_config_chosen_hosts_still_run(config: Config, tmp_path: Path) -> None:
    rsh, marker = recorder(tmp_path)
    (tmp_path / "in.txt").write_text("x")
    local = config({"t": cmd(["scp", "-S", str(rsh), "{{ src }}", "{{ dst }}"],
                             options={"cwd": str(tmp_path)})})
    result = await run(local, "t", {"src": "in.txt", "dst": "./a:b"})
    assert not result.is_error, result.text_content
    assert (tmp_path / "a:b").read_text() == "x"
    assert not marker.exists()
    fixed = config({"t": cmd(["scp", "-S", str(rsh), "in.txt", "backup:{{ dst }}"],
                             options={"cwd": str(tmp_path)})})
    await run(fixed, "t", {"dst": "x:y"})  # the host is the config's: allowed to start
    assert marker.exists()


@pytest.mark.parametrize(("out", "valued", "remote"), [
    (["scp", "h:x", "."], [(1, 0)], "h:x"),
    (["scp", "-P", "22", "a", "h:x"], [(4, 0)], "h:x"),
    (["scp", "-P", "h:x", "a", "b"], [(2, 0)], None),  # -P's argument, not an operand
    (["scp", "-3v", "a", "u@h:x"], [(3, 0)], "u@h:x"),
    (["scp", "a", "./h:x"], [(2, 0)], None),
    (["scp", "a", "bk:x"], [(2, 3)], None),  # the config's host ("bk:{{ p }}")
    (["scp", "a", "u@h:x"], [(2, 0)], "u@h:x"),  # "{{ user }}@h:x": the value starts it
    (["rsync", "-a", "--", "h::mod/x", "d"], [(3, 0)], "h::mod/x"),
    (["rsync", "-a", "rsync://h/m", "d"], [(2, 0)], "rsync://h/m"),
    (["rsync", "-a", "--exclude", "h:x", "s/", "d/"], [(3, 0)], None),  # a pattern
    (["rsync", "--exclude=h:x", "s/", "d/"], [(1, 10)], None),
    (["rsync", "-ave", "ssh", "s", "h:x"], [(4, 0)], "h:x"),
    (["rsync", "-ave", "h:x", "s", "d"], [(2, 0)], None),  # -e's argument
    (["/usr/bin/timeout", "5", "rsync", "s", "h:x"], [(4, 0)], "h:x"),  # through wrappers
    (["env", "A=1", "nice", "-n", "3", "scp", "h:x", "."], [(6, 0)], "h:x"),
    (["echo", "scp", "h:x"], [(2, 0)], None),  # echo runs, not scp
    (["tar", "-cf", "h:x"], [(2, 0)], "h:x"),
    (["timeout", "5", "tar", "-cf", "h:x", "."], [(4, 0)], "h:x"),
])
def test_which_operands_are_remote(out: list[str], valued: list[tuple[int, int]],
                                   remote: Any) -> None:
    assert remote_operand(out, valued) == remote


def test_validate_notes_a_tool_that_lets_the_model_choose_the_host(config: Config) -> None:
    from toolhost.backends.command_checks import option_notes

    argv = ["scp", "--", "in.txt", "{{ dst }}"]
    assert not option_notes(config({"t": cmd(argv)}))
    (note,) = option_notes(config({"t": cmd(argv, options={"allow_remote": True})}))
    assert note.key_path.endswith("command.allow_remote"), note
    assert "the model chooses the host" in note.message


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_a_value_never_chooses_gits_remote_helper(config: Config, tmp_path: Path) -> None:
    """``NAME::ADDRESS`` runs git-remote-NAME from PATH (backends25)."""
    marker = tmp_path / "helper-ran"
    helper = tmp_path / "git-remote-evil"
    helper.write_text(f"#!/bin/sh\ntouch {marker}\n")
    helper.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/local/bin:/usr/bin:/bin"}
    cfg = config({"t": cmd(["git", "ls-remote", "{{ url }}"],
                           options={"env": env, "ok_codes": [0, 128]})})
    result = await run(cfg, "t", {"url": "evil::x"})
    assert result.is_error and "git-remote-NAME" in result.text_content, result.text_content
    assert not marker.exists()
    result = await run(cfg, "t", {"url": str(tmp_path / "no-repo")})  # a path: git's own
    assert "git-remote-NAME" not in result.text_content


@pytest.mark.parametrize(("out", "valued", "found"), [
    (["git", "clone", "gcrypt::x", "d"], [(2, 0)], "gcrypt::x"),
    (["timeout", "5", "git", "fetch", "ext::sh"], [(4, 0)], "ext::sh"),
    (["git", "clone", "https://h/a::b", "d"], [(2, 8)], None),  # '::' in the path
    (["git", "clone", "hg::x", "d"], [(2, 4)], None),  # the config wrote "hg::"
    (["echo", "git", "a::b"], [(2, 0)], None),  # git is echo's argument
])
def test_which_git_remotes_name_a_helper(out: list[str], valued: list[tuple[int, int]],
                                         found: Any) -> None:
    from toolhost.backends.remote_operands import git_helper

    assert git_helper(out, valued) == found


@pytest.mark.parametrize("argv", [
    ["-o", "-F", "{{ out }}"], ["-ovF", "{{ out }}"], ["-o", "--file={{ out }}"],
    ["-o", "--file", "{{ out }}"], ["-i", "-I", "{{ out }}"], ["-o", "-O{{ out }}"],
    ["-o", "-F", "backup-{{ out }}"],
])
def test_a_value_never_makes_cpios_archive_remote(argv: list[str]) -> None:
    # GNU cpio reads [USER@]HOST:FILE in -F/-O/-I/--file as a file its remote shell reaches
    value = "evil.example:x"
    out = ["cpio", *(a.replace("{{ out }}", value) for a in argv)]
    valued = [(k, a.index("{{ out }}")) for k, a in enumerate(["cpio", *argv], start=0)
              if "{{ out }}" in a]
    assert remote_operand(out, valued) is not None
    assert remote_operand([*out, "--force-local"], valued) is None
    local = ["cpio", *(a.replace("{{ out }}", "./x.cpio") for a in argv)]
    assert remote_operand(local, valued) is None
    config_host = ["cpio", "-o", "-F", "bk:x"]  # a host the config writes is its own
    assert remote_operand(config_host, [(3, 3)]) is None
