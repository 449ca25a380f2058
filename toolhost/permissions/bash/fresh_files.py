"""Whether a line may write files before one of its commands reads its configuration.
The readers of project and home files look at files on disk when the call is judged (a
``json.py`` python would import, ``~/.ssh/config``, ``.npmrc``, a ``PYTHONPATH`` folder's
``sitecustomize.py``); ``cp evil json.py; python3 -c 1`` or ``printf 'Host *\\n
ProxyCommand ./x' > ~/.ssh/config; ssh h`` writes the file after that look and before the
program reads it. So where a reader meets its program, a line that may write a file (a
redirection to one, or a command other than that program that is not a known reader) is
not provable (fail closed)."""

from __future__ import annotations

import os
import re

from toolhost.permissions.bash.budget import scan_line
from toolhost.permissions.later.files import _WRAPPERS, past_wrappers, reader
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["may_write"]

_LOOPS = frozenset({"while", "until", "for", "select"})
_DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
# builtins and programs that write no file (their redirections are looked at apart)
_QUIET = MOVES | frozenset({"echo", "printf", "true", "false", ":", "test", "[", "[[",
                            "export", "set", "shopt", "sleep", "exit", "return", "local",
                            "unset", "wait", "pwd", "which", "type", "command"})


def may_write(parsed: ParsedCommand, program: str, home: bool = False) -> bool:
    """Whether ``parsed`` may write a file before ``program`` runs: a command or redirection
    of a segment before the first one naming it (or any, in a loop), or of a substitution.
    ``home``: only a file of the home folder matters (``~/.ssh/config``), so only a write
    naming the home folder (or any after a ``cd``) counts (``npm test && git push`` stays)."""
    scan_line(parsed)  # (asked for each reader of the line)
    segments = parsed.words
    at = next((i for i, ws in enumerate(segments)
               if any(w.value.rsplit("/", 1)[-1] == program for w in ws)), None)
    if at is None:  # (run from another's string: ``ssh -o 'LocalCommand curl x'``)
        at = next((i for i, ws in enumerate(segments) if any(program in w.value for w in ws)),
                  len(segments))
    loop = any(ws and ws[0].value in _LOOPS for ws in segments)
    before = list(segments if loop else segments[:at]) + parsed.nested_words
    mine = {id(ws) for ws in before}
    homeward = _homeward() if home and not any(
        ws and ws[0].value in MOVES for ws in segments) else None
    for words, targets, _doc in parsed.writes:
        if id(words) in mine and any(t not in _DEVICES and not t.startswith("&") and (
                homeward is None or homeward.search(t)) for t in targets):
            return True
    for words in before:
        if not words or (homeward is not None and not any(
                homeward.search(w.value) for w in words)):
            continue
        name = _name(words)
        if name == program or name in _QUIET or reader(words) or _streams(name, words):
            continue
        return True
    return False


def _homeward() -> re.Pattern[str]:
    home = re.escape(os.path.expanduser("~").rstrip("/"))
    return re.compile(rf"~|\$\{{?HOME|{home}|\.ssh|ssh_config|wgetrc|lesskey|curlrc|"
                      r"\.config|go/env|/root|/home/|\*|\?|\[")


def _streams(name: str, words: tuple[Word, ...]) -> bool:
    """``tar c DIR`` without a file: the archive goes to its output (``tar c . | ssh h``)."""
    values = [w.value for w in words[1:]]
    return name in ("tar", "gtar", "bsdtar") and bool(values) and "c" in values[0] and (
        "x" not in values[0] and not any(("f" in v.lstrip("-") and not v.startswith("--"))
                                         or v.startswith("--file") for v in values))


def _name(words: tuple[Word, ...]) -> str:
    """The program a simple command runs, past plain wrappers and leading assignments."""
    start = past_wrappers(words)
    if start == 0:  # (assignments, or a wrapper with options: the first other word)
        rest = [n for w in words if "=" not in w.value and not w.value.startswith("-")
                and (n := w.value.rsplit("/", 1)[-1]) not in _WRAPPERS]
        return rest[0] if rest else ":"
    return words[start].value.rsplit("/", 1)[-1]
