"""Decision lines are formatted once per rule (``TextRenderer.decision``): what is shown is
exactly what formatting each decision afresh shows, and the formatted lines kept are bounded."""

from __future__ import annotations

import io

import pytest

from toolhost.config.model import Origin
from toolhost.permissions.decision import Decision
from toolhost.runner import render
from toolhost.runner.render import TextRenderer

DECISIONS = [
    Decision("allow", rule="mcp__s__*", origin=Origin("a.yaml", 3, 5)),
    Decision("deny", "first reason", rule="mcp__s__t", origin=Origin("a.yaml", 9)),
    Decision("deny", "second reason", rule="mcp__s__t", origin=Origin("a.yaml", 9)),
    Decision("allow", rule="mcp__s__*", origin=Origin("b.yaml", 3, 5)),
    Decision("allow", rule="mcp__s__*", origin=Origin("a.yaml", 3, 5),
             updated_input={"n": 1}),
    Decision("allow", answered_by="--yes"),
    Decision("allow", answered_by="person"),
    Decision("deny", "no \x1b[2J terminal tricks\x00", rule="evil\x00\x1b]0;x\x07"),
    Decision("allow", rule="mcp__s__*", origin=Origin("a.yaml", 3, 5)),
]


def _shown(renderer: TextRenderer, decision: Decision, use_id: str | None) -> str:
    out = renderer.out
    assert isinstance(out, io.StringIO)
    start = len(out.getvalue())
    renderer.decision("mcp__s__t", decision, tool_use_id=use_id)
    return out.getvalue()[start:]


@pytest.mark.parametrize("color", [False, True])
def test_each_line_is_the_line_a_fresh_renderer_shows(color: bool) -> None:
    kept = TextRenderer(io.StringIO(), io.StringIO(), color=color)
    # each decision again later, then each twice in a row (the same object: the policy
    # shares a rule's decision between its calls, and the renderer keeps the last one's line)
    for i, decision in enumerate(DECISIONS * 2 + [d for d in DECISIONS for _ in (0, 1)]):
        use_id = f"u{i}" if i % 3 else None
        fresh = TextRenderer(io.StringIO(), io.StringIO(), color=color)
        if use_id:  # the fresh one numbers its calls from 1: give it as many before
            for j in range(int(kept.tag(use_id).strip()[1:]) - 1):
                fresh.tag(f"before{j}")
        assert _shown(kept, decision, use_id) == _shown(fresh, decision, use_id)


def test_the_formatted_lines_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "MAX_DECISION_LINES", 8)
    r = TextRenderer(io.StringIO(), io.StringIO(), color=False)
    for i in range(50):
        r.decision("t", Decision("deny", f"reason {i}", rule="r"), tool_use_id=f"u{i}")
        assert len(r._decision_lines) <= 8
    assert r.out.getvalue().splitlines()[-1] == "  #50 ⊘ denied by r: reason 49"


def test_the_oldest_call_is_forgotten_first_past_the_bound() -> None:
    r = TextRenderer(io.StringIO(), io.StringIO(), color=False)
    total = render.MAX_REMEMBERED_CALLS + 500
    for i in range(total):
        r.tag(f"u{i}")
    assert len(r._tags) == render.MAX_REMEMBERED_CALLS
    assert next(iter(r._tags)) == f"u{total - render.MAX_REMEMBERED_CALLS}"
    assert r.tag(f"u{total - 1}") == f"#{total} "


class _Raw(io.RawIOBase):
    """The bytes under a transcript: each ``write`` here is one ``write(2)`` to stdout."""

    def __init__(self, fails: bool = False) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.fails = fails

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if self.fails:
            raise OSError(28, "No space left on device")
        self.writes.append(bytes(data))
        return len(data)


def _stdout(raw: _Raw) -> io.TextIOWrapper:
    # what ``toolhost run`` writes its transcript to: line-buffered (``InertDescriptors``)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", line_buffering=True)


def test_the_decision_lines_of_one_read_are_one_write() -> None:
    # ``toolhost run`` keeps the lines while one read's decisions are answered inline
    # (``PipeLines.hold_output``): 3 lines, 1 write holding all three; none kept after.
    from toolhost.runner.output_failures import OutputWatch
    from toolhost.runner.run import _flushes

    raw = _Raw()
    renderer = TextRenderer(_stdout(raw), io.StringIO(), color=False)
    watch = OutputWatch(renderer)
    hold = _flushes(renderer, watch)
    assert hold is not None
    hold(True)
    for n in range(3):
        watch.decision("mcp__s__t", DECISIONS[0], tool_use_id=f"u{n}")
    assert raw.writes == []
    hold(False)
    assert len(raw.writes) == 1 and raw.writes[0].count(b"\n") == 3
    hold(True)
    hold(False)  # nothing printed: no write
    watch.decision("mcp__s__t", DECISIONS[1], tool_use_id="u9")
    assert len(raw.writes) == 2 and raw.writes[1].startswith(b"  #4 ")
    # a release whose write fails loses its lines, said at the end like a decision's
    failing = TextRenderer(_stdout(_Raw(fails=True)), io.StringIO(), color=False)
    lost = OutputWatch(failing)
    hold = _flushes(failing, lost)
    assert hold is not None
    hold(True)
    lost.decision("mcp__s__t", DECISIONS[0], tool_use_id="u1")
    lost.decision("mcp__s__t", DECISIONS[0], tool_use_id="u2")
    hold(False)
    assert lost.lost == 2 and lost.said() is not None
    assert failing.held_lines == 0


def test_lines_kept_for_a_read_wait_for_a_question_that_opened_in_it() -> None:
    # the read's last line asked (its task ran eagerly inside the read): the kept decision
    # lines are not written into the open question, they wait for its answer
    raw = _Raw()
    renderer = TextRenderer(_stdout(raw), io.StringIO(), color=False)
    asking = [False]
    renderer.hold_while = lambda: asking[0]
    renderer.hold_flush(True)
    renderer.decision("mcp__s__t", DECISIONS[0], tool_use_id="u1")
    asking[0] = True
    renderer.hold_flush(False)
    assert raw.writes == []
    asking[0] = False
    renderer.decision("mcp__s__t", DECISIONS[1], tool_use_id="u2")
    assert len(raw.writes) == 1
    assert raw.writes[0].index(b"#1 ") < raw.writes[0].index(b"#2 ")
