"""Command lines for the differential judge (``bash_judge``): a denied program (``rm``,
``curl``) spelled one of many ways, run by one of many runners, inside benign commands; and
benign lines alone (to count over-denial). ``line(rng)`` draws one from a ``random.Random``
(Hypothesis hands one in, so it shrinks and replays).

Families (``FAMILIES``): spellings of the program word (quotes, ANSI-C, escapes, parameter
expansion, brace expansion, IFS, arrays, variables, substitutions), runners (wrappers,
``eval``, ``exec``, ``bash -c``/``sh -c``, functions, aliases, ``source`` of a here-document
or process substitution, interpreters' ``-c``/``-e``, ``git -c alias``, ``find -exec``,
``xargs``, ``trap``, files that run later), and compound shapes around them.
"""

from __future__ import annotations

import random

# The program word of ``rm`` as a line may spell it ({} is where a runner puts it).
SPELLINGS = [
    "rm", "'rm'", '"rm"', "r''m", 'r""m', "\\rm", "r\\m", "$'\\x72m'", "$'\\162m'", "$'r'm",
    '$"rm"', "${X:-rm}", "${X-rm}", "${X:=rm}", "r${X}m", "r$X''m", "$'\\u0072m'",
    "{rm,V}", "r{m,}", "$(echo rm)", "`echo rm`", '"$(printf rm)"', "${Y/x/rm}", "${Z,,}",
    "${Z@L}", "r${E:+}m", "r$()m", "r``m", "r$@m", "r${@}m", '"${A[0]}"', "${A[*]:0:1}",
    "$W", "${W}", "${!N}", "$'\\cM'rm", "\"r\"'m'", "r\\\nm", "$'r\\x6d'",
]
# What a spelling above relies on, set first (a line prepends it when used).
SETUP = {"$W": "W=rm; ", "${W}": "W=rm; ", "${!N}": "W=rm; N=W; ", "${Y/x/rm}": "Y=x; ",
         "${Z,,}": "Z=RM; ", "${Z@L}": "Z=RM; ", '"${A[0]}"': "A=(rm); ",
         "${A[*]:0:1}": "A=(rm x); "}
ARGS = ["V", "-f V", "'V'", "-- V", "V 2>/dev/null", "-rf V"]

# Ways to run ``{P} {A}`` (P a spelling, A its arguments); ``{Q}`` is ``P A`` quoted once.
RUNNERS = [
    "{P} {A}", "exec {P} {A}", "command {P} {A}", "builtin {P} {A}", "env {P} {A}",
    "env -i {P} {A}", "env X=1 {P} {A}", "env -- {P} {A}", "nice {P} {A}", "nice -n 5 {P} {A}",
    "nohup {P} {A}", "timeout 5 {P} {A}", "timeout -s KILL 5 {P} {A}", "stdbuf -o0 {P} {A}",
    "setsid -w {P} {A}", "ionice -c 3 {P} {A}", "time {P} {A}", "time -p {P} {A}",
    "X=1 {P} {A}", "! {P} {A}", "{{ {P} {A}; }}", "({P} {A})", "if true; then {P} {A}; fi",
    "while {P} {A}; do break; done", "until {P} {A}; do break; done",
    "for i in 1; do {P} {A}; done",
    "case x in x) {P} {A};; esac", "[[ $({P} {A}) ]]", "echo $({P} {A})", "echo `{P} {A}`",
    'echo "$({P} {A})"', "cat <({P} {A})", "echo x > >({P} {A})", "x=$({P} {A})",
    ": ${{x:=$({P} {A})}}", "echo ${{x:-$({P} {A})}}", "echo {A} | xargs {P}",
    "echo {A} | xargs -I@ {P} @", "printf '%s\\0' {A} | xargs -0 {P}",
    "find . -name V -exec {P} {{}} \\;", "find . -name V -exec {P} {{}} +",
    "find . -maxdepth 0 -execdir {P} {A} \\;", "eval {Q}", "eval \"{P} {A}\"", "eval {P} {A}",
    "bash -c {Q}", "sh -c {Q}", "bash -lc {Q}", "dash -c {Q}", "bash -c \"{P} {A}\"",
    "bash -c {Q} x", "bash <<< {Q}", "sh <<< {Q}", "bash <<EOF\n{P} {A}\nEOF",
    "bash -s <<< {Q}", ". <(echo {Q})", "source <(echo {Q})", "source /dev/stdin <<< {Q}",
    ". /dev/stdin <<EOF\n{P} {A}\nEOF", "echo {Q} | bash", "echo {Q} | sh -s",
    "f() {{ {P} {A}; }}; f", "function f {{ {P} {A}; }}; f", "f() ( {P} {A} ); f",
    "shopt -s expand_aliases\nalias k={Q}\nk", "shopt -s expand_aliases; alias k={Q}; k",
    "trap {Q} EXIT", "trap {Q} DEBUG; :", "coproc {P} {A}", "coproc c {{ {P} {A}; }}",
    "python3 -c 'import os; os.system(\"{P} {A}\")'", "python3 -c {PY}",
    "perl -e 'system(\"{P} {A}\")'", "perl -e {PL}", "awk 'BEGIN{{system(\"{P} {A}\")}}'",
    "awk {AW}", "git -c alias.k={GA} k", "git -c alias.k='!{P} {A}' k",
    "echo {Q} > s.sh; bash s.sh", "echo {Q} > s; . ./s", "printf '%s\\n' {Q} > s; source s",
    "echo {Q} > s; chmod +x s; ./s", "IFS=_; L=rm_V; $L", "L='rm V'; $L",
    "read -r L <<< {Q}; $L", "printf -v L %s {Q}; $L", "declare L={Q}; $L",
    "A=(rm V); \"${{A[@]}}\"", "set -- rm V; \"$@\"", "mapfile -t A <<< {Q}; ${{A[0]}}",
    "sed -n '1e {P} {A}' <<< x", "echo x | sed 's/x/{P} {A}/e'",
    "PROMPT_COMMAND={Q} bash -i < /dev/null", "BASH_ENV=s bash -c : ; echo {Q} > s",
    "echo {Q} > s; BASH_ENV=s bash -c :", "ENV=s sh -i < /dev/null",
    "echo {Q} | tee s >/dev/null; bash s", "cat > s <<'EOF'\n{P} {A}\nEOF\nbash s",
    "{P}${{IFS}}V", "{P}$IFS-f$IFS'V'", "x={P}; ${{x}} {A}",
    "echo {Q} | sed 's/^//e'", "sed e <<< {Q}", "echo {Q} | sed -n 'e'", "sed '1e' <<< {Q}",
    "echo {A} | xargs sh -c '{P} \"$@\"' _", "echo {Q} | xargs -0 sh -c",
    "find . -name V -exec sh -c '{P} \"$1\"' _ {{}} \\;",
    "git -c core.pager={Q} log -1", "git -c core.editor={Q} commit --allow-empty",
    "git init -q . && git -c core.hooksPath=. -c alias.k='!{P} {A}' k",
    "exec 3<<<{Q}; bash <&3", "bash 3<<<{Q} /dev/fd/3", "bash < <(echo {Q})",
    "cat <<< {Q} > s; sh < s", "IFS=x; Y=rmxV; $Y", "set -f; {P} {A}", "nice -- {P} {A}",
    "env -u X {P} {A}", "env -S {Q}", "env --split-string={Q}", "command -p {P} {A}",
    "exec -a x {P} {A}", "builtin command {P} {A}", "command command {P} {A}",
    "timeout --foreground 5 {P} {A}", "setsid {P} {A}", "nohup nice {P} {A}",
    "time -p nice {P} {A}", "xargs -a <(echo V) {P}", "echo V | xargs -n1 {P}",
    "echo {A} | xargs -r {P}", "echo {Q} | xargs -L1 bash -c", "{P} {A} &", "{P} {A} |& cat",
    "declare -f f >/dev/null; f() {{ {P} {A}; }}; declare -f f | bash", "hash -p /bin/{P} k; k V",
    "printf '%q ' {P} {A} | bash", "perl -e 'exec @ARGV' {P} {A}", "python3 - <<< {PYQ}",
    "perl <<< {PLQ}", "echo {Q} | python3 -c 'import os,sys; os.system(sys.stdin.read())'",
    "awk '{{system($0)}}' <<< {Q}", "awk 'BEGIN{{cmd=ARGV[1]; system(cmd)}}' {Q}",
    "perl -e 'system(@ARGV)' {P} {A}", "python3 -c 'import os,sys; os.system(sys.argv[1])' {Q}",
    "node -e 'require(\"child_process\").execSync(\"{P} {A}\")'",
    "xargs {P} <<< V", "xargs -I{{}} {P} {{}} <<< V", "tee >({P} {A}) <<< x",
    "echo {A} | while read f; do {P} $f; done",
    "cp /dev/stdin s <<< {Q}; bash s", "install -m 755 /dev/stdin s <<< {Q}; ./s",
    "exec 3>s; echo {Q} >&3; exec 3>&-; . ./s", "ln -s \"$(command -v {P})\" k; ./k {A}",
    "cp \"$(type -P {P})\" k && ./k {A}", "dd of=s <<< {Q} 2>/dev/null; sh s",
    "echo {Q} > d; mv d s; bash s", "mkdir -p b; echo {Q} > b/s; bash b/s",
    "echo {Q} >> s; bash ./s", "tee s <<< {Q} >/dev/null && sh ./s",
    "echo {Q} > s.py && python3 -c 'import os; os.system(open(\"s.py\").read())'",
    "FOO={Q}; eval \"$FOO\"", "X={Q}; bash -c \"$X\"", "X={Q}; sh -c $X",
    "git -c core.sshCommand={Q} fetch x", "GIT_SSH_COMMAND={Q} git fetch x",
    "git -c 'alias.k=!sh -c {Q}' k", "git -c alias.k='!eval {Q}' k",
    "git -c alias.k='!f() {{ {P} {A}; }}; f' k", "git -c alias.k='!exec {P} {A}' k",
    "git -c alias.k='!env {P} {A}' k", "git -c alias.k='!$0' k",
    "printf {Q} | bash", "printf '%s' {Q} | sh", "bash -c \"$(echo {Q})\"",
    "eval \"$(echo {Q})\"", "$(echo {Q})", "`echo {Q}`", "${{X:-{P}}} {A}",
    "{P} <<< x {A}", "<<< x {P} {A}", "> out {P} {A}", "2>&1 {P} {A}",
    "time -p -- {P} {A}", "command -- {P} {A}", "exec -- {P} {A}",
    "env -C . {P} {A}", "nice -n5 -- {P} {A}", "timeout -k 1 5 {P} {A}",
    "find . -name V -ok {P} {{}} \\; <<< y", "find . -maxdepth 1 -name V -exec {P} {{}} ';'",
    "find . -name V -exec {P} '{{}}' +", "xargs -n 1 -- {P} <<< V",
    "echo {Q} >> ~/.bashrc; bash -ic :", "printf '%s\\n' {Q} > ~/.profile; bash -lc :",
    "cat >> ~/.bashrc <<'EOF'\n{P} {A}\nEOF\nbash -ic :", "tee -a ~/.bashrc <<< {Q}; bash -ic :",
    "select x in a; do {P} {A}; break; done <<< 1",
    # round 21: make running a Makefile the line writes (or feeds it), busybox, arithmetic
    # and subscripts that run a substitution, builtins and exec in front of eval
    "printf 'x:\\n\\t%s\\n' {Q} > Makefile; make -s x",
    "printf 'x:\\n\\t%s\\n' {Q} > Makefile && make -s",
    "mkdir -p d; printf 'all:\\n\\t%s\\n' {Q} > d/Makefile; make -sC d",
    "printf 'all:\\n\\t%s\\n' {Q} > m.mk; make -sf m.mk",
    "printf 'all:\\n\\t%s\\n' {Q} > GNUmakefile; gmake -s",
    "printf 'x:\\n\\t%s\\n' {Q} | make -sf - x",
    "make -sf - x <<< \"$(printf 'x:\\n\\t%s' {Q})\"",
    "printf 'C = %s\\nx:\\n\\t$(C)\\n' {Q} > Makefile; make -s x",
    "printf 'x: ; %s\\n' {Q} > Makefile; make -s x",
    "printf '%%:\\n\\t%s\\n' {Q} > Makefile; make -s anything",
    "busybox {P} {A}", "busybox sh -c {Q}", "busybox env {P} {A}",
    "echo $(( $({P} {A}) + 1 ))", "a=(); echo $(( a[$({P} {A})] ))",
    "declare -i n; n='a[$({P} {A})]'", "(( a[$({P} {A})] ))",
    "[[ -v a[$({P} {A})] ]]", "test -v 'a[$({P} {A})]'",
    "command eval {Q}", "builtin eval {Q}", "exec bash -c {Q}", "command exec {P} {A}",
    "env -S'{P} {A}'", "env -iS {Q}", "cat <<< {Q} | xargs -I@ sh -c @",
    "find . -maxdepth 0 -exec sh -c {Q} \\;", "f() {{ \"$@\"; }}; f {P} {A}",
    "alias() {{ {P} {A}; }}; alias", "k={P}; command $k {A}",
    "bash <<< \"$(echo {Q})\"", "sh <<EOF\n$(echo {Q})\nEOF",
]
# Inline code that builds the word at run time or hides it another way.
PY = ["'import os; os.system(\"r\"+\"m V\")'",
      "'import subprocess; subprocess.run([\"rm\",\"V\"])'",
      "'__import__(\"os\").execvp(\"rm\", [\"rm\", \"V\"])'",
      "'import os; os.system(chr(114)+\"m V\")'"]
PL = ["'exec \"rm\", \"V\"'", "'`rm V`'", "'qx{rm V}'", "'system q(rm V)'",
      "'open(my $f, \"|rm V\")'"]
AW = ["'BEGIN{\"rm V\" | getline}'", "'BEGIN{print | \"rm V\"}'",
      "'BEGIN{c=\"r\" \"m V\"; system(c)}'"]
PYQ = ["'import os; os.system(\"rm V\")'", "'import os; os.system(\"r\"+\"m V\")'"]
PLQ = ["'system(\"rm V\")'", "'system(\"r\".\"m V\")'"]
GA = ["'!rm V'", "'!f(){ rm V; }; f'", "'!sh -c \"rm V\"'", "'! rm V'"]

# Benign lines (over-denial) and benign commands around the hidden one.
BENIGN = [
    "echo hi", "ls", "ls -la", "git status", "printf '%s\\n' a b", "cat <<< hi", "true",
    "find . -name '*.py'", "echo 'rm is a word'", "echo rm", "X=1 ls", "timeout 5 ls",
    "python3 -c 'print(1)'", "awk 'BEGIN{print 1}'", "echo a | tr a b", "ls | head -1",
    "git log -1", "env | head -1", "nice ls", "echo $HOME", "echo \"$(ls)\"", "echo ${X:-a}",
    "for f in *; do echo \"$f\"; done", "if [ -e V ]; then echo y; fi", "x=1; echo $x",
    "echo {a,b}", "echo ~", "cat V", "ls > /dev/null 2>&1", "echo $'a\\tb'", "echo r''m",
    "find . -exec echo {} \\;", "echo V | xargs ls", "bash -c 'echo hi'", "sh -c ls",
    "echo '$(rm V)'", "echo \"\\$(rm V)\"", "git -c color.ui=never status", "printf rm",
]
SEPARATORS = ["; ", " && ", " || ", " | ", "\n", " & wait; ", ";\\\n"]
FAMILIES = ("spelling", "runner", "compound", "benign")


def _payload(rng: random.Random, program: str) -> str:
    spelling = rng.choice(SPELLINGS) if rng.random() < 0.6 else "rm"
    if program != "rm":
        spelling = spelling.replace("rm", program).replace("RM", program.upper())
    if program != "rm" and ("\\x72" in spelling or "\\162" in spelling or "\\u0072" in
                            spelling or "x6d" in spelling):
        spelling = program
    args = rng.choice(ARGS)
    runner = rng.choice(RUNNERS)
    quoted = "'" + f"{spelling} {args}".replace("'", "'\\''") + "'"
    line = runner.format(P=spelling, A=args, Q=quoted, PY=rng.choice(PY), PL=rng.choice(PL),
                         AW=rng.choice(AW), GA=rng.choice(GA), PYQ=rng.choice(PYQ),
                         PLQ=rng.choice(PLQ))
    return SETUP.get(spelling, "") + line


def line(rng: random.Random) -> str:
    """One generated command line."""
    shape = rng.random()
    if shape < 0.2:
        return rng.choice(BENIGN) + (rng.choice(SEPARATORS) + rng.choice(BENIGN)
                                     if rng.random() < 0.4 else "")
    hidden = _payload(rng, "rm" if rng.random() < 0.85 else "curl")
    if shape < 0.75:
        return hidden
    before = rng.choice(BENIGN) + rng.choice(SEPARATORS) if rng.random() < 0.7 else ""
    after = rng.choice(SEPARATORS) + rng.choice(BENIGN) if rng.random() < 0.5 else ""
    return before + hidden + after
