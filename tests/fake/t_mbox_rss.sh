#!/bin/bash
# Loading a large mbox never holds two copies of it (issue 19): the file is
# mapped and its pages are dropped behind the scan while the CRLF arena is
# filled, so peak RSS stays within 1.2x the file (8a51241: the mapping and
# the arena were both resident, 2x).  2,000 messages of 75 KB (149 MB),
# - append=100,0 select=0 logout=0, clients=1, secs=1: the run must APPEND
# from the pool (messages_appended > 0) and its JSON peak_rss_kb, which
# covers the whole process from exec, is compared with the file's size.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

# AddressSanitizer's shadow and quarantine change RSS: under it the load
# still runs (and is checked for memory errors), the bound is not asserted.
asan=0
if ldd "$IMAPSTRESS" 2>/dev/null | grep -q libasan; then
	asan=1
fi
MBOX=$TEST_TMP/big.mbox
"${PYTHON:-python3}" - "$MBOX" <<'PYEOF'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, __import__("os").environ["ROOT"] + "/scripts")
import bench_imaptest
bench_imaptest.write_mbox(sys.argv[1], 2000, 75 * 1024)
PYEOF
size_kb=$(($(stat -c %s "$MBOX") / 1024))

fault_server big
fault_run big - append=100,0 select=0 logout=0 clients=1 user=big secs=1 \
	"mbox=$MBOX"
fault_wait
fault_exit big 0
summary "$TEST_TMP/big.json" messages_appended peak_rss_kb
note "file ${size_kb} KB, peak RSS ${S[1]} KB, ${S[0]} messages appended"
assert_ge "${S[0]}" 1 "messages appended from the mbox"
if [ "$asan" = 1 ]; then
	note "AddressSanitizer build: the RSS bound is not asserted"
elif [ "${S[1]}" -gt $((size_kb * 12 / 10)) ]; then
	fail "peak RSS ${S[1]} KB is over 1.2x the ${size_kb} KB mbox (two copies resident?)"
fi
fault_finish
