"""Splitting a shell command into the simple commands it runs, the way sh would.

``Bash(...)`` rules match simple commands, never the raw string: ``npm test && rm -rf x`` is two
commands, ``echo "a && b"`` is one. Quotes and backslashes are removed from words (so
``"rm" -rf /`` is the command ``rm -rf /``) and ANSI-C quoting is decoded (``$'\\x72m'`` is
``rm``); ``$(...)``, backticks, ``<(...)``/``>(...)`` and the substitutions of an unquoted
here-document are parsed recursively into ``nested`` commands, and anything an allow rule
cannot vouch for (a substitution, a redirection to a file, a here-document) marks the command
``opaque``. Each word also says whether it is a *plain literal* (no expansion, glob, brace,
backslash or ANSI-C/locale quoting: what you read is what runs); ``bash.programs`` needs that to
prove which programs a command runs.
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache

from toolhost.permissions.shell.expansions import arith_refusal, brace_refusal
from toolhost.permissions.shell.joins import join_all, join_one_by_one
from toolhost.permissions.shell.quoting import ShellSyntaxError, ansi_c

__all__ = ["ParsedCommand", "ShellSyntaxError", "Word", "parse_command"]

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")")
_REDIRECTS = ("<<<", "<<-", "&>>", ">>", ">&", ">|", "<<", "<&", "<>", "&>", ">", "<")
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_WORD_END = " \t\n;&|<>()"
_FD_DUP = re.compile(r"\d+-?|-")
_PARAM_START = re.compile(r"[A-Za-z_0-9@*#?$!-]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# what follows ``${`` in bash 5.3's command substitutions run in the shell itself
_FUNSUB = frozenset(" \t\n|")
_MAX_COMMAND = 100_000  # longer command lines are refused (fail closed), not scanned
_MAX_DEPTH = 8  # substitutions inside substitutions
_MAX_LEVEL = 48  # expansions and quotes inside each other, all substitutions together
# Words after which ``((`` opens an arithmetic command (``if ((x > 1))``, ``for ((...))``).
_ARITH_AFTER = frozenset({"for", "if", "elif", "while", "until", "!", "then", "do", "else",
                          "{", "time"})


@dataclass(frozen=True)
class Word:
    """One word: its value with quotes removed and ANSI-C escapes decoded, the text as written,
    and whether it is a plain literal (its value is exactly what the shell would use)."""

    value: str
    raw: str
    plain: bool
    arith: bool = False  # an arithmetic command ``((...))``: it runs no program
    code: bool = False  # its quoted or escaped text holds ``$(`` or a backtick: code where
    #                     bash evaluates the word as arithmetic or a subscript (``test -v``)


class _Exp(str):
    """A piece of a word's value that an expansion produced (not literal text)."""


@dataclass
class ParsedCommand:
    """The simple commands of a command line, each a tuple of unquoted words."""

    segments: list[tuple[str, ...]] = field(default_factory=list)
    nested: list[tuple[str, ...]] = field(default_factory=list)  # inside substitutions
    opaque: bool = False  # substitution, file redirection or here-document present
    text: str = ""  # words and operators joined by single spaces
    joined: tuple[str, ...] = ()  # each segment's words joined by single spaces
    balanced: bool = True  # every ``(`` operator has its ``)``
    words: list[tuple[Word, ...]] = field(default_factory=list)  # segments, with word facts
    nested_words: list[tuple[Word, ...]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # why no program can be proven
    # for each of ``words + nested_words`` (up to the last one fed anything): its stdin is a
    # file ("<": ``< f``), a pipe ("|") or neither ("")
    fed: list[str] = field(default_factory=list)
    # the simple commands (of ``words + nested_words``) that write a file by redirection or
    # read a here-document or here-string: (its words, the files written, fed a document?)
    writes: list[tuple[tuple[Word, ...], tuple[str, ...], bool]] = field(default_factory=list)

    def normalized(self) -> list[str]:
        return [" ".join(seg) for seg in self.segments]

    def freeze(self) -> ParsedCommand:
        self.joined = tuple(self.normalized())
        return self


class _Lexer:
    def __init__(self, s: str, depth: int, level: int = 0, heredoc_pending: bool = False,
                 raw: list[tuple[int, int]] | None = None) -> None:
        self.s, self.depth, self.level = s, depth, level
        # Where bash reads text as it is, a backslash-newline included: single quotes,
        # ``$'...'``, comments, quoted here-document bodies (see ``shelljoin``).
        self.raw: list[tuple[int, int]] = [] if raw is None else raw
        self.subs: list[ParsedCommand] = []
        self.opaque = False
        self.refusals: list[str] = []
        self.heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, expands, strip tabs)
        self.outer_heredoc = heredoc_pending  # a here-document of an enclosing line is pending
        self.fed: dict[int, str] = {}  # segments whose stdin is a file ("<") or a pipe ("|")
        # by the segment's list: (the files it writes by redirection, fed a document?)
        self.io: dict[int, tuple[list[str], list[bool]]] = {}

    def _child(self, s: str, depth: int) -> _Lexer:
        return _Lexer(s, depth, self.level, self.outer_heredoc or bool(self.heredocs),
                      self.raw if s is self.s else None)

    def _merge(self, other: _Lexer) -> None:
        self.subs += other.subs
        self.refusals += other.refusals
        self.opaque = self.opaque or other.opaque

    def _nested(self, i: int) -> int:
        """Parse the commands of ``$(``, ``<(`` or ``>(`` from ``i`` the way the shell does
        (quotes, comments, here-documents and all); return the index of the closing ``)``."""
        if self.depth >= _MAX_DEPTH:
            raise ShellSyntaxError("substitutions nested too deep")
        parsed, end = self._child(self.s, self.depth + 1).run(i, nested=True)
        self.subs.append(parsed)
        self.opaque = True
        return end

    def _backtick(self, body: str, dquote: bool, dq: bool) -> None:
        """Record a backtick substitution: inside, ``\\\\``, ``\\``` and ``\\$`` stand for
        the character itself (so nested backticks are parsed as commands too), and ``\\"``
        too when the backticks are inside double quotes (``dquote``)."""
        if self.depth >= _MAX_DEPTH:
            raise ShellSyntaxError("substitutions nested too deep")
        if dq and not dquote and '\\"' in body:  # in ${...} or $((...)) within quotes
            self.refusals.append('a \\" inside backticks within ${...} or $((...))')
        body = re.sub(r"\\([\\`$\"])" if dquote else r"\\([\\`$])", r"\1", body)
        self.subs.append(self._child(body, self.depth + 1).run()[0])
        self.opaque = True

    def _expansion_at(self, i: int, dq: bool = False, dquote: bool = False) -> int | None:
        """If a substitution or parameter expansion starts at ``i`` (a ``$`` or a backtick),
        record substitutions and return where it ends; else None (a literal ``$``). ``dq``:
        inside double quotes (or a here-document)."""
        if self.level >= _MAX_LEVEL:
            raise ShellSyntaxError("expansions nested too deep")
        self.level += 1
        try:
            return self._expansion(i, dq, dquote)
        finally:
            self.level -= 1

    def _expansion(self, i: int, dq: bool, dquote: bool) -> int | None:
        s = self.s
        if s.startswith("$((", i) and (end := self._arith(i + 3, ")")) is not None:
            return end
        if s.startswith("$(", i):
            return self._nested(i + 2) + 1
        if s.startswith("$[", i):  # legacy arithmetic: ``<<`` in it is a shift
            end = self._arith(i + 2, "]")
            if end is None:
                raise ShellSyntaxError("unterminated '$['")
            return end
        if s.startswith("`", i):
            j = self._backtick_end(i + 1)
            self._backtick(s[i + 1:j], dquote, dq)
            return j + 1
        if s.startswith("${", i):  # ${x:-$(cmd)} runs cmd
            if s[i + 2:i + 3] in _FUNSUB:  # bash 5.3's ${ cmd; } and ${| cmd; } run cmd
                self.refusals.append("a ${ ...; } command substitution (bash 5.3 runs the "
                                     "commands in it)")
            elif s.startswith("(", i + 2):  # (bash: a bad substitution, never run)
                self.refusals.append("a zsh ${(flags)...} expansion (its (e) flag runs the "
                                     "commands in the value)")
            return self._brace_end(i + 2, dq) + 1
        if s.startswith("$", i) and _PARAM_START.match(s, i + 1):
            m = _NAME.match(s, i + 1)
            return m.end() if m else i + 2
        return None

    def _brace_end(self, i: int, dq: bool) -> int:
        """Index of the ``}`` closing a ``${`` that ends right before ``i``. As in bash, only a
        nested ``${`` opens another level (``${x:-{}`` ends at the first ``}``); quotes,
        ``$'...'`` (outside double quotes) and substitutions hide a ``}``."""
        s, start = self.s, i
        while i < len(s):
            c = s[i]
            if c == "\\":
                i += 2
            elif c == "}":
                if (why := brace_refusal(s[start:i])) is not None:
                    self.refusals.append(why)
                return i
            elif c == "'":
                if dq:  # bash reads it as a quote, POSIX sh as a character: cannot vouch
                    self.refusals.append("a single quote inside ${...} in double quotes")
                i = self._single_quoted(i, [])
            elif s.startswith("$'", i) and not dq:
                i = self._ansi_c(i, [])
            elif c == '"':
                i = self._double_quoted(i + 1, [])
            elif c in "$`" and (end := self._expansion_at(i, dq)) is not None:
                i = end
            else:
                i += 1
        raise ShellSyntaxError("unterminated '${'")

    def _arith(self, i: int, close: str) -> int | None:
        """The end (past it) of an arithmetic expression starting at ``i``, after ``((``,
        ``$((`` (``close`` ``)``) or ``$[`` (``]``); its substitutions are recorded, and ``<<``
        in it is a shift, not a here-document. None when ``((`` is no arithmetic (it does not
        end in ``))``: ``((ls); rm x)`` is two subshells) or does not end."""
        probe = self._child(self.s, self.depth)
        probe.raw = []  # kept only if this is arithmetic after all
        s, opening, depth, start = self.s, "(" if close == ")" else "[", 0, i
        while i < len(s):
            c = s[i]
            if c == "\\":  # ``\$(`` is text here, code when a subscript is evaluated
                probe.refusals.append("a backslash inside an arithmetic expression")
                i += 2
                continue
            if c == close:
                if depth == 0:
                    break
                depth -= 1
            elif c == opening:
                depth += 1
            elif c == "'":  # not arithmetic syntax; a quote to bash's scanner
                probe.refusals.append("a quote inside an arithmetic expression")
                j = s.find("'", i + 1)
                if j < 0:
                    return None
                i = j
            elif c == '"':
                i = probe._double_quoted(i + 1, [])
                continue
            elif c in "$`" and (end := probe._expansion_at(i, True)) is not None:
                i = end
                continue
            i += 1
        else:
            return None
        if close == ")" and not s.startswith("))", i):
            return None
        self._merge(probe)
        self.raw += probe.raw
        if (why := arith_refusal(s[start:i])) is not None:  # a variable's value is evaluated
            self.refusals.append(why)  # as an expression: a subscript in it runs commands
            self.opaque = True
        return i + len(close) * (2 if close == ")" else 1)

    def word(self, i: int) -> tuple[Word, int]:
        """Read one word starting at ``i``."""
        s, out, start, plain = self.s, [], i, True
        while i < len(s) and (s[i] not in _WORD_END or (
                s[i] in "<>" and s.startswith("(", i + 1))):
            c = s[i]
            if c == "\\":
                if s[i + 1:i + 2] != "\n":
                    out.append(s[i + 1:i + 2])
                plain = False
                i += 2
            elif c in "<>":  # a process substitution is part of the word (``<(ls)#x``)
                close = self._nested(i + 2) + 1
                out.append(_Exp(s[i:close]))
                plain = False
                i = close
            elif c == "'":
                i = self._single_quoted(i, out)
            elif s.startswith("$'", i):
                i = self._ansi_c(i, out)
                plain = False
            elif s.startswith('$"', i):
                i = self._double_quoted(i + 2, out)
                plain = False
            elif c == '"':
                j = i
                i = self._double_quoted(i + 1, out)
                plain = plain and not any(x in s[j:i] for x in "$`\\")
            elif c in "$`" and (end := self._expansion_at(i)) is not None:
                out.append(_Exp(s[i:end]))
                plain = False
                i = end
            else:
                if c in "*?[~" or (c in "{}" and not (i == start and (
                        i + 1 == len(s) or s[i + 1] in _WORD_END))):
                    plain = False  # a glob, a brace expansion, a tilde: not what runs
                out.append(c)
                i += 1
        raw = s[start:i]
        if raw in ("[", "[["):  # test's `[` and bash's `[[` (a lone bracket is no
            plain = True  # glob, bash reads it as it is; `[ -e x ]` was not provable)
        code = False
        if "$" in raw or "`" in raw:
            literal = "".join("\0" if isinstance(p, _Exp) else p for p in out)
            code = "$(" in literal or "`" in literal
        return Word("".join(out), raw, plain, code=code), i

    def _single_quoted(self, i: int, out: list[str]) -> int:
        """Read ``'...'`` from the quote at ``i`` into ``out``; return the index past it."""
        j = self.s.find("'", i + 1)
        self.raw.append((i, len(self.s) if j < 0 else j + 1))
        if j < 0:
            raise ShellSyntaxError("unterminated single quote")
        out.append(self.s[i + 1:j])
        return j + 1

    def _ansi_c(self, i: int, out: list[str]) -> int:
        """Read ``$'...'`` from the ``$`` at ``i`` into ``out``; return the index past it."""
        self.raw.append((i, len(self.s)))
        end = ansi_c(self.s, i + 2, out)
        self.raw[-1] = (i, end)
        return end

    def _backtick_end(self, i: int) -> int:
        while i < len(self.s):
            if self.s[i] == "\\":
                i += 2
                continue
            if self.s[i] == "`":
                return i
            i += 1
        raise ShellSyntaxError("unterminated backtick")

    def _double_quoted(self, i: int, out: list[str]) -> int:
        s = self.s
        while i < len(s):
            c = s[i]
            if c == '"':
                return i + 1
            if c == "\\" and s[i + 1:i + 2] in ('"', "\\", "$", "`", "\n"):
                if s[i + 1] != "\n":
                    out.append(s[i + 1])
                i += 2
            elif c in "$`" and (end := self._expansion_at(i, True, True)) is not None:
                out.append(_Exp(s[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        raise ShellSyntaxError("unterminated double quote")

    def _heredoc_bodies(self, i: int) -> int:
        """Skip the bodies of the pending here-documents, which start at ``i`` (just after a
        newline); parse the substitutions of those whose delimiter was not quoted."""
        s = self.s
        for delimiter, expands, strip_tabs in self.heredocs:
            body = i
            while True:
                end = s.find("\n", i)
                line = s[i:] if end < 0 else s[i:end]
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    i = len(s) if end < 0 else end + 1
                    break
                if expands:
                    self._body_substitutions(line)
                if end < 0:
                    self.refusals.append(f"the here-document {delimiter!r} is not terminated")
                    i = len(s)
                    break
                i = end + 1
            if not expands:
                self.raw.append((body, i))
        self.heredocs = []
        return i

    def _body_substitutions(self, line: str) -> None:
        """Record the substitutions in ``line`` (a here-document line)."""
        inner = self._child(line, self.depth)
        j = 0
        while j < len(line):
            if line[j] == "\\":
                j += 2
            elif line[j] in "$`" and (end := inner._expansion_at(j, True)) is not None:
                j = end
            else:
                j += 1
        self._merge(inner)

    def _redirect(self, op: str, i: int, segments: list[list[Word]], text: list[str]) -> int:
        """Read the redirection ``op`` at ``i`` and its target; return where it ends."""
        s, cur = self.s, segments[-1]
        if cur and cur[-1].raw.isdigit() and s[i - 1:i].isdigit():
            cur.pop()  # "2>" : the fd number belongs to the redirection
        j = i + len(op)
        while j < len(s) and s[j] in " \t":
            j += 1
        target, i = self.word(j)
        if op in ("<<", "<<-"):
            if not target.raw or "$" in target.raw or "`" in target.raw:
                self.refusals.append(f"here-document delimiter {target.raw!r}")
            if cur and cur[0].raw == "[[":  # bash refuses it there; do not guess a body
                self.refusals.append("'<<' inside [[ ]]")
            quoted = any(q in target.raw for q in "'\"\\")
            self.heredocs.append((target.value, not quoted, op == "<<-"))
        harmless = (op in (">&", "<&") and _FD_DUP.fullmatch(target.value) is not None
                    ) or (target.value == "/dev/null" and target.plain
                          and op in (">", ">>", "&>", "&>>", "<", ">|"))
        if op in ("<<", "<<-", "<<<") or (not harmless and op in _WRITES):
            io = self.io.setdefault(id(cur), ([], [False]))
            if op in _WRITES:
                io[0].append(target.value)
            else:
                io[1][0] = True
        if not harmless:  # a file, a here-document or a here-string
            self.opaque = True
            if op in ("<", "<>", "<&"):
                self.fed[len(segments) - 1] = "<"
        text.append(op + target.value)
        return i

    def run(self, i: int = 0, nested: bool = False) -> tuple[ParsedCommand, int]:
        """Parse from ``i`` to the end, or (``nested``) to the ``)`` closing a substitution;
        return the commands and where parsing stopped."""
        s, n = self.s, len(self.s)
        segments: list[list[Word]] = [[]]
        text: list[str] = []
        depth = 0  # of ( ) groups: sh refuses a line where they do not pair up
        balanced, closed = True, False
        while i < n:
            c = s[i]
            if c in " \t":
                i += 1
            elif c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):  # a word starts here
                eol = s.find("\n", i)
                self.raw.append((i, n if eol < 0 else eol))
                i = n if eol < 0 else eol
            elif c in "<>" and s.startswith("(", i + 1):  # a word with a process substitution
                w, i = self.word(i)
                segments[-1].append(w)
                text.append(w.value)
            elif (op := next((r for r in _REDIRECTS if s.startswith(r, i)), None)) is not None:
                i = self._redirect(op, i, segments, text)
            elif s.startswith("((", i) and (not segments[-1] or (
                    segments[-1][-1].raw in _ARITH_AFTER)) and (
                    end := self._arith(i + 2, ")")) is not None:
                segments[-1].append(Word(s[i:end], s[i:end], False, arith=True))
                text.append(s[i:end])
                i = end
            elif (op := next((o for o in _OPERATORS if s.startswith(o, i)), None)) is not None:
                if nested and op == ")" and depth == 0:
                    closed = True
                    break
                if op == "(" and segments[-1]:  # "f() {...}", "@(x)": a definition or extglob
                    self.refusals.append(f"'(' after {segments[-1][-1].raw!r} (a function "
                                         "definition or an extended glob)")
                if segments[-1]:
                    segments.append([])
                if op in ("|", "|&"):
                    self.fed.setdefault(len(segments) - 1, "|")
                text.append(op.strip() or ";")
                depth += {"(": 1, ")": -1}.get(op, 0)
                balanced = balanced and depth >= 0
                i += len(op)
                if op == "\n" and self.outer_heredoc:  # whose body is it? do not guess
                    self.refusals.append("a line break inside a substitution while a "
                                         "here-document is pending")
                if op == "\n" and self.heredocs:
                    i = self._heredoc_bodies(i)
            else:
                w, i = self.word(i)
                segments[-1].append(w)
                text.append(w.value)
        if nested and not closed:
            raise ShellSyntaxError("unterminated '$(' or '('")
        if nested and self.heredocs:
            self.refusals.append("a here-document inside a substitution without its body")
        words = [tuple(seg) for seg in segments if seg]
        writes = [(t, tuple(io[0]), io[1][0]) for seg, t in zip(
            (seg for seg in segments if seg), words, strict=True)
            if (io := self.io.get(id(seg))) is not None] if self.io else []
        parsed = ParsedCommand(segments=[tuple(w.value for w in seg) for seg in words],
                               opaque=self.opaque, text=" ".join(text),
                               balanced=balanced and depth == 0, words=words,
                               refusals=self.refusals,
                               fed=[self.fed.get(k, "") for k, seg in enumerate(segments)
                                    if seg] if self.fed else [], writes=writes)
        for inner in self.subs:
            parsed.writes += inner.writes
            if inner.fed:  # (``fed`` stops at the last command fed anything)
                parsed.fed += [""] * (len(parsed.words) + len(parsed.nested_words)
                                      - len(parsed.fed))
                parsed.fed += inner.fed
            parsed.nested.extend(inner.segments + inner.nested)
            parsed.nested_words.extend(inner.words + inner.nested_words)
            parsed.refusals.extend(inner.refusals)
        return parsed, i


@lru_cache(maxsize=512)
def parse_command(command: str) -> ParsedCommand:
    """Split ``command`` into simple commands. Raises ShellSyntaxError if sh could not parse it
    (or it is longer than 100,000 characters).

    Results are cached (every Bash rule of a policy looks at the same command): treat them as
    read-only.
    """
    if len(command) > _MAX_COMMAND:
        raise ShellSyntaxError(f"command longer than {_MAX_COMMAND} characters")
    if "\\\n" in command:  # most lines have no backslash-newline: one pass, no copy
        joined, gaps = join_all(command)
        lexer = _Lexer(joined, 0)
        with suppress(ShellSyntaxError):
            parsed = lexer.run()[0]
            if not any(a < p < b for p in gaps for a, b in lexer.raw):
                return parsed.freeze()  # each removed where bash removes it: done
        command = join_one_by_one(command, _raw_ranges)  # each judged as bash would
    return _Lexer(command, 0).run()[0].freeze()


def _raw_ranges(text: str) -> list[tuple[int, int]]:
    """Where in ``text`` bash reads a backslash-newline as it is, as far as ``text`` parses."""
    lexer = _Lexer(text, 0)
    with suppress(ShellSyntaxError):  # the rest may parse only once joined; what came
        lexer.run()  # before was read all the same
    return lexer.raw
