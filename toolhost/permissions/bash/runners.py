"""Programs that run a command named by their own arguments, for deny and ask matching (fail
closed): a container's or pod's ``run``/``exec``/``debug`` (``docker run img rm x``,
``kubectl run p --image=i -- rm x``, ``kubectl -n ns exec p -- rm x``), a package runner
(``npx rm``, ``npm exec``, ``pnpm dlx``, ``uvx``, ``uv run``, ``pipx run``, ``poetry run``,
``bundle exec``, ``conda run``, ``nix develop -c``), ``git bisect run``/``submodule foreach``,
``perf record``, ``gdb --args``; and options whose value is a command line (``git rebase
--exec``, ``git clone --upload-pack``, ``git filter-branch --tree-filter``, ``tar
--checkpoint-action=exec=``, ``nix-shell --run``, ``npx -c``, ``make --eval``/``SHELL=``).
``toolhost.permissions.bash.command_strings`` hands these strings to the deny and ask rules."""

from __future__ import annotations

import re

__all__ = ["is_runner", "runner_options", "runner_overflows", "runner_strings"]

_CONTAINERS = frozenset({"exec", "run"})
# program -> the subcommand words after which every later word may start the command it runs
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("docker", "podman", "nerdctl", "finch", "docker-compose",
                     "podman-compose"), _CONTAINERS),
    **dict.fromkeys(("kubectl", "oc", "minikube"), frozenset({"exec", "run", "debug", "rsh",
                                                               "ssh"})),
    **dict.fromkeys(("lxc", "incus", "multipass"), frozenset({"exec"})),
    **dict.fromkeys(("toolbox", "distrobox"), frozenset({"run", "enter"})),
    "machinectl": frozenset({"shell"}),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun", "mise", "rtx"),
                    frozenset({"exec", "x", "dlx"})),
    **dict.fromkeys(("uv", "pipx", "poetry", "pdm", "hatch", "pipenv", "rye", "conda", "mamba",
                     "micromamba", "pixi", "dotnet", "deno", "just"), frozenset({"run"})),
    **dict.fromkeys(("bundle", "bundler", "rbenv", "pyenv", "nodenv", "goenv", "jenv", "asdf",
                     "direnv", "plenv", "volta"), frozenset({"exec", "run"})),
    "nix": frozenset({"develop", "shell", "run"}),
    "git": frozenset({"run", "foreach"}),  # git bisect run CMD, git submodule foreach CMD
    "perf": frozenset({"record", "stat", "trace"}),
    "vagrant": frozenset({"ssh"}),
    "ip": frozenset({"exec"}),  # ip netns exec NS CMD
    "heroku": frozenset({"run"}),
    **dict.fromkeys(("salt", "salt-ssh"), frozenset({"cmd.run", "cmd.shell", "cmd.script"})),
    # environment, secret and VM runners that run the command after them
    **dict.fromkeys(("devbox", "railway", "doppler", "op", "infisical", "dotenvx", "orb",
                     "orbctl"), frozenset({"run"})),
    "pixi": frozenset({"run", "exec"}),
    "tox": frozenset({"exec"}),  # tox exec -e py -- CMD (tox -e x -- ARGS feeds tox.ini)
    **dict.fromkeys(("lerna", "nx"), frozenset({"exec"})),
    "guix": frozenset({"shell", "environment"}),
    **dict.fromkeys(("aws-vault", "chamber"), frozenset({"exec"})),
    "sops": frozenset({"exec-env", "exec-file"}),
    "limactl": frozenset({"shell"}),
    "colima": frozenset({"ssh"}),
    "gcloud": frozenset({"ssh"}),  # gcloud compute ssh vm -- CMD: ssh's remote command
    "az": frozenset({"ssh"}),  # az ssh vm -n v -- CMD
    # version managers, toolchains, dev environments and remote workspaces
    **dict.fromkeys(("fnm", "nvm", "n", "opam", "stack", "cabal", "module", "ddev", "okteto",
                     "devcontainer", "garden"), frozenset({"exec"})),
    "esy": frozenset({"x", "exec-command"}),
    "rvm": frozenset({"do"}),  # rvm 3.1 do CMD
    "scl": frozenset({"enable"}),  # scl enable COLLECTION 'CMD'
    "flox": frozenset({"activate"}),
    "devenv": frozenset({"shell"}),
    **dict.fromkeys(("vcluster", "telepresence"), frozenset({"connect", "intercept"})),
    **dict.fromkeys(("coder", "gitpod"), frozenset({"ssh"})),
    "gh": frozenset({"ssh"}),  # gh codespace ssh -- CMD
    "proto": frozenset({"run"}),
    # npm explore PKG -- CMD, brew bundle exec -- CMD, rustup run TOOLCHAIN CMD
    "npm": frozenset({"exec", "x", "dlx", "explore"}),
    "brew": frozenset({"exec"}),
    "rustup": frozenset({"run"}),
    # fd -x CMD / -X CMD: the command after the option; cmake -E env A=1 CMD
    **dict.fromkeys(("fd", "fdfind"), frozenset({"-x", "--exec", "-X", "--exec-batch"})),
    "cmake": frozenset({"env"}),
    "flatpak": frozenset(),
    "tar": frozenset(),
    "make": frozenset(), "gmake": frozenset(),
}
# programs whose every later word may start the command they run: `npx rm x`, `entr rm x`
_WHOLE = frozenset({"npx", "pnpx", "bunx", "uvx", "entr", "sshpass", "mosh", "autossh", "pdsh",
                    "clush", "gosu", "su-exec", "run0", "sudo-rs", "wsl", "corepack",
                    "lima", "dotenv", "env-cmd", "cross-env", "summon", "envchain",
                    "retry", "cpulimit", "systemd-inhibit", "torify", "torsocks", "tsocks",
                    "hyperfine", "with-contenv", "s6-setuidgid", "chpst", "chruby-exec",
                    "k3s", "microk8s", "watchexec",
                    # macOS (xcrun TOOL, arch -x86_64 CMD, sandbox-exec -n P CMD,
                    # GNU tools g-prefixed by Homebrew), package, GPU, HPC and desktop
                    # launchers that run the command after them
                    "pkgx", "xcrun", "arch", "sandbox-exec", "gtimeout", "genv", "gxargs",
                    "gnice", "gnohup", "gstdbuf", "gtime", "flatpak-spawn", "mpirun",
                    "mpiexec", "srun", "salloc", "winpty", "prime-run", "gamemoderun",
                    "optirun", "primusrun", "vglrun", "mangohud", "gpg-agent",
                    "systemd-cat",
                    # terminal emulators (`xterm -e CMD`, `gnome-terminal -- CMD`),
                    # container init shims, detached sessions
                    "xterm", "uxterm", "urxvt", "rxvt", "gnome-terminal", "konsole",
                    "alacritty", "kitty", "foot", "wezterm", "st", "terminator", "tilix",
                    "xfce4-terminal", "mate-terminal", "lxterminal", "x-terminal-emulator",
                    "tini", "dumb-init", "catatonit", "dtach", "abduco"})
# program -> subcommand -> the program it runs with the words after it (yarn node -e CODE is
# node -e CODE, nvm run 18 -e CODE is node)
_AS_PROGRAM: dict[str, dict[str, str]] = {"yarn": {"node": "node"}, "nvm": {"run": "node"}}
# program -> options whose value is a command line
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"--upload-pack", "--receive-pack", "--exec", "-x", "--extcmd",
                      "--tree-filter", "--index-filter", "--msg-filter", "--env-filter",
                      "--commit-filter", "--parent-filter", "--tag-name-filter", "-u",
                      # send-email, daemon, instaweb, help/web--browse, grep -O
                      "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd",
                      "--smtp-server", "--access-hook", "--httpd", "--browser",
                      "--open-files-in-pager", "-O"}),
    **dict.fromkeys(("npm", "npx", "pnpm", "pnpx"), frozenset({"-c", "--call",
                                                               "--script-shell"})),
    "nix-shell": frozenset({"--run", "--command"}),
    "nix": frozenset({"-c", "--command"}),
    "vagrant": frozenset({"-c", "--command"}), "lando": frozenset({"-c", "--command"}),
    "flatpak": frozenset({"--command"}),
    "make": frozenset({"--eval", "-E"}), "gmake": frozenset({"--eval", "-E"}),
    "distrobox": frozenset({"-e", "--exec"}),
    **dict.fromkeys(("ansible", "ansible-console"), frozenset({"-a", "--args"})),
    **dict.fromkeys(("fly", "flyctl"), frozenset({"-C", "--command"})),
    "gcloud": frozenset({"--command"}),
    "docker": frozenset({"--entrypoint"}), "podman": frozenset({"--entrypoint"}),
    "nerdctl": frozenset({"--entrypoint"}),
    # aws ecs execute-command --command, aws ssm send-command --parameters commands=...
    "aws": frozenset({"--command", "--parameters"}),
    # az vm run-command invoke --scripts, az container exec --exec-command
    "az": frozenset({"--scripts", "--script", "--exec-command", "--command"}),
    "doctl": frozenset({"--ssh-command"}),
    "just": frozenset({"--command", "--shell"}),
    "mvn": frozenset({"-Dexec.executable"}),
    "sbatch": frozenset({"--wrap"}),  # sbatch --wrap='CMD'
}
# the subcommand is looked for among the first words (global options before it), and the
# command it runs among the words after it; a command longer than either window may run
# what was not looked at, and meets every deny and ask rule (runner_overflows: fail closed)
_SCAN = 64
_MAX_SUFFIXES = 64


# options taking several words (az vm run-command invoke --scripts 'a' 'b'): each is a value
_MULTI = frozenset({"--scripts", "--parameters"})
_LITERAL = re.compile(r'"((?:[^"\\]++|\\.)*+)"|\'([^\']*)\'')


def _structured(value: str) -> list[str]:
    """The command lines in an ``aws ssm send-command --parameters`` value, written as
    shorthand (``commands=rm x``, ``commands=a,b``, ``commands=["rm x"]``) or JSON
    (``{"commands":["rm x"]}``): the text after ``commands``, each of its quoted literals and
    each comma-separated piece (fail closed: extra strings only meet deny and ask rules)."""
    at = value.find("commands")
    rest = value[at + 8:].lstrip("\"'=: ") if at >= 0 else value
    out = [rest, *rest.split(",")]
    out += [m.group(1) if m.group(1) is not None else m.group(2)
            for m in _LITERAL.finditer(rest)]
    return [v.strip("[]{} ") for v in out]


def _option_values(name: str, form: tuple[str, ...]) -> list[str]:
    opts = _VALUE_OPTIONS.get(name, frozenset())
    out: list[str] = []
    for k, word in enumerate(form[1:], 1):
        key, eq, value = word.partition("=")
        if word in opts and k + 1 < len(form):
            if word in _MULTI:
                end = next((j for j in range(k + 1, len(form)) if form[j][:1] == "-"),
                           len(form))
                out += [v for w in form[k + 1:end] for v in _structured(w)]
            else:
                out.append(form[k + 1])
        elif eq and key in opts:
            out += _structured(value) if key in _MULTI else [value]
        elif word[:1] == "-" and word[1:2] != "-" and word[:2] in opts and len(word) > 2:
            out.append(word[2:])  # a value glued to its one-letter option: git rebase -x'CMD'
        elif name == "tar" and key == "--checkpoint-action" and value.startswith("exec="):
            out.append(value[5:])  # tar --checkpoint-action=exec=CMD
        elif name in ("make", "gmake") and key == "SHELL" and eq:
            out.append(value)  # make SHELL=/bin/rm: the recipes run under that program
    return out


def _start(name: str, form: tuple[str, ...]) -> int:
    """Where the command a runner runs may start (after its subcommand), 0 for none seen."""
    if name in _WHOLE:
        return 1
    subs = _SUBCOMMANDS.get(name)
    if not subs:
        return 0
    return next((k + 1 for k, w in enumerate(form[1:_SCAN + 1], 1) if w in subs), 0)


def runner_overflows(name: str, form: tuple[str, ...]) -> bool:
    """Whether ``form`` is longer than the words ``runner_strings`` looks at: its subcommand
    may lie past the scan (``docker -H h ... run img rm x``), or its command past the
    suffixes tried."""
    if name not in _SUBCOMMANDS and name not in _WHOLE:
        return False
    at = _start(name, form)
    if not at:
        return name in _SUBCOMMANDS and _options_run_on(form)
    return len(form) > at + _MAX_SUFFIXES


def _options_run_on(form: tuple[str, ...]) -> bool:
    """Whether the program's own options (and the words that may be their values) go on
    past the scan, so the subcommand is not seen: ``git add f1 ... f100`` has one (``add``,
    which runs nothing), ``docker -H h`` forty times then ``run`` has none in the scan."""
    valued = False
    for word in form[1:_SCAN + 1]:
        if word[:1] in "-+" and len(word) > 1:
            valued = "=" not in word
        elif not valued:
            return False  # the subcommand: not one that runs a command
        else:
            valued = False  # an option's value, or the subcommand: look on
    return len(form) > _SCAN + 1


def runner_strings(name: str, form: tuple[str, ...]) -> list[str]:
    """The command lines ``form`` (whose program is ``name``) may run from its arguments: each
    suffix after the subcommand that runs one that does not start with ``-`` (an option
    never starts the command; fail closed: a word that is an option's value is tried too),
    and the values of options that are command lines."""
    out = _option_values(name, form) if name in _VALUE_OPTIONS or name == "tar" else []
    if name in _AS_PROGRAM:
        subs = _AS_PROGRAM[name]
        out += [" ".join((subs[w], *form[k + 1:])) for k, w in enumerate(form[1:_SCAN + 1], 1)
                if w in subs][:1]
    at = _start(name, form)
    if at:
        out += [" ".join(form[k:]) for k in range(at, min(len(form), at + _MAX_SUFFIXES))
                if not form[k].startswith("-")]
    return [v for v in out if v]


def runner_options(name: str) -> frozenset[str]:
    """The options of ``name`` whose value is a command line."""
    return _VALUE_OPTIONS.get(name, frozenset())


def is_runner(name: str) -> bool:
    return name in _SUBCOMMANDS or name in _WHOLE or name in _VALUE_OPTIONS or (
        name in _AS_PROGRAM)
