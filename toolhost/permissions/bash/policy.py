"""The Bash part of a compiled policy: which Bash rules a command can meet, what cannot be
proven about a command, and a compound command allowed one program at a time.

``toolhost.permissions.policy`` loads this module with the first Bash rule or Bash call. It
brings the shell parser and the content matchers (``shell``, ``programs``, ``content``),
which a config without such rules never needs: ``serve`` and ``validate`` start without
them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from toolhost.permissions.bash.forms import TOO_MANY_FORMS, command_forms, fed_forms
from toolhost.permissions.bash.handed import handed_reason, local_strings
from toolhost.permissions.bash.inline_run import inline_run_reason
from toolhost.permissions.bash.interpreters import shell_reads_input
from toolhost.permissions.bash.programs import SHELLS, analyze_line
from toolhost.permissions.bash.runners import is_runner, runner_strings
from toolhost.permissions.bash.selfrun import ran_or_later, self_run_reason
from toolhost.permissions.bash.synonyms import synonym_forms
from toolhost.permissions.content import BashMatcher, cover_steps
from toolhost.permissions.decision import Decision
from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.later.files import quick, run_later_path, run_later_reason
from toolhost.permissions.later.tasks import may_name_tasks, tasks_reason
from toolhost.permissions.later.words import later_words_reason
from toolhost.permissions.policy_says import FORMS_CUT_REASON
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, Word, parse_command

if TYPE_CHECKING:
    from toolhost.permissions.rules import CompiledRule

__all__ = ["allow_each_command", "command_positions", "unprovable"]

# python's -W, also bundled after other flags (-uW): its filter may import a module
_W_OPTION = re.compile(r"-[A-Za-z]*W")

def command_positions(command: Any, unkeyed: Sequence[int],
                      by_word: Mapping[str, Sequence[int]], count: int) -> list[int]:
    """Positions of the Bash rules that can match ``command``: those bucketed under one of its
    first words, and the ``unkeyed`` ones (all ``count`` rules if it does not parse)."""
    try:
        parsed = parse_command(command) if isinstance(command, str) else None
    except ShellSyntaxError:
        parsed = None
    if parsed is None:
        return list(range(count))
    firsts = {seg.split(" ", 1)[0] for seg in parsed.joined}
    forms = [form for words in parsed.segments + parsed.nested  # deny rules see through
             for form in command_forms(words)]  # sudo, env, ...
    if TOO_MANY_FORMS in forms:  # every rule may match what was cut off
        return list(range(count))
    fed = fed_forms(command, forms)
    if TOO_MANY_FORMS in fed:  # (a document too long to look at whole)
        return list(range(count))
    # and the code an interpreter reads, and the other spellings of a command (npx: npm)
    for form in forms + fed + synonym_forms(forms):
        first = " ".join(form).split(" ", 1)[0]
        firsts.update((first, first.rsplit("/", 1)[-1]))  # (rules key a path by its name)
    for steps in analyze_line(command).steps:  # and every step the analysis proves runs
        for step in steps:
            words = step.words[step.offset:] if step.kind in ("assign", "assign_command") \
                else step.words
            if words:
                firsts.update((words[0], words[0].rsplit("/", 1)[-1]))
    positions = list(unkeyed)
    for word in firsts:
        positions += by_word.get(word, ())
    return sorted(set(positions))


def unprovable(command: str, cwd: str | None = None,
               judge: Callable[[list[str | None]], bool] | None = None) -> str | None:
    """Why the programs of a Bash command cannot be proven (None: they can). With ``cwd``
    (the directory the command runs in), a patch it applies is read (``later.patch``), an
    archive it unpacks is listed (``later.archive``), and what a git command brings from
    another commit is read (``later.git``; ``judge`` says whether a deny or ask Bash rule
    meets the text of a run-later file it brings)."""
    if "\x00" in command:  # bash drops a NUL it reads from a script (`\0rm x` is `rm x`)
        return "it holds a NUL character, which a shell may drop or stop at"
    try:
        reason = analyze_line(command).reason or _fed_shell(parsed := parse_command(command))
        if reason is None and quick(command):  # a file a later command runs
            reason = run_later_reason(parsed, command)
        if reason is not None:
            return reason
        seen = _unquoted(command, parsed)  # (m''ake x runs make: its words, quotes removed)
        # what a patch, an archive or git brings: a file run later, or by this line itself
        later = ran_or_later(parsed, run_later_path) \
            if _patches(seen) or _unpacks(seen) or _brings(seen) else run_later_path
        if cwd is not None and _patches(seen):
            from toolhost.permissions.later.patch import patched_later

            reason = patched_later(parsed, command, cwd, later)
        if reason is None and cwd is not None and _unpacks(seen):
            from toolhost.permissions.later.archive import unpacked_later

            reason = unpacked_later(parsed, cwd, later)
        if reason is None:  # (a differential run under bash): a command line a
            # program hands a shell, a script the line writes, code that can run a command
            forms = [f for words in parsed.segments + parsed.nested for f in command_forms(words)]
            if TOO_MANY_FORMS in forms:
                return FORMS_CUT_REASON
            reason = handed_reason(parsed, text=command) or self_run_reason(parsed) or (
                inline_run_reason(forms, command)) or later_words_reason(parsed, command)
        if reason is None and judge is not None:  # env -C, git x::, vim -s ...
            from toolhost.permissions.bash.chosen_code import chosen_code_reason

            reason = chosen_code_reason(forms) if judge([None]) else None
        if reason is None and cwd is not None and judge is not None and (
                "=" in command or _W_OPTION.search(command)) \
                and judge([None]):  # PYTHONPATH=, PERL5OPT=, NODE_OPTIONS=, python -W ...
            from toolhost.permissions.bash.loader_env import loader_env_reason

            reason = loader_env_reason(forms, cwd, parsed)
        if reason is None and cwd is not None and judge is not None and judge([None]):
            from toolhost.permissions.bash.path_entries import relative_path_reason

            reason = relative_path_reason(forms, cwd, parsed)  # PATH=.:... finds ./git
        if reason is None and judge is not None and judge([None]):  # ~/.ssh/config
            from toolhost.permissions.bash.home_config import home_config_reason

            reason = home_config_reason(forms, cwd, parsed)
            if reason is None and cwd is not None:  # asdf path: versions, mise
                from toolhost.permissions.bash.version_managers import version_manager_reason

                reason = version_manager_reason(forms, cwd, parsed)
        if reason is None and cwd is not None:  # a script an earlier call wrote
            from toolhost.permissions.later.script import script_reason

            reason = script_reason(parsed, cwd, judge)
        if reason is None and cwd is not None and judge is not None and _makes(seen):
            from toolhost.permissions.later.make import make_reason

            reason = make_reason(parsed, command, cwd, judge, unprovable)
        if reason is None and cwd is not None and judge is not None and _scripts(seen):
            from toolhost.permissions.later.package import scripts_reason

            reason = scripts_reason(parsed, command, cwd, judge, unprovable)
        if reason is None and judge is not None and may_name_tasks(seen):
            reason = tasks_reason(parsed, judge)  # just, task, tox, gradle...
        if reason is None and cwd is not None and judge is not None and (
                "python" in seen or "pypy" in seen or "rust" in seen or "cargo" in seen
                or "clippy" in seen or "rls" in seen):
            reason = _chosen_by_directory(forms, command, cwd, judge, parsed)
        if reason is None and cwd is not None and _brings(seen):
            from toolhost.permissions.later.git import brought_later

            reason = brought_later(parsed, cwd, later, judge)
        if reason is None and cwd is not None and judge is not None and "git" in seen:
            from toolhost.permissions.git.config_runs import config_reason

            reason = config_reason(parsed, command, cwd, judge, unprovable)
        if reason is None and cwd is not None and judge is not None:
            reason = _handed_reads(parsed, cwd, judge)
        return reason
    except ShellSyntaxError as exc:
        return f"it does not parse: {exc}"


def _chosen_by_directory(forms: list[tuple[str, ...]], command: str, cwd: str,
                         judge: Callable[[list[str | None]], bool],
                         parsed: ParsedCommand) -> str | None:
    """A module python imports from the current directory (``json.py``), a rust toolchain
    a ``rust-toolchain.toml`` names by a path: what runs in place of the program named."""
    from toolhost.permissions.later.shadow import shadow_reason
    from toolhost.permissions.later.toolchain import toolchain_reason

    return shadow_reason(forms, cwd, judge, parsed) or toolchain_reason(forms, command, cwd, judge)


def _handed_reads(parsed: ParsedCommand, cwd: str,
                  judge: Callable[[list[str | None]], bool]) -> str | None:
    """What a local shell's ``-c`` string reads here (``bash -c 'make x'``,
    ``sh -c 'bash s.sh'``, ``env bash -c ...``, ``xargs sh -c ...``): the scripts, Makefiles,
    patches, archives and repositories it runs, judged as on the line itself (two deep)."""
    depth = _HANDED.get()
    if depth >= 2:
        return None
    for words in parsed.segments + parsed.nested:
        if not any(w.rsplit("/", 1)[-1] in SHELLS or is_runner(w.rsplit("/", 1)[-1])
                   or "=" in w or w.rsplit("/", 1)[-1] in _HANDS_STRINGS for w in words):
            continue
        for form in command_forms(words):
            name = form[0].rsplit("/", 1)[-1] if form else ""
            if name in SHELLS:
                texts = _dash_c(form)
            else:  # `git rebase -x 'make t'`, `hyperfine 'sh s.sh'`;
                # `tar --to-command=./x`, `rsync -e ./x`, `git -c core.pager=./x`, `PAGER=./x`
                texts = [t for t in dict.fromkeys(
                    [*(runner_strings(name, form) if is_runner(name) else ()),
                     *local_strings(form)]) if _may_read(t)]
                if len(texts) > _MAX_HANDED and judge([None]):  # (each may read a Makefile,
                    # two deep: bounded; only where a deny or ask Bash rule exists)
                    return (f"{name} is handed more than {_MAX_HANDED} command lines that "
                            "run files here, too many to read")
            for text in texts:
                token = _HANDED.set(depth + 1)
                try:
                    why = unprovable(text, cwd, judge)
                finally:
                    _HANDED.reset(token)
                if why is not None and not why.startswith("it does not parse"):
                    who = "the shell it starts" if name in SHELLS else (
                        f"{form[0].partition('=')[0]}=" if "=" in form[0] else name)
                    return f"{who} runs {text[:60]!r}, which {why}"
    return None


def _may_read(text: str) -> bool:
    """Whether a command line a program is handed may run a file here: a Makefile, a
    package's scripts, a patch, an archive, git, a script (its first word a path, or a
    shell given words)."""
    words = text.split(None, 2)
    first = words[0] if words else ""
    # (a bare shell, `docker exec -it c bash`, reads what the person types there: as before)
    return reads_files(text) or "/" in first or "git" in text or (
        first in SHELLS and len(words) > 1)


def _dash_c(form: tuple[str, ...]) -> list[str]:
    """The command string of ``sh -c STR``, ``bash -lc STR``, ``bash -e -c STR``."""
    skip = False
    for k, word in enumerate(form[1:], 1):
        if skip:
            skip = False
        elif word in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            skip = True  # (its value)
        elif word == "--" or not word.startswith(("-", "+")):
            return []
        elif not word.startswith("--") and "c" in word:
            return list(form[k + 1:k + 2])
    return []


# programs whose option values (or leading assignments) are command lines they run here
# (command_strings): a quick look before their forms are made
_HANDS_STRINGS = frozenset({
    "tar", "gtar", "rsync", "zip", "man", "scp", "sftp", "wget", "sdiff", "diff3", "sort",
    "split", "rg", "nodemon", "tcpdump", "nc", "netcat", "ncat", "fzf", "bat", "aria2c",
    "cpio", "git", "sed", "gsed", "awk", "gawk", "mawk", "nawk", "vi", "vim", "nvim", "gvim",
    "view", "ex", "rvim", "vimdiff", "less", "more", "most", "gdb", "lldb", "gh", "glab",
    "npm", "pnpm", "yarn", "mlr", "miller", "go"})
_HANDED: ContextVar[int] = ContextVar("handed_depth", default=0)
_MAX_HANDED = 16  # the command lines one program is handed that are read (fail closed past)


def reads_files(command: str) -> bool:
    """Whether deciding ``command`` may read files or run git (a patch it applies, an archive
    it unpacks, what a git command brings): the decision may then wait on the disk or git
    (up to gitread's budget), so it is made off the event loop."""
    seen = command
    if "'" in command or '"' in command or "\\" in command:  # (else: the same words)
        with contextlib.suppress(ShellSyntaxError):
            seen = _unquoted(command, parse_command(command))
    return _patches(seen) or _unpacks(seen) or _makes(seen) or _brings(seen) or _scripts(seen)


def _unquoted(command: str, parsed: ParsedCommand) -> str:
    """The line as written and its words with quotes removed, for the quick looks for a
    program's name before anything is read (``g''it checkout x``, ``"make" x``)."""
    return command if parsed.text == command else f"{command}\n{parsed.text}"


# Each search is run only when the text holds a word its pattern needs: a substring test
# is a C scan, while ``\b(?:...)`` tries every alternative at every position (~2.4 us for a
# 50-character command, twice per Bash decision: here and in ``unprovable``). Same answers.
def _patches(text: str) -> bool:
    return ("am" in text or "apply" in text or "patch" in text) \
        and _PATCHERS.search(text) is not None


def _unpacks(text: str) -> bool:
    return ("tar" in text or "unzip" in text) and _UNPACKERS.search(text) is not None


def _makes(text: str) -> bool:
    return ("make" in text or "mk" in text) and _MAKES.search(text) is not None


def _scripts(text: str) -> bool:
    return ("npm" in text or "yarn" in text or "bun" in text or "--run" in text) \
        and _RUNS_SCRIPTS.search(text) is not None


def _brings(text: str) -> bool:
    return "git" in text and _GIT_BRINGS.search(text) is not None


# a package's script runner (later.package)
_RUNS_SCRIPTS = re.compile(r"\b(?:p?npm|yarn(?:pkg)?|bun)\b|(?<![\w-])--run\b")
# a patch applier's name (later.patch), looked for before anything is read
_PATCHERS = re.compile(r"\b(?:apply|am|g?patch)\b")
# a git subcommand that writes files from another commit (later.git)
# (the lookahead of their first letters lets the scan skip the other positions at once)
_GIT_BRINGS = re.compile(r"(?=[bcmprsw])\b(?:checkout|switch|reset|merge|pull|rebase"
                         r"|cherry-pick|revert|stash|restore|read-tree|worktree|clone"
                         r"|submodule|bisect)\b")
_UNPACKERS = re.compile(r"\b(?:g?tar|bsdtar|unzip)\b")  # (later.archive)
# (later.make; its MAKES and ALIKES)
_MAKES = re.compile(r"\b(?:g|gnu|re|b|p|bsd|f|pdp|k|d|n|color|s)?make(?:pp)?\b|\bk?mk\b")
# the programs ``shell_reads_input`` may find among a command's forms
_MAY_READ = SHELLS | {"ssh", "make", "gmake", "gnumake", "remake", "sudo", "doas", "su",
                      "sudo-rs", "run0"}


def _fed_shell(parsed: ParsedCommand) -> str | None:
    """A shell that a runner starts (``ssh h bash -s``, ``docker exec -i c sh``, ``ssh h``
    with no command: the remote login shell) reading its commands from a file or a pipe
    (``< s.sh``, ``cat s.sh |``): the commands are not on the line, as with a local
    ``bash < s.sh``, so it cannot be proven. What ``echo``/``printf`` of plain words or a
    ``cat`` of its here-document feeds it is on the line (the deny rules try it)."""
    if not any(parsed.fed):
        return None
    everything = parsed.words + parsed.nested_words
    for k, (fed, words) in enumerate(zip(parsed.fed, parsed.segments + parsed.nested,
                                         strict=False)):
        if not fed or not any(" " in w or "=" in w or w.rsplit("/", 1)[-1] in _MAY_READ
                              for w in words):  # (a quick look for a word that could
            continue  # start a shell, before the forms)
        if fed == "|" and k > 0 and _seen_producer(everything[k - 1], parsed.fed[k - 1]):
            continue
        if any(shell_reads_input(f) for f in command_forms(words) if f):
            return (f"{words[0]!r} starts a shell that reads its commands from a file or "
                    "a pipe, which the rules cannot see")
    return None


def _seen_producer(words: tuple[Word, ...], fed: str) -> bool:
    """``echo 'rm x'``, ``printf '%s\\n' ls``, ``cat`` (of a here-document): what it writes
    is on the line."""
    if not words or not all(w.plain for w in words):
        return False
    name = words[0].value
    return name in ("echo", "printf") or (
        name == "cat" and not fed and all(w.value.startswith("-") for w in words[1:]))


def allow_each_command(rules: Sequence[CompiledRule],
                       applicable: Callable[[Mapping[str, Any]], Iterable[CompiledRule]],
                       tool_input: Mapping[str, Any]) -> Decision | None:
    """A command no single allow rule covers is allowed when each of its commands (and
    each wrapper and program within one: ``sudo npm test`` needs ``sudo`` and ``npm
    test`` allowed) is allowed by some Bash allow rule (as in Claude Code). Only rules
    without rewrites; their conditions and expr must hold for the whole input.

    ``rules`` are the policy's rules in evaluation order; ``applicable`` gives the Bash
    rules that can match an input (the policy's plan for Bash)."""
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None
    try:
        parsed = parse_command(command)
    except ShellSyntaxError:
        return None
    analysis = analyze_line(command)
    if parsed.opaque or analysis.reason is not None or not any(analysis.steps):
        return None
    candidates: dict[int, CompiledRule] = {}
    for steps in analysis.steps:
        for step in steps:
            for rule in applicable({"command": step.text}):
                candidates.setdefault(id(rule), rule)
    matchers: list[tuple[BashMatcher, CompiledRule]] = []
    for rule in sorted(candidates.values(), key=rules.index):
        if rule.effect != "allow" or rule.rewrite is not None or not isinstance(
                rule.content, BashMatcher) or rule.content.whole:
            continue
        try:
            if all(c.holds(tool_input, strict=True) for c in rule.conditions) and (
                    rule.expr is None or rule.expr.holds("Bash", tool_input)):
                matchers.append((rule.content, rule))
        except ExprError:
            continue
    used: list[CompiledRule] = []
    for steps in analysis.steps:
        covered = cover_steps(steps, matchers)
        if covered is None:
            return None
        used += covered
    if not used:
        return None
    texts = list(dict.fromkeys(rule.text for rule in used))
    return Decision("allow", rule=" + ".join(texts), origin=used[0].origin)
