"""The ``command`` backend kind: run a program with an argv rendered from the arguments.

Config::

    grep:
      command:
        argv: [grep, "-n", "{% if ignore_case %}-i{% endif %}", "--",
               "{{ pattern }}", "{{ files }}"]
        stdout: text            # text | json (-> structuredContent) | lines
        ok_codes: [0, 1]        # grep exits 1 when nothing matched
      params:
        pattern: {type: string}
        files: {type: array, items: {type: string}}
        ignore_case: {type: boolean, default: false}

Never a shell: each argv element is rendered in the jinja2 sandbox and passed to the program as
one argument, so ``; rm -rf /`` from the model is just a string. The rules:

- An element that renders to the empty string is dropped (optional flags).
- An element that is exactly ``{{ name }}`` whose value is a list expands into one element per
  item (``files`` above). ``{each: name, argv: [...]}`` repeats a group per item, with the item
  as ``item``: ``{each: patterns, argv: ["-e", "{{ item }}"]}`` -> ``-e a -e b``.
- The program (the first element) must be literal: the model never chooses what runs.
- Placeholders that are not declared params become required string params.
"""

from __future__ import annotations

import dataclasses
import errno
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.backends import templating
from toolhost.backends.argv import ArgvConfigError, ArgvPlan, ArgvRefused, compile_argv
from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.command_checks import check_plan
from toolhost.backends.command_cwd import check_cwd, start_error
from toolhost.backends.command_options import OPTIONS_SCHEMA
from toolhost.backends.command_paths import repo_paths, repo_values
from toolhost.backends.convert import bytes_result, read_json
from toolhost.backends.link_names import LinkGuard, linked_problems
from toolhost.backends.max_memory import max_memory_bytes
from toolhost.backends.shebang import one_look
from toolhost.compile.jsoncut import json_why
from toolhost.config.model import ToolConfig
from toolhost.config.repotree import leaves_checkout
from toolhost.errors import CompileError
from toolhost.excerpt import cut, decode_cut
from toolhost.logformat import line_level
from toolhost.redaction import active
from toolhost.results import ToolResult

if TYPE_CHECKING:
    from toolhost.backends.process import Outcome

__all__ = ["CommandKind", "base_env"]

DEFAULT_MAX_OUTPUT_BYTES = 1_000_000
_BASE_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def base_env() -> dict[str, str]:
    """The minimal environment every command starts from."""
    environ = os.environ
    env = {k: environ[k] for k in _BASE_ENV_KEYS if k in environ}
    env.setdefault("PATH", os.defpath)
    return env


class CommandKind:
    """Runs a program with templated argv, stdin and env; never through a shell."""

    name = "command"
    shorthand: str | None = "argv"
    options_schema: Mapping[str, Any] = OPTIONS_SCHEMA

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        origin = tool.backend.origin
        opts = tool.backend.options

        def problem(message: str, key: str = "") -> CompileError:
            return CompileError([origin.problem(message, key=key)])

        try:
            plan = compile_argv(list(opts.get("argv") or ()), opts.get("allow_dash") or (),
                                opts.get("allow_remote") is True)
            stdin_t = templating.compile_template(opts["stdin"]) if "stdin" in opts else None
            env_t = {k: templating.compile_template(str(v))
                     for k, v in (opts.get("env") or {}).items()}
        except ArgvConfigError as exc:
            raise CompileError([origin.problem(str(exc), key=exc.key, hint=exc.hint)]) \
                from None
        except templating.TemplateError as exc:
            raise problem(f"template does not parse: {exc}", _template_key(exc, opts)) \
                from None
        sources = [*plan.sources, opts.get("stdin", ""),
                   *(str(v) for v in (opts.get("env") or {}).values())]
        names = (templating.placeholders(sources) | plan.group_names
                 | (templating.placeholders(plan.item_sources) - {"item"}))
        names -= templating.GLOBALS
        typo = templating.misspelt_placeholder(names, tool.params) \
            or templating.single_braced([*sources, *plan.item_sources], names, tool.params)
        if typo:
            raise problem(typo)
        problems = check_plan(plan, tool, names, opts)
        if problems:
            raise CompileError([origin.problem(m, key=k, hint=h) for m, k, h in problems])
        input_schema = templating.placeholder_schema(names, tool.params)
        unset = dict.fromkeys(set(names) | set(tool.params))  # left out: renders empty
        # one per server: the same for each of its tools, and never changed (a call copies it)
        env = ctx.shared("command.env", lambda: {**base_env(), **ctx.server.defaults.env})
        cwd = opts.get("cwd") or ctx.server.defaults.cwd
        if cwd and not os.path.isabs(cwd) and os.path.isfile(origin.file):
            written = cwd
            cwd = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(origin.file)),
                                                cwd))
            if (leaves := leaves_checkout(origin.file, cwd, written)) is not None:
                raise CompileError([origin.problem(leaves[0], key=".cwd", hint=leaves[1])])
        if cwd and (bad := check_cwd(cwd, own=bool(opts.get("cwd")))) is not None:
            raise CompileError([origin.problem(bad[0], key=bad[1], hint=bad[2])])
        plan, bad_paths = repo_paths(plan, origin.file, cwd)
        search = (opts.get("env") or {}).get("PATH") or env.get("PATH")
        plan = dataclasses.replace(plan, cwd=cwd or None, search_path=str(search or "") or None)
        bad_paths += repo_values(plan, origin.file, cwd, tool.params)
        if bad_paths:
            raise CompileError([origin.problem(m, key=k, hint=h) for m, k, h in bad_paths])
        # a program that is a link (myredis -> redis-cli) is checked as what it runs too
        loaded, linked = linked_problems(plan, tool, names, opts,
                                         ctx.shared("command.links", dict))  # one look a load
        if linked:
            raise CompileError([origin.problem(m, key=k, hint=h) for m, k, h in linked])
        links = LinkGuard(plan, tool, names, opts, loaded)
        max_bytes = int(opts.get("max_output_bytes") or DEFAULT_MAX_OUTPUT_BYTES)
        memory = max_memory_bytes(opts.get("max_memory"), 16 << 20)
        if isinstance(memory, str):
            raise problem(memory, ".max_memory")
        ok_codes = frozenset(opts.get("ok_codes") or (0,))
        parse = str(opts.get("stdout") or "text")
        mime = opts.get("mime_type") if isinstance(opts.get("mime_type"), str) else None
        stderr_to_log = opts.get("stderr") == "log"

        invoke = _Run(unset, plan, stdin_t, env_t, env, cwd, max_bytes, ok_codes, parse, mime,
                      stderr_to_log, links, memory)
        return Binding(invoke=invoke, input_schema=input_schema,
                       output="text" if parse in ("text", "binary") else "structured")


class _Run:
    """A command tool's call. An object rather than a closure: a closure over these is a dozen
    cells per tool, each an object the collector tracks (1,000 tools: 12,000)."""

    __slots__ = ("cwd", "env", "env_t", "links", "max_bytes", "memory", "mime", "ok_codes",
                 "parse", "plan", "stderr_to_log", "stdin_t", "unset")

    def __init__(self, unset: dict[str, None], plan: ArgvPlan,
                 stdin_t: templating.AnyTemplate | None, env_t: dict[str, templating.AnyTemplate],
                 env: dict[str, str], cwd: str | None, max_bytes: int,
                 ok_codes: frozenset[int], parse: str, mime: str | None,
                 stderr_to_log: bool, links: LinkGuard, memory: int = 0) -> None:
        self.unset, self.plan, self.stdin_t, self.env_t = unset, plan, stdin_t, env_t
        self.env, self.cwd, self.max_bytes, self.ok_codes = env, cwd, max_bytes, ok_codes
        self.parse, self.mime, self.stderr_to_log = parse, mime, stderr_to_log
        self.links, self.memory = links, memory

    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        context = {**self.unset, **arguments}
        stdin_t = self.stdin_t
        try:
            with one_look():  # the link look and the render's checks: one search a program
                linked = self.links.problem()  # a link made or moved since the load
                if linked is not None:
                    return ToolResult.error(f"Refused to run the command: {linked}.")
                argv = self.plan.render(context)
            stdin_text = stdin_t.render(context) if stdin_t is not None else None
            call_env = {**self.env, **{k: t.render(context) for k, t in self.env_t.items()}}
            _check_encodable(argv, stdin_text, call_env, arguments)
            _check_env_nul(self.env_t, call_env, arguments)
            stdin = stdin_text.encode() if stdin_text is not None else None
        except ArgvRefused as exc:
            return ToolResult.error(f"Refused to run the command: {exc}.")
        except templating.UnrenderableValue as exc:
            return ToolResult.error("Refused to run the command: "
                                    f"{templating.unrenderable_message(exc, arguments)}.")
        except templating.TemplateError as exc:
            return ToolResult.error(f"Could not build the command line: {exc}")
        on_stderr = _stderr_to_client(ctx) if self.stderr_to_log else None
        program = self.plan.program
        try:
            from toolhost.backends.process import run_process  # anyio: at call time

            outcome = await run_process(argv, stdin=stdin, env=call_env, cwd=self.cwd,
                                        max_output_bytes=self.max_bytes, on_stderr=on_stderr,
                                        max_memory=self.memory)
        except OSError as exc:  # no program, no cwd, E2BIG, ...
            if exc.errno == errno.E2BIG:  # name the value, not only the OS's words
                from toolhost.backends.command_e2big import too_long

                return ToolResult.error(too_long(program, argv, call_env, arguments))
            return ToolResult.error(start_error(exc, program, self.cwd))
        except ValueError as exc:
            return ToolResult.error(f"The program '{program}' could not be started: "
                                    f"{cut(str(exc), 300)}")
        return _result(outcome, self.ok_codes, self.parse, self.max_bytes, self.mime)


def _check_encodable(argv: list[str], stdin: str | None, env: Mapping[str, str],
                     arguments: Mapping[str, Any]) -> None:
    """Raise ``ArgvRefused`` when the command line, stdin or environment holds a lone
    surrogate (JSON can spell one, ``"\\ud800"``): it is not text, and the OS would either
    refuse it or, for U+DC80-U+DCFF, pass a raw byte the person never saw."""
    pieces = [*argv, *(() if stdin is None else (stdin,)), *env.keys(), *env.values()]
    for piece in pieces:
        try:
            piece.encode("utf-8")
        except UnicodeEncodeError as exc:
            char = piece[exc.start]
            where = _surrogate_argument(arguments)
            raise ArgvRefused(f"{where or 'a value'} holds U+{ord(char):04X}, a lone surrogate "
                              "(not text a program can be given)") from None


def _check_env_nul(env_t: Mapping[str, Any], env: Mapping[str, str],
                   arguments: Mapping[str, Any]) -> None:
    """Raise ``ArgvRefused`` naming the argument when a rendered env value holds a NUL (an
    environment variable ends at the first NUL: the OS refuses it)."""
    for key in env_t:
        if "\0" in env[key]:
            where = _surrogate_argument(arguments, bad=_has_nul) or "a value"
            raise ArgvRefused(f"{where} contains a NUL character, which the environment "
                              f"variable {key} cannot hold")


def _has_nul(text: str) -> bool:
    return "\0" in text


def _surrogate_argument(value: Any, path: str = "", bad: Callable[[str], bool] | None = None
                        ) -> str | None:
    """The first argument (``'a.b[0]'``) whose key or text holds a lone surrogate (or, with
    ``bad``, whose text ``bad`` is true of)."""
    if isinstance(value, str):
        if bad is not None:
            return f"argument {path!r}" if bad(value) else None
        return None if value.isascii() or _encodes(value) else f"argument {path!r}"
    items = value.items() if isinstance(value, Mapping) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        if isinstance(key, str) and not _encodes(key):
            return f"the name of an argument under {path!r}" if path else "an argument's name"
        sub = f"{path}.{key}" if isinstance(key, str) and path else (
            key if isinstance(key, str) else f"{path}[{key}]")
        found = _surrogate_argument(item, sub, bad)
        if found:
            return found
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _stderr_to_client(ctx: CallContext) -> Callable[[str], Awaitable[None]]:
    """Each stderr line to the client as a log message (``stderr: log``), secrets hidden."""
    send = getattr(ctx.log, "send_now", None)

    async def line(text: str) -> None:  # redacted by StderrLines, which cuts the lines
        level = line_level(text)
        if send is not None:
            await send(level, text)
        else:  # no client to hear it (toolhost call, tests): toolhost's own log
            ctx.log.log(level, "%s", text)

    return line


def _template_key(exc: templating.TemplateError, opts: Mapping[str, Any]) -> str:
    """The argv key of the element that does not parse (jinja does not say which)."""
    for i, raw in enumerate(opts.get("argv") or ()):
        for j, text in enumerate(raw.get("argv") or () if isinstance(raw, Mapping) else [raw]):
            try:
                templating.compile_template(str(text))
            except templating.TemplateError:
                return f".argv[{i}]" + (f".argv[{j}]" if isinstance(raw, Mapping) else "")
    return ""


def _tail(data: bytes, limit: int = 2000) -> str:
    from toolhost.backends.process import STDERR_TAIL

    # redact before cutting; the capture may itself have cut a secret at the start
    capped = len(data) >= STDERR_TAIL
    text = active().cut_edges(decode_cut(data, head=capped).strip(), head=capped)
    return text if len(text) <= limit else "..." + text[-limit:]


def _result(outcome: Outcome, ok_codes: frozenset[int], parse: str, cap: int,
            mime: str | None = None) -> ToolResult:
    stdout = decode_cut(outcome.stdout, tail=outcome.truncated)
    if outcome.truncated:  # the capture stopped at the cap, maybe inside a secret
        stdout = active().cut_edges(stdout, tail=True)
    if not outcome.truncated and outcome.returncode not in ok_codes:
        code = outcome.returncode
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        message = f"The command {how}."
        if outcome.stderr.strip():
            message += "\nstderr:\n" + _tail(outcome.stderr)
        elif stdout.strip():
            message += "\nstdout:\n" + _tail(outcome.stdout)
        return ToolResult.error(message)
    note = (f"\n[toolhost: the output passed {cap:,} bytes; the command was stopped and "
            "the rest is not shown]") if outcome.truncated else ""
    if parse == "json" and not outcome.truncated:
        try:
            return ToolResult.json(read_json(stdout))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            return ToolResult.error(f"The command's output is not valid JSON ({json_why(exc)}):"
                                    "\n" + _tail(outcome.stdout, 500))
    if parse == "binary":
        if outcome.truncated:
            return ToolResult.error(f"The output passed {len(outcome.stdout):,} bytes and was "
                                    "cut; raise max_output_bytes for larger binary output.")
        return bytes_result(outcome.stdout, mime)
    if parse == "lines":
        lines = stdout.splitlines()
        return ToolResult(content=({"type": "text", "text": stdout + note},),
                          structured={"lines": lines, "truncated": outcome.truncated})
    return ToolResult.text(stdout + note)
