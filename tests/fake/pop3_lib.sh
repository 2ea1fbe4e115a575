# tests/fake/pop3_lib.sh: a short profile-mode run of POP3 users against
# tests/fake/fake_pop3.py, for the tests of what the reports make of POP3
# (t_report_html.sh, t_report_numbers.sh, t_metrics_pop3.sh; t_fault_pop3.sh
# takes its profile).  Sourced after ../lib.sh (directly or through
# another *_lib.sh).
#
#   pop3_profile USERS NAME_FORMAT [LINE]
#       prints a profile of USERS POP3 users named by NAME_FORMAT (and
#       LINE, a top-level key such as pop3_auth = plain, when given), a
#       visit every 300 ms, nothing on IMAP or LMTP (port 9; the POP3 port
#       comes from --pop3-port).
#   pop3_fake_start DIR
#       starts fake_pop3.py (every step succeeds, 5 messages a maildrop;
#       port in DIR/port, its log in DIR/log; up until the test exits) and
#       writes DIR/profile: three POP3 users, a visit every 300 ms,
#       nothing on IMAP or LMTP (port 9).  POP3_ARGS: the imapstress
#       arguments that run that profile against that fake.
#   pop3_fake_run DIR SECS [ARGS...]
#       pop3_fake_start DIR, then imapstress $POP3_ARGS for SECS seconds
#       with --json DIR/json and ARGS; output in DIR/out and DIR/err;
#       fails the test unless it exits 0.
# shellcheck shell=bash

pop3_profile() {
	cat <<PROFILE
lmtp_port = 9
pop3_port = 9
${3:-}
total_user_count = $1
user u {
  username_format = $2
  count = 100%
}
client pop3 {
  count = 100%
  protocol = pop3
  login_interval = 300ms
}
PROFILE
}

pop3_fake_start() {
	local d=$1
	mkdir -p "$d"
	fake_line_start "$d" "$ROOT/tests/fake/fake_pop3.py" --fault none --msgs 5
	pop3_profile 3 pu%n >"$d/profile"
	POP3_ARGS=(--profile "$d/profile" --port 9 --pop3-port "$(cat "$d/port")")
}

pop3_fake_run() {
	local d=$1 secs=$2 rc=0
	shift 2
	pop3_fake_start "$d"
	run_with_timeout 60 "$IMAPSTRESS" "${POP3_ARGS[@]}" --duration "$secs" \
		--json "$d/json" "$@" >"$d/out" 2>"$d/err" || rc=$?
	[ "$rc" = 0 ] || fail "POP3 run exited $rc: $(tail -n 5 "$d/err")"
}
