"""File names some programs open as a command: a value that writes one runs that command.

``perl -ne 'print' FILE`` reads its operands through ``<>``, which opens each with perl's
two-argument ``open``: ``"cmd|"`` (a trailing pipe, also after a literal ``./``) runs
``cmd`` in a shell, ``"|cmd"`` pipes to one, ``">f"`` truncates ``f`` (blanks around the
name are dropped first). GNU ``ed FILE`` reads ``"!cmd"``'s output (it runs ``cmd``).
ImageMagick (``convert``, ``magick``, ``identify`` ...) opens ``"|cmd"`` as a pipe and
reads ``"msl:f"``, ``"ephemeral:f"``, ``"text:f"`` with the coder the prefix names (MSL
writes files, ephemeral deletes its file); Ghostscript writes ``-sOutputFile=|cmd`` and
``%pipe%cmd`` to a command. SoX (``sox``, ``play``, ``rec``, ``soxi``) opens ``"|cmd"`` with
``popen`` and fetches an ``http:``/``https:``/``ftp:`` name by running ``wget`` in a shell
with the URL inside quotes. :func:`pipe_operand` finds an argument where the value writes
such a start or end, through wrappers; ``argv`` refuses the call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolhost.backends.shebang import program_names

__all__ = ["PIPE_PROGRAMS", "pipe_operand"]

_PERL = re.compile(r"^perl(\d+(\.\d+)*)?$")
_MAGICK = frozenset({"convert", "magick", "identify", "mogrify", "composite", "montage",
                     "compare", "stream", "conjure", "display", "animate", "import",
                     "gm"})  # GraphicsMagick's gm reads the same prefixes
# perl programs that may be installed without a #! line (a packed exiftool.exe)
_PERL_SCRIPTS = frozenset({"exiftool"})
_GS = frozenset({"gs", "gsc", "gsx", "ghostscript", "gswin32c", "gswin64c"})
_ED = frozenset({"ed"})
_SOX = frozenset({"sox", "play", "rec", "soxi"})
_SOX_URL = re.compile(r"(?i)(https?|ftp):")
PIPE_PROGRAMS = _MAGICK | _GS | _ED | _SOX
# perl's two-argument open reads these first characters as a mode: a pipe, a write, a dup
_PERL_MODES = "|<>+&"
# ImageMagick's "CODER:" prefix (two characters at least: "C:" is a Windows drive)
_CODER = re.compile(r"^[A-Za-z][A-Za-z0-9_-]+:")


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _known(name: str) -> bool:
    return name in PIPE_PROGRAMS or _PERL.match(name) is not None


def pipe_operand(out: Sequence[str], valued: Sequence[tuple[int, int]],
                 cwd: str | None = None, search: str | None = None
                 ) -> tuple[str, str] | None:
    """(the argument, what it makes the program do) for the first argument a value makes a
    command (or another mode of opening), or None. ``valued``: (index in ``out``, length of
    the literal text before the value) of each argument a value is printed in; ``cwd`` and
    ``search`` (PATH): where the spawn finds the program (a script's #! line is read)."""
    starts = _programs(out, valued, cwd, search)
    if not starts:
        return None
    for index, begin in valued:
        after = [k for k in starts if k < index]
        if not after:
            continue
        name = starts[max(after)]
        why = _why(name, out[index], begin)
        if why is not None:
            return out[index], why
    return None


def _why(name: str, text: str, begin: int) -> str | None:
    """What ``text`` (a value printed from ``begin`` on) makes program ``name`` do, or None."""
    if _PERL.match(name):
        stripped = text.strip()
        lead = len(text) - len(text.lstrip())
        tail = len(text.rstrip()) - 1
        if stripped and stripped[0] in _PERL_MODES and lead >= begin:
            return ("perl's <> opens it with a mode ('|cmd' runs a command, '>f' truncates "
                    "f, '<&N' reads a descriptor)")
        if stripped.endswith("|") and tail >= begin:
            return "perl's <> opens it as 'cmd|': it runs cmd in a shell"
        return None
    if name in _ED:
        return "ed runs '!cmd' and reads its output" if text.startswith("!") \
            and begin == 0 else None
    if name in _MAGICK:
        if begin == 0 and text.lstrip().startswith("|"):
            return "ImageMagick opens '|cmd' as a pipe: it runs cmd in a shell"
        found = _CODER.match(text)
        if found is not None and begin < found.end():
            return ("ImageMagick reads 'CODER:file' with the coder it names (msl: writes "
                    "files, ephemeral: deletes its file, text: and label:@ read any file)")
        return None
    if name in _SOX:
        if begin == 0 and text.startswith("|"):
            return "SoX opens '|cmd' with popen: it runs cmd in a shell"
        url = _SOX_URL.match(text)
        return ("SoX fetches a URL by running wget in a shell with the URL in it"
                if url is not None and begin < url.end() else None)
    if name in _GS:
        rest = text[begin:].lstrip().lower()
        if rest.startswith(("|", "%pipe%")) and (begin == 0 or text[:begin].endswith("=")):
            return "Ghostscript writes to '|cmd' and '%pipe%cmd' through a shell command"
    return None


def _programs(out: Sequence[str], valued: Sequence[tuple[int, int]], cwd: str | None,
              search: str | None) -> dict[int, str]:
    """The indexes the program that runs may be at (through wrappers), for the programs
    this module knows, with the name it knows each by: a perl script (``exiftool``, any
    ``#!/usr/bin/perl`` program) is ``perl``."""
    from toolhost.backends.code_args import Token, run_programs

    values = {index for index, _ in valued}
    runs = run_programs([Token("", text, k in values) for k, text in enumerate(out)])
    found: dict[int, str] = {}
    for k in runs:
        name = _name(out[k])
        kind = name if _known(name) else _script_kind(out[k], cwd, search)
        if kind is not None:
            found[k] = kind
    return found


def _script_kind(program: str, cwd: str | None, search: str | None) -> str | None:
    """The known program ``program`` is under another name: 'perl' for a perl script (by
    name or by its #! line), the program a link ends at (``myperl``, ``ed2``); else None."""
    if _name(program) in _PERL_SCRIPTS:
        return "perl"
    for other in program_names(program, cwd, search):
        if _known(_name(other)):
            return _name(other)
    return None
