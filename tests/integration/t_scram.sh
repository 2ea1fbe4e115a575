#!/bin/bash
# Issue 12 item 5: mech=scram-sha-1 and mech=SCRAM-SHA-256 (any case) log in
# to a private Dovecot that stores the password as a SCRAM hash (so the
# server really checks our proof against stored keys), the rawlog shows the
# mechanism, the server's signature is checked (a Python server that
# signs wrongly is an error), and an unknown mechanism is one clear line
# naming the ones that exist.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}" "${DOVEADM:-doveadm}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

# scram_run SCHEME MECH: one short run against a Dovecot storing SCHEME.
scram_run() {
	local scheme=$1 mech=$2 rc=0 d
	dovecot_start --fsync no --scram "$scheme"
	d=$(make_tmpdir)
	run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=sc%d users=1-2 \
		clients=2 secs=2 mech="$mech" rawlog --rawlog-dir "$d" \
		--json "$TEST_TMP/$mech.json" >"$TEST_TMP/$mech.out" \
		2>"$TEST_TMP/$mech.err" || rc=$?
	assert_eq 0 "$rc" "mech=$mech against {$scheme} (stderr: $(head -n 3 "$TEST_TMP/$mech.err"))"
	summary "$TEST_TMP/$mech.json" commands.LOGIN.ok commands.LOGIN.no errors
	note "{$scheme} mech=$mech: LOGIN ok=${S[0]} no=${S[1]} errors=${S[2]}"
	assert_ge "${S[0]}" 2 "logins with mech=$mech"
	assert_eq 0 "${S[1]}" "refused logins with mech=$mech"
	assert_eq 0 "${S[2]}" "errors with mech=$mech"
	local want
	want=$(printf '%s' "$mech" | tr a-z A-Z)
	grep -qh "AUTHENTICATE $want <secret redacted>" "$d"/* ||
		fail "no 'AUTHENTICATE $want' in the rawlogs: $(grep -h AUTHENTICATE "$d"/* | head -n 2)"
	# The mechanism is the login command: one Logi column, no Auth.
	assert_eq "Logi List Stat Sele Fetc Fet2 Stor Dele Expu Appe Logo " \
		"$(sed -n 1p "$TEST_TMP/$mech.out")" "header with mech=$mech"
	dovecot_stop
}
scram_run SCRAM-SHA-1 scram-sha-1
scram_run SCRAM-SHA-256 SCRAM-SHA-256
scram_run PLAIN Scram-Sha-256

# A server whose signature is wrong: it answers with a well-formed
# server-first (our nonce extended) and a server-final signed with the
# wrong key.  The login must not count, and the error must say why.
port_file=$TEST_TMP/evil.port
"$PYTHON" - "$port_file" <<'PYEOF' &
import base64, socket, socketserver, sys

class H(socketserver.StreamRequestHandler):
    def handle(self):
        w = lambda s: (self.wfile.write(s.encode() + b"\r\n"), self.wfile.flush())
        w("* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=SCRAM-SHA-256] evil")
        for raw in self.rfile:
            parts = raw.decode(errors="replace").strip().split(" ")
            tag, cmd = parts[0], parts[1].upper() if len(parts) > 1 else ""
            if cmd == "AUTHENTICATE" and len(parts) > 3:
                first = base64.b64decode(parts[3]).decode()
                nonce = first.split("r=", 1)[1]
                sf = "r=%sSERVER,s=QSXCR+Q6sek8bf92,i=4096" % nonce
                w("+ " + base64.b64encode(sf.encode()).decode())
                self.rfile.readline()           # client-final
                w("+ " + base64.b64encode(b"v=" + base64.b64encode(b"x" * 32)).decode())
                if self.rfile.readline().strip() == b"":
                    w(tag + " OK logged in")
            elif cmd == "LOGOUT":
                w("* BYE"); w(tag + " OK"); return
            else:
                w(tag + " BAD unexpected")

class S(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

srv = S(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(srv.server_address[1]))
srv.serve_forever()
PYEOF
evil_pid=$!
on_exit "stop_bg $evil_pid"
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.05; done
[ -s "$port_file" ] || fail "the Python SCRAM server did not start"
rc=0
run_with_timeout 30 "$IMAPSTRESS" port="$(cat "$port_file")" user=e clients=1 secs=1 \
	mech=scram-sha-256 --json "$TEST_TMP/evil.json" >"$TEST_TMP/evil.out" \
	2>"$TEST_TMP/evil.err" || rc=$?
[ "$rc" != 0 ] || fail "a wrong server signature left the exit status 0"
# A crash is no verdict: the run itself must have ended normally.
assert_eq 3 "$rc" "exit status for a wrong signature (nobody got in) (stderr: $(grep -m 3 -i 'sanitizer\|runtime error\|signature' "$TEST_TMP/evil.err"))"
grep -q 'server signature mismatch' "$TEST_TMP/evil.err" ||
	fail "no 'server signature mismatch' on stderr: $(head -n 3 "$TEST_TMP/evil.err")"
summary "$TEST_TMP/evil.json" errors.protocol commands.LOGIN.ok
note "wrong signature: exit $rc, protocol errors ${S[0]}, LOGIN ok ${S[1]}"
assert_ge "${S[0]}" 1 "protocol errors for a wrong signature"
assert_eq 0 "${S[1]}" "logins counted with a wrong signature"

rc=0
run_with_timeout 10 "$IMAPSTRESS" port=1 mech=cram-md5 secs=1 >/dev/null 2>"$TEST_TMP/u.err" || rc=$?
assert_eq 2 "$rc" "exit status for mech=cram-md5"
assert_eq 1 "$(wc -l <"$TEST_TMP/u.err")" "lines for mech=cram-md5"
assert_match '^.*mech=cram-md5: unknown mechanism \(imapstress has LOGIN, PLAIN, SCRAM-SHA-1 and SCRAM-SHA-256\)$' \
	"$(cat "$TEST_TMP/u.err")" "message for mech=cram-md5"
note ok
