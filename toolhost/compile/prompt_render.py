"""Rendering a declared prompt's jinja2 templates within bounds of time and size.

The templates are the config author's, the values the client's: a template that loops over
an argument, or loops at all (``{% for i in range(100000) %}...``), could render for minutes
or into gigabytes. A template with jinja2 syntax therefore renders in a worker thread (the
server keeps answering every other request), chunk by chunk: past ``MAX_RENDER_CHARS``
characters in all, or ``RENDER_SECONDS`` seconds, the render stops and prompts/get answers an
error; the worker thread is traced so that a loop printing nothing stops too (its thread does
not spin on). A literal text or one plain ``{{ name }}`` renders at once, as before.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolhost.compile.content_kinds import PromptError
from toolhost.excerpt import cut

if TYPE_CHECKING:
    from toolhost.backends.templating import AnyTemplate

__all__ = ["MAX_RENDER_CHARS", "RENDER_SECONDS", "render_bounded"]

MAX_RENDER_CHARS = 10_000_000  # of one prompt's messages together
RENDER_SECONDS = 10.0


class _Stop(Exception):
    pass


def _render(name: str, templates: Sequence[tuple[str, AnyTemplate]],
            values: Mapping[str, Any], seconds: float, limit: int) -> list[tuple[str, str]]:
    from jinja2 import TemplateError

    out: list[tuple[str, str]] = []
    total = 0
    deadline = time.monotonic() + seconds
    ticks = 0
    ended = False  # the render has stopped or failed: nothing more is stopped

    def watch(frame: Any, event: str, arg: Any) -> Any:
        # a loop that prints nothing never returns to the chunk loop: the render's own
        # thread is traced (lines too), and told to stop once the deadline has passed
        nonlocal ticks, ended
        if ended:
            return None
        ticks += 1
        if ticks % 1000 == 0 and time.monotonic() > deadline:
            ended = True  # once: what handles the stop (traced code too) is not stopped
            raise _Stop(f"it renders for more than {seconds:g} seconds")
        return watch

    before = sys.gettrace()  # a coverage tool's, say: given back at the end
    if threading.current_thread() is not threading.main_thread():
        sys.settrace(watch)
    try:
        for role, template in templates:
            generate = getattr(template, "generate", None)
            if generate is None:  # a literal or one plain variable: no loop to run
                text = template.render(values)
                total += len(text)
                if total > limit:
                    raise _Stop(f"it renders to more than {limit:,} characters")
                out.append((role, text))
                continue
            parts: list[str] = []
            for chunk in generate(values):
                total += len(chunk)
                # (ended first: leaving the loop closes the generator, whose clean-up is
                # traced code the watcher must not stop in turn)
                if total > limit:
                    ended = True
                    raise _Stop(f"it renders to more than {limit:,} characters")
                if time.monotonic() > deadline:
                    ended = True
                    raise _Stop(f"it renders for more than {seconds:g} seconds")
                parts.append(chunk)
            out.append((role, "".join(parts)))
    except Exception as exc:
        # handling it runs traced code too (the error's own __init__, the generator's close
        # when it is let go): the watcher must not stop that in turn (it did, when the
        # deadline fell there: an internal _Stop instead of the prompt's error)
        ended = True
        raise _failure(name, exc, TemplateError) from None
    finally:
        ended = True
        sys.settrace(before)
    return out


def _failure(name: str, exc: Exception, template_error: type[Exception]) -> PromptError:
    """The prompt's error for what stopped its render."""
    if isinstance(exc, template_error):
        return PromptError(f"prompt '{name}' could not be rendered: {cut(str(exc), 300)}")
    if isinstance(exc, _Stop):
        return PromptError(f"prompt '{name}' is not rendered: {exc}")
    if isinstance(exc, RecursionError):  # a macro that calls itself
        return PromptError(f"prompt '{name}' could not be rendered: it recurses too deeply")
    # the template's own failure, not the server's: 'a' * 10**9 and range(10**9) are refused
    # by the sandbox with OverflowError, 1/0 is a ZeroDivisionError: each is the template's
    # error, answered as such (it was "Internal error (OverflowError)")
    return PromptError(f"prompt '{name}' could not be rendered: {type(exc).__name__}: "
                       f"{cut(str(exc), 300)}")


async def render_bounded(name: str, templates: Sequence[tuple[str, AnyTemplate]],
                         values: Mapping[str, Any], *, limit: int = MAX_RENDER_CHARS,
                         seconds: float = RENDER_SECONDS) -> list[tuple[str, str]]:
    """``(role, text)`` per template, rendered with ``values``; PromptError when a template
    fails, renders past ``limit`` characters in all or takes over ``seconds``."""
    if all(getattr(t, "generate", None) is None for _, t in templates):
        return _render(name, templates, values, seconds, limit)
    import anyio

    with anyio.move_on_after(seconds + 1) as scope:  # a loop that yields nothing: given up
        return await anyio.to_thread.run_sync(_render, name, templates, values, seconds,
                                              limit, abandon_on_cancel=True)
    assert scope.cancelled_caught
    raise PromptError(f"prompt '{name}' is not rendered: it renders for more than "
                      f"{seconds:g} seconds")
