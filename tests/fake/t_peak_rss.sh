#!/bin/bash
# peak_rss_kb is imapstress's own peak (VmHWM), not its parent's (issue 19):
# a parent that holds 256 MB resident starts imapstress (fork + exec, as a
# Python benchmark script does); getrusage's ru_maxrss would report the
# parent's 256 MB as the child's high-water mark, /proc/self/status VmHWM
# counts the new process image only.  ee3fbf6 reported about 262,000 KB.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

HOLD_MB=256
# A sanitizer build keeps freed memory in a 256 MB quarantine, which a
# second of NOOPs fills: keep it small so the figure is still ours.
if grep -qa __asan_init "$IMAPSTRESS"; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
fi
fault_server small --messages 10
"${PYTHON:-python3}" - "$HOLD_MB" "$IMAPSTRESS" "$FAULT_PORT" "$TEST_TMP/small.json" \
	>"$TEST_TMP/small.out" 2>"$TEST_TMP/small.err" <<'PYEOF'
import subprocess, sys
hold = bytearray(int(sys.argv[1]) << 20)
for i in range(0, len(hold), 4096):	# touch every page: resident
    hold[i] = 1
argv = [sys.argv[2], "port=" + sys.argv[3], "-", "noop=100", "logout=0",
        "clients=1", "secs=1", "--json", sys.argv[4]]
sys.exit(subprocess.run(argv, stdin=subprocess.DEVNULL, timeout=40).returncode)
PYEOF
rc=$?
assert_eq "$rc" 0 "imapstress exit status (stderr: $(tail -n 3 "$TEST_TMP/small.err"))"
summary "$TEST_TMP/small.json" peak_rss_kb commands.NOOP.ok
note "parent held ${HOLD_MB} MB; imapstress reports peak RSS ${S[0]} KB, ${S[1]} NOOPs"
assert_ge "${S[1]}" 1 "NOOPs answered"
assert_ge "${S[0]}" 1000 "peak_rss_kb (a real figure, not 0)"
if [ "${S[0]}" -ge $((HOLD_MB * 1024 / 2)) ]; then
	fail "peak_rss_kb ${S[0]} is the parent's high-water mark, not imapstress's"
fi
fault_finish
