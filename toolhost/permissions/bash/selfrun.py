"""A file a line writes and then runs.

``bash s.sh``, ``source ./env.sh``, ``./build.sh`` and ``python3 x.py`` have the shell or
interpreter as their program: the script is not on the line (docs/permissions.md, step 5).
But ``echo 'rm -rf y' > s; bash s`` (or ``printf ... > s; . ./s``, ``cat > s <<EOF ... EOF
chmod +x s; ./s``, ``echo ... | tee s; sh s``) writes the script on the same line: a deny
rule never saw ``rm``, and ``allow: Bash`` allowed it. A line that writes a file (by a
redirection, or as the target of a writer: ``tee``, ``cp``, ``mv``, ``ln``, ``install``,
``dd``, ``curl``, ``wget`` ...) and runs a file of that name as a script, a sourced file or a
program named by its path is not provable; so is one that runs such a file while a target it
writes is not a plain literal (``> $F``, ``> s*``): it may be the same file.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable

from toolhost.permissions.bash.budget import scan_line
from toolhost.permissions.bash.programs import SHELLS
from toolhost.permissions.later.files import PACKAGERS as _PACKAGERS
from toolhost.permissions.later.files import past_wrappers, reader
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["ran_or_later", "self_run_reason"]

# a program that runs its first operand as a script of its language
_SCRIPTED = SHELLS | {"source", ".", "python", "python2", "python3", "perl", "ruby", "node",
                      "nodejs", "php", "lua", "bun", "deno", "Rscript", "tclsh", "awk",
                      "gawk", "mawk", "sed", "make", "gmake", "fish", "zsh"}
_WRITERS = frozenset({"tee", "cp", "mv", "ln", "install", "dd", "rsync", "curl", "wget",
                      "gcp", "gmv", "gln", "ginstall", "gtee", "scp", "truncate"})
_OPEN = frozenset("$`*?[{~\\")  # a target that may name any file
_GLOB = frozenset("*?[")
# builtins that write no file whatever their words (`export X=$Y`, `cd $D`)
_QUIET = frozenset({"export", "set", "unset", "local", "declare", "typeset", "readonly", "cd",
                    "pushd", "popd", "shift", "true", "false", ":", "exit", "return", "wait",
                    "sleep", "echo", "printf", "test", "[", "[[", "shopt", "trap", "alias"})
# programs that write files whose names they make up from a prefix (``split f x`` writes
# ``xaa``, ``csplit`` ``xx00``, ``git format-patch`` ``0001-*.patch``): the name run is
# nowhere on the line
_PREFIXED = frozenset({"split", "gsplit", "csplit", "gcsplit", "format-patch"})
# programs that write files named and filled by data the rules do not read (an archive
# ``later.archive`` cannot list, an encoded file, a repository or package fetched over the
# network): a file the line runs after one may be one of them
_UNSEEN = frozenset({"7z", "7za", "7zr", "7zz", "unrar", "unar", "lsar", "cpio", "bsdcpio",
                     "pax", "uudecode", "rpm2cpio", "unsquashfs", "cabextract", "lha",
                     "unarj", "jar", "dpkg-deb", "ar", "shar", "unshar", "busybox"})
# the same, as a subcommand of the program before it (``git clone``, ``gh repo clone``)
# the programs whose files ``later.patch``, ``later.archive`` and ``later.git`` read
_BRINGERS = frozenset({"git", "tar", "gtar", "bsdtar", "unzip", "patch", "gpatch"})
_UNSEEN_SUBS = {"git": frozenset({"clone", "am", "submodule", "subtree", "bundle", "pull"}),
                "gh": frozenset({"clone"}), "glab": frozenset({"clone"}),
                "hg": frozenset({"clone", "pull", "update", "unbundle"}),
                "svn": frozenset({"checkout", "co", "export", "update", "up"}),
                "bzr": frozenset({"branch", "checkout", "pull"}),
                "pip": frozenset({"download"}), "pip3": frozenset({"download"}),
                "npm": frozenset({"pack"}), "go": frozenset({"get"})}
# compilers: what they write is a program, run by its path as one built on the line
_BUILDERS = frozenset({"cc", "gcc", "g++", "c++", "clang", "clang++", "tcc", "ld", "rustc",
                       "go", "javac", "gfortran", "swiftc", "zig", "nim", "ghc"})
_MAKES = frozenset({"make", "gmake"})
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# a package's script runner (``later.package``) runs the scripts of the package.json it
# finds, in the shell its rc files name: a line bringing one of them changes what it runs
# (``git checkout other && npm test``)
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "yarnpkg", "bun"})
_PACKAGE_FILES = ("package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", "bunfig.toml",
                  ".pnpmfile.cjs", "pnpm-workspace.yaml")


def _norm(path: str) -> str:
    """A file's name without its directory (``./s``, ``d/s`` and ``/tmp/d/s`` are all ``s``:
    a ``cd`` between the write and the run, fail closed)."""
    return posixpath.basename(posixpath.normpath(path)) if path else path


def _runs(words: tuple[Word, ...]) -> list[Word]:
    """The files ``words`` runs: a program named by a path, a script or sourced file, a file
    named by an option that reads a script (``awk -f``, ``sed -f``, ``make -f``)."""
    at = past_wrappers(words)
    if at >= len(words):
        return []
    program = words[at]
    out = [program] if "/" in program.value else []
    name = program.value.rsplit("/", 1)[-1]
    rest = words[at + 1:]
    if name in _SCRIPTED or any(name.startswith(p) for p in ("python", "perl", "ruby")):
        operands = [w for w in rest if not w.value.startswith("-")]
        files = [rest[k + 1] for k, w in enumerate(rest[:-1]) if w.value in ("-f", "--file")]
        if name in _MAKES:  # its operands are goals; it runs its Makefile
            out += files or [Word(n, n, True) for n in _MAKEFILES]
        else:
            out += operands[:1] + files
    return out


def _written(parsed: ParsedCommand) -> list[str]:
    targets = [t for _words, files, _doc in parsed.writes for t in files]
    for words in parsed.words + parsed.nested_words:
        names = [w.value.rsplit("/", 1)[-1] for w in words]
        at = past_wrappers(words)
        if at < len(names) and (names[at] in _PACKAGERS or (
                names[at].startswith("python") and names[at + 1:at + 2] == ["-m"])):
            continue  # goals, packages, a module's words (`make install`, `pip install`)
        if any(n in _WRITERS for n in names):  # its operands may be what it writes
            targets += [w.raw for w in words[1:] if not w.value.startswith("-")]
            targets += [w.value.partition("=")[2] for w in words if w.value.startswith(
                ("of=", "--output=", "--output-document="))]
    return targets


def self_run_reason(parsed: ParsedCommand) -> str | None:
    """Why ``parsed`` runs a file it writes itself (None: it runs none it writes)."""
    segments = parsed.words + parsed.nested_words
    runs = [(k, w) for k, words in enumerate(segments) for w in _runs(words)]
    if not runs:
        return None
    if any(_PREFIXED & {w.value.rsplit("/", 1)[-1] for w in words} for words in segments):
        return (f"it runs {runs[0][1].raw!r} after a command that writes files whose names it "
                "makes up: what it runs may be one of them")
    first = min(k for k, _w in runs)
    unseen = next((words for words in segments[:max(first, 1)] if _brings_unseen(words)), None)
    if unseen is not None:
        return (f"it runs {runs[0][1].raw!r} after {_name(unseen)!r}, which writes files "
                "named and filled by data the rules do not read: what it runs may be one of "
                "them")
    written = _written(parsed)
    if written:
        names = {_norm(t) for t in written}
        for _k, run in runs:
            if not run.plain or _norm(run.value) in names or any(
                    _OPEN & set(t) for t in written):
                return (f"it writes the file {run.raw!r} runs and then runs it: what it runs "
                        "is not on the line as a command")
    return _named_elsewhere(segments, runs, parsed)


def _named_elsewhere(segments: list[tuple[Word, ...]], runs: list[tuple[int, Word]],
                     parsed: ParsedCommand) -> str | None:
    """A run file another command of the line names that is not known to write nothing it
    names (``files.reader``): it may write it by an option of its own (``sort -o x.sh``,
    ``git diff --output=x.sh``, ``find -fprintf x.sh``, ``openssl -out x.sh``). A compiler's
    output run as a program is a program built on the line (decided as before)."""
    texts = ["" if not words or reader(words) else "\0".join(
        w.value for w in words[past_wrappers(words) + 1:]).lower() for words in segments]
    # (a glob the shell expands to the run file: `sort -o x.s? f; bash x.sh`; an expansion
    # may be any name: `F=x.sh; sort -o $F f; bash x.sh`)
    globs = [["*" if "$" in w.raw or "`" in w.raw else _norm(w.value).lower() for w in words
              if not w.plain or _GLOB & set(w.value)]
             if text and _name(words) not in _QUIET else []
             for words, text in zip(segments, texts, strict=True)]
    builders = {k for k, words in enumerate(segments) if words and words[past_wrappers(
        words)].value.rsplit("/", 1)[-1] in _BUILDERS and not any(w.value == "-E" for w in words)}
    hits: dict[str, set[int]] = {}
    for k, run in runs:
        base = _norm(run.value).lower()  # (macOS and Windows: any case is the same file)
        if not base:
            continue
        if base not in hits:
            scan_line(parsed)  # (once for each name run)
            hits[base] = {i for i, text in enumerate(texts) if base in text or any(
                fnmatch.fnmatchcase(base, g) for g in globs[i])}
        own = segments[k]
        by_path = bool(own) and run is own[past_wrappers(own)]
        if hits[base] - {k} - (builders if by_path else set()):
            return (f"it runs {run.raw!r}, which another command of the line names and may "
                    "write first: what it runs is not on the line as a command")
    return None


def _brings_unseen(words: tuple[Word, ...]) -> bool:
    """Whether ``words`` run a program of ``_UNSEEN`` or ``_UNSEEN_SUBS`` (past wrappers)."""
    at = past_wrappers(words)
    names = [w.value.rsplit("/", 1)[-1] for w in words[at:]]
    if not names:
        return False
    subs = _UNSEEN_SUBS.get(names[0])
    return names[0] in _UNSEEN or (subs is not None and any(n in subs for n in names[1:]))


def ran_or_later(parsed: ParsedCommand,
                 later: Callable[[str], bool]) -> Callable[[str], bool]:
    """``later`` (a file a later command runs), widened to the files ``parsed`` itself runs
    (by name, any case, in any directory: fail closed): a patch, an archive or a git command
    of the line that brings one of them changes what the line goes on to run
    (``git checkout other && bash run.sh``, ``tar xf a.tar; ./run.sh``, ``git checkout
    other && make``)."""
    first = next((k for k, words in enumerate(parsed.words) if _name(words) in _BRINGERS),
                 0)  # (a run before the first command that may bring files is no matter)
    ran = frozenset(_norm(w.value).lower() for words in parsed.words[first:] + parsed.nested_words
                    for w in _runs(words) + _package_files(words))
    if not ran:
        return later
    return lambda path: later(path) or _norm(path.rstrip("/")).lower() in ran


def _package_files(words: tuple[Word, ...]) -> list[Word]:
    """The files a package's script runner ``words`` runs reads (``later.package``: its
    package.json and rc files; none for another program)."""
    at = past_wrappers(words)
    name = words[at].value.rsplit("/", 1)[-1] if at < len(words) else ""
    if name in _SCRIPT_RUNNERS or (name in ("node", "nodejs") and any(
            w.value == "--run" or w.value.startswith("--run=") for w in words[at + 1:])):
        return [Word(n, n, True) for n in _PACKAGE_FILES]
    return []


def _name(words: tuple[Word, ...]) -> str:
    """The program ``words`` runs past plain wrappers (its name)."""
    return words[past_wrappers(words)].value.rsplit("/", 1)[-1] if words else ""
