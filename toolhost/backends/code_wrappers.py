"""Programs that run another program: where, in their argv, the program they run starts.

``timeout -s KILL 5 sh -c CODE``, ``flock /tmp/l sh -c CODE``, ``docker run alpine sh -c
CODE``, ``uv run sh -c CODE``, ``sg staff CMDLINE``: a value in the program's place would
choose what runs, and the program's own code slots (``sh -c``) must be found behind the
wrapper. :func:`wrapper_targets` reads a wrapper's options, its operands before the program
(``timeout``'s duration, ``docker run``'s image) and its subcommand (``docker run``, ``ip
netns exec``), and says where the program may start.

Fails closed: an option the table does not know may take an argument or not, so both
readings are followed (``sudo --user x CMD``: ``x`` and ``CMD`` are both scanned as the
program); a wrapper whose program part is a shell command line (``sg``, ``parallel``,
``hyperfine``, ``tmux new-session``, ``sudo -s``) has every value in it as code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

__all__ = ["Targets", "is_wrapper", "wrapper_targets"]


class _Token(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def value(self) -> bool: ...


ARG, ARG2, ARG3 = "arg", "arg2", "arg3"  # an option that takes 1, 2 or 3 arguments
CODE = "code"  # its argument is a shell command (flock -c, hyperfine --prepare)
PROGRAM = "program"  # its argument is the program (docker --entrypoint, --exec)
REST = "rest"  # the program starts right after it (xterm -e, gdb --args)
SHELL = "shell"  # the program part becomes a shell command line (sudo -s, env -S)
_TAKES = {ARG: 1, ARG2: 2, ARG3: 3, CODE: 1, PROGRAM: 1}


class Wrap(NamedTuple):
    opts: dict[str, str]  # option -> ARG / CODE / PROGRAM / REST / SHELL
    flags: frozenset[str] = frozenset()  # options known to take no argument
    operands: int = 0  # operands before the program (timeout's duration, the image)
    shell: bool = False  # the program part is a shell command line
    image: bool = False  # the operands choose what runs (docker run IMAGE)


def _w(args: str = "", flags: str = "", operands: int = 0, shell: bool = False,
       image: bool = False, **kinds: str) -> Wrap:
    """A table row: ``args``/``flags`` space-separated; ``kinds``: option kinds by name
    (``code="-c --command"``)."""
    opts = dict.fromkeys(args.split(), ARG)
    for kind, names in kinds.items():
        opts.update(dict.fromkeys(names.split(), SHELL if kind == "shellopt" else kind))
    return Wrap(opts, frozenset(flags.split()), operands, shell, image)


_PLAIN: dict[str, Wrap] = {
    "env": _w("-u --unset -C --chdir", "-i --ignore-environment -0 --null -v --debug",
              shellopt="-S --split-string"),
    "xargs": _w("-a --arg-file -d --delimiter -E -e -I -i -L -l -n --max-args -P --max-procs "
                "-s --max-chars --process-slot-var", "-0 --null -r --no-run-if-empty -t "
                "--verbose -p --interactive -x --exit -o --open-tty"),
    "nice": _w("-n --adjustment"), "nohup": _w(), "setsid": _w("", "-c -f -w --ctty --fork "
                                                                "--wait"),
    "time": _w("-f --format -o --output", "-p -v -a -q --portability --verbose --append"),
    "command": _w("", "-p -v -V"), "exec": _w("-a", "-c -l"),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "sudo": _w("-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r "
               "--role -t --type -U --other-user -T --command-timeout -R --chroot",
               "-E --preserve-env -H --set-home -n --non-interactive -b --background -k "
               "--reset-timestamp -K -A --askpass -S --stdin -P --preserve-groups -B --bell",
               shellopt="-s --shell -i --login"),
    "doas": _w("-u -C", "-n"), "ionice": _w("-c --class -n --classdata -p -P -u --pid "
                                            "--pgid --uid", "-t --ignore"),
    "chrt": _w("-T --sched-runtime -P --sched-period -D --sched-deadline",
               "-a --all-tasks -b --batch -d --deadline -f --fifo -i --idle -o --other -r "
               "--rr -R --reset-on-fork -v --verbose -e --ext", operands=1),
    "unbuffer": _w("", "-p"), "catchsegv": _w(),
    "strace": _w("-o --output -e -p --attach -s --string-limit -u --user -a --columns -b "
                 "--detach-on -E --env -I -O -P --trace-path -S --summary-sort-by -X "
                 "-U --summary-columns", "-f -ff -c -C -t -tt -ttt -T -v -x -xx -y -yy -q "
                 "-qq -w -z -Z -k -i -r -F -n -D -DD -DDD --follow-forks"),
    "ltrace": _w("-o --output -e -p -s -u -a -A -D -F -l -n -w", "-f -c -C -i -L -S -t -tt "
                 "-ttt -T -b"),
    "unshare": _w("--map-user --map-group -S --setuid -G --setgid -R --root -w --wd "
                  "--propagation --setgroups --map-users --map-groups",
                  "-m -u -i -n -p -U -C -T -r -c -f --fork --mount-proc --kill-child "
                  "--map-root-user --map-current-user --mount --uts --ipc --net --pid --user "
                  "--cgroup --time"),
    "nsenter": _w("-t --target -S --setuid -G --setgid -w --wd",
                  "-a --all -m -u -i -n -p -U -C -T -r -F --no-fork --preserve-credentials"),
    "setpriv": _w("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set "
                  "--securebits --ruid --euid --rgid --egid --selinux-label --apparmor-profile",
                  "--nnp --no-new-privs --init-groups --keep-groups --clear-groups -d "
                  "--dump --reset-env"),
    "prlimit": _w("-p --pid"), "firejail": _w(), "valgrind": _w(), "rlwrap": _w(),
    "systemd-run": _w("-p --property -u --unit -E --setenv --uid --gid -M --machine "
                      "--description --slice --working-directory -H --host",
                      "--user --system --scope -t --pty -P --pipe -q --quiet --wait -G "
                      "--collect -S --shell -d --same-dir"),
    "xvfb-run": _w("-n --server-num -s --server-args -e --error-file -f --auth-file -p",
                   "-a --auto-servernum -w"),
    "fakeroot": _w("-l --lib --faked -i -s", "-u --unknown-is-real"),
    "torsocks": _w("-u -p -a -P", "-i -d -q"), "proxychains": _w("-f", "-q"),
    "proxychains4": _w("-f", "-q"), "linux32": _w(), "linux64": _w(),
    "numactl": _w("-C -N -m -i -p --physcpubind --cpunodebind --membind --interleave "
                  "--preferred"), "cgexec": _w("-g", "--sticky"), "pkexec": _w("--user"),
    "dbus-run-session": _w("--config-file --dbus-daemon"), "runuser": _w("-u -g -G"),
    "chpst": _w("-u -U -e -/ -n -l -L -m -d -o -p -f -c", "-v -P -0 -1 -2"),
    "npx": _w("-p --package -c --call", "-y --yes --no -q --quiet"),  # -c: code_opts
    "bunx": _w("-p --package"), "pnpx": _w(),
    "uvx": _w("--from --with -p --python --index-url --with-requirements --index"),
    "timeout": _w("-s --signal -k --kill-after", "-v --verbose --foreground "
                  "--preserve-status", operands=1),
    "taskset": _w("", "-a --all-tasks -c --cpu-list", operands=1),
    "chroot": _w("--userspec --groups", "--skip-chdir", operands=1),
    "setarch": _w("", "-v -R -F -Z -L -X -B -I -S -T -3 --addr-no-randomize --uname-2.6",
                  operands=1),
    "faketime": _w("-m -p -f", operands=1),
    "flock": _w("-w --timeout -E --conflict-exit-code", "-s --shared -x -e --exclusive -u "
                "--unlock -n --nb --nonblock -o --close -F --no-fork --verbose",
                operands=1, code="-c --command"),
    "sg": _w(operands=1, shell=True, code="-c"),
    "gosu": _w(operands=1), "su-exec": _w(operands=1), "setuidgid": _w(operands=1),
    "envuidgid": _w(operands=1), "envdir": _w(operands=1), "setlock": _w("", "-n -N -x -X",
                                                                           operands=1),
    "softlimit": _w("-m -d -o -p -f -c -r -t -a -s -l"),
    "tini": _w("-p -e", "-s -v -vv -vvv -w -g -l"), "dumb-init": _w("-r --rewrite", "-c -v "
                                                                     "--single-child"),
    "eatmydata": _w(), "nocache": _w("-n"), "chronic": _w("", "-e -v"), "ifne": _w("", "-n"),
    "dbus-launch": _w("--config-file --autolaunch", "--sh-syntax --csh-syntax --binary-syntax "
                      "--close-stderr --exit-with-session --exit-with-x11"),
    "ssh-agent": _w("-a -E -t -P -O", "-c -s -D -d"),
    "sshpass": _w("-p -f -d -P", "-e -v"),
    "xterm": _w("-T -title -n -geometry -fa -fs -bg -fg -class -name", rest="-e"),
    "urxvt": _w("-T -title -geometry", rest="-e"), "konsole": _w("--workdir", rest="-e"),
    "alacritty": _w("-T --title --working-directory", rest="-e --command"),
    "kitty": _w("-T --title -d --directory -c --config -o --override"),
    "gdb": _w(rest="--args"), "lldb": _w(rest="--"),
    "cpulimit": _w("-l --limit -p --pid -e --exe", "-z --lazy -i --include-children -v "
                   "-k -r"),
    "bwrap": _w("--tmpfs --dir --proc --dev --chdir --unsetenv --uid --gid --hostname "
                "--remount-ro --mqueue --seccomp --cap-add --cap-drop --lock-file --sync-fd "
                "--info-fd --args --userns --userns2 --pidns --exec-label --file-label --perms "
                "--size --argv0 --json-status-fd --block-fd --userns-block-fd",
                "--unshare-all --share-net --unshare-user --unshare-user-try --unshare-ipc "
                "--unshare-pid --unshare-net --unshare-uts --unshare-cgroup "
                "--unshare-cgroup-try --die-with-parent --as-pid-1 --new-session --clearenv "
                "--disable-userns --assert-userns-disabled",
                arg2="--bind --ro-bind --dev-bind --bind-try --ro-bind-try --dev-bind-try "
                     "--symlink --setenv --file --bind-data --ro-bind-data --chmod "
                     "--overlay-src --ro-overlay"),
    "mpirun": _w("-n -np -c -H --host --hostfile -x --map-by --bind-to"),
    "mpiexec": _w("-n -np -c -H --host --hostfile -x --map-by --bind-to"),
    "srun": _w("-n --ntasks -N --nodes -p --partition -t --time -c --cpus-per-task -J "
               "--job-name -A --account -w --nodelist --mem -o --output -e --error"),
    "start-stop-daemon": _w("-p --pidfile -n --name -u --user -c --chuid -g --group -r "
                            "--chroot -d --chdir -N --nicelevel -k --umask -s --signal -R "
                            "--retry", "-S --start -K --stop -b --background -m "
                            "--make-pidfile -o --oknodo -q --quiet -v --verbose -t --test",
                            program="-x --exec -a --startas", rest="--"),
    "systemd-nspawn": _w("-D --directory -i --image -M --machine -u --user --chdir -E "
                         "--setenv --bind --bind-ro -n --network-veth"),
    "schroot": _w("-c --chroot -u --user -d --directory -n --session-name",
                  "-p --preserve-environment -q --quiet -b --begin-session -r "
                  "--run-session -e --end-session"),
    "minijail0": _w("-u -g -c -S -p -v -b -k -P"), "nsjail": _w("-C --config -R -B -T",
                                                                 rest="--"),
    "proot": _w("-r -b -w -q -k"), "trickle": _w("-u -d -w -t -l -n", "-s -v"),
    "entr": _w("", "-a -c -cc -d -n -p -r -z", shellopt="-s"),
    "hyperfine": _w("-w --warmup -m --min-runs -M --max-runs -r --runs -S --shell -u "
                    "--time-unit --export-asciidoc --export-csv --export-json "
                    "--export-markdown --export-orgmode --style --sort -n --command-name "
                    "--output --input --min-benchmarking-time",
                    "-i --ignore-failure -N --show-output",
                    shell=True, arg3="-P --parameter-scan", arg2="-L --parameter-list",
                    code="-p --prepare -c --cleanup -s --setup --conclude"),
    "deno": _w(), "go": _w(),
}
# programs whose subcommand runs another program: global options, then subcommand -> Wrap
_DOCKER_RUN = (
    "-a --attach --add-host --annotation --blkio-weight --blkio-weight-device --cap-add "
    "--cap-drop --cgroup-parent --cgroupns --cidfile --cpu-period --cpu-quota "
    "--cpu-rt-period --cpu-rt-runtime -c --cpu-shares --cpus --cpuset-cpus --cpuset-mems "
    "--detach-keys --device --device-cgroup-rule --device-read-bps --device-read-iops "
    "--device-write-bps --device-write-iops --dns --dns-option --dns-search --domainname -e "
    "--env --env-file --expose --gpus --group-add --health-interval --health-retries "
    "--health-start-period --health-timeout -h --hostname --ip --ip6 --ipc --isolation -l "
    "--label --label-file --link --link-local-ip --log-driver --log-opt --mac-address -m "
    "--memory --memory-reservation --memory-swap --memory-swappiness --mount --name "
    "--network --net --network-alias --oom-score-adj --pid --pids-limit --platform -p "
    "--publish --pull --restart --runtime --security-opt --shm-size --stop-signal "
    "--stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns --uts -v "
    "--volume --volume-driver --volumes-from -w --workdir --arch --os --pod --secret --tz "
    "--umask --uidmap --gidmap --authfile --creds --requires --sdnotify --timeout")
_DOCKER_FLAGS = ("-d --detach -i --interactive -t --tty --rm --privileged --init "
                 "--read-only -P --publish-all --no-healthcheck --oom-kill-disable "
                 "--sig-proxy -q --quiet --disable-content-trust --replace --no-hosts")
_DOCKER_EXEC = "-e --env --env-file -u --user -w --workdir --detach-keys"
_CONTAINER: dict[tuple[str, ...], Wrap] = {
    ("run",): _w(_DOCKER_RUN, _DOCKER_FLAGS, operands=1, image=True, program="--entrypoint",
                 code="--health-cmd"),
    ("create",): _w(_DOCKER_RUN, _DOCKER_FLAGS, operands=1, image=True, program="--entrypoint",
                    code="--health-cmd"),
    ("exec",): _w(_DOCKER_EXEC, "-d --detach -i --interactive -t --tty --privileged",
                  operands=1),
}
_CONTAINER |= {("container", *k): v for k, v in _CONTAINER.items()}
_DOCKER_GLOBAL = _w("-H --host -c --context --config -l --log-level --tlscacert --tlscert "
                    "--tlskey --url --connection --root --runroot --storage-driver "
                    "--cgroup-manager --identity --runtime --tmpdir --namespace -n",
                    "-D --debug --tls --tlsverify --remote")
_RUNNER = _w("-e --env -n --name -p --prefix --with -p --python --directory --project "
             "--package --extra --group --index --index-url --env-file --from "
             "--with-requirements --cwd --manifest-path -E --environment")
_SUB: dict[str, tuple[Wrap, dict[tuple[str, ...], Wrap]]] = {
    "docker": (_DOCKER_GLOBAL, _CONTAINER), "podman": (_DOCKER_GLOBAL, _CONTAINER),
    "nerdctl": (_DOCKER_GLOBAL, _CONTAINER),
    "kubectl": (_w("-n --namespace --context --cluster --kubeconfig -s --server --token "
                   "--user --as --as-group"),
                {("exec",): _w("-c --container -f --filename --pod-running-timeout",
                               "-i --stdin -t --tty -q --quiet", operands=1),
                 ("run",): _w("--env --labels -l --port --overrides --restart -n",
                              "--rm -i -t --stdin --tty --command --attach",
                              operands=1, program="--image")}),
    "ip": (_w("-n -netns -b -batch -f -family", "-s -d -4 -6 -force -j -p"),
           {("netns", "exec"): _w(operands=1)}),
    "tmux": (_w("-L -S -f -T", "-2 -u -v -C -N -D -l", code="-c"),
             {(sub,): _w("-c -e -F -n -s -t -x -y -f -p -N -T",
                         "-A -D -P -X -d -h -v -Z -b -k -E -I -R -M -H",
                         shell=True) for sub in (
                 "new-session", "new", "new-window", "neww", "split-window", "splitw",
                 "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run",
                 "send-keys", "send", "display-popup", "popup", "if-shell", "if",
                 "pipe-pane", "pipep")}),
    "nix": (_w(), {("run",): _w(), ("shell",): _w(rest="-c --command"),
                   ("develop",): _w(rest="-c --command")}),
    "sops": (_w(), {("exec-env",): _w(operands=1, shell=True),
                    ("exec-file",): _w(operands=1, shell=True)}),
    "perf": (_w(), {(s,): _w("-e --event -o --output -p --pid -t --tid -C --cpu -r --repeat "
                             "-G --cgroup -F --freq -c --count", "-a --all-cpus -g -q "
                             "--quiet -v") for s in ("stat", "record", "trace")}),
    **{name: (_w(), {(sub,): _RUNNER}) for name, sub in (
        ("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"),
        ("hatch", "run"), ("rye", "run"), ("pixi", "run"), ("conda", "run"),
        ("mamba", "run"), ("micromamba", "run"), ("bundle", "exec"), ("rbenv", "exec"),
        ("pyenv", "exec"), ("asdf", "exec"), ("mise", "exec"), ("rtx", "exec"),
        ("pipx", "run"), ("op", "run"), ("doppler", "run"), ("infisical", "run"),
        ("bun", "x"))},
    **{name: (_w(), {(sub,): _w("-p --package -w --workspace -c --call", "-y --yes",
                                code="-c --call")
                     for sub in ("exec", "x", "dlx")}) for name in ("npm", "pnpm", "yarn")},
    "direnv": (_w(), {("exec",): _w(operands=1)}),
    "aws-vault": (_w(), {("exec",): _w("-d --duration --region", "-n --no-session "
                                      "--json --server", operands=1)}),
    "chamber": (_w(), {("exec",): _w(operands=1)}),
}
# read by _special: parallel's command, nix-shell --run, sbatch --wrap, screen
_SPECIAL = frozenset({"parallel", "nix-shell", "sbatch", "screen"})


class Targets(NamedTuple):
    """Where a wrapper's program may start, and values that are code or the program."""

    starts: list[int]  # indexes the program may be at (scan each as a program)
    slots: list[tuple[str, str]]  # (key, what): "code" or "the program to run"


def is_wrapper(name: str) -> bool:
    """Whether ``name`` (a program's base name) runs another program."""
    return name in _PLAIN or name in _SUB or name in _SPECIAL


def wrapper_targets(tokens: Sequence[_Token], i: int, name: str) -> Targets | None:
    """Where the program that the wrapper ``tokens[i]`` (named ``name``) runs may start;
    None when it runs none here (``docker ps``)."""
    if name in _PLAIN:
        if name in ("gdb", "lldb") and not any(
                t.text == ("--args" if name == "gdb" else "--") for t in tokens[i + 1:]):
            return None  # gdb PROGRAM debugs it, reading gdb's commands
        if name in ("deno", "go"):  # `deno run FILE`, `go run FILE`: the file is the program
            if i + 1 < len(tokens) and tokens[i + 1].text == "run" and not tokens[i + 1].value:
                return _follow(tokens, i + 1, _w("--config -c --import-map --lock -A "
                                                 "--allow-all --tags -o"), name)
            return None
        return _follow(tokens, i, _PLAIN[name], name)
    if name in _SPECIAL:
        return _special(tokens, i, name)
    glob, subs = _SUB[name]
    starts = _options(tokens, i + 1, glob, name, [])
    slots: list[tuple[str, str]] = []
    found: list[int] = []
    for at in starts:
        if at >= len(tokens):
            continue
        if tokens[at].value:  # the model would choose the subcommand (run, exec ...)
            slots.append((tokens[at].key, "the program to run"))
            continue
        for words, wrap in subs.items():
            end = at + len(words)
            if tuple(t.text for t in tokens[at:end]) == words \
                    and not any(t.value for t in tokens[at:end]):
                more = _follow(tokens, end - 1, wrap, name)
                found.extend(more.starts)
                slots.extend(more.slots)
    return Targets(found, slots) if found or slots else None


def _special(tokens: Sequence[_Token], i: int, name: str) -> Targets:
    """parallel's command (shell; without one, each argument after ``:::`` is a command),
    nix-shell --run, sbatch --wrap, screen -X: every value there is code; screen's program
    otherwise follows its options."""
    rest = tokens[i + 1:]
    seps = [k for k, t in enumerate(rest) if t.text in (":::", "::::", ":::+", "::::+")
            and not t.value]
    if name == "parallel":
        cut = seps[0] if seps else len(rest)
        # a command word: not an option, nor what may be an option's argument (-j 4)
        words = [t for k, t in enumerate(rest[:cut]) if not t.value
                 and not t.text.startswith("-") and not (k and rest[k - 1].text[:1] == "-")]
        code = rest if not words else rest[:cut]
        return Targets([], [(t.key, "code") for t in code if t.value])
    if name == "screen":
        wrap = _w("-S -c -T -h -p -Logfile -e -s -t", "-d -m -D -L -U -a -A -q -r "
                  "-R -x -O -i -l -ln -wipe -ls -list", code="-X")
        return _follow(tokens, i, wrap, name)
    opts = {"nix-shell": "--run --command", "sbatch": "--wrap"}[name].split()
    slots = [(t.key, "code") for k, t in enumerate(rest)
             if t.value and ((k > 0 and rest[k - 1].text in opts)
                             or any(t.text.startswith(o + "=") for o in opts))]
    return Targets([], slots)


def _follow(tokens: Sequence[_Token], i: int, wrap: Wrap, name: str) -> Targets:
    """The program's starts after the wrapper (or subcommand) at ``i``."""
    slots: list[tuple[str, str]] = []
    ends = _options(tokens, i + 1, wrap, name, slots)
    starts: set[int] = set()
    for end in ends:
        if wrap.operands and end >= 0:
            if wrap.image:  # a value there chooses the image: what runs
                slots.extend((t.key, "the program to run")
                             for t in tokens[end:end + wrap.operands] if t.value)
            starts.update(_options(tokens, end + wrap.operands, wrap, name, slots))
        else:
            starts.add(end)
    if wrap.shell or -1 in starts:  # every value in the command line is code
        first = i + 1 if -1 in starts else min(starts, default=i + 1)
        return Targets([], slots + [(t.key, "code") for t in tokens[first:] if t.value])
    return Targets(sorted(s for s in starts if s < len(tokens)), slots)


def _kind(text: str, wrap: Wrap) -> tuple[str | None, bool]:
    """(the option's kind, or "flag", or None when unknown; whether its argument is glued)."""
    if text in wrap.opts:
        return wrap.opts[text], False
    if text in wrap.flags or text[1:].isdigit():
        return "flag", False
    if text.startswith("--"):
        option = text.split("=", 1)[0]
        if option in wrap.opts:
            return wrap.opts[option], True
        return ("flag" if "=" in text or option in wrap.flags else None), False
    for at in range(1, len(text)):  # a bundle: -it, -n5, -Sxyz
        short = "-" + text[at]
        if short in wrap.opts:
            kind = wrap.opts[short]
            return kind, at + 1 < len(text)
        if short not in wrap.flags:
            return None, False
    return "flag", False


def _options(tokens: Sequence[_Token], j: int, wrap: Wrap, name: str,
             slots: list[tuple[str, str]]) -> set[int]:
    """The indexes where the options from ``j`` may end (both readings of an option the
    table does not know); -1 marks "the rest is a shell command line"."""
    ends: set[int] = set()
    todo, seen = [j], set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k >= len(tokens):
            ends.add(k)
            continue
        token = tokens[k]
        text = token.text
        if token.value or not text.startswith("-") or text == "-":
            if name == "env" and not token.value and "=" in text:
                todo.append(k + 1)  # env's NAME=VALUE
                continue
            ends.add(k)
            continue
        if text == "--":
            ends.add(k + 1)
            continue
        kind, glued = _kind(text, wrap)
        if kind == SHELL:
            ends.add(-1)
            continue
        if kind == REST:
            ends.add(k + 1)
            continue
        if kind in (CODE, PROGRAM):
            what = "code" if kind == CODE else "the program to run"
            if glued:
                if token.value:
                    slots.append((token.key, what))
            elif k + 1 < len(tokens) and tokens[k + 1].value:
                slots.append((tokens[k + 1].key, what))
        if kind == "flag":
            todo.append(k + 1)
        elif kind is None:  # unknown: with an argument or without
            todo.extend((k + 1, k + 2))
        else:
            todo.append(k + 1 + (0 if glued else _TAKES.get(kind, 1)))
    return ends
