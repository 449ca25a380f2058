"""A thread an in-process tool started that raises: one line in the log, not a traceback.

Python prints a thread's uncaught exception as a whole traceback on stderr (``threading``'s
``excepthook``; ``_thread.start_new_thread`` through ``sys.unraisablehook``): from a tool's
thread that is the tool's code and paths in the host's log, a dozen lines per failure, on a
stream the client may show. :func:`quiet_tool_threads` makes it one ``toolhost.call`` error
line naming the thread and the exception (the tool's own ``__str__`` guarded); the host's own
threads, and every thread under ``--debug``/``TOOLHOST_DEBUG``, keep the full traceback.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from toolhost.excerpt import cut

__all__ = ["describe", "quiet_raw_thread", "quiet_tool_threads"]

log = logging.getLogger("toolhost.call")


def describe(exc: BaseException) -> str:
    """``Type: message`` on one line, cut; a ``__str__`` that raises says so."""
    try:
        text = str(exc)
    except BaseException as inner:
        text = f"(its message could not be read: {type(inner).__name__})"
    name = type(exc).__name__
    return cut(f"{name}: {text}" if text else name, 300).replace("\n", " ")


def quiet_tool_threads() -> None:
    """Install the hook, once per process (the previous one handles every other thread)."""
    previous = threading.excepthook
    if getattr(previous, "_toolhost_quiet", False):
        return

    def hook(args: Any) -> None:
        from toolhost.failures import debug_enabled

        thread = args.thread
        if thread is None or not getattr(thread, "_toolhost_tool", False) or debug_enabled():
            previous(args)
            return
        if args.exc_type is SystemExit:
            return  # threading ignores it too
        exc = args.exc_value
        log.error("a thread a tool started (%s) raised %s", cut(thread.name, 60),
                  describe(exc) if exc is not None else args.exc_type.__name__)

    hook._toolhost_quiet = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def quiet_raw_thread(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` for ``_thread.start_new_thread`` from a tool's code: its exception is
    one log line (``SystemExit`` ends the thread quietly, as ``_thread`` does)."""
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except SystemExit:
            raise
        except BaseException as exc:
            from toolhost.failures import debug_enabled

            if debug_enabled():
                raise
            log.error("a thread a tool started (%s) raised %s", cut(name, 60), describe(exc))
            return None
    return run
