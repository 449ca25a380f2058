"""Which programs run code a file of the project gives them (task runners,
builds, tests and tools whose configuration is code), and how their names are spelled.

Each entry maps a program to the subcommands that run (or build, and so run) what the
project's files say; ``ANY`` for every use. ``later.tasks`` makes such a command not provable
under a deny or ask Bash rule: those files are not read (each is its own language), and an
earlier call may have written them (a ``build.rs``, a ``setup.py``, a ``conftest.py``, a
``jest.config.js``, a ``Gemfile``...).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["ANY", "INFO", "MODULES", "TASK_RUNNERS", "cargo_builds", "compose_runs",
           "local_install",
           "runner_name"]

ANY = frozenset({""})  # every use of the program runs the project's files
_JS_CODE_CONFIG = (  # a test runner, bundler, linter or framework whose config is JS code
    "jest", "vitest", "mocha", "ava", "karma", "playwright", "cypress", "eslint", "prettier",
    "stylelint", "webpack", "webpack-cli", "vite", "rollup", "parcel", "next", "nuxt", "nuxi",
    "astro", "gatsby", "svelte-kit", "remix", "babel", "tsup", "storybook", "ng",
    "vue-cli-service", "electron-builder", "lint-staged", "commitlint", "semantic-release",
    "wdio", "nodemon", "tap", "c8", "nyc")
_PY_CODE_CONFIG = (  # conftest.py, conf.py, plugins named in ini/toml, hooks, task files
    "pytest", "py.test", "sphinx-build", "sphinx-autobuild", "mkdocs", "mypy", "dmypy",
    "pylint", "flake8", "alembic", "locust", "fab", "snakemake", "behave", "nose2",
    "pyproject-build", "pre-commit", "prek", "conan", "pio", "platformio", "west", "kedro",
    "scrapy", "asv", "unittest", "coverage", "ptw", "pytest-watch")
_OTHER_ANY = (  # Ruby, Perl, PHP, Haskell, OCaml, Nim, Lean, Erlang, Apple, .NET, infra
    "bundle", "bundler", "rspec", "rubocop", "rails", "rackup", "guard", "thor", "jekyll",
    "fastlane", "vagrant", "prove", "dzil", "phpunit", "pest", "phpstan", "rebar3", "lake",
    "xcodebuild", "msbuild", "xbuild", "ansible-playbook", "serverless", "sls", "bb",
    "bitbake", "nimble")
TASK_RUNNERS: dict[str, frozenset[str]] = {
    **dict.fromkeys((
        "just", "task", "go-task", "tox", "nox", "turbo", "nx", "rake", "invoke", "inv",
        "poe", "gradle", "gradlew", "mvn", "mvnw", "mvnd", "ant", "sbt", "lein", "mix",
        "gulp", "grunt", "jake", "mage", "scons", "waf", "ninja", "samu", "bazel",
        "bazelisk", "buck", "buck2", "pants", "earthly", "moon", "rush", "lerna",
        "cargo-make", "makers", "cake", "composer", "hatch", "pdm", "doit", "pynt", "meson",
        "poethepoet", "cmake", "ctest", *_JS_CODE_CONFIG, *_PY_CODE_CONFIG, *_OTHER_ANY),
        ANY),
    "pixi": frozenset({"run"}),
    "uv": frozenset({"run", "sync", "build"}),
    "poetry": frozenset({"run", "install", "build", "sync"}),
    "cargo": ANY,  # (but its quiet subcommands: cargo_builds; build.rs, proc macros, tests)
    "deno": frozenset({"task", "test", "bench"}),
    "bun": frozenset({"test"}),  # (bunfig.toml preloads, the test files)
    "rye": frozenset({"run", "sync", "build"}),
    "pipenv": frozenset({"run", "install", "sync"}),  # (Pipfile's [scripts])
    "mise": frozenset({"run", "r", "tasks", "watch"}),
    "go": frozenset({"generate", "test", "run"}),  # (//go:generate lines, _test.go files)
    "dotnet": frozenset({"build", "test", "run", "pack", "publish", "msbuild", "restore",
                         "watch"}),  # (a project file's MSBuild targets: <Exec Command=...>)
    "swift": frozenset({"build", "test", "run", "package"}),  # (Package.swift is Swift)
    "zig": frozenset({"build"}),  # (build.zig is Zig)
    "pod": frozenset({"install", "update"}),  # (a Podfile is Ruby)
    "stack": frozenset({"build", "test", "run", "install", "bench", "exec"}),
    "cabal": frozenset({"build", "test", "run", "install", "bench", "exec", "v2-build"}),
    "dune": frozenset({"build", "test", "exec", "runtest"}),
    "opam": frozenset({"install", "pin", "reinstall"}),
    "terraform": frozenset({"plan", "apply", "destroy", "refresh", "import", "console",
                            "test"}),  # (a data "external" program, local-exec)
    "tofu": frozenset({"plan", "apply", "destroy", "refresh", "import", "console", "test"}),
    "terragrunt": ANY,
    "pulumi": frozenset({"up", "preview", "destroy", "refresh", "watch"}),
    "cdk": frozenset({"synth", "deploy", "diff", "destroy", "ls", "watch"}),
    "packer": frozenset({"build"}),
    "sam": frozenset({"build", "local"}),
    "docker-compose": frozenset({"up", "run", "start", "create", "restart", "watch"}),
    # docker compose / podman compose: compose_runs (the words after `compose`)
    "docker": frozenset({"compose"}), "podman": frozenset({"compose"}),
    "nerdctl": frozenset({"compose"}),
    "podman-compose": frozenset({"up", "run", "start", "create", "restart"}),
    "clojure": ANY, "clj": ANY,  # (deps.edn aliases: -X, -M, -T)
    "dvc": frozenset({"repro", "exp"}),  # (dvc.yaml's cmd lines)
    "carthage": frozenset({"build", "bootstrap", "update"}),
}
# what reads no file of the project's: the runner's version or help, alone (pytest --help
# loads conftest.py, so it is not spared: checked with pytest itself)
INFO = frozenset({"--version", "--help"})
HELP_RUNS = frozenset({"pytest", "py.test"})
# python -m MODULE: the runner that module is
MODULES = {"tox": "tox", "nox": "nox", "invoke": "invoke", "poethepoet": "poe", "pdm": "pdm",
           "hatch": "hatch", "poetry": "poetry", "uv": "uv", "SCons": "scons", "doit": "doit",
           "pipenv": "pipenv", "mesonbuild.mesonmain": "meson", "ninja": "ninja",
           "cmake": "cmake", "pytest": "pytest", "build": "pyproject-build", "pip": "pip",
           "mypy": "mypy", "pylint": "pylint", "flake8": "flake8", "unittest": "unittest",
           "sphinx": "sphinx-build", "mkdocs": "mkdocs", "pre_commit": "pre-commit",
           "alembic": "alembic", "locust": "locust", "behave": "behave", "nose2": "nose2",
           "conan": "conan", "scrapy": "scrapy", "snakemake": "snakemake"}

# a versioned or packaged spelling of a name: gradle-8, tox4, cmake3, go1.22.3, pip3.12,
# pytest-3, ninja-build, gradlew.bat, mvnw.cmd, just.exe
_SPELLED = re.compile(r"(?P<name>.+?)(?:[-_]?v?[0-9][0-9.]*|-build|\.exe|\.bat|\.cmd|\.ps1)+")
_PIPS = frozenset({"pip", "pip3"})
_INSTALLS = frozenset({"install", "wheel", "download"})
_FILE_OPTIONS = frozenset({"-e", "--editable", "-r", "--requirement", "-c", "--constraint",
                           "--path", "--manifest-path"})


@lru_cache(maxsize=4096)
def runner_name(word: str) -> str | None:
    """The program of ``TASK_RUNNERS`` (or pip) a command word names, by its base name as
    written or spelled with a version or a packager's suffix (None: none)."""
    name = word.rsplit("/", 1)[-1]
    if name in TASK_RUNNERS or name in _PIPS:
        return "pip" if name in _PIPS else name
    m = _SPELLED.fullmatch(name)
    if m is None:
        return None
    base = m.group("name")
    return "pip" if base in _PIPS else base if base in TASK_RUNNERS else None


# cargo's own subcommands that build nothing of the project (an alias cannot replace one)
_CARGO_QUIET = frozenset({
    "version", "help", "new", "init", "add", "remove", "rm", "update", "fetch", "metadata",
    "tree", "locate-project", "pkgid", "verify-project", "vendor", "generate-lockfile",
    "clean", "uninstall", "search", "info", "login", "logout", "owner", "yank", "fmt",
    "config", "report", "read-manifest", "audit", "outdated", "deny", "machete", "sort",
    "upgrade", "set-version"})
_CARGO_VALUED = frozenset({"-Z", "-C", "--color", "--explain"})


def cargo_builds(form: tuple[str, ...]) -> bool:
    """Whether a ``cargo`` form may build or run the project: its subcommand (past
    ``+toolchain`` and options) is not one of cargo's quiet ones. An unknown word may be an
    alias a ``.cargo/config.toml`` or ``CARGO_ALIAS_*`` gives (``x = "run"``) or a
    ``cargo-x`` program; ``--config`` on the line may set either (fail closed)."""
    skip = False
    for k, word in enumerate(form[1:], 1):
        if skip:
            skip = False
        elif word == "--config" or word.startswith("--config="):
            return True
        elif word in _CARGO_VALUED:
            skip = True
        elif word[:1] not in "-+":
            return local_install("cargo", form[k - 1:]) if word == "install" else (
                word not in _CARGO_QUIET)
    return False  # (cargo --version, cargo --list, cargo: its help)


_COMPOSE_RUNS = frozenset({"up", "run", "start", "create", "restart", "watch"})


def compose_runs(form: tuple[str, ...]) -> bool:
    """Whether ``docker compose ...`` starts what a compose file says (its services'
    commands and the host folders they mount: ``up``, ``run``, ``start``...)."""
    words = form[form.index("compose") + 1:] if "compose" in form else ()
    return not _COMPOSE_RUNS.isdisjoint(words)


def local_install(name: str, form: tuple[str, ...]) -> bool:
    """Whether ``pip install``/``wheel``/``download`` or ``cargo install`` builds a project
    from the disk (``.``, ``./pkg``, ``-e .``, ``-r req.txt`` whose lines may name one,
    ``--path .``): its setup.py, build backend or build.rs runs. A name from an index is
    what a dependency builds (the program, as ``npm install x`` is)."""
    words = form[1:]
    if name == "pip" or (name == "uv" and "pip" in words[:3]):
        at = next((k for k, w in enumerate(words) if w in _INSTALLS), None)
        if at is None:
            return False
        words = words[at + 1:]
    elif name == "cargo":
        if "install" not in words:
            return False
    else:
        return False
    return any(_from_disk(w) for w in words)


def _from_disk(word: str) -> bool:
    """Whether an install's word names a project on the disk or a file listing them."""
    if word[:1] == "-":
        return word.partition("=")[0] in _FILE_OPTIONS or (
            word[:2] in ("-e", "-r", "-c") and word[:2] != "--")
    return word[:1] in "./~" or ("/" in word and "://" not in word) or "file:" in word or (
        word.endswith((".whl", ".tar.gz", ".zip")))  # (git+file:///x builds ./x's setup.py)
