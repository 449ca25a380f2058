"""The names toolhost promises in __all__ exist, and importing toolhost stays light."""

from __future__ import annotations

import subprocess
import sys

import toolhost


def test_every_public_name_resolves() -> None:
    for name in toolhost.__all__:
        assert getattr(toolhost, name) is not None, name


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        toolhost.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_toolhost_does_not_load_the_heavy_parts() -> None:
    code = ("import sys, toolhost; heavy = [m for m in ('toolhost.host', 'jsonschema', "
            "'httpx', 'jinja2') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == ""
