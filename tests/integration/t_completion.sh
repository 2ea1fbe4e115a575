#!/bin/bash
# The bash completion (build/imapstress.bash, generated from the option
# table): `complete -p imapstress` after sourcing it; the completion
# function offers long options, imaptest words, state names and files where
# an option takes a file; every long option it offers is one the binary
# knows; and in a real interactive bash under tmux (private socket), Tab
# turns `imapstress --pipe` into `imapstress --pipeline`.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

# Next to the binary under test (make builds it into every build dir), or
# the plain build's when only the binaries were made (make SAN=1 TARGETS).
COMP=${IMAPSTRESS_COMPLETION:-$(dirname "$IMAPSTRESS")/imapstress.bash}
[ -f "$COMP" ] || [ -n "${IMAPSTRESS_COMPLETION:-}" ] || COMP=$ROOT/build/imapstress.bash
[ -f "$COMP" ] || fail "no completion file at $COMP (make builds it)"

got=$(bash --norc --noprofile -c '. "$1" && complete -p imapstress' _ "$COMP")
assert_eq "complete -F _imapstress imapstress" "$got" "complete -p imapstress"

# comp LINE: what the completion function offers at the end of LINE, one
# per line, sorted; run in DIR so file names are known.
dir=$(make_tmpdir)
mkdir "$dir/logs"
: >"$dir/run.json"
: >"$dir/mail.mbox"
comp() {
	(cd "$dir" && bash --norc --noprofile -c '
		. "$1"
		COMP_LINE=$2 COMP_POINT=${#2}
		read -ra COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_imapstress imapstress
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' _ "$COMP" "$1")
}

assert_eq "--pipeline" "$(comp 'imapstress --pipe')" "--pipe"
assert_eq "$(printf '%s\n' --metrics-linger --metrics-listen)" "$(comp 'imapstress --metrics-l')" "--metrics-l"
assert_eq "$(printf '%s\n' logs mail.mbox run.json)" "$(comp 'imapstress --json ')" "--json FILE"
assert_eq "logs" "$(comp 'imapstress --rawlog-dir ')" "--rawlog-dir DIR"
assert_eq "mail.mbox" "$(comp 'imapstress mbox=ma')" "mbox=FILE"
assert_eq "run.json" "$(comp 'imapstress --hdr-log=r')" "--hdr-log=FILE"
assert_eq "append=" "$(comp 'imapstress app')" "imaptest state word"
assert_eq "$(printf '%s\n' search= secs= seed= select=)" "$(comp 'imapstress se')" "words and states"
assert_eq "APPEND=" "$(comp 'imapstress --state AP')" "--state NAME"
assert_eq "" "$(comp 'imapstress --clients ')" "a number: nothing to offer"

# Every long option offered is one the binary parses: given two bogus
# arguments after it (one may be taken as its value), the complaint must
# be about a bogus one, never "unknown option" for the offered name.
n=0
while read -r opt; do
	[ -n "$opt" ] || continue
	out=$("$IMAPSTRESS" "$opt" --no-such-x --no-such-y 2>&1 || true)
	case $out in
	*"$opt: unknown option"* | *"$opt=--no-such-x: unknown option"*)
		fail "completion offers $opt, which imapstress does not know: $out" ;;
	esac
	n=$((n + 1))
done <<<"$(comp 'imapstress --')"
assert_ge "$n" 60 "long options offered for --"
note "$n long options offered, each known to the binary"

# Interactive (the space after the option shows that bash took the one
# match as complete): a private tmux server (own socket, no user config) running a
# plain bash that has sourced the completion.
need_cmd tmux
sock=$TEST_TMP/tmux.sock
tmux -S "$sock" -f /dev/null new-session -d -x 150 -y 20 \
	"env -i PATH=/usr/bin:/bin HOME=$TEST_TMP HISTFILE=/dev/null TERM=screen PS1='$ ' bash --norc --noprofile"
on_exit "tmux -S '$sock' kill-server 2>/dev/null; rm -f '$sock'"
tmux -S "$sock" send-keys ". '$COMP'" Enter
tmux -S "$sock" send-keys "echo sourced" Enter
tmux -S "$sock" send-keys "imapstress --pipe" Tab
screen=
for _ in $(seq 100); do
	screen=$(tmux -S "$sock" capture-pane -p -N)
	case $screen in *'imapstress --pipeline '*) break ;; esac
	sleep 0.1
done
assert_match '^\$ imapstress --pipeline $' "$screen" "Tab after --pipe in bash under tmux"
echo "PASS: $TEST_NAME"
