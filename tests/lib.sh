# tests/lib.sh: helpers for the shell tests (tests/fake, tests/integration).
# Source it first thing:   . "$(dirname "$0")/../lib.sh"
#
# Gives:
#   ROOT                 repository root (absolute)
#   IMAPSTRESS FAKEIMAPD binaries under test ($ROOT/build/... unless set)
#   DOVECOT_PRIVATE      $ROOT/scripts/dovecot-private
#   TEST_TMP             a scratch directory removed on exit
#   fail MSG                         print "FAIL: MSG" and exit 1
#   skip MSG                         print "SKIP: MSG" and exit 77
#   note MSG                         progress line on stderr
#   assert_eq EXPECTED ACTUAL MSG    string equality
#   assert_ge ACTUAL MIN MSG         integer ACTUAL >= MIN
#   assert_match REGEX TEXT MSG      some line of TEXT matches the ERE
#   need_cmd CMD...                  skip unless every command exists
#   make_tmpdir                      print a new directory under TEST_TMP
#   run_with_timeout SECS CMD...     run CMD, killed after SECS seconds
#   dovecot_start [ARGS]             start a private Dovecot (args as for
#                                    `dovecot-private start`), export its
#                                    DOVECOT_* variables, stop it on exit
#   dovecot_stop [DIR]               stop one now (default $DOVECOT_DIR)
#   on_exit CMD                      also run CMD (eval'd) at exit
# Every test runs under `set -eu`; do not install your own EXIT trap, use
# on_exit.
# shellcheck shell=bash

set -eu

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
IMAPSTRESS=${IMAPSTRESS:-$ROOT/build/imapstress}
FAKEIMAPD=${FAKEIMAPD:-$ROOT/build/fakeimapd}
DOVECOT_PRIVATE=$ROOT/scripts/dovecot-private
export ROOT IMAPSTRESS FAKEIMAPD DOVECOT_PRIVATE

TEST_NAME=$(basename "$0")
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/imapstress-test.XXXXXX")

# Cleanup state, all in this shell: helpers that need to register something
# must therefore not be called from a $(...) subshell.
_lib_dovecot_dirs=()
_lib_exit_cmds=()

_lib_cleanup() {
	local rc=$? i
	trap - EXIT
	set +e
	for ((i = ${#_lib_exit_cmds[@]} - 1; i >= 0; i--)); do
		eval "${_lib_exit_cmds[i]}"
	done
	for i in "${!_lib_dovecot_dirs[@]}"; do
		timeout 30 "$DOVECOT_PRIVATE" stop --dir "${_lib_dovecot_dirs[i]}" >&2
	done
	rm -rf -- "$TEST_TMP"
	exit "$rc"
}
trap _lib_cleanup EXIT
# bash runs the EXIT trap on exit, but not when a signal kills it: turn the
# timeout's TERM (and ^C) into an exit so daemons still get stopped.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

on_exit() {
	_lib_exit_cmds+=("$1")
}

note() {
	echo "[$TEST_NAME] $*" >&2
}

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $TEST_NAME: $*" >&2
	exit 77
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs '$c', which is not installed"
	done
}

assert_eq() {
	[ $# -eq 3 ] || fail "assert_eq needs EXPECTED ACTUAL MSG, got $# arguments"
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}

_lib_is_int() {
	case $1 in
	'' | - | *[!0-9-]* | ?*-*) return 1 ;;
	esac
}

assert_ge() {
	[ $# -eq 3 ] || fail "assert_ge needs ACTUAL MIN MSG, got $# arguments"
	_lib_is_int "$1" || fail "$3: '$1' is not an integer"
	_lib_is_int "$2" || fail "$3: minimum '$2' is not an integer"
	[ "$1" -ge "$2" ] || fail "$3: expected at least $2, got $1"
}

assert_match() {
	[ $# -eq 3 ] || fail "assert_match needs REGEX TEXT MSG, got $# arguments"
	printf '%s\n' "$2" | grep -Eq -- "$1" || fail "$3: no line matches /$1/; text was:
$(printf '%s\n' "$2" | head -n 20)"
}

make_tmpdir() {
	mktemp -d "$TEST_TMP/d.XXXXXX"
}

# timeout(1) signals the whole process group it creates, so children of
# CMD go too; --kill-after catches whatever ignores TERM.
# CMD must be a program: timeout(1) cannot run a shell function.
run_with_timeout() {
	local secs=$1 rc=0
	shift
	if declare -F "$1" >/dev/null; then
		fail "run_with_timeout: '$1' is a shell function; run a program"
	fi
	timeout --kill-after=5 "$secs" "$@" || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "[$TEST_NAME] timed out after ${secs}s: $*" >&2
	fi
	return "$rc"
}

# Not under TEST_TMP on purpose: as root, Dovecot reads mail as an
# unprivileged user who must be able to traverse the instance directory,
# and TEST_TMP is private (mode 0700).
dovecot_start() {
	local out
	out=$(run_with_timeout 60 "$DOVECOT_PRIVATE" start "$@") ||
		fail "could not start the private Dovecot (args: $*)"
	eval "$out"
	[ -n "${DOVECOT_DIR:-}" ] || fail "dovecot-private start printed no DOVECOT_DIR"
	_lib_dovecot_dirs+=("$DOVECOT_DIR")
}

dovecot_stop() {
	local d=${1:-${DOVECOT_DIR:-}} i
	[ -n "$d" ] || fail "dovecot_stop: no private Dovecot given or running"
	for i in "${!_lib_dovecot_dirs[@]}"; do
		[ "${_lib_dovecot_dirs[i]}" != "$d" ] || unset "_lib_dovecot_dirs[i]"
	done
	run_with_timeout 30 "$DOVECOT_PRIVATE" stop --dir "$d" ||
		fail "could not stop the private Dovecot in $d"
	if [ "$d" = "${DOVECOT_DIR:-}" ]; then
		unset DOVECOT_DIR DOVECOT_PORT DOVECOT_TLS_PORT DOVECOT_CA DOVECOT_FORMAT
	fi
}

# summary FILE PATH...: reads the summary object (the last line of a --json
# file; fails otherwise) and sets the array S to the values at the dotted
# PATHs, one each: "-" for a missing path, 0 for a command that never ran
# ("commands.X..."), the sum of the counts for an object such as "errors".
summary() {
	local out
	out=$("${PYTHON:-python3}" - "$@" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line of %s is not the summary: %s" % (sys.argv[1], lines[-1][:200]))
for path in sys.argv[2:]:
    v = s
    for k in path.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    if v is None and path.startswith("commands."):
        v = 0
    if isinstance(v, dict):
        v = sum(v.values())
    print("-" if v is None else v)
PYEOF
) || fail "no JSON summary in $1"
	mapfile -t S <<<"$out"
}
