"""Bounds on what one template render may build, and how much work it may do.

A config's template is run by the host at every call, and its constant parts are run once
more while it compiles (jinja2 folds a filter of constants into its result). Without bounds,
``{{ 'a'|center(10**9) }}`` or ``{{ '%1000000000s'|format(1) }}`` kept ``toolhost validate``
building a gigabyte string, and at a call ``{% for i in range(10**5) %}{% for j in
range(10**5) %}x{% endfor %}{% endfor %}`` (10 GB of output), ``range(9)|batch(10**9, 0)``
(13 GB), ``ns.a ~ ns.a`` doubled in a loop or an exponentially recursive macro never ended
(the render runs on the event loop: every other call of a server waited too).

So, in the sandbox of ``toolhost.backends.templating``:

- the filters and ``str`` methods that build from a size argument (``center``, ``indent``,
  ``format``, ``wordwrap``, ``replace``, ``join``, ``batch``, ``slice``, ``truncate``,
  ``lipsum``; ``ljust``, ``rjust``, ``zfill``, ``expandtabs``, ``str.format``) check the
  size before they build: at most ``MAX_BUILT`` characters or items;
- the text a render (or a macro, a ``{% set %}`` block, a ``~``) joins is at most
  ``MAX_BUILT`` characters;
- one render makes at most ``MAX_STEPS`` output pieces and calls together (the loops and
  recursion that make a render endless all do one or the other).

Past a bound the render fails with a ``SecurityError`` (a ``TemplateError``): the call answers
with the reason, and a constant that would break a bound is simply not folded when the template
compiles (the error comes at the call instead).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "MAX_BUILT",
    "MAX_STEPS",
    "bounded_concat",
    "bounded_filters",
    "bounded_lipsum",
    "check_call",
    "check_join",
    "check_size",
    "code_generator",
]

MAX_BUILT = 10_000_000  # characters or items one operation or render may build
MAX_STEPS = 1_000_000  # output pieces and calls in one render

_state = threading.local()


def _refuse(what: str) -> Exception:
    from jinja2.exceptions import SecurityError

    return SecurityError(f"the template would build {what} (a template may build at most "
                         f"{MAX_BUILT:,} characters or items)")


def check_size(size: int, what: str = "a value that large") -> None:
    """Refuse an operation that would build ``size`` characters or items."""
    if size > MAX_BUILT:
        raise _refuse(what)


def _step(count: int = 1) -> None:
    steps = getattr(_state, "steps", 0) + count
    _state.steps = steps
    if steps > MAX_STEPS:
        from jinja2.exceptions import SecurityError

        raise SecurityError(f"the template takes more than {MAX_STEPS:,} steps (output "
                            "pieces and calls) to render: a loop or recursion too long")


def bounded_concat(pieces: Iterable[Any]) -> str:
    """``environment.concat``: what a render, a macro and a block join, bounded in size and,
    summed over one render (the outermost join), in steps."""
    depth = getattr(_state, "depth", 0)
    if depth == 0:
        _state.steps = 0
    _state.depth = depth + 1
    try:
        out: list[str] = []
        size = 0
        for piece in pieces:
            _step()
            size += len(piece)
            if size > MAX_BUILT:
                raise _refuse("a text that long")
            out.append(piece)
        return "".join(out)
    finally:
        _state.depth = depth


def check_join(pieces: Iterable[Any]) -> str:
    """The ``~`` operator: every piece as text, joined, bounded."""
    out = [str(p) for p in pieces]
    check_size(sum(len(p) for p in out), "a string that long with '~'")
    return "".join(out)


_WIDTH = re.compile(r"\d{8,}")  # a width or precision of 10,000,000 or more


def _text_len(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple, dict)) else len(str(value))


def _ints(*values: Any) -> int:
    return max((int(abs(v)) for v in values if type(v) is int), default=0)


def _check_format_spec(text: Any) -> None:
    if isinstance(text, str) and _WIDTH.search(text):
        raise _refuse("a formatted field that wide")


def _replace_size(s: Any, old: Any, new: Any, count: Any = -1) -> int:
    s, old, new = str(s), str(old), str(new)
    hits = s.count(old) if old else len(s) + 1
    if type(count) is int and count >= 0:
        hits = min(hits, count)
    return len(s) + hits * len(new)


def _indent_size(s: Any, width: Any = 4, *args: Any, **kwargs: Any) -> int:
    lines = str(s).count("\n") + 1
    pad = width if type(width) is int else len(str(width))
    return len(str(s)) + lines * pad


def _join_size(value: Any, d: Any = "", *args: Any, **kwargs: Any) -> int:
    items = list(value) if not isinstance(value, (str, dict)) else list(str(value))
    return sum(_text_len(i) for i in items) + len(items) * len(str(d))


def _wordwrap_size(s: Any, width: Any = 79, break_long_words: Any = True,
                   wrapstring: Any = None, *args: Any, **kwargs: Any) -> int:
    cols: int = width if type(width) is int and width > 0 else 1
    wrap = kwargs.get("wrapstring", wrapstring)
    return len(str(s)) * (len(str(wrap or "\n")) // cols + 2)


# what each sized filter would build, from its arguments (before it builds anything)
_SIZES: dict[str, Callable[..., int]] = {
    "center": lambda s, width=80, *a, **k: max(_text_len(s), _ints(width)),
    "indent": _indent_size,
    "format": lambda s, *a, **k: _text_len(s) + _ints(*a, *k.values()),
    "wordwrap": _wordwrap_size,
    "replace": _replace_size,
    "join": _join_size,
    "batch": lambda value, linecount, *a, **k: _ints(linecount),
    "slice": lambda value, slices, *a, **k: _ints(slices),
    "truncate": lambda s, length=255, killwords=False, end="...", *a, **k:
        _text_len(s) + _text_len(k.get("end", end)),
}
# the ``str`` methods that build from a size argument, the same way
_METHODS: dict[str, Callable[..., int]] = {
    "center": lambda s, width, *a: max(len(s), _ints(width)),
    "ljust": lambda s, width, *a: max(len(s), _ints(width)),
    "rjust": lambda s, width, *a: max(len(s), _ints(width)),
    "zfill": lambda s, width: max(len(s), _ints(width)),
    "expandtabs": lambda s, tabsize=8: len(s) * max(1, _ints(tabsize)),
    "replace": _replace_size,
    "join": lambda s, items: _join_size(items, s),
}


def _sized(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    size_of = _SIZES[name]

    def bounded(*args: Any, **kwargs: Any) -> Any:
        # a filter receives the environment or context first when it asks for it
        values = args[1:] if getattr(func, "jinja_pass_arg", None) is not None else args
        if name == "format" and values:
            _check_format_spec(values[0])
        check_size(size_of(*values, **kwargs), f"a value that large with '{name}'")
        result = func(*args, **kwargs)
        if isinstance(result, (str, list)):
            check_size(len(result), f"a value that large with '{name}'")
        return result

    for attr in ("jinja_pass_arg", "__name__", "__doc__"):
        if hasattr(func, attr):
            setattr(bounded, attr, getattr(func, attr))
    return bounded


def bounded_filters(filters: dict[str, Any]) -> None:
    """Replace the sized filters of an environment by their bounded forms."""
    for name in _SIZES:
        if name in filters:
            filters[name] = _sized(name, filters[name])


def bounded_lipsum(func: Callable[..., Any]) -> Callable[..., Any]:
    def lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> Any:
        check_size(_ints(n) * max_words(min, max) * 12, "that much lorem ipsum")
        return func(n, html, min, max)

    return lipsum


def max_words(low: Any, high: Any) -> int:
    return max(_ints(low), _ints(high), 1)


def check_call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Before the sandbox calls ``obj``: one step, and a ``str`` method that builds from a
    size argument is checked first."""
    _step()
    obj = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str):
        return
    name = getattr(obj, "__name__", "")
    if name in ("format", "format_map"):
        _check_format_spec(owner)
        return
    size_of = _METHODS.get(name)
    if size_of is not None:
        try:
            size = size_of(owner, *args, **kwargs)
        except TypeError:
            return  # wrong arguments: the method itself says so
        check_size(size, f"a string that large with '{name}'")


def code_generator() -> type:
    """jinja2's code generator, with ``~`` joined by ``environment.join_values`` (bounded)
    instead of an unbounded ``str.join``."""
    from jinja2 import nodes
    from jinja2.compiler import CodeGenerator, Frame

    class _Generator(CodeGenerator):
        def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
            self.write("environment.join_values((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    return _Generator
