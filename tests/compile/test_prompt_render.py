"""A declared prompt's templates render within bounds: a template that loops (over an
argument or not) stops at a size or a time limit with a PromptError, in a worker thread, so
the event loop keeps running other requests meanwhile; plain templates render as before."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from toolhost.backends.templating import compile_template
from toolhost.compile.content_kinds import PromptError
from toolhost.compile.prompt_render import render_bounded

NESTED = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"
QUIET = ("{% for i in range(100000) %}{% for j in range(100000) %}{% if false %}x{% endif %}"
         "{% endfor %}{% endfor %}")


def _render(source: str, values: dict[str, Any], **bounds: Any) -> list[tuple[str, str]]:
    async def go() -> list[tuple[str, str]]:
        return await render_bounded("p", [("user", compile_template(source))], values,
                                    **bounds)
    return anyio.run(go)


@pytest.mark.parametrize(("source", "values", "text"), [
    ("plain text", {}, "plain text"),
    ("{{ diff }}", {"diff": "a" * 1000}, "a" * 1000),
    ("Review in {{ tone or 'kind' }}: {{ diff }}", {"tone": None, "diff": "x"},
     "Review in kind: x"),
    ("{% for c in diff %}{{ c }}-{% endfor %}", {"diff": "abc"}, "a-b-c-"),
    ("{{ diff }}", {"diff": "{{ 7*7 }}"}, "{{ 7*7 }}"),
])
def test_ordinary_templates_render(source: str, values: dict[str, Any], text: str) -> None:
    assert _render(source, values) == [("user", text)]


@pytest.mark.parametrize(("source", "values", "why"), [
    (NESTED, {}, "more than 1,000 characters"),
    ("{% for i in range(100000) %}{{ diff }}{% endfor %}", {"diff": "d" * 500},
     "more than 1,000 characters"),
    ("{{ diff }}", {"diff": "d" * 1001}, "more than 1,000 characters"),
    ("{{ diff.nope() }}", {"diff": "x"}, "could not be rendered"),
])
def test_a_template_past_the_size_limit_stops(source: str, values: dict[str, Any],
                                              why: str) -> None:
    with pytest.raises(PromptError, match=why):
        _render(source, values, limit=1000)


@pytest.mark.parametrize("source", [NESTED, QUIET])
def test_a_template_past_the_time_limit_stops_and_the_loop_runs_meanwhile(source: str) -> None:
    ticks: list[float] = []

    async def go() -> None:
        async def tick() -> None:
            while True:
                await anyio.sleep(0.1)
                ticks.append(time.monotonic())

        async with anyio.create_task_group() as tg:
            tg.start_soon(tick)
            with pytest.raises(PromptError, match="more than 1 seconds"):
                await render_bounded("p", [("user", compile_template(source))], {},
                                     limit=10**12, seconds=1.0)
            tg.cancel_scope.cancel()

    started = time.monotonic()
    anyio.run(go)
    assert time.monotonic() - started < 30
    assert len(ticks) >= 3  # the event loop was not blocked by the render


def test_a_quiet_loop_s_thread_stops_too() -> None:
    import threading

    before = threading.active_count()
    with pytest.raises(PromptError, match="more than 1 seconds"):
        _render(QUIET, {}, limit=10**12, seconds=1.0)
    deadline = time.monotonic() + 10
    while threading.active_count() > before + 1 and time.monotonic() < deadline:
        time.sleep(0.1)  # anyio keeps one idle worker; the render's own is gone
    busy = [t for t in threading.enumerate() if "render" in t.name]
    assert not busy
    started = time.process_time()
    time.sleep(1.0)
    assert time.process_time() - started < 0.1  # nothing spins on in the background


@pytest.mark.parametrize(("source", "values", "why"), [
    ("{{ 'a' * 1000000000 }}", {}, "OverflowError"),
    ("{{ diff * 100000000 }}", {"diff": "ab"}, "OverflowError"),
    ("{{ range(1000000000)|list }}", {}, "Range too big"),
    ("{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}", {}, "it recurses too deeply"),
    ("{{ 1 / 0 }}", {}, "ZeroDivisionError"),
    ("{{ diff + 1 }}", {"diff": "x"}, "TypeError"),
])
def test_a_template_s_own_failure_is_a_prompt_error(source: str, values: dict[str, Any],
                                                    why: str) -> None:
    # each was "Internal error (OverflowError); the server logged it": the template's error,
    # answered without naming the prompt
    with pytest.raises(PromptError, match=f"^prompt 'p' could not be rendered: .*{why}"):
        _render(source, values)


def test_a_stop_is_a_prompt_error_whenever_the_time_runs_out() -> None:
    """The render is stopped wherever its deadline finds it: by the chunk loop, by the
    thread's tracer, or while the stop itself is being handled (traced code too). Whatever
    the moment, the caller gets one PromptError, never the watcher's own exception. Each
    template here runs a different number of traced steps before its first chunk, so the
    stops land at every point of the watcher's count."""
    import threading

    from toolhost.compile.prompt_render import _render as render_in_thread

    found: list[BaseException | None] = []

    def run() -> None:
        for steps in range(400):
            source = "{% for i in range(" + str(steps) + ") %}{% endfor %}x"
            try:
                render_in_thread("p", [("user", compile_template(source))], {}, 0.0, 10**9)
            except BaseException as exc:  # what the caller would get, whatever it is
                found.append(exc)
            else:
                found.append(None)

    worker = threading.Thread(target=run)  # traced only off the main thread, as in serve
    worker.start()
    worker.join(60)
    assert len(found) == 400
    wrong = [(i, repr(e)) for i, e in enumerate(found) if not isinstance(e, PromptError)]
    assert not wrong, wrong[:5]
