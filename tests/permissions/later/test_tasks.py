"""Round 24: a task runner whose commands come from a file of the project (``just x``, ``task
x``, ``tox``, ``nox``, ``rake``, ``gradle``, ``mvn``, ``ninja``, ``uv run``, ``poetry run``,
``cargo xtask``, ``deno task`` ...) is not provable where a deny or ask Bash rule exists (the
file is not read, and an earlier call may have written it); with none, or for the runner's
``--version``/``--help`` alone, it is decided as before. ninja is the judge of a real case."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide

ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]

NOT_PROVABLE = [
    "just", "just build", "just rm x", "task deploy", "go-task x", "tox", "tox -e py -- -k x",
    "tox exec -e py -- pytest", "nox -s x -- rm x", "turbo run build", "nx run app:build",
    "rake", "rake db:migrate", "invoke build", "inv build", "poe test", "gradle build",
    "./gradlew build", "mvn test", "./mvnw -q package", "mvn exec:java -Dexec.mainClass=x.M",
    "ant", "sbt test", "mix test", "gulp", "grunt build", "mage build", "scons", "ninja",
    "ninja -C out", "bazel run //:rm", "cmake --build build", "ctest", "meson compile -C b",
    "uv run pytest", "uv sync", "uv --directory x run pytest", "poetry run pytest -q",
    "poetry install", "pdm run test", "hatch run test", "composer test", "composer install",
    "pixi run test", "cargo xtask dist", "cargo make ci", "cargo-make make", "deno task rm",
    "lerna run build", "lerna exec -- npm test", "cmake -S . -B b", "cmake .",
    "cmake -P x.cmake", "meson setup b", "mise run build", "rye run t", "pipenv run t",
    "go generate ./...",
    # the runner as a module or a package's bin
    "python -m tox", "python3 -m nox -s x", "python3.12 -minvoke build", "python -m pdm run t",
    "python -m SCons", "python3 -X dev -m tox", "python3 -W ignore -m nox",
    "python3 -um tox", "python3 -uW ignore -m nox",  # (bundled: -u, then -m / -W's value)
    "yarn nx build", "pnpm turbo build", "pnpm exec nx build", "npm exec turbo run build",
    "bunx turbo build", "uvx tox", "pipx run nox",
    # past wrappers, in a substitution, behind another runner
    "sudo just x", "timeout 60 tox", "env A=1 ./gradlew build", "echo $(just x)",
    "bundle exec rake db", "npx turbo run build", "ls && just x", "nice -n 5 mvn test",
    # in a command line another program is handed
    "hyperfine 'just x'", "git rebase -x 'just x' main", "watchexec -- just x",
    "git bisect run just test", "git rebase --exec='tox -e py' main",
]
STILL_PROVABLE = [
    "just --version", "tox --help", "mvn --version", "uv pip list", "uv --version",
    "poetry show", "cargo --version", "cargo fmt", "deno fmt", "cmake -E echo hi", "ls task",
    "echo just", "justify x", "git log --grep=tox", "pixi add x", "cmake -E echo hi",
    "sudo cmake --version", "yarn add nx", "python3 -m http.server", "python3 tox.py",
    "go build ./...", "hyperfine 'ls x'", "git rebase -x 'ls' main", "docker run img ls",
]


@pytest.mark.parametrize("command", NOT_PROVABLE)
def test_a_task_runner_is_not_provable_under_a_deny_or_ask_rule(tmp_path: Path,
                                                                command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, ASKED) == "ask"
    assert decide(tmp_path, command, OPEN) == "allow"  # (no deny or ask rule to dodge)


@pytest.mark.parametrize("command", STILL_PROVABLE)
def test_what_reads_no_task_of_the_project_is_decided_as_before(tmp_path: Path,
                                                                command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "allow"


def test_a_runner_denied_by_name_is_denied_and_allowed_by_name_is_asked(tmp_path: Path) -> None:
    """A rule naming the runner still decides it first (deny), and an allow rule naming it
    does not prove what its tasks run under a deny rule."""
    assert decide(tmp_path, "just x", [("deny", "Bash(just:*)"), ("allow", "Bash")]) == "deny"
    assert decide(tmp_path, "just x", [("allow", "Bash(just:*)")]) == "allow"
    assert decide(tmp_path, "just x", [("deny", "Bash(rm:*)"),
                                       ("allow", "Bash(just:*)")]) == "deny"


@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja is the judge")
def test_ninja_really_runs_what_its_file_says(tmp_path: Path) -> None:
    """The build.ninja an earlier call wrote runs its command: a real case."""
    (tmp_path / "build.ninja").write_text("rule r\n  command = touch ran\nbuild x: r\n")
    assert decide(tmp_path, "ninja", GUARDED) == "deny"
    subprocess.run(["ninja"], cwd=tmp_path, check=True, capture_output=True, timeout=30)
    assert (tmp_path / "ran").exists()


@pytest.mark.parametrize(("rules", "flagged"), [
    ([("allow", "Bash(just:*)"), ("deny", "Bash(rm:*)")], ["Bash(just:*)"]),
    ([("allow", "Bash(uv run pytest)"), ("ask", "Bash(curl:*)")], ["Bash(uv run pytest)"]),
    ([("allow", "Bash(./gradlew build:*)"), ("deny", "Bash(rm:*)")], ["Bash(./gradlew build:*)"]),
    ([("allow", "Bash(just:*)")], []),  # (no deny or ask rule: it allows)
    ([("allow", "Bash(uv pip list)"), ("deny", "Bash(rm:*)")], []),
    ([("allow", "Bash(just --version)"), ("deny", "Bash(rm:*)")], []),
    # round 25: builds, tests, local installs, versioned names
    ([("allow", "Bash(cargo build:*)"), ("deny", "Bash(rm:*)")], ["Bash(cargo build:*)"]),
    ([("allow", "Bash(pytest:*)"), ("ask", "Bash(rm:*)")], ["Bash(pytest:*)"]),
    ([("allow", "Bash(pip install -e .)"), ("deny", "Bash(rm:*)")], ["Bash(pip install -e .)"]),
    ([("allow", "Bash(gradle-8 build)"), ("deny", "Bash(rm:*)")], ["Bash(gradle-8 build)"]),
    ([("allow", "Bash(pip install requests)"), ("deny", "Bash(rm:*)")], []),
    ([("allow", "Bash(pytest --version)"), ("deny", "Bash(rm:*)")], []),
])
def test_lint_flags_an_allow_of_a_task_runner_under_a_deny_or_ask_rule(
        rules: list[tuple[str, str]], flagged: list[str]) -> None:
    from toolhost.config.model import PermissionsConfig, RuleConfig
    from toolhost.permissions import compile_policy, lint_policy

    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd="/")
    found = [f.rule for f in lint_policy(policy) if f.code == "never-allows"]
    assert found == flagged
    for rule in flagged:  # (and the engine agrees: what it names is not allowed)
        command = rule[5:-1].replace(":*", "")
        assert policy.decide("Bash", {"command": command}).behavior != "allow"


# Round 25: a build, a test run, a local install or a tool whose configuration is code runs a
# file of the project's (build.rs and proc macros, setup.py or a build backend, conftest.py
# and test files, jest.config.js, a Gemfile, a csproj's <Exec>, Package.swift, build.zig ...)
BUILDS_AND_TESTS = [
    "cargo build", "cargo b --release", "cargo test", "cargo run", "cargo check",
    "cargo clippy", "cargo +nightly build", "cargo --offline build", "cargo install --path .",
    "cargo nextest run", "pip install .", "pip install -e .", "pip wheel .",
    "pip3 install ./pkg", "pip install -r requirements.txt", "python -m pip install -e .",
    "uv pip install -e .", "pip install --editable=.", "python -m build", "pytest",
    "pytest -q tests", "py.test", "python -m pytest --dist loadgroup", "pytest --help",
    "go test ./...", "go run .", "deno test", "bun test", "dotnet build", "dotnet test",
    "swift build", "zig build", "bundle install", "terraform plan", "jest", "vitest run",
    "eslint .", "npx prettier --check .", "webpack", "sphinx-build docs out", "mkdocs build",
    "mypy .", "pylint x", "pre-commit", "pre-commit run -a", "ansible-playbook site.yml",
    "vagrant up", "conan install .", "yarn jest", "pnpm exec vitest", "stack build",
    # an alias (.cargo/config.toml, CARGO_ALIAS_*, --config) or a cargo-x program: unknown
    "cargo x", "cargo --config alias.y='\"run\"' y", "cargo foo", "CARGO_ALIAS_Z=run cargo z",
    "cargo --config=build.rustc-wrapper='\"/tmp/w\"' tree", "pip install git+file:///tmp/x",
    # a compose file's services (their commands, the host folders they mount); coverage's
    # plugins from .coveragerc, and the program it runs
    "docker compose up -d", "docker compose -f x.yml run web", "podman compose up",
    "docker-compose up", "coverage run -m pytest", "coverage report",
]
# how a person or an installer may spell a runner's name: a version, a packager's suffix, a
# directory, a launcher (each built over several runners, not one example each)
_SPELLINGS = ["{}4", "{}-8", "{}-1.2.3", "{}3.12", "{}.exe", "{}-build", "/usr/local/bin/{}",
              "./node_modules/.bin/{}", "command {}", "command -p {}", "exec -a x {}",
              "npx --yes {}", "{}.bat", "nice -n 5 {}", "sudo -u u {}"]
# (`env -S 'tox'`, `\\tox`, `builtin tox`: not provable under any rule, as before)
SPELLED = [spelling.format(name) + " x"
           for name in ("tox", "gradle", "just", "pytest") for spelling in _SPELLINGS]
SPELLED += ["go1.22.3 generate ./...", "cmake3 .", "ctest3", "ninja-build", "mvnw.cmd test",
            "python3.12 -m tox", "/usr/bin/python3.11 -m pytest"]
STILL_PROVABLE_25 = [
    "cargo --version", "cargo fmt", "cargo install ripgrep", "pip install requests",
    "pip3.12 list", "pip install -U pip", "pytest --version", "go build ./...", "go vet ./...",
    "python -m json.tool f.json", "python -m http.server 8000", "python3 -m venv .v",
    "npm pkg set scripts.test=jest", "bun run x", "ls gradle-8 tox4", "echo pytest-3",
    "git log --grep=tox4", "gradle-8 --version", "tox4 --help", "cargo tree", "cargo",
    "cargo --list", "cargo help build", "cargo fmt --check", "cargo add serde",
    "cargo +nightly --version", "pip install 'requests>=2'", "docker compose ps",
    "docker compose logs -f", "docker ps", "docker compose --version",
]


@pytest.mark.parametrize("command", BUILDS_AND_TESTS + SPELLED)
def test_a_build_test_or_spelled_runner_is_not_provable(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "deny"
    assert decide(tmp_path, command, OPEN) == "allow"  # (no deny or ask rule to dodge)


@pytest.mark.parametrize("command", STILL_PROVABLE_25)
def test_what_builds_nothing_of_the_project_stays_allowed(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command, GUARDED) == "allow"


def test_pytest_help_really_runs_conftest(tmp_path: Path) -> None:
    """pytest is the judge: its --help loads the project's conftest.py, so it is not spared
    as the runners' --help is (its --version loads none: checked by hand, one run kept)."""
    (tmp_path / "conftest.py").write_text("open('ran', 'w').write('x')\n")
    assert decide(tmp_path, "pytest --version", GUARDED) == "allow"
    run = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # (cheap: conftest only)
    subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, timeout=60)
    assert (tmp_path / "ran").exists()
    assert decide(tmp_path, "pytest --help", GUARDED) == "deny"
    assert decide(tmp_path, "python -m pytest --help", ASKED) == "ask"
