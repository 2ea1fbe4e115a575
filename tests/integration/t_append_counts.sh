#!/bin/bash
# What imapstress says it appended is what the server stored, exactly, for
# every mail format: for maildir, sdbox and mdbox, the seed line of the
# imaptest mailing-list benchmark
#   (a) one message per APPEND, 30 clients over users t1..t30
#   (b) the same with 100 clients over t1..t100
#   (c) the seed line as written (append=100: MULTIAPPEND, one user)
# each against a fresh private Dovecot, comparing the JSON summary's APPEND
# ok count and messages_appended with `dovecot-private count-all`.  The
# three formats run side by side to keep the wall time down.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

# Debian's python3 if present: a version-manager shim in PATH is slow.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

FORMATS="maildir sdbox mdbox"
CASES="a b c"
SEED_LINE="- seed=1 secs=3 msgs=1000000 logout=0 select=0"

case_args() {
	case $1 in
	a) echo "$SEED_LINE append=100,0 clients=30 user=t%d users=1-30" ;;
	b) echo "$SEED_LINE append=100,0 clients=100 user=t%d users=1-100" ;;
	c) echo "- append=100 seed=1 secs=3 msgs=1000000 logout=0 select=0 clients=30" ;;
	esac
}

# Users a case logs in as.  (c) leaves user= at its default, $USER, which
# we pin so the run does not depend on who runs the test.
SEED_USER=seeduser
case_users() {
	case $1 in
	a) seq -f 't%.0f' 1 30 ;;
	b) seq -f 't%.0f' 1 100 ;;
	c) echo "$SEED_USER" ;;
	esac
}

# Dovecot 2.3's mdbox panics ("fcntl(...map.index.log, write-lock,
# F_SETLKW) locking failed: Resource deadlock avoided") when two sessions of
# the same user create that user's storage at the same moment, and then
# rebuilds its indexes, sometimes storing a message twice.  Users are picked
# at random, as imaptest does, so first sessions collide; creating every
# INBOX beforehand, one session at a time, keeps that server bug out of a
# test about imapstress's counting.
cat >"$TEST_TMP/precreate.py" <<'EOF'
import socket, sys

port, password = int(sys.argv[1]), sys.argv[2]
for user in sys.argv[3:]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    rfile = sock.makefile("rb")

    def tagged(tag):
        while True:
            l = rfile.readline().decode("utf-8", "replace")
            if not l:
                sys.exit("%s: server closed the connection" % user)
            if l.startswith(tag + " "):
                if not l.startswith(tag + " OK"):
                    sys.exit("%s: %s failed: %s" % (user, tag, l.strip()))
                return

    if not rfile.readline().startswith(b"* OK"):
        sys.exit("%s: bad greeting" % user)
    sock.sendall(b"a LOGIN %s %s\r\nb SELECT INBOX\r\nc LOGOUT\r\n"
                 % (user.encode(), password.encode()))
    tagged("a")
    tagged("b")
    tagged("c")
    sock.close()
EOF

# The last line of a --json file must be the summary; prints
# "APPEND-ok messages_appended errors-total APPEND-no+bad+failed exit_status".
summary_fields() {
	"$PYTHON" - "$1" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line of %s is not the summary: %s" % (sys.argv[1], lines[-1][:200]))
a = s["commands"].get("APPEND", {"ok": 0, "no": 0, "bad": 0, "failed": 0})
print(a["ok"], s["messages_appended"], sum(s["errors"].values()),
      a["no"] + a["bad"] + a["failed"], s["exit_status"])
EOF
}

# One fresh Dovecot per format and case, so count-all sees only that run.
# --fsync no: what the server counts does not depend on fsync, and it
# keeps maildir's multi-second MULTIAPPEND drain short.
declare -A dirs ports
for fmt in $FORMATS; do
	for c in $CASES; do
		dovecot_start --format "$fmt" --fsync no
		dirs[$fmt/$c]=$DOVECOT_DIR
		ports[$fmt/$c]=$DOVECOT_PORT
	done
done

# Runs every case of one format, one after the other; results land in
# files that the main shell checks afterwards.
run_format() {
	local fmt=$1 c out
	for c in $CASES; do
		out=$TEST_TMP/$fmt-$c
		if [ "$fmt" = mdbox ]; then
			# shellcheck disable=SC2046
			run_with_timeout 60 "$PYTHON" "$TEST_TMP/precreate.py" "${ports[$fmt/$c]}" \
				"${DOVECOT_PASS:-pass}" $(case_users "$c") >"$out.pre" 2>&1 ||
				echo "precreate failed: $(cat "$out.pre")" >"$out.pre"
		fi
		local rc=0
		# shellcheck disable=SC2046
		USER=$SEED_USER run_with_timeout 60 "$IMAPSTRESS" port="${ports[$fmt/$c]}" \
			$(case_args "$c") --json "$out.json" >"$out.stdout" 2>"$out.stderr" || rc=$?
		echo "$rc" >"$out.rc"
		run_with_timeout 60 "$DOVECOT_PRIVATE" count-all --dir "${dirs[$fmt/$c]}" \
			>"$out.count" 2>"$out.count.err" || true
	done
}

pids=()
for fmt in $FORMATS; do
	run_format "$fmt" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || fail "a runner subshell failed (exit $?)"
done

for fmt in $FORMATS; do
	for c in $CASES; do
		out=$TEST_TMP/$fmt-$c
		what="$fmt ($c) imapstress $(case_args "$c")"
		if [ -s "$out.pre" ]; then
			fail "$fmt ($c): could not create the mailboxes first: $(cat "$out.pre")"
		fi
		rc=$(cat "$out.rc")
		[ "$rc" = 0 ] || fail "$what: exit $rc; stderr: $(head -n 20 "$out.stderr")"
		fields=$(summary_fields "$out.json") || fail "$what: no JSON summary"
		read -r ok msgs errs failed status <<<"$fields"
		server=$(cat "$out.count")
		[ -n "$server" ] || fail "$fmt ($c): count-all failed: $(cat "$out.count.err")"
		note "$fmt ($c): APPEND ok $ok, messages_appended $msgs, server $server"
		assert_eq 0 "$errs" "$what: errors (stderr: $(head -n 5 "$out.stderr"))"
		assert_eq 0 "$failed" "$what: APPEND no+bad+failed"
		assert_eq 0 "$status" "$what: exit_status in the summary"
		assert_ge "$ok" 1 "$what: APPEND ok"
		assert_eq "$server" "$msgs" "$what: messages_appended vs the server's count"
		assert_match "^messages appended: $msgs( |\$)" "$(cat "$out.stdout")" \
			"$what: text summary"
		if [ "$c" = c ]; then
			# Dovecot advertises MULTIAPPEND and every planned state is
			# APPEND: commands carry many messages each.
			assert_ge "$msgs" $((ok * 10)) \
				"$what: messages per APPEND command (ok=$ok) should average >= 10"
		else
			assert_eq "$ok" "$msgs" "$what: one message per APPEND command"
		fi
	done
done

note "ok"
