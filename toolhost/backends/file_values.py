"""Values that make an HTTP client send a file the config never named, or fetch one.

curl reads ``@FILE`` in ``-d``/``--data*``/``--json``/``-H``/``-w``, ``name@FILE`` in
``--data-urlencode``/``--url-query``/``--variable``, ``name=@FILE`` / ``name=<FILE`` in
``-F``, and a whole ``-b``/``--cookie`` argument with no ``=`` (a cookie file),
also in a bundle (``-sd @f``, ``-sb{{ v }}``);
HTTPie and xh read ``name@FILE``, ``name=@FILE``, ``name:=@FILE`` and ``Header:@FILE``
items. ``[curl, -F, "doc={{ text }}", URL]`` with ``text: "@/home/me/.ssh/id_rsa"`` uploads
the key: the value starts no argument, so the dash check never sees its ``@``.
:func:`file_read` finds such an argument after the argv is rendered (through wrappers);
``argv`` refuses the call. An ``@`` the config writes itself (``"doc=@{{ name }}"``) is the
config's choice: the value then names the file, as any path param does. A URL whose scheme
a value writes must be http or https (``curl "{{ url }}"`` with ``file:///etc/shadow``
read the file; the config can pass ``--proto`` to say which it allows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["CLIENTS", "curl_option", "file_read", "url_scheme"]

_CURL_AT = frozenset({"-d", "--data", "--data-binary", "--data-ascii", "--json", "-H",
                      "--header", "-w", "--write-out", "--proxy-header"})
_CURL_NAME_AT = frozenset({"--data-urlencode", "--url-query", "--variable"})
_CURL_COOKIE = frozenset({"-b", "--cookie"})
# curl's short options that take an argument (in a bundle, the first takes the rest)
_CURL_ARG_LETTERS = frozenset("AbcCdDeEFHKmoPQrTtuUwxXyYz")
_CURL_FORM = frozenset({"-F", "--form"})
_HTTPIE = frozenset({"http", "https", "xh", "xhs", "httpie"})
# curl options whose next argument is data or a name, never a URL
_CURL_DATA_ARGS = _CURL_AT | _CURL_NAME_AT | _CURL_FORM | frozenset({
    "-A", "--user-agent", "-e", "--referer", "-u", "--user", "-X", "--request", "-o",
    "--output", "-b", "--cookie", "-c", "--cookie-jar", "-m", "--max-time", "-r", "--range",
    "--connect-timeout", "-T", "--upload-file", "--form-string", "--data-raw"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
CLIENTS = frozenset({"curl"}) | _HTTPIE


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def file_read(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The argument in which a value makes the client read a file, or None. ``valued``:
    (index in ``out``, length of the literal text before the value)."""
    if not any(_name(text) in CLIENTS for text in out):
        return None  # the common case, without building tokens
    from toolhost.backends.code_args import Token, run_programs

    starts = dict(valued)
    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        name = _name(out[at])
        if name not in CLIENTS:
            continue
        found = _curl(out, at, starts) if name == "curl" else _httpie(out, at, starts)
        if found is not None:
            return found
    return None


def url_scheme(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The URL a value gave a scheme other than http(s) for curl to use, or None."""
    if not any(_name(text) == "curl" for text in out):
        return None
    from toolhost.backends.code_args import Token, run_programs

    starts = dict(valued)
    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        found = _curl_scheme(out, at, starts) if _name(out[at]) == "curl" else None
        if found is not None:
            return found
    return None


def _curl(out: Sequence[str], at: int, starts: dict[int, int]) -> str | None:
    return _curl_files(out, at, starts)


def _curl_scheme(out: Sequence[str], at: int, starts: dict[int, int]) -> str | None:
    """A URL whose scheme a value chose, other than http(s): ``file:///etc/passwd`` reads a
    local file, ``scp://``/``sftp://`` connect with the user's ssh keys, ``gopher://`` and
    ``dict://`` write raw bytes to any port. ``--proto`` in the argv is the config's rule."""
    if any(text.startswith("--proto") for text in out[at + 1:]):
        return None
    for k in range(at + 1, len(out)):
        if k not in starts or (out[k - 1] in _CURL_DATA_ARGS and k - 1 > at):
            continue
        text = out[k]
        scheme, sep, _ = text.partition("://")
        if sep and _SCHEME.fullmatch(scheme) and starts[k] <= len(scheme) + 2 \
                and scheme.lower() not in ("http", "https"):
            return text
    return None


def _curl_files(out: Sequence[str], at: int, starts: dict[int, int]) -> str | None:
    k = at + 1
    while k < len(out):
        found = curl_option(out, k)
        if found is None:
            k += 1
            continue
        option, arg, offset, index = found
        k = index + 1
        if index not in starts:
            continue  # the config wrote the whole argument
        sets = next((s for s in (_CURL_AT, _CURL_NAME_AT, _CURL_FORM, _CURL_COOKIE)
                     if option in s), None)
        if sets is None:
            continue
        begin = max(0, starts[index] - offset)  # where the value starts in arg
        reads = _reads(arg, sets)
        if reads is not None and begin <= reads:
            return arg
    return None


def curl_option(out: Sequence[str], k: int) -> tuple[str, str, int, int] | None:
    """(option, its argument, where the argument starts in ``out[index]``, index) for the
    option at ``out[k]``: ``--data X``, ``-d X``, ``-dX`` and bundles (``-sd X``, ``-sbX``:
    getopt's reading, the first letter that takes an argument takes the rest or the next
    word); None when ``out[k]`` is no option that takes one."""
    text = out[k]
    if text.startswith("--"):
        return (_curl_long(text), out[k + 1], 0, k + 1) if k + 1 < len(out) else None
    if not text.startswith("-"):
        return None
    for p in range(1, len(text)):
        letter = text[p]
        if letter not in _CURL_ARG_LETTERS:
            continue
        if p + 1 < len(text):
            return f"-{letter}", text[p + 1:], p + 1, k
        return (f"-{letter}", out[k + 1], 0, k + 1) if k + 1 < len(out) else None
    return None


# curl's own long options that are the start of a longer one above (an exact name wins)
_CURL_EXACT = frozenset({"--url", "--proxy", "--head"}) | _CURL_DATA_ARGS
_CURL_READS = sorted(_CURL_AT | _CURL_NAME_AT | _CURL_FORM | _CURL_COOKIE)


def _curl_long(text: str) -> str:
    """The option a long option names: curl takes any unambiguous start of one
    (``--data-b @FILE`` is ``--data-binary``). Fail closed: a start two of them
    share (an error for curl) counts as the first."""
    if text in _CURL_EXACT or len(text) < 3:
        return text
    return next((option for option in _CURL_READS
                 if option.startswith("--") and option.startswith(text)), text)


def _reads(arg: str, sets: frozenset[str]) -> int | None:
    """The position of the character that makes curl read a file, or None."""
    if sets is _CURL_COOKIE:  # -b NAME=VALUE is data; with no '=' it is a file to read
        return 0 if arg and "=" not in arg else None
    if sets is _CURL_AT:
        return 0 if arg.startswith("@") else None
    if sets is _CURL_NAME_AT:
        at, eq = arg.find("@"), arg.find("=")
        return at if at >= 0 and (eq < 0 or at < eq) else None
    eq = arg.find("=")  # -F name=@file, name=<file
    return eq + 1 if eq >= 0 and arg[eq + 1:eq + 2] in ("@", "<") else None


def _httpie(out: Sequence[str], at: int, starts: dict[int, int]) -> str | None:
    """HTTPie / xh request items: the first separator decides; those with '@' read a file."""
    for k in range(at + 1, len(out)):
        text = out[k]
        if k not in starts or text.startswith("-"):
            continue
        first = min((p for p in (text.find(c) for c in ":=@") if p >= 0), default=-1)
        if first < 0:
            continue
        rest = text[first:]
        for sep in (":=@", "=@", ":@", "@"):
            if rest.startswith(sep) and starts[k] <= first + len(sep) - 1:
                return text
    return None
