# tests/lib.sh: helpers for the shell tests (tests/fake, tests/integration).
# Source it first thing:   . "$(dirname "$0")/../lib.sh"
#
# Gives:
#   ROOT                 repository root (absolute)
#   IMAPSTRESS FAKEIMAPD binaries under test ($ROOT/build/... unless set)
#   DOVECOT_PRIVATE      $ROOT/scripts/dovecot-private
#   TEST_TMP             a scratch directory removed on exit
#   fail MSG                         print "FAIL: MSG" and exit 1
#   skip MSG                         print "SKIP: MSG" and exit 77
#   note MSG                         progress line on stderr
#   assert_eq EXPECTED ACTUAL MSG    string equality
#   assert_ge ACTUAL MIN MSG         integer ACTUAL >= MIN
#   assert_match REGEX TEXT MSG      some line of TEXT matches the ERE
#   need_cmd CMD...                  skip unless every command exists
#   make_tmpdir                      print a new directory under TEST_TMP
#   run_with_timeout SECS CMD...     run CMD, killed after SECS seconds
#   dovecot_start [ARGS]             start a private Dovecot (args as for
#                                    `dovecot-private start`), export its
#                                    DOVECOT_* variables, stop it on exit
#   dovecot_stop [DIR]               stop one now (default $DOVECOT_DIR)
#   fake_line_start DIR SCRIPT ARGS  a python line-protocol fake in the
#                                    background (port in DIR/port, FAKE_PID)
#   dovecot_lmtp_start [ARGS]        dovecot_start for a test that needs
#                                    Dovecot's LMTP too: skip without it,
#                                    fail without DOVECOT_LMTP_PORT
#   mailstack_start [ARGS]           a private Postfix in front of a private
#                                    Dovecot (scripts/mailstack-private):
#                                    MAILSTACK_*, DOVECOT_*; stopped on exit
#   mailstack_drained                Postfix's queue empty (bounded wait),
#                                    nothing relayed elsewhere
#   on_exit CMD                      also run CMD (eval'd) at exit
#   relay_start ADDR PORT FILE [DIR] a TCP relay (tests/integration/
#                                    tcp_relay.py) from ADDR:free port to
#                                    127.0.0.1:PORT, stopped on exit; its
#                                    port in FILE and RELAY_PORT; with DIR
#                                    each connection's octets on file there
#   IMAP_SERVER          which real server the server_* helpers start:
#                        dovecot (default) or cyrus
#   need_server                      skip unless $IMAP_SERVER can run here
#   server_start [ARGS]              start a private $IMAP_SERVER (ARGS as
#                                    for dovecot-private start; cyrus-private
#                                    takes the same), stop it on exit, and
#                                    set SERVER_DIR SERVER_PORT SERVER_PASS
#                                    (with --tls SERVER_TLS_PORT SERVER_CA)
#   server_count USER [MAILBOX]      the server's own message count
#   server_count_all [MAILBOX]       the same summed over every user
#   server_sessions_wait [SECS]      wait until the server has closed every
#                                    client session (after a SIGKILL)
#   stress NAME ARGS...              imapstress ARGS --json TEST_TMP/NAME.json,
#                                    output in NAME.out/.err, exit status in RC
#   stress_until NAME CAP PATH MIN ARGS...
#                                    imapstress ARGS (give secs=0) as stress
#                                    does, stopped with SIGTERM once its JSON
#                                    ticks' PATH (dotted, e.g. commands.CHECK.ok)
#                                    sums to MIN; PATH may be a comma list,
#                                    each of which must reach MIN; with
#                                    UNTIL_MIN_SECS=S not before S seconds;
#                                    fails if that takes CAP s or the drain
#                                    after it 60 s; exit status in RC, and
#                                    the time of the SIGTERM in NAME.sigtime
# Every test runs under `set -eu`; do not install your own EXIT trap, use
# on_exit.
# shellcheck shell=bash

# Sourced once per process: fault_lib.sh and latency_lib.sh source this file
# too, and a second pass would take the test for a new supervisor (below)
# and start the test again, and again (t_scripts_fake sources both: 1147
# processes).  Not exported: the supervisor's body is a new bash.
[ -z "${_LIB_SOURCED:-}" ] || return 0
_LIB_SOURCED=1

set -eu

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
IMAPSTRESS=${IMAPSTRESS:-$ROOT/build/imapstress}
FAKEIMAPD=${FAKEIMAPD:-$ROOT/build/fakeimapd}
DOVECOT_PRIVATE=$ROOT/scripts/dovecot-private
CYRUS_PRIVATE=$ROOT/scripts/cyrus-private
IMAP_SERVER=${IMAP_SERVER:-dovecot}
case $IMAP_SERVER in
dovecot) SERVER_PRIVATE=$DOVECOT_PRIVATE ;;
cyrus) SERVER_PRIVATE=$CYRUS_PRIVATE ;;
*) echo "FAIL: IMAP_SERVER '$IMAP_SERVER' is not dovecot or cyrus" >&2; exit 1 ;;
esac
export ROOT IMAPSTRESS FAKEIMAPD DOVECOT_PRIVATE CYRUS_PRIVATE IMAP_SERVER

TEST_NAME=$(basename "$0")
[ "$IMAP_SERVER" = dovecot ] || TEST_NAME="${TEST_NAME}[$IMAP_SERVER]"

# Set by the supervisor at the end of this file.
TEST_TMP=

# Cleanup state, all in this shell: helpers that need to register something
# must therefore not be called from a $(...) subshell.
_lib_dovecot_dirs=()
_lib_cyrus_dirs=()
_lib_exit_cmds=()

_lib_cleanup() {
	local rc=$? i
	trap - EXIT
	set +e
	for ((i = ${#_lib_exit_cmds[@]} - 1; i >= 0; i--)); do
		eval "${_lib_exit_cmds[i]}"
	done
	for i in "${!_lib_dovecot_dirs[@]}"; do
		timeout 30 "$DOVECOT_PRIVATE" stop --dir "${_lib_dovecot_dirs[i]}" >&2
	done
	for i in "${!_lib_cyrus_dirs[@]}"; do
		timeout 30 "$CYRUS_PRIVATE" stop --dir "${_lib_cyrus_dirs[i]}" >&2
	done
	# Done: the supervisor must not stop any of it again.
	rm -rf -- "$TEST_TMP"
	exit "$rc"
}
trap _lib_cleanup EXIT

# _lib_save: what _lib_cleanup would run, as a script the supervisor can
# source after a signal has killed this shell (so lib.sh's functions and
# self-contained commands only: "stop_bg $pid", not a test's own function).
_lib_save() {
	local i f=$TEST_TMP/.cleanup
	{
		for ((i = ${#_lib_exit_cmds[@]} - 1; i >= 0; i--)); do
			printf '%s\n' "${_lib_exit_cmds[i]}"
		done
		for i in "${!_lib_dovecot_dirs[@]}"; do
			printf 'timeout 30 "$DOVECOT_PRIVATE" stop --dir %q >&2\n' "${_lib_dovecot_dirs[i]}"
		done
		for i in "${!_lib_cyrus_dirs[@]}"; do
			printf 'timeout 30 "$CYRUS_PRIVATE" stop --dir %q >&2\n' "${_lib_cyrus_dirs[i]}"
		done
	} >"$f.tmp" && mv -f -- "$f.tmp" "$f"
}

on_exit() {
	_lib_exit_cmds+=("$1")
	_lib_save
}

note() {
	echo "[$TEST_NAME] $*" >&2
}

# _lib_alive PID: the process exists and has not yet exited (a child that
# has exited stays a zombie until waited for, and kill -0 still succeeds).
_lib_alive() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ]
}

# stop_bg PID: stop a process this test started with &: TERM, up to 10 s
# to go, then KILL; then reap it (when it is this shell's child: the
# supervisor also runs it, for the body's children).  A program that
# ignores or mishandles TERM must not hang the test.  Safe under set -e:
# returns 0.
stop_bg() {
	local pid=$1 i
	if ! kill "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
		return 0
	fi
	for ((i = 0; i < 100; i++)); do
		_lib_alive "$pid" || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $TEST_NAME: $*" >&2
	exit 77
}

# realtime_take: for a test that measures latency under SCHED_FIFO.  One
# such test at a time on the machine (an flock held until the test ends):
# realtime tasks of one priority do not preempt each other, so another
# test's realtime start-up beside this one's commands was this one's
# latency (bench-latency saw a probe's python start-up, 0.1 s of CPU at the
# same priority, push 1% of the first NOOPs to 104 ms at D = 20 ms).  Then
# RT=(chrt -f 10) where we may (root, or CAP_SYS_NICE), else RT=() and a
# note; the caller puts RT in front of what it measures.
realtime_take() {
	local lock=${TMPDIR:-/tmp}/imapstress-realtime.lock
	exec 9>>"$lock" || fail "realtime_take: cannot open $lock"
	flock -w 240 9 || fail "realtime_take: another realtime test held $lock for 240 s"
	# shellcheck disable=SC2034 # RT is the caller's
	if chrt -f 10 true 2>/dev/null; then
		RT=(chrt -f 10)
	else
		RT=()
		note "no realtime scheduling here; latencies include scheduler noise"
	fi
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "needs '$c', which is not installed"
	done
}

assert_eq() {
	[ $# -eq 3 ] || fail "assert_eq needs EXPECTED ACTUAL MSG, got $# arguments"
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}

_lib_is_int() {
	case $1 in
	'' | - | *[!0-9-]* | ?*-*) return 1 ;;
	esac
}

assert_ge() {
	[ $# -eq 3 ] || fail "assert_ge needs ACTUAL MIN MSG, got $# arguments"
	_lib_is_int "$1" || fail "$3: '$1' is not an integer"
	_lib_is_int "$2" || fail "$3: minimum '$2' is not an integer"
	[ "$1" -ge "$2" ] || fail "$3: expected at least $2, got $1"
}

assert_match() {
	[ $# -eq 3 ] || fail "assert_match needs REGEX TEXT MSG, got $# arguments"
	printf '%s\n' "$2" | grep -Eq -- "$1" || fail "$3: no line matches /$1/; text was:
$(printf '%s\n' "$2" | head -n 20)"
}

make_tmpdir() {
	mktemp -d "$TEST_TMP/d.XXXXXX"
}

# timeout(1) signals the whole process group it creates, so children of
# CMD go too; --kill-after catches whatever ignores TERM.
# CMD must be a program: timeout(1) cannot run a shell function.
run_with_timeout() {
	local secs=$1 rc=0
	shift
	if declare -F "$1" >/dev/null; then
		fail "run_with_timeout: '$1' is a shell function; run a program"
	fi
	timeout --kill-after=5 "$secs" "$@" || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "[$TEST_NAME] timed out after ${secs}s: $*" >&2
	fi
	return "$rc"
}

# Not under TEST_TMP on purpose: as root, Dovecot reads mail as an
# unprivileged user who must be able to traverse the instance directory,
# and TEST_TMP is private (mode 0700).
dovecot_start() {
	local out
	out=$(run_with_timeout 60 "$DOVECOT_PRIVATE" start "$@") ||
		fail "could not start the private Dovecot (args: $*)"
	eval "$out"
	[ -n "${DOVECOT_DIR:-}" ] || fail "dovecot-private start printed no DOVECOT_DIR"
	_lib_dovecot_dirs+=("$DOVECOT_DIR")
	_lib_save
}

# mailstack_start [ARGS]: scripts/mailstack-private's Postfix in front of
# a private Dovecot (ARGS as dovecot-private start's), its MAILSTACK_* and
# DOVECOT_* variables set; stopped at exit.  Skips where Postfix cannot run
# (not root: its master must start as root) or is not installed
# (scripts/deps installs postfix and dovecot-submissiond).
mailstack_start() {
	local out
	[ "$(id -u)" -eq 0 ] || skip "the private Postfix needs root"
	[ -x /usr/sbin/postfix ] || skip "Postfix is not installed (scripts/deps: postfix)"
	[ -x /usr/lib/dovecot/lmtp ] || skip "Dovecot's lmtp is not installed (dovecot-lmtpd)"
	out=$(run_with_timeout 90 "$ROOT/scripts/mailstack-private" start "$@") ||
		fail "could not start the private mail stack (args: $*)"
	eval "$out"
	[ -n "${MAILSTACK_DIR:-}" ] || fail "mailstack-private start printed no MAILSTACK_DIR"
	on_exit "timeout 60 \"\$ROOT/scripts/mailstack-private\" stop --dir $(printf %q "$MAILSTACK_DIR") >&2"
}

# mailstack_drained: Postfix's queue empties within 60 s (each message
# goes to LMTP within seconds), and it delivered nowhere but the private
# Dovecot's LMTP; fails otherwise.
mailstack_drained() {
	for _ in $(seq 1 600); do
		[ "$("$ROOT/scripts/mailstack-private" queue)" = 0 ] && break
		sleep 0.1
	done
	assert_eq 0 "$("$ROOT/scripts/mailstack-private" queue)" "messages left in Postfix's queue after 60 s"
	local relayed
	relayed=$("$ROOT/scripts/mailstack-private" relayed)
	[ -z "$relayed" ] || fail "Postfix delivered elsewhere than the private LMTP: $relayed"
}

relay_start() {
	local py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	"$py" "$ROOT/tests/integration/tcp_relay.py" "$@" &
	on_exit "stop_bg $!"
	for _ in $(seq 1 100); do
		[ -s "$3" ] && break
		sleep 0.05
	done
	[ -s "$3" ] || fail "the relay wrote no port"
	RELAY_PORT=$(cat "$3")
}

# fake_line_start DIR SCRIPT ARGS...: a line-protocol fake (tests/fake/
# fake_smtp.py, fake_pop3.py) started in the background with --port-file
# DIR/port --log DIR/log, stopped on exit; waits for its port file (FAKE_PID
# is its pid).
fake_line_start() {
	local dir=$1 script=$2 py=/usr/bin/python3
	shift 2
	[ -x "$py" ] || py=python3
	"$py" "$script" --port-file "$dir/port" --log "$dir/log" "$@" &
	FAKE_PID=$!
	on_exit "stop_bg $FAKE_PID"
	for _ in $(seq 1 100); do
		[ -s "$dir/port" ] && return 0
		sleep 0.05
	done
	fail "$(basename "$script"): wrote no port in 5 s"
}

dovecot_lmtp_start() {
	need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
	[ -x /usr/lib/dovecot/lmtp ] || skip "Dovecot's lmtp is not installed (dovecot-lmtpd)"
	dovecot_start "$@"
	[ -n "${DOVECOT_LMTP_PORT:-}" ] || fail "dovecot-private printed no DOVECOT_LMTP_PORT"
}

dovecot_stop() {
	local d=${1:-${DOVECOT_DIR:-}} i
	[ -n "$d" ] || fail "dovecot_stop: no private Dovecot given or running"
	for i in "${!_lib_dovecot_dirs[@]}"; do
		[ "${_lib_dovecot_dirs[i]}" != "$d" ] || unset "_lib_dovecot_dirs[i]"
	done
	_lib_save
	run_with_timeout 30 "$DOVECOT_PRIVATE" stop --dir "$d" ||
		fail "could not stop the private Dovecot in $d"
	if [ "$d" = "${DOVECOT_DIR:-}" ]; then
		unset DOVECOT_DIR DOVECOT_PORT DOVECOT_TLS_PORT DOVECOT_CA DOVECOT_FORMAT
	fi
}

# Cyrus is unpacked from Debian's packages into a cache (scripts/deps does
# it on a fresh machine); fetch is a no-op once it is there.
need_server() {
	case $IMAP_SERVER in
	dovecot) need_cmd "${DOVECOT:-/usr/sbin/dovecot}" ;;
	cyrus)
		run_with_timeout 120 "$CYRUS_PRIVATE" fetch >&2 ||
			skip "Cyrus is not unpacked and could not be fetched (scripts/deps does it)" ;;
	esac
}

server_start() {
	local out
	case $IMAP_SERVER in
	dovecot)
		dovecot_start "$@"
		SERVER_DIR=$DOVECOT_DIR SERVER_PORT=$DOVECOT_PORT SERVER_PASS=$DOVECOT_PASS
		SERVER_TLS_PORT=${DOVECOT_TLS_PORT:-} SERVER_CA=${DOVECOT_CA:-} ;;
	cyrus)
		out=$(run_with_timeout 60 "$CYRUS_PRIVATE" start "$@") ||
			fail "could not start the private Cyrus (args: $*)"
		eval "$out"
		[ -n "${CYRUS_DIR:-}" ] || fail "cyrus-private start printed no CYRUS_DIR"
		_lib_cyrus_dirs+=("$CYRUS_DIR")
		_lib_save
		SERVER_DIR=$CYRUS_DIR SERVER_PORT=$CYRUS_PORT SERVER_PASS=$CYRUS_PASS
		SERVER_TLS_PORT=${CYRUS_TLS_PORT:-} SERVER_CA=${CYRUS_CA:-} ;;
	esac
	export SERVER_DIR SERVER_PORT SERVER_PASS SERVER_TLS_PORT SERVER_CA
}

# dovecot_counts_match: each "USER FOLDER N" line on stdin must be what
# the private Dovecot holds (dovecot-private count); the first that is not
# is printed, status 1.
dovecot_counts_match() {
	local user rest folder n got
	# The folder may have blanks ("Deleted Items"): the count is the last word.
	while read -r user rest; do
		folder=${rest% *}
		n=${rest##* }
		got=$("$DOVECOT_PRIVATE" count "$user" "$folder")
		if [ "$got" != "$n" ]; then
			echo "$user $folder: the run says $n, the server holds $got"
			return 1
		fi
	done
}

server_count() {
	run_with_timeout 30 "$SERVER_PRIVATE" count --dir "$SERVER_DIR" "$@"
}

server_count_all() {
	run_with_timeout 60 "$SERVER_PRIVATE" count-all --dir "$SERVER_DIR" "$@"
}

# server_sessions_wait [SECS]: wait (default up to 60 s) until no process
# of the private server holds an open TCP connection: a client killed with
# SIGKILL leaves commands in the server's socket buffer that the server
# still carries out (an APPEND committed after the kill), so what the
# server holds is only final once it has closed the session.  Watching
# TCP states is not enough: a client that dies with replies unread sends
# RST, the socket leaves the TCP table at once, and the server process
# still reads what was queued before it.  So this looks at the server's
# own file descriptors: a socket that is neither a Unix, UDP, raw or
# netlink socket nor a listening TCP one is a session.  Status 1 (and the
# sockets on stderr) if some are still open after SECS.
server_sessions_wait() {
	local pid
	pid=$(run_with_timeout 10 "$SERVER_PRIVATE" pid --dir "$SERVER_DIR") ||
		fail "server_sessions_wait: no pid for the private $IMAP_SERVER"
	"${PYTHON:-python3}" - "$pid" "${1:-60}" <<'PYEOF'
import os, re, sys, time
root, secs = int(sys.argv[1]), float(sys.argv[2])

def inodes(path, col, keep=lambda f: True):
    out = set()
    try:
        with open(path) as f:
            next(f)
            for line in f:
                fs = line.split()
                if len(fs) > col and keep(fs):
                    out.add(fs[col])
    except OSError:
        pass
    return out

def tree():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    todo, out = [root], []
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out

def sessions():
    other = inodes("/proc/net/unix", 6) | inodes("/proc/net/netlink", 8)
    for t in ("tcp", "tcp6"):	# state 0A: LISTEN
        other |= inodes(f"/proc/net/{t}", 9, lambda f: f[3] == "0A")
    for t in ("udp", "udp6", "raw", "raw6"):
        other |= inodes(f"/proc/net/{t}", 9)
    found = []
    for p in tree():
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                m = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(f"/proc/{p}/fd/{fd}"))
            except OSError:
                continue
            if m and m.group(1) not in other:
                found.append(f"pid {p} fd {fd} socket {m.group(1)}")
    return found

end = time.monotonic() + secs
while True:
    left = sessions()
    if not left:
        sys.exit(0)
    if time.monotonic() > end:
        sys.exit("still open after %g s: %s" % (secs, ", ".join(left[:5])))
    time.sleep(0.1)
PYEOF
}

stress() {
	local name=$1
	shift
	RC=0
	run_with_timeout 60 "$IMAPSTRESS" "$@" --json "$TEST_TMP/$name.json" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || RC=$?
}

# A run's end tied to what it did, not to the clock: a busy machine makes
# a fixed secs= a bet on how far the run gets.  CAP only catches a hang.
# The watcher starts imapstress itself, so no pid of a finished run is
# ever signalled.  Why a failure happened is in NAME.why.
stress_until() {
	local name=$1 cap=$2 path=$3 min=$4
	shift 4
	RC=0
	run_with_timeout $((cap + 90)) "${PYTHON:-python3}" - "$TEST_TMP/$name" \
		"$cap" "$path" "$min" "$IMAPSTRESS" "$@" <<'PYEOF' ||
import json, os, signal, subprocess, sys, time
base, cap, need, argv = sys.argv[1], float(sys.argv[2]), int(sys.argv[4]), \
    sys.argv[5:]
paths = [p.split(".") for p in sys.argv[3].split(",")]
min_secs = float(os.environ.get("UNTIL_MIN_SECS") or 0)
DRAIN = 60	# the run's promise after a signal: grace 30 s, then cut

def value(tick, path):
    v = tick
    for k in path:
        v = v.get(k) if isinstance(v, dict) else None
    return v if isinstance(v, int) else 0

def done(got, elapsed):
    return min(got) >= need and elapsed >= min_secs

with open(base + ".out", "wb") as out, open(base + ".err", "wb") as err:
    p = subprocess.Popen(argv + ["--json", base + ".json"], stdout=out,
                         stderr=err, stdin=subprocess.DEVNULL)
why, got, pos, start = None, [0] * len(paths), 0, time.monotonic()
while p.poll() is None and not done(got, time.monotonic() - start):
    if time.monotonic() - start > cap:
        why = "; ".join("%s reached %d of %d" % (".".join(path), g, need)
                        for path, g in zip(paths, got)) + " in %g s" % cap
        break
    time.sleep(0.2)
    try:
        with open(base + ".json", "rb") as f:
            f.seek(pos)
            while True:
                line = f.readline()
                if not line.endswith(b"\n"):
                    break
                pos += len(line)
                t = json.loads(line)
                if t.get("type") == "tick":
                    got = [g + value(t, path) for g, path in zip(got, paths)]
    except FileNotFoundError:
        pass
if p.poll() is None:
    # Commands sent after this time are the drain's (imapstress learn
    # --until leaves them out).
    open(base + ".sigtime", "w").write("%.6f\n" % time.time())
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(DRAIN)
    except subprocess.TimeoutExpired:
        p.kill()
        why = why or "still running %d s after SIGTERM" % DRAIN
        p.wait()
open(base + ".rc", "w").write("%d\n" % p.returncode)
if why:
    open(base + ".why", "w").write(why + "\n")
    sys.exit(1)
PYEOF
		fail "$name: $(cat "$TEST_TMP/$name.why" 2>/dev/null || echo "the watcher failed") (stderr: $(grep -m 3 -E '^(Error|Warning)' "$TEST_TMP/$name.err"))"
	RC=$(cat "$TEST_TMP/$name.rc")
}

# The foreign-mail guard (issue 31) in the rawlogs of DIR: guard_destroyed
# DIR, the destructive commands sent (EXPUNGE, UID EXPUNGE, MOVE, DELETE,
# CLOSE, a STORE of \Deleted); guard_searches DIR, its checks sent.
guard_destroyed() {
	cat "$1"/rawlog.* 2>/dev/null |
		grep -ciE '^C: [^ ]+ (UID )?(EXPUNGE|MOVE|DELETE|CLOSE)( |$)|^C: [^ ]+ (UID )?STORE .*FLAGS.*\\Deleted' || true
}
guard_searches() {
	cat "$1"/rawlog.* 2>/dev/null |
		grep -c '^C: [^ ]* UID SEARCH NOT HEADER X-Imapstress ""' || true
}

# summary FILE PATH...: reads the summary object (the last line of a --json
# file; fails otherwise) and sets the array S to the values at the dotted
# PATHs, one each: "-" for a missing path, 0 for a command that never ran
# ("commands.X..."), the sum of the counts for an object such as "errors".
summary() {
	local out
	out=$("${PYTHON:-python3}" - "$@" <<'PYEOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line of %s is not the summary: %s" % (sys.argv[1], lines[-1][:200]))
for path in sys.argv[2:]:
    v = s
    for k in path.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    if v is None and path.startswith("commands."):
        v = 0
    if isinstance(v, dict):
        v = sum(v.values())
    print("-" if v is None else v)
PYEOF
) || fail "no JSON summary in $1"
	mapfile -t S <<<"$out"
}

# The test runs in two processes.  bash 5.2 runs a pending trap from inside
# its parser when it parses a $(...) at expansion time, with the parser
# still waiting for that ')': the trap's own text then fails to parse
# ("trap: line 2: unexpected EOF while looking for matching `)'") and the
# shell can hang instead of exiting (reproduced: a TERM to a loop of
# x="$(true)$(true)" under `trap 'exit 143' TERM` does it 16 times in 40).
# A test is full of $(...), so the test itself (the body) installs no
# signal trap at all: a TERM or ^C (sent to the whole process group, by
# run-all's timeout(1) or the terminal) kills it outright.  This first
# process (the supervisor) runs the body in the foreground and expands no
# $(...) once its traps are set, so its trap runs once the body has died,
# between two commands; it then stops what the body registered
# (TEST_TMP/.cleanup, written by _lib_save) and exits.  The body runs in
# the foreground because bash starts a `&` job with SIGINT ignored, which
# its programs would inherit.  This block is last in the file so that
# stop_bg and the rest are defined in the supervisor too.
if [ "${_LIB_SUPERVISOR:-}" != "$PPID" ]; then
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/imapstress-test.XXXXXX")
	trap - EXIT
	_lib_supervise() {
		trap '' TERM INT HUP
		set +e
		# shellcheck disable=SC1091
		[ ! -f "$TEST_TMP/.cleanup" ] || . "$TEST_TMP/.cleanup"
		rm -rf -- "$TEST_TMP"
		exit "$1"
	}
	trap '_lib_supervise 143' TERM
	trap '_lib_supervise 130' INT
	trap '_lib_supervise 129' HUP
	_lib_rc=0
	_LIB_SUPERVISOR=$$ _LIB_TEST_TMP=$TEST_TMP "$BASH" "$0" "$@" || _lib_rc=$?
	_lib_supervise "$_lib_rc"
fi
TEST_TMP=$_LIB_TEST_TMP
unset _LIB_SUPERVISOR _LIB_TEST_TMP
# Debian's python3 first, for the test and everything it starts (scripts
# whose first line is `#!/usr/bin/env python3`): a python3 earlier on PATH
# may be a version manager's shim (pyenv's took 0.9 s a start at load 15,
# /usr/bin/python3 0.06 s), and a test starts python3 dozens of times
# (t_state_checks spent 42 of its 60 s starting it).  The tests need only
# the standard library.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$TEST_TMP/.bin" && ln -s /usr/bin/python3 "$TEST_TMP/.bin/python3" &&
		PATH=$TEST_TMP/.bin:$PATH
fi
