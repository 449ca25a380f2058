"""Import PyYAML without its slowest line: imported before ``yaml`` by the modules that use it.

PyYAML's reader compiles, at import, a negated character class that reaches U+10FFFF
(``Reader.NON_PRINTABLE``); ``sre`` takes 4-5 ms of a fresh process to compile it, more than
any other pattern on ``toolhost serve``'s path (and toolhost reads YAML with libyaml, which
never uses it). The same set of characters written as its complement (the C0 controls but
tab, LF and CR; DEL and the C1 controls but NEL; the surrogates; U+FFFE and U+FFFF) compiles
in well under a millisecond. ``re.compile`` looks in its cache first, keyed by the pattern's
text, so the complement is put there under PyYAML's text and the import finds it. Matching is
the same for every code point (tests/config/test_yaml_prime.py checks all of them); if
``re``'s cache is not what this expects, nothing is done and PyYAML compiles its own.
"""

from __future__ import annotations

import re
import sys

__all__ = ["NON_PRINTABLE", "PRINTABLE_COMPLEMENT"]

# PyYAML's pattern (yaml/reader.py, every release since 3.x), and the same set written as
# what it leaves out
NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
PRINTABLE_COMPLEMENT = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def _prime() -> None:
    cache = getattr(re, "_cache", None)
    if "yaml" in sys.modules or not isinstance(cache, dict):
        return
    cache.setdefault((str, NON_PRINTABLE, 0), re.compile(PRINTABLE_COMPLEMENT))


_prime()
