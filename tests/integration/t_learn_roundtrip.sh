#!/bin/bash
# Issue 37 item 1: the round trip.  imapstress runs a known mix against a
# private Dovecot whose rawlog is on (dovecot-private --rawlog), then
# `imapstress learn` reads Dovecot's rawlogs, and every state's learned P
# must be within 3 points of the mix's (states the mix leaves at 0 too),
# for two mixes: one session per round of the walk (LOGOUT=100), and
# several rounds per session (LOGOUT=50 and 10), where the rounds cannot
# be told apart on the wire.  Run A also learns from imapstress's own --rawlog.
# The learned mix then runs as it is, and the learned profile passes
# --profile-check.
# The runs are seeded, with 10 clients, and last until some 2500 rounds of
# the walk are done (a state's sampling error about 1 point, whatever the
# machine's speed; a minute or two here).  The drain at the end LOGs
# OUT the sessions in flight mid-round, a LOGOUT no draw of the mix chose:
# learn leaves out what Dovecot's rawlog shows after the SIGTERM
# (--until), and what imapstress's rawlog shows after its "# stopping".
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no --rawlog --imap-clients 20
[ -d "${DOVECOT_RAWLOG_DIR:-}" ] || fail "dovecot-private --rawlog printed no DOVECOT_RAWLOG_DIR"
"$DOVECOT_PRIVATE" rawlog-user --dir "$DOVECOT_DIR" user1 user2 user3 user4 user5 ||
	fail "dovecot-private rawlog-user failed"

# known MIX LEARNED.mix: one line per walk state "STATE KNOWN LEARNED",
# KNOWN from the state words after "-" (others 0, SELECT 100, LOGOUT 100).
compare() {
	local mix=$1 learned=$2
	awk -v mix="$mix" '
	BEGIN {
		n = split("COMPRESS LISTROOT LIST MCREATE MDELETE MRENAME MSUBS STATUS SELECT UIDFETCH FETCH FETCH2 SEARCH SORT THREAD COPY MOVE STORE DELETE EXPUNGE APPEND NOOP IDLE CHECK LOGOUT", st, " ")
		for (i = 1; i <= n; i++) known[st[i]] = 0
		known["SELECT"] = 100; known["LOGOUT"] = 100
		m = split(mix, w, " ")
		for (i = 1; i <= m; i++) if (w[i] ~ /=/) {
			split(w[i], kv, "="); split(kv[2], pr, ",")
			if (toupper(kv[1]) in known) known[toupper(kv[1])] = pr[1] + 0
		}
	}
	/^[^#]/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^[A-Z0-9]+=/) {
			split($i, kv, "="); split(kv[2], pr, ",")
			got[kv[1]] = pr[1] + 0; rep[kv[1]] = pr[2] + 0
		}
	}
	END {
		for (i = 1; i <= n; i++) printf "%s %d %d %d\n", st[i], known[st[i]], got[st[i]] + 0, rep[st[i]] + 0
	}' "$learned"
}

# check NAME MIX LEARNED.mix: the table, and every |known - learned| <= 3.
check() {
	local name=$1 mix=$2 learned=$3 worst=0 s k g r d
	note "$name: state known learned (R learned)"
	while read -r s k g r; do
		d=$((k > g ? k - g : g - k))
		[ "$d" -le "$worst" ] || worst=$d
		[ "$k" = 0 ] && [ "$g" = 0 ] && continue
		note "  $(printf '%-9s %3d %3d  (R %d)' "$s" "$k" "$g" "$r")"
		[ "$d" -le 3 ] || fail "$name: $s learned P=$g, the mix has $k (more than 3 points off)"
	done < <(compare "$mix" "$learned")
	note "$name: largest difference $worst points"
}

# run NAME SESSIONS MIX ARGS...: the mix against Dovecot until SESSIONS
# sessions logged out, its rawlogs learned up to the SIGTERM.
run() {
	local name=$1 sessions=$2 mix=$3 rc=0
	shift 3
	rm -rf "${DOVECOT_RAWLOG_DIR:?}"/user*/*
	# shellcheck disable=SC2086 # the mix is words
	stress_until "$name" 300 commands.LOGOUT.ok "$sessions" port="$DOVECOT_PORT" \
		user=user%d users=1-5 pass="$DOVECOT_PASS" clients=10 secs=0 \
		msgs=100000 "$@" $mix
	assert_eq 0 "$RC" "$name: imapstress exit status ($(tail -n 3 "$TEST_TMP/$name.err"))"
	run_with_timeout 120 "$IMAPSTRESS" learn -o "$TEST_TMP/$name" \
		--until "$(cat "$TEST_TMP/$name.sigtime")" "$DOVECOT_RAWLOG_DIR" \
		>"$TEST_TMP/$name.learn" 2>&1 || rc=$?
	assert_eq 0 "$rc" "$name: learn exit status ($(head -n 3 "$TEST_TMP/$name.learn"))"
	assert_match "^sessions: [0-9]+ \([0-9]+ with times\)" "$(cat "$TEST_TMP/$name.summary")" "$name: sessions with times"
	note "$name: $(grep -E '^(sessions|walk):' "$TEST_TMP/$name.summary" | tr '\n' ' ')"
}

MIX_A='- list=30,0 status=60,0 select=100 uidfetch=25,0 fetch=80,0 fetch2=50,20 append=70,10 noop=20,0 logout=50,0'
mkdir "$TEST_TMP/rawlog"
run a 1200 "$MIX_A" seed=7 rawlog --rawlog-dir "$TEST_TMP/rawlog"
check "mix A (Dovecot's rawlog)" "$MIX_A" "$TEST_TMP/a.mix"
rc=0
run_with_timeout 120 "$IMAPSTRESS" learn -o "$TEST_TMP/own" "$TEST_TMP/rawlog" >/dev/null 2>&1 || rc=$?
assert_eq 0 "$rc" "learn from imapstress's own rawlog"
assert_match "imapstress rawlog 10\)" "$(cat "$TEST_TMP/own.summary")" "ten slot files read as imapstress rawlogs"
check "mix A (imapstress's rawlog)" "$MIX_A" "$TEST_TMP/own.mix"

MIX_B='- status=40,0 select=100 fetch=60,0 fetch2=30,10 search=25,0 copy=20,0 append=50,20 check=30,0 logout=10,0'
run b 250 "$MIX_B" seed=11 copybox=Archive
check "mix B (Dovecot's rawlog)" "$MIX_B" "$TEST_TMP/b.mix"
# imapstress's CREATE after COPY's NO [TRYCREATE] is no MCREATE.
assert_match "^  CREATE +[1-9]" "$(cat "$TEST_TMP/b.summary")" "TRYCREATE's CREATE left out of the walk"
assert_match " copybox=Archive " "$(grep -v '^#' "$TEST_TMP/b.mix")" "copybox in the learned mix"

# The learned mix runs as it is.
rc=0
# shellcheck disable=SC2046 # the mix is words
run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=user%d users=1-5 \
	pass="$DOVECOT_PASS" clients=2 secs=2 $(grep -v '^#' "$TEST_TMP/b.mix") \
	--json "$TEST_TMP/rerun.json" >"$TEST_TMP/rerun.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "the learned mix run as it is ($(tail -n 3 "$TEST_TMP/rerun.out"))"
summary "$TEST_TMP/rerun.json" commands.FETCH.ok commands.COPY.ok
assert_ge "${S[0]}" 1 "FETCH answered OK in the learned mix's run"
# The learned profile runs as it is, given the LMTP port to write.
if [ -n "${DOVECOT_LMTP_PORT:-}" ]; then
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" learn -o "$TEST_TMP/p" --lmtp-port "$DOVECOT_LMTP_PORT" \
		--until "$(cat "$TEST_TMP/b.sigtime")" "$DOVECOT_RAWLOG_DIR" >/dev/null 2>&1 || rc=$?
	assert_eq 0 "$rc" "learn --lmtp-port"
	assert_match "^lmtp_port = $DOVECOT_LMTP_PORT$" "$(cat "$TEST_TMP/p.profile")" "lmtp_port in the profile"
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/p.profile" port="$DOVECOT_PORT" \
		pass="$DOVECOT_PASS" secs=3 --profile-counts "$TEST_TMP/counts.json" \
		>"$TEST_TMP/prun.out" 2>&1 || rc=$?
	assert_eq 0 "$rc" "the learned profile run as it is ($(tail -n 3 "$TEST_TMP/prun.out"))"
	delivered=$("${PYTHON:-/usr/bin/python3}" -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["delivered"]["INBOX"])' "$TEST_TMP/counts.json")
	assert_ge "$delivered" 1 "mail delivered in the learned profile's run"
	note "learned profile ran 3 s: $delivered deliveries to INBOX"
else
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/b.profile" --profile-check \
		>"$TEST_TMP/pcheck" 2>&1 || rc=$?
	assert_eq 0 "$rc" "--profile-check of the learned profile ($(head -n 3 "$TEST_TMP/pcheck"))"
fi
note "ok: two mixes learned within 3 points per state"
