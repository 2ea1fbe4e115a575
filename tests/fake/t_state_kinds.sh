#!/bin/bash
# The state errors by sub-kind in every report, the error lines each kind
# may print, and the silent fallbacks said once (issue 33 item 3), against
# scripted servers:
#   kinds       state-kinds.conf: one static-changed error per FETCH and
#               one keyword error per selection, 2 connections; with
#               --errors-shown 7, --csv, --result and --metrics-listen.
#               The JSON summary's state_kinds add up to errors.state and
#               have exactly those two; the text summary's "state errors
#               by kind:" line, the CSV's state_* columns summed, the
#               result file merged and the Prometheus page say the same;
#               7 static-changed lines and 1 keyword line are printed.
#   kinds-five  the same server without --errors-shown: 5 lines.
#   no-uidnext  state-no-uidnext.conf (Courier's SELECT, no UIDNEXT), 3
#               connections: one warning that names the checks now off,
#               and no error; kinds (with UIDNEXT) has no such warning.
#   append-single / append-multi: append=100,50 against a server without
#               and with MULTIAPPEND, 2 connections: one warning without
#               (each APPEND then carries one message), none with.
# Then --errors-shown's bad values: exit 2 and a message naming it.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"
need_cmd curl

SECS=2 GRACE=2
SCEN=$ROOT/tests/fake/scenarios
common=(user=tester --workers 1 "secs=$SECS" --grace "$GRACE")
fetch=(- select=100 fetch=100 logout=0 "${common[@]}")

fault_server_start kinds --script "$SCEN/state-kinds.conf" --delay-ms 5
fault_server_start kinds-five --script "$SCEN/state-kinds.conf" --delay-ms 5
fault_server_start no-uidnext --script "$SCEN/state-no-uidnext.conf" --delay-ms 5
fault_server_start append-single --script "$SCEN/append-single.conf" --delay-ms 5
fault_server_start append-multi --script "$SCEN/append-multi.conf" --delay-ms 5
fault_servers_ready

fault_port kinds
fault_run kinds "${fetch[@]}" clients=2 --errors-shown 7 \
	--csv "$TEST_TMP/kinds.csv" --result "$TEST_TMP/kinds.result" \
	--metrics-listen 127.0.0.1:0 --metrics-linger 20
kinds_port=$FAULT_PORT
fault_port kinds-five
fault_run kinds-five "${fetch[@]}" clients=2
fault_port no-uidnext
fault_run no-uidnext "${fetch[@]}" clients=3
fault_port append-single
fault_run append-single - append=100,50 logout=0 clients=2 "${common[@]}"
fault_port append-multi
fault_run append-multi - append=100,50 logout=0 clients=2 "${common[@]}"

# The final Prometheus page of the kinds run: it lingers until one scrape
# has it whole (bounded by --metrics-linger; a hang, not a speed).
mport=
for _ in $(seq 200); do
	mport=$(sed -n 's|.*metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' \
		"$TEST_TMP/kinds.out" "$TEST_TMP/kinds.err" | head -n 1)
	[ -n "$mport" ] && break
	sleep 0.1
done
[ -n "$mport" ] || fail "kinds: no metrics address said: $(head -n 3 "$TEST_TMP/kinds.err")"
page=$TEST_TMP/kinds.prom
: >"$page"
for _ in $(seq 300); do
	curl -sf --max-time 5 "http://127.0.0.1:$mport/metrics" >"$page.new" 2>/dev/null &&
		mv "$page.new" "$page"
	grep -q '^imapstress_finished 1$' "$page" && break
	sleep 0.1
done
fault_wait
grep -q '^imapstress_finished 1$' "$page" || fail "kinds: no final metrics page"

for name in kinds kinds-five no-uidnext append-single append-multi; do
	fault_note "$name"
	fault_common "$name" $SECS $GRACE
done

# --- kinds: every report --------------------------------------------------
for name in kinds kinds-five; do
	fault_exit "$name" 1
	fault_kinds "$name" state
	fault_cmp "$name" state.keyword -eq 2
	fault_cmp "$name" state.static-changed -ge 10
done
summary "$TEST_TMP/kinds.json" errors.state state_kinds state_kinds.static-changed \
	state_kinds.keyword state_unannounced
state=${S[0]} kinds_sum=${S[1]} static=${S[2]} keyword=${S[3]}
# Each FETCH answer has UID 10 at 200 after 100: one change, one error.
fault_cmp kinds state.static-changed -eq "$(fault_get kinds cmd.FETCH.ok)"
assert_eq "$state" "$kinds_sum" "kinds: state_kinds add up to errors.state"
assert_eq "$state" $((static + keyword)) "kinds: static-changed + keyword = errors.state"
assert_eq 0 "${S[4]}" "kinds: state_unannounced"
note "kinds: state=$state static-changed=$static keyword=$keyword"

assert_eq "state errors by kind: static-changed=$static keyword=$keyword" \
	"$(grep '^state errors by kind:' "$TEST_TMP/kinds.out")" "kinds: text summary line"

csv=$("$PYTHON" - "$TEST_TMP/kinds.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = [c for c in rows[0] if c.startswith("state_")]
tot = {c: sum(int(r[c]) for r in rows) for c in cols}
print(len(cols), tot["state_static_changed"], tot["state_keyword"],
      sum(tot.values()))
EOF
) || fail "kinds: cannot read the CSV"
assert_eq "17 $static $keyword $state" "$csv" \
	"kinds: CSV state_* columns (count, static_changed, keyword, all) summed over the rows"

"$IMAPSTRESS" merge --json "$TEST_TMP/merged.json" "$TEST_TMP/kinds.result" \
	>"$TEST_TMP/merged.out" 2>"$TEST_TMP/merged.err" || true
summary "$TEST_TMP/merged.json" errors.state state_kinds.static-changed \
	state_kinds.keyword state_kinds
assert_eq "$state $static $keyword $state" "${S[*]}" \
	"kinds: merge of the result file (state, static-changed, keyword, all kinds)"
assert_eq "state errors by kind: static-changed=$static keyword=$keyword" \
	"$(grep '^state errors by kind:' "$TEST_TMP/merged.out")" "kinds: merge's text summary line"

prom() {
	sed -n "s/^imapstress_state_errors_total{kind=\"$1\"} \([0-9]*\)$/\1/p" "$page"
}
assert_eq "$static" "$(prom static-changed)" "kinds: Prometheus static-changed"
assert_eq "$keyword" "$(prom keyword)" "kinds: Prometheus keyword"
assert_eq 0 "$(prom seq-too-high)" "kinds: Prometheus seq-too-high"
assert_eq 17 "$(grep -c '^imapstress_state_errors_total{kind=' "$page")" \
	"kinds: Prometheus series, one per sub-kind"

# Error lines: --errors-shown of each sub-kind, the last saying so.
lines() { grep -c "^Error: tester\[[01]\]: .* ($2): " "$TEST_TMP/$1.err"; }
assert_eq 7 "$(lines kinds static-changed)" "kinds: static-changed lines with --errors-shown 7"
assert_eq 2 "$(lines kinds keyword)" "kinds: keyword lines"
assert_eq 1 "$(grep -c '(static-changed): .*(further errors of this kind are only counted)$' \
	"$TEST_TMP/kinds.err")" "kinds: the 7th static-changed line says the rest are counted"
assert_eq 5 "$(lines kinds-five static-changed)" "kinds-five: static-changed lines by default"
assert_eq 0 "$(grep -c 'no UIDNEXT' "$TEST_TMP/kinds.err")" "kinds: a server with UIDNEXT has no warning"

# --- no UIDNEXT: said once ------------------------------------------------
fault_exit no-uidnext 0
fault_kinds no-uidnext
fault_cmp no-uidnext cmd.SELECT.ok -eq 3
assert_eq 1 "$(grep -c '^Warning: server sent no UIDNEXT when the mailbox was selected: the uidnext checks (a new message.s UID not below it, an old one.s below it) and the checkpoint.s search for new messages .Recent nowhere are off for such selections$' \
	"$TEST_TMP/no-uidnext.err")" "no-uidnext: one warning for 3 sessions"

# --- MULTIAPPEND: said once when not offered -------------------------------
for name in append-single append-multi; do
	fault_exit "$name" 0
	fault_kinds "$name"
	fault_cmp "$name" cmd.APPEND.ok -gt 0
done
single='^Warning: server does not advertise MULTIAPPEND: one message per APPEND \(the APPEND repeat of 50% goes as APPENDs of their own\)$'
assert_eq 1 "$(grep -Ec "$single" "$TEST_TMP/append-single.err")" "append-single: one warning for 2 sessions"
assert_eq 0 "$(grep -c MULTIAPPEND "$TEST_TMP/append-multi.err")" "append-multi: no warning"
summary "$TEST_TMP/append-single.json" commands.APPEND.ok messages_appended
assert_eq "${S[0]}" "${S[1]}" "append-single: one message per APPEND"
summary "$TEST_TMP/append-multi.json" commands.APPEND.ok messages_appended
assert_ge "${S[1]}" $((S[0] + 1)) "append-multi: messages in ${S[0]} APPENDs (some carry more than one)"

# --- --errors-shown: bad values refused at start-up -----------------------
for bad in "x:--errors-shown x: not a number" "-1:--errors-shown -1: negative" \
	"1000001:--errors-shown 1000001: must be between 0 and 1000000"; do
	val=${bad%%:*} want=${bad#*:}
	rc=0
	"$IMAPSTRESS" --errors-shown "$val" port=1 secs=1 >"$TEST_TMP/bad.out" 2>&1 || rc=$?
	assert_eq 2 "$rc" "--errors-shown $val: exit status"
	grep -qF -- "$want" "$TEST_TMP/bad.out" ||
		fail "--errors-shown $val: no '$want' in: $(head -n 3 "$TEST_TMP/bad.out")"
done

fault_finish
