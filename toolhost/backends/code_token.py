"""The word of a command template the option checks read (``code_args.Token`` is one), as a
protocol: ``code_opts`` and the program modules it draws on (``code_ffmpeg``, ``code_redis``,
``code_filters``, ...) take it from here, so none imports another for a type."""

from __future__ import annotations

from typing import Protocol

__all__ = ["Token"]


class Token(Protocol):
    """A word of a command template as the code scans read it (``code_args``'s token)."""

    @property
    def key(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def value(self) -> bool: ...
