"""Operands a program reads as another host's: ``tar -cf host:x dir``, ``scp f host:x``,
``rsync -a f host:x`` (and ``rsync://host/m``, ``scp://host/x``), ``cpio -o -F host:x``
(also ``-O``, ``-I``, ``--file``) connect to ``host`` through
ssh (or tar's remote shell) with the user's keys, and copy files there or from there.

A value that makes such an operand remote lets the model choose a host the files go to (or
come from). :func:`remote_operand` finds it after the argv is rendered, through wrappers
(``timeout 5 scp ...``); ``argv`` refuses the call unless the tool sets ``allow_remote:
true``. ``--force-local`` in a tar or cpio argv turns their rule off, as it does there. A ``:`` the
config writes itself (``"backup:{{ path }}"``) keeps the host the config's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["REMOTE_PROGRAMS", "git_helper", "remote_operand"]

_TARS = frozenset({"tar", "gtar"})
_CPIO = frozenset({"cpio"})
# options of scp / rsync whose argument is the next argument (not an operand)
_ARG_OPTIONS = {
    "scp": frozenset({"-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"}),
    "rsync": frozenset({
        "-e", "-f", "-B", "-T", "-M", "--rsh", "--rsync-path", "--filter", "--exclude",
        "--include", "--exclude-from", "--include-from", "--files-from", "--backup-dir",
        "--suffix", "--chmod", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest",
        "--log-file", "--log-file-format", "--partial-dir", "--password-file", "--port",
        "--timeout", "--contimeout", "--bwlimit", "--max-size", "--min-size", "--max-delete",
        "--out-format", "--chown", "--usermap", "--groupmap", "--address", "--sockopts",
        "--iconv", "--info", "--debug", "--remote-option", "--block-size", "--modify-window",
        "--compress-choice", "--zc", "--compress-level", "--zl", "--checksum-choice", "--cc",
        "--skip-compress", "--outbuf", "--write-batch", "--only-write-batch",
        "--read-batch", "--stop-after", "--stop-at", "--protocol", "--checksum-seed",
        "--early-input", "--mkpath-mode"}),
}
_SHORT_ARG = {"scp": frozenset("cDFiJloPSX"), "rsync": frozenset("efBTM")}
REMOTE_PROGRAMS = _TARS | _CPIO | frozenset(_ARG_OPTIONS)


# git's `NAME::ADDRESS` runs the remote helper git-remote-NAME (any program of that name)
_GIT_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def remote_operand(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The operand a value made remote, or None. ``valued``: (index in ``out``, length of the
    literal text before the value) of each argument a value is printed in."""
    for start in _programs(out, valued):
        remote = _remote(out, valued, start)
        if remote is not None:
            return remote
    return None


def _remote(out: Sequence[str], valued: Sequence[tuple[int, int]], start: int) -> str | None:
    """The operand a value made remote, for the program at ``out[start]``."""
    name = _name(out[start])
    starts = {index - start: begin for index, begin in valued if index >= start}
    args = out[start:]
    if name in _TARS:
        if "--force-local" in args:
            return None
        places = [p for k, text in enumerate(args[1:], start=1)
                  for p in _archive_names(args, k, text)]
    elif name in _CPIO:
        if "--force-local" in args:
            return None
        places = [p for k, text in enumerate(args[1:], start=1)
                  for p in _archive_names(args, k, text, "FOI")]
    else:
        places = [(k, 0) for k in _operands(args, name)]
    for index, begin in places:
        if index not in starts:
            continue
        text = args[index][begin:]
        colon = text.find(":")
        if colon >= 0 and "/" not in text[:colon] and begin + colon >= starts[index]:
            return text
    return None


def _programs(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> list[int]:
    """The indexes the program that runs may be at (through wrappers) that name one of
    ``REMOTE_PROGRAMS``."""
    if not any(_name(text) in REMOTE_PROGRAMS for text in out):
        return []  # the common case, without building tokens
    from toolhost.backends.code_args import Token, run_programs

    values = {index for index, _ in valued}
    starts = run_programs([Token("", text, k in values) for k, text in enumerate(out)])
    return [k for k in starts if _name(out[k]) in REMOTE_PROGRAMS]


def _operands(args: Sequence[str], name: str) -> list[int]:
    """The indexes of scp's or rsync's operands (past options and their arguments)."""
    found: list[int] = []
    k, options = 1, True
    while k < len(args):
        text = args[k]
        if options and text == "--":
            options = False
        elif options and text.startswith("-") and text != "-":
            if text in _ARG_OPTIONS[name] or _short_takes_next(text, _SHORT_ARG[name]):
                k += 1  # the option's argument follows it
        else:
            found.append(k)
        k += 1
    return found


def _short_takes_next(text: str, letters: frozenset[str]) -> bool:
    """Whether a bundle of short options (``-avze``) ends in one whose argument is the
    next argument (``-avzessh`` has it inside)."""
    if text.startswith("--"):
        return False
    for at, letter in enumerate(text[1:], start=1):
        if letter in letters:
            return at == len(text) - 1
    return False


def _archive_names(out: Sequence[str], k: int, text: str, letters: str = "f"
                   ) -> list[tuple[int, int]]:
    """(index, offset of the file name) of the archive name option ``out[k]`` gives
    (``letters``: the short options naming the archive: tar's ``f``, cpio's ``F``, ``O``,
    ``I``)."""
    if text == "--":
        return []
    old_style = letters == "f" and k == 1 and not text.startswith("-") and "f" in text
    if text == "--file" or (len(text) == 2 and text[0] == "-" and text[1] in letters) \
            or old_style:
        return [(k + 1, 0)] if k + 1 < len(out) else []
    if text.startswith("--file="):
        return [(k, len("--file="))]
    if text.startswith("-") and not text.startswith("--") and any(c in letters
                                                                  for c in text[1:]):
        at = min(text.index(c, 1) for c in letters if c in text[1:])
        return [(k, at + 1)] if at + 1 < len(text) else ([(k + 1, 0)] if k + 1 < len(out)
                                                          else [])
    return []


def git_helper(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The argument in which a value wrote git's ``NAME::`` (``git clone "{{ url }}"`` with
    ``evil::x`` runs ``git-remote-evil`` from PATH), or None. git's own policy
    turns off ``ext::`` only; a ``NAME::`` the config writes is its choice."""
    if not any(_name(text) == "git" for text in out):
        return None  # the common case, without building tokens
    from toolhost.backends.code_args import Token, run_programs

    values = {index for index, _ in valued}
    gits = [k for k in run_programs([Token("", text, k in values) for k, text in enumerate(out)])
            if _name(out[k]) == "git"]
    for index, begin in valued:
        text = out[index]
        found = _GIT_HELPER.match(text)
        if found is not None and begin < found.end() and any(k < index for k in gits):
            return text
    return None
