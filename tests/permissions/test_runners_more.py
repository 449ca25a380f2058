"""Round 10: more programs that run a command named by their own arguments (environment,
secret and VM runners: ``devbox run``, ``doppler run --``, ``dotenv --``, ``limactl shell``),
cloud "run it there" options (``aws ssm send-command --parameters commands=...``, ``az vm
run-command invoke --scripts``, ``aws ecs execute-command --command``), a value glued to a
one-letter option (``rsync -e'rm x'``, ``scp -Srm``, ``git -cdiff.external=...``), and git
configuration whose value deny rules cannot see (``git --config-env=alias.p=VAR``,
``GIT_CONFIG_PARAMETERS=``, ``GIT_CONFIG_COUNT=``): the command meets the deny and ask rules
(fail closed); project scripts (``npm run x``, ``make x``, ``just x``) stay the program."""

from __future__ import annotations

import pytest

from tests.permissions.test_command_strings import DENY_RM, policy

RUNS = [
    "devbox run rm x", "devbox run -- rm x", "pixi exec rm x", "tox exec -e py -- rm x",
    "lerna exec -- rm x", "nx exec -- rm x", "guix shell -- rm x",
    "guix environment x -- rm x", "corepack pnpm dlx rm x", "railway run rm x",
    "doppler run -- rm x", "op run -- rm x", "infisical run -- rm x", "dotenvx run -- rm x",
    "aws-vault exec p -- rm x", "chamber exec s -- rm x", "dotenv -- rm x",
    "dotenv -e .env -- rm x", "env-cmd rm x", "cross-env A=1 rm x", "summon rm x",
    "envchain ns rm x", "sops exec-env f 'rm x'", "retry rm x", "cpulimit -l 5 rm x",
    "systemd-inhibit rm x", "torify rm x", "tsocks rm x", "hyperfine 'rm x'",
    "limactl shell d rm x", "lima rm x", "colima ssh -- rm x", "orb run rm x",
    "gcloud compute ssh vm -- rm x", "az ssh vm -n v -- rm x",
    "aws ssm send-command --document-name AWS-RunShellScript --parameters commands='rm x'",
    "aws ssm send-command --parameters 'commands=[\"rm x\"]' --instance-ids i",
    "aws ssm send-command --parameters '{\"commands\":[\"ls\",\"rm x\"]}'",
    "aws ssm send-command --parameters=commands='ls,rm x'",
    "aws ecs execute-command --command 'rm x' --interactive",
    "az vm run-command invoke -g g -n n --command-id RunShellScript --scripts 'rm x'",
    "az vm run-command invoke --scripts 'ls' 'rm x'", "az vm run-command create --script 'rm x'",
    "az container exec -n c --exec-command 'rm x'", "doctl compute ssh d --ssh-command 'rm x'",
    "docker container run --entrypoint=rm img x", "podman run --entrypoint=rm img x",
    "mvn exec:exec -Dexec.executable=rm -Dexec.args=x", "just --command rm x",
    "scp -Srm a b:", "rsync -e'rm x' a b:", "rsync -avze 'rm x' a b:", "sftp -S'rm x' h",
    "tar -I'rm x' -xf a", "git -cdiff.external='rm x' diff", "git -ccore.pager='rm x' log",
    "git --config-env=alias.x=VAR x", "git --config-env alias.x=VAR x",
    "git --config-env=core.pager=P log", "git --config-env=core.sshCommand=S fetch",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm x' git log",
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm x'\" git log",
    "env GIT_CONFIG_PARAMETERS=\"'alias.p'='!rm x'\" git p",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push; git p",
    "GIT_CONFIG_GLOBAL=/tmp/c git log", "GIT_EXEC_PATH=/tmp/x git status",
    "git -c include.path=/tmp/evil.cfg log", "git -cinclude.path=/tmp/e log",
    "git -c includeIf.gitdir:/.path=/tmp/e log",
    # version managers, toolchains, dev environments, remote workspaces
    "yarn node -e 'require(\"child_process\").execSync(\"rm x\")'", "fnm exec -- rm x",
    "fnm exec --using=18 rm x", "nvm exec 18 rm x", "n exec 18 rm x",
    "nvm run 18 -e 'require(\"child_process\").execSync(\"rm x\")'",
    "chruby-exec 3.1 -- rm x", "rvm 3.1 do rm x", "rvm all do rm x", "scl enable x 'rm x'",
    "scl enable x -- rm x", "opam exec -- rm x", "stack exec -- rm x", "cabal exec -- rm x",
    "esy x rm x", "flox activate -- rm x", "devenv shell rm x", "ddev exec rm x",
    "lando ssh -c 'rm x'", "k3s kubectl exec p -- rm x", "microk8s kubectl exec p -- rm x",
    "vcluster connect x -- rm x", "okteto exec -- rm x", "telepresence intercept x -- rm x",
    "garden exec x 'rm x'", "devcontainer exec --workspace-folder . rm x",
    "gh codespace ssh -- rm x", "gh cs ssh -c x -- rm x", "coder ssh ws -- rm x",
    "gitpod ssh -- rm x", "proto run node -- -e 'x(\"rm x\")'",
    # a long option abbreviated (getopt_long, git, argparse take any unambiguous prefix)
    "rsync --rs='rm x' a b:", "rsync --rsync-p='rm x' a b:", "tar --to-com='rm x' -xf a",
    "tar --checkpoint-act=exec='rm x' -cf a b", "tar --use-compress-prog='rm x' -cf a b",
    "git clone --upload-p='rm x' h", "git rebase --exe 'rm x'", "git difftool --extc='rm x'",
    "git filter-branch --tree-f 'rm x'", "man --pag='rm x' ls", "nix-shell --ru 'rm x'",
    "make --ev='x:;rm y' x", "ansible all --arg 'rm x'", "gdb --eval-c='shell rm x'",
    "sed --expr='1e rm x' f", "docker run --entry=rm img x",
    "git --exec-p=/tmp/x status", "git --exec-path=/tmp/x status",
    # git options that name a program
    "git clone --config core.sshCommand='rm x' h", "git clone --config=core.sshCommand='rm x' h",
    "git send-email --sendmail-cmd='rm x' p", "git send-email --smtp-server=/bin/rm p",
    "git send-email --to-cmd='rm x' p", "git send-email --cc-cmd 'rm x' p",
    "git daemon --access-hook='rm x'", "git instaweb --httpd='rm x'",
    "git web--browse --browser='rm x' u", "git help --browser='rm x' log",
    "git grep --open-files-in-pager='rm x' foo", "git grep -O'rm x' foo",
    "git rebase -x'rm x' HEAD~1", "git send-email --sendm='rm x' p",
    # other programs given a program to run
    "wget --use-askpass='rm x' u", "sdiff --diff-program=rm a b", "diff3 --diff-program=rm a b c",
    "sort --compress-program=rm f", "split --filter='rm x' f",
    "apt-get -o 'APT::Update::Pre-Invoke::=rm x' update",
    "apt-get -o'DPkg::Post-Invoke::=rm x' install y", "npm run test --script-shell=/bin/rm",
    "npm --script-shell rm run test", "rg --pre rm foo", "rg --pre=rm foo", "fd -x rm",
    "fd . -X rm", "fd --exec rm {}", "fd --exec-batch rm", "watchexec -- rm x",
    "watchexec 'rm x'", "watchexec -e py -- rm x", "nodemon --exec 'rm x'", "nodemon -x 'rm x'",
    "tcpdump -z rm -w f", "cmake -E env A=1 rm x", "man --html=rm ls",
    "cpio -o --rsh-command=rm", "make -f - <<EOF\nx:\n\trm y\nEOF",
    "printf 'x:\\n\\trm y\\n' | make -f -",
    # a program whose script file is its input (/dev/stdin, -, <(...))
    "awk -f /dev/stdin <<< 'BEGIN{system(\"rm x\")}'", "awk -f - <<< 'BEGIN{system(\"rm x\")}'",
    "gawk --file=/dev/stdin <<< 'BEGIN{system(\"rm x\")}'",
    "python3 /dev/stdin <<< 'import os; os.system(\"rm x\")'",
    "python3 /proc/self/fd/0 <<< 'import os; os.system(\"rm x\")'",
    "perl /dev/stdin <<< 'system(\"rm x\")'", "ruby /dev/fd/0 <<< 'system(\"rm x\")'",
    "node /dev/stdin <<< 'require(\"child_process\").execSync(\"rm x\")'",
    "python3 <(echo 'import os; os.system(\"rm x\")')", "sed -f /dev/stdin f <<< '1e rm x'",
    "sed -f - f <<EOF\ns/a/rm x/e\nEOF", "vim -s /dev/stdin f <<< ':!rm x'",
    "vim -S /dev/stdin <<< '!rm x'", "gdb -batch -x - <<< 'shell rm x'",
    "gdb -x - <<EOF\nshell rm x\nEOF",
    # a shell a runner starts, or ssh's remote login shell, reading its input
    "ssh h <<< 'rm x'", "echo 'rm x' | ssh h", "ssh h sh <<< 'rm x'",
    "ssh -p 22 h <<EOF\nrm x\nEOF", "docker exec -i c sh <<< 'rm x'",
    "kubectl exec -i p -- sh <<< 'rm x'", "echo 'rm x' | docker exec -i c sh",
    "docker exec -i c bash -s <<EOF\nls\nrm x\nEOF", "printf 'rm x' | kubectl exec -i p -- bash",
    # configuration that runs a command later
    "git config alias.x '!rm x' && git x", "git config --global core.pager 'rm x'",
    "git config core.sshCommand 'rm x'", "git config core.fsmonitor 'rm x'",
    "git config --add alias.y '!rm x'", "git config set alias.z '!rm x'",
    "git -C d config --file .gitconfig alias.z '!rm x'", "npm pkg set scripts.test='rm x'",
    "npm set-script test 'rm x'", "npm config set script-shell rm",
    "pnpm pkg set 'scripts.build=rm x'",
    # round 12: bun's runner (bun was read as an interpreter only), npm explore, brew bundle
    # exec, rustup run, macOS launchers and g-prefixed GNU tools, HPC, GPU and desktop ones
    "bun x rm x", "bun exec 'rm x'", "npm explore pkg -- rm x", "brew bundle exec -- rm x",
    "rustup run stable rm x", "pkgx rm x", "xcrun rm x", "arch -x86_64 rm x",
    "sandbox-exec -n no-network rm x", "gtimeout 5 rm x", "genv rm x", "gxargs rm",
    "gnice rm x", "gstdbuf -o0 rm x", "flatpak-spawn --host rm x", "mpirun -np 2 rm x",
    "srun rm x", "sbatch --wrap='rm x'", "winpty rm x", "prime-run rm x", "gamemoderun rm x",
    "vglrun rm x", "gpg-agent --daemon rm x", "systemd-cat rm x",
    # gh/glab shell aliases, run later by `gh x`
    "gh alias set x '!rm -rf y'", "gh alias set --shell x 'rm -rf y'", "gh alias set -s x 'rm y'",
    "glab alias set x '!rm y'", "yarn config set script-shell rm", "npm config set shell rm",
    "npm config set editor=rm", "npm set browser rm", "npm c set git rm",
]
HONEST = [
    "git --config-env=http.extraheader=AUTH fetch", "git --config-env=user.name=N commit -m x",
    "git -c user.name=x commit -m y", "rsync -avz a b:", "rsync -e ssh a b:",
    "rsync -avze ssh a b:", "scp -P 22 a b:", "tar -xzf a.tgz", "tar -cJf a.txz d",
    "docker run --entrypoint sh img -c ls", "aws s3 ls",
    "aws ssm send-command --parameters commands='ls -la' --instance-ids i",
    "aws ssm send-command --parameters '{\"commands\":[\"uptime\"]}'",
    "az vm run-command invoke --scripts 'df -h'", "gcloud compute ssh vm -- ls",
    "devbox run test", "pixi run test", "doppler run -- npm test", "dotenv -- npm test",
    "cross-env NODE_ENV=test jest", "hyperfine 'sleep 0.1'", "tox -e py -- -k x",
    "tox exec -e py -- pytest", "lerna exec -- npm test", "corepack enable", "just build",
    "mvn exec:java -Dexec.mainClass=x.Main", "GIT_AUTHOR_NAME=x git commit -m y",
    "ssh h", "ssh -N -L 8080:localhost:80 h", "ssh h <<< 'ls -la'", "docker exec -it c bash",
    "echo ls | docker exec -i c sh", "git config --global alias.st status",
    "git config user.email me@x", "npm pkg set scripts.test=jest", "npm exec -- prettier .",
    "git status -uno", "git log -Oorder.txt", "git grep -O foo", "git help log",
    "git send-email --smtp-server=smtp.example.com p", "git clone --config user.name=x h",
    "sort -u f", "split -l 10 f", "rg foo", "fd -e py", "fd -x echo", "make -f Makefile",
    "apt-get -o Debug::pkgProblemResolver=yes install x", "cmake -E echo hi",
    "tcpdump -i eth0", "watchexec -e py -- pytest", "nodemon app.js", "man -k x",
    "make -f - <<< 'all:;echo hi'",
    "echo x | sed 's/a/b/' -", "awk -f prog.awk f", "gdb -x cmds.gdb ./a.out",
    "printf 's/a/b/' | sed -f - f", "python3 script.py", "python3 $SCRIPT_NAME",
    "git --exec-path", "rsync --recursive a b:", "tar --totals -cf a b",
    "git rebase --continue", "make --keep-going", "sed --regexp-extended 's/a/b/' f",
    "yarn node script.js", "nvm use 18", "nvm run 18 app.js", "gh pr list",
    "gh -R o/r pr merge 1", "rvm use 3.1", "stack build", "fnm use 18", "k3s kubectl get po",
    "scl enable devtoolset-9 make", "gh codespace ssh -- ls",
    # project scripts and targets: the program (what they run is the project's own file)
    "npm run rm", "yarn run rm x", "make rm", "just rm x", "task rm", "cargo run -- rm x",
    "go run . rm x", "tox -e x -- rm x", "nox -s x -- rm x", "deno task rm", "bazel run //:rm",
    "bun run test", "bun -e 'console.log(1)'", "npm explore pkg -- ls", "xcrun simctl list",
    "arch", "brew install x", "rustup update", "sbatch job.sh",
    "gh alias set co 'pr checkout'", "gh alias list", "gh alias set l '!git log --oneline'",
    "npm config set registry https://r.example", "npm config get editor", "npm install git",
]


@pytest.mark.parametrize("command", RUNS)
def test_the_command_it_runs_is_denied(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_what_runs_no_denied_command_is_allowed(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "allow"


ASK_ONLY = policy([("ask", "Bash(curl:*)"), ("allow", "Bash(git:*)")], "allow")


@pytest.mark.parametrize(("command", "want"), [
    ("git --config-env=alias.p=VAR p", "ask"),  # not provable: never allowed, even by git:*
    ("GIT_CONFIG_PARAMETERS=\"'core.pager'='less'\" git log", "ask"),
    ("git --config-env=http.extraheader=AUTH fetch", "allow"),
])
def test_config_from_the_environment_is_never_allowed(command: str, want: str) -> None:
    assert ASK_ONLY.decide("Bash", {"command": command}).behavior == want
