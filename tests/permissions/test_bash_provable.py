"""Bash rules cannot be dodged: wrappers are seen through for deny and never widen an allow, and a
command whose programs cannot be proven is never allowed (and is denied where any Bash deny rule
exists). Table-driven, plus property tests over generated wrapper chains and quotings."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.bash.programs import analyze_command
from toolhost.permissions.shell.parse import parse_command


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


# Under deny Bash(rm:*) and allow Bash, every one of these runs rm (or cannot be proven not to).
RM_DODGES = [
    "rm -rf /", "rm", "  rm   x", "ls; rm x", "ls && rm x", "ls || rm x", "ls | rm x",
    "ls & rm x", "ls |& rm x", "(rm x)", "{ rm x; }", "echo $(rm x)", "echo `rm x`",
    "echo \"$(rm x)\"", "cat <(rm x)", "diff >(rm x) y", "if true; then rm x; fi",
    "while rm x; do :; done", "until rm x; do :; done", "for f in a; do rm $f; done",
    "! rm x", "true\nrm x", "ls # c\nrm x", '"rm" x', "'rm' x", 'r"m" x', "r''m x", "\\rm x",
    "r\\m x", "$'rm' x", "$'\\x72m' x", "$'\\162m' x", "$'\\u0072m' x", "$'\\U00000072m' x",
    "$\"rm\" x", "{rm,-rf,/tmp/x}", "rm$IFS-rf /tmp/x", "rm${IFS}-rf /", "/bin/rm x",
    "/usr/bin/rm x", "./rm x", "../../bin/rm x", "~/bin/rm x", "/bin/r? x", "/bin/r* x",
    "/bin/[r]m x", "r[m] x", "coproc rm x", "coproc { rm x; }", "coproc NAME { rm x; }",
    "eval rm x", "eval 'rm x'", "eval \"rm x\"", "sh -c 'rm x'", "bash -c \"rm x\"",
    "bash -lc 'rm x'", "/bin/sh -c 'rm x'", "zsh -c 'ls; rm x'", "bash -c 'echo $(rm x)'",
    "env rm x", "/usr/bin/env rm x", "env -i rm x", "env FOO=1 rm x", "env -u HOME rm x",
    "env -- rm x", "env -i FOO=1 BAR=2 rm x", "env -S 'rm x'", "sudo rm x",
    "sudo -u root rm x", "sudo -uroot rm x", "sudo -E -H rm x", "sudo -nE rm x",
    "sudo --user=root rm x", "sudo -- rm x", "/usr/bin/sudo rm x", "sudo FOO=1 rm x",
    "sudo -s rm x", "doas rm x", "doas -u root rm x", "command rm x", "command -p rm x",
    "builtin rm x", "exec rm x", "exec -a foo rm x", "exec -c rm x", "nice rm x",
    "nice -n 5 rm x", "nice -5 rm x", "nice --adjustment=5 rm x", "nohup rm x",
    "timeout 5 rm x", "timeout -s KILL 5 rm x", "timeout --signal=KILL 5s rm x",
    "timeout -k 1 5 rm x", "time rm x", "time -p rm x", "xargs rm", "xargs -0 rm",
    "xargs -I{} rm {}", "xargs -n 1 rm", "xargs -P4 -n1 rm", "stdbuf -oL rm x",
    "stdbuf -o L rm x", "setsid rm x", "ionice -c 3 rm x", "taskset 1 rm x", "chrt 1 rm x",
    "watch rm x", "busybox rm x", "chroot / rm x", "su -c 'rm x'", "flock /tmp/l rm x",
    "FOO=1 rm x", "FOO=1 BAR=2 rm x", "PATH=/bin rm x", "sudo env timeout 5 nice rm x",
    "sudo sudo rm x", "env env env rm x", "timeout 5 timeout 5 rm x", "find . -exec rm {} +",
    "find . -execdir rm {} ;", "find . -ok rm {} \\;", "f() { rm x; }; f", "function f { rm; }",
    "alias r=rm; r x", "r$'m' x", "${x}rm", "$x", "$(echo rm) x", "`echo rm` x", "\"$CMD\" x",
    "${CMD} x", "$CMD x", "$@", "rm\\ x", "cat <<EOF\n$(rm x)\nEOF", "cat <<EOF\n`rm x`\nEOF",
    "cat <<EOF\nhello\n", "echo 'unterminated", "echo \"unterminated", "echo $(rm x",
    "x=$(rm y) ls", "ls > $(rm x)", "[[ $(rm x) ]]", "(( $(rm x) ))", "echo $((1 + $(rm x)))",
    "case x in x) rm x;; esac", "select f in a; do rm $f; done", "trap 'rm x' EXIT",
    "hash -p /bin/rm ls; ls x", "enable -n echo; echo", "export PATH=/tmp; ls",
    "PATH=/tmp; ls", "declare PATH=/tmp; ls", "LD_PRELOAD=/tmp/x.so ls", "IFS=/ ls",
    "BASH_ENV=/tmp/x bash -c ls", "@(rm) x", "sudo -e /etc/passwd; rm x", "ls; \\\nrm x",
    "r\\\nm x", "echo x; $'\\x72\\x6d' -rf /", "nohup sh -c 'rm x' &", "exec 3>x; rm x",
    "time { rm x; }", "sudo bash -c 'rm -rf /'", "xargs -a list rm", "command -v rm",
    "echo ok | xargs rm", "ls; eval \"$(echo rm)\"", "busybox sh -c 'rm x'", "a=rm; $a x",
    "echo rm x | sh", "echo rm x | bash -s", "cat <<EOF | sh\nrm x\nEOF", "sh <<EOF\nrm x\nEOF",
    "bash <<< 'rm x'", "exec bash", "bash -", "bash -c", "RM=rm; $RM x", "ls\\;rm x",
    "rm${IFS:0:1}-rf x", "r${X:-m} x", "echo ${x:-$(rm x)}", "echo \"${x:-`rm x`}\"",
    "echo ${x:+${y:-$(rm x)}}", "$'\\162'm x", "{ls,-la}", "tee >(rm x) < y",
    # a shell sudo/doas starts reads its commands from its input
    "echo rm x | sudo -s", "echo rm x | sudo -i", "echo rm x | sudo -Es", "echo rm x | doas -s",
    "echo rm x | sudo --shell", "echo rm x | sudo --login", "echo rm x | sudo -u root -s",
    "echo rm x | sudo -s --", "echo rm x | env sudo -i",
    # every POSIX shell's -c string is read; other shells' strings and input are not provable
    "rbash -c 'rm x'", "yash -c 'rm x'", "posh -c 'rm x'", "sudo ksh93 -c 'rm x'",
    "lksh -c 'rm x'", "oksh -c 'rm x'", "echo rm x | rbash", "fish -c 'rm x'",
    "fish --command='rm x'", "echo rm x | fish", "csh -c 'rm x'", "tcsh -c 'rm x'",
    "echo rm x | tcsh", "pwsh -c 'rm x'", "nu -c 'rm x'", "xonsh -c 'rm x'", "fish -C 'rm x'",
    "fish /dev/stdin", "fish $F", "timeout 5 fish -c 'rm x'",
    # xargs appends the words it reads to find, which may add -exec rm {} ;
    "echo '-exec rm {} ;' | xargs find .", "echo x | xargs find . -exec",
    "echo x | xargs find . -exec ls {} +", "echo x | xargs sudo find .",
]

# Under the same rules, these run no rm and every program is provable: allowed.
RM_SAFE = [
    "ls", "ls -la", "git status", "echo rm", "echo 'rm -rf /'", "echo \"rm x\"", "rmdir x",
    "npm test", "sudo ls", "echo $HOME", "ls *.py", "FOO=$(date) ls", "env", "timeout 5",
    "cat <<'EOF'\n$(rm x)\nEOF", "cat <<\\EOF\n`rm x`\nEOF", "ls # ; rm x", "ls 2>&1",
    "for f in a b; do echo $f; done", "if true; then ls; fi", "git log --format='%H rm'",
    "grep -r 'rm -rf' .", "\"ls\" -la", "'git' status", "echo ${HOME}/rm",
    "cat <<-EOF\n\tx\n\tEOF", "x=1; ls", "FOO=bar ls", "sudo -l", "command -v ls",
    "bash script.sh", "bash -x script.sh", "ls $'\\n'rm x", "git commit -m '$(rm x)'",
    "echo '`rm x`'", "sudo -- -rm x", "ls {a,b}", "echo ${x:-rm}", "echo ${#x}",
    "sudo -s ls", "sudo -i ls", "sudo -u s ls", "sudo -p s -l", "doas -u root ls",
    "fish build.fish", "tcsh ./x.csh", "rbash -c ls", "find . -name x | xargs ls",
]


@pytest.mark.parametrize("command", RM_DODGES)
def test_every_way_around_a_deny_is_denied(command: str) -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
    assert p.decide("Bash", {"command": command}).behavior == "deny"
    p = policy([("deny", "Bash(rm:*)")], default="allow")
    assert p.decide("Bash", {"command": command}).behavior == "deny"


def test_the_first_word_index_sees_what_the_rules_see() -> None:
    # with 8 or more Bash rules, rules are bucketed by the first words a command can start
    # with: every command must be decided as without the index
    many = policy([("deny", "Bash(rm:*)"), *[("deny", f"Bash(cmd{i}:*)") for i in range(10)],
                   ("allow", "Bash")])
    few = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
    for command in RM_DODGES + RM_SAFE:
        assert (many.decide("Bash", {"command": command}).behavior
                == few.decide("Bash", {"command": command}).behavior), command


@pytest.mark.parametrize("command", RM_SAFE)
def test_commands_without_rm_stay_allowed(command: str) -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
    decision = p.decide("Bash", {"command": command})
    assert decision.behavior == "allow", decision.message


# (rules, default, command, expected)
ALLOW_CASES: list[tuple[list[tuple[str, str]], str, str, str]] = []


def add(rules: list[tuple[str, str]], default: str, expected: dict[str, str]) -> None:
    ALLOW_CASES.extend((rules, default, c, e) for c, e in expected.items())


add([("allow", "Bash(sudo:*)")], "ask", {
    "sudo rm -rf /": "ask", "sudo ls": "ask", "sudo -l": "allow", "sudo": "allow",
    "sudo -u root rm x": "ask", "/usr/bin/sudo -l": "ask", "sudo $'rm' x": "ask"})
add([("allow", "Bash(/usr/bin/env:*)")], "ask", {
    "/usr/bin/env rm x": "ask", "env rm x": "ask", "/usr/bin/env": "allow",
    "/usr/bin/env FOO=1": "allow", "/usr/bin/env FOO=1 rm x": "ask"})
add([("allow", "Bash(env:*)")], "ask", {
    "env rm x": "ask", "env": "allow", "env -i FOO=1": "allow", "env PATH=/tmp ls": "ask"})
add([("allow", "Bash(sudo:*)"), ("allow", "Bash(rm:*)")], "ask", {
    "sudo rm x": "allow", "sudo -u root rm x": "allow", "sudo ls": "ask",
    "sudo sudo rm x": "allow", "sudo env rm x": "ask"})
add([("allow", "Bash(npm test:*)")], "ask", {
    "npm test": "allow", "timeout 30 npm test": "allow", "nice -n 5 npm test": "allow",
    "nohup npm test": "allow", "time npm test": "allow", "time -p npm test": "allow",
    "stdbuf -oL npm test": "allow", "CI=1 npm test": "allow", "CI=1 timeout 5 npm test": "allow",
    "sudo npm test": "ask", "env npm test": "ask", "xargs npm test": "ask",
    "timeout 5 sudo npm test": "ask", "PATH=/tmp npm test": "ask", "npm test && rm x": "ask",
    "$'npm' test": "ask", '"npm" test': "allow", "\\npm test": "ask", "npm test; npm test": "allow",
    "npm test $(rm x)": "ask", "npm test > out": "ask", "npm test 2>&1": "allow",
    "npm tests": "ask", "npm test --watch": "allow", "npx npm test": "ask",
    "command npm test": "ask", "exec npm test": "ask", "n?m test": "ask", "$NPM test": "ask",
    "timeout 5 $'npm' test": "ask", "nice -n $N npm test": "ask", "timeout $T npm test": "ask",
    "bash -c 'npm test'": "ask", "npm test <<EOF\nx\nEOF": "ask",
    "npm test ${x:-$(rm x)}": "ask", "npm test ${x:-y}": "allow"})
add([("allow", "Bash(sudo npm test:*)")], "ask", {
    "sudo npm test": "allow", "sudo npm test --x": "allow", "sudo -u x npm test": "ask",
    "sudo rm x": "ask", "sudo npm": "ask"})
add([("allow", "Bash(timeout:*)")], "ask", {"timeout 5 rm x": "ask", "timeout 5": "allow"})
add([("allow", "Bash(xargs:*)"), ("allow", "Bash(echo:*)")], "ask", {
    "xargs echo": "allow", "xargs rm": "ask", "xargs -0 echo": "allow", "xargs": "allow"})
add([("allow", "Bash(bash:*)")], "ask", {
    "bash -c 'rm x'": "ask", "bash script.sh": "allow", "bash -c \"$X\"": "ask",
    "bash -o pipefail -c 'rm x'": "ask", "bash": "ask"})
add([("allow", "Bash(bash -c:*)"), ("allow", "Bash(ls:*)")], "ask", {
    "bash -c 'ls'": "allow", "bash -c 'ls -la && ls'": "allow", "bash -c 'rm x'": "ask",
    "bash -c 'ls; rm x'": "ask"})
add([("allow", "Bash(git:*)"), ("deny", "Bash(rm:*)")], "ask", {
    "git status": "allow", "git $(rm x)": "deny", "git status; $'rm' x": "deny",
    "git $'status'": "allow", "git ${IFS}status": "allow", "$'git' status": "deny",
    "/usr/bin/git status": "ask", "g?t status": "deny"})
add([], "allow", {
    "sudo rm -rf /": "allow", "$'rm' x": "ask", "/bin/r? x": "ask", "eval ls": "ask",
    "ls": "allow", "echo $(rm x)": "allow", "$(echo rm) x": "ask", "PATH=/x ls": "ask",
    "f() { ls; }; f": "ask", "bash -c \"$X\"": "ask", "echo 'unterminated": "ask"})
add([], "deny", {"$'rm' x": "deny", "ls": "deny"})
add([("deny", "Bash(git push:*)")], "allow", {
    "$'rm' x": "deny", "ls": "allow", "/bin/r? x": "deny", "git push": "deny",
    "command git push": "deny", "sudo git push": "deny", "git$IFS push": "deny"})
add([("ask", "Bash(rm:*)")], "allow", {
    "$'rm' x": "ask", "/bin/r? x": "ask", "sudo rm x": "ask", "ls": "allow"})
add([("deny", "mcp__x"), ("allow", "Bash")], "deny", {"$'ls'": "deny", "ls": "allow"})
add([("deny", "mcp__x")], "allow", {"$'ls'": "ask"})
add([("allow", "Bash(ls *)"), ("allow", "Bash(cat:*)")], "ask", {
    "ls -la | cat": "allow", "ls && sudo cat x": "ask", "timeout 1 ls && nice cat": "allow",
    "lsof": "ask"})
add([("allow", "Bash(* | cat)")], "ask", {"ls | cat": "allow", "sudo rm x | cat": "ask",
                                          "$'rm' | cat": "ask"})


@pytest.mark.parametrize("rules,default,command,expected", ALLOW_CASES)
def test_allow_rules_never_widen(rules: list[tuple[str, str]], default: str, command: str,
                                 expected: str) -> None:
    decision = policy(rules, default).decide("Bash", {"command": command})
    assert decision.behavior == expected, (decision.rule, decision.message)


def test_the_denial_names_the_rule_and_the_reason() -> None:
    p = policy([("deny", "Bash(git push:*)")], default="allow")
    d = p.decide("Bash", {"command": "/bin/r? x"})
    assert d.rule == "Bash(git push:*)" and "'/bin/r?' is not a plain literal" in d.message
    d = policy([], default="allow").decide("Bash", {"command": "eval ls"})
    assert d.behavior == "ask" and "eval" in d.message and d.answered_by == "default"


def test_decoded_words_name_the_deny_rule() -> None:
    p = policy([("deny", "Bash(git push:*)"), ("deny", "Bash(rm:*)")])
    for command in ("$'rm' x", "$'\\x72m' -rf /", "{rm,-rf,/tmp/x}", "rm$IFS-rf /tmp/x",
                    "coproc rm x", "/usr/bin/env rm x", "$\"rm\" x"):
        assert p.decide("Bash", {"command": command}).rule == "Bash(rm:*)", command


def test_analysis_reasons() -> None:
    def reason(command: str) -> str | None:
        return analyze_command(parse_command(command)).reason

    assert reason("sudo -u root timeout 5 nice -n 1 ls") is None
    assert "unknown option '--frobnicate' of sudo" in str(reason("sudo --frobnicate ls"))
    assert "plain literal" in str(reason("l$'s'"))
    assert "PATH" in str(reason("PATH=/tmp ls"))
    assert "not terminated" in str(reason("cat <<EOF\nx"))
    assert "function definition" in str(reason("ls() { :; }"))


def test_huge_and_deep_commands_are_bounded() -> None:
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
    assert p.decide("Bash", {"command": "ls " * 40_000}).behavior == "deny"  # too long
    assert p.decide("Bash", {"command": "echo $(" * 20 + "ls" + ")" * 20}).behavior == "deny"
    assert p.decide("Bash", {"command": "sudo " * 500 + "ls"}).behavior == "allow"
    assert p.decide("Bash", {"command": "sudo " * 500 + "rm"}).behavior == "deny"
    assert p.decide("Bash", {"command": "{a,b}" * 2000}).behavior == "deny"
    for bad in (None, 5, ["rm"], {"a": 1}):
        assert p.decide("Bash", {"command": bad}).behavior == "deny"


# --- properties -----------------------------------------------------------------------------

WRAPPER_CHAINS = st.lists(st.sampled_from([
    "sudo", "sudo -u root", "sudo -E", "/usr/bin/sudo", "env", "env -i", "env FOO=1",
    "/usr/bin/env", "command", "exec", "nice", "nice -n 5", "nohup", "timeout 5",
    "timeout -s KILL 5", "time", "time -p", "xargs", "xargs -0", "stdbuf -oL", "builtin",
    "FOO=1", "doas", "setsid", "coproc", "!", "then", "do",
]), max_size=5)
RM_SPELLINGS = st.sampled_from([
    "rm", '"rm"', "'rm'", "$'rm'", "$'\\x72m'", "$'\\162\\155'", "\\rm", "r\\m", "/bin/rm",
    "/usr/bin/rm", "$\"rm\"", "r''m", "{rm,-f}", "./rm", "r?", "[r]m", "$RM", "${RM}",
])
JOINERS = st.sampled_from(["; ", " && ", " || ", " | ", " & ", "\n", " |& "])
OTHERS = st.sampled_from(["ls", "git status", "echo hi", "npm test", "true"])


@settings(max_examples=400, deadline=None)
@given(chain=WRAPPER_CHAINS, spelling=RM_SPELLINGS, args=st.sampled_from(["", " -rf /", " x"]),
       before=st.lists(OTHERS, max_size=2), joiner=JOINERS)
def test_a_denied_command_in_any_wrapper_chain_is_never_allowed(
        chain: list[str], spelling: str, args: str, before: list[str], joiner: str) -> None:
    command = joiner.join([*before, " ".join([*chain, spelling]) + args])
    for rules, default in (([("deny", "Bash(rm:*)"), ("allow", "Bash")], "ask"),
                           ([("deny", "Bash(rm:*)")], "allow"),
                           ([("deny", "Bash(rm:*)"), ("allow", "Bash(ls:*)"),
                             ("allow", "Bash(git:*)")], "allow")):
        decision = policy(rules, default).decide("Bash", {"command": command})
        assert decision.behavior == "deny", (command, decision)


@settings(max_examples=300, deadline=None)
@given(chain=WRAPPER_CHAINS.filter(bool), spelling=RM_SPELLINGS, joiner=JOINERS)
def test_allowing_every_wrapper_never_allows_what_they_run(chain: list[str], spelling: str,
                                                           joiner: str) -> None:
    rules = [("allow", f"Bash({w.split()[0]}:*)") for w in chain if "=" not in w]
    rules += [("allow", "Bash(ls:*)")]
    command = joiner.join(["ls", " ".join([*chain, spelling, "-rf /"])])
    decision = policy(rules).decide("Bash", {"command": command})
    assert decision.behavior != "allow", (command, decision)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("rm $'\\\"`(){},;|&<>*?[]~=\n#x-/IFS")),
                    max_size=40))
def test_random_shell_text_never_slips_past_a_deny_of_everything_it_might_run(text: str) -> None:
    """Whatever the text, if a decoded form of it runs rm, it is not allowed."""
    p = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")])
    decision = p.decide("Bash", {"command": text})
    if decision.behavior == "allow":
        parsed = parse_command(text)
        assert analyze_command(parsed).reason is None
        for words in parsed.words + parsed.nested_words:
            assert all(w.value != "rm" for w in words[:1])


@pytest.mark.parametrize("command,expected", [
    ("find . -name x", "allow"), ("find . -exec rm {} +", "ask"), ("find . -exec ls {} ;", "allow"),
    ("find . -exec ls {} \\; -exec rm {} \\;", "ask"), ("find . -execdir $'ls' {} +", "ask"),
    ("find . -ok sudo ls {} ;", "ask"), ("timeout 5 find . -exec ls {} +", "allow")])
def test_find_runs_what_its_actions_name(command: str, expected: str) -> None:
    p = policy([("allow", "Bash(find:*)"), ("allow", "Bash(ls:*)")])
    assert p.decide("Bash", {"command": command}).behavior == expected
