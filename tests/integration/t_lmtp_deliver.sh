#!/bin/bash
# The LMTP client against the private Dovecot's lmtp: build/lmtp-deliver
# (tests/lmtp/lmtp_deliver.c, built from src/lmtp/) delivers 300 messages
# with 2 recipients each to 6 users, every 5th recipient as user+Spam (each user gets some), over
# at most 3 parallel sessions.  Then, for every user, the INBOX and Spam
# counts in the server's storage (dovecot-private count) must equal what
# the client says the server accepted with a 2xx, exactly, and add up to
# the 600 recipients; it must have used exactly 3 sessions.  The comparison
# is also run once against a copy of the client's output with one count
# changed, and must catch it (so the check can fail).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

LMTP_DELIVER=${LMTP_DELIVER:-$(dirname "$IMAPSTRESS")/lmtp-deliver}
[ -x "$LMTP_DELIVER" ] || skip "no $LMTP_DELIVER (make $(basename "$(dirname "$IMAPSTRESS")")/lmtp-deliver)"

dovecot_lmtp_start

USERS=6
out=$TEST_TMP/deliver.out
run_with_timeout 120 "$LMTP_DELIVER" --port "$DOVECOT_LMTP_PORT" --users $USERS \
	--messages 300 --rcpts 2 --spam-every 5 --parallel 3 --seed 7 \
	>"$out" 2>"$TEST_TMP/deliver.err" ||
	fail "lmtp-deliver failed: $(cat "$TEST_TMP/deliver.err" "$out")"
note "$(head -n 4 "$out")"
assert_match '^ok 600 tempfail 0 permfail 0 local 0$' "$(cat "$out")" "every recipient accepted"
assert_match ' 3 sessions \(limit 3\)' "$(cat "$out")" "three parallel sessions"

# compare FILE: every "user NAME INBOX n Spam m" line against the server;
# prints the first mismatch and fails.
compare() {
	local name inbox spam got_inbox got_spam total=0
	while read -r _ name _ inbox _ spam; do
		got_inbox=$("$DOVECOT_PRIVATE" count "$name" INBOX)
		got_spam=$("$DOVECOT_PRIVATE" count "$name" Spam)
		if [ "$got_inbox" != "$inbox" ] || [ "$got_spam" != "$spam" ]; then
			echo "$name: client says INBOX $inbox Spam $spam, server holds INBOX $got_inbox Spam $got_spam"
			return 1
		fi
		total=$((total + inbox + spam))
	done < <(grep '^user ' "$1")
	[ "$total" = 600 ] || { echo "counts add up to $total, not 600"; return 1; }
}

lines=$(grep -c '^user ' "$out")
assert_eq "$USERS" "$lines" "one line per user"
why=$(compare "$out") || fail "server and client disagree: $why"

# The same check must notice a count that is off by one.
sed '0,/^user \([^ ]*\) INBOX \([0-9]*\)/s//user \1 INBOX 1\2/' "$out" >"$TEST_TMP/tampered"
if compare "$TEST_TMP/tampered" >/dev/null; then
	fail "the comparison did not notice a changed count"
fi
note "server INBOX+Spam counts match the client's for all $USERS users"
