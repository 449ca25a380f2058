"""``${VAR}`` interpolation in string values, and which values are secret.

Forms: ``${VAR}`` (an error when VAR is unset), ``${VAR:-default}`` (default when unset or
empty; the default may itself hold ``${...}``), ``${VAR:?message}`` (fails the load with the
message and the place when unset or empty). ``$${`` writes a literal ``${``. Only values are
interpolated, never keys; a ``$`` not followed by ``{`` is left alone (``echo $HOME``).

Secrets (docs/secrets.md): a value substituted into anything under a ``headers``, ``env`` or
``auth`` key; the value of a variable whose *name* says it is secret (``GITHUB_TOKEN``,
``DB_PASSWORD``, ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``, ...), wherever it is used (a
url, an argv, a rule); the credential fields of ``auth`` (token, password, value); and the
string (or list of strings) value of any key that a server or tool lists in its
``secrets: [...]``. ``HostConfig.redact`` hides them all, in every encoding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.config.limits import LIMITS
from toolhost.config.tree import Doc, Path, format_path, mark_for
from toolhost.config.url_secrets import url_credentials
from toolhost.errors import Problem

__all__ = ["MAX_NESTING", "MIN_AUTO_SECRET", "SubstitutionBudget", "collect_declared_secrets",
           "expand", "interpolate"]

SECRET_SECTIONS = frozenset({"headers", "env", "auth", "security"})
AUTH_SECRET_FIELDS = frozenset({"token", "password", "value"})
# An interpolated env/header value shorter than this is not treated as a secret: "0" or
# "1" in an env block would otherwise be blanked out of every listing.
MIN_AUTO_SECRET = 4
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A variable with such a name holds a secret wherever its value is used.
SECRET_VAR = re.compile(
    r"TOKEN|SECRET|PASSW(OR)?D|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|"
    r"(^|_)(AUTH|PASS|PAT|PWD)(_|$)", re.IGNORECASE)


class InterpolationError(ValueError):
    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


MAX_NESTING = 32  # ${A:-${B:-...}} defaults inside defaults


class SubstitutionBudget:
    """How many characters substitutions may still add (one per document: a file of
    ``${PATH}`` repeated, or one big variable referenced thousands of times, would otherwise
    grow a file under the size limit into gigabytes)."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def spend(self, value: str) -> None:
        self.left -= len(value)
        if self.left < 0:
            raise InterpolationError(
                "the ${...} substitutions of this file add more text than the config size "
                "limit allows", "raise it with TOOLHOST_MAX_CONFIG_BYTES if this is meant")


def expand(text: str, environ: Mapping[str, str], used: list[str] | None = None,
           secret: list[str] | None = None, *, budget: SubstitutionBudget | None = None,
           depth: int = 0, spans: list[tuple[int, int]] | None = None) -> str:
    """Expand every ``${...}`` in ``text``; substituted values are appended to ``used``, and
    those of secret-named variables to ``secret`` too. ``budget`` bounds what the
    substitutions add; defaults nest at most ``MAX_NESTING`` deep. ``spans`` receives the
    [start, end) of each substituted value in the result (what the author did not write).

    Linear in the length of ``text``: every ``${``'s closing brace is found in one scan of
    each top-level reference, not again at each level of nested defaults."""
    return _expand(text, environ, used, secret, budget, depth, spans, None, 0)


def _closers(text: str, start: int) -> dict[int, int]:
    """Where the ``${`` at ``start`` closes, and every ``${`` inside it: the first ``}``
    after each where as many ``}`` as ``${`` have been seen. An unclosed one is left out."""
    out: dict[int, int] = {}
    stack: list[int] = []
    push, pop = stack.append, stack.pop
    for found in _BRACES.finditer(text, start):
        if found.group() == "}":
            out[pop()] = found.start()
            if not stack:
                break
        else:
            push(found.start())
    return out


_BRACES = re.compile(r"\$\{|\}")


def _expand(text: str, environ: Mapping[str, str], used: list[str] | None,
            secret: list[str] | None, budget: SubstitutionBudget | None, depth: int,
            spans: list[tuple[int, int]] | None, closers: dict[int, int] | None,
            base: int) -> str:
    """``expand`` of ``text``, which starts at ``base`` in the text ``closers`` indexes
    (None at the top: each reference's closers are found when it is met)."""
    if depth > MAX_NESTING:
        raise InterpolationError(f"${{...:-default}} nested more than {MAX_NESTING} deep")
    out: list[str] = []
    size = 0  # len("".join(out)), for spans
    i, n = 0, len(text)
    while i < n:
        j = text.find("$", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        size += j - i
        if text.startswith("$${", j):
            out.append("${")
            size += 2
            i = j + 3
        elif text.startswith("${", j):
            if closers is not None:
                inner = closers
            else:  # at the top: a plain ${NAME...} (the common case) needs no scan
                close = text.find("}", j + 2)
                inner = ({j: close} if close >= 0 and text.find("${", j + 2, close) < 0
                         else _closers(text, j))
            end = inner.get(base + j, -1) - base
            if end < 0:
                raise InterpolationError("unterminated '${' (missing '}')",
                                         "write '$${' for a literal '${'")
            value = _reference(text[j + 2:end], environ, used, secret, budget, depth,
                               inner, base + j + 2)
            if budget is not None:
                budget.spend(value)
            if spans is not None:
                spans.append((size, size + len(value)))
            out.append(value)
            size += len(value)
            i = end + 1
        else:
            out.append("$")
            size += 1
            i = j + 1
    return "".join(out)


def _reference(body: str, environ: Mapping[str, str], used: list[str] | None,
               secret: list[str] | None, budget: SubstitutionBudget | None, depth: int,
               closers: dict[int, int], base: int) -> str:
    found = _NAME.match(body)
    if not found:
        raise InterpolationError(f"invalid reference '${{{body}}}': expected a variable name",
                                 "e.g. ${API_TOKEN}")
    name, rest = found.group(), body[found.end():]
    value = environ.get(name)
    if rest == "":
        if value is None:
            raise InterpolationError(f"environment variable {name} is not set",
                                     f"set it, or write ${{{name}:-default}}")
    elif rest.startswith(":-"):
        if not value:
            start = found.end() + 2
            value = _expand(body[start:], environ, used, secret, budget, depth + 1, None,
                            closers, base + start)
    elif rest.startswith(":?"):
        if not value:
            raise InterpolationError(rest[2:] or f"environment variable {name} is required")
    else:
        raise InterpolationError(f"invalid reference '${{{body}}}'",
                                 "use ${VAR}, ${VAR:-default} or ${VAR:?message}")
    assert value is not None
    if used is not None:
        used.append(value)
    if secret is not None and value and SECRET_VAR.search(name) and environ.get(name):
        if not value.strip():  # as a declared secret of only whitespace (_credential)
            raise InterpolationError(
                f"environment variable {name} is a secret by its name, and its value is only "
                "whitespace: hiding it would hide every space of every message",
                "set the real value")
        secret.append(value)  # the variable's own value (a default is not a secret)
    return value


def interpolate(doc: Doc, environ: Mapping[str, str], problems: list[Problem]) -> set[str]:
    """Expand ``doc.data`` in place; return the secret values found."""
    secrets: set[str] = set()
    budget = SubstitutionBudget(LIMITS.file_bytes)
    doc.data = _visit(doc.data, (), False, (doc, environ, problems, secrets, budget))
    return secrets


_Walk = tuple[Doc, Mapping[str, str], list[Problem], set[str], SubstitutionBudget]


def _visit(value: Any, path: Path, secret: bool, walk: _Walk) -> Any:
    # a module function, not a closure: a closure that calls itself is a reference cycle,
    # which would hold the whole document until the cyclic collector's next run
    if isinstance(value, str):
        if "$" not in value:
            return value
        doc, environ, problems, secrets, budget = walk
        if budget.left < 0:  # said once already (the load fails): not again for every value
            return value
        used: list[str] = []
        named: list[str] = []
        spans: list[tuple[int, int]] = []
        try:
            result = expand(value, environ, used, named, budget=budget, spans=spans)
        except InterpolationError as exc:
            mark = mark_for(doc.marks, path, doc.file)
            problems.append(Problem(str(exc), mark.file, mark.line, mark.column,
                                    format_path(path), exc.hint))
            return value
        if secret:
            secrets.update(v for v in used if len(v) >= MIN_AUTO_SECRET)
        secrets.update(v for v in named if v)  # named secret: hidden whatever its length
        if spans:
            doc.substituted[path] = (value, tuple(spans))
        return result
    # a value without a ``$`` nor anything inside stays as it is: not visited (a list of
    # 490,000 numbers or plain words cost a call and a path each)
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is str and "${" in key and _REFERENCE.search(key):
                _key_problem((*path, key), walk)
            if isinstance(item, (dict, list)) or (isinstance(item, str) and "$" in item):
                value[key] = _visit(item, (*path, key), secret or key in SECRET_SECTIONS,
                                    walk)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)) or (isinstance(item, str) and "$" in item):
                value[index] = _visit(item, (*path, index), secret, walk)
    return value


_REFERENCE = re.compile(r"(?<!\$)\$\{")


def _key_problem(path: Path, walk: _Walk) -> None:
    """A ``${...}`` written in a key: keys are never expanded, so ``env: {"${NAME}": x}``
    would silently set a variable named ``${NAME}``."""
    from toolhost.excerpt import cut

    doc, problems = walk[0], walk[2]
    mark = mark_for(doc.marks, path, doc.file)
    problems.append(Problem(
        f"{cut(repr(path[-1]), 80)} is a key, and ${{...}} is expanded in values only: "
        "this key would be the text as written", mark.file, mark.line, mark.column,
        format_path(path), "write the name itself (a value may use ${...}; $${ is a "
        "literal ${ in a value)"))


def collect_declared_secrets(data: Any, problems: list[Problem] | None = None,
                             doc: Doc | None = None) -> set[str]:
    """Strings under keys named in a ``secrets:`` list (numbers as the text a program sees:
    ``PIN: 98765432`` is the secret ``98765432``), ``auth`` credentials, OpenAPI ``security``
    values and the password of any URL's userinfo. A value under such a key that could not be
    hidden (a template, whose rendering is not known at load; ``true``/``false``) is a problem
    added to ``problems``, located in ``doc``."""
    found: set[str] = set()
    report = _Report(problems, doc)
    servers = data.get("servers") if isinstance(data, dict) else None
    for name, server in (servers or {}).items() if isinstance(servers, dict) else ():
        if not isinstance(server, dict):
            continue
        keys = _names(server.get("secrets"))
        _collect(server, keys, found, ("servers", name), report)
        auth = server.get("auth")
        if isinstance(auth, dict):
            for key, value in auth.items():
                if key in AUTH_SECRET_FIELDS and isinstance(value, str) and value:
                    _credential(value, found, ("servers", name, "auth", key), report)
        openapi = server.get("openapi")
        security = openapi.get("security") if isinstance(openapi, dict) else None
        if isinstance(security, dict):  # credentials for an OpenAPI document's schemes
            for key, value in security.items():
                if isinstance(value, str) and value:
                    _credential(value, found, ("servers", name, "openapi", "security", key),
                                report)
        tools = server.get("tools")
        for tool_name, tool in tools.items() if isinstance(tools, dict) else ():
            if isinstance(tool, dict) and tool.get("secrets"):
                _collect(tool, _names(tool.get("secrets")), found,
                         ("servers", name, "tools", tool_name), report)
    found |= url_credentials(data, MIN_AUTO_SECRET)  # https://user:PASSWORD@host anywhere
    return found


class _Report:
    """Where a secret value that cannot be hidden is reported (nowhere without a list)."""

    def __init__(self, problems: list[Problem] | None, doc: Doc | None) -> None:
        self.problems, self.doc = problems, doc

    def written(self, path: Path, value: str) -> str:
        """``value`` as the config wrote it, before ``${VAR}`` interpolation."""
        substituted = self.doc.substituted.get(path) if self.doc is not None else None
        return substituted[0] if substituted else value

    def __call__(self, path: Path, message: str, hint: str) -> None:
        if self.problems is None:
            return
        doc = self.doc
        mark = mark_for(doc.marks, path, doc.file) if doc is not None else None
        self.problems.append(Problem(message, mark.file if mark else "",
                                     mark.line if mark else 0, mark.column if mark else 0,
                                     format_path(path), hint))


def _names(value: Any) -> frozenset[str]:
    return frozenset(v for v in value if isinstance(v, str)) if isinstance(value, list) \
        else frozenset()


def _collect(node: Any, keys: frozenset[str], found: set[str], path: Path,
             report: _Report) -> None:
    if not keys:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys:
                _strings(value, found, (*path, key), report)
            elif key != "secrets":
                _collect(value, keys, found, (*path, key), report)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _collect(item, keys, found, (*path, index), report)


_TEMPLATE_MARKS = ("{{", "{%", "{#")


def _strings(value: Any, found: set[str], path: Path, report: _Report) -> None:
    """A secret key's value: a string or number, or a list of them (a mapping is not a
    value). A number is the text a program sees (``str``, as env values are written)."""
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        where = (*path, index) if isinstance(value, list) else path
        if isinstance(item, bool):
            report(where, f"'{path[-1]}' is listed under secrets, but its value is {item!r}, "
                   "which cannot be a secret", "quote it if it is text, or take it out of "
                   "secrets:")
        elif isinstance(item, (int, float)):
            found.add(str(item))
        elif isinstance(item, str) and item:
            if not item.strip():
                _credential(item, found, where, report)
                continue
            written = report.written(where, item)  # a ${VAR}'s value is no template
            if any(mark in written for mark in _TEMPLATE_MARKS):
                report(where, f"'{path[-1]}' is listed under secrets, but its value is a "
                       "template: what it renders depends on each call, so it could not be "
                       "hidden", "keep the secret in a literal value or a ${VAR} of its own "
                       "(env:), and the template out of secrets:")
                continue
            found.add(item)


def _credential(value: str, found: set[str], path: Path, report: _Report) -> None:
    """A declared secret: one of only spaces, tabs or line breaks is a located problem, not a
    secret (hiding it hid every space of every message: ``a***b``; and a header drops it)."""
    if value.strip():
        found.add(value)
        return
    report(path, "this secret is only whitespace: hiding it would hide every space of every "
           "message (and an HTTP header sends it as an empty value)", "set the real value")
