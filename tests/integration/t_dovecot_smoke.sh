#!/bin/bash
# The private Dovecot works for every mail format, side by side: a tiny
# IMAP client APPENDs 3 messages and `dovecot-private count` reads them back
# from storage; --tls serves a certificate that verifies against the CA it
# prints, on the implicit-TLS port and via STARTTLS.  Exercises only the
# scripts, not imapstress.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

# Debian's python3 if present: a version-manager shim in PATH is slow.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" openssl "${DOVECOT:-/usr/sbin/dovecot}"

# LOGIN, APPEND N small messages to INBOX (synchronizing literals, so it
# waits for each "+" as a strict client must), LOGOUT.  Exits non-zero naming
# the first reply that is not what it should be.
cat >"$TEST_TMP/imap_append.py" <<'EOF'
import socket, sys

port, user, password, count = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
sock = socket.create_connection(("127.0.0.1", port), timeout=10)
rfile = sock.makefile("rb")

def line():
    l = rfile.readline()
    if not l:
        sys.exit("server closed the connection")
    return l.decode("utf-8", "replace").rstrip("\r\n")

def tagged(tag):
    while True:
        l = line()
        if l.startswith(tag + " "):
            if not l.startswith(tag + " OK"):
                sys.exit("%s failed: %s" % (tag, l))
            return

greeting = line()
if not greeting.startswith("* OK"):
    sys.exit("bad greeting: " + greeting)
sock.sendall(b"a1 LOGIN %s %s\r\n" % (user.encode(), password.encode()))
tagged("a1")
for i in range(count):
    body = ("From: smoke@example.invalid\r\nTo: %s@example.invalid\r\n"
            "Subject: smoke %d\r\nMessage-ID: <smoke-%d-%s@imapstress>\r\n"
            "\r\nbody %d\r\n" % (user, i, i, user, i)).encode()
    tag = "b%d" % i
    sock.sendall(b"%s APPEND INBOX {%d}\r\n" % (tag.encode(), len(body)))
    l = line()
    if not l.startswith("+"):
        sys.exit("%s: no continuation for the literal: %s" % (tag, l))
    sock.sendall(body + b"\r\n")
    tagged(tag)
sock.sendall(b"z LOGOUT\r\n")
tagged("z")
EOF
imap_append() {
	run_with_timeout 30 "$PYTHON" "$TEST_TMP/imap_append.py" "$@"
}

count() {
	run_with_timeout 30 "$DOVECOT_PRIVATE" count --dir "$1" "$2"
}

# Bad arguments fail fast with a message naming the problem.
out=$("$DOVECOT_PRIVATE" start --format mbox 2>&1) && fail "start accepted --format mbox"
assert_match "format 'mbox'" "$out" "bad --format message"
out=$("$DOVECOT_PRIVATE" start --fsync maybe 2>&1) && fail "start accepted --fsync maybe"
assert_match "fsync 'maybe'" "$out" "bad --fsync message"
out=$("$DOVECOT_PRIVATE" stop --dir "$TEST_TMP" 2>&1) && fail "stop accepted a foreign directory"
assert_match "not a private Dovecot directory" "$out" "stop refuses foreign dirs"

# One instance per format, all running at once.
declare -A dirs ports
for fmt in maildir sdbox mdbox; do
	dovecot_start --format "$fmt" --fsync no
	dirs[$fmt]=$DOVECOT_DIR
	ports[$fmt]=$DOVECOT_PORT
	note "$fmt: port $DOVECOT_PORT, dir $DOVECOT_DIR"
	assert_match '^DOVECOT_PORT=' "$("$DOVECOT_PRIVATE" env --dir "$DOVECOT_DIR")" "env reprints"
done
if [ "${ports[maildir]}" = "${ports[sdbox]}" ] || [ "${ports[sdbox]}" = "${ports[mdbox]}" ] ||
	[ "${ports[maildir]}" = "${ports[mdbox]}" ]; then
	fail "instances share a port: ${ports[*]}"
fi

for fmt in maildir sdbox mdbox; do
	d=${dirs[$fmt]}
	assert_match '^running' "$("$DOVECOT_PRIVATE" status --dir "$d")" "$fmt status"
	assert_match "^mail_location = $fmt:" "$(cat "$d/dovecot.conf")" "$fmt mail_location"
	imap_append "${ports[$fmt]}" test1 pass 3 || fail "$fmt: IMAP APPEND session failed"
	assert_eq 3 "$(count "$d" test1)" "$fmt: messages of test1"
	assert_eq 0 "$(count "$d" test2)" "$fmt: messages of test2"
	assert_eq 3 "$(run_with_timeout 30 "$DOVECOT_PRIVATE" count-all --dir "$d")" "$fmt: count-all"
done

# A wrong password is refused (the static passdb is not "anything goes").
if imap_append "${ports[maildir]}" test1 wrong 1 2>/dev/null; then
	fail "LOGIN with a wrong password succeeded"
fi

for fmt in maildir sdbox mdbox; do
	d=${dirs[$fmt]}
	pid=$(cat "$d/run/master.pid")
	dovecot_stop "$d"
	[ ! -e "$d" ] || fail "$fmt: stop left $d behind"
	[ ! -e "/proc/$pid" ] || [ "$(cut -d' ' -f3 "/proc/$pid/stat")" = Z ] ||
		fail "$fmt: master $pid still running after stop"
done

# TLS: implicit on DOVECOT_TLS_PORT, STARTTLS on DOVECOT_PORT, both verified
# against DOVECOT_CA for the IP and the name the certificate claims.
dovecot_start --tls
if [ -z "${DOVECOT_TLS_PORT:-}" ] || [ ! -f "${DOVECOT_CA:-}" ]; then
	fail "--tls printed no DOVECOT_TLS_PORT/DOVECOT_CA"
fi
[ "$DOVECOT_TLS_PORT" != "$DOVECOT_PORT" ] || fail "TLS port equals the plain port"
out=$(printf 'a1 LOGOUT\n' | run_with_timeout 30 openssl s_client -connect "127.0.0.1:$DOVECOT_TLS_PORT" \
	-CAfile "$DOVECOT_CA" -verify_return_error -verify_ip 127.0.0.1 -crlf -ign_eof 2>&1) ||
	fail "openssl s_client to the implicit TLS port failed: $out"
assert_match 'Verify return code: 0 \(ok\)' "$out" "implicit TLS certificate verifies"
assert_match '^\* OK .*ready' "$out" "greeting over implicit TLS"
assert_match '^a1 OK' "$out" "LOGOUT over implicit TLS"
out=$(printf 'a1 LOGOUT\n' | run_with_timeout 30 openssl s_client -connect "127.0.0.1:$DOVECOT_PORT" \
	-starttls imap -CAfile "$DOVECOT_CA" -verify_return_error -verify_hostname localhost \
	-crlf -ign_eof 2>&1) || fail "openssl s_client STARTTLS failed: $out"
assert_match 'Verify return code: 0 \(ok\)' "$out" "STARTTLS certificate verifies"
assert_match '^a1 OK' "$out" "LOGOUT after STARTTLS"
imap_append "$DOVECOT_PORT" test1 pass 1 || fail "plaintext LOGIN refused with --tls"
assert_eq 1 "$(count "$DOVECOT_DIR" test1)" "messages of test1 with --tls"
dovecot_stop

note "ok"
