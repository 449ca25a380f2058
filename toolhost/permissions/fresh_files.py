"""Whether a line may write files before one of its commands reads its configuration (round
27). The readers of round 25 and 27 look at files on disk when the call is judged (a
``json.py`` python would import, ``~/.ssh/config``, ``.npmrc``, a ``PYTHONPATH`` folder's
``sitecustomize.py``); ``cp evil json.py; python3 -c 1`` or ``printf 'Host *\\n
ProxyCommand ./x' > ~/.ssh/config; ssh h`` writes the file after that look and before the
program reads it. So where a reader meets its program, a line that may write a file (a
redirection to one, or a command other than that program that is not a known reader) is
not provable (fail closed)."""

from __future__ import annotations

from toolhost.permissions.runlater import _WRAPPERS, _reader, past_wrappers
from toolhost.permissions.shell import ParsedCommand, Word

__all__ = ["may_write"]

_DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
# builtins and programs that write no file (their redirections are looked at apart)
_QUIET = frozenset({"cd", "pushd", "popd", "echo", "printf", "true", "false", ":", "test",
                    "[", "[[", "export", "set", "shopt", "sleep", "exit", "return", "local",
                    "unset", "wait", "pwd", "which", "type", "command"})


def may_write(parsed: ParsedCommand, program: str) -> bool:
    """Whether ``parsed`` may write a file other than through ``program`` itself."""
    for words, targets, _doc in parsed.writes:
        # (the program's own output: the file is made empty before it starts, and filled
        # after it has read its configuration)
        if words and _name(words) != program and any(
                t not in _DEVICES and not t.startswith("&") for t in targets):
            return True
    for words in parsed.words + parsed.nested_words:
        if not words:
            continue
        name = _name(words)
        if name == program or name in _QUIET or _reader(words):
            continue
        return True
    return False


def _name(words: tuple[Word, ...]) -> str:
    """The program a simple command runs, past plain wrappers and leading assignments."""
    start = past_wrappers(words)
    if start == 0:  # (assignments, or a wrapper with options: the first other word)
        rest = [n for w in words if "=" not in w.value and not w.value.startswith("-")
                and (n := w.value.rsplit("/", 1)[-1]) not in _WRAPPERS]
        return rest[0] if rest else ":"
    return words[start].value.rsplit("/", 1)[-1]
