"""``toolhost.textstream.StreamWrapper``: the one shape of the text-stream wrappers."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, Any

import pytest

from toolhost.redaction import ScrubbingStream
from toolhost.runner.held_output import HeldOutput, HoldingStream
from toolhost.runner.output_failures import QuietStream
from toolhost.textstream import StreamWrapper
from toolhost.visible import InertStream

WRAPPERS: list[Callable[[IO[str]], Any]] = [
    ScrubbingStream, InertStream, QuietStream, lambda inner: HoldingStream(inner, HeldOutput()),
]


@pytest.mark.parametrize("wrap", WRAPPERS, ids=["scrubbing", "inert", "quiet", "holding"])
def test_each_wrapper_is_the_one_base_and_stands_for_its_stream(
        wrap: Callable[[IO[str]], Any]) -> None:
    inner = io.StringIO()
    stream = wrap(inner)
    assert isinstance(stream, StreamWrapper)
    stream.writelines(["a\n", "b\n"])
    stream.flush()
    assert inner.getvalue() == "a\nb\n"
    assert stream.getvalue() == "a\nb\n"  # anything else is the inner stream's
    with pytest.raises(AttributeError):
        stream.no_such_thing  # noqa: B018
