#!/bin/bash
# imapstress init's usage errors, no server needed: each bad option is one
# stderr line naming it, exit 2, nothing on stdout; --help exits 0; a
# profile's init_* keys are read (a bad one is the profile's
# FILE:LINE: KEY: message).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

run() {
	rc=0
	run_with_timeout 20 "$IMAPSTRESS" init "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
	out=$(cat "$TEST_TMP/out")
	err=$(cat "$TEST_TMP/err")
}

# bad ARGS... -- MESSAGE-REGEX
bad() {
	local args=() a
	for a in "$@"; do
		[ "$a" = "--" ] && break
		args+=("$a")
	done
	local want=${*: -1}
	run "${args[@]}"
	assert_eq 2 "$rc" "exit status of init ${args[*]}"
	assert_eq "" "$out" "stdout of init ${args[*]}"
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one stderr line for init ${args[*]}: $err"
	assert_match "$want" "$err" "message of init ${args[*]}"
}

run --help
assert_eq 0 "$rc" "init --help"
assert_match '^usage: imapstress init ' "$out" "init --help prints the usage"

bad --folders x -- '^imapstress: init: --folders: not a number'
bad --folders 1001 -- '^imapstress: init: --folders: out of range'
bad --inbox -- '^imapstress: init: --inbox needs a value'
bad --init-parallel 0 -- '^imapstress: init: --init-parallel: out of range'
bad --deleted-folder 'Del*' -- "^imapstress: init: --deleted-folder: not a folder name"
bad --folder-prefix '' -- "^imapstress: init: --folder-prefix: empty"
bad --check=yes -- '^imapstress: init: --check takes no value'
bad --trim=1 -- '^imapstress: init: --trim takes no value'
bad --trim --check -- '^imapstress: init: --trim with --check: --check changes nothing'
bad --deleted-folder Folder02 -- "^imapstress: init: two folders of the init table are both named 'Folder02'"
bad bogus=1 -- '^imapstress: bogus=1: unknown word'
bad --msg-sizes 1k:30,4k:70 -- '^imapstress: init: --msg-sizes: not for init'
bad --msg-sizes 1k:30,4x:70 -- "^imapstress: --msg-sizes 1k:30,4x:70: item 2 '4x:70': size: unknown unit 'x'"
printf 'lmtp_port = 24\ntotal_user_count = 1\ninit_new_folders = many\nuser u {\n count = 100%%\n username_format = u%%n\n}\nclient c {\n count = 100%%\n}\n' >"$TEST_TMP/p.conf"
bad --profile "$TEST_TMP/p.conf" -- "^imapstress: profile $TEST_TMP/p.conf:3: init_new_folders: 'many': not a number"
