"""Developer tools' options whose argument is code or loads it: type checkers, linters,
formatters, bundlers, test runners and task runners, merged into ``code_opt_more``'s table.

Their configuration files are code or name it: mypy imports the ``plugins =`` its
``--config-file`` lists and runs ``--python-executable`` (both tried for real: a plugin module
and a fake python each wrote a file), pylint's rcfile has an ``init-hook`` of Python,
flake8's ``local-plugins`` are modules, ESLint's, webpack's, Vite's, Jest's, Mocha's and
Babel's configurations are JavaScript modules, Sphinx runs ``conf.py``, MkDocs its
``hooks:``, pre-commit the ``entry:`` of each hook; a justfile, a Taskfile, a noxfile and an
Ant build file are scripts, exiftool's ``-config`` is Perl; tcpdump runs ``-z`` on each file
it rotates, and an RPM macro ``%(CMD)`` runs ``CMD``. The rest from their manuals.
"""

from __future__ import annotations

from toolhost.backends.code_opt_table import CMD, DIR, LIBDIR, MOD

__all__ = ["DEV_ALIASES", "DEV_OPTIONS"]

_CONF = "a configuration file"
_CODE_CONF = "a configuration file (a module of code, or one naming the code it loads)"
_SCRIPT = "a script file"

DEV_OPTIONS: dict[str, dict[str, str]] = {
    "mypy": {"--config-file": _CODE_CONF, "--python-executable": CMD},
    "pylint": {"--rcfile": _CODE_CONF, "--load-plugins": MOD, "--init-hook": CMD},
    "flake8": {"--config": _CODE_CONF, "--append-config": _CODE_CONF},
    "sphinx-build": {"-c": DIR, "--conf-dir": DIR},
    "mkdocs": {"-f": _CODE_CONF, "--config-file": _CODE_CONF},
    "pre-commit": {"-c": _CODE_CONF, "--config": _CODE_CONF},
    "just": {"-f": _SCRIPT, "--justfile": _SCRIPT},
    "task": {"-t": _SCRIPT, "--taskfile": _SCRIPT, "-d": DIR, "--dir": DIR},
    "nox": {"-f": _SCRIPT, "--noxfile": _SCRIPT},
    "ant": {"-f": _SCRIPT, "-file": _SCRIPT, "-buildfile": _SCRIPT, "-lib": LIBDIR},
    "meson": {"-C": DIR},
    "eslint": {"-c": _CODE_CONF, "--config": _CODE_CONF, "--plugin": MOD,
               "--rulesdir": LIBDIR, "--resolve-plugins-relative-to": LIBDIR},
    "prettier": {"--plugin": MOD, "--config": _CODE_CONF},
    "webpack": {"-c": _CODE_CONF, "--config": _CODE_CONF},
    "vite": {"-c": _CODE_CONF, "--config": _CODE_CONF},
    "jest": {"-c": _CODE_CONF, "--config": _CODE_CONF},
    "mocha": {"-r": MOD, "--require": MOD, "--config": _CODE_CONF},
    "babel": {"--config-file": _CODE_CONF},
    "rubocop": {"-r": MOD, "--require": MOD, "-c": _CODE_CONF, "--config": _CODE_CONF},
    "tcpdump": {"-z": CMD},
    "exiftool": {"-config": "a configuration file (Perl code it runs)"},
    "rpm": {"--eval": CMD, "-E": CMD, "--macros": _CONF, "--rcfile": _CONF},
}
DEV_ALIASES = {"vitest": "vite", "go-task": "task", "rpmbuild": "rpm",
               "rpmspec": "rpm"}
