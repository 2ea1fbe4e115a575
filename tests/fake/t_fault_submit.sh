#!/bin/bash
# The SMTP submission client (src/lmtp/, LMTP_PROTO_SUBMIT) against a fake
# server (tests/fake/fake_smtp.py) that refuses or fails at each step:
# greeting 421, EHLO 554, AUTH 535 and 454, MAIL 451, a 421 and a close
# after MAIL, a refused recipient (550), DATA 554, 451 and 554 after the
# dot, and a server that stalls after the dot.  build/lmtp-deliver submits
# 3 messages with 2 recipients each (6 recipients) with a 2 s timeout.
# For each fault: every recipient is counted exactly once, under the
# server's reply code and enhanced status code (or, for the stall, as a
# local timeout), named in one stderr line each; the exit status is 1; and
# the recipients counted ok equal the recipients the server logged as
# accepted after the dot: nothing counts as delivered that the server did
# not take.  The clean server (PLAIN, and LOGIN-only) takes all 6, exit 0;
# --auth plain against a LOGIN-only server fails locally, before MAIL.
# STARTTLS (--starttls CA): a server that refuses AUTH before TLS takes
# all 6, each message logged as come over TLS; a server that does not
# offer STARTTLS, or one whose certificate another CA signed, gets
# nothing (local, before AUTH); one that answers STARTTLS 454 fails all 6
# with its code.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

LMTP_DELIVER=${LMTP_DELIVER:-$(dirname "$IMAPSTRESS")/lmtp-deliver}
[ -x "$LMTP_DELIVER" ] || skip "no $LMTP_DELIVER (make $(basename "$(dirname "$IMAPSTRESS")")/lmtp-deliver)"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
FAKE_SMTP=$ROOT/tests/fake/fake_smtp.py
TIMEOUT=2

# fault NAME EXIT OK TEMP PERM LOCAL LINES [lmtp-deliver options]: LINES is
# what the output must hold besides (e.g. "code 421: 6|esc 4.3.2: 6").
fault() {
	local name=$1 want_rc=$2 ok=$3 temp=$4 perm=$5 loc=$6 lines=$7
	shift 7
	local d=$TEST_TMP/$name.$RANDOM pid rc=0 t0 t1 line accepted
	mkdir -p "$d"
	fake_line_start "$d" "$FAKE_SMTP" --fault "${name%%.*}" \
		--cert "$TEST_TMP/tls/server.pem" --key "$TEST_TMP/tls/server.key"
	pid=$FAKE_PID
	t0=$(date +%s%N)
	run_with_timeout 60 "$LMTP_DELIVER" --submit --port "$(cat "$d/port")" \
		--users 2 --messages 3 --rcpts 2 --parallel 4 --timeout $TIMEOUT \
		--user-format 'su%u' "$@" >"$d/out" 2>"$d/err" || rc=$?
	t1=$(date +%s%N)
	stop_bg "$pid"
	assert_eq "$want_rc" "$rc" "$name: exit status (stderr: $(head -n 3 "$d/err"))"
	assert_match "^ok $ok tempfail $temp permfail $perm local $loc\$" "$(cat "$d/out")" \
		"$name: recipients by outcome"
	local IFS='|'
	for line in $lines; do
		grep -qxF -- "$line" "$d/out" || fail "$name: no line '$line' in: $(cat "$d/out")"
	done
	unset IFS
	# Every failed recipient: one line on stderr naming it, the code and
	# the server's text; nothing else.
	assert_eq $((temp + perm + loc)) "$(grep -c . "$d/err" || true)" "$name: stderr lines"
	# Accepted after the dot, by the server's own log.
	accepted=$(awk '{ s += $2 } END { print s + 0 }' "$d/log")
	assert_eq "$ok" "$accepted" "$name: recipients ok = recipients the server accepted"
	# On time: the slowest fault is the stall, cut by the 2 s timeout;
	# lmtp-deliver itself gives up at timeout + 5 s (then "shutdown").
	[ $(((t1 - t0) / 1000000)) -lt $(((TIMEOUT + 5) * 1000)) ] ||
		fail "$name: took $(((t1 - t0) / 1000000)) ms"
	note "$name: $(grep -E '^(ok|code|esc|local) ' "$d/out" | tr '\n' ' ')"
}

# The fake's certificate for 127.0.0.1, its own CA (self-signed), and
# another that signed nothing of it.
command -v openssl >/dev/null || skip "no openssl command"
mkdir -p "$TEST_TMP/tls"
for c in server other; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$TEST_TMP/tls/$c.key" -out "$TEST_TMP/tls/$c.pem" -days 2 \
		-subj "/CN=$c" -addext "subjectAltName=IP:127.0.0.1" \
		2>"$TEST_TMP/openssl.log" || fail "openssl req: $(tail -n 3 "$TEST_TMP/openssl.log")"
done
CA=$TEST_TMP/tls/server.pem

fault none 0 6 0 0 0 ""
fault login 0 6 0 0 0 ""
fault login.plain 1 0 0 0 6 "local protocol: 6" --auth plain
fault greet421 1 0 6 0 0 "code 421: 6|esc 4.3.2: 6"
fault ehlo554 1 0 0 6 0 "code 554: 6|esc 5.5.0: 6"
fault auth535 1 0 0 6 0 "code 535: 6|esc 5.7.8: 6"
fault auth454 1 0 6 0 0 "code 454: 6|esc 4.7.0: 6"
fault mail451 1 0 6 0 0 "code 451: 6|esc 4.3.0: 6"
fault close421 1 0 6 0 0 "code 421: 6|esc 4.4.2: 6"
fault rcpt550 1 3 0 3 0 "code 550: 3|esc 5.1.1: 3"
fault data554 1 0 0 6 0 "code 554: 6|esc 5.5.1: 6"
fault dot451 1 0 6 0 0 "code 451: 6|esc 4.3.0: 6"
fault dot554 1 0 0 6 0 "code 554: 6|esc 5.6.0: 6"
fault stall 1 0 0 0 6 "local timeout: 6"
fault tls 0 6 0 0 0 "" --starttls "$CA"
grep -qvx 'accepted 2 tls' "$(ls -d "$TEST_TMP"/tls.*/log)" &&
	fail "tls: a message not over TLS: $(cat "$TEST_TMP"/tls.*/log)"
fault none.notls 1 0 0 0 6 "local protocol: 6" --starttls "$CA"
fault tls454 1 0 6 0 0 "code 454: 6|esc 4.7.0: 6" --starttls "$CA"
fault tls.badca 1 0 0 0 6 "local protocol: 6" --starttls "$TEST_TMP/tls/other.pem"
