#!/bin/bash
# Issue 31, first half: every message imapstress puts on a server carries
# the marker "X-Imapstress: run=RUNID (imapstress VERSION)" as its first
# header line.  Against the private Dovecot with its LMTP, one short run of
# each way mail gets there, each as users of its own:
#   stress    the default mix with generated mail (it expunges too: its
#             mailboxes may end empty);
#   append    APPEND only (MULTIAPPEND, 5 a command), generated mail;
#   mbox      APPEND only, mbox= (a file of 3 known messages);
#   random    APPEND only, random_msg_size=;
#   profile   profile users: LMTP deliveries to INBOX and Spam, APPENDs to
#             Drafts and Sent;
#   init      imapstress init (MULTIAPPEND into 4 folders);
#   script    a scripted test whose set-up appends its NAME.mbox
#             (unmarked, as imaptest's suite compares whole messages: in
#             test mailboxes the run checked and made its own), and which
#             APPENDs one literal of its own; the clean-up after the last
#             test deletes those mailboxes, so it leaves nothing.
# Then doveadm reads every message of every mailbox of these users:
# - the server's own search, NOT HEADER X-Imapstress "", finds none;
# - every other message's first header line is the marker (below the
#   trace fields Dovecot's LMTP adds on top of a delivery: Return-Path,
#   Delivered-To, Received), the only X-Imapstress line of its header,
#   naming this version; all the mail of one run names one run id, each
#   run a different one, and a generated message's Message-ID names the
#   same run as its marker;
# - sizes as the man page promises: an mbox= message is stored as its
#   bytes in the file (CRLF) plus the marker line, 50 octets + the
#   version's length;
# - each run did put mail there (APPEND ok, deliveries, init's count).
# On main before the marker every message lacked it: the search finds
# them all and the test fails at the first run's check.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
DOVEADM=${DOVEADM:-$(command -v doveadm || echo /usr/bin/doveadm)}
need_cmd "$DOVEADM"

dovecot_lmtp_start --fsync no
VERSION=$("$IMAPSTRESS" --version | sed -n 's/^imapstress //p')
[ -n "$VERSION" ] || fail "imapstress --version printed no version"

# users PREFIX: the users under the instance whose names begin with
# PREFIX, one a line, into $TEST_TMP/PREFIX.users.
users() {
	local home list=$TEST_TMP/$1.users
	: >"$list"
	for home in "$DOVECOT_DIR"/home/"$1"*/; do
		[ -d "$home" ] || continue
		home=${home%/}
		printf '%s\n' "${home##*/}" >>"$list"
	done
	[ -s "$list" ] || fail "$1: no user of this run has a home on the server"
}

# unmarked PREFIX: the server's own search for mail without the marker in
# every mailbox of these users, into $TEST_TMP/PREFIX.unmarked (a line
# per message).
unmarked() {
	users "$1"
	run_with_timeout 60 "$DOVEADM" -c "$DOVECOT_DIR/dovecot.conf" search \
		-F "$TEST_TMP/$1.users" mailbox '*' NOT HEADER X-Imapstress "" \
		>"$TEST_TMP/$1.unmarked" 2>"$TEST_TMP/$1.search.err" ||
		fail "$1: doveadm search failed: $(head -c 300 "$TEST_TMP/$1.search.err")"
}

# check PREFIX KIND [UNMARKED]: every message of these users carries the
# marker (but for UNMARKED of them, default 0, found by the server's
# search); the checker (below) prints "messages N runs R" and the run id.
check() {
	local prefix=$1 kind=$2 want_unmarked=${3:-0} got out
	unmarked "$prefix"
	got=$(grep -c . "$TEST_TMP/$prefix.unmarked" || true)
	assert_eq "$want_unmarked" "$got" "$prefix: messages the server finds without X-Imapstress ($(head -n 3 "$TEST_TMP/$prefix.unmarked"))"
	run_with_timeout 60 "$DOVEADM" -c "$DOVECOT_DIR/dovecot.conf" -f json fetch \
		-F "$TEST_TMP/$prefix.users" 'user mailbox uid size.virtual hdr' \
		mailbox '*' ALL >"$TEST_TMP/$prefix.fetch.json" \
		2>"$TEST_TMP/$prefix.fetch.err" ||
		fail "$prefix: doveadm fetch failed: $(head -c 300 "$TEST_TMP/$prefix.fetch.err")"
	out=$("$PYTHON" - "$TEST_TMP/$prefix.fetch.json" "$kind" "$VERSION" \
		"$want_unmarked" "${MBOX_SIZES:-}" <<'PY'
import json, os, re, sys
path, kind, version, want_unmarked, sizes = sys.argv[1:]
msgs = json.load(open(path))
mark = re.compile(r"X-Imapstress: run=([0-9a-f]{16}) \(imapstress %s\)$"
                  % re.escape(version))
# What the server adds on delivery (LMTP: Return-Path, Delivered-To,
# Received) goes above what we sent: our first line comes after it.
trace = re.compile(r"(Return-Path|Delivered-To|Received):|[ \t]", re.I)
runs, unmarked, bad = set(), 0, []
mark_len = 50 + len(version)
for m in msgs:
    where = "%s %s uid %s" % (m["user"], m["mailbox"], m["uid"])
    lines = m["hdr"].replace("\r\n", "\n").split("\n")
    ours = [l for l in lines if l.lower().startswith("x-imapstress:")]
    if not ours:
        unmarked += 1
        continue
    k = 0
    while k < len(lines) and trace.match(lines[k]):
        k += 1
    r = mark.match(lines[k]) if k < len(lines) else None
    if r is None:
        bad.append("%s: first header line we sent: %r" % (where,
                   lines[k][:100] if k < len(lines) else None))
        continue
    if len(ours) != 1:
        bad.append("%s: %d X-Imapstress lines" % (where, len(ours)))
    run = r.group(1)
    runs.add(run)
    if kind == "generated":
        ids = [l for l in lines if l.lower().startswith("message-id:")]
        if len(ids) != 1 or not ids[0].split(":", 1)[1].strip().startswith(
                "<%s." % run) or lines[k + 1] != ids[0]:
            bad.append("%s: Message-ID %r, marker run %s" % (where, ids, run))
    if sizes:
        want = {int(s) + mark_len for s in sizes.split(",")}
        if int(m["size.virtual"]) not in want:
            bad.append("%s: size %s, want one of %s" % (where,
                       m["size.virtual"], sorted(want)))
if unmarked != int(want_unmarked):
    bad.append("%d messages without the marker, want %s" % (unmarked, want_unmarked))
if not msgs and os.environ.get("MAY_BE_EMPTY"):
    print("messages 0 run -")
    sys.exit(0)
if len(runs) != 1:
    bad.append("run ids %s: want exactly one" % sorted(runs))
if bad:
    sys.exit("\n".join(bad[:10]))
print("messages %d run %s" % (len(msgs), runs.pop()))
PY
) || fail "$prefix: $out"
	note "$prefix: $out"
	[ "${out##* }" = - ] || RUN_OF[$prefix]=${out##* }
	MSGS_OF[$prefix]=$(awk '{print $2}' <<<"$out")
}
declare -A RUN_OF MSGS_OF

# 1. The default mix with generated mail: what is left at its end (it
# may have expunged it all), then APPEND alone, which leaves mail.
stress stress port="$DOVECOT_PORT" user=mstress%d users=1-2 clients=4 secs=3
assert_eq 0 "$RC" "stress: exit status ($(head -n 3 "$TEST_TMP/stress.err"))"
summary "$TEST_TMP/stress.json" commands.APPEND.ok
assert_ge "${S[0]}" 1 "stress: APPENDs answered OK"
MAY_BE_EMPTY=1 check mstress generated
stress append port="$DOVECOT_PORT" user=mappend%d users=1-2 clients=4 secs=2 \
	- append=100,5 logout=0
assert_eq 0 "$RC" "append: exit status ($(head -n 3 "$TEST_TMP/append.err"))"
summary "$TEST_TMP/append.json" commands.APPEND.ok append_msgs
assert_ge "${S[0]}" 1 "append: APPENDs answered OK"
check mappend generated
assert_ge "${MSGS_OF[mappend]}" 1 "append: messages on the server"

# 2. mbox=: three messages of known size; each is stored as its CRLF text
# plus the marker line.
MBOX=$TEST_TMP/three.mbox
printf 'From a@example.org Mon Jan  5 10:00:00 2026\nFrom: a@example.org\nSubject: one\n\nbody one\nFrom b@example.org Mon Jan  5 11:00:00 2026\nFrom: b@example.org\nSubject: two, longer\n\nbody two\nand more\nFrom c@example.org Mon Jan  5 12:00:00 2026\nX-Imapstress: run=0123456789abcdef (imapstress 0.0.1)\nFrom: c@example.org\nSubject: three\n\nthree\n' >"$MBOX"
# The CRLF sizes of the three messages; the third's old marker is dropped.
sizes=$(( $(printf 'From: a@example.org\r\nSubject: one\r\n\r\nbody one\r\n' | wc -c) )),$((
	$(printf 'From: b@example.org\r\nSubject: two, longer\r\n\r\nbody two\r\nand more\r\n' | wc -c) )),$((
	$(printf 'From: c@example.org\r\nSubject: three\r\n\r\nthree\r\n' | wc -c) ))
stress mbox port="$DOVECOT_PORT" user=mmbox%d users=1 clients=2 secs=2 \
	mbox="$MBOX" - append=100,5 logout=0
assert_eq 0 "$RC" "mbox: exit status ($(head -n 3 "$TEST_TMP/mbox.err"))"
MBOX_SIZES=$sizes check mmbox mbox
assert_ge "${MSGS_OF[mmbox]}" 1 "mbox: messages on the server"

# 3. random_msg_size=: text with no header of its own.
stress random port="$DOVECOT_PORT" user=mrandom%d users=1 clients=2 secs=2 \
	random_msg_size=300 - append=100,5 logout=0
assert_eq 0 "$RC" "random: exit status ($(head -n 3 "$TEST_TMP/random.err"))"
check mrandom random
assert_ge "${MSGS_OF[mrandom]}" 1 "random: messages on the server"

# 4. Profile users: LMTP deliveries and their own APPENDs.
P=$TEST_TMP/marker.profile
cat >"$P" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
lmtp_max_parallel_count = 4
total_user_count = 3
rampup_time = 1s

user marked {
  count = 100%
  username_format = mprofile%n
  mail_inbox_delivery_interval = 300ms
  mail_spam_delivery_interval = 1s
  mail_action_delay = 200ms
  mail_action_repeat_delay = 100ms
  mail_send_interval = 1s
  mail_write_duration = 300ms
  mail_inbox_reply_percentage = 50
  mail_inbox_delete_percentage = 10
  mail_inbox_move_percentage = 10
  mail_inbox_move_filter_percentage = 10
}

client desktop {
  count = 100%
  imap_idle = yes
  imap_fetch_immediate = UID RFC822.SIZE FLAGS
  login_interval = 1s
}
PROFILE
rc=0
run_with_timeout 120 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
	--duration 5 --seed 3 --profile-counts "$TEST_TMP/profile.counts.json" \
	>"$TEST_TMP/profile.out" 2>"$TEST_TMP/profile.err" || rc=$?
assert_eq 0 "$rc" "profile: exit status ($(tail -n 3 "$TEST_TMP/profile.err"))"
read -r delivered appended <<<"$("$PYTHON" -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
print(t["delivered"]["INBOX"] + t["delivered"]["Spam"],
      t["appended"]["Drafts"] + t["appended"]["Sent"])' "$TEST_TMP/profile.counts.json")"
note "profile: $delivered delivered over LMTP, $appended appended"
assert_ge "$delivered" 1 "profile: LMTP deliveries"
assert_ge "$appended" 1 "profile: APPENDs to Drafts and Sent"
check mprofile generated

# 5. init: every folder of its table, by MULTIAPPEND.
rc=0
run_with_timeout 120 "$IMAPSTRESS" init host=127.0.0.1 port="$DOVECOT_PORT" \
	pass="$DOVECOT_PASS" user=minit%d users=1-2 --inbox 3 --deleted 1 \
	--folders 2 --folder-messages 2 --msg-size 4k \
	--json "$TEST_TMP/init.json" >"$TEST_TMP/init.out" 2>"$TEST_TMP/init.err" || rc=$?
assert_eq 0 "$rc" "init: exit status ($(tail -n 3 "$TEST_TMP/init.err"))"
check minit generated
assert_eq 16 "${MSGS_OF[minit]}" "init: messages on the server (2 users x 8)"

# 6. A scripted test: the set-up appends NAME.mbox and the script a
# literal of its own, both unmarked in the run's own test mailboxes, which
# the clean-up after the last test deletes: nothing is left.
T=$TEST_TMP/tests
mkdir "$T"
printf 'From a@example.org Mon Jan  5 10:00:00 2026\nFrom: a@example.org\nSubject: set-up one\n\none\nFrom b@example.org Mon Jan  5 11:00:00 2026\nFrom: b@example.org\nSubject: set-up two\n\ntwo\n' >"$T/marked.mbox"
# As tests/scripts/append: the literal's lines are CRLF on the wire (30
# octets), the line after them ends the command, then its result.
cat >"$T/marked" <<'SCRIPT'
state: selected

append $mailbox {30}
Subject: own

hello append

ok

ok status $mailbox (messages)
* status $mailbox (messages 3)
SCRIPT
rc=0
run_with_timeout 60 "$IMAPSTRESS" test="$T" host=127.0.0.1 port="$DOVECOT_PORT" \
	user=mscript pass="$DOVECOT_PASS" box=markbox \
	>"$TEST_TMP/script.out" 2>"$TEST_TMP/script.err" || rc=$?
assert_eq 0 "$rc" "script: exit status ($(cat "$TEST_TMP/script.out" "$TEST_TMP/script.err" | head -c 600))"
assert_match '^marked: ok$' "$(cat "$TEST_TMP/script.out")" "script: the test passes"
MAY_BE_EMPTY=1 check mscript mbox 0
assert_eq 0 "${MSGS_OF[mscript]}" "script: messages left on the server"

# One run id per run: as many distinct ones as runs that left mail (all
# but the default mix's and the scripted test's are sure to).
ids=$(printf '%s\n' "${RUN_OF[@]}" | sort -u | grep -c .)
assert_eq "${#RUN_OF[@]}" "$ids" "distinct run ids (${RUN_OF[*]})"
assert_ge "$ids" 5 "runs that left mail"
note ok
