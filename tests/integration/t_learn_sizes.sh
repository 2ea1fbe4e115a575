#!/bin/bash
# Issue 37: message sizes, a round trip.  imapstress APPENDs with a known
# --msg-sizes against a private Dovecot whose rawlog is on (and its own
# --rawlog beside it); then
#  1. the server holds what the spec asks for: every message's RFC822.SIZE
#     is one of the buckets' sizes exactly (a bucket's size is the size as
#     stored), their number is the run's messages_appended, and each
#     bucket's count is within 5 standard deviations of the binomial
#     (N draws of probability weight/100: a correct draw misses that bound
#     once in ~1.7 million runs);
#  2. `imapstress learn` gives the same buckets back, from Dovecot's rawlog
#     and from imapstress's: the same sizes exactly, and each weight within
#     1 point of the server's own percentage.  Learn sees every message the
#     server stored (no --until: the drain's APPENDs are in the logs and on
#     the server alike), so the one difference is rounding to whole
#     percents (largest remainder: at most 1 point from the exact share);
#  3. the learned mix runs as it is, and its run reports the spec learned.
# The run stops once 600 messages are stored, whatever the machine's speed.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
PY=${PYTHON:-/usr/bin/python3}

SPEC=1k:30,4k:40,32k:20,256k:10
USERS="user1 user2 user3"

dovecot_start --fsync no --rawlog --imap-clients 20
[ -d "${DOVECOT_RAWLOG_DIR:-}" ] || fail "dovecot-private --rawlog printed no DOVECOT_RAWLOG_DIR"
# shellcheck disable=SC2086 # the users are words
"$DOVECOT_PRIVATE" rawlog-user --dir "$DOVECOT_DIR" $USERS ||
	fail "dovecot-private rawlog-user failed"
# shellcheck disable=SC2086
"$PY" "$ROOT/tests/integration/precreate.py" "$DOVECOT_PORT" "$DOVECOT_PASS" $USERS ||
	fail "could not create the users' mailboxes"
rm -rf "${DOVECOT_RAWLOG_DIR:?}"/user*/*

mkdir "$TEST_TMP/own"
stress_until run 120 messages_appended 600 port="$DOVECOT_PORT" \
	user=user%d users=1-3 pass="$DOVECOT_PASS" clients=4 secs=0 seed=5 \
	msgs=100000 - append=100,0 logout=10,0 --msg-sizes "$SPEC" \
	rawlog --rawlog-dir "$TEST_TMP/own"
assert_eq 0 "$RC" "imapstress exit status ($(tail -n 3 "$TEST_TMP/run.err"))"
summary "$TEST_TMP/run.json" messages_appended msg_sizes.spec
appended=${S[0]}
assert_eq "$SPEC" "${S[1]}" "the JSON summary's msg_sizes.spec"
assert_match "^message sizes: $SPEC \(mean 33\.9 KiB\); appended mean" \
	"$(cat "$TEST_TMP/run.out")" "the text summary's sizes line"

# The server's sizes: "SIZE COUNT" lines, every user's INBOX.
# shellcheck disable=SC2086
"$PY" "$ROOT/tests/integration/fetch_sizes.py" "$DOVECOT_PORT" "$DOVECOT_PASS" INBOX \
	$USERS >"$TEST_TMP/server.sizes" ||
	fail "could not read the messages' sizes from Dovecot"
stored=$(awk '{ n += $2 } END { print n + 0 }' "$TEST_TMP/server.sizes")
assert_eq "$appended" "$stored" "messages on the server = messages_appended"
assert_ge "$stored" 600 "messages stored"

# bucket SIZE -> WEIGHT from a spec; sizes in octets.
buckets() {
	tr ',' '\n' <<<"$1" | awk -F: '{ s = $1; m = 1
		if (s ~ /k$/) { m = 1024; sub(/k$/, "", s) }
		if (s ~ /m$/) { m = 1048576; sub(/m$/, "", s) }
		print s * m, $2 }'
}

# 1. The server against the spec.
buckets "$SPEC" >"$TEST_TMP/spec.buckets"
awk -v n="$stored" '
NR == FNR { w[$1] = $2; tw += $2; next }
{
	if (!($1 in w)) { printf "size %d (%d messages) is no bucket of the spec\n", $1, $2; bad = 1; next }
	got[$1] = $2
}
END {
	for (s in w) {
		p = w[s] / tw; mean = n * p; sd = sqrt(n * p * (1 - p))
		d = got[s] - mean; if (d < 0) d = -d
		printf "bucket %7d: %4d of %d stored, expected %.0f +- %.0f (5 sd)\n", s, got[s], n, mean, 5 * sd
		if (d > 5 * sd) bad = 1
	}
	exit bad
}' "$TEST_TMP/spec.buckets" "$TEST_TMP/server.sizes" >"$TEST_TMP/check1" ||
	fail "the stored sizes do not follow $SPEC: $(cat "$TEST_TMP/check1")"
while read -r line; do note "server: $line"; done <"$TEST_TMP/check1"

# 2. learn, from each log, against the server.
learned() {
	local name=$1 dir=$2 rc=0 spec
	run_with_timeout 120 "$IMAPSTRESS" learn -o "$TEST_TMP/$name" "$dir" \
		>"$TEST_TMP/$name.learn" 2>&1 || rc=$?
	assert_eq 0 "$rc" "learn from $name ($(head -n 3 "$TEST_TMP/$name.learn"))"
	spec=$(grep -v '^#' "$TEST_TMP/$name.mix" | grep -oE -- '--msg-sizes [^ ]+' | cut -d' ' -f2)
	[ -n "$spec" ] || fail "$name: no --msg-sizes in the learned mix"
	note "$name: learned --msg-sizes $spec"
	buckets "$spec" >"$TEST_TMP/$name.buckets"
	awk -v n="$stored" '
	NR == FNR { w[$1] = $2; next }
	{
		exact = 100 * $2 / n; d = w[$1] - exact; if (d < 0) d = -d
		printf "bucket %7d: learned %3d%%, server %.2f%%\n", $1, w[$1], exact
		if (!($1 in w) || d > 1) bad = 1
		seen[$1] = 1
	}
	END { for (s in w) if (!(s in seen)) { printf "bucket %d learned, not stored\n", s; bad = 1 }; exit bad }' \
		"$TEST_TMP/$name.buckets" "$TEST_TMP/server.sizes" >"$TEST_TMP/$name.check" ||
		fail "$name: learned $spec, not the server's: $(cat "$TEST_TMP/$name.check")"
	while read -r line; do note "$name: $line"; done <"$TEST_TMP/$name.check"
}
learned dovecot "$DOVECOT_RAWLOG_DIR"
learned own "$TEST_TMP/own"

# 3. The learned mix runs as it is (its own --msg-sizes on its line).
rc=0
# shellcheck disable=SC2046 # the mix is words
run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=user%d users=1-3 \
	pass="$DOVECOT_PASS" clients=2 secs=2 msgs=100000 \
	$(grep -v '^#' "$TEST_TMP/dovecot.mix") --json "$TEST_TMP/rerun.json" \
	>"$TEST_TMP/rerun.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "the learned mix run as it is ($(tail -n 3 "$TEST_TMP/rerun.out"))"
summary "$TEST_TMP/rerun.json" msg_sizes.spec messages_appended
assert_eq "$(grep -v '^#' "$TEST_TMP/dovecot.mix" | grep -oE -- '--msg-sizes [^ ]+' | cut -d' ' -f2)" \
	"${S[0]}" "the learned mix's run reports the learned spec"
assert_ge "${S[1]}" 1 "the learned mix's run appended"
note "ok: $stored messages stored as $SPEC asks; learned back within 1 point"
