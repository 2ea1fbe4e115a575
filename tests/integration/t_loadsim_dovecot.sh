#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# LoadSim's day against the private Dovecot with its LMTP: 20 users (half
# online, half cached clients), an 8-hour day compressed to 20 s, high
# per-day rates, run for 20 s.  Checks:
# - every LoadSim action ran, none failed, no command error;
# - each action's schedule is accounted for (--profile-counts "loadsim"):
#   every due time is started or reported missed (the client fell behind
#   on a loaded machine: it must say so, not just count low), a started
#   one ended ok, failed, or was cut off by the end (at most one per
#   user: one working connection each), and the action table's count is
#   the ok count;
# - the schedule's rate: started + missed is Poisson with mean users x
#   per_day x (schedule time / compressed day), the schedule time being
#   what the run reports (login to end, summed over users), so neither
#   the logins' nor the client's speed moves it; within 5 sd (sd = the
#   square root of the mean);
# - the score is over actions, and --sla 'score<60s' holds (exit 0);
# - the server's folders hold what the run says it did, per user:
#   INBOX = delivered - expunged (clean inbox), Sent = appended (send
#   mail), Calendar = appended (appointments and meeting requests),
#   "Deleted Items" = 1 (imapstress init, as the seed's mailbox) +
#   moved_to_deleted - expunged.Deleted (clean inbox moves the oldest
#   read mail there; past deleted_folder_max_messages = 2 it empties the
#   folder): clean inbox moved mail and the folder was emptied, and no
#   user's folder holds more than the bound + 1 (a move the end of the
#   run cut off from its emptying).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"

dovecot_lmtp_start

USERS=20
DURATION=20
DAY=20		# day_compressed_to, seconds
RAMPUP=1
DELETED_MAX=2
P=$TEST_TMP/loadsim.profile
# LMTP sessions at most 30, as a real profile sets them (Dovecot's imaptest
# guide: about half the deliveries per second; this day asks some 60/s).
# Unlimited, each delivery that finds no idle session opens one, and
# Dovecot starts one lmtp process per session: at load 20 it greeted 50
# sessions opened at once after 5.2 s at the median (6.8 s at most), so
# sessions piled up (237 open in one run) and a few waited past the 30 s
# LMTP timeout for their greeting ("timeout=6" before any transaction;
# imapstress now warns of it by name).  With 30: 0 timeouts beside the
# same load, and more deliveries a second (47 against 19).
cat >"$P" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
lmtp_max_parallel_count = 30
total_user_count = $USERS
rampup_time = ${RAMPUP}s
day_length = 8 hours
day_compressed_to = $DAY s
init_inbox_messages = 0
init_deleted_messages = 1
init_new_folders = 0
init_calendar_appointments = 0
init_contacts = 0
init_message_size = 2 KB
distribution_lists = 10
distribution_list_min_size = 2
distribution_list_avg_size = 4
distribution_list_max_size = 8
user loadsim {
  count = 100%
  username_format = ls%n
  send_mail_per_day = 12
  received_mail_per_day = 60
  sent_mail_per_day = 30
  clean_inbox_per_day = 12
  browse_mail_per_day = 20
  free_busy_per_day = 6
  meeting_request_per_day = 3
  make_appointment_per_day = 6
  browse_calendar_per_day = 6
  log_off_per_day = 3
  deleted_folder_max_messages = $DELETED_MAX
}
client online {
  count = 50%
  client_mode = online
  imap_idle = yes
}
client cached {
  count = 50%
  client_mode = cached
  imap_idle = yes
}
PROFILE

rc=0
run_with_timeout 60 "$IMAPSTRESS" init --profile "$P" --profile-users "$USERS" \
	port="$DOVECOT_PORT" >"$TEST_TMP/init.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "init ($(tail -n 3 "$TEST_TMP/init.out"))"

counts=$TEST_TMP/counts.json
rc=0
run_with_timeout 120 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
	--duration "$DURATION" --seed 5 --profile-counts "$counts" \
	--sla 'score<60s' \
	>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 5 "$TEST_TMP/run.err"))"
assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
	"$(cat "$TEST_TMP/run.out")" "no command errors"
# The score is over actions (browse, read weigh 8, the others 1).
assert_match '^browse +8\.000 ' "$(cat "$TEST_TMP/run.out")" "browse is a weighted score task"
assert_match '^score: [0-9.]+ [mu]?s ' "$(cat "$TEST_TMP/run.out")" "a score"

# check_action NAME PER_DAY: the action's schedule against what it did
# (the counts file) and the action table.
check_action() {
	local name=$1 per_day=$2 line count failed why
	line=$(grep -E "^$name +[0-9]" "$TEST_TMP/run.out" | head -n 1)
	[ -n "$line" ] || fail "no '$name' row in the action table"
	count=$(awk '{print $2}' <<<"$line")
	failed=$(awk '{print $NF}' <<<"$line")
	assert_eq 0 "$failed" "$name failed"
	why=$(python3 - "$counts" "$name" "$count" "$per_day" "$USERS" "$DAY" <<'PY'
import json, math, sys
path, name, table, per_day, users, day = sys.argv[1:]
d = json.load(open(path))
t, span = d["totals"]["loadsim"][name], d["totals"]["loadsim"]["schedule_s"]
due = t["started"] + t["missed"]
mean = float(per_day) * span / float(day)	# span: summed over users
lo, hi = mean - 5 * math.sqrt(mean), mean + 5 * math.sqrt(mean)
print(f"due {due} (started {t['started']}, missed {t['missed']}), "
      f"ok {t['ok']}, failed {t['failed']}, table {table}; "
      f"expected {mean:.0f} over {span:.1f} s, bounds {lo:.0f}..{hi:.0f}")
cut = t["started"] - t["ok"] - t["failed"]
ok = (int(table) == t["ok"] and 0 <= cut <= int(users) and
      sum(u["loadsim"][name]["started"] + u["loadsim"][name]["missed"]
          for u in d["users"]) == due and lo <= due <= hi)
sys.exit(0 if ok else 1)
PY
) || fail "$name: $why"
	note "$name: $why"
}
check_action browse 20
check_action clean 12
check_action send 12
check_action appointment 6
check_action meeting 3
check_action calendar 6
check_action freebusy 6
check_action logoff 3
# All actions together (56 a day): a schedule that loses a share of its
# due times shows here first (the pooled sd is a smaller part of the
# mean).
why=$(python3 - "$counts" "$DAY" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); ls = d["totals"]["loadsim"]
per_day = {"browse": 20, "clean": 12, "send": 12, "appointment": 6,
           "meeting": 3, "calendar": 6, "freebusy": 6, "logoff": 3}
due = sum(ls[a]["started"] + ls[a]["missed"] for a in per_day)
mean = sum(per_day.values()) * ls["schedule_s"] / float(sys.argv[2])
sd = math.sqrt(mean)
print(f"all actions due {due}, expected {mean:.0f}, bounds "
      f"{mean - 5 * sd:.0f}..{mean + 5 * sd:.0f}")
sys.exit(0 if abs(due - mean) <= 5 * sd else 1)
PY
) || fail "$why"
note "$why"

totals=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); t = d["totals"]
print(t["delivered"]["INBOX"], t["expunged"]["INBOX"], t["appended"]["Sent"],
      t["appended"]["Calendar"], t["deliver_failed"], len(d["users"]),
      t.get("moved_to_deleted", 0), t["expunged"].get("Deleted", 0),
      d.get("deleted_folder", "-").replace(" ", "_"))
' "$counts") || fail "unreadable counts file"
read -r d_inbox x_inbox a_sent a_cal failed nusers m_del x_del del_name <<<"$totals"
note "delivered INBOX $d_inbox, expunged INBOX $x_inbox, appended Sent $a_sent Calendar $a_cal"
note "moved to Deleted Items $m_del, expunged from it $x_del"
assert_eq "$USERS" "$nusers" "one entry per user"
assert_eq "Deleted_Items" "$del_name" "the counts name the deleted folder"
for v in d_inbox x_inbox a_sent a_cal m_del x_del; do
	assert_ge "${!v}" 1 "$v happened"
done
assert_eq 0 "$failed" "deliveries without a 250 ($(grep -m1 'LMTP deliveries:' "$TEST_TMP/run.out"); stderr: $(grep -m3 -i lmtp "$TEST_TMP/run.err"))"

# What the server holds, every user's folder, read once: one doveadm per
# folder (dovecot-private count-each), not one per user and folder, which
# at load 25 kept this test past run-all's 300 s (some 260 doveadm runs,
# with the two tampered comparisons below).  Rows: user, folder, count.
held=$TEST_TMP/held.tsv
: >"$held"
for folder in INBOX Sent Calendar "Deleted Items"; do
	out=$(run_with_timeout 60 "$DOVECOT_PRIVATE" count-each --dir "$DOVECOT_DIR" "$folder") ||
		fail "count-each $folder: $out"
	awk -F'\t' -v f="$folder" '{ print $1 "\t" f "\t" $2 }' <<<"$out" >>"$held"
done
assert_eq $((USERS * 4)) "$(grep -c . "$held")" "a count for each user's four folders"

# compare FILE: the server's folders against the run's counts; the first
# disagreement, or nothing.
compare() {
	python3 - "$1" "$held" <<'PY'
import json, sys
held = {}
for line in open(sys.argv[2]):
    user, folder, n = line.rstrip("\n").split("\t")
    held[(user, folder)] = int(n)
for u in json.load(open(sys.argv[1]))["users"]:
    rows = {
        "INBOX": u["delivered"]["INBOX"] - u["expunged"]["INBOX"],
        "Sent": u["appended"]["Sent"],
        "Calendar": u["appended"]["Calendar"],
        "Deleted Items": 1 + u.get("moved_to_deleted", 0)
                           - u["expunged"].get("Deleted", 0),
    }
    for f, n in rows.items():
        got = held.get((u["user"], f))
        if got != n:
            print(f"{u['user']} {f}: the run says {n}, the server holds {got}")
            sys.exit(1)
PY
}
why=$(compare "$counts") || fail "server and run disagree: $why"
note "server counts match the run's for all users and folders"
most=$(awk -F'\t' '$2 == "Deleted Items" && $3 > m { m = $3 } END { print m + 0 }' "$held")
[ "$most" -le $((DELETED_MAX + 1)) ] ||
	fail "a Deleted Items holds $most messages, above the bound $DELETED_MAX + 1"
note "the fullest Deleted Items holds $most (bound $DELETED_MAX)"

# The comparison must notice one clean too many.
python3 - "$counts" "$TEST_TMP/tampered.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u = max(d["users"], key=lambda u: u["expunged"]["INBOX"])
u["expunged"]["INBOX"] += 1
json.dump(d, open(sys.argv[2], "w"))
PY
if compare "$TEST_TMP/tampered.json" >/dev/null; then
	fail "the comparison did not notice an expunge count off by one"
fi
python3 - "$counts" "$TEST_TMP/tampered2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u = max(d["users"], key=lambda u: u["moved_to_deleted"])
u["moved_to_deleted"] -= 1
json.dump(d, open(sys.argv[2], "w"))
PY
if compare "$TEST_TMP/tampered2.json" >/dev/null; then
	fail "the comparison did not notice a move count off by one"
fi
