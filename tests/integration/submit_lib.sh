# tests/integration/submit_lib.sh: the LoadSim day through the private
# Postfix that t_loadsim_submit_postfix (IDLE) and t_notify_submit_postfix
# (NOTIFY) both play; source it after tests/lib.sh and mailstack_start.
#
#   submit_day PROFILE USERS [imapstress options]
#
# init's PROFILE set-up for USERS users, then the run: submission to
# Postfix's STARTTLS port, --seed 32, --push-settle 10s (the push's end
# waits for what Postfix still holds; no longer, so that what Dovecot
# never announces, now and then, is unseen, not turned into push missed
# by the wait: 20 s + 10 s is --push-timeout's 30 s), counts in
# TEST_TMP/counts.json, JSON in run.json, output in run.out and run.err;
# asserts exit 0 and no command error, then that Postfix's queue empties.
# shellcheck shell=bash

submit_day() {
	local p=$1 users=$2 rc=0
	shift 2
	run_with_timeout 60 "$IMAPSTRESS" init --profile "$p" --profile-users "$users" \
		port="$DOVECOT_PORT" >"$TEST_TMP/init.out" 2>&1 || rc=$?
	assert_eq 0 "$rc" "init ($(tail -n 3 "$TEST_TMP/init.out"))"
	rc=0
	run_with_timeout 240 nice "$IMAPSTRESS" --profile "$p" --port "$DOVECOT_PORT" \
		--submission-port "$MAILSTACK_SUBMISSION_TLS_PORT" \
		--ca-file "$MAILSTACK_CA_FILE" --seed 32 --push-settle 10s \
		--profile-counts "$TEST_TMP/counts.json" --json "$TEST_TMP/run.json" "$@" \
		>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
	assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 5 "$TEST_TMP/run.err"))"
	assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
		"$(cat "$TEST_TMP/run.out")" "no command errors"
	# Postfix's queue empties; nothing left the private stack.
	mailstack_drained
}
