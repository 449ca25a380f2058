"""PyYAML, imported without its reader's costly pattern: ``from toolhost.config.pyyaml import
yaml`` (toolhost's modules import PyYAML only through here).

At import, ``yaml.reader`` compiles one pattern of every non-printable character, written as
the complement of the printable ranges (``[^\\x09\\x0A\\x0D\\x20-\\x7E...\\U0010ffff]``).
Python's regex compiler fills a map of the 63,000 printable BMP characters one at a time, in
Python: ~59 M instructions, 7% of ``toolhost serve``'s start and 8% of ``validate``'s, for a
pattern toolhost never runs (it parses with libyaml, whose parser checks characters itself).
The same set written the other way round (the few ranges that are not printable) compiles
some 30 times faster; it is left where ``re.compile`` looks first, under PyYAML's own text,
so ``yaml.reader`` gets it. ``tests/config/test_pyyaml.py`` holds both to the same answer for
every code point. With a ``re`` whose cache is not a dict keyed like CPython's 3.11-3.13, or
a PyYAML whose pattern is written differently, nothing is left there and PyYAML compiles its
own as before.
"""

from __future__ import annotations

import re
import sys

# PyYAML's text, character for character (yaml/reader.py, Reader.NON_PRINTABLE)
YAML_NON_PRINTABLE = ("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                      "\U00010000-\U0010ffff]")
# The same set: every code point that is not in one of the ranges above
NON_PRINTABLE = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def _leave_pattern() -> None:
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict) and "yaml.reader" not in sys.modules:
        key = (str, YAML_NON_PRINTABLE, 0)
        cache.setdefault(key, re.compile(NON_PRINTABLE))


_leave_pattern()

# after the pattern is left for it
import yaml  # noqa: E402
from yaml.events import (  # noqa: E402
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode  # noqa: E402

__all__ = ["NON_PRINTABLE", "YAML_NON_PRINTABLE", "AliasEvent", "MappingEndEvent",
           "MappingNode", "MappingStartEvent", "Node", "ScalarEvent", "ScalarNode",
           "SequenceEndEvent", "SequenceNode", "SequenceStartEvent", "yaml"]
