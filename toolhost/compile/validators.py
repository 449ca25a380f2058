"""Validators built on first use: jsonschema costs about 60 ms of a fresh process's imports,
and ``validate``, ``tools`` and ``serve``'s first answer need none of it (their schema checks
have a quick path, ``toolhost.compile.metacheck``). A tool's validator is wanted at its first
call, so it is built then."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

__all__ = ["LazyValidator", "local_registry", "real_validator"]


class LazyValidator:
    """Stands for ``regex.validator_class()(schema)`` (RE2 patterns; with ``formats``, the
    class's format checker too) and builds it on first use. Anything a jsonschema validator
    offers beyond ``schema``, ``iter_errors`` and ``is_valid`` is passed through.

    References are resolved within the schema only: its registry never retrieves anything
    (jsonschema's default fetches a ``$ref`` to an http(s) URL, at every check)."""

    def __init__(self, schema: Mapping[str, Any], *, formats: bool = False) -> None:
        self.schema = schema
        self._formats = formats
        self._built: Validator | None = None
        self._lock = threading.Lock()  # tools are called from several threads

    def built(self) -> Validator:
        built = self._built
        if built is None:
            with self._lock:
                if self._built is None:
                    from toolhost import regex

                    cls = regex.validator_class()
                    checker = cls.FORMAT_CHECKER if self._formats else None
                    self._built = cls(self.schema, format_checker=checker,
                                      registry=local_registry())
                built = self._built
        assert built is not None
        return built

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        return self.built().iter_errors(instance)

    def is_valid(self, instance: Any) -> bool:
        return bool(self.built().is_valid(instance))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_built", "_formats", "_lock"):
            raise AttributeError(name)
        return getattr(self.built(), name)

    def __repr__(self) -> str:
        return f"LazyValidator({self.schema!r})"


def local_registry() -> Any:
    """A ``referencing.Registry`` that retrieves nothing: a reference that is not to the
    schema itself is unresolvable (a validation error), never a request or a file read."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]

    return Registry(retrieve=refuse)  # type: ignore[call-arg]


def real_validator(validator: Any) -> Any:
    """The jsonschema validator itself, built if it was lazy."""
    return validator.built() if isinstance(validator, LazyValidator) else validator
