#!/bin/bash
# imaptest's default mix against a real Dovecot finds no mailbox-state
# errors (issue 3, "must show" 1): no state words, COPY on, 50 clients over
# 20 users, so sessions of one user race each other's EXPUNGEs, STOREs and
# APPENDs -- and a correct server must still never trip a check of
# src/model/mbox_model.h.
#   run 1: copybox=Copies clients=50 users=1-20 user=mix%d for at least
#          MIX_SECS and until every default state (LOGIN LIST STATUS SELECT
#          FETCH FETCH2 COPY STORE DELETE EXPUNGE APPEND LOGOUT) was
#          answered OK at least once (then SIGTERM; CP_CAP s fails the
#          test): exit 0, errors.state 0.  Not secs= alone: the mailboxes
#          start empty, so the first round of 50 sessions has nothing to
#          COPY and each user's first COPY is answered TRYCREATE; under
#          ASan against Cyrus 10 s held 76 sessions and no COPY answered OK.
#   run 2: the same plus checkpoint=5, run until its JSON ticks show two
#          checkpoints that compared sessions and every default state
#          answered OK twice (then SIGTERM; a hang cap of
#          CP_CAP s fails the test): exit 0, errors.state 0, the summary's
#          "checkpoints" >= 2 (views compared at least twice, all clean),
#          commands["CHECKPOINT!"].ok (the sessions those clean checkpoints
#          checked) >= "checkpoints", every default state answered OK.
#          Not secs=: on a busy machine few sessions have a mailbox
#          selected at 5 s and the second checkpoint may not finish before
#          a fixed end, so a time-bound run only measured the machine.
#   run 3: the default mix (without COPY) with qresync (issue 11),
#          qresync clients=30 users=1-2 user=mix%d secs=QR_SECS,
#          so VANISHED replies race APPENDs: exit 0, errors.state 0, and no
#          command answered NO or BAD
# MIX_SECS defaults to 10 to keep CI short; the issue asks for 30
# (MIX_SECS=30 tests/run-all default_mix).  QR_SECS (default 5) is run 3's
# length; issue 11 asks for 20.  With IMAP_SERVER=cyrus
# (t_cyrus_default_mix.sh) the same runs go against Cyrus.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

MIX_SECS=${MIX_SECS:-10}
case $MIX_SECS in
'' | *[!0-9]* | 0) fail "MIX_SECS '$MIX_SECS' is not a positive number of seconds" ;;
esac
CP_CAP=180
QR_SECS=${QR_SECS:-5}
case $QR_SECS in
'' | *[!0-9]* | 0) fail "QR_SECS '$QR_SECS' is not a positive number of seconds" ;;
esac
USERS=20
MIX=(copybox=Copies clients=50 "users=1-$USERS" user=mix%d)
DEFAULT_STATES="LOGIN LIST STATUS SELECT FETCH FETCH2 COPY STORE DELETE EXPUNGE APPEND LOGOUT"

server_start --fsync no
note "$IMAP_SERVER on port $SERVER_PORT, dir $SERVER_DIR"

# Dovecot 2.3 panics when two sessions of one user create that user's mail
# storage at the same moment (see t_append_counts.sh): create every user's
# INBOX first, one session per user at a time, so the runs see only
# ordinary concurrency.  Copies is left to imapstress (COPY's TRYCREATE).
cat >"$TEST_TMP/precreate.py" <<'EOF'
import socket, sys

port, password, users = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
for user in users:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    rfile = sock.makefile("rb")
    if not rfile.readline().startswith(b"* OK"):
        sys.exit("%s: bad greeting" % user)
    sock.sendall(b"a LOGIN %s %s\r\nb SELECT INBOX\r\nc LOGOUT\r\n"
                 % (user.encode(), password.encode()))
    for tag in (b"a", b"b", b"c"):
        while True:
            line = rfile.readline()
            if not line:
                sys.exit("%s: connection closed before %s's reply" % (user, tag.decode()))
            if line.startswith(tag + b" "):
                if not line.startswith(tag + b" OK"):
                    sys.exit("%s: %s" % (user, line.decode("utf-8", "replace").strip()))
                break
    sock.close()
EOF
# shellcheck disable=SC2046
run_with_timeout 60 "$PYTHON" "$TEST_TMP/precreate.py" "$SERVER_PORT" \
	"$SERVER_PASS" $(seq -f 'mix%.0f' 1 "$USERS") ||
	fail "could not create the users' mailboxes beforehand"

# summary FILE: "exit_status state_errors checkpoints duration_s"
# (checkpoints "-" without checkpoint=) then "NAME ok no+bad" per command.
summary() {
	"$PYTHON" - "$1" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line of %s is not the summary: %s" % (sys.argv[1], lines[-1][:200]))
print(s["exit_status"], s["errors"]["state"], s.get("checkpoints", "-"),
      s["duration_s"])
for name, c in s["commands"].items():
    print(name, c["ok"], c["no"] + c["bad"])
EOF
}

# run NAME SECS ARGS...: one imapstress run, files $TEST_TMP/NAME.*; the
# words of MIX come first unless NOMIX=1.
run() {
	local name=$1 secs=$2 rc=0 mix=("${MIX[@]}")
	shift 2
	[ "${NOMIX:-0}" = 0 ] || mix=()
	run_with_timeout $((secs + 30)) "$IMAPSTRESS" port="$SERVER_PORT" \
		"${mix[@]}" "secs=$secs" "$@" --json "$TEST_TMP/$name.json" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	echo "$rc" >"$TEST_TMP/$name.rc"
	# The Totals count row, for the log (and for whoever runs MIX_SECS=30).
	note "$name ($secs s) totals: $(awk '/^Totals:/ { t = NR }
		t && (NR == t + 1 || NR == t + 4) { printf "%s | ", $0 }' "$TEST_TMP/$name.out")"
}

# check NAME: exit 0, no state error, a summary; leaves NAME.sum.
check() {
	local name=$1 rc status state
	rc=$(cat "$TEST_TMP/$name.rc")
	summary "$TEST_TMP/$name.json" >"$TEST_TMP/$name.sum" ||
		fail "$name: no JSON summary; stderr: $(head -n 10 "$TEST_TMP/$name.err")"
	read -r status state _ _ <"$TEST_TMP/$name.sum"
	assert_eq 0 "$state" "$name: errors.state (stderr: $(grep -m 10 '^Error' "$TEST_TMP/$name.err"))"
	assert_eq 0 "$rc" "$name: exit status (stderr: $(grep -m 10 -E '^(Error|Warning)' "$TEST_TMP/$name.err"))"
	assert_eq 0 "$status" "$name: exit_status in the JSON summary"
}

ok_of() {
	awk -v k="$2" 'NR > 1 && $1 == k { print $2; f = 1 } END { if (!f) print 0 }' \
		"$TEST_TMP/$1.sum"
}

UNTIL_MIN_SECS=$MIX_SECS stress_until mix "$CP_CAP" \
	"$(printf 'commands.%s.ok,' $DEFAULT_STATES | sed 's/,$//')" 1 \
	port="$SERVER_PORT" "${MIX[@]}" secs=0
echo "$RC" >"$TEST_TMP/mix.rc"
note "mix totals: $(awk '/^Totals:/ { t = NR }
	t && (NR == t + 1 || NR == t + 4) { printf "%s | ", $0 }' "$TEST_TMP/mix.out")"
check mix
for st in $DEFAULT_STATES; do
	assert_ge "$(ok_of mix "$st")" 1 "mix: $st ok count"
done

# Every state twice too (one MIN for every path): the states' "at least
# once" below must not rest on how far a run got before its second
# checkpoint.
stress_until checkpoint "$CP_CAP" \
	"checkpoints$(printf ',commands.%s.ok' $DEFAULT_STATES)" 2 \
	port="$SERVER_PORT" "${MIX[@]}" checkpoint=5 secs=0
echo "$RC" >"$TEST_TMP/checkpoint.rc"
check checkpoint
read -r _ _ cps secs <"$TEST_TMP/checkpoint.sum"
note "checkpoint: $cps checkpoints in $secs s, CHECKPOINT! ok $(ok_of checkpoint 'CHECKPOINT!')"
assert_ge "$cps" 2 "checkpoint: checkpoints that compared sessions"
assert_ge "$(ok_of checkpoint 'CHECKPOINT!')" "$cps" \
	"checkpoint: CHECKPOINT! ok (sessions checked) against the checkpoints"
for st in $DEFAULT_STATES; do
	assert_ge "$(ok_of checkpoint "$st")" 1 "checkpoint: $st ok count"
done

# Run 3 is issue 11's run as written: imaptest's defaults (no COPY).
NOMIX=1 run qresync "$QR_SECS" qresync clients=30 users=1-2 user=mix%d
check qresync
assert_ge "$(ok_of qresync SELECT)" 1 "qresync: SELECT ok count"
nos=$(awk 'NR > 1 && $3 != 0 { printf "%s %s; ", $1, $3 }' "$TEST_TMP/qresync.sum")
[ -z "$nos" ] || fail "qresync: commands answered NO or BAD: $nos (stderr: $(grep -m 5 '^Error' "$TEST_TMP/qresync.err"))"

note "ok"
