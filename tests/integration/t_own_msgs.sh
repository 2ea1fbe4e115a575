#!/bin/bash
# Issue 12 item 2: `own_msgs expunge=5 logout=1`, pasted with a user= that
# has no %d (so every session works on one mailbox), gave hundreds of
# "Flags unexpectedly changed for owned message" where imaptest gives 0:
# the two workers' models each handed out the same messages, and STORE by
# sequence number could land on a message the model had not claimed.  Two
# workers and one, against the private Dovecot: no state error, exit 0,
# and STORE/DELETE did run.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no
for w in 2 1; do
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=owner$w clients=20 \
		secs=5 own_msgs expunge=5 logout=1 --workers "$w" --json "$TEST_TMP/$w.json" \
		>"$TEST_TMP/$w.out" 2>"$TEST_TMP/$w.err" || rc=$?
	summary "$TEST_TMP/$w.json" errors.state commands.STORE.ok commands.DELETE.ok workers
	note "workers=$w: exit $rc, state errors ${S[0]}, STORE ok ${S[1]}, DELETE ok ${S[2]}"
	assert_eq 0 "${S[0]}" "state errors with own_msgs, $w workers (stderr: $(head -n 3 "$TEST_TMP/$w.err"))"
	assert_eq 0 "$rc" "exit status with own_msgs, $w workers"
	assert_eq "$w" "${S[3]}" "workers"
	assert_ge "${S[1]}" 10 "STOREs with own_msgs"
	assert_ge "${S[2]}" 10 "DELETEs with own_msgs"
done
note ok
