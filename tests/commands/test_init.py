"""``toolhost init``: what it writes works at once, end to end, and nothing is overwritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.cli import main

BIN = Path(sys.executable).parent


def run(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd / "xdg")}
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.e2e
def test_scaffold_validates_calls_and_passes_its_own_ci(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    done = run(sys.executable, "-m", "toolhost", "init", "agent", "--name", "shop",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cd agent" in done.stdout
    assert "# a real Claude CLI session, scripted model" in done.stdout  # one is found
    project = tmp_path / "agent"
    monkeypatch.chdir(project)  # the printed steps, in-process (the CI script runs them too)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert main(["validate", "toolhost.yaml"]) == 0
    capsys.readouterr()
    assert main(["call", "toolhost.yaml", "shop.greet", "name=Ada"]) == 0
    assert capsys.readouterr().out.strip() == "Hello, Ada."
    ci = run("sh", "toolhost-ci.sh", cwd=project, timeout=300)
    assert ci.returncode == 0, ci.stdout + ci.stderr
    assert "toolhost checks passed" in ci.stdout


def test_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "toolhost.yaml").write_text("mine\n")
    done = run(sys.executable, "-m", "toolhost", "init", cwd=tmp_path)
    assert done.returncode == 1 and "toolhost.yaml" in done.stderr
    assert (tmp_path / "toolhost.yaml").read_text() == "mine\n"
    assert not (tmp_path / "toolhost_tools.py").exists()
    forced = run(sys.executable, "-m", "toolhost", "init", "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "toolhost: 1" in (tmp_path / "toolhost.yaml").read_text()


@pytest.mark.parametrize("name", ["", "Shop", "a__b", "x" * 41, "-x", "a b", "ü"])
def test_bad_server_names_are_refused(tmp_path: Path, name: str,
                                      monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["init", "--name", name])
    except SystemExit as exited:  # argparse's own refusal ("-x" reads as an option)
        code = exited.code  # type: ignore[assignment]
    assert code == 2 and "--name" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("link", ["toolhost.yaml", "toolhost_tools.py", "scenarios/smoke.yaml",
                                  "toolhost-ci.sh"])
@pytest.mark.parametrize("force", [False, True])
def test_init_never_writes_through_a_symlink(tmp_path: Path, link: str, force: bool,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "proj"
    (project / link).parent.mkdir(parents=True)
    (project / link).symlink_to(outside / "victim")  # dangling: os.path.exists says False
    code = main(["init", str(project), *(["--force"] if force else [])])
    err = capsys.readouterr().err
    assert list(outside.iterdir()) == []
    assert "internal error" not in err and len(err.splitlines()) <= 1
    if force:  # the link itself is replaced by the file
        assert code == 0 and not (project / link).is_symlink()
    else:
        assert code == 1 and f"{link} already exist" in err


def test_init_refuses_a_linked_directory_inside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "scenarios").symlink_to(outside)
    done = run("toolhost", "init", "proj", "--force", cwd=tmp_path)
    assert done.returncode == 1 and list(outside.iterdir()) == []
    assert done.stderr.count("\n") == 1 and "proj/scenarios is a symbolic link" in done.stderr


@pytest.mark.parametrize("make", ["file", "dangling", "loop", "under-a-file"])
def test_an_unusable_directory_is_one_line(tmp_path: Path, make: str) -> None:
    target = tmp_path / "dir"
    if make == "file":
        target.write_text("x")
    elif make == "dangling":
        target.symlink_to(tmp_path / "missing" / "dir")
    elif make == "loop":
        target.symlink_to(target)
    else:
        target.write_text("x")
        target = target / "sub"
    done = run("toolhost", "init", str(target), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("toolhost init: ") and done.stderr.count("\n") == 1
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "missing").exists()


def test_the_ci_scripts_install_line_names_no_pypi_package() -> None:
    """The CI script said `pip install toolhost`: toolhost is not on PyPI, so CI would
    install whatever package someone published under that name (and no Claude CLI for the
    scenario step)."""
    from toolhost.commands.init import CI

    install = [line for line in CI.splitlines() if "pip install" in line]
    assert install and all("pip install toolhost" not in line for line in install)
    assert all("'toolhost[sdk] @ git+" in line for line in install if "run:" in line)


def test_install_step_runs_from_the_repository_top(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code reads the .mcp.json of the directory it is started in or above: a project
    scaffolded below a git repository's top is installed from the top."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert main(["init", "repo/tools/agent"]) == 0
    out = capsys.readouterr().out
    assert "  cd ../.. && toolhost install claude-code tools/agent/toolhost.yaml   #" in out
    assert main(["init", "repo"]) == 0  # at the top: as before
    assert "  toolhost install claude-code toolhost.yaml   #" in capsys.readouterr().out


def test_the_ci_step_says_how_to_get_a_claude_cli_when_none_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The README's install (`'.[serve]'`) brings no Claude CLI: the CI script's scenario step
    would stop at "the Claude CLI was not found"; the printed step says what installs one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLHOST_CLI", str(tmp_path / "no-claude"))  # none usable here
    assert main(["init"]) == 0
    step = next(line for line in capsys.readouterr().out.splitlines()
                if line.startswith("  sh toolhost-ci.sh"))
    assert "needs the Claude CLI, not found here" in step
    assert "'.[serve,sdk]'" in step and "npm install -g @anthropic-ai/claude-code" in step


def test_printed_steps_paste_into_a_shell_with_spaces_and_unicode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`cd tools/my agent ü` is three words to a shell: every step is quoted as pasted."""
    import shlex

    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert main(["init", "repo/tools/my agent ü"]) == 0
    steps = capsys.readouterr().out.split("Next:\n", 1)[1].splitlines()
    assert shlex.split(steps[0]) == ["cd", "repo/tools/my agent ü"]
    install = shlex.split(steps[-1], comments=True)
    assert install == ["cd", "../..", "&&", "toolhost", "install", "claude-code",
                       "tools/my agent ü/toolhost.yaml"]
    assert main(["init", "--", "-x"]) == 0
    assert shlex.split(capsys.readouterr().out.split("Next:\n", 1)[1].splitlines()[0]) == [
        "cd", "./-x"]


@pytest.mark.parametrize("name", ["toolhost.toml", "toolhost.yml"])
def test_a_directory_with_a_config_of_another_name_gets_no_second_one(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / name).write_text("toolhost = 1\n" if name.endswith(".toml") else "toolhost: 1\n")
    assert main(["init", str(tmp_path)]) == 1  # was: toolhost.yaml written beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    err = capsys.readouterr().err
    assert f"{tmp_path / name} is already a toolhost config here; nothing was written" in err
    assert main(["init", str(tmp_path), "--force"]) == 0  # asked for: written beside it
    assert (tmp_path / "toolhost.yaml").exists()


@pytest.mark.parametrize(("before", "after"), [
    (None, "# a person's own toolhost settings (toolhost.local.yaml) and their lock\n"
           "toolhost.local.*\n"),
    ("node_modules", "node_modules\n# a person's own toolhost settings (toolhost.local.yaml) "
                     "and their lock\ntoolhost.local.*\n"),
    ("toolhost.local.yaml\n", "toolhost.local.yaml\n"),  # already ignored: left as it was
])
def test_the_local_override_is_git_ignored(tmp_path: Path, before: str | None,
                                           after: str) -> None:
    """The docs call toolhost.local.yaml git-ignored; nothing made it so, and a person's own
    settings (secrets among them) went into the team's repository with `git add .`."""
    if before is not None:
        (tmp_path / ".gitignore").write_text(before)
    assert main(["init", str(tmp_path)]) == 0
    assert (tmp_path / ".gitignore").read_text() == after


@pytest.mark.parametrize("kind", ["directory", "symlink", "not-utf8"])
def test_a_gitignore_it_leaves_alone_is_said(tmp_path: Path, kind: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A .gitignore it cannot update was skipped without a word: the local override was then
    not ignored, and nothing said so."""
    path = tmp_path / ".gitignore"
    if kind == "directory":
        path.mkdir()
    elif kind == "symlink":
        (tmp_path / "shared-ignore").write_text("node_modules\n")
        path.symlink_to("shared-ignore")
    else:
        path.write_bytes(b"caf\xe9\n")
    assert main(["init", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"note: {path} was left alone (" in out, out
    assert "add toolhost.local.* to the repository's ignore rules" in out
    if kind == "symlink":
        assert (tmp_path / "shared-ignore").read_text() == "node_modules\n"


@pytest.mark.parametrize("path", ["prod.env", ".ENV", "config/.Env.local", "/srv/app/.env",
                                  "x/../.env"])
def test_the_scaffolds_env_rule_denies_every_case(tmp_path: Path, path: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """macOS and Windows ignore case: `.ENV` is `.env` there, and a glob `*.env*` let the
    scaffold's own "Environment files stay private" rule be stepped around."""
    assert main(["init", str(tmp_path)]) == 0
    capsys.readouterr()
    main(["permissions", "check", str(tmp_path / "toolhost.yaml"),
                 "mcp__project__count_lines", "--input", json.dumps({"path": path}),
                 "--no-layers"])
    out = capsys.readouterr().out
    assert out.startswith("deny: ") and "Environment files stay private." in out, out


def test_a_directory_name_with_a_line_break_is_shown_on_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """`wrote bad` / `name/toolhost.yaml`: the DIR's line break split each line in two."""
    monkeypatch.chdir(tmp_path)
    assert main(["init", "bad\nname"]) == 0
    out = capsys.readouterr().out
    assert "wrote bad\\nname/toolhost.yaml\n" in out, out
    assert main(["init", "bad\nname"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("toolhost init: bad\\nname/toolhost.yaml, ") and err.count("\n") == 1
