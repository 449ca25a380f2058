"""ffmpeg's file names are URLs: a value that writes a protocol prefix chooses what it opens.

``ffmpeg -i NAME`` (and its output names, ffprobe's and ffplay's operand) opens ``NAME``
through the protocol its prefix names: ``concat:a|b`` and ``subfile,,start,0,end,0,,:f`` read
other files, ``pipe:``/``fd:`` a descriptor, ``http:``/``tcp:``/``rtmp:`` reach the network,
``data:`` is inline content, ``crypto+http:`` nests them. Without a prefix (or with ``file:``)
it is a plain path. A value also chooses the demuxer through ``-f {{ v }}``: ``lavfi`` makes
the next input a filter graph (``movie=`` reads any file). :func:`media_url` finds the first
argument where a value does either; ``argv`` refuses the call. A literal start (``./{{ name }}``
or ``file:{{ name }}``) keeps the value a path.

Media players open their operands the same way: mpv's ``av://lavfi:GRAPH`` and ``lavf://``
(any ffmpeg protocol), ``edl://`` and ``memory://``, ``ytdl://`` (runs yt-dlp), mplayer's
``ffmpeg://`` and ``mf://``, vlc's ``screen://`` and ``http:``; and vlc reads an operand
starting with ``:`` as an option of the item before it (``:sout=#file{dst=...}`` writes a file).
gawk (``awk`` may be gawk) opens a file operand ``/inet/tcp/LPORT/HOST/RPORT`` (also
``/inet4/``, ``/inet6/``, ``udp``) as a network connection to that host. vim's netrw opens
``scp://host/f``, ``sftp://``, ``rsync://``, ``ftp://``, ``http://`` (with the user's ssh
keys); emacs's TRAMP opens ``/ssh:host:f`` and ``/sudo::f`` (as root). pandoc, xmllint
and xsltproc fetch an input named ``http://...`` (an internal address as well).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["media_url"]

_FFMPEG = re.compile(r"^(ffmpeg|ffprobe|ffplay)([-_.]?\d+(\.\d+)*)?$")
_PLAYER = re.compile(r"^(mpv|mplayer2?|mencoder|[cnqrs]?vlc)([-_.]?\d+(\.\d+)*)?(\.com)?$")
# ffmpeg's url_find_protocol: the longest start of URL_SCHEME_CHARS, then ':' (a name with a
# letter: "00:01:02" is a time; two characters: "C:" is a drive), or subfile's ',' form
_SCHEME = re.compile(r"^(?=[A-Za-z0-9+.-]*[A-Za-z])[A-Za-z0-9+.-]{2,}:|^subfile,",
                     re.IGNORECASE)
_AWK = frozenset({"awk", "gawk", "pgawk", "dgawk", "nawk"})
_VIM = frozenset({"vim", "vi", "nvim", "gvim", "view", "vimdiff", "rvim", "rview", "gview",
                  "evim", "vimx", "gvimdiff", "nvim-qt"})
_EMACS = frozenset({"emacs", "emacsclient", "emacs-nox", "xemacs"})
_FETCHERS = frozenset({"pandoc", "xmllint", "xsltproc"})  # inputs may be URLs they fetch
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_TRAMP = re.compile(r"/[^/:]*:")  # /ssh:host:f, /sudo::f, /host:f
_INET = ("/inet/", "/inet4/", "/inet6/")  # gawk's network "files"
_PLAIN = frozenset({"file"})  # the protocol of a path without a prefix
_GRAPHS = frozenset({"lavfi"})  # demuxers whose input is a filter graph


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def media_url(out: Sequence[str], valued: Sequence[tuple[int, int]], cwd: str | None = None,
              search: str | None = None) -> tuple[str, str] | None:
    """(the argument, why) for the first argument of an ffmpeg program where a value writes a
    protocol prefix or chooses a filter-graph demuxer, or None. ``valued``: (index in
    ``out``, length of the literal text before the value); ``cwd`` and ``search`` (PATH):
    where the spawn finds the program."""
    starts = _programs(out, valued, cwd, search)
    if not starts:
        return None
    first, name = min(starts)
    for index, begin in valued:
        if index <= first:
            continue
        text = out[index]
        if name == "fetch":
            url = _URL.match(text)
            if url is not None and begin < url.end() and not text.lower().startswith("file:"):
                return text, (f"{_name(out[first])} fetches it over the network, from a host "
                              "the config never named")
            continue
        if name in ("vim", "emacs"):
            why = _editor_remote(name, text, begin)
            if why is not None:
                return text, why
            continue
        if name == "awk":
            inet = next((p for p in _INET if text.startswith(p)), None)
            if inet is not None and begin < len(inet):
                return text, ("gawk opens '/inet/tcp/LPORT/HOST/RPORT' as a network "
                              "connection to that host, not as a file")
            continue
        found = _SCHEME.match(text.lstrip())
        lead = len(text) - len(text.lstrip())
        if found is not None and begin < lead + found.end() \
                and found.group().rstrip(":,").lower() not in _PLAIN:
            if name != "ffmpeg":
                return text, (f"{name} opens it through the {found.group().rstrip(':,')!r} "
                              "protocol, not as a file (av://lavfi: a filter graph, lavf:// "
                              "and ffmpeg:// any ffmpeg protocol, http: the network)")
            return text, (f"ffmpeg opens it through the {found.group().rstrip(':,')!r} protocol,"
                          " not as a file (concat:/subfile: read other files, pipe:/fd: a "
                          "descriptor, http:/tcp: the network)")
        if name == "vlc" and begin == 0 and text.startswith(":"):
            return text, ("vlc reads an argument starting with ':' as an option of the item "
                          "before it (:sout=... writes a file)")
        if name != "ffmpeg":
            continue
        if out[index - 1] in ("-f", "-format") and text.strip().lower() in _GRAPHS:
            return text, ("it makes ffmpeg read its next input as a filter graph (movie= "
                          "reads any file or URL)")
    return None


def _programs(out: Sequence[str], valued: Sequence[tuple[int, int]], cwd: str | None,
              search: str | None) -> list[tuple[int, str]]:
    """(index, family) of each place the ffmpeg program or media player that runs may be at
    (through wrappers), by its name or the name a link to it ends at (``ff -> ffmpeg``);
    the family is ``ffmpeg``, ``awk``, ``vlc`` or the player's name."""
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    values = {index for index, _ in valued}
    runs = run_programs([Token("", text, k in values) for k, text in enumerate(out)])
    found = []
    for k in runs:
        for name in (_name(out[k]), *map(_name, program_names(out[k], cwd, search))):
            family = _family(name)
            if family is not None:
                found.append((k, family))
                break
    return found


def _editor_remote(name: str, text: str, begin: int) -> str | None:
    """Why vim or emacs would open ``text`` (a value printed from ``begin``) on another
    host or as root, or None."""
    found = (_URL if name == "vim" else _TRAMP).match(text)
    if found is None or begin >= found.end() or text.lower().startswith("file://"):
        return None
    if name == "vim":
        return ("vim's netrw opens it on another host (scp:// and sftp:// with your ssh "
                "keys, http:// and ftp:// over the network)")
    return "emacs's TRAMP opens it on another host (/ssh:host:) or as root (/sudo::)"


def _family(name: str) -> str | None:
    if _FFMPEG.match(name):
        return "ffmpeg"
    if name in _AWK:
        return "awk"
    if name in _VIM:
        return "vim"
    if name in _EMACS:
        return "emacs"
    if name in _FETCHERS:
        return "fetch"
    player = _PLAYER.match(name)
    if player is None:
        return None
    return "vlc" if player.group(1).endswith("vlc") else player.group(1)
