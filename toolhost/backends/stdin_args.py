"""xargs makes its stdin's words arguments of the program it runs; ``env -S`` splits a
string into the program that reads the stdin.

``[xargs, rm]`` with ``stdin: "{{ files }}"`` gives ``rm`` the words ``-rf /`` as options,
and ``[xargs, -I, "{}", sh, -c, "echo {}"]`` puts them inside shell code: the dash check
and the code scan never saw them, since they are no argv element. :func:`xargs_problems`
reads such a command as if the stdin's words were a value at the end of its argv (or at each
argument holding the replace string).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolhost.backends.code_args import CodeSlot, Token, code_slots, program_name, run_chain
from toolhost.backends.code_wrappers import wrapper_targets

__all__ = ["arg_file_value", "split_env_s", "stdin_code_file", "xargs_problems"]

Found = tuple[str, str, str]
_STDIN = ".stdin"
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash"})


def xargs_problems(tokens: Sequence[Token], dash_ok: bool, code: bool,
                   key: str = _STDIN) -> list[Found]:
    """Problems of a stdin that prints a value into ``xargs`` (``dash_ok``: every param it
    prints is in ``allow_dash``; ``code``: check code, not turned off by
    ``unsafe_code_placeholders``); with ``key``, of the file a value names for ``xargs -a``
    (located there)."""
    runs = run_chain(tokens)
    for k, token in enumerate(tokens):
        if token.value or program_name(token.text) != "xargs":
            continue
        targets = wrapper_targets(tokens, k, "xargs")
        starts = [s for s in (targets.starts if targets else ()) if s in runs]
        for start in starts:
            found = _one(tokens, k, start, dash_ok, code)
            if found:
                if key != _STDIN:  # the words come from a file a value names (xargs -a)
                    return [(m.replace("a placeholder in the stdin of xargs", "a value "
                                       "names the file xargs -a reads its words from"),
                             key, h) for m, _, h in found]
                return found
    return []


def arg_file_value(tokens: Sequence[Token]) -> str | None:
    """The key of a value naming the file ``xargs -a``/``--arg-file`` reads its words from:
    the model then chooses the words, as with a stdin that prints a value."""
    for k, token in enumerate(tokens):
        if token.value or program_name(token.text) != "xargs":
            continue
        for j in range(k + 1, len(tokens)):
            text = tokens[j].text
            if tokens[j].value:
                if text.startswith(("-a", "--arg-file=")):
                    return tokens[j].key
                break
            if not text.startswith("-"):
                break
            if text in ("-a", "--arg-file") and j + 1 < len(tokens) and tokens[j + 1].value:
                return tokens[j + 1].key
    return None


def _replace(tokens: Sequence[Token], k: int, start: int) -> str | None:
    """xargs's replace string (-I R, -IR, -i, -iR, --replace[=R]), or None."""
    for j in range(k + 1, start):
        text = tokens[j].text
        if text == "-I" and j + 1 < start:
            return tokens[j + 1].text
        if text.startswith("-I") and len(text) > 2:
            return text[2:]
        if text.startswith("-i") or text == "--replace":
            return text[2:] or "{}"
        if text.startswith("--replace="):
            return text[len("--replace="):] or "{}"
    return None


def _one(tokens: Sequence[Token], k: int, start: int, dash_ok: bool,
         code: bool) -> list[Found]:
    program = tokens[start].text
    command = list(tokens[start:])
    replace = _replace(tokens, k, start)
    if replace:
        command = [Token(_STDIN, t.text, True) if replace in t.text and n else t
                   for n, t in enumerate(command)]
    else:
        command.append(Token(_STDIN, "", True))
    if code and any(slot.key == _STDIN for slot in code_slots(command)):
        return [(f"a placeholder in the stdin of xargs, which passes its words to {program} "
                 "as code or as the program to run: a value would become code", _STDIN,
                 "pass the values as data arguments (sh -c 'cmd \"$@\"' sh), or set "
                 "unsafe_code_placeholders: true if you have checked it")]
    if dash_ok or (program_name(program) in _SHELLS and any(t.text == "-c" for t in command)):
        return []  # after `sh -c SCRIPT NAME` the words are $1, $2 ...: data
    for token in command[1:]:
        if token.text == "--" and not token.value:
            return []
        if token.key == _STDIN and (not replace or token.text.startswith(replace)):
            return [(f"a placeholder in the stdin of xargs, which makes its words arguments "
                     f"of {program} with no '--' before them: a word starting with '-' would "
                     "be an option", _STDIN,
                     f"put a literal '--' after {program}'s options, or list the params the "
                     "stdin prints in allow_dash if they may be options")]
    return []


# names a program opens to read its stdin, where it takes a file: `-` by convention
_STDIN_NAMES = r"(-|/dev/stdin|/dev/fd/0|/proc/self/fd/0)"
_STDIN_FILE = re.compile(rf"{_STDIN_NAMES}|-[A-Za-z0-9]+{_STDIN_NAMES}|--[\w.-]+={_STDIN_NAMES}")


def stdin_code_file(tokens: Sequence[Token]) -> CodeSlot | None:
    """The code slot a literal ``-`` or ``/dev/stdin`` fills, making the stdin the code: a
    configuration or script file named so (``curl -K -``, ``sed -f -``, ``make -f -``,
    ``ssh -F /dev/stdin``, ``node -r /dev/stdin``, ``bash /dev/stdin``). Such a word is read
    as if the stdin's value stood there."""
    if not any(_STDIN_FILE.fullmatch(t.text) for t in tokens if not t.value):
        return None
    marked = [Token(_STDIN, t.text, True) if not t.value and _STDIN_FILE.fullmatch(t.text)
              else Token(t.key, t.text, False) for t in tokens]
    return next((slot for slot in code_slots(marked) if slot.key == _STDIN), None)


def split_env_s(tokens: Sequence[Token]) -> list[Token]:
    """``tokens`` with a literal ``env -S "sh -e"`` split as env splits it, so the stdin check
    sees the program (``sh``) that reads the stdin; unchanged when there is none."""
    for k, token in enumerate(tokens[:-1]):
        if token.value or program_name(token.text) != "env":
            continue
        for j in range(k + 1, len(tokens)):
            text = tokens[j].text
            if tokens[j].value or not text.startswith("-"):
                break
            string, end = None, j + 1
            if text in ("-S", "--split-string") and j + 1 < len(tokens) \
                    and not tokens[j + 1].value:
                string, end = tokens[j + 1].text, j + 2
            elif text.startswith("-S") and len(text) > 2:
                string = text[2:]
            elif text.startswith("--split-string="):
                string = text[len("--split-string="):]
            if string is not None:
                import shlex  # only for this rare form

                try:
                    words = shlex.split(string)
                except ValueError:
                    return list(tokens)
                split = [Token(tokens[j].key, w, False) for w in words]
                return [*tokens[:k + 1], *split, *tokens[end:]]
    return list(tokens)
