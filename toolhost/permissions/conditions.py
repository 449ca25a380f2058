"""Argument conditions (``when``) and sandboxed expressions (``expr``) of structured rules.

A ``when`` key is a path into the arguments: ``city``, ``query.limit``, ``items[0]``,
``headers["x.y"]``. Its value is either a plain value (equality, with JSON types: ``1`` is not
``true``) or a mapping of operators that must all hold: ``equals``, ``glob``, ``regex``,
``one_of``, ``min``, ``max``, ``present``, ``path_under``, ``path_glob`` (a mapping is always
read as operators; compare with an object through ``equals``).
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolhost import regex

# paths and urls load with the first path_under/path_glob/host condition.

__all__ = ["MISSING", "WRONG", "Condition", "KeyPath", "PointerSegment", "compile_when",
           "index_key", "json_equal", "json_type", "parse_key_path"]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


class _Wrong:
    def __repr__(self) -> str:
        return "<wrong type>"


# The path steps through a value that is not the object or list it needs (``query.limit``
# when ``query`` is a string): the condition cannot be decided, so it fails closed.
WRONG: Any = _Wrong()
KeyPath = tuple[str | int, ...]
# possessive: a quoted key of 1 MB kept a regex frame a character (124 MB)
_SEGMENT = re.compile(r'\.?([A-Za-z0-9_\-$@:/]+)|\[(\d+)\]|\["((?:[^"\\]++|\\.)*+)"\]')


def parse_key_path(text: str) -> KeyPath:
    """``a.b[0]["c.d"]`` -> ("a", "b", 0, "c.d"). Raises ValueError.

    A path starting with ``/`` is a JSON Pointer (RFC 6901): ``/a/b/0``; a segment of digits
    indexes a list or names an object key, whichever the value is.
    """
    if text.startswith("/"):
        return tuple(PointerSegment(p.replace("~1", "/").replace("~0", "~"))
                     for p in text[1:].split("/"))
    out: list[str | int] = []
    i = 0
    while i < len(text):
        m = _SEGMENT.match(text, i)
        if not m or (i == 0 and text.startswith(".")):
            raise ValueError(f"bad argument path {text!r} at character {i + 1} "
                             '(use a.b, items[0] or key["with.dots"])')
        name, index, quoted = m.groups()
        if index is not None:
            out.append(int(index))
        elif quoted is not None:
            out.append(re.sub(r"\\(.)", r"\1", quoted))
        else:
            out.append(name)
        i = m.end()
    if not out:
        raise ValueError("empty argument path")
    return tuple(out)


class PointerSegment(str):
    """A JSON Pointer segment: an object key, or a list index when it is all digits."""


def lookup(value: Any, path: KeyPath) -> Any:
    """The value at ``path`` inside ``value``; MISSING when an object lacks the key or a list
    is too short; WRONG when a step meets a value that is not an object (a list, for an index)."""
    for part in path:
        if isinstance(part, PointerSegment) and isinstance(value, (list, tuple)):
            if not part.isdigit() or (len(part) > 1 and part[0] == "0"):
                return WRONG
            part = int(part)
        if isinstance(part, int):
            if not isinstance(value, (list, tuple)):
                return WRONG
            if part >= len(value):
                return MISSING
            value = value[part]
        else:
            if not isinstance(value, Mapping):
                return WRONG
            if part not in value:
                return MISSING
            value = value[part]
    return value


def json_equal(a: Any, b: Any) -> bool:
    """Equality with JSON types: booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_type(v: Any) -> str:
    """The JSON type of a value: null, boolean, number, string, array or object."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int) or (isinstance(v, float) and math.isfinite(v)):
        return "number"
    if isinstance(v, float):  # NaN, infinity: no JSON number, nothing can judge them
        return "non-finite float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    return "object" if isinstance(v, Mapping) else type(v).__name__


# A test answers True (holds), False (does not) or None: the value has a type the test cannot
# judge (a regex meeting a list). None counts as a match for deny and ask rules and as no
# match for allow rules (fail closed).
Test = Callable[[Any], "bool | None"]


def _typed(kind: str, check: Callable[[Any], bool]) -> Test:
    """A test of values of one JSON type: absent -> False, other types -> None."""
    def test(v: Any) -> bool | None:
        if v is MISSING:
            return False
        if v is WRONG or json_type(v) != kind:
            return None
        return check(v)
    return test


def _equal_to(choices: tuple[Any, ...]) -> Test:
    kinds = {json_type(c) for c in choices}

    def test(v: Any) -> bool | None:
        if v is MISSING:
            return False
        if v is WRONG or json_type(v) not in kinds:
            return None
        return any(json_equal(v, c) for c in choices)
    return test
OPERATORS = ("equals", "glob", "regex", "one_of", "min", "max", "present", "path_under",
             "path_glob", "host")


def _host_test(arg: Any) -> Callable[[str], bool | None]:
    """``{host: example.com}`` / ``{host: [a.com, "*.b.com"]}``: the value, an http(s) URL or a
    bare host, names one of these hosts (both sides canonical, see ``urls``)."""
    from toolhost.permissions.content import parse_domain
    from toolhost.permissions.urls import canonical_host, host_matches, url_host

    items = [arg] if isinstance(arg, str) else arg
    if not isinstance(items, (list, tuple)) or not items or not all(
            isinstance(x, str) for x in items):
        raise ValueError("'host' takes a host name or a list of them")
    patterns = tuple(parse_domain(x) for x in items)

    def test(v: str) -> bool | None:
        host = url_host(v) if "://" in v or "\\" in v else canonical_host(v)
        return None if host is None else any(host_matches(p, host) for p in patterns)
    return test


def _operator(op: str, arg: Any, *, cwd: str, rule_dir: str) -> Test:
    if op not in OPERATORS:
        raise ValueError(f"unknown condition {op!r} (expected one of {', '.join(OPERATORS)}; "
                         "compare with an object through equals)")
    if op == "equals":
        return _equal_to((arg,))
    if op == "present":
        if not isinstance(arg, bool):
            raise ValueError("'present' takes true or false")
        return lambda v: None if v is WRONG else (v is not MISSING) is arg
    if op == "one_of":
        if not isinstance(arg, (list, tuple)) or not arg:
            raise ValueError("'one_of' takes a non-empty list of values")
        return _equal_to(tuple(arg))
    if op in ("min", "max"):
        if not _number(arg):
            raise ValueError(f"'{op}' takes a number")
        if op == "min":
            return _typed("number", lambda v: bool(v >= arg))
        return _typed("number", lambda v: bool(v <= arg))
    if op == "host":
        return _typed("string", _host_test(arg))  # type: ignore[arg-type]
    if not isinstance(arg, str):
        raise ValueError(f"'{op}' takes a string")
    if op == "glob":
        rx = re.compile(fnmatch.translate(arg), re.DOTALL)
        return _typed("string", lambda v: rx.match(v) is not None)
    if op == "regex":
        try:
            linear = regex.compile(arg)
        except regex.RegexError as exc:
            raise ValueError(f"bad regex {arg!r}: {exc}") from None
        return _typed("string", linear.fullmatch)
    if op in ("path_under", "path_glob"):
        return _path_test(op, arg, cwd=cwd, rule_dir=rule_dir)
    raise AssertionError(op)


def _path_test(op: str, arg: str, *, cwd: str, rule_dir: str) -> Test:
    from toolhost.permissions.paths import compile_path_glob, fold, normalize_path, spellings

    if op == "path_under":
        root = normalize_path(os.path.join(rule_dir, os.path.expanduser(arg)), cwd)
        if root is None:
            raise ValueError("'path_under' takes a directory")
        prefix = root.rstrip("/") + "/"
        low_root, low_prefix = root.lower(), prefix.lower()

        def under(p: str) -> bool:
            return p == root or p.startswith(prefix)

        def under_any_case(p: str) -> bool:
            q = p.lower()
            return q == low_root or q.startswith(low_prefix)
        check: Callable[[str], bool] = under
        any_case: Callable[[str], bool] = under_any_case
    else:  # path_glob
        spec = os.path.expanduser(arg)
        pattern = (compile_path_glob("./" + spec.lstrip("/"), "/") if os.path.isabs(spec)
                   else compile_path_glob(spec, rule_dir))
        check = pattern.matches
        folded = fold(pattern.regex)

        def glob_any_case(p: str) -> bool:
            return folded.fullmatch(unicodedata.normalize("NFC", p)) is not None
        any_case = glob_any_case

    def test(v: str) -> bool | None:
        p = normalize_path(v, cwd)
        if p is None:
            return None
        answer = check(p)
        if any_case(p) != answer:  # `.ENV` is `.env` on macOS: cannot judge (deny/ask: match)
            return None
        for other in spellings(v):  # ``$HOME/.ssh/x``, `` /x``, ``file:///x``
            q = normalize_path(other, cwd)
            if q is None or check(q) != answer:
                return None  # the spellings disagree: cannot judge (deny/ask: match)
        return answer
    return _typed("string", test)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Condition:
    """One ``when`` entry: the value at ``path`` passes every test."""

    key: str
    path: KeyPath
    tests: tuple[Test, ...]
    # For plain equality on a top-level key with a scalar: the index key of the value (see
    # ``index_key``), so a policy can skip rules whose value differs without running them.
    eq_index: tuple[str, Any] | None = None
    # ``tests`` for a tool that reads a relative path elsewhere than the rules judge it
    # (``read_elsewhere``); None when no test is a path test
    away: tuple[Test, ...] | None = None

    def read_elsewhere(self) -> Condition:
        """This condition for a tool whose reading directory is not the rules' (or unknown):
        its ``path_under``/``path_glob`` tests cannot judge a relative, ``~`` or otherwise
        cwd-dependent value (deny/ask: match, allow: no proof)."""
        if self.away is None:
            return self
        return Condition(self.key, self.path, self.away, self.eq_index)

    def holds(self, arguments: Mapping[str, Any], *, strict: bool) -> bool:
        """Whether every test holds. A test that cannot judge the value's type counts as
        holding unless ``strict`` (allow rules are strict, deny and ask rules are not)."""
        path = self.path
        if len(path) == 1 and isinstance(path[0], str):  # the common case, without a loop
            value = arguments.get(path[0], MISSING)
        else:
            value = lookup(arguments, path)
        for test in self.tests:
            result = test(value)
            if result is None:
                if strict:
                    return False
            elif not result:
                return False
        return True


_PATH_KEYS = frozenset({"file_path", "path", "notebook_path"})


def _as_written(key: str, op: str, test: Test, cwd: str) -> Test:
    """A ``glob`` or ``regex`` on a path argument tests the text as written, where a ``..``
    leads elsewhere (``glob: /work/src/*`` met ``/work/src/../../etc/passwd``) and a
    ``\\``, a leading ``~`` or a ``$`` may be read as another path: when the value and its
    folded form (``..`` resolved) disagree, or it holds one of those, it cannot be judged
   , so an allow rule does not match it and a deny or ask rule does (fail closed).
    ``path_under`` and ``path_glob`` compare normalised paths (symlinks resolved too); a
    value whose symlinks lead where the test answers otherwise cannot be judged
    either (a relative one through a symlink: never)."""
    if key not in _PATH_KEYS or op not in ("glob", "regex"):
        return test

    def guarded(v: Any) -> bool | None:
        answer = test(v)
        if not isinstance(v, str) or answer is None:
            return answer
        if "\\" in v or "$" in v or v.startswith("~"):
            return None
        if ".." in v.split("/") and (test(os.path.normpath(v)) != answer
                                     or not _folds_as_written(v)):
            return None
        # a symlink on the path leads elsewhere than the text says (`/work/src/link`
        # -> /etc): judged only where the path it leads to gets the same answer
        if v and "\0" not in v:
            if len(v) > 4096:
                return None  # (past PATH_MAX: not judged)
            folded = os.path.normpath(os.path.join(cwd, v))
            from toolhost.permissions.paths import real_path

            real = real_path(folded)
            if real is None:
                return None  # (a link on the way cannot be read: /proc/1/root)
            if real != folded and (not os.path.isabs(v) or test(real) != answer):
                return None
        return answer
    return guarded


def _folds_as_written(value: str) -> bool:
    """Whether each ``..`` of ``value`` leads where its text says: after a symlink it leads
    to the parent of the link's target (``/work/src/etc-link/../x`` is ``/x``), which no
    reading of the text can tell (review18: it passed ``glob: /work/src/**``)."""
    parts = value.split("/")
    if len(value) > 4096 or parts.count("..") > 32:
        return False  # (past PATH_MAX, or a file system walk per `..`: not judged)
    for i, part in enumerate(parts):
        if part != ".." or i == 0:
            continue
        prefix = os.path.abspath("/".join(parts[:i]) or "/")
        from toolhost.permissions.paths import real_path

        parent, real = real_path(os.path.dirname(prefix)), real_path(prefix)
        if parent is None or real is None or parent != os.path.dirname(real):
            return False
    return True


def _rooted(test: Test) -> Test:
    """``test`` (a ``path_under``/``path_glob``) judging only a value every reading of which
    is an absolute path (``spellings``): a tool that reads paths in another directory (its
    own ``cwd``, an upstream's ``mcp.cwd``) or in one unknown (an HTTP tool or upstream, the
    remote's) reads ``secret.txt`` or ``~/x`` elsewhere than the rules' directory."""
    from toolhost.permissions.paths import spellings

    def rooted(v: Any) -> bool | None:
        if isinstance(v, str) and (not v.startswith("/") or any(
                not s.startswith("/") for s in spellings(v))):
            return None
        return test(v)
    return rooted


def index_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key equal for exactly the JSON-equal scalars (``1`` and ``1.0``, not ``true``);
    None for values that are not indexable scalars."""
    if value is None:
        return ("z", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    return None


def compile_when(when: Mapping[str, Any], *, cwd: str, rule_dir: str) -> list[Condition]:
    """Compile a ``when`` mapping. Raises ValueError naming the bad key."""
    out: list[Condition] = []
    for key, spec in when.items():
        try:
            path = parse_key_path(str(key))
            if isinstance(spec, Mapping):  # operators (equality with an object: {equals: ...})
                if not spec:
                    raise ValueError("empty condition (to compare with {} use {equals: {}})")
                tests = tuple(_as_written(str(key), str(op), _operator(
                    str(op), arg, cwd=cwd, rule_dir=rule_dir), cwd) for op, arg in spec.items())
                away = tuple(_rooted(t) if op in ("path_under", "path_glob") else t
                             for op, t in zip(spec, tests, strict=True))
            else:
                tests = (_operator("equals", spec, cwd=cwd, rule_dir=rule_dir),)
                away = tests
        except ValueError as exc:
            raise ValueError(f"when.{key}: {exc}") from None
        eq = (index_key(spec) if not isinstance(spec, Mapping) and len(path) == 1
              and isinstance(path[0], str) else None)
        out.append(Condition(str(key), path, tests, eq, None if away == tests else away))
    return out
