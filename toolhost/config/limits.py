"""Bounds on what a config or scenario file may hold, so that hostile text fails fast.

Every limit has a default no honest file meets and an environment override:

=============================  ===========  ========================================
limit                          default      override
=============================  ===========  ========================================
file size                      16 MiB       ``TOOLHOST_MAX_CONFIG_BYTES``
nesting depth                  100          ``TOOLHOST_MAX_CONFIG_DEPTH``
YAML aliases (``*name``)       10,000       ``TOOLHOST_MAX_YAML_ALIASES``
YAML anchors (``&name``)       10,000       ``TOOLHOST_MAX_YAML_ANCHORS``
nodes expanded from aliases    100,000      ``TOOLHOST_MAX_YAML_ALIAS_NODES``
values (scalars, keys, lists)  500,000      ``TOOLHOST_MAX_CONFIG_VALUES`` (per load: load_budget)
files in one ``extends`` chain 50           ``TOOLHOST_MAX_EXTENDS_CHAIN`` (at most 200)
repository pins of one load    50           ``TOOLHOST_MAX_REPO_PINS`` (each is a clone)
tools declared in one config   10,000       ``TOOLHOST_MAX_TOOLS``
python import directories      10,000       ``TOOLHOST_MAX_IMPORT_DIRS`` (per process)
permission rules of a config   10,000       ``TOOLHOST_MAX_RULES``
characters of one rule         4,096        ``TOOLHOST_MAX_RULE_CHARS``
OpenAPI operations imported   2,000        ``TOOLHOST_MAX_OPENAPI_OPERATIONS``
OpenAPI values checked (*)     5,000        ``TOOLHOST_MAX_OPENAPI_CHECK_VALUES``
template tags of one load      50,000       ``TOOLHOST_MAX_TEMPLATE_TAGS``
secret values of one config    256          ``TOOLHOST_MAX_SECRETS`` (secret_budget)
their characters, together     65,536       ``TOOLHOST_MAX_SECRET_CHARS``
digits of an integer           4,000        (Python's own limit for int <-> str)
=============================  ===========  ========================================

(*) openapi-spec-validator costs up to a few milliseconds per value of an OpenAPI 3.1
document (a parameter is about five values and ~2 ms): a larger document is not checked by it,
and a warning says so; its tools are still built defensively from what is there.

The parsers (PyYAML's composer, ``tomllib``) recurse once per nesting level, so depth is checked
on the text *before* parsing (``toml_depth``) or on the event stream (YAML). Values are counted
there too: a parsed value costs a few hundred bytes (node, object, mark), so 16 MiB of ``1,``
would take gigabytes. Every value takes at least one character of text, so a text shorter
than the value limit is not counted at all (the common case costs nothing).
"""

from __future__ import annotations

import logging
import math
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from toolhost.errors import Problem, shown
from toolhost.excerpt import cut

__all__ = ["LIMITS", "MAX_DIGITS", "MAX_EXTENDS_CHAIN", "Limits", "check_finite",
           "data_depth_path", "float_underflow", "read_bounded", "toml_depth", "toml_prescan",
           "toml_string_end"]

MAX_DIGITS = 4000
MAX_EXTENDS_CHAIN = 200  # what TOOLHOST_MAX_EXTENDS_CHAIN may raise the chain limit to


MAX_CONFIG_DEPTH = 300  # the most TOOLHOST_MAX_CONFIG_DEPTH can raise the depth limit to


_warned: set[tuple[str, str]] = set()  # (variable, value) already warned about


def _env_int(name: str, default: int, ceiling: int | None = None) -> int:
    """The whole number ``name`` sets (``_`` allowed: ``16_000_000``), at most ``ceiling``;
    ``default`` when it is unset or empty. A value that is not a whole number above 0, or
    one over the ceiling, is not obeyed silently: one warning (once per process) names the
    variable, its value and what is used instead."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", "")) if len(raw) <= 30 else 0
    except ValueError:
        value = 0
    if value <= 0:
        _warn(name, raw, "it is not a whole number above 0 of at most 30 digits; using the "
              f"default {default:,}")
        return default
    if ceiling is not None and value > ceiling:
        _warn(name, raw, f"it is above the most it can be; using {ceiling:,}")
        return ceiling
    return value


def _warn(name: str, raw: str, what: str) -> None:
    if (name, raw) in _warned:
        return
    _warned.add((name, raw))
    shown_value = raw if len(raw) <= 40 else f"{raw[:40]}... ({len(raw):,} characters)"
    logging.getLogger("toolhost.config").warning("%s", shown(f"{name}={shown_value!r}: {what}"))


class Limits:
    """The limits in force, read from the environment each time (tests and flags set it)."""

    @property
    def file_bytes(self) -> int:
        return _env_int("TOOLHOST_MAX_CONFIG_BYTES", 16 * 1024 * 1024)

    @property
    def depth(self) -> int:
        # the parsers recurse per level (tomllib, the composer, the walk): past a few hundred
        # levels Python's stack would end the load, so a raised limit stops here
        return _env_int("TOOLHOST_MAX_CONFIG_DEPTH", 100, ceiling=MAX_CONFIG_DEPTH)

    @property
    def aliases(self) -> int:
        return _env_int("TOOLHOST_MAX_YAML_ALIASES", 10_000)

    @property
    def anchors(self) -> int:
        return _env_int("TOOLHOST_MAX_YAML_ANCHORS", 10_000)

    @property
    def alias_nodes(self) -> int:
        return _env_int("TOOLHOST_MAX_YAML_ALIAS_NODES", 100_000)

    @property
    def values(self) -> int:
        return _env_int("TOOLHOST_MAX_CONFIG_VALUES", 500_000)

    @property
    def argument_values(self) -> int:
        # values (array items plus object members) of one call's arguments that jsonschema
        # checks at all, in a worker at ~10 us each (1,000,000 held one for 6-30 s)
        return _env_int("TOOLHOST_MAX_ARGUMENT_VALUES", 100_000)

    @property
    def tools(self) -> int:
        # tools declared in one config, all servers together: each costs ~0.3 ms to build and
        # compile at every start (90,000 took 29 s and 450 MB); the Claude API takes far fewer
        return _env_int("TOOLHOST_MAX_TOOLS", 10_000)

    @property
    def import_dirs(self) -> int:
        # distinct directories python tools put on sys.path, per process: every import of a
        # module not yet loaded (a missing one: each time) looks in each of them
        return _env_int("TOOLHOST_MAX_IMPORT_DIRS", 10_000)

    @property
    def rules(self) -> int:
        # permission rules of one config, extends and layers included (~0.4 ms each to
        # compile and review: 100,000 kept validate busy past 30 s)
        return _env_int("TOOLHOST_MAX_RULES", 10_000)

    @property
    def rule_chars(self) -> int:
        # characters of one permission rule (or its expr): its globs compile in Python, char
        # by char (one of 1,000,000 held validate 13 s); honest rules are a line or two
        return _env_int("TOOLHOST_MAX_RULE_CHARS", 4_096)

    @property
    def openapi_operations(self) -> int:
        # operations chosen from one OpenAPI document: building and compiling cost about a
        # millisecond each, at every start (the largest public APIs have fewer)
        return _env_int("TOOLHOST_MAX_OPENAPI_OPERATIONS", 2_000)

    @property
    def openapi_check_values(self) -> int:
        # openapi-spec-validator takes up to ~0.5 ms per value for OpenAPI 3.1 (a
        # parameter costs ~2 ms): past this a document is not checked by it (~2 s at most)
        return _env_int("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", 5_000)

    @property
    def secrets(self) -> int:
        # secret values of one config: each is set up in ~40 spellings at every start (1,000
        # short ones: 4-8 s and 320 MB; 500 of 131 characters passed what RE2 compiles)
        return _env_int("TOOLHOST_MAX_SECRETS", 256)

    @property
    def secret_chars(self) -> int:
        # characters of a config's secret values, all together (~40 us and ~1 KB each to set
        # up: one random secret of 262,144 characters took 10 s and 340 MB)
        return _env_int("TOOLHOST_MAX_SECRET_CHARS", 65_536)

    @property
    def template_tags(self) -> int:
        # tags ({{ }}, {% %}) of the templates one load parses and compiles: ~0.1 ms each
        return _env_int("TOOLHOST_MAX_TEMPLATE_TAGS", 50_000)

    @property
    def repo_pins(self) -> int:
        # distinct {repo, rev} entries of one load: each is a clone on first use (~0.25 s
        # and a checkout on disk), so 1,000 pins of one repository took minutes
        return _env_int("TOOLHOST_MAX_REPO_PINS", 50)

    @property
    def extends_chain(self) -> int:
        # the loader recurses once per link: past a few hundred the stack would end it
        return _env_int("TOOLHOST_MAX_EXTENDS_CHAIN", 50, ceiling=MAX_EXTENDS_CHAIN)


LIMITS = Limits()


def read_bounded(path: str, problems: list[Problem], what: str = "config file", *,
                 limit: int | None = None, hint: str = "",
                 locate: Callable[[str, int], str] | None = None) -> str | None:
    """The text of a regular file of at most ``LIMITS.file_bytes`` bytes, as UTF-8 (a leading
    BOM dropped); otherwise a located Problem and None. A FIFO, a device (``/dev/zero``) or a
    directory is refused without reading it, so nothing here can block or fill memory.

    Other files than configs (a lock, a client's JSON, an ``@FILE`` argument) pass their own
    ``limit`` (not raised by TOOLHOST_MAX_CONFIG_BYTES) and ``hint`` (what the file should be).
    ``locate`` names the key path at a character offset of the text (a byte that is not
    UTF-8 is replaced by U+FFFD for it), for a file of a known kind.
    """
    configurable = limit is None
    limit = LIMITS.file_bytes if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        problems.append(Problem("no such file", path, hint=_nearby(
            path, config=what == "config file" and not os.path.isabs(path))))
        return None
    except OSError as exc:
        problems.append(Problem(f"cannot read: {exc.strerror or exc}", path))
        return None
    except ValueError:  # a NUL in the name: no file can be called that
        problems.append(Problem("cannot read: the path holds a NUL character",
                                path.replace("\0", "\\0")))
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            problems.append(Problem(f"cannot read: {kind}", path,
                                    hint=hint or f"a {what} is a .yaml, .yml or .toml file"))
            return None
        if info.st_size > limit:
            problems.append(_too_big(path, info.st_size, limit, what, configurable))
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the file may grow after fstat: read at most limit + 1 bytes
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            problems.append(_too_big(path, size, limit, what, configurable))
            return None
    except OSError as exc:
        problems.append(Problem(f"cannot read: {exc.strerror or exc}", path))
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    wide = _wide_encoding(data)
    if wide:  # PowerShell 5's `>` and Out-File write UTF-16 (with a byte order mark)
        problems.append(Problem(f"not UTF-8 text: this is {wide}", path, 1, 1,
                                hint="save the file as UTF-8; in PowerShell: Out-File -Encoding "
                                     "utf8 or Set-Content -Encoding utf8"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        key = ""
        if locate is not None:  # the key path of the value holding the byte
            at = len(data[:exc.start].decode("utf-8", "replace"))
            key = locate(data.decode("utf-8", "replace"), at)
        problems.append(Problem(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", path, line,
                                column, key, hint="save the file as UTF-8"))
        return None
    return text[1:] if text.startswith("\ufeff") else text


_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32 text (byte order mark FF FE 00 00)"),
         (b"\x00\x00\xfe\xff", "UTF-32 text (byte order mark 00 00 FE FF)"),
         (b"\xff\xfe", "UTF-16 text (byte order mark FF FE)"),
         (b"\xfe\xff", "UTF-16 text (byte order mark FE FF)"))


def _wide_encoding(data: bytes) -> str:
    """What a UTF-16 or UTF-32 file is, by its byte order mark or, without one, by the NUL
    byte beside each ASCII character of its start; "" for anything else (UTF-8 decides)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:64]
    if len(head) >= 4 and head.count(0) * 2 >= len(head) - 1 and (
            not any(head[0::2]) or not any(head[1::2]) or not any(head[1::4])):
        return "UTF-16 or UTF-32 text (a NUL byte beside each character)"
    return ""


def _too_big(path: str, size: int, limit: int, what: str, configurable: bool = True) -> Problem:
    return Problem(f"{what} too large ({size:,} bytes, the limit is {limit:,})", path,
                   hint="raise it with TOOLHOST_MAX_CONFIG_BYTES if the file is meant to be "
                        "this big" if configurable else "")


# what toml_prescan takes in one match (each piece skipped in C): any run of text holding no
# stop, a comment to its line's end, a whole string (ending where toml_string_end ends it,
# its closing quote or line break taken); then the next bracket (counting values, also a
# key's '=' or an array's ','), or the end. Each piece is possessive and starts with its own
# character, so a match never backtracks: linear in the text.
_SKIP = "|".join([
    r"'''(?:[^']++|'(?!''))*+(?:''')?",
    r"'[^'\n]*+(?s:.)?",
    r'"""(?:[^"\\]++|\\(?s:.)|"(?!""))*+(?:""")?',
    r'"(?:[^"\\\n]++|\\(?s:.))*+(?s:.)?',
    r"#[^\n]*+",
])
_NEXT_STOP = {False: r"(?:[^#\"'\[\]{}]++|" + _SKIP + r")*+(?:([\[\]{}])|\Z)",
              True: r"(?:[^#\"'\[\]{},=.]++|" + _SKIP + r")*+(?:([\[\]{},=.])|\Z)"}
_NEXT: dict[bool, re.Pattern[str]] = {}  # compiled at the first scan (~1.5 ms for both,
# paid only by a load that reads TOML, JSON or a YAML flow collection)
_STRING_STOP = {'"': re.compile(r'["\\\n]'), "'": re.compile(r"['\n]"),
                '"""': re.compile(r'["\\]'), "'''": re.compile(r"'")}


HEADER_WEIGHT = 5  # values one TOML table header counts as (toml_prescan)


def toml_depth(text: str, limit: int) -> int:
    """Offset of the first bracket that opens more than ``limit`` arrays or inline tables,
    or -1. Strings and comments are skipped; the scan is linear and never recurses."""
    return toml_prescan(text, limit, len(text) + 1)[0]


def toml_prescan(text: str, limit: int, values: int) -> tuple[int, str]:
    """``toml_depth``, and the values counted on the way (each ``=``, ``,``, ``[``, ``{``
    and ``.`` outside strings and comments: at least every value and container, and every
    part of a dotted key or header, which tomllib makes a table of, building every prefix
    of the key on the way): the offset
    where nesting passes ``limit`` (``"depth"``) or the count passes ``values``
    (``"values"``), else ``(-1, "")``. A text shorter than ``values`` is not counted."""
    depth = count = 0
    counting = len(text) >= values
    pattern = _NEXT.get(counting) or _NEXT.setdefault(counting, re.compile(_NEXT_STOP[counting]))
    for found in pattern.finditer(text):
        c = found[1]
        if c is None:  # the end
            break
        if counting and c in ",=[{.":
            i = found.start(1)
            # a table header ([t], [[t]]) costs tomllib about as much as five values: 100,000
            # one-line headers took it 6 s
            count += HEADER_WEIGHT if c == "[" and (i == 0 or text[i - 1] == "\n") else 1
            if count > values:
                return i, "values"
        if c in "[{":
            depth += 1
            if depth > limit:
                return found.start(1), "depth"
        elif c in "]}":
            depth = max(depth - 1, 0)
    return -1, ""


def toml_string_end(text: str, j: int, quote: str) -> int:
    """Where the string whose content starts at ``j`` ends: its closing quote, the line break
    ending a one-line string, or past the end (a backslash escapes the next character in
    basic strings; an unclosed string runs to the end)."""
    search, n = _STRING_STOP[quote].search, len(text)
    while j < n:
        found = search(text, j)
        if found is None:
            return n
        j = found.start()
        c = text[j]
        if c == "\\":
            j += 2
        elif c == "\n" or text.startswith(quote, j):
            return j
        else:  # one quote of a triple-quoted string's delimiter
            j += 1
    return j


# bits of the largest integer of MAX_DIGITS decimal digits: a hex, octal or binary literal
# (``0x`` and 5,000 ``f``) is read without Python's digit limit, but its value has more
# decimal digits than any message, JSON answer or comparison can print
MAX_INT_BITS = math.floor(MAX_DIGITS * math.log2(10))


def float_underflow(text: str, value: float) -> str:
    """A reason when the float literal ``text`` is not zero but reads as 0.0 (``1e-400``:
    below the smallest float, ~5e-324), else "": a key checked later would say "got 0.0",
    never what was written."""
    if value != 0.0 or not any(c in "123456789" for c in text.lower().partition("e")[0]):
        return ""
    return (f"{cut(text, 40)} is too small for a float: it would be read as 0.0 (the "
            "smallest is about 5e-324)")


def check_finite(value: Any) -> str:
    """A reason when ``value`` is a number JSON cannot carry (infinity, NaN, an integer of
    more than ``MAX_DIGITS`` digits however it was written), else ""."""
    if isinstance(value, float) and not math.isfinite(value):
        return (f"{value!r} is not a finite number (JSON, and so every tool schema and "
                "argument, has no infinity or NaN)")
    if type(value) is int and value.bit_length() > MAX_INT_BITS:
        return f"an integer of more than {MAX_DIGITS:,} digits"
    return ""


def data_depth_path(data: Any, limit: int) -> tuple[Any, ...] | None:
    """The key path of the first value nested more than ``limit`` deep, or None; iterative,
    so it works on data a recursive walk could not."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > limit:
            return path
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        # a scalar child is over the limit only one level above it: otherwise only tables
        # and arrays are taken (same order, so the same first path)
        every = len(path) >= limit
        stack.extend((v, (*path, k)) for k, v in items
                     if every or isinstance(v, (dict, list)))
    return None


_CONFIG_SUFFIXES = (".yaml", ".yml", ".toml", ".json", ".lock")


def _nearby(path: str, *, config: bool = False) -> str:
    """A file beside the missing ``path`` with a close name (``toolhost.yml`` for
    ``toolhost.yaml``), as a hint; "" when there is none or the directory cannot be read.
    For a config named relative to the current directory (``config``: typed in a shell),
    the first hour's other mistakes: the config files that are there, or none (``toolhost
    init``), or no such directory (a command copied from toolhost's own repository, run
    elsewhere)."""
    from toolhost.typos import close_matches

    folder, name = os.path.split(path)
    try:
        names = sorted(n for n in os.listdir(folder or ".")[:1000]
                       if n.endswith(_CONFIG_SUFFIXES) and n != name)
    except FileNotFoundError:
        if not config or not folder:
            return ""
        ours = folder.replace(os.sep, "/").split("/")[0] == "examples"
        return f"there is no directory {folder} in {os.getcwd()}" + (
            " (examples/ is in toolhost's repository: run such commands in its clone)"
            if ours else "")
    except (OSError, ValueError):
        return ""
    found = close_matches(name, names, n=1, cutoff=0.7)
    if found:
        return f"did you mean {os.path.join(folder, found[0])}?"
    if not config:
        return ""
    where = folder or "this directory"
    names = [n for n in names if not n.startswith(".")]  # .mcp.json is a client's
    if names:
        return (f"the config files in {where}: "
                + ", ".join(os.path.join(folder, n) for n in names[:5])
                + (", ..." if len(names) > 5 else ""))
    return f"there is no config file in {where}: `toolhost init {folder or '.'}` writes one"
