"""Every exception toolhost raises on purpose.

The tree::

    ToolhostError
     ├── ConfigError            a config cannot be loaded; carries every Problem found
     │    └── CompileError      the config parsed, but a tool cannot be bound (bad import,
     │                          schema that does not check, template that does not parse)
     ├── PluginError            a plugin is missing, incompatible, or failed to register
     ├── ProtocolError          the peer broke the wire protocol (bad frame, unknown answer)
     │    └── FrameTooLongError a line longer than the session's cap
     └── RunnerError            the Claude CLI could not be found, started, or failed
          └── CLINotFoundError

A user-facing error names where it comes from. ``Problem`` is that unit: a message with a file,
a line, a column and a key path, plus an optional hint ("did you mean 'description'?").
``str(ConfigError)`` renders all of its problems, one per line, the way compilers do::

    team.yaml:12:7: servers.git.tools.log.comand: unknown key (did you mean 'command'?)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "CLINotFoundError",
    "CompileError",
    "ConfigError",
    "FrameTooLongError",
    "PluginError",
    "Problem",
    "ProtocolError",
    "RunnerError",
    "ToolhostError",
    "shown",
    "single_error",
]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config, and where."""

    message: str
    file: str = "<config>"
    line: int = 0  # 1-based; 0 when unknown
    column: int = 0  # 1-based; 0 when unknown
    key_path: str = ""  # dotted, e.g. "servers.git.tools.log.command[2]"
    hint: str = ""
    # Lines shown under the message, indented (a diff of what moved); most problems have none.
    detail: str = ""

    def with_detail(self, detail: str) -> Problem:
        """This problem with ``detail`` lines shown under it."""
        return Problem(self.message, self.file, self.line, self.column, self.key_path,
                       self.hint, detail)

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        # each part is cut, so that a hostile key or value quoted in a message (a 2 MB key,
        # a 100,000-name list) can never make the line longer than about 1,500 characters
        # past its file's path (whole up to PATH_MAX: a deep checkout's path is no attack)
        text = f"{_cut(shown(where), 4096)}: "
        if self.key_path:
            text += f"{_cut(shown(self.key_path), 300)}: "
        text += _cut(shown(self.message), 600)
        if self.hint:
            text += f" ({_cut(shown(self.hint), 300)})"
        if self.detail:
            text += "".join(f"\n    {_cut(shown(line), 600)}"
                            for line in self.detail.splitlines())
        return text


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and "…N more characters"."""
    return text if len(text) <= limit else f"{text[:limit]}…{len(text) - limit:,} more characters"


# C0 controls and DEL: the fast path for ASCII text
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_NOT_PRINTABLE_ASCII = re.compile("[^\x20-\x7e]")
# C0 and C1 controls, format characters (bidi overrides and isolates, zero-width spaces and
# joiners, the BOM, tag characters), lone surrogates, the line and paragraph separators
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if unicodedata.category(char) not in _HIDDEN:
        return char
    code = ord(char)
    if char in "\n\r\t":
        return repr(char)[1:-1]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` safe to print as one line: control characters (which a key or a value from a
    config may hold: a line break that forges a second "file:line" line, an escape sequence
    that erases the line on a terminal) are written as ``\\n``, ``\\x1b``, ..., and so are
    invisible format characters (a bidi override that shows ``'txet'`` as ``'text'``, a
    zero-width space: ``\\u202e``, ``\\u200b``)."""
    if text.isascii():
        return text if _CONTROL.search(text) is None else _NOT_PRINTABLE_ASCII.sub(_escaped,
                                                                                  text)
    return _NOT_PRINTABLE_ASCII.sub(_escaped, text)


class Stopped(KeyboardInterrupt):
    """A stop signal (SIGTERM, SIGHUP) turned into an interrupt where a command puts
    something back before it ends; the process exits 128 + ``signum`` (143, 129), as the
    signal's default action reports it, not Ctrl-C's 130."""

    def __init__(self, signum: int, name: str) -> None:
        super().__init__(name)
        self.signum = signum


class ToolhostError(Exception):
    """Base of every error toolhost raises on purpose."""


class ConfigError(ToolhostError):
    """A config could not be loaded. ``problems`` lists everything found, not just the first."""

    def __init__(self, problems: Iterable[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        self.problems: Sequence[Problem] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class CompileError(ConfigError):
    """The config is well formed but a tool cannot be built from it."""


class PluginError(ToolhostError):
    """A plugin is missing, incompatible, or raised while registering."""


class ProtocolError(ToolhostError):
    """The peer broke the wire protocol."""


class FrameTooLongError(ProtocolError):
    """An NDJSON line exceeded the session's maximum length."""


class RunnerError(ToolhostError):
    """The Claude CLI could not be started, or ended badly."""


class CLINotFoundError(RunnerError):
    """No Claude CLI binary was found in any of the places toolhost looks."""


def single_error(exc: BaseException) -> BaseException:
    """The one exception inside (nested) single-member exception groups, else ``exc``.

    A task group wraps whatever its tasks raise, even a lone ``RunnerError``; callers that
    report errors to a person want that error, not the group around it."""
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc
