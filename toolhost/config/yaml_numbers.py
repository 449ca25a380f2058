"""YAML 1.1's numbers that YAML 1.2, JSON and TOML read otherwise (see ``yaml11_number``)."""

from __future__ import annotations

from typing import Any

from toolhost.excerpt import cut

__all__ = ["yaml11_number"]


def yaml11_number(text: str, value: Any, integer: bool) -> tuple[str, str] | None:
    """(message, hint) when the plain scalar ``text`` is a number only YAML 1.1 reads so
    (``value``), and YAML 1.2, JSON and TOML read otherwise: a base-60 ``1:30`` (90; text in
    YAML 1.2) or a leading-zero octal ``0755`` (493; 755 in YAML 1.2). ``command: [chmod,
    0755, f]`` ran ``chmod 493 f``, ``at 12:30`` ran ``at 750``."""
    if ":" in text:
        return (f"{cut(text, 40)!r} is a base-60 number in YAML 1.1 ({cut(str(value), 40)}) "
                "and text in YAML 1.2", f"quote it (\"{cut(text, 40)}\") for the text, or "
                f"write the number ({cut(str(value), 40)})")
    digits = text.lstrip("+-")
    if integer and len(digits) > 1 and digits[0] == "0" and digits[1] not in "xXbB":
        return (f"{cut(text, 40)!r} is an octal number in YAML 1.1 ({cut(str(value), 40)}) "
                "and a decimal one in YAML 1.2 and JSON", f"quote it (\"{cut(text, 40)}\") "
                "for the text, or write the number without the leading zero")
    return None
