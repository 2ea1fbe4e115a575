#!/bin/bash
# t_loadsim_clean_copy.sh: LoadSim's clean inbox against a server without
# MOVE (fakeimapd's mail-store mode, --caps without it), once with UIDPLUS
# and once without.  Clean inbox then moves the oldest read mail to
# "Deleted Items" as UID COPY, UID STORE \Deleted and UID EXPUNGE uid
# (plain EXPUNGE without UIDPLUS), and empties the folder past
# deleted_folder_max_messages = 2.  Checks, per caps:
# - no MOVE was sent, UID COPY and EXPUNGE were, UID EXPUNGE only with
#   UIDPLUS (the client's rawlog);
# - clean moved mail and emptied the folder (moved_to_deleted and
#   expunged.Deleted >= 1), no failed action, no command error;
# - the store holds what the run says, user by user (STATUS over IMAP):
#   INBOX = delivered - expunged.INBOX, Deleted Items = moved_to_deleted -
#   expunged.Deleted (the folder starts empty: set-up creates it).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd at $FAKEIMAPD"
[ -x "$IMAPSTRESS" ] || fail "no imapstress at $IMAPSTRESS"

USERS=4

# run_caps NAME CAPS UIDPLUS(yes|no): one run against a fresh fake
# offering CAPS.
run_caps() {
	local name=$1 caps=$2 dir rc i
	dir=$(make_tmpdir)
	"$FAKEIMAPD" --port 0 --port-file "$dir/port" --lmtp-port-file "$dir/lmtp" \
		--caps "$caps" --stats-file "$dir/stats" >"$dir/out" 2>"$dir/err" &
	local pid=$!
	on_exit "stop_bg $pid"
	for i in $(seq 100); do
		[ -s "$dir/lmtp" ] && [ -s "$dir/port" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name: fakeimapd died: $(cat "$dir/err")"
		sleep 0.1
	done
	[ -s "$dir/lmtp" ] || fail "$name: fakeimapd wrote no LMTP port"
	local port lmtp
	port=$(cat "$dir/port")
	lmtp=$(cat "$dir/lmtp")
	cat >"$dir/profile" <<PROFILE
lmtp_port = $lmtp
total_user_count = $USERS
rampup_time = 1s
day_length = 8 hours
day_compressed_to = 10 s
user loadsim {
  count = 100%
  username_format = cl%n
  received_mail_per_day = 40
  browse_mail_per_day = 40
  clean_inbox_per_day = 30
  deleted_folder_max_messages = 2
}
client online {
  count = 100%
  client_mode = online
  imap_idle = yes
}
PROFILE
	rc=0
	(cd "$dir" && run_with_timeout 60 "$IMAPSTRESS" --profile "$dir/profile" \
		--host 127.0.0.1 --port "$port" --duration 5 --seed 9 --rawlog \
		--profile-counts "$dir/counts.json" --json "$dir/run.json" \
		>"$dir/run.out" 2>"$dir/run.err") || rc=$?
	assert_eq 0 "$rc" "$name: run exit status (stderr: $(tail -n 5 "$dir/run.err"))"
	assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
		"$(cat "$dir/run.out")" "$name: no command errors"
	PYTHONDONTWRITEBYTECODE=1 run_with_timeout 60 python3 - "$port" \
		"$dir/counts.json" "$dir/run.json" "$caps" >"$dir/check.out" 2>&1 <<'PY' ||
import imaplib, json, re, sys
port, counts, run, caps = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
d = json.load(open(counts))
s = [json.loads(l) for l in open(run) if '"summary"' in l][-1]
cmds, acts = s["commands"], s["profile"]["actions"]
for name, a in acts.items():
    assert a["failed"] == 0, (name, a)
assert cmds.get("MOVE", {}).get("ok", 0) == 0, cmds.get("MOVE")
assert cmds["COPY"]["ok"] >= 1, cmds.get("COPY")
t = d["totals"]
assert d["deleted_folder"] == "Deleted Items", d["deleted_folder"]
assert t["moved_to_deleted"] >= 1 and t["expunged"]["Deleted"] >= 1, t
# Every COPY OK'd is a move; its original goes at the expunge after.
assert t["moved_to_deleted"] == cmds["COPY"]["ok"], (t, cmds["COPY"])
for u in d["users"]:
    m = imaplib.IMAP4("127.0.0.1", port)
    m.login(u["user"], "pass")
    want = {"INBOX": u["delivered"]["INBOX"] - u["expunged"]["INBOX"],
            '"Deleted Items"': u["moved_to_deleted"] - u["expunged"]["Deleted"]}
    for box, n in want.items():
        typ, data = m.status(box, "(MESSAGES)")
        got = int(re.search(rb"MESSAGES (\d+)", data[0]).group(1))
        assert got == n, (u["user"], box, "run says", n, "store holds", got)
    m.logout()
print("moved", t["moved_to_deleted"], "expunged from Deleted Items",
      t["expunged"]["Deleted"], "COPY", cmds["COPY"]["ok"])
PY
		fail "$name: $(tail -n 5 "$dir/check.out")"
	note "$name: $(tail -n 1 "$dir/check.out")"
	# What went on the wire.
	local sent
	sent=$(cat "$dir"/rawlog.* | tr -d '\r' | grep -aE '^C: [^ ]+ ' | cut -d' ' -f3-)
	if grep -q '^UID MOVE' <<<"$sent"; then
		fail "$name: UID MOVE sent to a server without MOVE"
	fi
	assert_match '^UID COPY [0-9]+ "Deleted Items"$' "$sent" "$name: UID COPY to Deleted Items"
	assert_match '^EXPUNGE$' "$sent" "$name: EXPUNGE (emptying Deleted Items)"
	local uidexp
	uidexp=$(grep -c '^UID EXPUNGE [0-9]*$' <<<"$sent" || true)
	if [ "$3" = yes ]; then
		assert_ge "$uidexp" 1 "$name: UID EXPUNGE of the copied original"
	else
		assert_eq 0 "$uidexp" "$name: UID EXPUNGE without UIDPLUS"
	fi
	stop_bg "$pid"
}

run_caps uidplus "IMAP4rev1 LITERAL+ IDLE UIDPLUS" yes
run_caps plain "IMAP4rev1 LITERAL+ IDLE" no
