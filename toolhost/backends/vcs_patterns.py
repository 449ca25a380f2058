"""Mercurial, Jujutsu and Subversion operands that are more than a path (git's pathspec magic
is ``git_pathspecs``).

**Mercurial** reads every file operand (``hg cat``, ``hg revert``, ``hg status``, ``hg
log FILE``, ``-I``/``--include`` and ``-X``/``--exclude``) as a *pattern* when it starts
with a kind and a ``:`` (``hg help patterns``): ``path:``, ``filepath:``, ``rootfilesin:``
and ``rootglob:`` name files from the repository's root whatever the directory hg runs in;
``re:``, ``relre:``, ``glob:``, ``relglob:`` match many files; ``set:`` is a fileset query;
``listfile:``, ``listfile0:``, ``include:`` and ``subinclude:`` read a file (any file: its
lines become patterns, and hg's errors about them print them). So ``[hg, revert, --,
"{{ f }}"]`` with ``re:.*`` reverts every file of the repository, and ``listfile:/etc/shadow``
reads a file the config never named. A revset (``-r``) reads the same patterns inside
``file()``, ``follow()``, ``contains()`` ...: ``file('listfile:~/.ssh/id_rsa')``.

**Jujutsu** reads file operands (``jj diff``, ``jj restore``, ``jj file show``, ``jj
squash`` ...) as *filesets*: ``root:x`` and ``root-file:x`` name files from the workspace
root, ``~x`` is every file but ``x`` (``jj restore '~x'`` restores all the others), ``a |
b`` and ``all()`` widen it; a name is taken as a path only when it holds none of them.

**Subversion** reads an operand with ``scheme://`` as a repository URL (``svn+ssh://host``
runs ssh to that host with your keys) and ``^/`` as the repository's root.

:func:`vcs_pattern` finds an argument of hg (``chg``), jj or svn, through wrappers and
links, where a value wrote such a kind, operator or URL in a place the program reads a file
operand; ``argv`` refuses the call. The argument of an option that takes text (``-m``,
``--user``, ``--date``, ``--template``, ...) and hg grep's pattern are left alone; an option
these tables do not know is taken for a flag, so the next argument counts as an operand
(fail closed). A kind the config writes itself (``"path:{{ f }}"``) stays the config's
for hg; jj reads a whole expression there, so only a quoted string the config opens
(``"root-file:\\"{{ f }}\\""``) holds a value safely (``"`` and ``\\`` refused in it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["VCS_PROGRAMS", "vcs_pattern"]

_HG = frozenset({"hg", "chg"})
_JJ = frozenset({"jj"})
_SVN = frozenset({"svn"})
VCS_PROGRAMS = _HG | _JJ | _SVN

# what a value must hold for any of these to matter: the fast path skips the rest
_INTERESTING = re.compile(r"[:~|&()\"'\\,^]")

# hg's pattern kinds (mercurial/match.py: allpatternkinds), read at the argument's start
_HG_KINDS = frozenset({"re", "glob", "path", "filepath", "relglob", "relpath", "relre",
                       "rootglob", "rootfilesin", "listfile", "listfile0", "set", "include",
                       "subinclude"})
# ... and the kinds that read a file, wherever a revset or fileset holds them
_HG_READS = re.compile(r"(?<![A-Za-z0-9_])(listfile0?|include|subinclude):")
# hg options whose argument is text, never a pattern (skipped); ones that take a pattern
_HG_TEXT = frozenset({
    "-m", "--message", "-u", "--user", "-d", "--date", "-T", "--template", "--style",
    "-k", "--keyword", "-l", "--logfile", "--limit", "--encoding", "--encodingmode",
    "--color", "--pager", "--config", "-R", "--repository", "--cwd", "-t", "--tool",
    "-U", "--unified", "-o", "--output", "-e", "--ssh", "--remotecmd", "-b", "--branch",
    "-B", "--bookmark"})
# revisions: revsets read patterns inside file(), follow() ...
_HG_REVS = frozenset({"-r", "--rev", "-s", "--source", "--base", "--dest"})
_HG_PATTERNS = frozenset({"-I", "--include", "-X", "--exclude"})

# jj options whose argument is not a fileset (a revset, a message, a name, a template)
_JJ_VALUED = frozenset({
    "-r", "--revision", "--revisions", "-m", "--message", "--from", "--to", "--into",
    "-d", "--destination", "-o", "--onto", "-A", "--insert-after", "--after", "-B",
    "--insert-before", "--before", "-s", "--source", "-b", "--branch", "--bookmark",
    "-T", "--template", "-n", "--limit", "--tool", "--remote", "-R", "--repository",
    "--at-op", "--at-operation", "--color", "--config", "--config-toml", "--config-file",
    "--name", "-c", "--change", "--when", "--stdin-file", "--reversed-from", "-p",
    "--pattern"})
# fileset syntax: a kind's ':', operators, function calls, quotes and escapes
_JJ_SYNTAX = re.compile(r"[:~|&()\"'\\,]")
_JJ_IN_QUOTES = re.compile(r"[\"\\]")

# svn options whose argument is not a target
_SVN_VALUED = frozenset({
    "-m", "--message", "-r", "--revision", "-c", "--change", "--username", "--password",
    "-F", "--file", "--encoding", "--depth", "--set-depth", "--accept", "--with-revprop",
    "--changelist", "--cl", "-l", "--limit", "--search", "--search-and", "--targets",
    "--native-eol", "-x", "--extensions", "--config-option", "--config-dir", "--editor-cmd",
    "--diff-cmd", "--diff3-cmd"})
_SVN_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^\^/")


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def vcs_pattern(out: Sequence[str], valued: Sequence[tuple[int, int]],
                tails: Mapping[int, int], allow_remote: bool = False,
                cwd: str | None = None, search: str | None = None
                ) -> tuple[str, str] | None:
    """(the argument, what the program reads it as) for the first argument of hg, jj or svn
    where a value wrote a pattern kind, fileset syntax or a URL in a file operand, or None.
    ``valued``: (index in ``out``, length of the literal text before the value); ``tails``:
    index -> length of the literal text after it."""
    spans = {k: (at, len(out[k]) - tails.get(k, 0)) for k, at in valued}
    if not any(_INTERESTING.search(out[k], at, end) for k, (at, end) in spans.items()):
        return None  # the common case, without finding the programs
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    tokens = [Token("", text, k in spans) for k, text in enumerate(out)]
    for at in run_programs(tokens) or range(len(out)):
        names = {_name(out[at]), *map(_name, program_names(out[at], cwd, search))}
        found = _hg(out, at, spans) if names & _HG else _jj(out, at, spans) \
            if names & _JJ else _svn(out, at, spans, allow_remote) if names & _SVN else None
        if found is not None:
            return found
    return None


def _places(out: Sequence[str], at: int, spans: Mapping[int, tuple[int, int]],
            valued_options: frozenset[str]) -> list[tuple[int, str, str, int]]:
    """(index, the option before it or "", the subcommand, how many operands came after the
    subcommand before it) of each value-written argument after the program at ``at``; the
    option is "" for an operand (or after ``--``)."""
    places: list[tuple[int, str, str, int]] = []
    command, dashdash, taker, operands = "", False, "", 0
    for k in range(at + 1, len(out)):
        text = out[k]
        written = k in spans
        inline = ""
        if written and text.startswith("-") and "=" in text[:spans[k][0]]:
            # "--message={{ m }}": the config wrote the option, the value is its argument
            inline = text[:spans[k][0]].partition("=")[0]
        if written:
            places.append((k, taker or inline, command, operands))
        if taker:
            taker = ""
        elif not written and text == "--" and not dashdash:
            dashdash = True
        elif not dashdash and not written and text.startswith("-") and text != "-":
            taker = text if text in valued_options else ""
        elif inline:
            continue
        elif not command and not written:
            command = text
        elif command:
            operands += 1
    return places


def _hg(out: Sequence[str], at: int, spans: Mapping[int, tuple[int, int]]
        ) -> tuple[str, str] | None:
    places = _places(out, at, spans, _HG_TEXT | _HG_REVS | _HG_PATTERNS)
    for k, option, command, operands in places:
        text, begin = out[k], spans[k][0]
        if option in _HG_TEXT or (command == "grep" and not option and not operands):
            continue  # text, or hg grep's first operand: its regular expression
        read = next((m for m in _HG_READS.finditer(text) if m.end() > begin), None)
        if read is not None:
            return text, (f"a Mercurial pattern that reads a file ('{read.group(1)}:'): hg "
                          "would read any file the model names (a value may not write it)")
        if option in _HG_REVS:
            continue
        kind, colon, _ = text.partition(":")
        if colon and kind in _HG_KINDS and len(kind) >= begin:
            return text, (f"a Mercurial pattern of kind '{kind}:' (hg help patterns: "
                          "'path:' and 'rootglob:' name files from the repository's root, "
                          "'re:' and 'glob:' match many, 'set:' is a query; the config can "
                          "write the start of the path: \"./{{ f }}\", or the kind: "
                          "\"path:{{ f }}\")")
    return None


def _jj(out: Sequence[str], at: int, spans: Mapping[int, tuple[int, int]]
        ) -> tuple[str, str] | None:
    for k, option, _command, _n in _places(out, at, spans, _JJ_VALUED):
        if option:
            continue
        text, (begin, end) = out[k], spans[k]
        quoted = begin > 0 and text[begin - 1] == '"'
        syntax = (_JJ_IN_QUOTES if quoted else _JJ_SYNTAX).search(text, begin, end)
        if syntax is not None:
            return text, (f"a Jujutsu fileset, not a path ({syntax.group()!r}: 'root:' "
                          "names files from the workspace root, '~x' every file but x, "
                          "'|' and 'all()' more; the config can open a quoted "
                          "path for it: 'cwd-file:\"{{ f }}\"')")
    return None


def _svn(out: Sequence[str], at: int, spans: Mapping[int, tuple[int, int]],
         allow_remote: bool) -> tuple[str, str] | None:
    for k, option, _command, _n in _places(out, at, spans, _SVN_VALUED):
        text, (begin, _end) = out[k], spans[k]
        if option or begin > 0:
            continue
        url = _SVN_URL.match(text)
        if url is None or (allow_remote and url.group() != "^/"):
            continue
        return text, ("the repository's root ('^/'), outside the working copy"
                      if url.group() == "^/" else
                      "a repository URL: svn would reach the host it names "
                      "(svn+ssh:// runs ssh to it with your keys; set allow_remote: true if "
                      "the model may choose the repository)")
    return None
