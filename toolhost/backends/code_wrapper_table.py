"""The table of programs that run another program (``code_wrappers`` reads it): each
one's options (which take an argument, which are flags, which take a command or the
program), its operands before the program and its subcommands that run one.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ARG", "CODE", "DIR", "PLAIN", "PROGRAM", "REST", "SHELL", "SPECIAL", "SUB", "TAKES",
           "Wrap", "w"]

ARG, ARG2, ARG3 = "arg", "arg2", "arg3"  # an option that takes 1, 2 or 3 arguments
CODE = "code"  # its argument is a shell command (flock -c, hyperfine --prepare)
# its argument is the directory the program runs in, or its root: a repository's or a
# project's own configuration there runs (git's hooks, a Makefile, npm scripts)
DIR = "dir"
PROGRAM = "program"  # its argument is the program (docker --entrypoint, --exec)
REST = "rest"  # the program starts right after it (xterm -e, gdb --args)
SHELL = "shell"  # the program part becomes a shell command line (sudo -s, env -S)
TAKES = {ARG: 1, ARG2: 2, ARG3: 3, CODE: 1, PROGRAM: 1, DIR: 1}


class Wrap(NamedTuple):
    """One wrapper (or subcommand): how its argv reaches the program it runs."""

    opts: dict[str, str]  # option -> ARG / CODE / PROGRAM / REST / SHELL
    flags: frozenset[str] = frozenset()  # options known to take no argument
    operands: int = 0  # operands before the program (timeout's duration, the image)
    shell: bool = False  # the program part is a shell command line
    image: bool = False  # the operands choose what runs (docker run IMAGE)


def w(args: str = "", flags: str = "", operands: int = 0, shell: bool = False,
       image: bool = False, **kinds: str) -> Wrap:
    """A table row: ``args``/``flags`` space-separated; ``kinds``: option kinds by name
    (``code="-c --command"``)."""
    opts = dict.fromkeys(args.split(), ARG)
    for kind, names in kinds.items():
        opts.update(dict.fromkeys(names.split(), SHELL if kind == "shellopt" else kind))
    return Wrap(opts, frozenset(flags.split()), operands, shell, image)


PLAIN: dict[str, Wrap] = {
    "env": w("-u --unset", "-i --ignore-environment -0 --null -v --debug",
              shellopt="-S --split-string", dir="-C --chdir"),
    # -i, -e and -l take their argument glued, if any (-i{}, -eEOF, -l5)
    "xargs": w("-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs "
               "-s --max-chars --process-slot-var", "-0 --null -r --no-run-if-empty -t "
               "--verbose -p --interactive -x --exit -o --open-tty -i -e -l"),
    # dtach -n SOCKET [-E -z -r METHOD] PROGRAM ARGS
    "dtach": w("-a -A -c -n -N -e -r", "-E -z"),
    "nice": w("-n --adjustment"), "nohup": w(), "setsid": w("", "-c -f -w --ctty --fork "
                                                                "--wait"),
    "time": w("-f --format -o --output", "-p -v -a -q --portability --verbose --append"),
    "command": w("", "-p -v -V"), "exec": w("-a", "-c -l"),
    "stdbuf": w("-i -o -e --input --output --error"),
    "sudo": w("-u --user -g --group -C --close-from -h --host -p --prompt -r "
               "--role -t --type -U --other-user -T --command-timeout",
               "-E --preserve-env -H --set-home -n --non-interactive -b --background -k "
               "--reset-timestamp -K -A --askpass -S --stdin -P --preserve-groups -B --bell",
               shellopt="-s --shell -i --login", dir="-D --chdir -R --chroot"),
    "doas": w("-u -C", "-n"), "ionice": w("-c --class -n --classdata -p -P -u --pid "
                                            "--pgid --uid", "-t --ignore"),
    "chrt": w("-T --sched-runtime -P --sched-period -D --sched-deadline",
               "-a --all-tasks -b --batch -d --deadline -f --fifo -i --idle -o --other -r "
               "--rr -R --reset-on-fork -v --verbose -e --ext", operands=1),
    "unbuffer": w("", "-p"), "catchsegv": w(),
    "strace": w("-o --output -e -p --attach -s --string-limit -u --user -a --columns -b "
                 "--detach-on -E --env -I -O -P --trace-path -S --summary-sort-by -X "
                 "-U --summary-columns", "-f -ff -c -C -t -tt -ttt -T -v -x -xx -y -yy -q "
                 "-qq -w -z -Z -k -i -r -F -n -D -DD -DDD --follow-forks"),
    "ltrace": w("-o --output -e -p -s -u -a -A -D -F -l -n -w", "-f -c -C -i -L -S -t -tt "
                 "-ttt -T -b"),
    "unshare": w("--map-user --map-group -S --setuid -G --setgid "
                  "--propagation --setgroups --map-users --map-groups",
                  "-m -u -i -n -p -U -C -T -r -c -f --fork --mount-proc --kill-child "
                  "--map-root-user --map-current-user --mount --uts --ipc --net --pid --user "
                  "--cgroup --time", dir="-w --wd -R --root"),
    "nsenter": w("-t --target -S --setuid -G --setgid",
                  "-a --all -m -u -i -n -p -U -C -T -r -F --no-fork --preserve-credentials",
                  dir="-w --wd -R --root"),
    "setpriv": w("--reuid --regid --groups --inh-caps --ambient-caps --bounding-set "
                  "--securebits --ruid --euid --rgid --egid --selinux-label --apparmor-profile",
                  "--nnp --no-new-privs --init-groups --keep-groups --clear-groups -d "
                  "--dump --reset-env"),
    "prlimit": w("-p --pid"), "firejail": w(), "valgrind": w(), "rlwrap": w(),
    "systemd-run": w("-p --property -u --unit -E --setenv --uid --gid -M --machine "
                      "--description --slice --working-directory -H --host",
                      "--user --system --scope -t --pty -P --pipe -q --quiet --wait -G "
                      "--collect -S --shell -d --same-dir"),
    "xvfb-run": w("-n --server-num -s --server-args -e --error-file -f --auth-file -p",
                   "-a --auto-servernum -w"),
    "fakeroot": w("-l --lib --faked -i -s", "-u --unknown-is-real"),
    "torsocks": w("-u -p -a -P", "-i -d -q"), "proxychains": w("-f", "-q"),
    "proxychains4": w("-f", "-q"), "linux32": w(), "linux64": w(),
    "numactl": w("-C -N -m -i -p --physcpubind --cpunodebind --membind --interleave "
                  "--preferred"), "cgexec": w("-g", "--sticky"), "pkexec": w("--user"),
    "dbus-run-session": w("--config-file --dbus-daemon"), "runuser": w("-u -g -G"),
    "chpst": w("-u -U -e -/ -n -l -L -m -d -o -p -f -c", "-v -P -0 -1 -2"),
    "npx": w("-p --package -c --call", "-y --yes --no -q --quiet"),  # -c: code_opts
    "bunx": w("-p --package"), "pnpx": w(), "dnx": w("--source --version", "-y --yes"),
    "uvx": w("--from --with -p --python --index-url --with-requirements --index"),
    "timeout": w("-s --signal -k --kill-after", "-v --verbose --foreground "
                  "--preserve-status", operands=1),
    "taskset": w("", "-a --all-tasks -c --cpu-list", operands=1),
    # the new root: the program is found and run from inside it
    "chroot": w("--userspec --groups", "--skip-chdir", operands=1, image=True),
    "setarch": w("", "-v -R -F -Z -L -X -B -I -S -T -3 --addr-no-randomize --uname-2.6",
                  operands=1),
    "faketime": w("-m -p -f", operands=1),
    "flock": w("-w --timeout -E --conflict-exit-code", "-s --shared -x -e --exclusive -u "
                "--unlock -n --nb --nonblock -o --close -F --no-fork --verbose",
                operands=1, code="-c --command"),
    "sg": w(operands=1, shell=True, code="-c"),
    "gosu": w(operands=1), "su-exec": w(operands=1), "setuidgid": w(operands=1),
    "envuidgid": w(operands=1), "envdir": w(operands=1), "setlock": w("", "-n -N -x -X",
                                                                           operands=1),
    "softlimit": w("-m -d -o -p -f -c -r -t -a -s -l"),
    "tini": w("-p -e", "-s -v -vv -vvv -w -g -l"), "dumb-init": w("-r --rewrite", "-c -v "
                                                                     "--single-child"),
    "eatmydata": w(), "nocache": w("-n"), "chronic": w("", "-e -v"), "ifne": w("", "-n"),
    "dbus-launch": w("--config-file --autolaunch", "--sh-syntax --csh-syntax --binary-syntax "
                      "--close-stderr --exit-with-session --exit-with-x11"),
    "ssh-agent": w("-a -E -t -P -O", "-c -s -D -d"),
    "sshpass": w("-p -f -d -P", "-e -v"),
    "xterm": w("-T -title -n -geometry -fa -fs -bg -fg -class -name", rest="-e"),
    "urxvt": w("-T -title -geometry", rest="-e"), "konsole": w("--workdir", rest="-e"),
    "alacritty": w("-T --title --working-directory", rest="-e --command"),
    "kitty": w("-T --title -d --directory -c --config -o --override"),
    "gdb": w(rest="--args"), "lldb": w(rest="--"),
    "cpulimit": w("-l --limit -p --pid -e --exe", "-z --lazy -i --include-children -v "
                   "-k -r"),
    "bwrap": w("--tmpfs --dir --proc --dev --unsetenv --uid --gid --hostname "
                "--remount-ro --mqueue --seccomp --cap-add --cap-drop --lock-file --sync-fd "
                "--info-fd --args --userns --userns2 --pidns --exec-label --file-label --perms "
                "--size --argv0 --json-status-fd --block-fd --userns-block-fd",
                "--unshare-all --share-net --unshare-user --unshare-user-try --unshare-ipc "
                "--unshare-pid --unshare-net --unshare-uts --unshare-cgroup "
                "--unshare-cgroup-try --die-with-parent --as-pid-1 --new-session --clearenv "
                "--disable-userns --assert-userns-disabled", dir="--chdir",
                arg2="--bind --ro-bind --dev-bind --bind-try --ro-bind-try --dev-bind-try "
                     "--symlink --setenv --file --bind-data --ro-bind-data --chmod "
                     "--overlay-src --ro-overlay"),
    "mpirun": w("-n -np -c -H --host --hostfile -x --map-by --bind-to"),
    "mpiexec": w("-n -np -c -H --host --hostfile -x --map-by --bind-to"),
    "srun": w("-n --ntasks -N --nodes -p --partition -t --time -c --cpus-per-task -J "
               "--job-name -A --account -w --nodelist --mem -o --output -e --error"),
    "start-stop-daemon": w("-p --pidfile -n --name -u --user -c --chuid -g --group -r "
                            "--chroot -d --chdir -N --nicelevel -k --umask -s --signal -R "
                            "--retry", "-S --start -K --stop -b --background -m "
                            "--make-pidfile -o --oknodo -q --quiet -v --verbose -t --test",
                            program="-x --exec -a --startas", rest="--"),
    "systemd-nspawn": w("-D --directory -i --image -M --machine -u --user --chdir -E "
                         "--setenv --bind --bind-ro -n --network-veth"),
    "schroot": w("-c --chroot -u --user -d --directory -n --session-name",
                  "-p --preserve-environment -q --quiet -b --begin-session -r "
                  "--run-session -e --end-session"),
    "minijail0": w("-u -g -c -S -p -v -b -k -P"), "nsjail": w("-C --config -R -B -T",
                                                                 rest="--"),
    "proot": w("-r -b -w -q -k"), "trickle": w("-u -d -w -t -l -n", "-s -v"),
    "entr": w("", "-a -c -cc -d -n -p -r -z", shellopt="-s"),
    "hyperfine": w("-w --warmup -m --min-runs -M --max-runs -r --runs -S --shell -u "
                    "--time-unit --export-asciidoc --export-csv --export-json "
                    "--export-markdown --export-orgmode --style --sort -n --command-name "
                    "--output --input --min-benchmarking-time",
                    "-i --ignore-failure -N --show-output",
                    shell=True, arg3="-P --parameter-scan", arg2="-L --parameter-list",
                    code="-p --prepare -c --cleanup -s --setup --conclude"),
    "deno": w(), "go": w(),
    # multi-call binaries: the first operand is the applet that runs (`busybox sh -c ...`)
    "busybox": w(), "toybox": w(), "caffeinate": w("-t -w", "-d -i -m -s -u"),
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
    ("run",): w(_DOCKER_RUN, _DOCKER_FLAGS, operands=1, image=True, program="--entrypoint",
                 code="--health-cmd"),
    ("create",): w(_DOCKER_RUN, _DOCKER_FLAGS, operands=1, image=True, program="--entrypoint",
                    code="--health-cmd"),
    ("exec",): w(_DOCKER_EXEC, "-d --detach -i --interactive -t --tty --privileged",
                  operands=1),
}
_CONTAINER |= {("container", *k): v for k, v in _CONTAINER.items()}
# compose: the service (operand) names an image the compose file chose; what runs follows it
_COMPOSE: dict[tuple[str, ...], Wrap] = {
    (sub,): w(_DOCKER_EXEC + " --name -p --publish -v --volume -l --label --index",
              _DOCKER_FLAGS + " -T --no-TTY --no-deps --service-ports --build", operands=1,
              program="--entrypoint")
    for sub in ("run", "exec")}
_CONTAINER |= {("compose", *k): v for k, v in _COMPOSE.items()}
_DOCKER_GLOBAL = w("-H --host -c --context --config -l --log-level --tlscacert --tlscert "
                    "--tlskey --url --connection --root --runroot --storage-driver "
                    "--cgroup-manager --identity --runtime --tmpdir --namespace -n",
                    "-D --debug --tls --tlsverify --remote")
_RUNNER = w("-e --env -n --name -p --prefix --with -p --python --directory --project "
             "--package --extra --group --index --index-url --env-file --from "
             "--with-requirements --cwd --manifest-path -E --environment")
SUB: dict[str, tuple[Wrap, dict[tuple[str, ...], Wrap]]] = {
    "docker": (_DOCKER_GLOBAL, _CONTAINER), "podman": (_DOCKER_GLOBAL, _CONTAINER),
    "nerdctl": (_DOCKER_GLOBAL, _CONTAINER),
    "docker-compose": (w("-f --file -p --project-name --profile --env-file"), _COMPOSE),
    "podman-compose": (w("-f --file -p --project-name --profile --env-file"), _COMPOSE),
    "kubectl": (w("-n --namespace --context --cluster --kubeconfig -s --server --token "
                   "--user --as --as-group"),
                {("exec",): w("-c --container -f --filename --pod-running-timeout",
                               "-i --stdin -t --tty -q --quiet", operands=1),
                 ("run",): w("--env --labels -l --port --overrides --restart -n",
                              "--rm -i -t --stdin --tty --command --attach",
                              operands=1, program="--image")}),
    "ip": (w("-n -netns -b -batch -f -family", "-s -d -4 -6 -force -j -p"),
           {("netns", "exec"): w(operands=1)}),
    "tmux": (w("-L -S -f -T", "-2 -u -v -C -N -D -l", code="-c"),
             {(sub,): w("-c -e -F -n -s -t -x -y -f -p -N -T",
                         "-A -D -P -X -d -h -v -Z -b -k -E -I -R -M -H",
                         shell=True) for sub in (
                 "new-session", "new", "new-window", "neww", "split-window", "splitw",
                 "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run",
                 "send-keys", "send", "display-popup", "popup", "if-shell", "if",
                 "pipe-pane", "pipep")}),
    "nix": (w(), {("run",): w(), ("shell",): w(rest="-c --command"),
                   ("develop",): w(rest="-c --command")}),
    "sops": (w(), {("exec-env",): w(operands=1, shell=True),
                    ("exec-file",): w(operands=1, shell=True)}),
    "perf": (w(), {(s,): w("-e --event -o --output -p --pid -t --tid -C --cpu -r --repeat "
                             "-G --cgroup -F --freq -c --count", "-a --all-cpus -g -q "
                             "--quiet -v") for s in ("stat", "record", "trace")}),
    **{name: (w(), {tuple(sub.split()): _RUNNER for sub in subs.split(",")})
       for name, subs in (
        ("uv", "run,tool run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"),
        ("hatch", "run"), ("rye", "run"), ("pixi", "run,exec"), ("conda", "run"),
        ("mamba", "run"), ("micromamba", "run"), ("bundle", "exec"), ("rbenv", "exec"),
        ("pyenv", "exec"), ("asdf", "exec"), ("mise", "exec,x"), ("rtx", "exec,x"),
        ("pipx", "run"), ("op", "run"), ("doppler", "run"), ("infisical", "run"),
        # gem exec installs the gem a value names and runs its executable (like npx)
        ("bun", "x"), ("gem", "exec"), ("opam", "exec"), ("stack", "exec"),
        ("cabal", "exec"), ("devbox", "run"), ("volta", "run"), ("fnm", "exec"))},
    **{name: (w("--prefix -C --dir --cwd --userconfig --globalconfig --script-shell -w "
                "--workspace --filter -F --loglevel"),
              {(sub,): w("-p --package -w --workspace -c --call", "-y --yes",
                                code="-c --call")
                     for sub in ("exec", "x", "dlx")}) for name in ("npm", "pnpm", "yarn")},
    "direnv": (w(), {("exec",): w(operands=1)}),
    "aws-vault": (w(), {("exec",): w("-d --duration --region", "-n --no-session "
                                      "--json --server", operands=1)}),
    "chamber": (w(), {("exec",): w(operands=1)}),
}
# read by _special: parallel's command, nix-shell --run, sbatch --wrap, screen
SPECIAL = frozenset({"parallel", "nix-shell", "sbatch", "screen"})
