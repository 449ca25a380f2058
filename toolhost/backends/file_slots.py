"""Options whose argument is a file the program sends off the machine.

A value there is a path the config meant the model to choose (``[curl, -T, "{{ file }}",
URL]`` is an upload tool), so it loads; but the model then chooses which of the user's files
leaves the machine (``~/.ssh/id_rsa`` as well as ``report.pdf``). ``validate`` notes each
such position, naming the param and the way to bound it: a permission rule on the param
(``when: {file: {path_under: ./outbox}}``) or the directory written in the config. Files a
program reads as code or configuration (``curl -K``, ``wget --config``) are load errors
(``code_opts``); a value that turns data into a file read (curl ``-d @f``, ``-b f``) is
refused at the call (``file_values``).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_args import Token, program_name, run_programs

__all__ = ["sent_file_slots"]

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
