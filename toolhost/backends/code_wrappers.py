"""Programs that run another program: where, in their argv, the program they run starts.

``timeout -s KILL 5 sh -c CODE``, ``flock /tmp/l sh -c CODE``, ``docker run alpine sh -c
CODE``, ``uv run sh -c CODE``, ``sg staff CMDLINE``: a value in the program's place would
choose what runs, and the program's own code slots (``sh -c``) must be found behind the
wrapper. :func:`wrapper_targets` reads a wrapper's options, its operands before the program
(``timeout``'s duration, ``docker run``'s image) and its subcommand (``docker run``, ``ip
netns exec``), and says where the program may start.

Fails closed: an option the table does not know may take an argument or not, so both
readings are followed (``sudo --user x CMD``: ``x`` and ``CMD`` are both scanned as the
program); a wrapper whose program part is a shell command line (``sg``, ``parallel``,
``hyperfine``, ``tmux new-session``, ``sudo -s``) has every value in it as code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from toolhost.backends.code_opts import Token
from toolhost.backends.code_wrapper_table import (
    CODE,
    DIR,
    PLAIN,
    PROGRAM,
    REST,
    SHELL,
    SPECIAL,
    SUB,
    TAKES,
    Wrap,
    w,
)

__all__ = ["Targets", "is_wrapper", "wrapper_targets"]


# options a wrapper's table does not know, read both ways, before the rest of its argv is
# taken as a shell line (fail closed): each is two readings of all that follows
_MAX_UNKNOWN = 16
# the directory (or root) the program runs in: the configuration found there runs (a
# repository's hooks and core.fsmonitor, a Makefile, npm scripts, .envrc)
_DIR = ("option: a directory it runs the program in (its repository's or project's own "
        "configuration there runs code)")


class Targets(NamedTuple):
    """Where a wrapper's program may start, and values that are code or the program."""

    starts: list[int]  # indexes the program may be at (scan each as a program)
    slots: list[tuple[str, str]]  # (key, what): "code" or "the program to run"


def is_wrapper(name: str) -> bool:
    """Whether ``name`` (a program's base name) runs another program."""
    return name in PLAIN or name in SUB or name in SPECIAL


def wrapper_targets(tokens: Sequence[Token], i: int, name: str) -> Targets | None:
    """Where the program that the wrapper ``tokens[i]`` (named ``name``) runs may start;
    None when it runs none here (``docker ps``)."""
    if name in PLAIN:
        if name in ("gdb", "lldb") and not any(
                t.text == ("--args" if name == "gdb" else "--") for t in tokens[i + 1:]):
            return None  # gdb PROGRAM debugs it, reading gdb's commands
        if name in ("deno", "go"):  # `deno run FILE`, `go run FILE`: the file is the program
            if i + 1 < len(tokens) and tokens[i + 1].text == "run" and not tokens[i + 1].value:
                return _follow(tokens, i + 1, w("--config -c --import-map --lock -A "
                                                 "--allow-all --tags -o"), name)
            return None
        return _follow(tokens, i, PLAIN[name], name)
    if name in SPECIAL:
        return _special(tokens, i, name)
    glob, subs = SUB[name]
    starts = _options(tokens, i + 1, glob, name, [])
    slots: list[tuple[str, str]] = []
    found: list[int] = []
    for at in starts:
        if at >= len(tokens):
            continue
        if tokens[at].value:  # the model would choose the subcommand (run, exec ...)
            slots.append((tokens[at].key, "the program to run"))
            continue
        for words, wrap in subs.items():
            end = at + len(words)
            if tuple(t.text for t in tokens[at:end]) == words \
                    and not any(t.value for t in tokens[at:end]):
                more = _follow(tokens, end - 1, wrap, name)
                found.extend(more.starts)
                slots.extend(more.slots)
    return Targets(found, slots) if found or slots else None


def _special(tokens: Sequence[Token], i: int, name: str) -> Targets:
    """parallel's command (shell; without one, each argument after ``:::`` is a command),
    nix-shell --run, sbatch --wrap, screen -X: every value there is code; screen's program
    otherwise follows its options."""
    rest = tokens[i + 1:]
    seps = [k for k, t in enumerate(rest) if t.text in (":::", "::::", ":::+", "::::+")
            and not t.value]
    if name == "parallel":
        cut = seps[0] if seps else len(rest)
        # a command word: not an option, nor what may be an option's argument (-j 4)
        words = [t for k, t in enumerate(rest[:cut]) if not t.value
                 and not t.text.startswith("-") and not (k and rest[k - 1].text[:1] == "-")]
        code = rest if not words else rest[:cut]
        return Targets([], [(t.key, "code") for t in code if t.value])
    if name == "screen":
        wrap = w("-S -c -T -h -p -Logfile -e -s -t", "-d -m -D -L -U -a -A -q -r "
                  "-R -x -O -i -l -ln -wipe -ls -list", code="-X")
        return _follow(tokens, i, wrap, name)
    opts = {"nix-shell": "--run --command", "sbatch": "--wrap"}[name].split()
    slots = [(t.key, "code") for k, t in enumerate(rest)
             if t.value and ((k > 0 and rest[k - 1].text in opts)
                             or any(t.text.startswith(o + "=") for o in opts))]
    return Targets([], slots)


def _follow(tokens: Sequence[Token], i: int, wrap: Wrap, name: str) -> Targets:
    """The program's starts after the wrapper (or subcommand) at ``i``."""
    slots: list[tuple[str, str]] = []
    ends = _options(tokens, i + 1, wrap, name, slots)
    starts: set[int] = set()
    for end in ends:
        if wrap.operands and end >= 0:
            if wrap.image:  # a value there chooses the image: what runs
                slots.extend((t.key, "the program to run")
                             for t in tokens[end:end + wrap.operands] if t.value)
            starts.update(_options(tokens, end + wrap.operands, wrap, name, slots))
        else:
            starts.add(end)
    if wrap.shell or -1 in starts:  # every value in the command line is code
        first = i + 1 if -1 in starts else min(starts, default=i + 1)
        return Targets([], slots + [(t.key, "code") for t in tokens[first:] if t.value])
    return Targets(sorted(s for s in starts if s < len(tokens)), slots)


def _kind(text: str, wrap: Wrap) -> tuple[str | None, bool]:
    """(the option's kind, or "flag", or None when unknown; whether its argument is glued)."""
    if text in wrap.opts:
        return wrap.opts[text], False
    if text in wrap.flags or text[1:].isdigit():
        return "flag", False
    if text.startswith("--"):
        option = text.split("=", 1)[0]
        if option in wrap.opts:
            return wrap.opts[option], True
        return ("flag" if "=" in text or option in wrap.flags else None), False
    for at in range(1, len(text)):  # a bundle: -it, -n5, -Sxyz
        short = "-" + text[at]
        if short in wrap.opts:
            kind = wrap.opts[short]
            return kind, at + 1 < len(text)
        if short not in wrap.flags:
            return None, False
    return "flag", False


def _options(tokens: Sequence[Token], j: int, wrap: Wrap, name: str,
             slots: list[tuple[str, str]]) -> set[int]:
    """The indexes where the options from ``j`` may end (both readings of an option the
    table does not know); -1 marks "the rest is a shell command line"."""
    ends: set[int] = set()
    todo, seen = [j], set()
    unknown = 0
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k >= len(tokens):
            ends.add(k)
            continue
        token = tokens[k]
        text = token.text
        if token.value or not text.startswith("-") or text == "-":
            if name == "env" and not token.value and "=" in text:
                todo.append(k + 1)  # env's NAME=VALUE
                continue
            ends.add(k)
            continue
        if text == "--":
            ends.add(k + 1)
            continue
        kind, glued = _kind(text, wrap)
        if kind == SHELL:
            ends.add(-1)
            continue
        if kind == REST:
            ends.add(k + 1)
            continue
        if kind in (CODE, PROGRAM, DIR):
            what = {CODE: "code", PROGRAM: "the program to run", DIR: _DIR}[kind]
            if glued:
                if token.value:
                    slots.append((token.key, what))
            elif k + 1 < len(tokens) and tokens[k + 1].value:
                slots.append((tokens[k + 1].key, what))
        if kind == "flag":
            todo.append(k + 1)
        elif kind is None:  # unknown: with an argument or without
            unknown += 1
            if unknown > _MAX_UNKNOWN:  # no real wrapper has so many: every value is code
                ends.add(-1)
                break
            todo.extend((k + 1, k + 2))
        else:
            todo.append(k + 1 + (0 if glued else TAKES.get(kind, 1)))
    return ends
