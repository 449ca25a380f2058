"""Operands a program reads as more than a name: past a literal ``--``, or as ``KEY=VALUE``.

A literal ``--`` ends a getopt program's options: ``[ls, --, "{{ f }}"]`` lists a file named
``-la``, so ``argv`` lets a value after it start with ``-``, ``+`` or ``@``. Some programs
read on past it:

- **find**: ``--`` ends find's own options (``-H``, ``-L``, ``-P``), not its expression. The
  paths end at the first argument that starts with ``-`` or is ``!``, ``(``, ``)`` or ``,``:
  ``[find, --, "{{ dir }}", -name, "*.txt"]`` with ``-delete`` deleted every file below the
  cwd (real GNU find), and ``!`` before a config's ``-name '*.tmp' -delete`` turns it into
  "delete every other file", with or without the ``--``.
- **response files**: GCC's driver, binutils (``nm``, ``objdump``, ``readelf``, ``size``,
  ``ar``, ``ld``, ...; libiberty's ``expandargv``), LLVM's tools (``clang-format``,
  ``clang-tidy``, ``opt``, ``llc``, ``FileCheck``: cl's response files), ``rustc``, the JDK's
  tools (``javac``, ``jar``, ``javadoc``, ``jlink``...) and other compilers replace an ``@FILE``
  argument by the file's words before they look at ``--``: ``[nm, --, "{{ f }}"]`` with
  ``@/etc/passwd`` printed every line of the file in an error, and a file of options can load
  a plugin (``--plugin X.so``).

``past_dashdash`` says which program reads such a value; ``argv`` refuses it unless the
param is in ``allow_dash``.

- **dd**'s operands are all ``KEY=VALUE``: ``[dd, if=in.img, "{{ v }}"]`` with
  ``of=/home/me/.bashrc`` writes a file the config never named, ``if=/etc/shadow`` reads one.
  **awk** reads an operand ``NAME=TEXT`` as an assignment to a variable of its program, not
  a file, also after ``--`` (and ``-v {{ v }}`` lets the value choose the variable).
  ``dd_operand`` finds an operand whose ``=`` a value wrote; ``of={{ out }}`` and
  ``-v "n={{ n }}"`` (the config's ``=``) keep the value a file name or a variable's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["EXPRESSION_WORDS", "dd_operand", "past_dashdash"]

# find starts its expression at these words too (whole arguments, not prefixes)
EXPRESSION_WORDS = frozenset({"!", "(", ")", ","})
_FINDS = frozenset({"find", "gfind", "bfs"})
_DDS = frozenset({"dd", "gdd", "dcfldd", "dc3dd"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "original-awk", "busybox-awk"})
_AWK_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# awk options whose next argument is not an assignment
_AWK_VALUED = frozenset({"-F", "--field-separator", "-f", "--file", "-i", "--include",
                         "-l", "--load", "-E", "--exec"})
_GCC = ("gcc", "g++", "c++", "cc", "cpp", "gfortran", "gccgo", "gnat", "gdc", "gm2")
_BINUTILS = frozenset({
    "addr2line", "ar", "as", "c++filt", "dlltool", "dwp", "elfedit", "gold", "gprof", "ld",
    "ld.bfd", "ld.gold", "nm", "objcopy", "objdump", "ranlib", "readelf", "size", "strings",
    "strip", "windres", "lld", "ld.lld", "ld64.lld", "lld-link", "wasm-ld", "clang",
    "clang++", "clang-cl", "clang-cpp", "flang", "javac"})
# by their whole name (maybe versioned: llc-14): LLVM's tools (cl's response files), rustc's
# '@path', the JDK launcher's @argfiles, and compilers that take response files
_AT_WHOLE = frozenset({
    "opt", "llc", "lli", "filecheck", "dsymutil", "bugpoint", "clangd", "ldc2", "ldmd2",
    "rustc", "rustdoc", "clippy-driver", "javadoc", "jar", "jlink", "jmod", "jdeps",
    "jpackage", "kotlinc", "kotlinc-jvm", "kotlinc-js", "scalac", "swiftc", "swift-frontend",
    "emcc", "em++", "emar", "dmd", "csc", "mcs", "vbc", "fsc", "msbuild"})
_AT_PREFIXES = ("llvm-", "clang", "mlir-", "flang")  # clang-format, clang-tidy, mlir-opt


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _expands_at(name: str) -> bool:
    """Whether the program replaces ``@FILE`` by the file's words wherever it is."""
    if name in _BINUTILS or name.startswith(_AT_PREFIXES):
        return True
    # cross and versioned names: x86_64-linux-gnu-gcc-12, aarch64-linux-gnu-objdump, gcc-13
    for word in (name, name.rsplit("-", 1)[0] if name[-1:].isdigit() else name):
        tail = word.rsplit("-", 1)[-1]
        if word in _GCC or word in _AT_WHOLE or tail in _GCC or tail in _BINUTILS:
            return True
    return False


def _reads(name: str, text: str) -> str | None:
    if name in _FINDS and (text in EXPRESSION_WORDS or text[:1] == "-" != text):
        return ("a part of its expression (an action such as -delete or -exec, or an "
                "operator), not a path")
    if text[:1] == "@" and _expands_at(name):
        return "a file of options to read ('@file'), whose lines it takes as arguments"
    return None


def past_dashdash(out: Sequence[str], text: str, cwd: str | None = None,
                  search: str | None = None) -> tuple[str, str] | None:
    """(program, what it reads) when a program that may run on the command line ``out``
    (the arguments before the value, the program first) reads the argument ``text`` as more
    than an operand whatever ``--`` came before it; else None. Through wrappers
    (``timeout 9 find``) and links (``ff -> find``)."""
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    for k in run_programs([Token("", word, False) for word in out]) or range(len(out)):
        for name in (_name(out[k]), *map(_name, program_names(out[k], cwd, search))):
            what = _reads(name, text)
            if what is not None:
                return name, what
    return None


def dd_operand(out: Sequence[str], valued: Sequence[tuple[int, int]], cwd: str | None = None,
               search: str | None = None) -> tuple[str, str] | None:
    """(operand, program) for an operand whose ``=`` a value wrote: any of dd's (it chose
    the key: ``of=``, ``if=``), or an awk operand ``NAME=`` (it set a variable of the
    program: awk reads ``x=1`` as an assignment, not a file, before or after ``--``);
    else None. ``valued``: (index in ``out``, length of the literal text before the
    value)."""
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    starts = dict(valued)
    if not any("=" in out[k][at:] for k, at in starts.items()):
        return None  # the common case, without finding the programs
    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        names = {_name(out[at]), *map(_name, program_names(out[at], cwd, search))}
        dd, awk = bool(_DDS & names), bool(_AWKS & names)
        if not (dd or awk):
            continue
        for k in range(at + 1, len(out)):
            if k not in starts:
                continue
            text, skip = out[k], 0
            if awk:
                if out[k - 1] in _AWK_VALUED:
                    continue  # -F SEP, -f FILE: no assignment
                if out[k - 1] in ("-v", "--assign"):
                    pass
                elif text.startswith("-v"):
                    text, skip = text[2:], 2
                elif text.startswith("-"):
                    continue
                if not _AWK_ASSIGN.match(text):
                    continue
            eq = text.find("=") + skip
            if eq >= starts[k] and eq >= skip:
                return out[k], "dd" if dd else "awk"
    return None
