"""The wrappers a command may start with (``sudo``, ``env``, ``timeout``, ``nice``, ``xargs``,
zsh's ``noglob`` ...) and how each takes its options, so ``bash.programs`` finds the command a
wrapper runs exactly (``sudo -u root rm`` runs ``rm``, ``timeout 5 rm`` too); the wrappers whose
grammar is not modelled (seen through for deny, never provable); and which options of ``sudo``
and ``doas`` start a shell."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolhost.permissions.shell.parse import Word

__all__ = ["OPAQUE_WRAPPERS", "WRAPPERS", "WRAPPER_NAMES", "starts_shell", "time_end",
           "wrapper_end"]


# Wrapper options that, with no command after them, start a shell reading its input.
_SHELL_MODES = {"sudo": ("si", ("--shell", "--login")), "doas": ("s", ())}


@dataclass(frozen=True)
class _Grammar:
    """How a wrapper command (``timeout``, ``env``, ``sudo``...) takes its options and operands."""

    flags: frozenset[str] = frozenset()  # options without a value
    valued: frozenset[str] = frozenset()  # options taking a value (short: attached or next)
    operands: int = 0  # positional words before the command (timeout's duration)
    assignments: bool = False  # NAME=value words may follow the options (env, sudo)
    numeric_flags: bool = False  # nice -10
    transparent: bool = False  # runs the command as is: allow rules may skip the wrapper


def _g(flags: str = "", valued: str = "", **kw: object) -> _Grammar:
    return _Grammar(frozenset(flags.split()), frozenset(valued.split()), **kw)  # type: ignore[arg-type]


WRAPPERS: dict[str, _Grammar] = {
    "env": _g("-i - -0 -v --null --ignore-environment --debug",
              "-u --unset -C --chdir -P -a --argv0", assignments=True),
    "sudo": _g("-A -b -E -H -n -P -S -k -K -s -i -l -v -V --askpass --background "
               "--preserve-env --set-home --non-interactive --preserve-groups --stdin "
               "--reset-timestamp --remove-timestamp --shell --login --list --validate",
               "-u -g -C -D -h -p -r -t -T -U -R --user --group --close-from --chdir --host "
               "--prompt --role --type --command-timeout --other-user --chroot",
               assignments=True),
    "doas": _g("-n -s -L", "-u -C"),
    "command": _g("-p -v -V"),
    "builtin": _g(),
    "exec": _g("-c -l", "-a"),
    "nice": _g("", "-n --adjustment", numeric_flags=True, transparent=True),
    "nohup": _g(transparent=True),
    "timeout": _g("--preserve-status --foreground -v --verbose",
                  "-k --kill-after -s --signal", operands=1, transparent=True),
    "time": _g("-p -a -v -q --append --verbose --portability --quiet",
               "-f --format -o --output", transparent=True),
    "stdbuf": _g("", "-i -o -e --input --output --error", transparent=True),
    "xargs": _g("-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit "
                "--open-tty", "-a --arg-file -d --delimiter -E --eof -I --replace -L "
                "--max-lines -n --max-args -P --max-procs -s --max-chars --process-slot-var"),
    "setsid": _g("-c -f -w --ctty --fork --wait"),
    "ionice": _g("-t --ignore", "-c --class -n --classdata"),
    # zsh's precommand modifiers and ``repeat N`` (the CLI runs its commands in zsh where
    # that is the user's shell): they run the command as is
    "noglob": _g(transparent=True), "nocorrect": _g(transparent=True),
    "-": _g(transparent=True), "repeat": _g(operands=1, transparent=True),
}
# Wrappers whose argument grammar is not modelled: seen through for deny, never provable.
OPAQUE_WRAPPERS = frozenset({
    "taskset", "chrt", "watch", "strace", "ltrace", "chroot", "runuser", "su", "unshare",
    "nsenter", "firejail", "flock", "busybox", "sg", "script", "parallel", "sem", "pkexec",
    "runcon", "setpriv", "setarch", "linux32", "linux64", "prlimit", "numactl", "cgexec",
    "systemd-run", "xvfb-run", "valgrind", "torsocks", "proxychains", "proxychains4",
    "fakeroot", "fakechroot", "faketime", "unbuffer", "expect", "at", "batch", "capsh",
    "chpst", "softlimit", "daemonize", "start-stop-daemon", "rlwrap", "nocache", "eatmydata",
    "bwrap", "proot", "schroot", "catchsegv", "dbus-launch", "dbus-run-session", "tmux",
    "screen", "ssh-agent", "toybox", "sudoedit", "with-contenv", "s6-setuidgid", "setuidgid",
    "envdir", "envuidgid", "pflags", "ts", "tsp", "nq", "chronic", "ifne", "caffeinate"})
WRAPPER_NAMES = frozenset(WRAPPERS) | OPAQUE_WRAPPERS


def wrapper_end(name: str, words: tuple[Word, ...], i: int) -> int | str:
    """Index of the first word of the command ``words[i]`` (a wrapper) runs, or a reason."""
    grammar = WRAPPERS[name]
    j, operands = i + 1, grammar.operands
    while j < len(words):
        w = words[j].value
        if not words[j].plain:
            return f"{words[j].raw!r} in the options of {name} is not a plain literal"
        if w == "--":
            j += 1
            break
        if not w.startswith("-") or (w == "-" and "-" not in grammar.flags):
            break
        long_form = w.startswith("--") and w.split("=", 1)[0] in grammar.valued | grammar.flags
        numeric = grammar.numeric_flags and re.fullmatch(r"-\d+", w) is not None
        cluster = None if w.startswith("--") else _short_cluster(w[1:], grammar)
        takes_next = w in grammar.valued or cluster == "next"
        if not (w in grammar.flags or takes_next or long_form or numeric or cluster):
            return f"unknown option {w!r} of {name}"
        if takes_next and j + 1 < len(words) and not words[j + 1].plain:
            return f"{words[j + 1].raw!r} in the options of {name} is not a plain literal"
        j += 2 if takes_next else 1
    for _ in range(operands):
        if j >= len(words) or not words[j].plain:
            return f"{name} without its operand"
        j += 1
    return j


def time_end(words: tuple[Word, ...], i: int) -> int:
    """Where the command of bash's keyword ``time`` (``words[i]``) starts: it takes ``-p``
    and then ``--`` only; any other word is the command (``time -f x ls`` runs ``-f``)."""
    j = i + 1
    for option in ("-p", "--"):
        if j < len(words) and words[j].value == option and words[j].plain:
            j += 1
    return j


def _short_cluster(letters: str, grammar: _Grammar) -> str | None:
    """``-nE`` (flags), ``-uroot`` (a value attached): "done", "next" (the value follows)."""
    for k, letter in enumerate(letters):
        option = "-" + letter
        if option in grammar.valued:
            return "done" if k + 1 < len(letters) else "next"
        if option not in grammar.flags:
            return None
    return "done"


def starts_shell(name: str, options: tuple[Word, ...]) -> bool:
    """Whether ``options`` of ``sudo``/``doas`` (with no command after them) ask for a shell:
    ``sudo -s``, ``sudo -i``, ``sudo -Es``, ``sudo --login``, ``doas -s``."""
    if name not in _SHELL_MODES:
        return False
    letters, longs = _SHELL_MODES[name]
    valued = WRAPPERS[name].valued
    for word in options:
        w = word.value
        if w.split("=", 1)[0] in longs:
            return True
        if w.startswith("-") and not w.startswith("--"):
            for letter in w[1:]:
                if letter in letters:
                    return True
                if "-" + letter in valued:
                    break  # the rest of the word is that option's value
    return False
