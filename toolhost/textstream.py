"""The one shape of toolhost's text-stream wrappers.

``sys.stdout`` and ``sys.stderr`` pass through several wrappers (``redaction.ScrubbingStream``
hides secrets, ``visible.InertStream`` shows control characters inert,
``runner.held_output.HoldingStream`` holds writes while a permission question is open,
``runner.output_failures.QuietStream`` drops failed writes). Each changes ``write`` only; the
rest is this base: ``writelines`` writes each line through ``write``, ``flush`` flushes
``inner``, and any other attribute (``fileno``, ``isatty``, ``encoding``, ``buffer``, an inner
``finish``) is ``inner``'s, so a wrapper stands wherever a text stream is expected.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

__all__ = ["StreamWrapper"]


class StreamWrapper:
    """A text stream writing through ``inner``; subclasses define ``write``."""

    def __init__(self, inner: IO[str]) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        """Write ``text`` (changed by the subclass) to ``inner``; ``len(text)``."""
        raise NotImplementedError

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer, finish, ...
        if name == "inner":  # not set yet (copy, unpickling): no endless lookup
            raise AttributeError(name)
        return getattr(self.inner, name)
