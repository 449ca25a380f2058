"""socat's addresses: a value may fill one in, never choose its type, its options or a
second address.

socat's operands are addresses ``TYPE:PARAMS,OPTION,...``: ``SYSTEM:CMD`` and ``EXEC:CMD``
run a command, a bare name opens a file for reading and writing, ``,creat`` / ``,trunc``
create or empty one, and ``A!!B`` is a dual address whose second half is written to. With
real socat 1.7.4: ``[socat, -u, OPEN:/dev/null, "{{ addr }}"]`` with ``SYSTEM:touch x`` and
``EXEC:touch x`` ran them, and ``"OPEN:{{ f }}"`` on the writing side with
``/dev/null!!SYSTEM:touch x`` did too.

``socat_address`` finds an address (through wrappers and links) where a value starts the
address or writes before its first ``:`` (the type), or holds ``,`` or ``!!`` (an option,
a second address); ``argv`` refuses the call. The config writes the type and the options
(``"TCP:{{ host }}:80"``, ``"OPEN:{{ f }},rdonly"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["socat_address"]

_SOCATS = frozenset({"socat", "socat1", "socat2"})
# socat's options whose argument is the next argument (not an address)
_VALUED = frozenset({"-lf", "-lp", "-b", "-t", "-T", "-L", "-W"})


def _name(program: str) -> str:
    return program.replace("\\", "/").rsplit("/", 1)[-1].lower()


def socat_address(out: Sequence[str], valued: Sequence[tuple[int, int]],
                  tails: Mapping[int, int], cwd: str | None = None,
                  search: str | None = None) -> str | None:
    """The address of a socat command line ``out`` whose type, options or second address a
    value wrote, or None. ``valued``: (index, literal length before the value); ``tails``:
    index -> literal length after it."""
    if not any("socat" in _name(text) for text in out):
        return None  # the common case, without finding the programs
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    starts = dict(valued)
    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens) or range(len(out)):
        names = {_name(out[at]), *map(_name, program_names(out[at], cwd, search))}
        if not _SOCATS & names:
            continue
        k = at + 1
        while k < len(out):
            text = out[k]
            if k not in starts and text.startswith("-") and text != "-":
                k += 2 if text in _VALUED else 1
                continue
            if k in starts and k - 1 > at and out[k - 1] in _VALUED:
                k += 1
                continue
            if k in starts:
                begin, end = starts[k], len(text) - tails.get(k, 0)
                colon = text.find(":")
                if colon < 0 or begin <= colon or any(
                        mark in text[begin:end] for mark in (",", "!!")):
                    return text
            k += 1
    return None
