"""A value as the program of a filter language (backends25): ``[jq, "{{ filter }}", f]``
read the tool's environment (``$ENV``) and any ``.json`` file (``import ... {search:}``);
mlr's put/filter expression runs ``system()``; an XSLT stylesheet or ``--param`` XPath reads
files. Each is a load error; the value as a variable (``jq --arg``) still loads and runs."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

V = "{{ v }}"


@pytest.mark.parametrize(("argv", "at"), [
    (["jq", V, "data.json"], 1),
    (["jq", "-r", '.[] | select(.name == "' + V + '")', "data.json"], 2),
    (["jq", "-rc", V], 2),  # a bundle of flags
    (["jq", "--indent", "2", V], 3),
    (["jq", "--", V], 2),
    (["jq", "--unknown", "x", V], 3),  # an option it does not know: both readings
    (["jq", "--unknown", V, "."], 2),
    (["jq", "-f", V, "data.json"], 2),  # the filter's file
    (["jq", "--from-file=" + V], 1),
    (["jq", "-L", V, ".", "data.json"], 2),  # a module directory
    (["jq", "-L" + V, ".", "data.json"], 1),
    (["/usr/bin/gojq", V], 1),
    (["timeout", "5", "jaq", V], 3),
    (["yq", "eval", V, "f.yaml"], 2),
    (["yq", "-o", "json", V, "f.yaml"], 3),
    (["xq", V, "f.xml"], 1),
    (["mlr", "--icsv", "--ojson", "put", V, "x.csv"], 4),
    (["mlr", "--icsv", "filter", "-x", "$name == \"" + V + "\"", "x.csv"], 4),
    (["mlr", "--icsv", "cat", "then", "put", "-q", "-f", V, "x.csv"], 7),
    (["mlr", "--prepipe", V, "cat", "x.csv"], 2),
    (["mlr", "-s", V], 2),  # a file of its own options
    (["xsltproc", V, "doc.xml"], 1),
    (["xsltproc", "--param", "p", V, "s.xsl", "doc.xml"], 3),  # an XPath expression
    (["jsonnet", "-e", V], 2),
    (["jsonnet", "--ext-code", "x=" + V, "m.jsonnet"], 2),
    (["jsonnet", "-J", V, "m.jsonnet"], 2),
    (["fx", "data.json", V], 2),
    (["jello", V], 1),
    (["gawk", "--include=" + V, "{print}", "f"], 1),  # awk source it loads
    (["gawk", "-l", V, "{print}", "f"], 2),  # a shared library
    (["gawk", "--exec", V, "f"], 2),
    # (backends27) xmlstarlet's XPath runs in libxslt: document() reads any file or URL
    (["xmlstarlet", "sel", "-t", "-v", "//item[@id='" + V + "']", "doc.xml"], 4),
    (["xmlstarlet", "sel", "-t", "-m", "//x", "-c", V, "-n", "doc.xml"], 6),
    (["xmlstarlet", "sel", "-t", "-i", V, "-o", "yes", "doc.xml"], 4),
    (["xmlstarlet", "sel", "-t", "--var", "q", V, "-v", "$q", "doc.xml"], 5),
    (["xmlstarlet", "sel", "-t", "--var", "q=" + V, "-v", "$q", "doc.xml"], 4),
    (["xmlstarlet", "sel", "-t", "-s", "A:T:-", V, "-v", ".", "doc.xml"], 5),
    (["xmlstarlet", "sel", "-t", "-e", V, "-v", "//x", "doc.xml"], 4),  # {XPath}
    (["xmlstarlet", "sel", "-t", "--unknown", V, "doc.xml"], 4),  # fail closed
    (["xmlstarlet", "ed", "-u", "//x", "-x", V, "doc.xml"], 5),
    (["xmlstarlet", "-q", "ed", "-L", "-d", V, "doc.xml"], 5),
    (["xmlstarlet", "ed", "-m", "//a", V, "doc.xml"], 4),
    (["xmlstarlet", "tr", V, "doc.xml"], 2),  # the stylesheet
    (["xmlstarlet", "tr", "s.xsl", "-p", "q=" + V, "doc.xml"], 4),
    (["xmlstarlet", V, "-t", "-v", "1", "doc.xml"], 1),  # the command
    (["xml", "select", "-t", "--value-of", V, "doc.xml"], 4),
])
def test_a_value_as_a_filter_program_is_a_load_error(config: Config, argv: list[Any],
                                                     at: int) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv, options={"allow_dash": []})}))
    problems = info.value.problems
    assert {p.key_path for p in problems} == {f"servers.demo.tools.t.command.argv[{at}]"}
    assert all(p.hint for p in problems), problems
    compile_tools(config({"t": cmd(argv, options={"unsafe_code_placeholders": True})}))


@pytest.mark.parametrize(("argv", "shown"), [
    (["jq", ".[] | select(.id == " + V + ")", "d.json"], "--arg, q"),
    (["xmlstarlet", "sel", "-t", "-v", "//x[@id=" + V + "]", "d.xml"], "-s, \"q={{ q }}\""),
])
def test_the_hint_shows_the_value_as_a_variable(config: Config, argv: list[str],
                                                shown: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    assert shown in (info.value.problems[0].hint or "")


@pytest.mark.parametrize("argv", [
    ["jq", "--arg", "q", V, ".[] | select(.name == $q)", "data.json"],
    ["jq", "--argjson", "n", V, ".[$n]", "data.json"],
    ["jq", ".", V],  # an input file
    ["jq", "-f", "prog.jq", V],  # jq -f: the first operand is the program file
    ["jq", "-n", "--args", "$ARGS", V],
    ["jq", "--rawfile", "f", V, ".", "x.json"],  # a file the config reads as data
    ["jq", "--indent", V, "."],
    ["yq", "e", ".a", V],
    ["mlr", "--icsv", "--ojson", "sort", "-f", V, "x.csv"],
    ["mlr", "--icsv", "put", "-s", "q=" + V, "$y = @q", "x.csv"],
    ["mlr", "--icsv", "filter", "$a == 1", V],
    ["xsltproc", "--stringparam", "q", V, "s.xsl", "doc.xml"],
    ["xsltproc", "-o", V, "s.xsl", "doc.xml"],
    ["jsonnet", "--ext-str", "q=" + V, "m.jsonnet"],
    ["xmlstarlet", "sel", "-t", "-v", "//x", V],  # an input file
    ["xmlstarlet", "sel", "-N", "x=" + V, "-t", "-o", V, "-v", "//x", "doc.xml"],
    ["xmlstarlet", "ed", "-u", "//x", "-v", V, "doc.xml"],  # the new text
    ["xmlstarlet", "ed", "-s", "/r", "-t", "elem", "-n", V, "-v", V, "doc.xml"],
    ["xmlstarlet", "tr", "s.xsl", "-s", "q=" + V, "doc.xml"],  # a string parameter
    ["xmlstarlet", "val", "-e", "-d", "x.dtd", V],
    ["xmlstarlet", "fo", V],
])
def test_values_as_data_of_a_filter_program_still_load(config: Config,
                                                       argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
async def test_jq_reads_the_value_as_data_not_as_a_filter(config: Config) -> None:
    cfg = config({"t": cmd(["jq", "-n", "-r", "--arg", "q", V, "$q"],
                           options={"env": {"SECRET_TOKEN": "s3cr3t-value"}})})
    result = await run(cfg, "t", {"v": "$ENV.SECRET_TOKEN"})
    assert not result.is_error, result.text_content
    assert result.text_content.strip() == "$ENV.SECRET_TOKEN"
