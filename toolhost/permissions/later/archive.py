"""An archive unpacked where it holds a file a later command runs.

``tar xf x.tar`` and ``unzip x.zip`` in a project write whatever the archive holds: one
holding ``.git/hooks/pre-commit``, ``.husky/pre-commit`` or ``.envrc`` arms the next ``git
commit`` or shell while the line names none (``later.dirs`` sees only ``-C ~``-style
targets). The archive is a file beside the command, so its member names are read when the
command is decided (a zip's central directory; a tar's headers, 64 MiB of it unpacked at
most, never blocking on a FIFO): an archive naming a run-later file is not provable, and so
is one that cannot be listed whole (not a regular file, too big, not an archive) or that a
command before it on the line may make (missing now). A plain ``tar xf x.tar`` of an archive
naming none is decided as before, and so is one missing with nothing before it (it fails).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable

from toolhost.permissions.later.dirs import holding
from toolhost.permissions.later.files import past_wrappers
from toolhost.permissions.later.where import made_before, places
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["unpacked_later"]

_MAX_UNPACKED = 64 * 1024 * 1024
_MAX_MEMBERS = 20000
_TARS = frozenset({"tar", "gtar", "bsdtar"})


def unpacked_later(parsed: ParsedCommand, cwd: str, later: Callable[[str], bool]) -> str | None:
    """Why an archive unpacked by ``tar -x``/``unzip`` in ``parsed`` cannot be proven."""
    everything = parsed.words + parsed.nested_words
    for k, words in enumerate(everything):
        values = [w.value for w in words[past_wrappers(words):]]
        name = values[0].rsplit("/", 1)[-1] if values else ""
        archive = _tar_archive(values[1:]) if name in _TARS else (
            _zip_archive(values[1:]) if name == "unzip" else None)
        if archive is None:
            continue
        if archive == "-":
            return f"{name!r} unpacks an archive from its input, which the rules cannot see"
        paths = places(parsed, k, cwd, archive)
        unread = (f"{name!r} unpacks {archive!r}, which cannot be listed whole (not a "
                  "regular file or archive, too big, or made by the line before it)")
        if paths is None:
            return unread
        present = [p for p in paths if os.path.lexists(p)]
        if not present and not made_before(parsed, k, archive):
            continue  # missing, and nothing before it makes it: the command fails
        members: list[str] = []
        for path in present or [""]:
            listed = _members(path, name == "unzip") if path else None
            if listed is None:
                return unread
            members += listed
        # a name (or a link's target, listed too) that is such a file, a directory of them
        # (`.husky/`), or a directory holding them (a link to `~/.config`)
        found = next((m for m in members if later(m.rstrip("/")) or later(
            m.rstrip("/") + "/x") or holding(m)), None)
        if found is not None:
            return (f"{name!r} unpacks {archive!r}, which holds {found!r}, a file a later "
                    "command runs")
    return None


def _tar_archive(values: list[str]) -> str | None:
    """The archive of a ``tar`` that extracts (``xf a``, ``-xzf a``, ``--extract -f a``),
    else None; "-" for stdin (no ``-f``)."""
    extract, archive = False, "-"
    k = 0
    while k < len(values):
        v = values[k]
        if v in ("--extract", "--get"):
            extract = True
        elif v.startswith("--file="):
            archive = v.partition("=")[2]
        elif v == "--file" and k + 1 < len(values):
            archive, k = values[k + 1], k + 1
        elif (k == 0 or v.startswith("-")) and not v.startswith("--"):
            letters = v.lstrip("-")
            extract = extract or "x" in letters
            if "f" in letters:
                rest = letters[letters.index("f") + 1:]
                if rest and v.startswith("-"):
                    archive = rest  # -fx.tar
                elif k + 1 < len(values):
                    archive, k = values[k + 1], k + 1
        k += 1
    return archive if extract else None


def _zip_archive(values: list[str]) -> str | None:
    """The archive ``unzip`` extracts (None when it only lists, tests or prints one)."""
    if any(v.startswith("-") and not v.startswith("--") and set(v[1:]) & set("ltvzpZ")
           for v in values):
        return None
    skip = False
    for v in values:
        if skip:
            skip = False
        elif v in ("-d", "-x", "-P"):
            skip = v != "-x"
        elif not v.startswith("-"):
            return v
    return None


class _Capped(io.RawIOBase):
    """A stream that refuses to give more than ``_MAX_UNPACKED`` bytes (a gzip bomb)."""

    def __init__(self, inner: io.BufferedIOBase | gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile):
        self.inner, self.given = inner, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.given += len(data)
        if self.given > _MAX_UNPACKED:
            raise OSError("too big")
        buffer[:len(data)] = data
        return len(data)


def _members(path: str, is_zip: bool) -> list[str] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as raw:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            if is_zip:
                with zipfile.ZipFile(raw) as zipped:
                    infos = zipped.infolist()
                    if len(infos) > _MAX_MEMBERS:
                        return None
                    # a symlink entry holds its target (unzip makes the link): a link to
                    # .git/hooks or ~/.config/autostart, fail closed
                    links = [zipped.read(i)[:4096].decode("utf-8", "replace") for i in infos
                             if stat.S_ISLNK(i.external_attr >> 16) and i.file_size <= 4096]
                    if any(stat.S_ISLNK(i.external_attr >> 16) and i.file_size > 4096
                           for i in infos):
                        return None
                return [i.filename for i in infos] + links
            return _tar_names(raw)
        except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, lzma.LZMAError,
                ValueError):
            return None


def _tar_names(raw: io.BufferedReader) -> list[str] | None:
    """A tar's member names (and link targets: a link to ``.git/hooks``, fail closed)."""
    head = raw.read(6)
    raw.seek(0)
    inner: io.BufferedIOBase | gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile | None = None
    if head[:2] == b"\x1f\x8b":
        inner = gzip.GzipFile(fileobj=raw, mode="rb")
    elif head[:3] == b"BZh":
        inner = bz2.BZ2File(raw)
    elif head == b"\xfd7zXZ\x00":
        inner = lzma.LZMAFile(raw)  # noqa: SIM115 (raw, closed by the caller, is its file)
    # not compressed: the headers are read and the data skipped; compressed: unpacked in
    # order, 64 MiB at most (a bomb is refused)
    with (tarfile.open(fileobj=raw, mode="r:") if inner is None else tarfile.open(
            fileobj=io.BufferedReader(_Capped(inner)), mode="r|")) as tar:
        out: list[str] = []
        for member in tar:
            out.append(member.name)
            if member.islnk() or member.issym():
                out.append(member.linkname)
            if len(out) > _MAX_MEMBERS:
                return None
    return out
