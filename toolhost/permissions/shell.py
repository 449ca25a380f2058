"""Splitting a shell command into the simple commands it runs, the way sh would.

``Bash(...)`` rules match simple commands, never the raw string: ``npm test && rm -rf x`` is two
commands, ``echo "a && b"`` is one. Quotes and backslashes are removed from words (so
``"rm" -rf /`` is the command ``rm -rf /``) and ANSI-C quoting is decoded (``$'\\x72m'`` is
``rm``); ``$(...)``, backticks, ``<(...)``/``>(...)`` and the substitutions of an unquoted
here-document are parsed recursively into ``nested`` commands, and anything an allow rule
cannot vouch for (a substitution, a redirection to a file, a here-document) marks the command
``opaque``. Each word also says whether it is a *plain literal* (no expansion, glob, brace,
backslash or ANSI-C/locale quoting: what you read is what runs); ``bashprog`` needs that to
prove which programs a command runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["ParsedCommand", "ShellSyntaxError", "Word", "parse_command"]

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")")
_REDIRECTS = ("<<<", "<<-", "&>>", ">>", ">&", ">|", "<<", "<&", "<>", "&>", ">", "<")
_WORD_END = " \t\n;&|<>()"
_FD_DUP = re.compile(r"\d+-?|-")
_PARAM_START = re.compile(r"[A-Za-z_0-9@*#?$!-]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_COMMAND = 100_000  # longer command lines are refused (fail closed), not scanned
_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


class ShellSyntaxError(ValueError):
    """The command is not valid shell (an unterminated quote or substitution)."""


@dataclass(frozen=True)
class Word:
    """One word: its value with quotes removed and ANSI-C escapes decoded, the text as written,
    and whether it is a plain literal (its value is exactly what the shell would use)."""

    value: str
    raw: str
    plain: bool


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

    def normalized(self) -> list[str]:
        return [" ".join(seg) for seg in self.segments]

    def freeze(self) -> ParsedCommand:
        self.joined = tuple(self.normalized())
        return self


def _closing_paren(s: str, i: int) -> int:
    """Index of the ``)`` closing a ``(`` that ends right before ``i``."""
    depth, quote = 1, ""
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c == "\\":
            i += 1
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("unterminated '$(' or '('")


def _closing_brace(s: str, i: int) -> int:
    """Index of the ``}`` closing a ``${`` that ends right before ``i``."""
    depth, quote = 1, ""
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError("unterminated '${'")


def ansi_c(s: str, i: int, out: list[str]) -> int:
    """Decode the body of ``$'...'`` starting at ``i``; return the index past the quote."""
    while i < len(s):
        c = s[i]
        if c == "'":
            return i + 1
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = s[i + 1:i + 2]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "01234567" and e:
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            assert m is not None
            out.append(chr(int(m.group(), 8) & 0xFF))
            i += 1 + m.end()
        elif e in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[e]
            m = re.match(f"[0-9a-fA-F]{{1,{width}}}", s[i + 2:])
            if m is None:
                out.append("\\" + e)
                i += 2
            else:
                code = int(m.group(), 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
                i += 2 + m.end()
        elif e == "c" and i + 2 < len(s):
            out.append(chr(ord(s[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + e)
            i += 2
    raise ShellSyntaxError("unterminated $'...' quote")


class _Lexer:
    def __init__(self, s: str, depth: int) -> None:
        self.s, self.depth = s, depth
        self.subs: list[str] = []
        self.opaque = False
        self.refusals: list[str] = []
        self.heredocs: list[tuple[str, bool, bool]] = []  # (delimiter, expands, strip tabs)

    def _substitution(self, start: int, end: int) -> None:
        self.subs.append(self.s[start:end])
        self.opaque = True

    def _expansion_at(self, i: int) -> int | None:
        """If a substitution or parameter expansion starts at ``i`` (a ``$`` or a backtick),
        record substitutions and return where it ends; else None (a literal ``$``)."""
        s = self.s
        if s.startswith("$(", i):
            j = _closing_paren(s, i + 2)
            self._substitution(i + 2, j)
            return j + 1
        if s.startswith("`", i):
            j = self._backtick_end(i + 1)
            self._substitution(i + 1, j)
            return j + 1
        if s.startswith("${", i):  # ${x:-$(cmd)} runs cmd
            j = _closing_brace(s, i + 2)
            if "$" in s[i + 2:j] or "`" in s[i + 2:j]:
                self._body_substitutions(s[i + 2:j])
            return j + 1
        if s.startswith("$", i) and _PARAM_START.match(s, i + 1):
            m = _NAME.match(s, i + 1)
            return m.end() if m else i + 2
        return None

    def word(self, i: int) -> tuple[Word, int]:
        """Read one word starting at ``i``."""
        s, out, start, plain = self.s, [], i, True
        while i < len(s) and s[i] not in _WORD_END:
            c = s[i]
            if c == "\\":
                if s[i + 1:i + 2] != "\n":
                    out.append(s[i + 1:i + 2])
                plain = False
                i += 2
            elif c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    raise ShellSyntaxError("unterminated single quote")
                out.append(s[i + 1:j])
                i = j + 1
            elif s.startswith("$'", i):
                i = ansi_c(s, i + 2, out)
                plain = False
            elif s.startswith('$"', i):
                i = self._double_quoted(i + 2, out)
                plain = False
            elif c == '"':
                j = i
                i = self._double_quoted(i + 1, out)
                plain = plain and not any(x in s[j:i] for x in "$`\\")
            elif c in "$`" and (end := self._expansion_at(i)) is not None:
                out.append(s[i:end])
                plain = False
                i = end
            else:
                if c in "*?[~" or (c in "{}" and not (i == start and (
                        i + 1 == len(s) or s[i + 1] in _WORD_END))):
                    plain = False  # a glob, a brace expansion, a tilde: not what runs
                out.append(c)
                i += 1
        raw = s[start:i]
        return Word("".join(out), raw, plain), i

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
            elif c in "$`" and (end := self._expansion_at(i)) is not None:
                out.append(s[i:end])
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
        self.heredocs = []
        return i

    def _body_substitutions(self, line: str) -> None:
        """Record the substitutions in ``line`` (a here-document line, a ``${...}`` body)."""
        inner = _Lexer(line, self.depth)
        j = 0
        while j < len(line):
            if line[j] == "\\":
                j += 2
            elif line[j] in "$`" and (end := inner._expansion_at(j)) is not None:
                j = end
            else:
                j += 1
        self.subs.extend(inner.subs)
        self.opaque = self.opaque or inner.opaque

    def run(self) -> ParsedCommand:
        s, n, i = self.s, len(self.s), 0
        segments: list[list[Word]] = [[]]
        text: list[str] = []
        depth = 0  # of ( ) groups: sh refuses a line where they do not pair up
        balanced = True
        while i < n:
            c = s[i]
            if c in " \t":
                i += 1
            elif c == "#" and (i == 0 or s[i - 1] in " \t\n;&|()"):
                i = s.find("\n", i) if "\n" in s[i:] else n
            elif c in "<>" and s.startswith("(", i + 1):  # process substitution
                j = _closing_paren(s, i + 2)
                self._substitution(i + 2, j)
                i = j + 1
            elif (op := next((r for r in _REDIRECTS if s.startswith(r, i)), None)) is not None:
                cur = segments[-1]
                if cur and cur[-1].raw.isdigit() and s[i - 1:i].isdigit():
                    cur.pop()  # "2>" : the fd number belongs to the redirection
                j = i + len(op)
                while j < n and s[j] in " \t":
                    j += 1
                target, i = self.word(j)
                if op in ("<<", "<<-"):
                    if not target.raw or "$" in target.raw or "`" in target.raw:
                        self.refusals.append(f"here-document delimiter {target.raw!r}")
                    quoted = any(q in target.raw for q in "'\"\\")
                    self.heredocs.append((target.value, not quoted, op == "<<-"))
                harmless = (op in (">&", "<&") and _FD_DUP.fullmatch(target.value) is not None
                            ) or (target.value == "/dev/null" and target.plain
                                  and op in (">", ">>", "&>", "&>>", "<", ">|"))
                if not harmless:  # a file, a here-document or a here-string
                    self.opaque = True
                text.append(op + target.value)
            elif (op := next((o for o in _OPERATORS if s.startswith(o, i)), None)) is not None:
                if op == "(" and segments[-1]:  # "f() {...}", "@(x)": a definition or extglob
                    self.refusals.append(f"'(' after {segments[-1][-1].raw!r} (a function "
                                         "definition or an extended glob)")
                if segments[-1]:
                    segments.append([])
                text.append(op.strip() or ";")
                depth += {"(": 1, ")": -1}.get(op, 0)
                balanced = balanced and depth >= 0
                i += len(op)
                if op == "\n" and self.heredocs:
                    i = self._heredoc_bodies(i)
            else:
                w, i = self.word(i)
                segments[-1].append(w)
                text.append(w.value)
        words = [tuple(seg) for seg in segments if seg]
        parsed = ParsedCommand(segments=[tuple(w.value for w in seg) for seg in words],
                               opaque=self.opaque, text=" ".join(text),
                               balanced=balanced and depth == 0, words=words,
                               refusals=self.refusals)
        if self.depth < 8:
            for sub in self.subs:
                inner = _Lexer(sub, self.depth + 1).run()
                parsed.nested.extend(inner.segments + inner.nested)
                parsed.nested_words.extend(inner.words + inner.nested_words)
                parsed.refusals.extend(inner.refusals)
        elif self.subs:
            raise ShellSyntaxError("substitutions nested too deep")
        return parsed


@lru_cache(maxsize=512)
def parse_command(command: str) -> ParsedCommand:
    """Split ``command`` into simple commands. Raises ShellSyntaxError if sh could not parse it
    (or it is longer than 100,000 characters).

    Results are cached (every Bash rule of a policy looks at the same command): treat them as
    read-only.
    """
    if len(command) > _MAX_COMMAND:
        raise ShellSyntaxError(f"command longer than {_MAX_COMMAND} characters")
    return _Lexer(command, 0).run().freeze()
