#!/bin/bash
# scripts/reference-results, cut down to one configuration (Dovecot
# maildir with fsync, through scripts/seed-bench), 2 clients, 2 runs of
# 2 s, no capacity search: exit 0 (seed-bench found the server holding
# what each run reported), the
# document names the machine and the command line, its table's cell is
# the mean of the runs' APPEND rates (messages_appended / measured_s of
# each run's JSON summary, recomputed here) with its interval around it,
# and every run left its --json and --result files.  Bad options (and
# leaving both halves out) exit 2.
# The full run (every storage, 30/100/200 clients, the LoadSim capacity)
# is a benchmark of the machine: nothing of it is asserted.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${DOVECOT:-/usr/sbin/dovecot}" "${PYTHON:-python3}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
RR=$ROOT/scripts/reference-results

for bad in "--runs 1" "--configs maildir,nosuch" "--clients 0" "--frob" \
	"--capacity-day 0" "--capacity-max-time 1.5" "--no-append --no-capacity" \
	"--capacity-servers exim" "--capacity-profiles online,lazy"; do
	rc=0
	# shellcheck disable=SC2086
	"$RR" $bad --out "$TEST_TMP/bad" >"$TEST_TMP/bad.out" 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "'$bad': exit $rc, expected 2: $(cat "$TEST_TMP/bad.out")"
done

rc=0
IMAPSTRESS=$IMAPSTRESS run_with_timeout 120 "$RR" --configs maildir-yes --clients 2 \
	--runs 2 --secs 2 --no-capacity --out "$TEST_TMP/rr" >"$TEST_TMP/rr.out" \
	2>"$TEST_TMP/rr.err" || rc=$?
assert_eq 0 "$rc" "reference-results exit status ($(tail -n 5 "$TEST_TMP/rr.err"))"
"$PYTHON" - "$TEST_TMP/rr" <<'PY' || fail "the document: $(cat "$TEST_TMP/rr/README.md")"
import json, os, re, sys
d = sys.argv[1]
doc = open(os.path.join(d, "README.md")).read()
assert "- machine: %d x " % os.cpu_count() in doc, doc
assert "append=100" in doc and "--clients 2" in doc and "What went wrong" not in doc, doc
rates = []
for r in (1, 2):
    base = os.path.join(d, "append/maildir-yes-2-r%d" % r)
    assert os.path.getsize(base + ".result") > 0, base
    s = json.loads(open(base + ".json").read().splitlines()[-1])
    assert s["type"] == "summary" and s["messages_appended"] > 0, s
    rates.append(s["messages_appended"] / s["measured_s"])
m = re.search(r"^\| maildir-yes \| (\d+) \[(\d+)-(\d+)\] \|$", doc, re.M)
assert m, doc
mean, lo, hi = map(int, m.groups())
assert abs(mean - sum(rates) / 2) <= 0.5, (mean, rates)
assert lo <= mean <= hi, (lo, mean, hi)
print("rates", rates, "cell", m.group(0))
PY
note "ok"
