"""While a plugin imports and registers, the calls that would end toolhost without a word
(``os._exit``, an exec replacing the process) raise instead."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from toolhost.errors import PluginError

__all__ = ["exit_hooks_guarded", "exits_refused"]


# what ends this process without a handler running: os._exit, and an exec replacing it (the
# new program's exit 0 is toolhost's). posix holds the same functions under another name.
_EXITS = ("_exit", "execv", "execve")


@contextlib.contextmanager
def exits_refused(when: str = "while loading") -> Iterator[None]:
    """While a plugin imports and registers, ``os._exit`` and ``os.execv``/``os.execve``
    (``posix``'s too, and the ``os.exec*`` built on them) from this thread raise instead.

    A plugin calling ``os._exit(0)`` there ended ``toolhost validate`` with exit 0 and no
    output: a run that ends without its result must never look like success. ``sys.exit``
    raises ``SystemExit``, already one line naming the plugin; ``os._exit`` skips every
    handler, so it is the one a load could not see, and an exec ends toolhost with another
    program's status. Another thread's call, or a forked child's (a plugin forking at
    import), still goes through: only the loading thread of this process is refused."""
    import posix

    pid, thread = os.getpid(), threading.get_ident()
    saved = [(module, name, getattr(module, name)) for module in (os, posix)
             for name in _EXITS if hasattr(module, name)]

    def guard(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def refused(*args: Any) -> Any:
            if os.getpid() != pid or threading.get_ident() != thread:
                return real(*args)
            said = f"os._exit({args[0]!r})" if name == "_exit" else f"os.{name}({_arg(args)})"
            raise PluginError(f"it called {said} {when}, which would end toolhost "
                              "without a word")
        return refused

    for module, name, real in saved:
        setattr(module, name, guard(name, real))
    try:
        yield
    finally:
        for module, name, real in saved:
            setattr(module, name, real)


@contextlib.contextmanager
def exit_hooks_guarded(plugin: str) -> Iterator[None]:
    """An ``atexit`` hook a plugin registers while it loads runs, at exit, with
    ``os._exit`` and exec refused too: a hook calling ``os._exit(0)`` made ``toolhost
    validate`` of a broken config exit 0 (a CI gate passed). What such a hook raises is one
    warning line naming the plugin, not a traceback."""
    import atexit

    real = atexit.register

    def register(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        def guarded() -> None:
            try:
                with exits_refused("at exit"):
                    func(*args, **kwargs)
            except BaseException as exc:  # a plugin's hook must not decide how toolhost ends
                import logging

                logging.getLogger("toolhost.plugins").warning(
                    "an exit hook of plugin '%s' failed: %s: %s", plugin, type(exc).__name__,
                    _text(exc))
        real(guarded)
        return func  # as atexit.register does (it is used as a decorator)

    atexit.register = register
    try:
        yield
    finally:
        atexit.register = real


def _text(exc: BaseException) -> str:
    from toolhost.excerpt import cut

    try:
        return cut(str(exc), 300)
    except Exception:  # a plugin's __str__ is its code too
        return "(its message could not be shown)"


def _arg(args: tuple[Any, ...]) -> str:
    from toolhost.excerpt import cut

    return cut(repr(args[0]), 100) + ", ..." if args else ""
