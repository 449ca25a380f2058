"""A value too large for the system's command line (E2BIG): the result names the param and
says to pass the data on stdin; before, it read "[Errno 7] Argument list too long"."""

from __future__ import annotations

from typing import Any

import pytest

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [
    200_000,  # one argument over Linux's 131,072 bytes
    3_000_000,  # past the whole command line's limit too
])
async def test_a_value_too_long_for_the_command_line_is_named(config: Config,
                                                              size: int) -> None:
    cfg = config({"t": cmd(["echo", "--", "{{ text }}", "{{ tag }}"])})
    args: dict[str, Any] = {"text": "x" * size, "tag": "small"}
    result = await run(cfg, "t", args)
    assert result.is_error
    message = result.text_content
    assert "\n" not in message and "Errno" not in message, message
    assert f"the value of 'text' is {size:,} bytes" in message, message
    assert "one argument is" in message and "131,071 per argument" in message, message
    assert "stdin" in message, message


async def test_a_list_of_many_values_names_the_list(config: Config) -> None:
    files = {"type": "array", "items": {"type": "string"}}
    cfg = config({"t": cmd(["echo", "--", "{{ files }}"], params={"files": files})})
    result = await run(cfg, "t", {"files": ["y" * 1000] * 3000})  # 3 MB over 3,000 items
    assert result.is_error
    assert "the value of 'files' is" in result.text_content, result.text_content
    assert "per argument" not in result.text_content
