"""Round 21: ``make`` (``-C dir``, ``-f file``, ``gmake``, behind sudo, xargs, find -exec)
reads its Makefile when decided: the recipe lines its goals reach (and every pattern, suffix
and ``.DEFAULT`` rule) are judged as Bash commands, as make would expand them. A recipe a
deny or ask Bash rule meets, a line whose programs cannot be proven, or what the text alone
does not say (an ``include``, ``$(shell)``, a variable from the environment, a Makefile that
cannot be read or that the line may write first) makes the make not provable. An honest
``make test`` of a plain Makefile is decided as before."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions.policy import compile_policy

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

# name: (the Makefile, the command, the decision under deny rm + allow Bash)
CASES = {
    "include": ("include evil.mk\nx:\n\techo hi\n", "make x", "deny"),
    "shell": ("X := $(shell echo)\nx:\n\techo hi\n", "make x", "deny"),
    "envvar": ("x:\n\t$(TOOL) y\n", "make x", "deny"),
    "tabif": ("X = echo\nx:\n\tifeq (a,a)\n\trm y\n\tendif\n", "make x", "deny"),
    "recipeprefix": (".RECIPEPREFIX = >\nx:\n> rm y\n", "make x", "deny"),
    "shellvar": ("SHELL = /bin/rm\nx:\n\t-rf y\n", "make x", "deny"),
    "oshell": ("override SHELL := /bin/rm\nx:\n\t-rf y\n", "make x", "deny"),
    "dollardollar": ("x:\n\t$$(echo rm) y\n", "make x", "deny"),
    "doublecolon": ("x::\n\trm y\n", "make x", "deny"),
    "targetvar": ("x: CMD = rm\nx:\n\t$(CMD) y\n", "make x", "deny"),
    "define": ("define C\nrm y\nendef\nx:\n\t$(C)\n", "make x", "deny"),
    "semicolon": ("x: ; rm y\n", "make x", "deny"),
    "continued": ("x:\n\techo a && r\\\n\tm y\n", "make x", "deny"),
    "crlf": ("x:\r\n\trm y\r\n", "make x", "deny"),
    "varTarget": ("T = x\n$(T):\n\trm y\n", "make x", "deny"),
    "ifelse": ("ifeq ($(A),1)\nC = echo\nelse\nC = rm\nendif\nx:\n\t$(C) y\n", "make x", "deny"),
    "append": ("C = echo\nC += ; rm y\nx:\n\t$(C)\n", "make x", "deny"),
    "pattern": ("%:\n\trm $@\n", "make x", "deny"),
    "default": (".DEFAULT:\n\trm $@\n", "make x", "deny"),
    "suffix": (".c.o:\n\trm $<\n", "make x.o", "deny"),
    "goalmeta": ("%:\n\techo $@\n", "make 'a;rm'", "deny"),
    "stem": ("%:\n\t$* y\n", "make rm", "deny"),
    "eflag": ("C = echo\nx:\n\t$(C) y\n", "make -e x", "allow"),
    "eflagenv": ("C = echo\nx:\n\t$(C) y\n", "C=rm make -e x", "deny"),
    "script": ("x:\n\t./s.sh\n", "make x", "deny"),
    "oneshell": (".ONESHELL:\nx:\n\tcd sub\n\t./s.sh\n", "make x", "deny"),
    "makefiles": ("x:\n\techo\n", "MAKEFILES=evil.mk make x", "deny"),
    "stdin": ("x:\n\techo\n", "make -f - x < evil.mk", "deny"),
    "eval": ("x:\n\techo\n", "make --eval='y: ; rm z' y", "deny"),
    "secondexp": (".SECONDEXPANSION:\nx: $$(Y)\n\techo\ny:\n\trm z\n", "make x", "deny"),
    "vpath": ("vpath %.c src\nx:\n\techo ok\n", "make x", "allow"),
    "honest_cond": ("ifdef DEBUG\nCFLAGS = -g\nelse\nCFLAGS = -O2\nendif\n"
                    "x:\n\tcc $(CFLAGS) -o x x.c\n", "make x", "allow"),
    # (review20: make passes PATH to the recipes, ./bin/ls ran for a recipe's ls)
    "export_path": ("export PATH := $(PWD)/bin:$(PATH)\nx:\n\techo ok\n", "make x", "deny"),
    "honest_export": ("export LANG := C\nx:\n\techo ok\n", "make x", "allow"),
    "automatic": ("x: s.sh\n\tbash $<\n", "make x", "deny"),
    "unexport": ("unexport X\nx:\n\techo ok\n", "make x", "allow"),
    "gnumakefile": (None, "make x", "deny"),
    "fifo": (None, "make x", "deny"),
    "big": ("x:\n\techo ok\n" + "# pad\n" * 20000, "make x", "deny"),
    "xargs": ("x:\n\trm y\n", "echo x | xargs make", "deny"),
    "findexec": ("x:\n\trm y\n", "find . -maxdepth 0 -exec make x \\;", "deny"),
    "nested": ("x:\n\trm y\n", "echo $(make x)", "deny"),
    "busybox": ("x:\n\trm y\n", "busybox make x", "deny"),
    "builtinvar": ("", "make x CC=rm", "deny"),
    "clean_not_reached": ("all:\n\techo ok\nclean:\n\trm -rf build\n", "make all", "allow"),
    "recursive_ok": ("all:\n\t$(MAKE) -C sub\n", "make", "allow"),
    "escapedhash": ("C = echo \\# ; rm y\nx:\n\t$(C)\n", "make x", "deny"),
    "privatevar": ("x: private C = rm\nx:\n\t$(C) y\n", "make x", "deny"),
    "exportvar_line": ("C ?= echo\nx:\n\t$(C) y\n", "export C=rm; make x", "deny"),
    "make_env": ("x:\n\t$(MAKE) -v\n", "MAKE=rm make x", "deny"),
    "make_given": ("x:\n\t$(MAKE) -v\n", "make x MAKE=rm", "deny"),
    "mkdir_first": ("x:\n\techo ok\n", "mkdir -p sub && make -C sub x", "allow"),
}


def _tree(root: Path, name: str, text: str | None) -> None:
    (root / "sub").mkdir()
    (root / "sub/s.sh").write_text("rm -rf y\n")
    (root / "s.sh").write_text("rm -rf y\n")
    if name == "gnumakefile":  # GNU make reads GNUmakefile first
        (root / "Makefile").write_text("x:\n\techo ok\n")
        (root / "GNUmakefile").write_text("x:\n\trm y\n")
    elif name == "fifo":  # never opened blocking
        os.mkfifo(root / "Makefile")
    else:
        (root / "Makefile").write_bytes((text or "").encode())
    if name == "mkdir_first":
        (root / "sub/Makefile").write_text("x:\n\techo\n")


@pytest.mark.parametrize("name", list(CASES))
def test_make_is_judged_by_the_recipes_it_runs(tmp_path: Path, name: str) -> None:
    text, command, want = CASES[name]
    _tree(tmp_path, name, text)
    assert decide(tmp_path, command, GUARDED) == want
    if want == "deny":
        assert decide(tmp_path, command, ASKED) == "ask"
    if name not in ("stdin", "busybox"):  # (not provable before: a shell reading a pipe...)
        assert decide(tmp_path, command, OPEN) == "allow"  # (no deny or ask rule to dodge)


@pytest.mark.parametrize("command,want", [
    ("make install", "allow"), ("sudo make install", "allow"), ("make -j2 install", "allow"),
    ("python3 -m pip install --upgrade pip", "allow"), ("pip install -U pip", "allow"),
    ("cp a s && make -f s", "deny"), ("echo 'x: ; rm y' > Makefile; make x", "deny"),
    ("cp a Makefile; make", "deny"), ("tee GNUmakefile < a; gmake", "deny"),
])
def test_a_goal_or_a_package_named_like_a_writer_is_not_a_file_written(
        tmp_path: Path, command: str, want: str) -> None:
    """``make install`` (a goal), ``python3 -m pip install --upgrade pip`` (a package) were
    read as ``install``/``pip`` writing the file the line runs: not provable, denied. A line
    writing the Makefile make then reads still is."""
    assert decide(tmp_path, command, GUARDED) == want


@pytest.mark.parametrize("command,want", [
    ("make -f - <<< 'all:;echo hi'", "allow"), ("make -f - <<< 'all:;rm x'", "deny"),
    ("make -f /proc/self/fd/0 <<< 'all:;rm x'", "deny"),
    ("make -f /dev/fd/0 <<< 'all:;rm x'", "deny"), ("make -f Makefile -f /dev/stdin x", "deny"),
    ("make -f - <<'EOF'\nall:\n\techo hi\nEOF", "allow"),
    ("make -f - <<'EOF'\nall:\n\trm hi\nEOF", "deny"),
    ("make -f - <<-'EOF'\n\tall: ; rm hi\n\tEOF", "deny"),
    ("make -f - <<EOF\nall:\n\t$(X) hi\nEOF", "deny"),
    ("make -sf - all <<< \"$(printf 'all:\\n\\t%s' \"'rm' x\")\"", "deny"),
    ("printf 'all:\\n\\techo\\n' | make -f -", "deny"),
])
def test_a_makefile_read_from_input_is_judged_where_it_is_fed(tmp_path: Path, command: str,
                                                              want: str) -> None:
    """``-f -`` of a here-string is judged from the here-string (command_strings); a
    process's or a device's file (``/proc/self/fd/0``, ``/dev/fd/0``) is never read here."""
    (tmp_path / "Makefile").write_text("x:\n\trm y\n")
    assert decide(tmp_path, command, GUARDED) == want


@pytest.mark.parametrize("command,want", [
    ("CC='rm -rf V;' make foo", "deny"), ("make foo CC=rm", "deny"), ("env CC=rm make foo", "deny"),
    ("CFLAGS='-O2; rm x' make foo", "deny"), ("make foo 'LDLIBS=-lm;rm x'", "deny"),
    ("make foo CC=clang", "allow"), ("CFLAGS=-O2 make foo", "allow"), ("make foo", "allow"),
])
def test_make_s_built_in_rules_take_what_the_line_gives_them(tmp_path: Path, command: str,
                                                             want: str) -> None:
    """``make foo`` with ``foo.c`` and no rule for it runs ``$(CC) $(CFLAGS) ... foo.c -o
    foo``: ``CC='rm -rf V;'`` on the line ran rm (nothing read a value the built-in rules
    splice into their recipe)."""
    (tmp_path / "foo.c").write_text("int main(void) { return 0; }\n")
    assert decide(tmp_path, command, GUARDED) == want


# review20 (round 22): GNU make is the judge. name: (the Makefile, the command); make runs the
# fake rm each time, the engine allowed every one before (deny rm + allow Bash)
MAKE_RUNS_RM = {
    # the line's own assignments: X!= runs at start, X:= expands at start, X+= / X?= were
    # read as variables named 'X+' / 'X?', special variables change what make runs
    "given_bang": ("all: ; echo hi\n", "make 'X!=rm -rf v'"),
    "given_immediate": ("all: ; echo hi\n", "make 'X:=$(shell rm -rf v)'"),
    "given_plus": ("C = echo\nall: ; $(C) hi\n", "make C+=rm"),
    "given_maybe": ("C = echo\nall: ; $(C) hi\n", "make 'C?=rm'"),
    "given_prefix": ("all:\n>rm -rf v:\n", "make .RECIPEPREFIX='>'"),
    "given_goal": ("all: ; echo hi\nclean: ; rm -rf v\n", "make .DEFAULT_GOAL=clean"),
    "given_extra": ("all: ; echo hi\nclean: ; rm -rf v\n", "make .EXTRA_PREREQS=clean"),
    # an override in the Makefile beats the line's value
    "override": ("override C = rm\nall: ; $(C) hi\n", "make C=echo"),
    # a rule line's recipe keeps its '#' (make cut the line at ';' first)
    "semicolon_hash": ("all: ; : a#b; rm -rf v\n", "make"),
    "semicolon_dollar_hash": ("all: ; echo $$#; rm -rf v\n", "make"),
    "target_var_semicolon": ("x: C = echo ; rm -rf v\nx: ; $(C)\n", "make x"),
    # an even number of final backslashes continues no line; a shell comment ends at the
    # newline make keeps in a continued recipe line
    "even_backslashes": ("all:\n\techo a\\\\\n\trm -rf v\n", "make"),
    "comment_even_backslashes": ("# x \\\\\nall: ; rm -rf v\n", "make"),
    "recipe_comment_continued": ("all:\n\t# hi \\\n\trm -rf v\n", "make"),
    # a tab-indented endif after a rule is a recipe line, not the end of a conditional
    "tab_endif": ("all: ; $(X) hi\nifeq (a,a)\nX = rm\ny:\n\tendif\nelse\nX = echo\nendif\n",
                  "make"),
    # make first remakes the Makefile it read
    "remade_makefile": ("x: ; echo hi\nMakefile: force ; @true\nforce: ; rm -rf v\n", "make x"),
    # names spliced as $@ $< by a pattern rule
    "pattern_target_name": ("all: $$(rm$${IFS}-rf$${IFS}v).o\n%.o: ; echo $@\n", "make all"),
    "pattern_prereq_name": ("all: a.o\n%.o: $$(rm$${IFS}-rf$${IFS}v).c ; echo $<\n%.c: ; :\n",
                            "make all"),
    # a vpath directory prefixes $< as is
    "vpath_directory": ("vpath %.c $$(rm$${IFS}-rf$${IFS}v)\nall: a.c ; echo $<\n", "make"),
    # $^ holds the prerequisites of every rule naming the target
    "prerequisites_merged": ("x: rm\nx: echo ; $(lastword $^) -rf v\nrm: ;\necho: ;\n",
                             "make x"),
    # make's own variables assigned in the Makefile (or for a target)
    "make_assigned": ("MAKE = rm\nall: ; $(MAKE) -rf v\n", "make"),
    "curdir_assigned": ("CURDIR = rm\nall: ; $(CURDIR) -rf v\n", "make"),
    "goals_assigned": ("MAKECMDGOALS = rm\nall: ; $(MAKECMDGOALS) -rf v\n", "make"),
    "target_make": ("all: MAKE = rm\nall: ; $(MAKE) -rf v\n", "make"),
    # long options are taken by any unambiguous prefix
    "long_file_prefix": ("", "make --fil=m.mk x"),
    "long_directory_prefix": ("", "make --dir=sub x"),
    # .DEFAULT_GOAL: a variable, or a conditional's branch
    "default_goal_variable": ("G = clean\n.DEFAULT_GOAL = $(G)\nall: ; echo hi\n"
                              "clean: ; rm -rf v\n", "make"),
    "default_goal_branch": ("ifeq (a,a)\n.DEFAULT_GOAL := clean\nelse\n.DEFAULT_GOAL := all\n"
                            "endif\nall: ; echo hi\nclean: ; rm -rf v\n", "make"),
    # make's own variables in the environment, spelled with quotes
    "env_makefiles_quoted": ("all: ; echo hi\n", "env MAKE''FILES=m.mk make x"),
    "env_makeflags_quoted": ("C = echo\nx: ; $(C) hi\n", "C=rm env MAKE''FLAGS=-e make x"),
    # the recipes' environment: PATH (from the environment: exported with the Makefile's
    # value) finds ./bin/ls first; BASH_ENV runs a file in each bash
    "path": ("PATH := $(CURDIR)/lsbin:$(PATH)\nall: ; ls\n", "make"),
    "bash_env": ("export BASH_ENV := $(CURDIR)/e.sh\nall: ; bash -c 'echo hi'\n", "make"),
    "path_given": ("all: ; ls\n", "make PATH=./lsbin:/usr/bin:/bin"),
    # a sub-make gets its make's line assignments and -e (MAKEFLAGS)
    "sub_make_given": ("all: ; $(MAKE) -C sub y\n", "make C=rm"),
    "sub_make_env": ("all: ; $(MAKE) -C sub y\n", "C=rm make -e"),
    "env_special": ("all: ; echo hi\nclean: ; rm -rf v\n", "env .EXTRA_PREREQS=clean make"),
    "env_goal_e": ("all: ; echo hi\nclean: ; rm -rf v\n", "env .DEFAULT_GOAL=clean make -e"),
    # other names of GNU make, and other makes (here GNU make under their names)
    "remake": ("x: ; rm -rf v\n", "remake x"),
    "gnumake": ("x: ; rm -rf v\n", "gnumake x"),
    "bmake": ("x: ; rm -rf v\n", "bmake x"),
    # conditionals (round 22): a branch make skips holds no rule, so a tab line after its
    # else belongs to the rule before the ifeq, and its first target is not the default goal
    "branch_rule_context": ("all: ; echo hi\nifeq (a,b)\nx:\nelse\n\trm -rf v\nendif\n", "make"),
    "branch_chain_context": ("all: ; echo hi\nifeq (a,b)\nx:\nelse ifeq (a,c)\ny:\nendif\n"
                             "\trm -rf v\n", "make"),
    "branch_default_goal": ("ifeq (a,b)\nsafe: ; echo hi\nendif\nevil: ; rm -rf v\n", "make"),
    "branch_default_nested": ("ifdef NOPE\nifeq (a,a)\nsafe: ; echo hi\nendif\nendif\n"
                              "evil: ; rm -rf v\n", "make"),
    "branch_target_value": ("ifeq (a,a)\nall: C = rm\nendif\nC = echo\nall: ; $(C) -rf v\n",
                            "make"),
    # a target's value is not replaced by a later global assignment
    "target_value_then_global": ("all: C = rm\nC = echo\nall: ; $(C) -rf v\n", "make"),
    "target_append_then_global": ("all: C += ; rm -rf v\nC = echo\nall: ; $(C) hi\n", "make"),
}


def _judge_tree(root: Path, text: str) -> dict[str, str]:
    """The tree (``Makefile``, ``m.mk``, ``sub/Makefile``) and an environment whose PATH
    puts a fake ``rm`` (it logs to ``ran``) and make's other names first."""
    (root / "sub").mkdir()
    (root / "Makefile").write_text(text)
    (root / "m.mk").write_text("x: ; rm -rf v\n")
    (root / "sub/Makefile").write_text("x: ; rm -rf v\nC = echo\ny: ; $(C) -rf v\n")
    (root / "e.sh").write_text("rm -rf v\n")  # (bash_env)
    (root / "$(rm${IFS}-rf${IFS}v)").mkdir()  # (vpath_directory)
    (root / "$(rm${IFS}-rf${IFS}v)/a.c").write_text("")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "rm").write_text(f"#!/bin/sh\necho rm \"$@\" >> {root / 'ran'}\n")
    (bin_dir / "rm").chmod(0o755)
    (root / "lsbin").mkdir()  # (path: an ls only a PATH naming it finds)
    (root / "lsbin/ls").write_text(f"#!/bin/sh\necho rm -rf v >> {root / 'ran'}\n")
    (root / "lsbin/ls").chmod(0o755)
    for name in ("remake", "gnumake", "bmake"):
        (bin_dir / name).symlink_to(shutil.which("make") or "make")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    # make 4.3 runs a command-line `X!=...` or `X:=$(shell ...)` with $SHELL from the
    # environment (its own default is set later): without one it fails ("make: -c: No
    # such file or directory") and the judge would not be real (CI's environment has none)
    return {**env, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SHELL": "/bin/sh"}


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is the judge")
@pytest.mark.parametrize("name", list(MAKE_RUNS_RM))
def test_a_makefile_make_reads_otherwise_is_not_allowed(tmp_path: Path, name: str) -> None:
    text, command = MAKE_RUNS_RM[name]
    env = _judge_tree(tmp_path, text)
    assert decide(tmp_path, command, GUARDED) == "deny"
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL)
    assert (tmp_path / "ran").exists()  # (make ran rm: the case is a real one)


@pytest.mark.parametrize("text,command", [
    ("all: ; echo hi\n", "make CFLAGS+=-g"), ("all: ; echo hi\n", "make 'CFLAGS?=-O2'"),
    ("all: ; echo hi\n", "make X:=1 all"), (".DEFAULT_GOAL := all\nclean: ; rm -rf v\n"
                                            "all: ; echo hi\n", "make"),
    ("override C += -g\nall: ; echo $(C)\n", "make C=-O2"),
    ("all: ; echo '#' done\n", "make"), ("all:\n\techo a \\\n\t  b\n", "make"),
    ("all: a.o\n%.o: %.c ; cc -c $< -o $@\n", "make"), ("all: ; echo hi\n", "make --dir=. all"),
    ("all:\nifdef V\n\techo loud\nelse\n\t@echo quiet\nendif\n", "make"),
    ("ifeq ($(OS),Windows_NT)\nEXE = .exe\nelse ifeq (a,b)\nEXE = .bin\nelse\nEXE =\nendif\n"
     "all: ; echo x$(EXE)\n", "make"),
    ("debug: CFLAGS += -g\nCFLAGS = -O2\ndebug all: ; cc $(CFLAGS) -c x.c\n", "make debug"),
])
def test_an_honest_makefile_is_still_allowed(tmp_path: Path, text: str, command: str) -> None:
    (tmp_path / "Makefile").write_text(text)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/Makefile").write_text("C = echo\nall: ; $(C) $(V) hi\n")
    assert decide(tmp_path, command, GUARDED) == "allow"


@pytest.mark.parametrize("text,tree", [
    # A5 = $(A4) x10 ...: 10^5 references from a 300-byte Makefile, each empty (14 deep
    # hung: 10^14)
    ("A0 =\n" + "".join(f"A{i} = {f'$(A{i - 1})' * 10}\n" for i in range(1, 6))
     + "all: ; echo $(A5)\n", 0),
    # */*/*/*/*/*/*/x through four symlinks to '.': 4^7 directories
    ("all: ; echo $(wildcard " + "*/" * 7 + "x)\n", 4),
])
def test_a_makefile_costing_too_much_is_not_provable(tmp_path: Path, text: str,
                                                     tree: int) -> None:
    for name in "abcd"[:tree]:
        (tmp_path / name).symlink_to(".")
    (tmp_path / "Makefile").write_text(text)
    policy = compile_policy(PermissionsConfig(rules=[RuleConfig(effect=e, tool=t) for e, t in
                                                     GUARDED], default="ask"), cwd=str(tmp_path))
    decision = policy.decide("Bash", {"command": "make"})
    assert decision.behavior == "deny"
    assert "too many" in decision.message


def test_a_makefile_changed_in_place_is_read_again(tmp_path: Path) -> None:
    """The parsed Makefile is remembered by its text, not by the file: a rewrite of the same
    size with its times put back (``touch -r``) is a new decision (round 22)."""
    makefile = tmp_path / "Makefile"
    makefile.write_text("x: ; echo hi\n")
    before = makefile.stat()
    assert decide(tmp_path, "make x", GUARDED) == "allow"
    makefile.write_text("x: ; rm -r v\n")
    os.utime(makefile, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert makefile.stat().st_size == before.st_size
    assert decide(tmp_path, "make x", GUARDED) == "deny"
    makefile.write_text("x: ; echo hi\n")
    assert decide(tmp_path, "make x", GUARDED) == "allow"
