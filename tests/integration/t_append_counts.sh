#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# What imapstress says it appended is what the server stored, exactly, for
# every mail format: for maildir, sdbox and mdbox, the seed line of the
# imaptest mailing-list benchmark
#   (a) one message per APPEND, 30 clients over users t1..t30
#   (b) the same with 100 clients over t1..t100
#   (c) the seed line as written (append=100: MULTIAPPEND, one user; 30
#       clients, 10 against Cyrus)
# each against a fresh private Dovecot, comparing the JSON summary's APPEND
# ok count and messages_appended with `dovecot-private count-all`.  The
# three formats run side by side to keep the wall time down.  With
# IMAP_SERVER=cyrus (t_cyrus_append_counts.sh) the same three cases run
# against Cyrus, counted by `cyrus-private count-all`.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

# Debian's python3 if present: a version-manager shim in PATH is slow.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

# Dovecot: each mail format; Cyrus has one (t_cyrus_append_counts.sh).
# Cyrus takes one mailbox lock per APPEND of 31 messages: 30 clients on
# one INBOX wait up to 20 s each (by hand, plain build), past the grace
# time under ASan, so (c) runs 10 clients there.
case $IMAP_SERVER in
dovecot) FORMATS="maildir sdbox mdbox" C_CLIENTS=30 ;;
*) FORMATS=$IMAP_SERVER C_CLIENTS=10 ;;
esac
CASES="a b c"
SEED_LINE="- seed=1 secs=3 msgs=1000000 logout=0 select=0"

case_args() {
	case $1 in
	a) echo "$SEED_LINE append=100,0 clients=30 user=t%d users=1-30" ;;
	b) echo "$SEED_LINE append=100,0 clients=100 user=t%d users=1-100" ;;
	c) echo "- append=100 seed=1 secs=3 msgs=1000000 logout=0 select=0 clients=$C_CLIENTS" ;;
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

# Dovecot 2.3 panics ("fcntl(.../dovecot.list.index.log or, for mdbox,
# .../storage/dovecot.map.index.log, write-lock, F_SETLKW) locking failed:
# Resource deadlock avoided") when two sessions of a user create that user's
# mail storage at the same moment; its client sees a reset and APPEND NO
# [ALREADYEXISTS], and mdbox then rebuilds its indexes, sometimes storing a
# message twice.  Users are picked at random, as imaptest does, so first
# sessions do collide; creating every INBOX beforehand, never with two
# sessions of one user at once, keeps that server bug out of a test about
# imapstress's counting.
cat >"$TEST_TMP/precreate.py" <<'EOF'
import socket, sys, threading

port, password, users = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
failures = []

def precreate(user):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    rfile = sock.makefile("rb")

    def tagged(tag):
        while True:
            l = rfile.readline().decode("utf-8", "replace")
            if not l:
                raise RuntimeError("%s: server closed the connection" % user)
            if l.startswith(tag + " "):
                if not l.startswith(tag + " OK"):
                    raise RuntimeError("%s: %s failed: %s" % (user, tag, l.strip()))
                return

    if not rfile.readline().startswith(b"* OK"):
        raise RuntimeError("%s: bad greeting" % user)
    sock.sendall(b"a LOGIN %s %s\r\nb SELECT INBOX\r\nc LOGOUT\r\n"
                 % (user.encode(), password.encode()))
    for tag in "abc":
        tagged(tag)
    sock.close()

# A few threads, each with its own users: never two sessions of one user.
def worker(mine):
    for user in mine:
        try:
            precreate(user)
        except Exception as e:
            failures.append(str(e))

threads = [threading.Thread(target=worker, args=(users[i::4],)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if failures:
    sys.exit("; ".join(failures[:5]))
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

# One fresh server per format and case, so count-all sees only that run.
# --fsync no: what the server counts does not depend on fsync, and it
# keeps maildir's multi-second MULTIAPPEND drain short.
declare -A dirs ports
for fmt in $FORMATS; do
	for c in $CASES; do
		server_start --format "$fmt" --fsync no
		dirs[$fmt/$c]=$SERVER_DIR
		ports[$fmt/$c]=$SERVER_PORT
	done
done

# Runs the given cases of one format, one after the other; results land in
# files that the main shell checks afterwards.
run_cases() {
	local fmt=$1 c out rc t0 t1 t2 t3
	shift
	for c in "$@"; do
		out=$TEST_TMP/$fmt-$c
		t0=$EPOCHREALTIME
		# shellcheck disable=SC2046
		run_with_timeout 60 "$PYTHON" "$TEST_TMP/precreate.py" "${ports[$fmt/$c]}" \
			"$SERVER_PASS" $(case_users "$c") >"$out.pre" 2>&1 ||
			echo "precreate failed: $(cat "$out.pre")" >"$out.pre"
		t1=$EPOCHREALTIME
		rc=0
		# shellcheck disable=SC2046
		USER=$SEED_USER run_with_timeout 60 "$IMAPSTRESS" port="${ports[$fmt/$c]}" \
			$(case_args "$c") --json "$out.json" >"$out.stdout" 2>"$out.stderr" || rc=$?
		echo "$rc" >"$out.rc"
		t2=$EPOCHREALTIME
		run_with_timeout 60 "$SERVER_PRIVATE" count-all --dir "${dirs[$fmt/$c]}" \
			>"$out.count" 2>"$out.count.err" || true
		t3=$EPOCHREALTIME
		# Where the time goes, for whoever has to make CI faster.
		awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
			printf "precreate %.1f s, run %.1f s, count-all %.1f s\n", b - a, c - b, d - c }' \
			>"$out.times"
	done
}

# Side by side: the formats (each running its cases in turn), or against
# Cyrus, which has one, the cases.
pids=()
for fmt in $FORMATS; do
	if [ "$IMAP_SERVER" = dovecot ]; then
		# shellcheck disable=SC2086
		run_cases "$fmt" $CASES &
		pids+=($!)
		continue
	fi
	for c in $CASES; do
		run_cases "$fmt" "$c" &
		pids+=($!)
	done
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
		note "$fmt ($c): APPEND ok $ok, messages_appended $msgs, server $server ($(cat "$out.times"))"
		assert_eq 0 "$errs" "$what: errors (stderr: $(head -n 5 "$out.stderr"))"
		assert_eq 0 "$failed" "$what: APPEND no+bad+failed"
		assert_eq 0 "$status" "$what: exit_status in the summary"
		assert_ge "$ok" 1 "$what: APPEND ok"
		assert_eq "$server" "$msgs" "$what: messages_appended vs the server's count"
		assert_match "^messages appended: $msgs( |\$)" "$(cat "$out.stdout")" \
			"$what: text summary"
		if [ "$c" = c ]; then
			# Both servers advertise MULTIAPPEND and every planned state is
			# APPEND: commands carry many messages each.
			assert_ge "$msgs" $((ok * 10)) \
				"$what: messages per APPEND command (ok=$ok) should average >= 10"
		else
			assert_eq "$ok" "$msgs" "$what: one message per APPEND command"
		fi
	done
done

note "ok"
