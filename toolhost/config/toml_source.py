"""TOML text -> ``Doc``.

``tomllib`` parses (and validates) the text but keeps no positions, so a small scanner
(``toolhost.config.toml_marks``) walks the same text once more and records the line and column
of every key, table header, array element and inline-table entry: lazily, when a mark is
first read (``LazyMarks``), so a file with nothing to locate is never scanned.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import tomllib

from toolhost.config.checks import TomlDate, TomlDateTime, TomlTime
from toolhost.config.escapes import surrogate_hint
from toolhost.config.limits import (
    LIMITS,
    MAX_DIGITS,
    MAX_INT_BITS,
    check_finite,
    data_depth_path,
    float_underflow,
    toml_prescan,
    toml_string_end,
)
from toolhost.config.load_budget import values_left, values_message
from toolhost.config.toml_dates import written_dates
from toolhost.config.toml_keys import too_many_parts
from toolhost.config.toml_marks import scan_marks
from toolhost.config.toml_spelled import maybe_spelled, spelled_ints
from toolhost.config.toml_squeeze import squeeze
from toolhost.config.tree import Doc, LazyMarks, Mark, Path, deep_path, format_path
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["parse_toml", "path_at"]

_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


_YAML_KEY = re.compile(r"^\s*(?:- +)?[A-Za-z0-9_.\"'-]+\s*:(?:\s|$)")
_YAML_ITEM = re.compile(r"^\s*- ")
_BARE_VALUE = re.compile(r"^\s*[A-Za-z0-9_.\"'-]+\s*=\s*([^\s\"'\[{#][^#]*?)\s*(?:#.*)?$")


# a line ended by a CR alone (old Mac OS, some editors' "CR" setting): TOML has no such line
# end, and all the file is "line 1"
_BARE_CR_HINT = ("the file ends its lines with a bare CR (carriage return); TOML needs LF or "
                 "CRLF line ends: convert them (e.g. `tr '\\r' '\\n'`)")


def _bare_cr_on(text: str, line: int) -> bool:
    """Whether line ``line`` (1-based, as TOML counts: by LF) holds a CR that ends no CRLF."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return False
    end = text.find("\n", start)
    row = text[start:end if end >= 0 else len(text)]
    return "\r" in (row[:-1] if row.endswith("\r") and end >= 0 else row)


def _habit_hint(text: str, line: int) -> str:
    """How to write the line a TOML error points at, when it is written the YAML way
    (``key: value``, ``- item``) or holds a bare word as a value."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    here = lines[line - 1]
    if _YAML_KEY.match(here) or _YAML_ITEM.match(here):
        return ("this line is written as YAML: TOML writes key = value, [servers.NAME] "
                "tables and [a, b] lists (or name the file .yaml)")
    bare = _BARE_VALUE.match(here)
    if bare and bare[1].lower() in ("yes", "no", "on", "off", "true", "false"):
        return "TOML's booleans are true and false, lower case and unquoted"
    if bare and not _is_value(bare[1]):
        return f'quote text in TOML: {here.split("=", 1)[0].strip()} = "{cut(bare[1], 60)}"'
    return ""


def _is_value(value: str) -> bool:
    """Whether ``value`` alone is a TOML value (a number, a boolean, a date)."""
    try:
        tomllib.loads(f"x = {value}")
    except (tomllib.TOMLDecodeError, ValueError):
        return False
    return True


def parse_toml(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """Parse ``text``; on a syntax error append a Problem and return None."""
    limit, values = LIMITS.depth, values_left()
    deep, why = toml_prescan(text, limit, values)
    if deep >= 0:  # tomllib recurses once per level, and builds every value: refuse first
        line = text.count("\n", 0, deep) + 1
        column = deep - (text.rfind("\n", 0, deep) + 1) + 1
        if why == "depth":
            problems.append(Problem(f"nested more than {limit} arrays or inline tables deep",
                                    file, line, column, _deep_key(text[:deep + 1], file),
                                    hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant"))
        else:
            problems.append(_too_many(values, file, line, column))
        return None
    at, key = too_many_parts(text, limit)
    if at >= 0:  # a dotted key or header this long costs tomllib quadratic memory
        line = text.count("\n", 0, at) + 1
        problems.append(Problem(f"nested more than {limit} tables deep (a key of more than "
                                f"{limit + 1} dotted parts)", file, line,
                                at - (text.rfind("\n", 0, at) + 1) + 1, key,
                                hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant"))
        return None
    read = squeeze(text)  # a big text's runs of comment lines cost tomllib ~0.5 us each
    try:
        data = tomllib.loads(read.text, parse_float=_float)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT.search(message)
        line, col = (read.line(int(found[1])), int(found[2])) if found else (0, 0)
        message = _AT.sub("", message).strip()
        if "(at end of document)" in message:  # where the unclosed bracket or string opened
            line, col, still_open = _unclosed(text)
            message = message.replace("(at end of document)", "").strip()
            message += (" (this bracket or string is still open at the end of the file)"
                        if still_open else " (at the end of the file)")
        hint = (surrogate_hint(text, line) if "not a Unicode scalar value" in message
                else _BARE_CR_HINT if _bare_cr_on(text, line)
                else _habit_hint(text, line))
        from toolhost.config.conflicts import conflicted  # (only when it failed)

        key_path = _syntax_path(text, line, col)
        said = _duplicate(message, text, line, col, key_path)
        if said is not None:  # in YAML's words, at the key: both grammars say it alike
            message, col, hint = said
        else:
            message = f"invalid TOML: {cut(message, 300)}"
        problems.append(conflicted(Problem(message, file, line, col, key_path, hint=hint),
                                   text, "TOML"))
        return None
    except ValueError:  # int() refused a number of thousands of digits; tomllib says not where
        line, col = _long_number(text)
        problems.append(Problem(f"invalid TOML: a number of more than {MAX_DIGITS:,} digits",
                                file, line, col))
        return None
    too_deep = data_depth_path(data, limit)  # dotted keys and [a.b.c] headers nest too
    if too_deep is not None:
        mark = _deep_mark(text, file, layer, too_deep)
        problems.append(Problem(f"nested more than {limit} tables deep", file, mark.line,
                                mark.column, deep_path(too_deep),
                                hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant"))
        return None
    bad: list[tuple[Path, str]] = []
    dates: list[tuple[Any, Any]] = []
    nodes = [1]  # the root
    doc = Doc(data=_plain(data, (), file, bad, dates, nodes), file=file, layer=layer)
    if dates:  # as written (``...Z``, not Python's ``...+00:00``)
        written = written_dates(text)
        for holder, key in dates:
            value = holder[key]
            holder[key] = type(value)(written.get(value, value))
    # the scan for positions costs about half of tomllib's parse: made only when one is read
    doc.marks = LazyMarks(lambda: scan_marks(text, file, layer), nodes[0], file, layer)
    if not bad and maybe_spelled(text):  # 0x10, 1_000: the text the value was written as
        doc.spelled = spelled_ints(text, doc)
    for path, reason in bad:  # the scanner finds where each value is
        mark = doc.marks.get(path, Mark(file))
        problems.append(Problem(reason, file, mark.line, mark.column, format_path(path)))
    return doc if not bad else None


def _deep_key(text: str, file: str) -> str:
    """The key path of the array or inline table ``text`` ends by opening (one level too
    deep): the deepest value the mark scanner finds in it (its text is cut there, so
    nothing deeper was written; the scanner is lenient about the cut)."""
    try:
        marks = scan_marks(text, file, "")
    except RecursionError:  # (the scanner recurses per level: at most the depth limit)
        return ""
    deepest: Path = ()
    for path in marks:  # in the order of the text: the last of the longest is the bracket's
        if len(path) >= len(deepest):
            deepest = path
    return deep_path(deepest)


def _deep_mark(text: str, file: str, layer: str, path: tuple[Any, ...]) -> Mark:
    """Where the key at ``path`` (or its nearest written parent) is: the scanner walks the
    text without recursing, so a 5,000-part dotted key is found too."""
    try:
        marks = scan_marks(text, file, layer)
    except RecursionError:  # not expected; the path alone still says where
        return Mark(file)
    for end in range(len(path), 0, -1):
        if path[:end] in marks:
            return marks[path[:end]]
    return Mark(file)


def _too_many(limit: int, file: str, line: int, column: int) -> Problem:
    return Problem(values_message(limit, "scalars, keys, lists, tables"), file, line, column,
                   hint="raise TOOLHOST_MAX_CONFIG_VALUES if this is meant")


def _long_number(text: str) -> tuple[int, int]:
    found = re.search(rf"[0-9_]{{{MAX_DIGITS},}}", text)
    if found is None:
        return 0, 0
    at = found.start()
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def path_at(text: str, at: int) -> str:
    """The key path of the value written at offset ``at`` (``_syntax_path``)."""
    return _syntax_path(text, text.count("\n", 0, at) + 1,
                        at - (text.rfind("\n", 0, at) + 1) + 1)


def _syntax_path(text: str, line: int, col: int) -> str:
    """The key whose statement holds a syntax error at ``line``:``col``: the last key the
    text before it writes (an array's item index dropped: the error may be in a later item),
    "" at the top or when the lenient scanner cannot say."""
    if line < 1:
        return ""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    try:  # the scanner is lenient, but this text is one tomllib refused: never a traceback
        marks = scan_marks(text[:start + max(col - 1, 0)], "", "")
    except Exception:
        return ""
    last: Path = ()
    best = (0, 0)
    for path, mark in marks.items():  # the last written: a later key at the same place wins
        if (mark.line, mark.column) >= best:
            last, best = path, (mark.line, mark.column)
    while last and isinstance(last[-1], int):
        last = last[:-1]
    return cut(format_path(last), 200)


def _unclosed(text: str) -> tuple[int, int, bool]:
    """Line and column of the outermost bracket or string still open at the end of ``text``
    (the last line when nothing is)."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "\"'":
            quote = text[i:i + 3] if text.startswith(c * 3, i) else c
            j = toml_string_end(text, i + len(quote), quote)
            if j >= n or not text.startswith(quote, j):
                opened.append(i)
                break
            i = j + len(quote)
            continue
        elif c in "[{":
            opened.append(i)
        elif c in "]}" and opened:
            opened.pop()
        i += 1
    at = opened[0] if opened else max(len(text.rstrip()) - 1, 0)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1, bool(opened)


def _plain(value: Any, path: Path, file: str, bad: list[tuple[Path, str]],
           dates: list[tuple[Any, Any]], nodes: list[int]) -> Any:
    """Dates and times become ISO strings (``dates`` gets where each is, to be shown as
    written): the model holds JSON-like data only; infinity and
    NaN are refused (``bad`` gets their paths). In place: tomllib's tables and arrays are
    new and ours, so only the values that change are written; a key path is built for a
    table or an array (to go into) and for a value that changes, not for every value.
    ``nodes[0]`` counts the nodes (what the scanner would mark)."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return _scalar(value, path, bad)
    nodes[0] += len(value)
    for key, item in items:
        if isinstance(item, (dict, list)):
            _plain(item, (*path, key), file, bad, dates, nodes)
        elif isinstance(item, (float, datetime.date, datetime.time, _Underflow)) or (
                type(item) is int and item.bit_length() > MAX_INT_BITS):  # 0x and 5,000 f
            value[key] = _scalar(item, (*path, key), bad)
            if isinstance(item, (datetime.date, datetime.time)):
                dates.append((value, key))
    return value


class _Underflow(str):
    """A float literal that is not zero but reads as 0.0 (``1e-400``), as written."""


def _float(text: str) -> Any:
    value = float(text)
    return _Underflow(text) if value == 0.0 and float_underflow(text, value) else value


def _scalar(value: Any, path: Path, bad: list[tuple[Path, str]]) -> Any:
    if type(value) is _Underflow:
        bad.append((path, float_underflow(value, 0.0)))
        return None
    if isinstance(value, datetime.datetime):  # (a datetime is a date too: first)
        return TomlDateTime(value.isoformat())
    if isinstance(value, datetime.date):
        return TomlDate(value.isoformat())
    if isinstance(value, datetime.time):
        return TomlTime(value.isoformat())
    reason = check_finite(value)
    if reason:
        bad.append((path, reason))
        return None
    return value


_DECLARED = re.compile(r"Cannot declare \((.*)\) twice")


def _duplicate(message: str, text: str, line: int, col: int, path: str
               ) -> tuple[str, int, str] | None:
    """tomllib's words for a key or a table given twice, as the YAML loader says them
    ("duplicate key"), with the column of the key (tomllib stops after its value);
    None for any other error."""
    lines = text.split("\n", line)
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    if message == "Cannot overwrite a value" or message.startswith("Duplicate inline table key"):
        key = path.rpartition(".")[2]
        at = here.rfind(key, 0, max(col - 1, 0)) if key else -1
        return ("duplicate key (the earlier one would be lost)",
                at + 1 if at >= 0 else col, "")
    found = _DECLARED.fullmatch(message)
    if found:
        table = ".".join(part.strip().strip("'\"") for part in found[1].split(","))
        at = here.find("[")
        return (f"duplicate table [{cut(table, 200)}]: it is declared twice",
                at + 1 if at >= 0 else col,
                f"write its keys under one [{cut(table, 200)}] header; a dotted key such "
                f"as {cut(table, 200)}.x = 1 declares it too")
    return None
