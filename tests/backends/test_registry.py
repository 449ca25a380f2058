"""The built-in kinds: lazy ones describe themselves exactly as the real kinds do."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from toolhost.backends.base import BindContext
from toolhost.backends.registry import BUILTIN_KINDS, LazyKind
from toolhost.config.model import BackendSpec, ServerConfig, ToolConfig

LAZY = [kind for kind in BUILTIN_KINDS.values() if isinstance(kind, LazyKind)]


def test_every_builtin_kind_is_lazy() -> None:
    assert {kind.name for kind in LAZY} == {"command", "http", "python"} == set(BUILTIN_KINDS)


@pytest.mark.parametrize("lazy", LAZY, ids=lambda k: k.name)
def test_a_lazy_kind_matches_its_implementation(lazy: LazyKind) -> None:
    module, _, attr = lazy.target.partition(":")
    real = getattr(importlib.import_module(module), attr)
    assert (lazy.name, lazy.shorthand) == (real.name, real.shorthand)
    assert lazy.options_schema == real.options_schema
    assert type(lazy.load()) is real and lazy.load() is lazy.load()


def test_binding_through_the_lazy_kind() -> None:
    kind = BUILTIN_KINDS["command"]
    tool = ToolConfig(name="t", server="s", backend=BackendSpec(
        kind="command", options={"argv": ["echo", "{{ word }}"]}))
    binding = kind.bind(tool, BindContext(ServerConfig(name="s")))
    assert "word" in binding.input_schema["properties"]


def test_importing_the_registry_leaves_the_backends_unloaded() -> None:
    """httpx, jinja2, and the python backend (its signatures, the loop-hold watch, signal)
    load with the first tool of their kind."""
    code = ("import sys, toolhost.backends.registry; "
            "print(sorted(m for m in ('httpx', 'jinja2', 'toolhost.backends.python', "
            "'toolhost.compile.signature', 'signal') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
