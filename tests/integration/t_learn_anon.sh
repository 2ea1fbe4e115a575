#!/bin/bash
# Issue 37 item 2: nothing personal leaves the logs.  Hand-made Dovecot
# rawlogs (with and without times, in a per-user directory named by the
# user's address, as rawlog_dir = .../%u makes them) hold a password, an
# address and a subject line: in LOGIN, in AUTHENTICATE PLAIN, in an
# APPENDed message, in SEARCH, in a mailbox name, in the server's FETCH
# answer.  `imapstress learn` must learn from them, and none of the three
# outputs, nor what it prints, may hold any of the secrets.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

PASSWORD='Hunter2-Zebra-Crossing'
ADDRESS='alice.wonderly@example.org'
SUBJECT='Quarterly layoffs in Building 7'
BOX='Project Nightingale'

logs=$TEST_TMP/logs/$ADDRESS
mkdir -p "$logs"
msg=$(printf 'From: %s\r\nTo: bob@example.net\r\nSubject: %s\r\n\r\nSee you at 9. %s\r\n' \
	"$ADDRESS" "$SUBJECT" "$PASSWORD")
len=${#msg}
plain=$(printf '\0%s\0%s' "$ADDRESS" "$PASSWORD" | base64 -w0)

# With times, the way rawlog_dir writes them (a time at every line start).
{
	printf '%s\r\n' "a1 LOGIN \"$ADDRESS\" \"$PASSWORD\"" "a2 SELECT \"$BOX\"" \
		"a3 APPEND \"$BOX\" (\\Seen) {$len}"
	printf '%s' "$msg"
	printf '\r\n'
	printf '%s\r\n' "a4 SEARCH SUBJECT \"$SUBJECT\"" "a5 FETCH 1 (ENVELOPE)" \
		"a6 UID FETCH 1 (BODY.PEEK[])" "a7 LOGOUT"
} | awk '{ printf "1796500000.%06d %s\n", NR, $0 }' >"$logs/20261205-100000.1.1.in"
{
	printf '%s\r\n' "a1 OK Logged in" "* 0 EXISTS" "a2 OK [READ-WRITE] Select completed" \
		"+ OK" "* 1 EXISTS" "a3 OK Append completed" "* SEARCH 1" "a4 OK Search completed" \
		"* 1 FETCH (ENVELOPE (\"Mon, 1 Dec 2026 10:00:00 +0000\" \"$SUBJECT\" ((\"Alice\" NIL \"alice.wonderly\" \"example.org\")) NIL NIL NIL NIL NIL NIL NIL))" \
		"a5 OK Fetch completed" "* 1 FETCH (UID 1 BODY[] {$len}"
	printf '%s' "$msg"
	printf ')\r\n'
	printf '%s\r\n' "a6 OK Fetch completed" "* BYE Logging out" "a7 OK Logout completed"
} | awk '{ printf "1796500000.%06d %s\n", NR + 50, $0 }' >"$logs/20261205-100000.1.1.out"
# Without times (the rawlog binary without -t), AUTHENTICATE PLAIN.
printf '%s\r\n' "b1 AUTHENTICATE PLAIN $plain" "b2 EXAMINE {${#BOX}}" >"$logs/20261205-100100.2.1.in"
printf '%s\r\n' "$BOX" "b3 STATUS \"$BOX\" (MESSAGES)" "b4 LOGOUT" >>"$logs/20261205-100100.2.1.in"
printf '%s\r\n' "b1 OK Logged in" "b2 OK [READ-ONLY] Examine completed" "b3 OK done" \
	"* BYE bye" "b4 OK done" >"$logs/20261205-100100.2.1.out"

out=$TEST_TMP/learned
rc=0
run_with_timeout 30 "$IMAPSTRESS" learn -o "$out" "$TEST_TMP/logs" \
	>"$TEST_TMP/stdout" 2>"$TEST_TMP/stderr" || rc=$?
assert_eq 0 "$rc" "exit status (stderr: $(head -n 5 "$TEST_TMP/stderr"))"
for f in "$out.mix" "$out.profile" "$out.summary"; do
	[ -s "$f" ] || fail "$f was not written"
done
# It did learn from both sessions.
assert_match '^sessions: 2 ' "$(cat "$out.summary")" "sessions in the summary"
assert_match '^files: 2 read \(Dovecot rawlog with times 1, without 1;' \
	"$(cat "$out.summary")" "formats in the summary"
assert_match '^SELECT +2 ' "$(cat "$out.summary")" "SELECT and EXAMINE counted"
assert_match "^# folders used \\(1; commands naming them\\): box1 4$" "$(cat "$out.profile")" "the mailbox, quoted and as a literal, shown by number"

# The secrets, and their parts a careless writer might still let through.
n_checked=0
for secret in "$PASSWORD" "$ADDRESS" "$SUBJECT" "$BOX" "$plain" \
	'Hunter2' 'alice' 'wonderly' 'example.org' 'Quarterly' 'layoffs' 'Nightingale'; do
	for f in "$out.mix" "$out.profile" "$out.summary" "$TEST_TMP/stdout" "$TEST_TMP/stderr"; do
		if grep -qiF -- "$secret" "$f"; then
			fail "'$secret' leaked into $(basename "$f"): $(grep -iF -- "$secret" "$f" | head -n 2)"
		fi
		n_checked=$((n_checked + 1))
	done
done
assert_eq 60 "$n_checked" "secret x output checks made"
note "ok: 12 secrets searched in 5 outputs, none found"
