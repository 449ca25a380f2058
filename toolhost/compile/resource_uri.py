"""The canonical form of a resource URI: the one string both the permission rules and the
lookup see.

A client may spell one resource many ways (``notes://kb/%73ecret.md``, ``notes://kb/x/../secret.md``,
``NOTES://kb/secret.md``); if the rules saw the spelling and the lookup its decoded meaning, a
deny on ``notes://kb/secret*`` would be walked past by encoding one character. So every
``resources/read`` is first brought to one form (:func:`normalize`, then the resource's own
re-encoding of the values it resolves to: ``ServerContent.canonical_uri``) and both the rules
and the lookup get that string.

The syntactic part follows RFC 3986 section 6.2.2: percent-escapes of unreserved characters are
decoded, the hex digits of the others upper-cased, the scheme lower-cased and dot-segments of
the path resolved. The host is left as sent: a URI template may put a value there
(``env://{env}/...``), and lower-casing it would change the value a backend sees.
"""

from __future__ import annotations

import functools
import re
import urllib.parse

__all__ = ["decoded", "filled", "normalize", "quote_value", "remove_dot_segments", "resolved",
           "unsafe_value", "variables"]

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _escape(found: re.Match[str]) -> str:
    char = chr(int(found.group(1), 16))
    return char if char in _UNRESERVED else "%" + found.group(1).upper()


@functools.lru_cache(maxsize=1024)  # config URIs are normalised on every lookup
def normalize(uri: str) -> str:
    """``uri`` in RFC 3986 normal form (see the module docstring); idempotent."""
    uri = _ESCAPE.sub(_escape, uri) if "%" in uri else uri
    scheme = _SCHEME.match(uri)
    if scheme is None:
        return uri
    head, rest = uri[:scheme.end()].lower(), uri[scheme.end():]
    if rest.startswith("//"):  # scheme://authority/path?query#fragment
        cut = min((i for i in (rest.find(c, 2) for c in "/?#") if i >= 0), default=len(rest))
        head, rest = head + rest[:cut], rest[cut:]
    end = min((i for i in (rest.find(c) for c in "?#") if i >= 0), default=len(rest))
    path, tail = rest[:end], rest[end:]
    if "." in path:
        path = remove_dot_segments(path)
    return head + path + tail


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4, by segments: ``.`` goes, ``..`` takes the segment before it along
    (``a/./b/../c`` is ``a/c``); also for a ``{+path}`` value, which a backend reads as a
    path even where the URI's authority begins."""
    absolute = path.startswith("/")
    out: list[str] = []
    segments = path.split("/")[1:] if absolute else path.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    joined = "/".join(out)
    return "/" + joined if absolute else joined


def quote_value(value: str, *, reserved: bool = False) -> str:
    """A decoded value written back into a URI: everything but unreserved characters (and
    ``/`` in a path or a ``{+var}``, whose dot-segments are resolved) percent-encoded,
    upper-case hex."""
    if reserved and "." in value:
        value = remove_dot_segments(value)
    return urllib.parse.quote(value, safe="/" if reserved else "")


def decoded(uri: str) -> str:
    """``uri`` with every percent-escape decoded: how a person (or a rule) may write it."""
    return urllib.parse.unquote(uri) if "%" in uri else uri


MAX_DECODINGS = 8  # rounds of decoding ``resolved`` follows (each one must change the text)


def resolved(uri: str) -> str | None:
    """What ``uri`` may mean to a server that decodes it (once, or again and again) and reads
    ``\\`` as ``/``: decoded and its dot-segments resolved until nothing changes, so
    ``a/..%2Fsecret``, ``a/%2e%2e/secret``, ``a\\..\\secret`` and ``a/%252e%252e/secret`` all
    come to ``secret``. None when it still changes after ``MAX_DECODINGS`` rounds."""
    current = uri
    for _ in range(MAX_DECODINGS):
        again = normalize(decoded(current).replace("\\", "/"))
        if again == current:
            return current
        current = again
    return None


_DRIVE = re.compile(r"[A-Za-z]:")


def unsafe_value(value: str, *, reserved: bool = False) -> str | None:
    """Why a template's decoded value may not reach a backend, or None when it may.

    A value is decoded from its percent-escapes, so ``notes://..%2Fsecret`` gives ``{name}``
    the value ``../secret``: a command ``cat notes/{{ name }}.md`` would read outside the
    directory the template means. Refused (as the MCP SDKs do by default): a NUL, a ``..``
    segment climbing above where the value starts (``/`` and ``\\`` both separate), and an
    absolute path (``/x``, ``\\x``, ``C:...``) unless ``reserved`` (a ``{+var}`` is "the
    rest of the URI": ``file://{+path}`` means ``/etc/hosts``). ``a/../b`` is fine."""
    if "\0" in value:
        return "it holds a NUL"
    if not reserved and (value[:1] in ("/", "\\") or _DRIVE.match(value)):
        return "it is an absolute path"
    if ".." in value:
        depth = 0
        for part in value.replace("\\", "/").split("/"):
            if part == "..":
                depth -= 1
                if depth < 0:
                    return "its '..' climbs out of where it starts"
            elif part and part != ".":
                depth += 1
    return None


_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")


def filled(template: str, name: str, value: str) -> str:
    """``template`` with the variable ``name`` given ``value`` (a ``{+name}`` keeps ``/``);
    other expressions stay as written. The URI a completion of ``name`` is about, for the
    read rules (a rule on ``tickets://*`` covers completing ``tickets://{id}``)."""
    def fill(found: re.Match[str]) -> str:
        if found.group(2).rstrip("*") != name:
            return found.group(0)
        return quote_value(value, reserved=found.group(1) in ("+", "#"))
    return _EXPRESSION.sub(fill, template)


def variables(template: str) -> set[str]:
    """The variable names of a URI template (``{a}``, ``{+path}``, ``{?q,page}``,
    ``{list*}``, ``{name:3}``): what a completion of it may be asked about."""
    names = set()
    for found in _EXPRESSION.finditer(template):
        for spec in found.group(2).split(","):
            names.add(spec.split(":", 1)[0].rstrip("*").strip())
    return names
