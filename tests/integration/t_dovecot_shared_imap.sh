#!/bin/bash
# scripts/dovecot-private start --imap-clients N: long-lived imap processes
# serving N sessions each (what scripts/bench-client's 2,000-client ramp
# uses, so that logins do not wait for a fork each).
#   1. --imap-clients 5 --max-imap 20: the config caps imap at 4 processes
#      of 5 clients, and 10 sessions held at once (logout=0) all log in
#      without errors; after the run at most 4 imap processes exist (they
#      live on: service_count 0), at least one.
#   2. A bad value exits 2 naming the option.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

# --- 2. a bad value ---------------------------------------------------------
rc=0
"$DOVECOT_PRIVATE" start --imap-clients 0 >/dev/null 2>"$TEST_TMP/bad.err" || rc=$?
assert_eq 2 "$rc" "exit status of --imap-clients 0"
assert_match "imap-clients" "$(cat "$TEST_TMP/bad.err")" "the message names the option"

# --- 1. shared imap processes -----------------------------------------------
dovecot_start --fsync no --imap-clients 5 --max-imap 20
conf=$(sed -n '/^service imap {/,/^}/p' "$DOVECOT_DIR/dovecot.conf")
assert_match "process_limit = 4" "$conf" "imap processes: ceil(20 / 5)"
assert_match "client_limit = 5" "$conf" "sessions per imap process"

stress shared port="$DOVECOT_PORT" user=sh%d users=1-10 clients=10 secs=2 \
	- noop=100 logout=0 no_pipelining
[ "$RC" = 0 ] || fail "run: exit $RC: $(head -n 5 "$TEST_TMP/shared.err")"
summary "$TEST_TMP/shared.json" logins errors
assert_eq 10 "${S[0]}" "all 10 sessions logged in, held at once"
assert_eq 0 "${S[1]}" "no errors"

n=$(ps -o comm= --ppid "$DOVECOT_PID" | grep -c '^imap$' || true)
note "imap processes after the run: $n"
[ "$n" -ge 1 ] && [ "$n" -le 4 ] ||
	fail "$n imap processes for 10 sessions; --imap-clients 5 allows 1 to 4"
dovecot_stop
note "ok"
