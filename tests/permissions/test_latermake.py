"""Round 21: ``make`` (``-C dir``, ``-f file``, ``gmake``, behind sudo, xargs, find -exec)
reads its Makefile when decided: the recipe lines its goals reach (and every pattern, suffix
and ``.DEFAULT`` rule) are judged as Bash commands, as make would expand them. A recipe a
deny or ask Bash rule meets, a line whose programs cannot be proven, or what the text alone
does not say (an ``include``, ``$(shell)``, a variable from the environment, a Makefile that
cannot be read or that the line may write first) makes the make not provable. An honest
``make test`` of a plain Makefile is decided as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.permissions.test_laterarchive import GUARDED, OPEN, decide

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
    "honest_export": ("export PATH := $(PWD)/bin:$(PATH)\nx:\n\techo ok\n", "make x", "allow"),
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
