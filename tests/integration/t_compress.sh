#!/bin/bash
# COMPRESS=DEFLATE (RFC 4978) against a private Dovecot, which loads
# imap_zlib: a fetch-heavy run over ~300 messages, without and with
# `compress`.  Both pass with no errors; with compress every session's
# COMPRESS is answered OK and fewer octets cross the wire than the IMAP
# layer received; without, the wire and IMAP counts are the same.  Then
# once more over STARTTLS, where the deflate layer sits above TLS.  Last,
# scripted tests with compress (scripts_compress.sh): the octets on the
# wire after each connection's COMPRESS are a DEFLATE stream both ways.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"
# shellcheck source=SCRIPTDIR/scripts_compress.sh
. "$(dirname "$0")/scripts_compress.sh"

# Debian's python3 if present: a version-manager shim in PATH is slow.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" openssl
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

# summary FILE PATH... and stress NAME ARGS... come from tests/lib.sh.

# expect_clean NAME WHAT: exit 0, no errors of any kind, FETCHes answered.
expect_clean() {
	local name=$1 what=$2
	[ "$RC" = 0 ] || fail "$what: exit $RC; stderr: $(head -n 10 "$TEST_TMP/$name.err")"
	summary "$TEST_TMP/$name.json" exit_status errors commands.FETCH.ok unfinished
	assert_eq 0 "${S[0]}" "$what: exit_status in the summary"
	assert_eq 0 "${S[1]}" "$what: errors of all kinds (stderr: $(head -n 5 "$TEST_TMP/$name.err"))"
	assert_ge "${S[2]}" 1 "$what: FETCH ok"
	assert_eq 0 "${S[3]}" "$what: unfinished commands"
}

USER_NAME=compressuser
FETCH_WORDS="- select=100 fetch=100 fet2=100 logout=0 clients=5 secs=3"

server_start --tls --fsync no
note "$IMAP_SERVER: port $SERVER_PORT"

# Fill the mailbox: a second of APPENDs at a time until ~300 messages.
count=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	stress fill "port=$SERVER_PORT" "user=$USER_NAME" - append=100,0 select=0 logout=0 \
		clients=3 secs=1
	[ "$RC" = 0 ] || fail "filling the mailbox: exit $RC; stderr: $(head -n 10 "$TEST_TMP/fill.err")"
	count=$(run_with_timeout 30 "$SERVER_PRIVATE" count --dir "$SERVER_DIR" "$USER_NAME") ||
		fail "$IMAP_SERVER count failed"
	[ "$count" -lt 300 ] || break
done
assert_ge "$count" 300 "messages in the mailbox after filling"
note "mailbox holds $count messages"

# shellcheck disable=SC2086
stress plain "port=$SERVER_PORT" "user=$USER_NAME" $FETCH_WORDS
expect_clean plain "fetch run without compress"
summary "$TEST_TMP/plain.json" bytes.sent bytes.imap_sent bytes.received bytes.imap_received \
	commands.COMPRESS.ok
note "without compress: wire received ${S[2]}, IMAP received ${S[3]}"
assert_eq "${S[1]}" "${S[0]}" "without compress: wire bytes sent vs IMAP octets sent"
assert_eq "${S[3]}" "${S[2]}" "without compress: wire bytes received vs IMAP octets received"
assert_eq 0 "${S[4]}" "without compress: COMPRESS commands"
plain_received=${S[2]}

# shellcheck disable=SC2086
stress deflate "port=$SERVER_PORT" "user=$USER_NAME" compress $FETCH_WORDS
expect_clean deflate "fetch run with compress"
summary "$TEST_TMP/deflate.json" bytes.sent bytes.imap_sent bytes.received bytes.imap_received \
	commands.COMPRESS.ok logins
ratio=$(awk -v w="${S[2]}" -v i="${S[3]}" 'BEGIN { printf "%.3f", i ? w / i : 0 }')
note "with compress: wire received ${S[2]}, IMAP received ${S[3]} (wire/IMAP $ratio;" \
	"plain run received $plain_received)"
assert_ge "${S[4]}" 1 "with compress: COMPRESS ok"
assert_eq "${S[5]}" "${S[4]}" "with compress: one COMPRESS OK per login"
assert_ge "${S[3]}" 1 "with compress: IMAP octets received"
[ "${S[2]}" -lt "${S[3]}" ] ||
	fail "with compress: wire bytes received ${S[2]} should be below the IMAP octets received ${S[3]}"

# STARTTLS, then COMPRESS above TLS.
# shellcheck disable=SC2086
stress tlsdeflate --starttls --ca-file "$SERVER_CA" "port=$SERVER_PORT" "user=$USER_NAME" \
	compress $FETCH_WORDS
expect_clean tlsdeflate "STARTTLS + compress"
summary "$TEST_TMP/tlsdeflate.json" tls.handshakes commands.COMPRESS.ok bytes.received \
	bytes.imap_received
note "STARTTLS + compress: ${S[0]} handshakes, COMPRESS ok ${S[1]}," \
	"wire received ${S[2]}, IMAP received ${S[3]}"
assert_ge "${S[0]}" 1 "STARTTLS + compress: TLS handshakes"
assert_ge "${S[1]}" 1 "STARTTLS + compress: COMPRESS ok"
[ "${S[2]}" -lt "${S[3]}" ] ||
	fail "STARTTLS + compress: wire bytes received ${S[2]} should be below the IMAP octets received ${S[3]}"

scripts_compress_check

note "ok"
