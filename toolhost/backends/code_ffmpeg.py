"""ffmpeg's spellings of a filter graph that the option table's exact names miss.

A filter graph is code (``movie=`` reads any file or URL, ``sendcmd=`` reads commands, ``zmq``
takes them from the network). ffmpeg names the same option several ways: with a stream
specifier (``-filter:v:0``, ``-af:1``), read from a file (``-/vf FILE``, ffmpeg 7), or as an
input: ``-f lavfi -i GRAPH`` (ffprobe and ffplay take the graph as their operand too).
:func:`ffmpeg_slots` finds a value in any of these; the exact names (``-vf``, ``-lavfi``)
are in ``code_opt_more``'s table.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_token import Token

__all__ = ["GRAPH", "ffmpeg_slots"]

GRAPH = ("a filter graph (movie= and amovie= read any file or URL, sendcmd= reads commands, "
         "zmq takes them over the network)")
_FILE = "a file holding a filter graph or an option's value it reads as one"
_OPTION = "option: "  # code_opts.OPTION
# the option names (past '-' and '/', before ':SPEC') whose argument is a filter graph
_FILTERS = frozenset({"vf", "af", "filter", "filter_complex", "lavfi", "filter_script",
                      "filter_complex_script"})
# demuxers whose "file" is a filter graph (lavfi), or a list of inputs of any protocol
_GRAPH_FORMATS = frozenset({"lavfi"})




def option_base(text: str) -> tuple[str, bool]:
    """(the option's name without '-', '/' and its stream specifier, whether it is read from
    a file: '-/NAME'); ('', False) for a word that is no option."""
    if not text.startswith("-") or text.startswith("--") or len(text) < 2:
        return "", False
    name = text[1:]
    from_file = name.startswith("/")
    return name.lstrip("/").split(":", 1)[0].lower(), from_file


def ffmpeg_slots(tokens: Sequence[Token], i: int, name: str,
                 exact: frozenset[str]) -> list[tuple[str, str, str]]:
    """(key, program, what) of each value after ffmpeg/ffprobe/ffplay at ``i`` that is a
    filter graph; ``exact``: the option names its table already covers."""
    slots: list[tuple[str, str, str]] = []
    graph_input = False  # a literal -f lavfi: the next input is a graph
    operand_input = name.lower().removesuffix(".exe") in ("ffprobe", "ffplay")
    j = i + 1
    while j < len(tokens):
        token = tokens[j]
        nxt = tokens[j + 1] if j + 1 < len(tokens) else None
        base, from_file = option_base(token.text) if not token.value else ("", False)
        if base and nxt is not None and nxt.value:
            if base in _FILTERS and token.text not in exact:
                slots.append((nxt.key, name, _OPTION + (_FILE if from_file else GRAPH)))
            elif from_file and base in ("i", "f"):
                slots.append((nxt.key, name, _OPTION + _FILE))
            elif base == "i" and graph_input:
                slots.append((nxt.key, name, _OPTION + GRAPH))
        if base == "f" and nxt is not None and not nxt.value:
            graph_input = nxt.text.strip().lower() in _GRAPH_FORMATS
        elif base == "i":
            graph_input = False
        elif token.value and graph_input and operand_input:
            # ffprobe -f lavfi GRAPH: any value after it may be the operand (fail closed)
            slots.append((token.key, name, _OPTION + GRAPH))
        j += 1
    return slots
