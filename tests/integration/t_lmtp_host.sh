#!/bin/bash
# Each protocol its own endpoint: IMAP through a TCP proxy on 127.0.0.2
# (as a proxy in front of IMAP), LMTP straight to the private Dovecot on
# 127.0.0.1 with lmtp_host.  Dovecot listens on 127.0.0.1 only, so LMTP
# at the IMAP host's address is refused: a run without lmtp_host has every
# delivery failed (connect); with lmtp_host = 127.0.0.1, and again with
# --lmtp-host over a profile without the key, every delivery is 250 and
# the server's INBOX counts equal what each run delivered per user
# (nothing is deleted or moved).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
dovecot_lmtp_start

# The proxy: 127.0.0.2:free port -> Dovecot's IMAP; its port in a file.
"$PY" - "$DOVECOT_PORT" "$TEST_TMP/proxy.port" <<'PYEOF' &
import os, socket, sys, threading
srv = socket.socket()
srv.bind(("127.0.0.2", 0))
srv.listen(64)
tmp = sys.argv[2] + ".tmp"
open(tmp, "w").write("%d\n" % srv.getsockname()[1])
os.rename(tmp, sys.argv[2])
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
PYEOF
proxy=$!
on_exit "stop_bg $proxy"
for _ in $(seq 1 100); do
	[ -s "$TEST_TMP/proxy.port" ] && break
	sleep 0.05
done
[ -s "$TEST_TMP/proxy.port" ] || fail "the proxy wrote no port"
PROXY_PORT=$(cat "$TEST_TMP/proxy.port")

# profile FILE [KEY LINE]: 4 users who only receive mail, in IDLE.
profile() {
	cat >"$1" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
${2:-}
total_user_count = 4
rampup_time = 0

user rcv {
  count = 100%
  username_format = hostu%n
  mail_inbox_delivery_interval = 500ms
  mail_spam_delivery_interval = 0
  mail_send_interval = 0
  mail_action_delay = 100ms
  mail_inbox_reply_percentage = 0
  mail_inbox_delete_percentage = 0
  mail_inbox_move_percentage = 0
}

client idle {
  count = 100%
  imap_idle = yes
}
PROFILE
}
profile "$TEST_TMP/host.profile" "lmtp_host = 127.0.0.1"
profile "$TEST_TMP/nohost.profile"

# run NAME PROFILE [ARGS]: 4 s through the proxy; RC, NAME.json, NAME.counts.
run() {
	local name=$1 p=$2
	shift 2
	RC=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$p" --host 127.0.0.2 \
		--port "$PROXY_PORT" --duration 4 --seed 1 \
		--profile-counts "$TEST_TMP/$name.counts" --json "$TEST_TMP/$name.json" \
		"$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || RC=$?
}
# lmtp FILE: "ok failed connect-failures" of the run's LMTP recipients.
lmtp() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][0]
l = s["profile"]["lmtp"]
print(l["ok"], l["tempfail"] + l["permfail"] + l["no_reply"],
      l["no_reply_by_kind"]["connect"])
PYEOF
}

run nohost "$TEST_TMP/nohost.profile"
read -r ok failed connect <<<"$(lmtp "$TEST_TMP/nohost.json")" || fail "unreadable JSON (nohost)"
assert_eq 0 "$ok" "deliveries ok with LMTP at the IMAP host (127.0.0.2)"
assert_ge "$connect" 1 "deliveries refused at connect without lmtp_host"
assert_eq "$failed" "$connect" "every failed delivery failed at connect"
note "nohost: $connect deliveries refused at connect (LMTP at 127.0.0.2), none ok"

total=0
for name in host cli; do
	if [ "$name" = host ]; then
		run host "$TEST_TMP/host.profile"
	else
		run cli "$TEST_TMP/nohost.profile" --lmtp-host 127.0.0.1
	fi
	assert_eq 0 "$RC" "$name: exit status (stderr: $(tail -n 3 "$TEST_TMP/$name.err"))"
	read -r ok failed connect <<<"$(lmtp "$TEST_TMP/$name.json")" || fail "unreadable JSON ($name)"
	assert_ge "$ok" 4 "$name: deliveries ok"
	assert_eq 0 "$failed" "$name: failed deliveries"
	total=$((total + ok))
	note "$name: $ok deliveries ok over LMTP at 127.0.0.1, IMAP through 127.0.0.2"
done

# The server holds what the two good runs delivered, per user.
"$PY" - "$TEST_TMP/host.counts" "$TEST_TMP/cli.counts" >"$TEST_TMP/expected" <<'PYEOF'
import json, sys
n = {}
for path in sys.argv[1:]:
    for u in json.load(open(path))["users"]:
        n[u["user"]] = n.get(u["user"], 0) + u["delivered"]["INBOX"]
for user in sorted(n):
    print(user, "INBOX", n[user])
PYEOF
assert_eq "$total" "$(awk '{ s += $3 } END { print s }' "$TEST_TMP/expected")" \
	"deliveries ok = the counts files' INBOX deliveries"
why=$(dovecot_counts_match <"$TEST_TMP/expected") || fail "server and runs disagree: $why"
