#!/bin/bash
# Profile mode's clients= and connections as imaptest reads them, against
# fakeimapd in mail-store mode (IMAP and LMTP):
#   1. clients=4 with 12 users of one connection each, sessions of 1 s:
#      never more than 4 connections at once (every tick), and more than
#      4 different users logged in over the run (the slots cycle through
#      the users; before, clients= was ignored: 12 connections);
#   2. connection_max_count = 0 (tests/profiles/lmtp-only.conf): no IMAP
#      connection at all, only deliveries, exit 0 (before: 6 sessions);
#   3. a user that only sends (mail_send_interval, no delivery interval):
#      the mail is APPENDed to Sent and delivered to nobody, as in
#      imaptest (before: each sent mail was also an INBOX delivery);
#   4. tests/profiles/four-million.conf with clients=500 runs 8 s in under
#      1 GB peak RSS (before: refused, 1,000,000 users at most);
#   5. IMAP and POP3 users share one clients= budget, as in imaptest
#      (tests/profiles/mixed-clients.conf: 4 IMAP users who stay logged
#      in, 4 POP3 users against tests/fake/fake_pop3.py --fault stall, so
#      no session of either kind ever ends): with clients=3 exactly 3
#      connections are made in the whole run (counted by TCP relays in
#      front of both servers), so never more than 3 at once, and the
#      users_in gauge is 3 at most, and 3 once all are in (before: the
#      POP3 users had a clients= of their own, 6 connections and 6 users
#      in);
#   6. one slot (tests/profiles/one-slot.conf, clients=1) serves an IMAP
#      user and a POP3 user in turn: both kinds get it more than once.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

need_cmd python3
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd at $FAKEIMAPD"
[ -x "$IMAPSTRESS" ] || fail "no imapstress at $IMAPSTRESS"

fake_lmtp_start

# profile NAME SECS ARGS...: run tests/profiles/NAME.conf with the fake's
# LMTP port; exit status in rc.
profile() {
	local name=$1 secs=$2
	shift 2
	sed "s/^lmtp_port = .*/lmtp_port = $FAKE_LMTP/" "$ROOT/tests/profiles/$name.conf" \
		>"$TEST_TMP/$name.run.conf"
	rc=0
	run_with_timeout 120 /usr/bin/time -v "$IMAPSTRESS" --profile "$TEST_TMP/$name.run.conf" \
		--port "$FAKE_PORT" --duration "$secs" --seed 4 --json "$TEST_TMP/$name.json" \
		--profile-counts "$TEST_TMP/$name.counts.json" "$@" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
}

# ticks NAME: the most connections of any tick, open and in all.
ticks() {
	python3 - "$TEST_TMP/$1.json" <<'PY'
import json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"tick"')]
print(max(x["conns_open"] for x in t), max(x["conns_total"] for x in t))
PY
}

# total NAME KEY [FOLDER]: a total of the counts file.
total() {
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"][sys.argv[2]]
print(t[sys.argv[3]] if len(sys.argv) > 3 else t)' "$TEST_TMP/$1.counts.json" "${@:2}"
}

# 1. clients=4, 12 users, sessions of 1 s, back after 1 s.
mkdir "$TEST_TMP/raw"
profile cycle 6 clients=4 --rawlog --rawlog-dir "$TEST_TMP/raw"
assert_eq 0 "$rc" "cycle: exit status (stderr: $(head -n 3 "$TEST_TMP/cycle.err"))"
read -r open total_c < <(ticks cycle)
[ "$total_c" -le 4 ] || fail "cycle: $total_c connections in one tick, clients=4"
assert_ge "$open" 1 "cycle: connections open at some tick"
assert_eq 4 "$(find "$TEST_TMP/raw" -name 'rawlog.*' | wc -l)" "cycle: four slots"
users=$(grep -aho 'LOGIN "\{0,1\}cyc[0-9]*' "$TEST_TMP"/raw/rawlog.* | sort -u | wc -l)
note "cycle: $users different users logged in through 4 slots"
assert_ge "$users" 5 "cycle: users served in turn by the slots"

# 2. connection_max_count = 0: deliveries only.
profile lmtp-only 3
assert_eq 0 "$rc" "lmtp-only: exit status (stderr: $(head -n 3 "$TEST_TMP/lmtp-only.err"))"
assert_eq "0 0" "$(ticks lmtp-only)" "lmtp-only: no IMAP connection"
assert_ge "$(total lmtp-only delivered INBOX)" 1 "lmtp-only: INBOX deliveries"
assert_ge "$(total lmtp-only delivered Spam)" 1 "lmtp-only: Spam deliveries"

# 3. Sending only: APPENDs to Sent, no LMTP delivery.
profile send-only 4
assert_eq 0 "$rc" "send: exit status (stderr: $(head -n 3 "$TEST_TMP/send-only.err"))"
assert_ge "$(total send-only sent)" 1 "send: mail sent"
assert_ge "$(total send-only appended Sent)" 1 "send: APPENDed to Sent"
assert_eq 0 "$(total send-only delivered INBOX)" "send: delivered to nobody"

# 4. Dovecot's 4,000,000-user shape with clients=500.
profile four-million 8 clients=500
assert_eq 0 "$rc" "four-million: exit status (stderr: $(head -n 3 "$TEST_TMP/four-million.err"))"
read -r open total_c < <(ticks four-million)
[ "$total_c" -le 500 ] || fail "four-million: $total_c connections in one tick, clients=500"
assert_ge "$open" 1 "four-million: connections open"
kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$TEST_TMP/four-million.err")
note "four-million: 4,000,000 users, clients=500, 8 s: peak RSS $kb KB, at most $total_c connections, $(total four-million delivered INBOX) deliveries"
[ "$kb" -lt 1048576 ] || fail "four-million: peak RSS $kb KB, not under 1 GB"

# mixed NAME FAULT SECS ARGS...: tests/profiles/NAME.conf through two TCP
# relays that keep each connection's octets (TEST_TMP/NAME.imap/ and
# NAME.pop3/: one N.c2s file per connection): IMAP to fakeimapd, POP3 to
# fake_pop3.py --fault FAULT; exit status in rc.
mixed() {
	local name=$1 fault=$2 secs=$3 d=$TEST_TMP/$1
	shift 3
	mkdir -p "$d.pop3d" "$d.imap" "$d.pop3"
	fake_line_start "$d.pop3d" "$ROOT/tests/fake/fake_pop3.py" --fault "$fault"
	relay_start 127.0.0.1 "$FAKE_PORT" "$d.imap.port" "$d.imap"
	local imap_port=$RELAY_PORT
	relay_start 127.0.0.1 "$(cat "$d.pop3d/port")" "$d.pop3.port" "$d.pop3"
	rc=0
	run_with_timeout 120 "$IMAPSTRESS" --profile "$ROOT/tests/profiles/$name.conf" \
		--port "$imap_port" --pop3-port "$RELAY_PORT" --duration "$secs" \
		--seed 4 --json "$d.json" "$@" >"$d.out" 2>"$d.err" || rc=$?
}

# conns NAME KIND: the connections the KIND (imap, pop3) relay took.
conns() {
	find "$TEST_TMP/$1.$2" -name '*.c2s' | wc -l
}

# users_in NAME: the most users logged in at one tick.
users_in() {
	python3 - "$TEST_TMP/$1.json" <<'PY'
import json, sys
t = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"tick"')]
print(max(x.get("profile", {}).get("users_in", 0) for x in t))
PY
}

# 5. One budget for both kinds.  No session ends in the run (IMAP ones
# last an hour, POP3 ones stall after PASS, --cmd-timeout past the run),
# so every connection made is open at the end, and the connections made
# are the most open at once; all are in from the ramp-up's end (1 s) to
# the run's (3 s), so the ticks between see them all.
mixed mixed-clients stall 3 clients=3 --workers 1 --cmd-timeout 60 --grace 1
read -r imap pop3 < <(echo "$(conns mixed-clients imap) $(conns mixed-clients pop3)")
most=$(users_in mixed-clients)
note "mixed: clients=3: $imap IMAP + $pop3 POP3 connections, users_in at most $most (exit $rc)"
assert_eq 3 "$((imap + pop3))" "mixed: connections made, IMAP and POP3 (clients=3)"
assert_eq 3 "$most" "mixed: the most users logged in at one tick (clients=3)"

# 6. One slot, both kinds in turn.
# An IMAP session and its return take about 2 s, a POP3 visit
# milliseconds: about four of each in 8 s, twice what is asserted (5 s
# once gave exactly 2 IMAP sessions).
mixed one-slot none 8 clients=1 --workers 1
assert_eq 0 "$rc" "one-slot: exit status (stderr: $(head -n 3 "$TEST_TMP/one-slot.err"))"
imap=$(conns one-slot imap)
pop3=$(conns one-slot pop3)
note "one-slot: clients=1: $imap IMAP sessions and $pop3 POP3 visits in 8 s"
assert_ge "$imap" 2 "one-slot: IMAP sessions through the one slot"
assert_ge "$pop3" 2 "one-slot: POP3 visits through the one slot"
