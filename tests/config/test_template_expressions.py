"""A resource URI template with an expression toolhost cannot match as written (an RFC 6570
operator other than ``+``, a list, a prefix modifier, spaces, an empty or unbalanced brace)
is a located error at load, naming the expression, not "has no {variable}" or a template
that silently never matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

HEAD = """\
toolhost: 1
servers:
  kb:
    resources:
      r:
        uri: "{uri}"
        command: [echo, hi]
"""


@pytest.mark.parametrize(("uri", "said"), [
    ("s://x{/seg*}", "'{/seg*}'"),
    ("s://x/{id}{?q}", "'{?q}'"),
    ("s://x/{id}{&more}", "'{&more}'"),
    ("s://x/{#frag}", "'{#frag}'"),
    ("s://x/{.ext}", "'{.ext}'"),
    ("s://x/{;p}", "'{;p}'"),
    ("s://x/{a,b}", "'{a,b}'"),
    ("s://x/{id:3}", "'{id:3}'"),
    ("s://x/{ id }", "'{ id }'"),
    ("s://x/{}", "'{}'"),
    ("s://x/{id", "an unmatched '{'"),
    ("s://x/{id}}", "an unmatched '}'"),
    ("s://x/id}", "an unmatched '}'"),
    ("s://x/{+}", "'{+}'"),
    ("s://x/{1d}", "'{1d}'"),
])
def test_an_unsupported_expression_is_a_located_error(tmp_path: Path, uri: str,
                                                      said: str) -> None:
    config = tmp_path / "kb.yaml"
    config.write_text(HEAD.replace("{uri}", uri))
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    text = str(info.value)
    assert "kb.yaml:6:" in text and "servers.kb.resources.r.uri" in text, text
    assert f"{said} in the URI template" in text and "is not supported" in text, text
    assert "Traceback" not in text


@pytest.mark.parametrize("uri", ["s://x/{id}", "s://{+path}", "s://x/{a}/{+rest}",
                                 "s://{a}{+b}", "S://X/{id}.json"])
def test_supported_templates_load(tmp_path: Path, uri: str) -> None:
    config = tmp_path / "kb.yaml"
    config.write_text(HEAD.replace("{uri}", uri))
    load_config(config, layers=False)
