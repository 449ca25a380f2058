"""The one jinja2 sandbox that command and http templates render in.

Templates are written by the config author; the values come from the model. So templates
render in jinja2's ``ImmutableSandboxedEnvironment`` with ``StrictUndefined`` and without
autoescaping: a value is substituted as data and never parsed as a template itself
(``{{ 7*7 }}`` inside an argument stays those seven characters).

How a value renders (the ``finalize`` hook): ``None`` -> empty string, booleans -> ``true`` /
``false``, numbers -> plain decimal (``number_text``: never an exponent, ``inf`` or ``nan``),
lists and mappings -> compact JSON, everything else -> ``str``. URL templates
additionally percent-encode every substituted value (``quote(value, safe="")``), so an argument
can never add a ``/``, ``?``, ``#`` or ``@`` to a URL.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from jinja2 import TemplateError
    from jinja2.environment import Template
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    ENV: ImmutableSandboxedEnvironment
    URL_ENV: ImmutableSandboxedEnvironment

__all__ = [
    "GLOBALS",
    "MAX_TEMPLATE_TAGS",
    "TemplateError",
    "UnrenderableValue",
    "compile_template",
    "compile_url_template",
    "guarded",
    "misspelt_placeholder",
    "number_text",
    "placeholder_schema",
    "placeholders",
    "render_value",
    "single_braced",
    "single_variable",
    "template_budget",
    "unrenderable_message",
    "whole_variable",
]


class UnrenderableValue(ValueError):
    """A value with no text form an argument, URL or header could carry: a float that is
    infinite or NaN, or an integer too long to print. The message says what it is
    (``-inf, which is not a finite number ...``); ``unrenderable_message`` names the param."""


def number_text(value: float) -> str:
    """A JSON number as plain decimal text, matching ``-?[0-9]+(\\.[0-9]+)?``: an integral
    value without a fraction (``2.0`` and ``1e16`` are ``2`` and ``10000000000000000``), any
    other the shortest decimal that reads back as the same float (``1e-05`` is ``0.00001``).
    Never an exponent, ``inf`` or ``nan``: ``str(-1e16)`` is ``-1e+16``, which getopt reads as
    the options ``-1 -e +16``. Raises ``UnrenderableValue`` for infinity and NaN."""
    if isinstance(value, int):
        try:
            return int.__repr__(value)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            raise UnrenderableValue("an integer too long to print") from None
    if not math.isfinite(value):
        raise UnrenderableValue(f"{value!r}, which is not a finite number (numbers are "
                                "passed in plain decimal notation, and it has none)")
    if value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))  # also -0.0 -> "0"
    text = float.__repr__(value)
    if "e" in text or "E" in text:
        from decimal import Decimal

        text = format(Decimal(text), "f")
    return text[:-2] if text.endswith(".0") else text


def render_value(value: Any) -> str:
    """How one substituted value becomes text."""
    if type(value) is str:  # the usual case first: this runs for every printed value
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, (list, tuple, dict)):
        return _json(value, separators=(",", ":"))
    return str(value)


def _json(value: Any, **options: Any) -> str:
    try:  # NaN and Infinity are not JSON: json.dumps would write them anyway
        return json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    except ValueError as exc:
        if isinstance(exc, UnrenderableValue):
            raise
        raise UnrenderableValue(f"a value JSON cannot carry ({exc})") from None


def unrenderable_message(exc: UnrenderableValue, arguments: Mapping[str, Any]) -> str:
    """``exc`` with the param whose value it is about: ``the value of 'n' is -inf, ...``
    (``holds`` when the number is inside a list or object)."""
    for name, value in arguments.items():
        stack, inside = [value], False
        while stack:  # a loop, not recursion: arguments may nest deeply
            node = stack.pop()
            if isinstance(node, (list, tuple, dict)):
                stack.extend(node.values() if isinstance(node, dict) else node)
                inside = True
                continue
            if isinstance(node, (int, float)) and not isinstance(node, bool):
                try:
                    number_text(node)
                except UnrenderableValue as found:
                    return f"the value of '{name}' {'holds' if inside else 'is'} {found}"
    return f"a value is {exc}"


def _url_value(value: Any) -> str:
    return quote(render_value(value), safe="")


def _tojson(value: Any) -> str:
    return _json(value)


# what one operator of a template may build: `{{ 'a' * 10**9 }}` in a config was folded into a
# constant while the template compiled (validate never ended); now it is an error at the call
_MAX_BUILT = 10_000_000  # characters or items
_MAX_BITS = 100_000  # of an integer


def _binop(op: str, left: Any, right: Any) -> Any:
    import operator

    ints = [x for x in (left, right) if type(x) is int]
    if any(x.bit_length() > _MAX_BITS for x in ints):
        raise OverflowError("value too large")
    if op == "**":
        if isinstance(right, int) and (abs(right) > 1000 or (
                isinstance(left, int) and abs(left).bit_length() * abs(right) > _MAX_BITS)):
            raise OverflowError("exponent too large")
        return operator.pow(left, right)
    if op == "*":
        size = max((len(x) for x in (left, right) if isinstance(x, (str, bytes, list, tuple))),
                   default=0)
        if size and max(ints, default=1) * size > _MAX_BUILT:
            raise OverflowError("value too large")
        if len(ints) == 2 and sum(x.bit_length() for x in ints) > _MAX_BITS:
            raise OverflowError("value too large")
        return operator.mul(left, right)
    if op == "%" and isinstance(left, (str, bytes)):
        raise OverflowError("string formatting with % is not allowed in a template")
    return {"%": operator.mod, "//": operator.floordiv, "/": operator.truediv}[op](left, right)


def _make_env(finalize: Any) -> ImmutableSandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from toolhost.backends import template_bounds as bounds

    class _Bounded(ImmutableSandboxedEnvironment):
        # intercepted, these are never folded into constants when a template compiles
        intercepted_binops = frozenset({"*", "**", "%", "//", "/"})
        code_generator_class = bounds.code_generator()
        concat = staticmethod(bounds.bounded_concat)  # renders, macros, blocks
        join_values = staticmethod(bounds.check_join)  # `~`

        def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
            return _binop(op, left, right)

        def call(__self, __context: Any, __obj: Any,
                 *args: Any, **kwargs: Any) -> Any:
            bounds.check_call(__obj, args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

    env = _Bounded(undefined=StrictUndefined, autoescape=False,
                   keep_trailing_newline=True, finalize=finalize)
    bounds.bounded_filters(env.filters)
    env.globals["lipsum"] = bounds.bounded_lipsum(env.globals["lipsum"])  # type: ignore[arg-type]
    env.filters["json"] = _tojson
    env.filters["tojson"] = _tojson  # jinja's own HTML-escapes; these are not HTML
    return env


# ENV, URL_ENV (the two sandboxes) and TemplateError load with jinja2 on first use (~30 ms of
# a fresh process): a config whose templates are all simple validates and serves without it.
_ENVS: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    if name in ("ENV", "URL_ENV"):
        if name not in _ENVS:
            _ENVS[name] = _make_env(render_value if name == "ENV" else _url_value)
        return _ENVS[name]
    if name == "TemplateError":
        from jinja2 import TemplateError

        return TemplateError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _env() -> ImmutableSandboxedEnvironment:
    env: ImmutableSandboxedEnvironment = __getattr__("ENV")
    return env


# tags ({{ }} and {% %}) of one template: jinja2 compiles each into Python code, about 10 KB
# of memory apiece while it does (100,000 tags: 1 GB and 7 s), so past this a template is a
# located problem; so is one nested deeper than the parser's recursion goes
MAX_TEMPLATE_TAGS = 2000
# the tags of every template one config load parses and compiles are bounded too
# (LIMITS.template_tags, TOOLHOST_MAX_TEMPLATE_TAGS, about 5 s of jinja2): 100 templates of
# 1,900 tags each took 17 s; a template met again is a cache hit and costs nothing
_BUDGET: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "toolhost_template_budget", default=None)


@contextlib.contextmanager
def template_budget() -> Iterator[None]:
    """Inside this block, the templates parsed hold at most ``LIMITS.template_tags`` tags
    in all (a template past it is refused as ``guarded`` refuses one too big)."""
    from toolhost.config.limits import LIMITS

    tags = LIMITS.template_tags
    token = _BUDGET.set([tags, tags])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def guarded(env: ImmutableSandboxedEnvironment, source: str, *, parse: bool = False) -> Any:
    """``env.from_string(source)`` (``env.parse`` with ``parse``), refusing a template of more
    than ``MAX_TEMPLATE_TAGS`` tags or nested too deeply with a ``TemplateSyntaxError``
    (what every caller reports as "does not parse", located), not memory or a crash."""
    tags = source.count("{{") + source.count("{%")
    if tags > MAX_TEMPLATE_TAGS:
        raise _refused(f"a template of {tags:,} tags ({{{{ }}}} and {{% %}}), more than "
                       f"{MAX_TEMPLATE_TAGS:,}: split it, or use a loop")
    budget = _BUDGET.get()
    if budget is not None:
        budget[0] -= tags
        if budget[0] < 0:
            raise _refused(f"the templates of this config hold more than {budget[1]:,} "
                           "tags ({{ }} and {% %}) in all, and this one passes that: share "
                           "templates, use loops, or raise TOOLHOST_MAX_TEMPLATE_TAGS")
    try:
        return env.parse(source) if parse else env.from_string(source)
    except RecursionError:
        raise _refused("nested too deeply to be parsed (blocks inside blocks, or brackets "
                       "inside brackets): flatten it") from None


def _refused(message: str) -> Exception:
    from jinja2 import TemplateSyntaxError

    exc = TemplateSyntaxError(message, 1)
    exc.translated = True  # str() is the message alone, as jinja2's own errors show it
    return exc


# The sandbox's globals (jinja2's default namespace), which are never placeholders;
# tests/backends/test_templating_simple.py holds this to ENV.globals.
GLOBALS = frozenset({"range", "dict", "lipsum", "cycler", "joiner", "namespace"})

# `{name}` (single braces) in URLs is shorthand for `{{ name }}`.
# (text: compiled at its first use, kept in re's cache; not at every start)
_BRACE = r"(?<!\{)\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}(?!\})"
_SINGLE_VAR = re.compile(r"^\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}$")


# Templates are parsed once per distinct source: the tools of a big config repeat the same
# argv elements, and compiling one costs about a millisecond. A Template renders without
# side effects, so tools can share it.
class LiteralTemplate:
    """Text with no template syntax: renders as itself, with no parse or compile (most argv
    elements of a big config are literals, and compiling each costs about a millisecond)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def render(self, *args: Any, **kwargs: Any) -> str:
        return self.text


class LazyTemplate:
    """A simple template (``simple_variable``): its parse is known without jinja2, which
    compiles it at the first render, so loading needs no jinja2."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: Template | None = None

    def render(self, *args: Any, **kwargs: Any) -> str:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = _env().from_string(self.source)
        return compiled.render(*args, **kwargs)


if TYPE_CHECKING:
    AnyTemplate = Template | LiteralTemplate | LazyTemplate

# `prefix{{ name }}suffix`, the shape of most templated argv elements: literal text without
# braces or \r around one plain variable. Its parse is certain (one Output node: the text,
# a Name loaded, the text), so it is analysed here and compiled only when rendered.
_SIMPLE = re.compile(r"([^{}\r]*)\{\{[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\}\}([^{}\r]*)")
# names the jinja2 parser reads as constants or operators, not as a variable
_NOT_NAMES = frozenset({"true", "false", "none", "True", "False", "None", "not", "and", "or",
                        "in", "is", "if", "else", "elif", "for", "recursive", "with",
                        "without", "context", "import", "from", "as", "set", "block", "endif",
                        "endfor", "endblock", "macro", "call", "filter", "raw", "include",
                        "extends", "pluck", "self", "loop", "super", "caller", "varargs",
                        "kwargs"})


def simple_variable(source: str) -> tuple[str, str, str] | None:
    """(literal prefix, name, literal suffix) when ``source`` is one plain ``{{ name }}`` in
    literal text; None otherwise (jinja2 parses it)."""
    found = _SIMPLE.fullmatch(source)
    if found is None or found[2] in _NOT_NAMES or found[2] in GLOBALS:
        return None
    return found[1], found[2], found[3]


def is_literal(source: str) -> bool:
    """No ``{{``, ``{%`` or ``{#``, and no ``\r`` (which jinja2 would turn into ``\n``)."""
    if "{" not in source:  # most literals: one scan, no generator
        return "\r" not in source
    return not any(mark in source for mark in ("{{", "{%", "{#", "\r"))


@lru_cache(maxsize=8192)
def compile_template(source: str) -> AnyTemplate:
    """Parse ``source`` once; raises ``jinja2.TemplateSyntaxError`` on bad syntax."""
    if is_literal(source):
        return LiteralTemplate(source)
    if simple_variable(source) is not None:
        return LazyTemplate(source)
    return guarded(_env(), source)  # type: ignore[no-any-return]


def url_source(source: str) -> str:
    """Rewrite ``{name}`` placeholders to jinja2's ``{{ name }}``."""
    return re.sub(_BRACE, lambda m: "{{ " + m.group(1) + " }}", source)


@lru_cache(maxsize=8192)
def compile_url_template(source: str) -> Template:
    """A URL template: ``{name}`` and ``{{ name }}`` both substitute percent-encoded values."""
    env: ImmutableSandboxedEnvironment = __getattr__("URL_ENV")
    return guarded(env, url_source(source))  # type: ignore[no-any-return]


def placeholders(sources: Iterable[str], *, url: bool = False) -> set[str]:
    """Names the templates read that they do not define themselves."""
    names: set[str] = set()
    for source in sources:
        names |= _placeholders(source, url)
    return names


@lru_cache(maxsize=8192)
def _placeholders(source: str, url: bool) -> frozenset[str]:
    text = url_source(source) if url else source
    if is_literal(text):
        return frozenset()
    simple = simple_variable(text)
    if simple is not None:
        return frozenset({simple[1]})
    from jinja2 import meta

    env: ImmutableSandboxedEnvironment = __getattr__("URL_ENV" if url else "ENV")
    return frozenset(meta.find_undeclared_variables(guarded(env, text, parse=True)))


def placeholder_schema(names: Iterable[str], declared: Iterable[str]) -> dict[str, Any]:
    """The inputSchema a templated tool generates: each placeholder in ``names`` that is not
    a ``declared`` param (nor a sandbox global such as ``range``) is a required string."""
    skip = set(declared) | GLOBALS
    generated = sorted(n for n in set(names) if n not in skip)
    return {"type": "object", "properties": {n: {"type": "string"} for n in generated},
            "required": generated, "additionalProperties": False}


def misspelt_placeholder(names: Iterable[str], declared: Iterable[str]) -> str | None:
    """A message when a placeholder looks like a typo of a declared param that no template
    uses (``{{ texxt }}`` with ``params: {text: ...}``), which would otherwise silently become
    a second, required param; None when there is none."""
    used, declared = set(names), list(declared)
    unused = [d for d in declared if d not in used]
    strangers = sorted(used - set(declared) - GLOBALS)
    if not (unused and strangers):  # nothing to compare: difflib (~1 ms) is not imported
        return None
    from toolhost.typos import close_matches

    for name in strangers:
        close = close_matches(name, unused, n=1)
        if close:
            return (f"placeholder '{name}' is not a declared param; did you mean "
                    f"'{close[0]}'? (declared: {', '.join(declared)})")
    return None


def single_braced(sources: Iterable[str], names: Iterable[str],
                  declared: Iterable[str]) -> str | None:
    """A message when a declared param no template uses is written in single braces
    (``"hi {name}"``, as in Python's format or a shell's): that is literal text, so the
    param the model fills in is dropped; None when there is none."""
    used = set(names)
    unused = [d for d in declared if d not in used]
    for source in sources if unused else ():
        for name in unused:
            if "{" + name + "}" in source:
                return (f"'{{{name}}}' is literal text, and the param '{name}' is used by no "
                        f"template: a placeholder is written {{{{ {name} }}}}")
    return None


def single_variable(source: str) -> str | None:
    """The name, when ``source`` is one ``{{ name }}`` with at most whitespace around it
    (an http JSON body's typed reference)."""
    match = _SINGLE_VAR.match(source.strip())
    return match.group(1) if match else None


def whole_variable(source: str) -> str | None:
    """The name, when ``source`` is exactly ``{{ name }}``, nothing before or after it, not
    even a space: the only argv element a list value expands into one argument per item
    (``" {{ files }}"`` is a template with a literal space, so a list renders as one JSON
    argument after that space)."""
    match = _SINGLE_VAR.fullmatch(source)  # not .match: `$` also matches before a "\n"
    return match.group(1) if match else None


def template_strings(value: Any) -> list[str]:
    """Every string inside a nested config value (templates hide in lists and mappings)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in template_strings(k) + template_strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in template_strings(v)]
    return []
