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
#   fault_server_start NAME ARGS...  the same for many servers, started
#                               at once: fault_port NAME waits for NAME's
#                               and leaves its port in FAULT_PORT;
#                               fault_servers_ready waits for them all
#   fault_run NAME ARGS...      imapstress port=$FAULT_PORT ARGS --json ...
#                               in the background, timed, under a hard cap;
#                               with FAULT_TERM_AT=S, sent SIGTERM at S s;
#                               with FAULT_JOBS=N, at most N at once
#   fault_wait                  wait for every fault_run (and read the
#                               JSON summaries of all of them at once)
#   fault_common NAME SECS GRACE    the checks every scenario gets: not
#                               killed, no sanitizer report, on time, a JSON
#                               summary that agrees with the exit status,
#                               peak RSS and output lines bounded
#   fault_promise NAME SECS GRACE   fault_common, on time meaning the
#                               tool's promise, secs + 10 s, whatever the
#                               grace: for a server gone silent, which the
#                               stall bound (--stall-timeout) cuts
#   fault_wall_only NAME SECS GRACE   fault_common for a NAME.ms timed
#                               from a moment of the run (a signal), not
#                               from the start: NAME.ms bounded whole
#   fault_exit NAME N           exit status N
#   fault_kinds NAME KIND...    these error kinds > 0, every other kind 0
#   fault_cmp NAME KEY OP N     a summary figure (see fault_get) vs N,
#                               OP one of -eq -ne -gt -ge -lt -le
#   fault_stderr NAME ERE WHY   some stderr line matches ERE
#   fault_get NAME KEY          print a summary figure: exit_status,
#                               duration_s, peak_rss_kb, logins, connects,
#                               unfinished, stop_reason, err.KIND,
#                               state.SUBKIND (the JSON's state_kinds),
#                               cmd.NAME.ok/no/bad/failed, ok_total
#   fault_note NAME             one progress line: status, time, errors
#   fault_finish                exit 1 if any check failed, else 0
# Files of one scenario are $TEST_TMP/NAME.{out,err,json,rc,ms}.
# shellcheck shell=bash disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# /usr/bin/python3 first: a python3 found on PATH may be a shim (pyenv's
# is a bash script that runs more bash, ~0.6 s of CPU a start, 1.5 s each
# at load 20 on two cores).
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" timeout
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD (run make build/fakeimapd)"

ERR_KINDS="no bad bye disconnect timeout protocol tls connect login state"
# The run's own clock past secs + grace: the halt's last poll (100 ms),
# closing the connections, the report.
FAULT_RUN_SLACK=${FAULT_RUN_SLACK:-1}
# Wall time around the run's clock: the process's start-up and exit.
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
# fault_run's names since the last fault_wait, whose summaries it reads.
_fault_names=()
FAULT_PORT=
# Servers: those yet to announce a port, and each one's port, pid and
# arguments by name; every pid is in _fault_srv_file, for the cleanup.
_fault_srv_pending=()
_fault_srv_file=
declare -A _fault_ports=() _fault_srv_pid=() _fault_srv_args=()

_fault_bad() {
	echo "FAIL: $TEST_NAME: $*" >&2
	_fault_failed=$((_fault_failed + 1))
}

fault_server() {
	fault_server_start "$@"
	fault_servers_ready
	fault_port "$1"
}

fault_server_start() {
	local name=$1
	shift
	_fault_srv_cleanup
	# Created here: the background child opens it only some time later.
	: >"$TEST_TMP/$name.fake.out"
	"$FAKEIMAPD" "$@" >"$TEST_TMP/$name.fake.out" 2>"$TEST_TMP/$name.fake.err" &
	echo "$!" >>"$_fault_srv_file"
	unset '_fault_ports[$name]'
	_fault_srv_pid[$name]=$!
	_fault_srv_args[$name]="$*"
	_fault_srv_pending+=("$name")
}

# One cleanup for every server of the file, registered before the first
# starts: every server told at once, then each waited for.  (An on_exit
# per server rewrote the cleanup file with an mv(1) each, 27 processes,
# and the servers were stopped in turn, 0.1 s or more each.)  It reads the
# pids with read, as it may run in the supervisor (tests/lib.sh).
_fault_srv_cleanup() {
	[ -z "$_fault_srv_file" ] || return 0
	_fault_srv_file=$TEST_TMP/.fault-servers
	: >"$_fault_srv_file"
	# shellcheck disable=SC2016 # $p: expanded when the cleanup runs
	on_exit "$(printf 'while read -r p; do kill "$p" 2>/dev/null || true; done <%q; while read -r p; do stop_bg "$p"; done <%q' \
		"$_fault_srv_file" "$_fault_srv_file")"
}

# _fault_port_line NAME: NAME's PORT line, once written, into _fault_ports.
# Only whole lines count: read fails on a last line without its newline.
_fault_port_line() {
	local line
	while read -r line; do
		if [[ $line =~ ^PORT\ ([0-9]+)$ ]]; then
			_fault_ports[$1]=${BASH_REMATCH[1]}
			return 0
		fi
	done <"$TEST_TMP/$1.fake.out"
	return 1
}

# fault_servers_ready [NAME...]: wait until the servers NAME (without a
# NAME, every server started) have announced their ports.  One poll looks
# at every pending server, with no process per look: 27 servers, each
# waited for with a sed (and a sleep) before the next was started, took
# 4-5 s to start at load 15-20 on two cores, 15 s under ASan.
fault_servers_ready() {
	local i name waiting=() missing
	for ((i = 0; i < 200; i++)); do
		waiting=()
		for name in "${_fault_srv_pending[@]}"; do
			_fault_port_line "$name" && continue
			kill -0 "${_fault_srv_pid[$name]}" 2>/dev/null ||
				fail "fakeimapd ${_fault_srv_args[$name]} died at start: $(head -n 5 "$TEST_TMP/$name.fake.err")"
			waiting+=("$name")
		done
		_fault_srv_pending=("${waiting[@]}")
		missing=()
		if [ $# -eq 0 ]; then
			missing=("${waiting[@]}")
		else
			for name; do
				[ -n "${_fault_ports[$name]:-}" ] || missing+=("$name")
			done
		fi
		[ "${#missing[@]}" -gt 0 ] || return 0
		sleep 0.05
	done
	name=${missing[0]}
	fail "fakeimapd ${_fault_srv_args[$name]:-($name was not started)} printed no PORT line within 10 s"
}

# fault_port NAME: waits for NAME's server alone, so a file that starts
# all its servers first can run each scenario as soon as its server is up.
fault_port() {
	[ -n "${_fault_ports[$1]:-}" ] || fault_servers_ready "$1"
	FAULT_PORT=${_fault_ports[$1]}
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
	# FAULT_JOBS=N: at most N runs at once; the next waits for the oldest
	# (a file's scenarios last about as long as each other).
	while [ -n "${FAULT_JOBS:-}" ] && [ "${#_fault_pids[@]}" -ge "$FAULT_JOBS" ]; do
		wait "${_fault_pids[0]}" || true
		_fault_pids=("${_fault_pids[@]:1}")
	done
	# bash's own clock (microseconds, whatever the locale's decimal mark):
	# a date(1) on each side timed two more process starts too.
	(
		t0=${EPOCHREALTIME/[.,]/}
		rc=0
		timeout "${cap[@]}" "$IMAPSTRESS" port="$FAULT_PORT" "$@" \
			--json "$TEST_TMP/$name.json" \
			>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" </dev/null || rc=$?
		t1=${EPOCHREALTIME/[.,]/}
		echo "$rc" >"$TEST_TMP/$name.rc"
		echo $(((t1 - t0) / 1000)) >"$TEST_TMP/$name.ms"
	) &
	_fault_pids+=($!)
	_fault_names+=("$name")
}

# Every run of the batch is over and its files final: one python reads
# them all (a file of 27 scenarios started 27, 42 s at load 20).  Names
# read before are read again: a scenario may run twice.
fault_wait() {
	local p name
	for p in "${_fault_pids[@]}"; do
		wait "$p" || true
	done
	_fault_pids=()
	[ "${#_fault_names[@]}" -gt 0 ] || return 0
	_fault_vars_make "${_fault_names[@]}"
	for name in "${_fault_names[@]}"; do
		unset '_fault_v["$name summary-read"]'
	done
	_fault_names=()
}

# _fault_vars_make NAME...: NAME.vars for each, "key value" lines: first
# what fault_common checks in NAME.out and NAME.err (scan.lines, their
# lines; scan.ctrl 1, a control or non-ASCII byte; scan.sanitizer 1, a
# sanitizer report in NAME.err), then, when NAME.json has a JSON summary,
# "summary 1" and the summary's figures.
_fault_vars_make() {
	"$PYTHON" - "$TEST_TMP" "$@" <<'EOF'
import json, os, re, sys

SANITIZER = re.compile(rb"AddressSanitizer|LeakSanitizer|"
                       rb"UndefinedBehaviorSanitizer|ThreadSanitizer|"
                       rb"runtime error:")
CTRL = re.compile(rb"[^\t\n\x20-\x7e]")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def summary_of(path):
    summary = None
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    obj = json.loads(line)
                    if obj.get("type") == "summary":
                        summary = obj
    except (OSError, ValueError):
        pass
    return summary


def vars_of(base):
    out, err = read(base + ".out"), read(base + ".err")
    yield "scan.lines", out.count(b"\n") + err.count(b"\n")
    yield "scan.ctrl", int(bool(CTRL.search(out) or CTRL.search(err)))
    yield "scan.sanitizer", int(bool(SANITIZER.search(err)))
    summary = summary_of(base + ".json")
    if summary is None:
        return
    yield "summary", 1
    for k in ("exit_status", "duration_s", "peak_rss_kb", "logins",
              "connects", "unfinished", "stop_reason", "state_unannounced"):
        yield k, summary.get(k, "")
    d = summary.get("duration_s")
    if isinstance(d, (int, float)):
        yield "duration_ms", int(round(d * 1000))
    for k, v in summary.get("errors", {}).items():
        yield "err." + k, v
    for k, v in summary.get("state_kinds", {}).items():
        yield "state." + k, v
    ok = 0
    for c, v in summary.get("commands", {}).items():
        for r in ("ok", "no", "bad", "failed"):
            yield "cmd.%s.%s" % (c, r), v.get(r, 0)
        ok += v.get("ok", 0)
    yield "ok_total", ok


for name in sys.argv[2:]:
    base = os.path.join(sys.argv[1], name)
    with open(base + ".vars", "w") as f:
        for k, v in vars_of(base):
            print(k, v, file=f)
EOF
}

# NAME.vars, made once, for a scenario that no fault_wait has read.
_fault_vars() {
	[ -f "$TEST_TMP/$1.vars" ] || _fault_vars_make "$1"
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

# _fault_read FILE DEFAULT: FILE's first line in REPLY, DEFAULT when there
# is no FILE (as $(cat FILE || echo DEFAULT) gave, with no process).
_fault_read() {
	REPLY=$2
	{ read -r REPLY || true; } 2>/dev/null <"$1" || true
}

fault_common() {
	local name=$1 secs=$2 grace=$3 rc ms lines rss js REPLY
	_fault_read "$TEST_TMP/$name.rc" missing
	rc=$REPLY
	_fault_read "$TEST_TMP/$name.ms" 0
	ms=$REPLY
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		_fault_bad "$name: hung: killed by the 40 s cap (exit $rc)"
	elif ! _fault_int "$rc"; then
		_fault_bad "$name: no exit status recorded"
	elif [ "$rc" -ge 128 ]; then
		_fault_bad "$name: killed by signal $((rc - 128)); stderr: $(tail -n 5 "$TEST_TMP/$name.err")"
	fi
	_fault_val "$name" scan.sanitizer
	if [ "$REPLY" = 1 ]; then
		_fault_bad "$name: sanitizer report: $(grep -m3 -E 'Sanitizer|runtime error:' "$TEST_TMP/$name.err")"
	fi
	# On time, in two parts.  The run, on its own clock (the summary's
	# duration_s, from the run's start to its report), ends within a
	# second of secs + grace (of secs + 10 s, the promise, for a silent
	# server): what the tool decides, kept at any load.  The process's
	# start-up and exit around it, the wall time less that clock, within
	# FAULT_SLACK: they need CPU the machine gives when it can (35-70 ms
	# idle; 1.5-1.8 s for an ASan build beside 30 busy loops and 48 other
	# processes of three copies of t_fault_session), so each part is
	# named apart when it fails.
	# the run's own bound, and the whole one (as before the split)
	local run_max_ms=$(((secs + grace + FAULT_RUN_SLACK) * 1000))
	local whole_ms=$(((secs + grace + FAULT_SLACK) * 1000))
	local bound="secs+grace+$FAULT_RUN_SLACK" whole="secs+grace+$FAULT_SLACK"
	if [ -n "${_FAULT_PROMISE:-}" ]; then
		run_max_ms=$(((secs + FAULT_PROMISE_S) * 1000))
		whole_ms=$run_max_ms
		bound="secs+$FAULT_PROMISE_S (the promise)" whole=$bound
	fi
	_fault_val "$name" duration_ms
	local run_ms=$REPLY
	if [ -z "${_FAULT_WALL_ONLY:-}" ] && _fault_int "$run_ms"; then
		[ "$run_ms" -lt "$run_max_ms" ] ||
			_fault_bad "$name: the run took $run_ms ms on its own clock, more than $bound = $run_max_ms ms"
		[ "$((ms - run_ms))" -lt "$((FAULT_SLACK * 1000))" ] ||
			_fault_bad "$name: start-up and exit took $((ms - run_ms)) ms around a run of $run_ms ms (wall $ms ms), more than $FAULT_SLACK s; load $(cut -d' ' -f1-3 /proc/loadavg)"
	else
		# No summary (reported below), or NAME.ms is not the process's
		# wall time (fault_wall_only): the bound on NAME.ms as a whole.
		[ "$ms" -lt "$whole_ms" ] ||
			_fault_bad "$name: took $ms ms, more than $whole = $whole_ms ms"
	fi
	_fault_val "$name" scan.lines
	lines=$REPLY
	[ "$lines" -lt "$FAULT_LINES_MAX" ] ||
		_fault_bad "$name: $lines lines of output (at most $FAULT_LINES_MAX); stderr starts: $(head -n 5 "$TEST_TMP/$name.err")"
	# Raw server bytes (garbage, TLS junk) must be escaped before they
	# reach a terminal.
	_fault_val "$name" scan.ctrl
	if [ "$REPLY" = 1 ]; then
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

# fault_common for a scenario whose NAME.ms is timed from some moment of
# the run (t_fault_stop: from the signal), not from the process's start:
# the run's own clock does not measure it, NAME.ms is bounded whole.
fault_wall_only() {
	_FAULT_WALL_ONLY=1 fault_common "$@"
}

fault_exit() {
	local name=$1 want=$2 rc REPLY
	_fault_read "$TEST_TMP/$name.rc" missing
	rc=$REPLY
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
	_fault_val "$name" duration_ms
	local run_ms=$REPLY
	_fault_errors "$name"
	note "$name: exit $rc, $ms ms (run $run_ms ms), logins $logins, connects $connects, rss $rss KB, errors:$REPLY"
}

fault_finish() {
	if [ "$_fault_failed" -gt 0 ]; then
		echo "FAIL: $TEST_NAME: $_fault_failed check(s) failed" >&2
		exit 1
	fi
	note "all checks passed"
	exit 0
}
