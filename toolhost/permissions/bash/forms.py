"""The forms of one simple command that deny and ask Bash rules are tried on.

A rule names a command as a person writes it (``Bash(rm:*)``, ``Bash(git push:*)``); a line
may run it otherwise: after assignments and wrappers (``FOO=1 sudo -u root rm x``), from a
``find -exec``, with ``$IFS`` for its spaces or braces for its words, by a path
(``/bin/rm``), past the program's own options (``git -C /tmp push``), in a ``sh -c``
string, in another case (``RM``), or as a string literal of a program an interpreter reads
from its stdin (and, where the rules read them, by another spelling the program reads as the
same command: ``bash.synonyms``). Each is a form; a deny or ask rule that matches any
form of any command of the line applies (fail closed), and past ``_MAX_FORMS`` the form
``TOO_MANY_FORMS`` stands for the rest, which every such rule matches.
``toolhost.permissions.content``'s ``BashMatcher`` is the one that reads them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from toolhost.permissions.bash.budget import apart, charge, memo
from toolhost.permissions.bash.command_strings import ASSIGNMENT as _ASSIGNMENT
from toolhost.permissions.bash.command_strings import CUT, command_strings, fed_code_strings
from toolhost.permissions.bash.interpreters import base as _base
from toolhost.permissions.bash.runners import runner_overflows
from toolhost.permissions.bash.wrappers import WRAPPER_NAMES
from toolhost.permissions.shell.parse import ShellSyntaxError, parse_command

__all__ = ["ASSIGN_KINDS", "TOO_MANY_FORMS", "TOO_MANY_JOINED", "command_forms", "fed_forms",
           "fed_joined", "strip_prefixes"]


# Words stripped from the front of a command before a deny/ask rule looks at it, so that
# ``sudo rm -rf x`` or ``FOO=1 rm -rf x`` is still an ``rm`` command to ``Bash(rm:*)``.
_PREFIX_WORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}",
                           "coproc", "doas"}) | WRAPPER_NAMES
# find's actions that run a command: `find . -exec rm {} +`.
_EXEC_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_IFS = re.compile(r"\$\{IFS\}|\$IFS(?![A-Za-z0-9_])")
_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")
_MAX_FORMS = 1024
# The form standing for those past _MAX_FORMS: every deny and ask Bash rule matches a command
# that has it (fail closed: a rule is never passed because its form was cut off).
TOO_MANY_FORMS: tuple[str, ...] = ("\x00too many forms",)
TOO_MANY_JOINED = " ".join(TOO_MANY_FORMS)
ASSIGN_KINDS = ("assign", "assign_command")




def strip_prefixes(words: tuple[str, ...]) -> tuple[str, ...]:
    i = 0
    while i < len(words) and (_base(words[i]) in _PREFIX_WORDS or _ASSIGNMENT.fullmatch(words[i])
                              or (i and words[i].startswith("-"))):
        i += 1
    return words[i:]


def _expanded(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words after splitting on ``$IFS`` and one level of brace expansion (``{rm,-rf,x}``
    is three words): what the shell would make of them, for deny matching."""
    out: list[str] = []
    for word in words:
        parts = _IFS.sub(" ", word).split(" ") if "IFS" in word else [word]
        for part in parts:
            m = _BRACE.search(part)
            if m is None:
                out.append(part)
                continue
            items = m.group(1).split(",")[:64]
            out += [part[:m.start()] + item + part[m.end():] for item in items]
    return tuple(w for w in out if w)


# how far a subcommand is looked for after a program's own options; options that go on past
# it meet every deny and ask rule (TOO_MANY_FORMS: fail closed)
_GLOBAL_OPTIONS = 64


def _past_options(form: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The program's leading options (and their possible values) dropped, so a deny rule
    naming a subcommand sees it: ``git -C /tmp push`` is also ``git push``, ``kubectl -n prod
    delete pod x`` also ``kubectl delete pod x``, ``cargo +nightly publish`` also ``cargo
    publish``. Which options take a value is not known: every word after an option is tried
    both as its value and as the subcommand (fail closed)."""
    out: list[tuple[str, ...]] = []
    valued = False  # the previous word was an option that may take this word as its value
    for k in range(1, min(len(form), _GLOBAL_OPTIONS + 1)):
        word = form[k]
        if word == "--":
            return [*out, (form[0], *form[k + 1:])] if k + 1 < len(form) else out
        if word[:1] in "-+" and len(word) > 1:
            valued = "=" not in word
            continue
        out.append((form[0], *form[k:]))
        if not valued:
            break
        valued = False
    else:
        if len(form) > _GLOBAL_OPTIONS + 1:  # still options at the window's end
            out.append(TOO_MANY_FORMS)
    return out


def command_forms(words: tuple[str, ...], depth: int = 0, *, options: bool = True,
                  budget: list[int] | None = None) -> list[tuple[str, ...]]:
    """:func:`_command_forms`, cached for an ordinary command (every deny and ask Bash rule of
    a policy tries the same command's forms; a long one is computed each time).
    ``options=False``: without the forms whose program's options were dropped (``python3 -I
    x.py`` is not also ``python3 x.py``): the runs as they happen, for checks of what a run
    reads rather than of the rules it may meet. Inside a decision (``bash.budget``) a
    command's forms are made once for all its checks; the work of making them (a cached
    command's as if it were made again) and the words handed to each caller, who goes
    through them, count against the decision's budget."""
    if budget is not None:
        return _command_forms(words, depth, options, budget)
    shared = memo()
    key = ("forms", words, depth, options)
    hit = None if shared is None else shared.get(key)
    if isinstance(hit, tuple):
        made, handed = hit
        charge(handed)  # (each caller goes through them: they count each time)
        return list(made)
    if depth == 0 and len(words) <= _CACHED_WORDS and sum(map(len, words)) <= 4096:
        made, cost = _cached_forms(words, options)
    else:
        left = [_MAX_CALLS, _MAX_WORDS]
        made = tuple(_command_forms(words, depth, options, left))
        cost = _MAX_CALLS - left[0] + _MAX_WORDS - left[1]
    handed = len(made) + sum(map(len, made))
    charge(max(cost, handed))
    if shared is not None:
        shared[key] = (made, handed)
    return list(made)


_CACHED_WORDS = 64


@lru_cache(maxsize=128)
def _cached_forms(words: tuple[str, ...],
                  options: bool) -> tuple[tuple[tuple[str, ...], ...], int]:
    left = [_MAX_CALLS, _MAX_WORDS]
    made = tuple(_command_forms(words, 0, options, left))
    return made, _MAX_CALLS - left[0] + _MAX_WORDS - left[1]


# Calls of _command_forms one command may make: each wrapper's string is a command whose own
# wrappers are tried from every later word (`env A=1 ` twenty times took 4 s and doubled every
# two more); past it the rest is TOO_MANY_FORMS, which every deny and ask rule meets.
_MAX_CALLS = 512
# and the words their forms may copy in all (each form after a wrapper is a copy of the rest
# of the words: 800 `env A=1` made 2,000 calls of 1,600 words each, 32 s and 2.5 GB)
_MAX_WORDS = 1 << 17


def _command_forms(words: tuple[str, ...], depth: int, options: bool,
                   budget: list[int]) -> list[tuple[str, ...]]:
    """The forms of one simple command that deny and ask rules are tried on (fail closed):
    as written; with ``$IFS`` split and braces expanded; without leading assignments and
    wrappers (also named by a path: ``/usr/bin/env``); after a wrapper or a ``find -exec``,
    from every later word (its options may take values: ``sudo -u root rm``); each with the
    program's directory dropped (``/bin/rm`` is ``rm``); and the commands of a ``sh -c`` /
    ``eval`` string. ``budget`` (shared by the calls for one command) counts calls and the
    words their forms copy down: past either, the rest is ``TOO_MANY_FORMS``."""
    budget[0] -= 1
    budget[1] -= len(words)
    if budget[0] < 0 or budget[1] < 0:
        return [TOO_MANY_FORMS]
    bases = [words]
    expanded = _expanded(words)
    if expanded != words:
        bases.append(expanded)
    forms: list[tuple[str, ...]] = []
    for base in bases:
        forms += [base, strip_prefixes(base)]
        lead = 0
        while lead < len(base) and _ASSIGNMENT.fullmatch(base[lead]):
            lead += 1
        if lead < len(base) and _base(base[lead]) in _PREFIX_WORDS:
            # its command may start at any later word (its options may take values)
            # (each a copy of the rest: counted, 800 `env A=1` took 32 s and 2.5 GB)
            budget[1] -= sum(len(base) - k for k in range(lead + 1, len(base)))
            if budget[1] < 0:
                return [TOO_MANY_FORMS]
            forms += [base[k:] for k in range(lead + 1, len(base))]
        forms += [base[k + 1:] for k, w in enumerate(base) if w in _EXEC_ACTIONS]
    forms += [(_base(f[0]), *f[1:]) for f in forms if f and "/" in f[0]]
    # (after the strings: what a program runs is found by scanning its form as written)
    past = [g for f in forms if options and len(f) > 2 and f[1][:1] in "-+" and _base(
        f[0]) not in _PREFIX_WORDS for g in _past_options(f)]  # (a wrapper's: done above)
    if any(f and runner_overflows(_base(f[0]), f) for f in forms):
        past.append(TOO_MANY_FORMS)  # its command may lie past the words looked at
    for form in list(forms):
        if depth < 8 and form:
            for arg in command_strings(form):
                if _PLAIN_LINE.fullmatch(arg) and arg.split(" ", 1)[0] not in _KEYWORDS:
                    forms += command_forms(tuple(arg.split()), depth + 1,  # parses as split
                                           options=options, budget=budget)
                    continue
                try:
                    inner = parse_command(arg)
                except ShellSyntaxError:
                    continue
                for seg in inner.segments + inner.nested:  # each shorter: this ends
                    forms += command_forms(seg, depth + 1, options=options, budget=budget)
    if depth < 8:  # macOS and Windows find programs in any case: `RM -rf x` runs rm
        # (not an assignment's: ``A=1`` lowered is one too, its forms made already)
        forms += [g for f in list(forms) if f and f[0] != f[0].lower()
                  and not _ASSIGNMENT.fullmatch(f[0])
                  for g in command_forms((f[0].lower(), *f[1:]), depth + 1, options=options,
                                         budget=budget)]
    forms += past
    unique = [f for f in dict.fromkeys(forms) if f and f[0] and f != TOO_MANY_FORMS]
    if len(unique) > _MAX_FORMS or TOO_MANY_FORMS in forms:  # (cut: marked last)
        return [*unique[:_MAX_FORMS - 1], TOO_MANY_FORMS]
    return unique


# a command line of plain words (a runner's suffix, `docker run img ls -la`): the shell reads
# it as its words split at spaces, so it need not be parsed again
_PLAIN_LINE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+(?: [A-Za-z0-9_./:=@%+,-]+)*")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                       "for", "select", "case", "esac", "in", "function", "coproc", "time"})


@lru_cache(maxsize=128)
def fed_joined(command: str) -> tuple[str, ...]:
    """``fed_forms`` of ``command`` joined, once per command (every deny and ask Bash rule
    of a policy tries them; cached apart from any decision's budget: its work is bounded by the
    command's length, at most 4096 characters where it is used)."""
    with apart():
        parsed = parse_command(command)
        forms = [form for words in parsed.segments + parsed.nested
                 for form in command_forms(words)]
        return tuple(" ".join(f) for f in fed_forms(command, forms))


def fed_forms(command: str, forms: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The command forms of the string literals of a program an interpreter among ``forms``
    (those of ``command``) reads from its stdin (``toolhost.permissions.bash.command_strings``)."""
    out: list[tuple[str, ...]] = []
    for text in fed_code_strings(command, forms):
        if text == CUT:  # strings past those looked at: every rule may match them
            out.append(TOO_MANY_FORMS)
            continue
        try:
            inner = parse_command(text)
        except ShellSyntaxError:
            continue
        for words in inner.segments + inner.nested:
            out += command_forms(words, 8)
    return out
