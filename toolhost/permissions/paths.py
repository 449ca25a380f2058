"""Paths: normalising argument paths and matching gitignore-style path patterns.

Both sides of a path match are normalised the same way (``~`` expanded, made absolute,
``..`` folded and symlinks resolved where the path exists, via ``os.path.realpath``), so a
rule on ``/srv/data/**`` cannot be passed with ``/srv/data/../../etc/passwd`` or with a
symlink inside ``/srv/data`` that points elsewhere.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from typing import Protocol

from toolhost.permissions.pathclass import bracket

__all__ = ["PATH_MAX", "PATH_TOOLS", "PathPattern", "compile_path_glob", "fold",
           "interpolated_root", "normalize_path", "real_path", "rule_path_pattern", "spellings"]

# the tools whose rule content is a path (gitignore-style, anchored as the CLI anchors it)
PATH_TOOLS = ("Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead",
              "Glob", "Grep", "LS")


def normalize_path(value: str, cwd: str) -> str | None:
    """The absolute, symlink-resolved form of ``value`` (relative to ``cwd``); None if unusable
    (a deny rule meets it, no allow rule proves it)."""
    if not value or "\x00" in value or _SURROGATE.search(value) or len(value) > PATH_MAX:
        return None
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    real = real_path(path)
    if real is None:
        return None
    if (real != os.path.normpath(path) or _PER_PROCESS.search(path)) and _through_self(path):
        return None
    return real


def real_path(path: str) -> str | None:
    """``os.path.realpath(path)``, or None where a link on the way cannot be read: another
    process's ``/proc/PID/root`` or ``/proc/PID/cwd`` is a link only its owner (with ptrace
    rights) may read, and realpath raises there (PermissionError) instead of stopping."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


# Longer than the kernel takes in one call (Linux's PATH_MAX, 4096 bytes with the NUL): no
# program opens it as written, and realpath's cost grows with the square of its segments
# (`a/` 160,000 times held a decision for 16 s).
PATH_MAX = 4096

# a lone surrogate (JSON "\udc80") is no character: the CLI (Node) opens it as
# U+FFFD, this process as a byte or not at all (UnicodeEncodeError): which file is unknown
_SURROGATE = re.compile("[\ud800-\udfff]")

# what /proc/self (/dev/fd, /dev/stdin ...) leads to is the reading process's own:
# its cwd, root, open files; resolved here it is toolhost's (``/proc/self/cwd/secrets/k``
# is the session's secrets/k when the CLI reads it): not judged
_PER_PROCESS = re.compile(r"/(?:proc|dev)/")


def _through_self(path: str) -> bool:
    """Whether ``path`` (absolute) passes through ``/proc/self``, ``/proc/thread-self``, this
    process's ``/proc/PID``, ``/dev/fd`` or ``/dev/std*``, as written or by a symlink on
    the way (resolved as ``realpath`` does; too many links counts as passing)."""
    selves = {"/proc/self", "/proc/thread-self", f"/proc/{os.getpid()}", "/dev/fd",
              "/dev/stdin", "/dev/stdout", "/dev/stderr"}
    pending = path.split("/")[::-1]
    resolved, links = "/", 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        here = os.path.join(resolved, part)
        if here in selves:
            return True
        try:
            target = os.readlink(here)
        except OSError:  # (not a link, or not there: the name as it is)
            resolved = here
            continue
        links += 1
        if links > 40:
            return True
        if target.startswith("/"):
            resolved = "/"
        pending.extend(target.split("/")[::-1])
    return False


_BELOW = "(?:/.*)?"  # the path itself or anything inside it


def _translate(glob: str) -> str:
    """A gitignore-style glob (relative, ``/``-separated) to a regex fragment.

    ``*`` and ``?`` stay inside one path segment, ``[...]`` is a character class,
    ``**/`` is zero or more directories, a trailing ``/**`` is the directory itself or anything
    inside it, any other ``**`` matches across segments.
    """
    out: list[str] = []
    i, n = 0, len(glob)
    closes = True  # (once a bracket finds no end, none after it does: one scan, not one each)
    while i < n:
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append(_BELOW)
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and closes and (found := bracket(glob, i)) is not None:
            text, i = found
            out.append(text)
        elif glob[i] == "[":
            closes = False
            out.append(re.escape("["))
            i += 1
        elif glob[i] == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class PathPattern:
    """A compiled path pattern: ``regex`` over normalised absolute paths."""

    source: str
    base: str  # the directory the pattern is anchored to (normalised)
    regex: Rx
    below: str | None = None  # the regex's text, or any path inside what it names
    folded: Rx | None = None  # ``below or regex``, in any case (``covers``; made at first use)

    def matches(self, normalized: str) -> bool:
        """Whether the pattern names exactly this path (what an allow rule proves)."""
        return self.regex.fullmatch(normalized) is not None

    def covers(self, normalized: str) -> bool:
        """Whether the pattern names this path or a directory holding it, as gitignore reads
        a pattern (``~/.ssh`` covers ``~/.ssh/id_rsa``): what a deny or ask rule matches.
        Letters match in any case, and composed or decomposed (NFC/NFD): on a file system
        that ignores case and normalisation (macOS, Windows) ``.ENV`` is the file ``.env``."""
        folded = self.folded
        if folded is None:  # (an allow never asks: most patterns never need it)
            try:
                folded = _compile(unicodedata.normalize(
                    "NFC", self.below or self.regex.pattern), fold=True)
            except ValueError:  # too long for RE2 once widened: cannot judge (fail closed)
                return True
            object.__setattr__(self, "folded", folded)
        if folded.fullmatch(normalized) is not None:
            return True
        return not normalized.isascii() and folded.fullmatch(
            unicodedata.normalize("NFC", normalized)) is not None


def compile_path_glob(pattern: str, base: str) -> PathPattern:
    """Compile ``pattern`` anchored at directory ``base``, gitignore style.

    A pattern with no ``/`` except a trailing one (``*.env``, ``secrets/``) matches at any depth
    under ``base``; a trailing ``/`` means the directory and everything inside it.
    ``PathPattern.covers`` also takes what lies inside a path the pattern names.
    Raises ValueError on an empty pattern.
    """
    if "\0" in pattern:
        raise ValueError("a path pattern cannot hold a NUL character (no path has one)")
    # a run of slashes is one, as in the paths matched (``//${HOME}/x`` is ``///home/me/x``);
    # a ``.`` segment inside is dropped, as in the paths matched (``a/./b`` is ``a/b``)
    pattern = re.sub(r"//+", "/", pattern)
    while "/./" in pattern:
        pattern = pattern.replace("/./", "/")
    if pattern.endswith("/.") and len(pattern) > 2:
        pattern = pattern[:-1]
    rest = pattern
    if rest == ".":  # the directory itself, as ``src`` is (a deny covers all inside it)
        return _directory(pattern, base)
    if not rest or rest == "./":
        rest = "**"
    if rest.endswith("/"):
        rest = rest.rstrip("/") + "/**"
    floating = "/" not in pattern.rstrip("/")
    if rest.startswith("./"):
        rest = rest[2:]
    if not rest:
        raise ValueError("empty path pattern")
    if ".." in rest.split("/"):
        raise ValueError("'..' is not allowed in a path pattern")
    base_norm = real_path(base) or os.path.normpath(base)
    prefix = re.escape(base_norm.rstrip("/")) + "/"
    if floating:
        prefix += "(?:.*/)?"
    body = _translate(rest)
    if rest == "**":
        # the base directory itself and everything inside it
        regex = re.escape(base_norm.rstrip("/")) + _BELOW if base_norm != "/" else "/.*"
    else:
        regex = prefix + body
    below = None if regex.endswith(_BELOW) else regex + _BELOW
    return PathPattern(pattern, base_norm, _compile(regex), below)


def _directory(source: str, base: str) -> PathPattern:
    """``Read(.)``, ``Read(~)``: the directory itself (an allow proves it alone, as
    ``Read(./src)`` proves ``src`` alone; a deny or ask covers everything inside it)."""
    base_norm = real_path(base) or os.path.normpath(base)
    escaped = re.escape(base_norm.rstrip("/") or "/")
    below = escaped + _BELOW if base_norm != "/" else "/.*"
    return PathPattern(source, base_norm, _compile(escaped), below)


def fold(regex: Rx) -> Rx:
    """``regex`` matching letters in any case, its text composed (NFC)."""
    return _compile(unicodedata.normalize("NFC", regex.pattern), fold=True)


class Rx(Protocol):
    """A compiled path regex: Python's ``re`` or RE2 (``_Linear``)."""

    @property
    def pattern(self) -> str: ...

    def fullmatch(self, text: str, /) -> object | None: ...


class _Linear:
    """RE2 for a path regex with two or more ``.*`` or ``[^/]*`` (``**``, ``*``): Python's ``re``
    backtracks on ``(?:.*/)?(?:.*/)?(?:.*/)?x`` in time that grows with the path's length to
    the power of their number (``Read(**/**/**/x)`` held a decision for minutes on a path of
    a few thousand segments, which the model chooses)."""

    __slots__ = ("_rx", "pattern")

    def __init__(self, source: str, fold: bool) -> None:
        from toolhost import regex

        self.pattern = source
        try:
            self._rx = regex.compile(("(?si)" if fold else "(?s)") + source)
        except regex.RegexError as exc:
            raise ValueError(f"path pattern too complex to match safely: {exc}") from None

    def fullmatch(self, text: str, /) -> object | None:
        return True if self._rx.fullmatch(text) else None


def _compile(source: str, *, fold: bool = False) -> Rx:
    if source.count(".*") + source.count("[^/]*") < 2:  # one cannot backtrack more than once
        return re.compile(source, re.DOTALL | re.IGNORECASE if fold else re.DOTALL)
    return _Linear(source, fold)


_VARIABLE = re.compile(r"\$(?:\{|[A-Za-z_])")


def rule_path_pattern(spec: str, *, cwd: str, rule_dir: str) -> PathPattern:
    """A Claude Code ``Read(...)``/``Edit(...)`` path specifier compiled to a PathPattern.

    ``//abs/**`` is absolute; ``~/x/**`` is under the home directory; ``/x/**`` is relative to
    the directory of the file that declared the rule; ``./x/**`` and ``x/**`` are relative to
    the working directory.
    """
    if _VARIABLE.search(spec):  # taken literally it would name a directory called "$HOME"
        raise ValueError(f"path {spec!r} holds a shell variable, which path rules do not "
                         "expand: write ~/... for the home directory of the user toolhost "
                         "runs as, or //abs/path for an absolute path")
    if spec.startswith("~") and not (spec == "~" or spec.startswith("~/")):
        raise ValueError(f"path {spec!r} names another user's home directory (~user), which "
                         "path rules do not expand: write //home/user/... (an absolute path) "
                         "or ~/... (the home of the user toolhost runs as)")
    if spec.startswith("//"):
        return compile_path_glob("./" + spec[2:] if spec[2:] else "**", "/")
    if spec == "~":
        return _directory(spec, os.path.expanduser("~"))
    if spec.startswith("~/"):
        return compile_path_glob("./" + spec[2:] if spec[2:] else "**",
                                 os.path.expanduser("~"))
    if spec.startswith("/"):
        return compile_path_glob("./" + spec[1:] if spec[1:] else "**", rule_dir)
    return compile_path_glob(spec, cwd)


_RULE_TEXT = re.compile(r"\s*([^()\s]+)\((\s*)(.*)\)\s*", re.DOTALL)


def interpolated_root(tool: str, written: str, spans: tuple[tuple[int, int], ...]
                      ) -> tuple[str, str] | None:
    """(message, hint) when the path specifier of the path rule ``tool`` begins with a
    ``${...}`` value that is an absolute path: ``Edit(${HOME}/.bashrc)`` became
    ``Edit(/home/me/.bashrc)``, which a path rule anchors at the rule's file, not at ``/``.

    ``written`` is the rule as written, ``spans`` where substituted values sit in ``tool``
    (``Doc.substituted``). A leading ``/`` the author wrote (``//${HOME}/x``) is fine."""
    found = _RULE_TEXT.fullmatch(tool)
    if found is None or found.group(1) not in PATH_TOOLS:
        return None
    spec, start = found.group(3), found.start(3)
    if not spec.startswith("/") or spec.startswith("//") or not any(
            low <= start < high for low, high in spans):
        return None
    raw = _RULE_TEXT.fullmatch(written)
    name, shown = (raw.group(1), raw.group(3).rstrip()) if raw else (found.group(1), spec)
    home = shown == "${HOME}" or shown.startswith("${HOME}/")
    return (f"path rule {written.strip()!r}: its path starts with a ${{...}} value that is an "
            "absolute path, which a path rule anchors at the directory of the rule's file "
            "(only //path is absolute), so the rule never matches that path",
            f"write {name}(//{shown}) for the absolute path"
            + (f", or {name}(~{shown[7:]}) for the home directory" if home else ""))


def spellings(path: str) -> list[str]:
    """Other paths a tool may read ``path`` as (fail closed: a deny or ask rule meets each,
    an allow rule must prove each): ``$HOME/.ssh/x`` or ``${HOME}`` expanded, the text
    without the blanks around it, a ``file://`` URL's path, a path with
    percent-escapes decoded (``/etc%2fpasswd``: an MCP tool taking a URI path decodes it),
    and each with ``\\`` read as ``/`` (a Windows separator)."""
    out = []
    if "$" in path and (expanded := os.path.expandvars(path)) != path:
        out.append(expanded)
    if path != path.strip():
        out.append(path.strip())
    if path[:5].lower() == "file:":
        out += _file_url_paths(path[5:])
    elif _ESCAPE.search(path):  # a tool taking a URI path decodes `%2f` (`/etc%2fx`)
        from urllib.parse import unquote

        out.append(unquote(path))
    if "\\" in path:  # a Windows separator: `~\.ssh\id_rsa` there is ~/.ssh/id_rsa
        out += [p.replace("\\", "/") for p in (path, *out)]
    if _WINDOWS_NAME.search(path):  # Windows drops a name's trailing dots and
        # blanks and reads `NAME:stream` / `NAME::$DATA` as NAME: `.env.`, `.env::$DATA`
        out += [w for p in (path, *out) if (w := _windows_name(p)) != p]
    return out


_WINDOWS_NAME = re.compile(r"[^/.][. ]+(?:/|$)|:")


def _windows_name(path: str) -> str:
    """``path`` as Windows names it: each name without its trailing dots and blanks (not
    ``.`` or ``..``), the last without an alternate data stream (``:s``, ``::$DATA``)."""
    head, sep, last = path.rpartition("/")
    if ":" in last and not (not head and last[1:2] == ":"):  # (not a drive, `C:`)
        last = last.split(":", 1)[0] or last
    names = [*head.split("/"), last] if sep else [last]
    return "/".join(n if n in ("", ".", "..") else (n.rstrip(". ") or n) for n in names)


_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _file_url_paths(rest: str) -> list[str]:
    """The paths of a ``file:`` URL (after the scheme), RFC 8089: ``file:///etc/x``,
    ``file://localhost/etc/x`` (and ``file://HOST/etc/x`` for any host:
    ``127.0.0.1``, ``[::1]``, the machine's name), ``file:/etc/x``, each also percent-decoded
    (``file:///%65tc/x``); ``file://etc/x`` is also read as ``etc/x`` (as before)."""
    out = []
    if rest.startswith("//"):
        out.append(rest[2:])
        host, slash, tail = rest[2:].partition("/")
        if slash and host:  # `localhost`, and any host that may be this machine:
            out.append("/" + tail)  # `file://127.0.0.1/etc/x` is /etc/x to curl
    else:
        out.append(rest)
    if "%" in rest:
        from urllib.parse import unquote

        out += [unquote(p) for p in out]
    return out
