"""A file a command writes through an option of its own, then run or run later.

``git diff --output=x.sh; bash x.sh`` runs the diff as a script: a file's name or a commit
message in it (``$(rm x)``) is a command substitution when bash reads it (checked for real
below). ``git diff``/``log``/``show`` were read as writing no file, and only a list of
writers' operands counted as written, so ``sort -o``, ``find -fprintf``, ``openssl -out``,
``gpg -o``, ``split``'s made-up names and the like were allowed before the run. Now a run
file named by any command not known to write nothing (``files.reader``), or run after one
that makes names up, is not provable; and git's ``--output`` makes a reading subcommand a
writer of the run-later file it names (``.git/hooks/...``, ``~/.bashrc``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def _decide(command: str, cwd: Path, rules: list[tuple[str, str]] | None = None) -> str:
    rules = rules or [("deny", "Bash(rm:*)"), ("allow", "Bash")]
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd=str(cwd))
    return policy.decide("Bash", {"command": command}).behavior


WRITE_THEN_RUN = [
    "git diff --output=x.sh; bash x.sh", "git diff --output x.sh; bash x.sh",
    "git log -p --output=x.sh; source x.sh", "git show --output=x.sh HEAD; . ./x.sh",
    "git archive -o x.sh HEAD; bash x.sh", "sort -o x.sh f; bash x.sh",
    "sort -ox.sh f; bash x.sh", "sort --output=x.sh f; sh x.sh", "shuf -o x.sh f; bash x.sh",
    "uniq f x.sh; bash x.sh", "gpg -o x.sh -d f.gpg; bash x.sh",
    "openssl enc -d -in f -out x.sh; bash x.sh", "xxd -r f x.sh; bash x.sh",
    "find . -fprintf x.sh 'rm x\\n'; bash x.sh", "find . -fprint x.sh; . ./x.sh",
    "find . -fls x.sh; sh x.sh", "zip x.sh f; bash x.sh", "sed -n 'w x.sh' f; bash x.sh",
    "split -l 1 f x; bash xaa", "csplit f 1; bash xx00",
    "git format-patch -o d HEAD~1; bash d/0001-x.patch", "sort -o x.sh f && ./x.sh",
    "sort -o x.s? f; bash x.sh", "sort -o x.[s]h f; . ./x.sh", "sort -o X.SH f; bash x.sh",
    "sort -o 'x'.sh f; bash x.sh", "F=x.sh; sort -o $F f; bash x.sh",
    'sort -o "$F" f; bash x.sh', "git diff --output=$F; bash x.sh",
]


@pytest.mark.parametrize("command", WRITE_THEN_RUN)
def test_a_file_written_by_an_option_and_run_is_not_provable(command: str,
                                                             tmp_path: Path) -> None:
    assert _decide(command, tmp_path) == "deny"
    assert _decide(command, tmp_path, [("ask", "Bash(rm:*)"), ("allow", "Bash")]) == "ask"


@pytest.mark.parametrize("target", [".git/hooks/pre-commit", "~/.bashrc", "$HOME/.profile",
                                    "/home/u/.bashrc", "sub/.git/hooks/post-checkout"])
@pytest.mark.parametrize("form", ["git diff --output={}", "git diff --output {}",
                                  "git log -p --output={}", "git show --output={} HEAD",
                                  "git -C . diff --output={}"])
def test_git_output_to_a_run_later_file_is_not_provable(form: str, target: str,
                                                        tmp_path: Path) -> None:
    assert _decide(form.format(target), tmp_path) == "deny"
    assert _decide(form.format(target), tmp_path,
                   [("allow", "Bash(git diff:*)"), ("allow", "Bash(git log:*)"),
                    ("allow", "Bash(git show:*)"), ("deny", "Bash(rm:*)")]) != "allow"


@pytest.mark.parametrize("command", [
    "cat x.sh; bash x.sh", "chmod +x x.sh && ./x.sh", "shellcheck x.sh && bash x.sh",
    "git add x.sh && bash x.sh", "grep -n foo x.sh; sh x.sh", "git diff --stat; bash x.sh",
    "ls x.sh && bash x.sh", "git diff --output=out.txt", "git log --stat",
    "make && ./build/app", "npm install && bash scripts/setup.sh", "cat x.s?; bash x.sh",
    "git diff --output=*.sh; bash x.sh", "cc -o app app.c && ./app",
    "export P=$HOME/bin; bash x.sh", "echo $X; bash x.sh", "git diff --stat $REV; bash x.sh",
])
def test_reading_or_unrelated_commands_stay_provable(command: str, tmp_path: Path) -> None:
    (tmp_path / "x.sh").write_text("echo hi\n")
    assert _decide(command, tmp_path) == "allow"


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                    reason="needs git and bash")
def test_bash_really_runs_what_git_diff_output_wrote(tmp_path: Path) -> None:
    def run(*args: str) -> None:
        subprocess.run(args, cwd=tmp_path, check=True, capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                            "GIT_CONFIG_NOSYSTEM": "1"})

    name = "$(touch PWNED)"
    run("git", "init", "-q", ".")
    run("git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q",
        "--allow-empty", "-m", "x")
    (tmp_path / name).write_text("a\n")
    run("git", "add", "-A")
    run("git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "y")
    (tmp_path / name).write_text("b\n")
    subprocess.run(["bash", "-c", "git diff --output=x.sh; bash x.sh"], cwd=tmp_path,
                   capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert (tmp_path / "PWNED").exists()
    assert _decide("git diff --output=x.sh; bash x.sh", tmp_path) == "deny"


@pytest.mark.parametrize("command", [
    "less -o ~/.bashrc f", "less -O.git/hooks/pre-commit f", "less --log-file=~/.bashrc f",
    "less -Ro ~/.bashrc f", "less --LOG-FILE ~/.profile f", "tree -o ~/.bashrc",
    "tree -o .git/hooks/pre-commit -i --noreport", "tree -o x.sh; bash x.sh",
    "less -o x.sh f; bash x.sh",
])
def test_a_reader_writing_the_file_its_option_names_is_no_reader(command: str,
                                                                 tmp_path: Path) -> None:
    # less logs what it shows to -o's file (on a terminal: `script -c` gives it one); tree
    # writes its listing, whose file names may hold `$(...)`, to -o's
    assert _decide(command, tmp_path) == "deny"


@pytest.mark.parametrize("command", ["less -R ~/.bashrc", "less ~/.bashrc",
                                     "tree ~/.config/fish", "less -N .git/config"])
def test_readers_without_their_output_options_stay_readers(command: str,
                                                           tmp_path: Path) -> None:
    assert _decide(command, tmp_path) == "allow"
