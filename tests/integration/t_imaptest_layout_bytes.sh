#!/bin/bash
# Issue 12: imapstress prints imaptest's layout byte for byte.  For three
# command lines, tests/data/imaptest-layout/ holds imaptest's real output
# (see its README); imapstress runs the same words against a private
# Dovecot, and both outputs, up to the end of the Totals row, must have the
# same layout:
#   - header rows (names, probabilities, repeat chances) and "Totals:":
#     identical bytes, trailing spaces included;
#   - count rows, "ms/cmd avg" rows and the Totals row: identical after
#     each number and the blanks before it become '#'s ending in 'N' at
#     the number's last digit ("  21    9" -> "###N####N"), so every
#     column must end where imaptest's does and every width and space
#     agree, while the counts may differ;
#   - runs of identical (normalised) rows count once, since how many
#     per-second rows a run prints depends on timing; the 10-second
#     "ms/cmd avg" + header repeat of default.out is part of the sequence.
# imapstress's additions to a per-second row, " err=N" and the last,
# partial row's " (last S s, drain included)" at its end, are taken off
# first (imaptest has nothing there); the extended summary after
# the Totals row must begin with a blank line.  imaptest is not needed.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

data=$(cd "$(dirname "$0")/../data" && pwd)
fixtures=$data/imaptest-layout
[ -r "$fixtures/default.out" ] || fail "no fixtures in $fixtures"

dovecot_start --fsync no

# layout FILE: the normalised sequence of lines up to the Totals row.
layout() {
	"$PYTHON" - "$1" <<'PYEOF'
import re, sys
# A number and the blanks before it: '#'s, and 'N' where its last digit is.
cols = lambda m: "#" * (len(m.group()) - 1) + "N"
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
out, totals = [], None
for i, line in enumerate(lines):
    if totals is not None and i > totals and not re.search(r"[A-Za-z%]", line):
        out.append(re.sub(r" *[0-9]+", cols, line))
        break               # the Totals row ends imaptest's output
    if line == "Totals:":
        totals = i
    line = re.sub(r" \(last [0-9.]+ s, drain included\)$", "", line)
    if re.search(r"[A-Za-z%:]", line) and not line.endswith("ms/cmd avg"):
        norm = line         # header rows, "Totals:": as they are
    else:
        line = re.sub(r" err=[0-9]+$", "", line)
        norm = re.sub(r" *[0-9]+", cols, line)
    if not out or out[-1] != norm:
        out.append(norm)
for l in out:
    print("|" + l + "|")
PYEOF
}

check_line() {
	local name=$1 user=$2 rc=0
	shift 2
	run_with_timeout 90 "$IMAPSTRESS" host=127.0.0.1 port="$DOVECOT_PORT" \
		user="$user%d" pass="$DOVECOT_PASS" mbox="$data/sample-crlf.mbox" "$@" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	assert_eq 0 "$rc" "$name: exit status (stderr: $(head -n 3 "$TEST_TMP/$name.err"))"
	layout "$fixtures/$name.out" >"$TEST_TMP/$name.want"
	layout "$TEST_TMP/$name.out" >"$TEST_TMP/$name.got"
	if ! diff -u "$TEST_TMP/$name.want" "$TEST_TMP/$name.got" >"$TEST_TMP/$name.diff"; then
		fail "$name: layout differs from imaptest's (- imaptest, + imapstress):
$(cat "$TEST_TMP/$name.diff")"
	fi
	# After imaptest's last line, imapstress's summary starts with a
	# blank line.
	local tl
	tl=$(grep -n '^Totals:$' "$TEST_TMP/$name.out" | cut -d: -f1)
	local hdr
	hdr=$(grep -c . <<<"$(sed -n '/^Totals:$/,$p' "$fixtures/$name.out")")
	assert_eq "" "$(sed -n "$((tl + hdr))p" "$TEST_TMP/$name.out")" \
		"$name: the line after the Totals row"
	note "$name: $(wc -l <"$TEST_TMP/$name.want") layout lines agree"
}

check_line default lya copybox=Copies clients=5 secs=11
check_line uidfetch lyb - select=100 uidfetch=50 fetch=100 fetch2=100,30 append=100,5 clients=5 secs=3
check_line auth lyc auth=100 clients=5 secs=3
note ok
