#!/bin/bash
# The launcher recipes for real: 3 shards started by a private Slurm on this
# machine (scripts/slurm-private: munged, slurmctld and slurmd on loopback,
# own config in a temp dir, stopped after), once as one srun step and once
# as a job array, and by pdsh -R exec; each time the merged report (from
# scripts/launch-slurm / scripts/launch-pdsh) must count exactly the
# messages the private Dovecot received, with each shard having found its
# place in the launcher's environment.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
PATH=$PATH:/usr/sbin
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}" pdsh srun sbatch \
	slurmctld slurmd munged
[ "$(id -u)" = 0 ] || skip "a private slurmd must run as root"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
export IMAPSTRESS

dovecot_start --fsync no
"$PYTHON" "$ROOT/tests/integration/precreate.py" "$DOVECOT_PORT" \
	"${DOVECOT_PASS:-pass}" $(seq -f 't%.0f' 1 30) ||
	fail "could not create the mailboxes first"
slurm_env=$(run_with_timeout 60 "$ROOT/scripts/slurm-private" start \
	--dir "$TEST_TMP/slurm" 2>"$TEST_TMP/slurm.err") ||
	fail "private Slurm did not start: $(tail -5 "$TEST_TMP/slurm.err")"
on_exit "timeout 30 '$ROOT/scripts/slurm-private' stop --dir '$TEST_TMP/slurm' >&2"
eval "$slurm_env"

ARGS=(port="$DOVECOT_PORT" - append=100,0 seed=1 secs=2 msgs=1000000 logout=0
      select=0 user=t%d users=1-30 clients=9)

# check NAME FROM-VARIABLE: the merged summary vs the server's new messages
check() {
	local name=$1 from=$2 out=$TEST_TMP/$1 now
	now=$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR")
	summary "$out.json" messages_appended commands.APPEND.ok errors clients exit_status
	note "$name: merged APPEND ok ${S[1]}, messages ${S[0]}, server +$((now - before))"
	assert_eq "$((now - before))" "${S[0]}" "$name: merged messages_appended vs the server"
	assert_eq "${S[0]}" "${S[1]}" "$name: one message per APPEND"
	assert_ge "${S[1]}" 1 "$name: APPEND ok"
	assert_eq 0 "${S[2]}" "$name: errors"
	assert_eq 9 "${S[3]}" "$name: clients of all shards"
	assert_eq 0 "${S[4]}" "$name: exit_status"
	assert_eq 3 "$(grep -l "from $from" "$out"/shard-*.log "$out"/pdsh.log 2>/dev/null |
		xargs -r grep -h "from $from" | wc -l)" "$name: shards placed by $from"
	before=$now
}

before=$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR")
MERGE_ARGS="--json $TEST_TMP/srun.json" run_with_timeout 60 "$ROOT/scripts/launch-slurm" \
	--shards 3 --delay 2 --results "$TEST_TMP/srun" --slurm-opt --overcommit \
	-- "${ARGS[@]}" >"$TEST_TMP/srun.out" 2>"$TEST_TMP/srun.err" ||
	fail "launch-slurm: exit $?: $(tail -5 "$TEST_TMP/srun.err")"
check srun SLURM_PROCID/SLURM_NTASKS

MERGE_ARGS="--json $TEST_TMP/array.json" run_with_timeout 60 "$ROOT/scripts/launch-slurm" \
	--array --shards 3 --delay 2 --results "$TEST_TMP/array" \
	-- "${ARGS[@]}" >"$TEST_TMP/array.out" 2>"$TEST_TMP/array.err" ||
	fail "launch-slurm --array: exit $?: $(tail -5 "$TEST_TMP/array.err")"
check array SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT

MERGE_ARGS="--json $TEST_TMP/pdsh.json" run_with_timeout 60 "$ROOT/scripts/launch-pdsh" \
	-R exec -w "shard[0-2]" --delay 2 --results "$TEST_TMP/pdsh" \
	-- "${ARGS[@]}" >"$TEST_TMP/pdsh.out" 2>"$TEST_TMP/pdsh.err" ||
	fail "launch-pdsh: exit $?: $(tail -5 "$TEST_TMP/pdsh.err")"
check pdsh --shard

note "ok"
