"""After a command line is rendered: operands a value made more than a name.

``argv`` checks each value as it prints it (option characters, NUL); what a value makes an
*operand* mean depends on the program and the arguments around it, so these checks run once
the whole command line is known: another host's file (scp, rsync, tar), a connection string
(psql, mongosh, duckdb), a git remote helper or pathspec magic, a Mercurial or Jujutsu
pattern, a socat address, a file name a program opens as a command (perl, ImageMagick, ed),
a media player's URL, make's variable assignment, a dd/awk operand, an HTTP client's
non-http scheme, a header line break, an ``@file`` read, a URL whose host moved.
:func:`operand_problem` returns the first such problem as the message of the refusal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolhost.backends.bare_options import bare_option
from toolhost.backends.conn_strings import conn_string
from toolhost.backends.file_values import file_read, url_scheme
from toolhost.backends.git_pathspecs import pathspec_magic
from toolhost.backends.head_values import head_break
from toolhost.backends.make_values import make_assignment
from toolhost.backends.media_urls import media_url
from toolhost.backends.operand_reads import dd_operand
from toolhost.backends.pipe_operands import pipe_operand
from toolhost.backends.remote_operands import git_helper, remote_operand
from toolhost.backends.socat_addresses import socat_address
from toolhost.backends.url_values import url_value_problem
from toolhost.backends.vcs_patterns import vcs_pattern
from toolhost.excerpt import cut

__all__ = ["operand_problem"]


def operand_problem(program: str, out: Sequence[str], valued: Sequence[tuple[int, int]],
                    tails: Mapping[int, int], allow_remote: bool, cwd: str | None,
                    search: str | None) -> str | None:
    """Why the rendered command line ``out`` must not run, or None. ``valued``: (index in
    ``out``, length of the literal text before the value) of each argument printing a value;
    ``tails``: index -> length of the literal text after it; ``cwd``/``search``: where the
    spawn finds the program (a script's #! line is read)."""
    if not valued:
        return None
    return _hosts(out, valued, allow_remote) \
        or _vcs(out, valued, tails, allow_remote, cwd, search) \
        or _opened(out, valued, tails, cwd, search) or _files(program, out, valued, tails)


def _hosts(out: Sequence[str], valued: Sequence[tuple[int, int]],
           allow_remote: bool) -> str | None:
    remote = remote_operand(out, valued) if not allow_remote else None
    if remote is not None:
        return (
            f"the value makes {cut(remote, 60)!r} another host's file: it has a ':' "
            "before any '/', so the program would connect to that host with your keys "
            "(the config can write the path with a literal directory: \"./{{ name }}\", "
            "add --force-local for tar, or set allow_remote: true if the model may choose "
            "the host)")
    conn = conn_string(out, valued) if not allow_remote else None
    if conn is not None:
        return (
            f"the value makes {cut(conn[0], 60)!r} a connection string or a server "
            "address, not a database name: " + (
                "libpq reads 'host=', 'port=', 'user=' and 'postgresql://' there, over "
                "the config's -h/-p/-U" if conn[1] == "libpq" else
                "MongoDB reads 'host/db', 'host:port/db' and 'mongodb://' there"
                if conn[1] == "mongo" else
                "DuckDB opens 'md:' (MotherDuck), 's3://' and 'https://' databases")
            + ", so the program would connect to a server the model chose with your "
            "credentials (set allow_remote: true if the model may choose the server)")
    helper = git_helper(out, valued)
    if helper is not None:
        return (
            f"the value makes {cut(helper, 60)!r} a git remote of the form NAME::ADDRESS,"
            " so git would run the program git-remote-NAME (write the URL's scheme in "
            "the config: \"https://{{ url }}\")")
    return None


def _vcs(out: Sequence[str], valued: Sequence[tuple[int, int]], tails: Mapping[int, int],
         allow_remote: bool, cwd: str | None, search: str | None) -> str | None:
    magic = pathspec_magic(out, valued, cwd, search)
    if magic is not None:
        return (
            f"the value makes {cut(magic, 60)!r} git pathspec magic (':/', ':(top)', "
            "':!'), which names files outside the directory git runs in (the config can "
            "write the start of the path: \"./{{ f }}\", or pass --literal-pathspecs)")
    pattern = vcs_pattern(out, valued, tails, allow_remote, cwd, search)
    if pattern is not None:
        return f"the value makes {cut(pattern[0], 60)!r} {pattern[1]}"
    bare = bare_option(out, valued, cwd, search)
    if bare is not None:
        return f"the value makes {cut(bare[0], 60)!r} {bare[1]}"
    return None


def _opened(out: Sequence[str], valued: Sequence[tuple[int, int]], tails: Mapping[int, int],
            cwd: str | None, search: str | None) -> str | None:
    address = socat_address(out, valued, tails, cwd, search)
    if address is not None:
        return (
            f"the value makes {cut(address, 60)!r} a socat address of its own choosing "
            "(its type, an option after ',' or a second address after '!!': SYSTEM: and "
            "EXEC: run commands); the config writes the type and the options: "
            "\"TCP:{{ host }}:80\"")
    piped = pipe_operand(out, valued, cwd, search)
    if piped is not None:
        return (
            f"the value makes {cut(piped[0], 60)!r} a command, not a file name: "
            f"{piped[1]} (the config can write the start and the end of the name: "
            "\"./{{ name }}.txt\")")
    media = media_url(out, valued, cwd, search)
    if media is not None:
        return (
            f"the value makes {cut(media[0], 60)!r} more than a file name: {media[1]} "
            "(the config can write the start of the name: \"./{{ name }}\" or "
            "\"file:{{ name }}\")")
    assignment = make_assignment(out, valued)
    if assignment is not None:
        return (
            f"the value makes {cut(assignment, 60)!r} a variable assignment: make would "
            "override the Makefile's variable and expand it ($(shell CMD) runs a command; "
            "a recipe may run it), so the value may name a target but not hold '='")
    dd = dd_operand(out, valued, cwd, search)
    if dd is not None:
        return (
            f"the value makes {cut(dd[0], 60)!r} "
            f"{'an awk' if dd[1] == 'awk' else 'a dd'} operand of its own choosing "
            "(it wrote the '='): " + (
                "dd would read or write a file the config never named (the config writes "
                "the key: \"of={{ out }}\")" if dd[1] == "dd" else
                "awk would set that variable of its program instead of reading a file "
                "(the config writes the name: \"-v\", \"n={{ n }}\", or \"./{{ f }}\")"))
    return None


def _files(program: str, out: Sequence[str], valued: Sequence[tuple[int, int]],
           tails: Mapping[int, int]) -> str | None:
    """A value that makes an HTTP client read a file or use another scheme."""
    scheme = url_scheme(out, valued)
    if scheme is not None:
        return (
            f"the value makes {cut(scheme, 60)!r} a URL of a scheme other than http or "
            f"https, which '{program}' would use to read a local file or reach "
            "another host (the config can write the scheme: \"https://{{ host }}/\", "
            "or pass --proto to say which schemes it allows)")
    broken = head_break(out, valued)
    if broken is not None:
        return (
            f"the value writes a line break (CR or LF) into {cut(broken, 60)!r}, which "
            f"'{program}' reads line by line (a request head, php's INI settings): "
            "it would add headers, a second request or a setting the config never wrote "
            "(a body option such as curl -d takes line breaks)")
    read = file_read(out, valued)
    if read is not None:
        return (
            f"the value makes {cut(read, 60)!r} name a file ('@file', '<file', or a "
            f"cookie file: -b with no '=') that '{program}' would read and send, a "
            "file the config never named (write the '@' in the config if the value is "
            "meant to be a file name, or a prefix such as './' for a cookie file)")
    return url_value_problem(out, valued, tails)
