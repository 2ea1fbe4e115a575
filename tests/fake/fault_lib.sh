# tests/fake/fault_lib.sh: shared helpers for the t_fault_*.sh tests, which
# run imapstress against fakeimapd's fault modes and check that it survives
# any server: it ends on time, counts each fault by kind, exits with the
# right status, stays small and keeps its output short.
#
# Source it first thing (it sources ../lib.sh):
#   . "$(dirname "$0")/fault_lib.sh"
#
# Scenarios of one file run in parallel; a check that fails is reported and
# the file goes on, so one run shows every broken scenario:
#   fault_server NAME ARGS...   start fakeimapd ARGS (e.g. --mode stall) in
#                               this shell; its port is left in FAULT_PORT
#   fault_run NAME ARGS...      imapstress port=$FAULT_PORT ARGS --json ...
#                               in the background, timed, under a hard cap;
#                               with FAULT_TERM_AT=S, sent SIGTERM at S s
#   fault_wait                  wait for every fault_run
#   fault_common NAME SECS GRACE    the checks every scenario gets: not
#                               killed, no sanitizer report, on time, a JSON
#                               summary that agrees with the exit status,
#                               peak RSS and output lines bounded
#   fault_promise NAME SECS GRACE   fault_common, on time meaning the
#                               tool's promise, secs + 10 s, whatever the
#                               grace: for a server gone silent, which the
#                               stall bound (--stall-timeout) cuts
#   fault_exit NAME N           exit status N
#   fault_kinds NAME KIND...    these error kinds > 0, every other kind 0
#   fault_cmp NAME KEY OP N     a summary figure (see fault_get) vs N,
#                               OP one of -eq -ne -gt -ge -lt -le
#   fault_stderr NAME ERE WHY   some stderr line matches ERE
#   fault_get NAME KEY          print a summary figure: exit_status,
#                               duration_s, peak_rss_kb, logins, connects,
#                               unfinished, stop_reason, err.KIND,
#                               cmd.NAME.ok/no/bad/failed, ok_total
#   fault_note NAME             one progress line: status, time, errors
#   fault_finish                exit 1 if any check failed, else 0
# Files of one scenario are $TEST_TMP/NAME.{out,err,json,rc,ms}.
# shellcheck shell=bash disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_cmd python3 timeout
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD (run make build/fakeimapd)"

ERR_KINDS="no bad bye disconnect timeout protocol tls connect login state"
# Wall-time slack over secs + grace: start-up, the last tick, joins.
FAULT_SLACK=${FAULT_SLACK:-5}
FAULT_LINES_MAX=200
# A sanitizer build keeps freed memory in quarantine (256 MB by default)
# and adds shadow memory, so 64 MB only means something for a plain build;
# under a sanitizer the bound still catches a runaway buffer.
if grep -qa __asan_init "$IMAPSTRESS"; then
	FAULT_RSS_MAX_KB=${FAULT_RSS_MAX_KB:-524288}
else
	FAULT_RSS_MAX_KB=${FAULT_RSS_MAX_KB:-65536}
fi

_fault_failed=0
_fault_pids=()
FAULT_PORT=

_fault_bad() {
	echo "FAIL: $TEST_NAME: $*" >&2
	_fault_failed=$((_fault_failed + 1))
}

fault_server() {
	local name=$1 pid i port=
	shift
	# Created here: the background child opens it only some time later.
	: >"$TEST_TMP/$name.fake.out"
	"$FAKEIMAPD" "$@" >"$TEST_TMP/$name.fake.out" 2>"$TEST_TMP/$name.fake.err" &
	pid=$!
	on_exit "stop_bg $pid"
	for ((i = 0; i < 200; i++)); do
		port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$TEST_TMP/$name.fake.out")
		[ -z "$port" ] || break
		kill -0 "$pid" 2>/dev/null ||
			fail "fakeimapd $* died at start: $(head -n 5 "$TEST_TMP/$name.fake.err")"
		sleep 0.05
	done
	[ -n "$port" ] || fail "fakeimapd $* printed no PORT line within 10 s"
	FAULT_PORT=$port
}

# The hard cap is well past the bound fault_common asserts, so a hang shows
# as "took N s" (or as killed by the cap) instead of stalling the suite.
fault_run() {
	local name=$1
	shift
	# (SIGTERM: a background job's SIGINT is ignored from the start)
	local cap=(--kill-after=5 40)
	# --foreground: without it timeout(1) sends its signal twice, to the
	# child and then to its whole process group (strace: kill(pid, SIGTERM),
	# kill(0, SIGTERM)), and a second signal is imapstress's hard stop: under
	# load the two arrived apart and t_stall_end's graceful stop ended with
	# 500 commands unfinished.
	[ -z "${FAULT_TERM_AT:-}" ] ||
		cap=(--foreground --preserve-status -s TERM --kill-after=$((40 - FAULT_TERM_AT)) "$FAULT_TERM_AT")
	(
		t0=$(date +%s%N)
		rc=0
		timeout "${cap[@]}" "$IMAPSTRESS" port="$FAULT_PORT" "$@" \
			--json "$TEST_TMP/$name.json" \
			>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" </dev/null || rc=$?
		t1=$(date +%s%N)
		echo "$rc" >"$TEST_TMP/$name.rc"
		echo $(((t1 - t0) / 1000000)) >"$TEST_TMP/$name.ms"
	) &
	_fault_pids+=($!)
}

fault_wait() {
	local p
	for p in "${_fault_pids[@]}"; do
		wait "$p" || true
	done
	_fault_pids=()
}

# The summary as "key value" lines in NAME.vars, made once per scenario.
_fault_vars() {
	local name=$1
	[ -f "$TEST_TMP/$name.vars" ] && return 0
	python3 - "$TEST_TMP/$name.json" >"$TEST_TMP/$name.vars" <<'EOF'
import json, sys
summary = None
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                obj = json.loads(line)
                if obj.get("type") == "summary":
                    summary = obj
except (OSError, ValueError):
    pass
if summary is None:
    sys.exit(0)
print("summary 1")
for k in ("exit_status", "duration_s", "peak_rss_kb", "logins", "connects",
          "unfinished", "stop_reason", "state_unannounced"):
    print(k, summary.get(k, ""))
for k, v in summary.get("errors", {}).items():
    print("err." + k, v)
ok = 0
for c, v in summary.get("commands", {}).items():
    for r in ("ok", "no", "bad", "failed"):
        print("cmd.%s.%s" % (c, r), v.get(r, 0))
    ok += v.get("ok", 0)
print("ok_total", ok)
EOF
}

# Each scenario's summary read once into _fault_v ("NAME KEY" -> value),
# and looked up without a process: a file of 27 scenarios asks for some 900
# figures, and a fork+exec of awk for each took the test past 250 s on a
# loaded machine (load 25 on two cores), near run-all's timeout.
declare -A _fault_v=()

# _fault_val NAME KEY: the figure in REPLY ('' when absent).
_fault_val() {
	local k v _
	if [ -z "${_fault_v["$1 summary-read"]:-}" ]; then
		_fault_vars "$1"
		# The first word of a value, as ever ("server unusable" -> server).
		while read -r k v _; do
			_fault_v["$1 $k"]=$v
		done <"$TEST_TMP/$1.vars"
		_fault_v["$1 summary-read"]=1
	fi
	REPLY=${_fault_v["$1 $2"]:-}
}

fault_get() {
	_fault_val "$1" "$2"
	printf '%s\n' "$REPLY"
}

_fault_int() {
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
}

fault_cmp() {
	local name=$1 key=$2 op=$3 want=$4 v REPLY
	_fault_val "$name" "$key"
	v=$REPLY
	[ -n "$v" ] || v=0
	if ! _fault_int "$v"; then
		_fault_bad "$name: $key is '$v', not a count"
		return 0
	fi
	case $op in
	-eq) ((v == want)) ;;
	-ne) ((v != want)) ;;
	-gt) ((v > want)) ;;
	-ge) ((v >= want)) ;;
	-lt) ((v < want)) ;;
	-le) ((v <= want)) ;;
	*) fail "fault_cmp: unknown operator '$op'" ;;
	esac || _fault_bad "$name: expected $key $op $want, got $v"
}

fault_stderr() {
	grep -Eq -- "$2" "$TEST_TMP/$1.err" ||
		_fault_bad "$1: no stderr line matches /$2/ ($3); stderr starts: $(head -n 3 "$TEST_TMP/$1.err")"
}

fault_common() {
	local name=$1 secs=$2 grace=$3 rc ms lines max_ms rss js REPLY
	rc=$(cat "$TEST_TMP/$name.rc" 2>/dev/null || echo missing)
	ms=$(cat "$TEST_TMP/$name.ms" 2>/dev/null || echo 0)
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		_fault_bad "$name: hung: killed by the 40 s cap (exit $rc)"
	elif ! _fault_int "$rc"; then
		_fault_bad "$name: no exit status recorded"
	elif [ "$rc" -ge 128 ]; then
		_fault_bad "$name: killed by signal $((rc - 128)); stderr: $(tail -n 5 "$TEST_TMP/$name.err")"
	fi
	if grep -Eq 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:' \
		"$TEST_TMP/$name.err"; then
		_fault_bad "$name: sanitizer report: $(grep -m3 -E 'Sanitizer|runtime error:' "$TEST_TMP/$name.err")"
	fi
	max_ms=$(((secs + grace + FAULT_SLACK) * 1000))
	local bound="secs+grace+$FAULT_SLACK"
	if [ -n "${_FAULT_PROMISE:-}" ]; then
		max_ms=$(((secs + FAULT_PROMISE_S) * 1000))
		bound="secs+$FAULT_PROMISE_S (the promise)"
	fi
	[ "$ms" -lt "$max_ms" ] ||
		_fault_bad "$name: took $ms ms, more than $bound = $max_ms ms"
	lines=$(cat "$TEST_TMP/$name.out" "$TEST_TMP/$name.err" | wc -l)
	[ "$lines" -lt "$FAULT_LINES_MAX" ] ||
		_fault_bad "$name: $lines lines of output (at most $FAULT_LINES_MAX); stderr starts: $(head -n 5 "$TEST_TMP/$name.err")"
	# Raw server bytes (garbage, TLS junk) must be escaped before they
	# reach a terminal.
	if LC_ALL=C grep -q -P '[^\t\n\x20-\x7e]' "$TEST_TMP/$name.out" "$TEST_TMP/$name.err"; then
		_fault_bad "$name: control or non-ASCII bytes in the output"
	fi
	_fault_val "$name" summary
	if [ "$REPLY" != 1 ]; then
		_fault_bad "$name: no JSON summary in $name.json; stderr: $(tail -n 5 "$TEST_TMP/$name.err")"
		return 0
	fi
	_fault_val "$name" exit_status
	js=$REPLY
	[ "$js" = "$rc" ] || _fault_bad "$name: JSON exit_status $js but the process exited $rc"
	_fault_val "$name" peak_rss_kb
	rss=$REPLY
	if ! _fault_int "$rss" || [ "$rss" -ge "$FAULT_RSS_MAX_KB" ]; then
		_fault_bad "$name: peak RSS $rss KB, at least $FAULT_RSS_MAX_KB KB"
	fi
}

# Every run ends by secs + 10 s (README, man imapstress: --stall-timeout).
FAULT_PROMISE_S=10
fault_promise() {
	_FAULT_PROMISE=1 fault_common "$@"
}

fault_exit() {
	local name=$1 want=$2 rc
	rc=$(cat "$TEST_TMP/$name.rc" 2>/dev/null || echo missing)
	[ "$rc" = "$want" ] ||
		_fault_bad "$name: exit status $rc, expected $want (stop_reason '$(fault_get "$name" stop_reason)', errors:$(fault_errors "$name"))"
}

# " kind=n" for every non-zero kind, for messages (_fault_errors: in REPLY).
_fault_errors() {
	local k out=
	for k in $ERR_KINDS; do
		_fault_val "$1" "err.$k"
		[ -z "$REPLY" ] || [ "$REPLY" = 0 ] || out="$out $k=$REPLY"
	done
	REPLY=${out:- none}
}

fault_errors() {
	local REPLY
	_fault_errors "$1"
	printf '%s\n' "$REPLY"
}

fault_kinds() {
	local name=$1 k w want
	shift
	for k in $ERR_KINDS; do
		want=0
		for w in "$@"; do
			[ "$w" != "$k" ] || want=1
		done
		if [ "$want" = 1 ]; then
			fault_cmp "$name" "err.$k" -gt 0
		else
			fault_cmp "$name" "err.$k" -eq 0
		fi
	done
}

# One line per scenario, so a passing log still shows what ran.
fault_note() {
	local name=$1 rc= ms= logins connects rss REPLY
	read -r rc <"$TEST_TMP/$name.rc" 2>/dev/null || true
	read -r ms <"$TEST_TMP/$name.ms" 2>/dev/null || true
	_fault_val "$name" logins
	logins=$REPLY
	_fault_val "$name" connects
	connects=$REPLY
	_fault_val "$name" peak_rss_kb
	rss=$REPLY
	_fault_errors "$name"
	note "$name: exit $rc, $ms ms, logins $logins, connects $connects, rss $rss KB, errors:$REPLY"
}

fault_finish() {
	if [ "$_fault_failed" -gt 0 ]; then
		echo "FAIL: $TEST_NAME: $_fault_failed check(s) failed" >&2
		exit 1
	fi
	note "all checks passed"
	exit 0
}
