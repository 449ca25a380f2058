"""Options whose argument is a file the program sends off the machine, or overwrites.

A value there is a path the config meant the model to choose (``[curl, -T, "{{ file }}",
URL]`` is an upload tool), so it loads; but the model then chooses which of the user's files
leaves the machine (``~/.ssh/id_rsa`` as well as ``report.pdf``). ``validate`` notes each
such position, naming the param and the way to bound it: a permission rule on the param
(``when: {file: {path_under: ./outbox}}``) or the directory written in the config. Files a
program reads as code or configuration (``curl -K``, ``wget --config``) are load errors
(``code_opts``); a value that turns data into a file read (curl ``-d @f``, ``-b f``) is
refused at the call (``file_values``).

find's ``-fprint``, ``-fprint0``, ``-fls`` and ``-fprintf`` truncate the file they name and
write to it: a value there chooses which of the user's files is replaced (a note), and with
``-fprintf FILE FORMAT`` both values choose any text in any file the user can write (a
shell's rc file, a git hook: code that runs later), a load error (``written_file_slots``).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_args import Token, program_name, run_programs

__all__ = ["sent_file_slots", "written_file_slots"]

# program -> options whose argument is a file it reads and sends
_SENDS: dict[str, frozenset[str]] = {
    "curl": frozenset({"-T", "--upload-file", "--etag-compare"}),
    "wget": frozenset({"--post-file", "--body-file", "-i", "--input-file"}),
    "rsync": frozenset({"--password-file"}),
}


def sent_file_slots(tokens: Sequence[Token]) -> list[tuple[str, str, str]]:
    """(key, program, option) for each position where a value names a file the program
    reads and sends (the option's next argument, or glued ``-T{{ f }}``/``--opt={{ f }}``)."""
    found: list[tuple[str, str, str]] = []
    if not any(program_name(t.text) in _SENDS for t in tokens):
        return found  # the common case, no program walk
    for at in run_programs(tokens):
        options = _SENDS.get(program_name(tokens[at].text))
        if not options:
            continue
        for j in range(at + 1, len(tokens)):
            token = tokens[j]
            if token.text == "--" and not token.value:
                break
            if not token.value and token.text in options and j + 1 < len(tokens) \
                    and tokens[j + 1].value:
                found.append((tokens[j + 1].key, program_name(tokens[at].text), token.text))
            elif token.value:
                glued = next((o for o in options if token.text.startswith(
                    o + "=" if o.startswith("--") else o) and len(token.text) > len(o)), None)
                if glued is not None:
                    found.append((token.key, program_name(tokens[at].text), glued))
    return found


_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})


def written_file_slots(tokens: Sequence[Token]) -> list[tuple[str, str, str, bool]]:
    """(key, program, option, whether a value also writes the text) for each position where a
    value names a file find truncates and writes (``-fprint {{ out }}``)."""
    found: list[tuple[str, str, str, bool]] = []
    if not any(program_name(t.text) == "find" for t in tokens):
        return found
    for at in run_programs(tokens):
        if program_name(tokens[at].text) != "find":
            continue
        for j in range(at + 1, len(tokens) - 1):
            token = tokens[j]
            if token.value or token.text not in _FIND_WRITES or not tokens[j + 1].value:
                continue
            text = token.text == "-fprintf" and j + 2 < len(tokens) and tokens[j + 2].value
            found.append((tokens[j + 1].key, "find", token.text, text))
    return found
