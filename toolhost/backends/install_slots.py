"""Package installs a value chooses: ``pip install {{ pkg }}`` runs the code of a
package the model names (``setup.py``, a build backend, npm's ``postinstall``, ``build.rs``,
a gem's extension, a brew formula) with the user's rights, before any tool output is seen.

Same family as a value naming the program a wrapper runs (``npx {{ pkg }}``): refused at
load unless the tool sets ``unsafe_code_placeholders: true``. Any value after the install
subcommand counts (a package, a version pin, a ``-r`` file, an index URL, a path or a VCS
URL all choose the code). npm, pnpm, yarn and bun installs that pass ``--ignore-scripts``
literally run no package's scripts and are allowed, unless a value may start with ``-``
(``allow_dash``: it could turn the option off again).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.backends.code_args import Token, run_programs

__all__ = ["install_problems"]

Found = tuple[str, str, str]

_JS = "install,i,add,in,ins,isntall,update,up,upgrade"
# program -> the subcommands that install (a space between the words of a nested one); pip's
# download and wheel build an sdist
_INSTALLS: dict[str, tuple[tuple[str, ...], ...]] = {
    program: tuple(tuple(path.split()) for path in paths.split(",")) for program, paths in {
        "pip": "install,download,wheel", "uv": "pip install,add,tool install",
        "pipx": "install,inject,runpip", "poetry": "add", "pdm": "add", "rye": "add",
        "conda": "install", "mamba": "install", "npm": _JS,
        "pnpm": _JS, "yarn": "add,global add,upgrade", "bun": "add,install,i",
        "cargo": "install", "gem": "install", "brew": "install,reinstall,tap",
        "composer": "require,global require,create-project",
    }.items()}
# the installers whose --ignore-scripts runs no package's scripts
_NO_SCRIPTS = frozenset({"npm", "pnpm", "yarn", "bun"})
_PYTHONS = ("python", "python3", "py", "pypy", "pypy3")


def install_problems(tokens: Sequence[Token], *, dash_ok: bool = False) -> list[Found]:
    """A load problem for each package install whose package a value chooses. ``dash_ok``:
    a value may start with ``-`` (``allow_dash``), so it may be ``--ignore-scripts=false``
    after the literal ``--ignore-scripts``, and that option no longer proves anything."""
    found: list[Found] = []
    for start in run_programs(tokens):
        words = tokens[start:]
        name = _program(words)
        if name is None:
            continue
        program, rest = name
        sub = _install_at(program, rest)
        if sub is None:
            continue
        after = rest[sub:]
        if program in _NO_SCRIPTS and not dash_ok and any(
                t.text == "--ignore-scripts" and not t.value for t in after):
            continue
        chosen = next((t for t in after if t.value), None)
        if chosen is not None:
            fix = ("pass --ignore-scripts (no package's scripts run), or "
                   if program in _NO_SCRIPTS else "")
            found.append((f"a value chooses what `{program}` installs: the package's own "
                          "code (install scripts, a build) would run with your rights, "
                          "chosen by the model", chosen.key,
                          f"write the package literally; {fix}set unsafe_code_placeholders: "
                          "true if you have checked it"))
            break
    return found


def _program(words: Sequence[Token]) -> tuple[str, Sequence[Token]] | None:
    """(the installer, the words after it): ``pip``, ``python -m pip``, ``pip3.12``."""
    if not words or words[0].value:
        return None
    name = words[0].text.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    if name.startswith(_PYTHONS):  # python -m pip install ...
        for k, word in enumerate(words[1:], 1):
            if word.text == "-m" and k + 1 < len(words):
                module = words[k + 1].text
                return (("pip", words[k + 2:]) if module in ("pip", "pip3")
                        else ("uv", words[k + 2:]) if module == "uv" else None)
            if not word.text.startswith("-"):
                return None
        return None
    if (name.startswith("pip") and name[3:].replace(".", "").isdigit()) or name == "pip":
        return "pip", words[1:]
    return (name, words[1:]) if name in _INSTALLS else None


def _install_at(program: str, rest: Sequence[Token]) -> int | None:
    """The index in ``rest`` just past the install subcommand, or of a value met before one
    (None: not an install). Found wherever it stands: an installer's option before it may
    take a value (``pip --index-url URL install``), so its first plain word is not always
    the subcommand."""
    for k, token in enumerate(rest):
        if token.value:  # (`pip {{ sub }} x`: the value may be the subcommand: install;
            if k == 0:  # after an option it may be the option's: code_opts judges that)
                return k
            continue
        for path in _INSTALLS[program]:
            if token.text != path[0]:
                continue
            later = [j for j in range(k + 1, len(rest)) if not rest[j].text.startswith("-")]
            if all(j < len(later) and rest[later[j]].text == word and not rest[later[j]].value
                   for j, word in enumerate(path[1:])):
                return later[len(path) - 2] + 1 if len(path) > 1 else k + 1
    return None
