"""Arguments some programs read as options with no dash: the dash check cannot see them.

``argv`` refuses a value that starts an argument with ``-``, ``+`` or ``@``; these programs
read options without one:

- **tar** (GNU tar, ``gtar``, ``bsdtar``) reads its *first* argument as old-style options
  when it does not start with ``-``: each letter is an option, and each letter that takes an
  argument takes the next word in turn. So ``[tar, "{{ mode }}", "{{ archive }}", a.tar]``
  with ``xIf`` and a command makes ``-I`` (``--use-compress-program``) run it, and ``F``
  (``--info-script``) runs a script too.
- **ps** (procps) reads every argument that is not a number list as BSD options: ``e`` shows
  the environment of each process (the host's secrets among them), ``ww`` without limit,
  ``a``/``x`` every process of every user.

:func:`bare_option` finds an argument of these programs, through wrappers, where a value wrote
the start of such an argument; ``argv`` refuses the call. The config writes the mode itself
(``[tar, xf, "{{ archive }}"]``), and a ps value may be a process id (digits and commas) or
the argument of an option the config wrote (``-p``, ``-o``, ``--sort`` ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["bare_option"]

_TARS = frozenset({"tar", "gtar", "bsdtar"})
_PS = frozenset({"ps"})
_KNOWN = _TARS | _PS
_PIDS = re.compile(r"[0-9][0-9,\s]*")
# ps options whose argument is the next argument (a list, a format, a name), never options
_PS_VALUED = frozenset({
    "-p", "-q", "-u", "-U", "-g", "-G", "-C", "-s", "-t", "-o", "-O", "-k", "--pid",
    "--ppid", "--quick-pid", "--user", "--User", "--group", "--Group", "--sid", "--tty",
    "--format", "--sort", "--cols", "--columns", "--rows", "--lines", "--width",
    "--context"})


def _name(program: str) -> str:
    base = program.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def bare_option(out: Sequence[str], valued: Sequence[tuple[int, int]],
                cwd: str | None = None, search: str | None = None
                ) -> tuple[str, str] | None:
    """(the argument, what the program reads it as) for the first argument of tar or ps that
    a value made options without a dash, or None. ``valued``: (index in ``out``, length of
    the literal text before the value); ``cwd``/``search``: where the spawn finds the
    program (a link to tar is tar)."""
    starts: Mapping[int, int] = dict(valued)
    # the common case, by name alone: finding the programs and following links on every
    # call cost a third more per render (a link named otherwise is not followed here)
    if not any(_name(text) in _KNOWN for text in out):
        return None
    from toolhost.backends.code_args import Token, run_programs
    from toolhost.backends.shebang import program_names

    tokens = [Token("", text, k in starts) for k, text in enumerate(out)]
    for at in run_programs(tokens):
        names = {_name(out[at]), *map(_name, program_names(out[at], cwd, search))}
        if names & _TARS and at + 1 < len(out):
            found = _tar(out[at + 1], starts.get(at + 1))
        elif names & _PS:
            found = _ps(out, at, starts)
        else:
            continue
        if found is not None:
            return found
    return None


def _tar(first: str, begin: int | None) -> tuple[str, str] | None:
    # the value writes the start, or follows letters only ("x{{ v }}")
    if begin is None or first.startswith("-") or not (begin == 0 or first[:begin].isalpha()):
        return None
    return first, ("tar's old-style options: tar reads its first argument as option letters "
                   "even without a '-' ('xIf CMD' runs CMD as its decompressor); write the "
                   "mode in the config: [tar, xf, \"{{ archive }}\"]")


def _ps(out: Sequence[str], at: int, starts: Mapping[int, int]) -> tuple[str, str] | None:
    for k in range(at + 1, len(out)):
        if starts.get(k) != 0 or out[k].startswith("-") or out[k - 1] in _PS_VALUED \
                or _PIDS.fullmatch(out[k]):
            continue
        return out[k], ("ps's BSD-style options: ps reads an argument with no '-' as "
                        "options ('e' shows every process's environment, your secrets among "
                        "them); a value may be a process id here, or follow -p")
    return None
