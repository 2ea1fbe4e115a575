#!/bin/bash
# imapstress init against a private Dovecot (IMAP_SERVER=cyrus:
# t_init_cyrus.sh), with a small table to stay fast (the seed's 200 users
# x 201 messages of 75 KB is run by hand for the report):
#   1. 20 users, INBOX 5, "Deleted Items" 1, Folder01..03 of 2 (12 per
#      user): exit 0, the JSON says 240 appended and 80 folders created,
#      the server's own counts (doveadm, summed over users) match the table
#      folder by folder, and `init --check` (STATUS only) agrees user by
#      user;
#   2. the same again: exit 0, 0 appended, 0 created;
#   3. 40 more users over one connection, killed with SIGKILL once its
#      progress line says 8 users are done (not after a sleep): once the
#      server has closed the dead session (server_sessions_wait: it may
#      still commit an APPEND the client had sent) it holds fewer than the
#      table; the rerun exits 0 and appends
#      exactly what was missing (what the server held plus what the rerun
#      appended is the table);
#   4. a bigger table on --check: exit 1 naming a folder that is short;
#   5. SIGTERM once 8 of 40 more users are done: the commands in flight are
#      answered first, so the JSON's "appended" is exactly what the server
#      gained; exit 1 with the users not done named.
# Both servers offer MULTIAPPEND (RFC 3502): part 1 sends each folder's
# missing messages in one APPEND (5 commands per user), and a kill in
# part 3 may hit one half sent (all or none: the rerun still adds exactly
# the rest);
#   6. --no-multiappend: one APPEND command per message, same table (and
#      a table without --inbox is the same with --no-multiappend as
#      without it: the flag once set INBOX to 0);
#   7. --trim: 3 users topped up past the table (INBOX 9, Folder01..03 of
#      4: 10 more each), then init --trim with the table: exit 0, the JSON
#      says 30 trimmed and every folder of each user holds exactly the
#      table again (the server's own counts); then a message without the
#      X-Imapstress header in a user's INBOX, which is again past the
#      table: init --trim stops at the foreign-mail check (exit 2, the
#      check's line) and that INBOX still holds everything.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

server_start
TABLE="--inbox 5 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
BOXES=("INBOX" "Deleted Items" "Folder01" "Folder02" "Folder03")
WANT=(5 1 2 2 2)

# init NAME ARGS...: exit status in RC, JSON summary in $TEST_TMP/NAME.json
init() {
	local name=$1
	shift
	RC=0
	# shellcheck disable=SC2086
	run_with_timeout 120 "$IMAPSTRESS" init host=127.0.0.1 \
		port="$SERVER_PORT" pass="$SERVER_PASS" $TABLE "$@" \
		--json "$TEST_TMP/$name.json" >"$TEST_TMP/$name.out" \
		2>"$TEST_TMP/$name.err" || RC=$?
}

# field NAME KEY: a number from the JSON summary
field() {
	"$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$TEST_TMP/$1.json" "$2"
}

# The server's own count of BOX summed over every user so far.
held() {
	server_count_all "$1"
}

# 1. a fresh set of users
init first user=t%d users=1-20 clients=5
assert_eq 0 "$RC" "first init exit status ($(tail -3 "$TEST_TMP/first.err"))"
assert_eq 240 "$(field first appended)" "first init: messages appended"
assert_eq 80 "$(field first created)" "first init: folders created (4 per user)"
assert_eq 100 "$(field first append_commands)" "first init: APPEND commands (one MULTIAPPEND per folder)"
assert_eq 20 "$(field first users_ok)" "first init: users that hold the table"
assert_match '^init: check: every folder of all 20 users holds what was asked \(5 folders, 12 messages each\)$' \
	"$(cat "$TEST_TMP/first.out")" "first init: the check line"
for i in "${!BOXES[@]}"; do
	assert_eq $((20 * WANT[i])) "$(held "${BOXES[i]}")" "server's count of ${BOXES[i]} over 20 users"
done
init check user=t%d users=1-20 --check
assert_eq 0 "$RC" "--check after the first init ($(cat "$TEST_TMP/check.out"))"
assert_eq 0 "$(field check appended)" "--check appends nothing"

# 2. again: nothing to add
init second user=t%d users=1-20 clients=5
assert_eq 0 "$RC" "second init exit status"
assert_eq 0 "$(field second appended)" "second init: messages appended"
assert_eq 0 "$(field second created)" "second init: folders created"
assert_eq 20 "$(field second users_ok)" "second init: users that hold the table"
assert_eq $((20 * 5)) "$(held INBOX)" "INBOX after the second init"

# start_and_kill NAME SIGNAL USERS...: init in the background, sent
# SIGNAL once its progress line says 8 of 40 users are done.
start_and_kill() {
	local name=$1 sig=$2 seen="" pid
	shift 2
	# shellcheck disable=SC2086
	"$IMAPSTRESS" init host=127.0.0.1 port="$SERVER_PORT" pass="$SERVER_PASS" \
		$TABLE "$@" --json "$TEST_TMP/$name.json" >"$TEST_TMP/$name.out" \
		2>"$TEST_TMP/$name.err" &
	pid=$!
	on_exit "kill -KILL $pid 2>/dev/null || true"
	for _ in $(seq 1 1200); do	# at most 120 s, in 0.1 s steps
		seen=$(sed -n 's/^init: \([0-9]*\)\/40 users.*/\1/p' "$TEST_TMP/$name.err" | tail -1)
		[ -n "$seen" ] && [ "$seen" -ge 8 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$seen" ] && [ "$seen" -ge 8 ] || fail "$name: init never said 8/40 users done: $(cat "$TEST_TMP/$name.err")"
	kill "-$sig" "$pid" 2>/dev/null || fail "$name: init had already finished: nothing was stopped half way"
	RC=0
	wait "$pid" 2>/dev/null || RC=$?
}

# Every message of every mailbox (only the table's exist), summed over all
# users: '*', since a user cut short may lack a folder.
held_all() {
	held '*'
}

# 3. killed half way, by its own progress line
note "init of 40 users over one connection, killed once 8 are done"
start_and_kill killed KILL user=k%d users=1-40 clients=1
# The server may still carry out what the dead client had sent (an APPEND
# whose literal was in its socket buffer): count once it has closed the
# session, or the rerun finds one more than "before" said.
why=$(server_sessions_wait 60 2>&1) || fail "the server kept the killed init's session: $why"
before=$(held_all)
full=$((60 * 12))	# 20 users from part 1, 40 now
[ "$before" -lt "$full" ] || fail "the killed init had stored everything ($before of $full)"
assert_ge "$before" $((20 * 12 + 8 * 12)) "the killed init stored the 8 users it said were done"
init resumed user=k%d users=1-40 clients=4
assert_eq 0 "$RC" "resumed init exit status ($(tail -3 "$TEST_TMP/resumed.out"))"
assert_eq 40 "$(field resumed users_ok)" "resumed init: users that hold the table"
assert_eq "$full" $((before + $(field resumed appended))) \
	"held after the kill + appended by the rerun = the table"
for i in "${!BOXES[@]}"; do
	assert_eq $((60 * WANT[i])) "$(held "${BOXES[i]}")" "server's count of ${BOXES[i]} over 60 users"
done

# 4. a table the mailboxes do not hold: exit 1, named
TABLE="--inbox 6 --deleted 1 --folders 3 --folder-messages 2"
init short user=t%d users=1-2 --check
assert_eq 1 "$RC" "--check against a bigger table: exit status"
assert_match '^init: t1: INBOX holds 5 of 6 messages$' "$(cat "$TEST_TMP/short.out")" "the short folder, named"
assert_eq 2 "$(field short users_bad)" "users short of the bigger table"

# 5. SIGTERM: stops once what is in flight is answered, and says so
before=$(held_all)
start_and_kill termed TERM user=s%d users=1-40 clients=2
assert_eq 1 "$RC" "SIGTERM half way: exit status"
after=$(held_all)
assert_eq $((after - before)) "$(field termed appended)" "SIGTERM: appended = what the server gained"
[ "$(field termed users_not_done)" -gt 0 ] || fail "SIGTERM: no user left not done"
assert_match '^init: s40: not done \(the run ended first\)$' "$(cat "$TEST_TMP/termed.out")" "SIGTERM: the last user named"

# 6. one message per APPEND when told
TABLE="--inbox 5 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init plain user=p%d users=1-5 clients=2 --no-multiappend
assert_eq 0 "$RC" "--no-multiappend init exit status ($(tail -3 "$TEST_TMP/plain.err"))"
assert_eq 60 "$(field plain appended)" "--no-multiappend: messages appended"
assert_eq 60 "$(field plain append_commands)" "--no-multiappend: one APPEND per message"
assert_eq 5 "$(field plain users_ok)" "--no-multiappend: users that hold the table"

# The table's size line does not depend on --no-multiappend.
TABLE="--deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init sized user=p%d users=1-1 --check
init sized-plain user=p%d users=1-1 --check --no-multiappend
line=$(grep -o '[0-9]* folders and [0-9]* messages each' "$TEST_TMP/sized.err")
assert_eq "$line" "$(grep -o '[0-9]* folders and [0-9]* messages each' "$TEST_TMP/sized-plain.err")" \
	"the table with and without --no-multiappend"

# 7. --trim: our own mail past the table goes, and nothing else
TABLE="--inbox 5 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init trim-base user=r%d users=1-3 clients=3
assert_eq 0 "$RC" "--trim: the first init's exit status ($(tail -3 "$TEST_TMP/trim-base.err"))"
TABLE="--inbox 9 --deleted 1 --folders 3 --folder-messages 4 --msg-size 4k"
init trim-more user=r%d users=1-3 clients=3
assert_eq 30 "$(field trim-more appended)" "--trim: mail past the table, 10 a user"
TABLE="--inbox 5 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init trimmed user=r%d users=1-3 clients=3 --trim
assert_eq 0 "$RC" "init --trim exit status ($(tail -3 "$TEST_TMP/trimmed.err"))"
assert_eq 30 "$(field trimmed trimmed)" "init --trim: messages expunged"
assert_eq 0 "$(field trimmed appended)" "init --trim: nothing appended"
assert_eq 0 "$(field trimmed folders_more)" "init --trim: folders past the table"
assert_eq 3 "$(field trimmed users_ok)" "init --trim: users that hold the table"
assert_match '^init: --trim: 30 messages of our own past the table expunged$' \
	"$(cat "$TEST_TMP/trimmed.out")" "init --trim: the count, said"
for u in r1 r2 r3; do
	for i in "${!BOXES[@]}"; do
		assert_eq "${WANT[i]}" "$(server_count "$u" "${BOXES[i]}")" \
			"after --trim: the server's count of $u's ${BOXES[i]}"
	done
done

# A message imapstress did not put there: --trim stops, removes nothing.
"$PYTHON" - "$SERVER_PORT" "$SERVER_PASS" <<'PY' || fail "could not append the foreign message"
import imaplib, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
m.login("r1", sys.argv[2])
typ, _ = m.append("INBOX", None, None,
                  b"From: someone@example.invalid\r\nSubject: not ours\r\n\r\nhello\r\n")
assert typ == "OK", typ
m.logout()
PY
TABLE="--inbox 9 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init foreign-more user=r%d users=1-1
assert_eq 3 "$(field foreign-more appended)" "--trim: r1's INBOX past the table again (5 + 1 foreign + 3)"
TABLE="--inbox 5 --deleted 1 --folders 3 --folder-messages 2 --msg-size 4k"
init foreign user=r%d users=1-1 --trim
assert_eq 2 "$RC" "init --trim with foreign mail in the folder: exit status"
assert_match 'foreign-mail check: user r1, mailbox "INBOX" holds 1 message without the X-Imapstress header' \
	"$(cat "$TEST_TMP/foreign.err")" "init --trim: the foreign-mail check's line"
assert_eq 0 "$(field foreign trimmed)" "init --trim with foreign mail: messages expunged"
assert_eq 9 "$(server_count r1 INBOX)" "r1's INBOX after the refused --trim"
