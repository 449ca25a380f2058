"""Splitting a shell command into the simple commands it runs, the way sh would.

``Bash(...)`` rules match simple commands, never the raw string: ``npm test && rm -rf x`` is two
commands, ``echo "a && b"`` is one. Quotes and backslashes are removed from words (so
``"rm" -rf /`` is the command ``rm -rf /``), ``$(...)``, backticks and ``<(...)``/``>(...)``
are parsed recursively into ``nested`` commands, and anything an allow rule cannot vouch for
(a substitution, a redirection to a file, a here-document) marks the command ``opaque``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["ParsedCommand", "ShellSyntaxError", "parse_command"]

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")")
_REDIRECTS = ("<<<", "<<-", "&>>", ">>", ">&", ">|", "<<", "<&", "<>", "&>", ">", "<")
_WORD_END = " \t\n;&|<>()"
_FD_DUP = re.compile(r"\d+-?|-")


class ShellSyntaxError(ValueError):
    """The command is not valid shell (an unterminated quote or substitution)."""


@dataclass
class ParsedCommand:
    """The simple commands of a command line, each a tuple of unquoted words."""

    segments: list[tuple[str, ...]] = field(default_factory=list)
    nested: list[tuple[str, ...]] = field(default_factory=list)  # inside substitutions
    opaque: bool = False  # substitution, file redirection or here-document present
    text: str = ""  # words and operators joined by single spaces
    joined: tuple[str, ...] = ()  # each segment's words joined by single spaces
    balanced: bool = True  # every ``(`` operator has its ``)``

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


class _Lexer:
    def __init__(self, s: str, depth: int) -> None:
        self.s, self.depth = s, depth
        self.subs: list[str] = []
        self.opaque = False

    def _substitution(self, start: int, end: int) -> None:
        self.subs.append(self.s[start:end])
        self.opaque = True

    def _substitution_at(self, i: int) -> int | None:
        """If ``$(...)`` or a backtick substitution starts at ``i``, record it and return
        where it ends (just past its closing character); else None."""
        if self.s.startswith("$(", i):
            j = _closing_paren(self.s, i + 2)
            self._substitution(i + 2, j)
            return j + 1
        if self.s.startswith("`", i):
            j = self._backtick_end(i + 1)
            self._substitution(i + 1, j)
            return j + 1
        return None

    def word(self, i: int) -> tuple[str, int]:
        """Read one word starting at ``i``; quotes and escapes removed."""
        s, out = self.s, []
        while i < len(s) and s[i] not in _WORD_END:
            c = s[i]
            if c == "\\":
                if s[i + 1:i + 2] != "\n":
                    out.append(s[i + 1:i + 2])
                i += 2
            elif c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    raise ShellSyntaxError("unterminated single quote")
                out.append(s[i + 1:j])
                i = j + 1
            elif c == '"':
                i = self._double_quoted(i + 1, out)
            elif c in "$`" and (end := self._substitution_at(i)) is not None:
                out.append(s[i:end])
                i = end
            else:
                out.append(c)
                i += 1
        return "".join(out), i

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
            elif c in "$`" and (end := self._substitution_at(i)) is not None:
                out.append(s[i:end])
                i = end
            else:
                out.append(c)
                i += 1
        raise ShellSyntaxError("unterminated double quote")

    def run(self) -> ParsedCommand:
        s, n, i = self.s, len(self.s), 0
        segments: list[list[str]] = [[]]
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
                if cur and cur[-1].isdigit() and s[i - 1:i].isdigit():
                    cur.pop()  # "2>" : the fd number belongs to the redirection
                j = i + len(op)
                while j < n and s[j] in " \t":
                    j += 1
                target, i = self.word(j)
                harmless = (op in (">&", "<&") and _FD_DUP.fullmatch(target) is not None) or (
                    target == "/dev/null" and op in (">", ">>", "&>", "&>>", "<", ">|"))
                if not harmless:  # a file, a here-document or a here-string
                    self.opaque = True
                text.append(op + target)
            elif (op := next((o for o in _OPERATORS if s.startswith(o, i)), None)) is not None:
                if segments[-1]:
                    segments.append([])
                text.append(op.strip() or ";")
                depth += {"(": 1, ")": -1}.get(op, 0)
                balanced = balanced and depth >= 0
                i += len(op)
            else:
                w, i = self.word(i)
                segments[-1].append(w)
                text.append(w)
        parsed = ParsedCommand(segments=[tuple(seg) for seg in segments if seg],
                               opaque=self.opaque, text=" ".join(text),
                               balanced=balanced and depth == 0)
        if self.depth < 8:
            for sub in self.subs:
                inner = _Lexer(sub, self.depth + 1).run()
                parsed.nested.extend(inner.segments + inner.nested)
        elif self.subs:
            raise ShellSyntaxError("substitutions nested too deep")
        return parsed


@lru_cache(maxsize=512)
def parse_command(command: str) -> ParsedCommand:
    """Split ``command`` into simple commands. Raises ShellSyntaxError if sh could not parse it.

    Results are cached (every Bash rule of a policy looks at the same command): treat them as
    read-only.
    """
    return _Lexer(command, 0).run().freeze()
