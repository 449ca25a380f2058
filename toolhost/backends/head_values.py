"""Values that write a line break into an HTTP client's request head.

curl writes ``-H``, ``-A``, ``-e``, ``-b``, ``-X``, ``--request-target``,
``--proxy-header``, ``--oauth2-bearer`` ... into the request as given: ``[curl, -H, "X-Trace:
{{ id }}", URL]`` with ``id: "1\\r\\n\\r\\nGET /admin HTTP/1.1\\r\\nHost: internal"`` sent a
second request the config never wrote on the same connection (and any header: a ``Host``,
a ``Cookie``); ``wget --referer`` does the same. :func:`head_break` finds a value with a CR
or LF in such an argument after the argv is rendered (through wrappers); ``argv`` refuses
the call. A body (``-d``, ``--data*``, ``--json``, ``-F``, ``--post-data``) is sent with
its length, so a line break there is data and passes; so does any option of another
program (a commit message's lines).

The same for ``php -d KEY=VALUE``: the PHP CLI appends ``KEY=VALUE`` and a newline to the
INI text it parses, so ``-d "memory_limit={{ m }}"`` with ``1\nauto_prepend_file=/x.php``
sets a second directive that runs a file before every script.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.file_values import curl_option

__all__ = ["head_break"]

# options whose argument is a body or a local format: a line break there is data
_CURL_BODY = frozenset({"-d", "--data", "--data-raw", "--data-binary", "--data-ascii",
                        "--data-urlencode", "--json", "-F", "--form", "--form-string",
                        "-w", "--write-out"})
_WGET_BODY = frozenset({"--post-data", "--body-data"})
_CLIENTS = frozenset({"curl", "wget"})
_PHP = frozenset({"php", "php-cgi", "php-cli"})


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _body(option: str, bodies: frozenset[str]) -> bool:
    """Whether ``option`` (as written: curl and getopt_long take any unambiguous start of a
    long option, ``--data-r``) is a body option. A start of a body option is that option,
    or ambiguous (an error for the program, which then sends nothing)."""
    if option in bodies:
        return True
    return option.startswith("--") and len(option) > 3 and option != "--url" \
        and any(body.startswith(option) for body in bodies if body.startswith("--"))


def head_break(out: Sequence[str], valued: Sequence[tuple[int, int]]) -> str | None:
    """The argument in which a value writes a CR or LF that curl or wget would send in the
    request head, or None. ``valued``: (index in ``out``, length of the literal text before
    the value)."""
    broken = {k: start for k, start in valued
              if "\r" in out[k][start:] or "\n" in out[k][start:]}
    if not broken or not any(_name(text) in _CLIENTS or _name(text).startswith("php")
                             for text in out):
        return None  # the common case, without building tokens
    from toolhost.backends.code_args import Token, run_programs

    tokens = [Token("", text, k in broken) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        name = _name(out[at])
        if name in _PHP or (name.startswith("php") and name[3:].replace(".", "").isdigit()):
            found = _php(out, at, broken)
            if found is not None:
                return found
        if name in _CLIENTS:
            found = _curl(out, at, broken) if name == "curl" else _wget(out, at, broken)
            if found is not None:
                return found
    return None


def _curl(out: Sequence[str], at: int, broken: dict[int, int]) -> str | None:
    """A broken argument that is no body option's argument (fail closed: an operand, the
    argument of an option this module does not know). A long option that is no body option
    is read as a flag: its argument is then read as a word of its own, and refused."""
    body: set[int] = set()
    k = at + 1
    while k < len(out):
        text = out[k]
        found = curl_option(out, k) if text.startswith("-") else None
        literal_end = found[2] if found is not None and found[3] == k else len(text)
        if found is None or broken.get(k, literal_end) < literal_end:
            k += 1  # no option, or one a value wrote (`-{{ v }}`): not the config's body
            continue
        option, _, _, index = found
        if text.startswith("--") and not _body(option, _CURL_BODY):
            k += 1
            continue
        if _body(option, _CURL_BODY):
            body.add(index)
        k = index + 1
    return next((out[k] for k in sorted(broken) if k > at and k not in body), None)


def _wget(out: Sequence[str], at: int, broken: dict[int, int]) -> str | None:
    """As ``_curl``: wget's bodies are ``--post-data=X`` / ``--post-data X``."""
    body: set[int] = set()
    for k in range(at + 1, len(out)):
        option, eq, _ = out[k].partition("=")
        if _body(option, _WGET_BODY):
            body.add(k if eq else k + 1)
    return next((out[k] for k in sorted(broken) if k > at and k not in body), None)


def _php(out: Sequence[str], at: int, broken: dict[int, int]) -> str | None:
    """A broken ``-d`` argument of php (``-d K=V`` or ``-dK=V``), up to its script."""
    for k in range(at + 1, len(out)):
        text = out[k]
        if k in broken and (out[k - 1] == "-d" or text.startswith("-d")):
            return text
        if not text.startswith("-") and out[k - 1] not in ("-d", "-c", "-z", "-f"):
            break  # the script: what follows is its own
    return None
