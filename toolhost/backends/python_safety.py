"""What ``validate`` refuses in a python tool: dangerous entry points and untyped parameters.

``python: "os:system"`` used to load silently, with the schema ``{"command": {}}``: the model
could run any shell command. A function is *dangerous* when it comes from a module whose job is
to run programs, touch the process or evaluate code (by the module named in the reference, or
the module the resolved object was defined in, so ``mytools:run`` that is ``subprocess.run``
re-exported is caught too), or is one of the builtins that evaluate, import or open. It is a
load error unless the tool sets the loudly named ``dangerously_allow_entry_point: true``.

A parameter the model fills in with no usable type (no annotation, ``Any`` or ``object``) and no
``params:`` entry in the config gets the schema ``{}``: any JSON value reaches the function
unchecked. That is a load error too, unless the tool sets ``allow_untyped: true`` (or declares
the parameter under ``params:``, which gives it a schema).

A function of toolhost itself (``toolhost.cli:main``, a command, the runner, the rule engine)
loads, but ``validate`` warns (``own_entry_warnings``): ``main(argv)`` lets the model run
``toolhost call`` on any config without its rules, ``install`` or ``init`` write files. Only
``toolhost.demo``, the examples' module, is meant to be a tool.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

__all__ = ["DANGEROUS_MODULES", "dangerous_reason", "own_entry_warnings", "untyped_params"]

DANGEROUS_MODULES = frozenset({
    "os", "posix", "nt", "subprocess", "builtins", "shutil", "pty", "sys", "importlib",
    "ctypes", "pickle", "marshal", "runpy", "code", "codeop", "multiprocessing", "signal",
    "socket", "pdb", "webbrowser", "commands", "popen2", "platform", "_posixsubprocess",
    "asyncio.subprocess", "tempfile", "pathlib", "io", "_io", "gc", "inspect", "types",
})
_DANGEROUS_NAMES = frozenset({
    "eval", "exec", "compile", "__import__", "open", "getattr", "setattr", "delattr",
    "breakpoint", "input", "system", "popen", "spawn", "execv", "execve", "execvp",
    "call", "check_call", "check_output", "getoutput", "getstatusoutput", "run", "Popen",
    "remove", "unlink", "rmtree", "rmdir", "kill", "killpg", "load", "loads",
})


def _top_modules(name: str | None) -> Iterable[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``."""
    parts = (name or "").split(".")
    return (".".join(parts[:i]) for i in range(1, len(parts) + 1) if parts[0])


def dangerous_reason(ref: str, fn: Callable[..., Any]) -> str | None:
    """Why ``fn`` (resolved from ``ref``) must not be a tool, or None."""
    module_name = ref.partition(":")[0]
    defined_in = getattr(fn, "__module__", None) or ""
    owner = getattr(fn, "__self__", None)  # a bound method of a module-level object
    owner_module = "" if owner is None or inspect.ismodule(owner) \
        else str(getattr(type(owner), "__module__", ""))
    for candidate in (module_name, defined_in, owner_module):
        for prefix in _top_modules(candidate):
            if prefix in DANGEROUS_MODULES:
                where = "" if candidate == module_name else f" (it is defined in '{candidate}')"
                return (f"'{ref}' comes from '{prefix}'{where}, a module that runs programs, "
                        "changes files or the process, or evaluates code: the model would "
                        "choose its arguments")
    name = getattr(fn, "__name__", "")
    if defined_in in ("", "builtins") and name in _DANGEROUS_NAMES:
        return f"'{ref}' is the builtin '{name}', which evaluates, imports or opens"
    return None


def _untyped(annotation: Any) -> bool:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation in (inspect.Parameter.empty, Any, object)


def untyped_params(fn: Callable[..., Any], declared: Iterable[str],
                   skip: str | None = None) -> list[str]:
    """Parameters of ``fn`` the model fills in that have no usable type and are not declared
    under ``params:`` (``skip``: the CallContext parameter)."""
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True) if inspect.isroutine(fn) \
            else {}
    except (TypeError, ValueError, NameError):
        return []
    known = set(declared)
    out = []
    for name, param in signature.parameters.items():
        if name in known or name == skip or name == "self":
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        annotation = hints.get(name, param.annotation)
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            if _untyped(annotation):
                out.append(f"**{name}")
            continue
        if _untyped(annotation):
            out.append(name)
    return out


_OWN = "toolhost"
_OWN_TOOLS = frozenset({"toolhost.demo"})  # the examples' tools


def own_entry_warnings(config: HostConfig) -> list[Problem]:
    """A warning for each python tool whose function is toolhost's own (by the module the
    reference names, or the one an imported function was defined in: ``mytools:main`` that
    is ``toolhost.cli.main``), other than ``toolhost.demo``'s."""
    warnings: list[Problem] = []
    for server in config.servers.values():
        for tool in server.tools.values():
            if tool.backend.kind != "python":
                continue
            ref = _reference(tool.backend.options)
            if not ref:
                continue
            module = _own_module(ref)
            if module is None:
                continue
            warnings.append(tool.backend.origin.problem(
                f"'{ref}' is toolhost's own code ({module}), not a tool: the model "
                "would drive toolhost with it (toolhost.cli:main runs any command, `call` "
                "without the rules, `install` and `init` write files)",
                hint="write a function of your own with typed parameters for what the tool "
                     "may do"))
    return warnings


def _reference(options: Any) -> str:
    ref = options.get("function") if isinstance(options, Mapping) else None
    return ref if isinstance(ref, str) else ""


def _own_module(ref: str) -> str | None:
    """toolhost's module the function ``ref`` comes from (named, or defined in, when its
    module is loaded), or None."""
    import sys

    module_name, _, qualname = ref.partition(":")
    names = [module_name]
    target: Any = sys.modules.get(module_name)
    for part in qualname.split(".") if target is not None else ():
        target = getattr(target, part, None) if not part.startswith("__") else None
    defined = getattr(target, "__module__", None) if target is not None else None
    if isinstance(defined, str):
        names.append(defined)
    for name in names:
        if (name == _OWN or name.startswith(_OWN + ".")) and not any(
                name == ok or name.startswith(ok + ".") for ok in _OWN_TOOLS):
            return name
    return None
