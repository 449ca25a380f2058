"""``expr``: a jinja2 expression over the arguments, in the immutable sandbox.

The expression sees ``args`` (the tool input) and ``tool`` (the tool name); undefined names and
missing keys are errors, not empty values. It is compiled once when the policy is built. An
error while deciding is raised as ExprError, which the policy turns into a deny (fail closed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.permissions.expr.limits import finish, start

__all__ = ["CompiledExpr", "ExprError", "compile_expr"]

_MAX_SOURCE = 10_000  # characters of one expression


class ExprError(Exception):
    """An expression failed while a call was being decided."""


def _environment() -> Any:
    from jinja2 import StrictUndefined, Undefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from toolhost.permissions.expr.limits import (
        FILTERS,
        allowed_call,
        bounded_binop,
        bounded_filter,
        tick,
        timed_test,
    )

    class _Env(ImmutableSandboxedEnvironment):
        # Refuse to build huge values ("a" * 10**9, 10 ** 10**9, "%0999999999d" % 1) or to
        # divide huge integers while deciding; intercepted, these are never folded into
        # constants at compile time.
        intercepted_binops = frozenset({"*", "**", "%", "//", "/"})

        def getitem(self, obj: Any, argument: Any) -> Any:
            tick()
            return super().getitem(obj, argument)

        def getattr(self, obj: Any, attribute: str) -> Any:
            tick()
            # `args.NAME` is the argument NAME, looked up as data: the sandbox tries the
            # attribute first, so `args.keys` was the dict's method, never the argument
            # `keys`, and a rule on it silently never matched (and the lookup was slow).
            if type(obj) is _Args or type(obj) is dict:
                try:
                    return obj[attribute]
                except KeyError:
                    pass
                if attribute in _DICT_NAMES:  # no such argument: a method, for calls only
                    value = super().getattr(obj, attribute)
                    return value if isinstance(value, Undefined) else _Method(value, attribute)
            return super().getattr(obj, attribute)

        def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
            return bounded_binop(op, left, right)  # OverflowError, TimeoutError: a deny

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            if not allowed_call(__obj, args):  # only the methods exprlimits allows
                raise ExprError(f"expr may not call {getattr(__obj, '__name__', '')!r}")
            return super().call(__context, __obj, *args, **kwargs)

    env = _Env(undefined=StrictUndefined)
    env.globals.clear()  # only args and tool: no range, lipsum, cycler, namespace, dict
    env.filters = {name: bounded_filter(name, f) for name, f in env.filters.items()
                   if name in FILTERS}
    env.tests = {name: timed_test(f) for name, f in env.tests.items()}
    return env


_ENV: Any = None


class _Args(dict):  # type: ignore[type-arg]
    """The arguments as an expression sees them (a copy, so the sandbox can tell them apart
    from any other dict; see ``_Env.getattr``)."""

    __slots__ = ()


# Errors name it as they named the plain dict: "'dict object' has no attribute 'x'".
_Args.__module__, _Args.__name__, _Args.__qualname__ = "builtins", "dict", "dict"
_DICT_NAMES = frozenset(dir(dict))


class _Method:
    """A dict method reached as ``args.NAME`` when there is no argument NAME: it can be called
    (``args.get('limit', 0)``), but any other use (``args.keys == '*'``) is the error a
    missing argument is, never a quiet false."""

    __slots__ = ("_function", "_name")

    def __init__(self, function: Any, name: str) -> None:
        self._function, self._name = function, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)

    def _missing(self, *_: Any) -> Any:
        raise ExprError(f"there is no argument {self._name!r} ({self._name} is the name of "
                        f"a method: call it, or write args[{self._name!r}] for the argument)")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = _missing
    __iter__ = __contains__ = __str__ = __add__ = __radd__ = _missing
    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class CompiledExpr:
    """A rule's ``expr``, compiled once (``holds`` evaluates it for one call)."""

    source: str
    function: Any
    _local: threading.local = field(default_factory=threading.local, compare=False,
                                    repr=False)
    # ``args.NAME <= 100`` and its like, as a plain function (``toolhost.permissions.
    # expr_fast``): the same lookup and comparison without a render; None for the rest
    fast: Callable[[Mapping[str, Any]], Any] | None = field(default=None, compare=False,
                                                             repr=False)

    def holds(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        try:
            return bool(self._evaluate(arguments, tool_name))
        except ExprError:
            raise
        except Exception as exc:  # any failure of user code decides nothing: fail closed
            raise ExprError(f"{type(exc).__name__}: {exc}") from None

    def _evaluate(self, arguments: Mapping[str, Any], tool_name: str) -> Any:
        # jinja2's TemplateExpression builds a new Context for every call, most of an
        # expression's cost; a decision runs to its end without yielding, so each thread
        # keeps one Context per expression and only swaps the variables in.
        fast = self.fast
        if fast is not None:  # one lookup and one comparison: no budget or deadline needed
            return fast(arguments)
        start()  # a budget and a deadline for this evaluation
        try:
            return self._run(arguments, tool_name)
        finally:
            finish()

    def _run(self, arguments: Mapping[str, Any], tool_name: str) -> Any:
        template = getattr(self.function, "_template", None)
        if template is None:  # not the jinja2 this was written for: the public way
            return self.function(args=arguments, tool=tool_name)
        context = getattr(self._local, "context", None)
        if context is None:
            context = self._local.context = template.new_context({})
        context.parent["args"] = _Args(arguments)
        context.parent["tool"] = tool_name
        context.vars.clear()
        try:
            for _ in template.root_render_func(context):
                pass
            return context.vars["result"]
        finally:
            context.parent["args"] = context.parent["tool"] = None  # hold no call's data


def compile_expr(source: str) -> CompiledExpr:
    """Compile once. Raises ValueError on a syntax error."""
    global _ENV
    from jinja2 import TemplateSyntaxError

    if _ENV is None:
        _ENV = _environment()
    from toolhost.excerpt import cut

    if len(source) > _MAX_SOURCE:
        raise ValueError(f"expr is {len(source)} characters long; the limit is {_MAX_SOURCE} "
                         "(split it into several rules)")
    from jinja2.parser import Parser

    from toolhost.permissions.expr.limits import check_tree

    try:
        tree = Parser(_ENV, source, state="variable").parse_expression()
        check_tree(tree)
        function = _ENV.compile_expression(source, undefined_to_none=False)
    except TemplateSyntaxError as exc:
        raise ValueError(f"expr {cut(source, 200)!r} does not parse: {exc.message}") from None
    except (RecursionError, SyntaxError, MemoryError):
        # hostile nesting: "((((...))))" in the parser; 300 `and`s, filters or attributes in
        # the Python jinja2 generates ("too many nested parentheses")
        raise ValueError(f"expr {cut(source, 80)!r} nests too deeply to compile (split it "
                         "into several rules)") from None
    from toolhost.permissions.expr.constants import check_constants

    check_constants(_ENV, source)  # a part that is too costly whatever the call: say so now
    from toolhost.permissions.expr.fast import compare

    return CompiledExpr(source, function, fast=compare(tree, _ENV, _Args))
