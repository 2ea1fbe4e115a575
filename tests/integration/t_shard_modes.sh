#!/bin/bash
# Every mode takes --shard I/N the same way, against one private Dovecot
# (with its LMTP):
#   (a) `--profile-check --shard 0/2` and `1/2` list disjoint users whose
#       union is `--shard 0/1`'s list (every user, same client kinds);
#   (b) `init --shard 0/2` of users=1-8 fills s1..s4 only: the server
#       holds the table's 2 INBOX messages for each of them and 0 for
#       s5..s8;
#   (c) a 2-shard profile run (deliveries only, 4 s): each shard's
#       --profile-counts names its own 5 users (disjoint, 10 in all), the
#       server holds for every user what its shard says it delivered, and
#       `imapstress merge` of the two result files gives deliveries equal
#       to what the server holds in all;
#   (d) `init --profile --profile-users 10 --shard 1/2` fills only the
#       second half of the profile's users (Folder01, 2 messages each;
#       the first half's mailboxes are unchanged);
#   (e) scripted tests refuse --shard by name, exit 2.
# Before, profile users, LoadSim users and init ignored --shard: both
# shards played (or filled) every user on the same mailboxes.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"

dovecot_lmtp_start --fsync no
T=$TEST_TMP
P=$T/day.profile
cat >"$P" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
total_user_count = 10
rampup_time = 1s
user light {
  count = 40%
  username_format = light%n
  mail_inbox_delivery_interval = 400ms
}
user heavy {
  count = 60%
  username_format = heavy%n
  mail_inbox_delivery_interval = 300ms
}
client desktop {
  count = 50%
  connection_max_count = 2
}
client phone {
  count = 50%
}
PROFILE

# (a) the plan's users, per shard
users_of() {
	"$IMAPSTRESS" --profile "$P" --profile-check --shard "$1" >"$T/check.$2" ||
		fail "--profile-check --shard $1: exit $?"
	sed -n '/^shard /,$p' "$T/check.$2" | sed 1d | sort
}
users_of 0/1 all >"$T/all"
users_of 0/2 s0 >"$T/s0"
users_of 1/2 s1 >"$T/s1"
note "(a) $(wc -l <"$T/s0") + $(wc -l <"$T/s1") users listed, $(wc -l <"$T/all") in all"
assert_eq 10 "$(wc -l <"$T/all")" "users of --shard 0/1"
assert_eq 5 "$(wc -l <"$T/s0")" "users of shard 0/2"
assert_eq 0 "$(comm -12 "$T/s0" "$T/s1" | wc -l)" "users in both shards"
sort -m "$T/s0" "$T/s1" | cmp -s - "$T/all" ||
	fail "the shards' users are not every user: $(sort -m "$T/s0" "$T/s1" | diff - "$T/all")"

# (b) init: its slice of users=
TABLE="--inbox 2 --deleted 0 --folders 0 --msg-size 2k"
# shellcheck disable=SC2086
run_with_timeout 60 "$IMAPSTRESS" init host=127.0.0.1 port="$DOVECOT_PORT" \
	pass="$DOVECOT_PASS" user=s%d users=1-8 clients=4 $TABLE --shard 0/2 \
	>"$T/init.out" 2>"$T/init.err" || fail "init --shard 0/2: exit $?: $(tail -3 "$T/init.err")"
held=""
for i in $(seq 1 8); do
	held="$held $("$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "s$i" INBOX)"
done
note "(b) INBOX of s1..s8 after init --shard 0/2:$held"
assert_eq " 2 2 2 2 0 0 0 0" "$held" "INBOX of s1..s8"

# (c) a profile run as two shards, merged
count0=$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR")
start=$(($(date +%s) + 2))
pids=()
for i in 0 1; do
	run_with_timeout 60 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
		--duration 4 --seed 3 --shard "$i/2" --start-at "$start" \
		--profile-counts "$T/counts%i.json" --result "$T/r%i" \
		>"$T/p$i.out" 2>"$T/p$i.err" &
	pids+=($!)
done
for i in 0 1; do
	wait "${pids[i]}" || fail "profile shard $i: exit $?: $(tail -5 "$T/p$i.err")"
done
"$IMAPSTRESS" merge --json "$T/m.json" "$T/r0" "$T/r1" >"$T/m.out" 2>"$T/m.err" ||
	fail "merge: exit $?: $(cat "$T/m.err")"
server=$(( $("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR") - count0 ))
summary "$T/m.json" profile.lmtp.ok profile.lmtp.rcpts errors exit_status
note "(c) merged deliveries ${S[0]} of ${S[1]}, server holds $server more"
assert_ge "${S[0]}" 10 "merged deliveries"
assert_eq "${S[1]}" "${S[0]}" "every delivery a 250"
assert_eq "$server" "${S[0]}" "merged deliveries vs the server"
assert_eq 0 "${S[2]}" "merged errors"
assert_eq 0 "${S[3]}" "merged exit_status"
# per shard: its own users, each holding what its shard delivered
"$PYTHON" - "$T/counts0.json" "$T/counts1.json" "$T/s0" "$T/s1" >"$T/expected" <<'PY' ||
import json, sys
shards = [json.load(open(p))["users"] for p in sys.argv[1:3]]
plan = [sorted(l.split()[0] for l in open(p)) for p in sys.argv[3:5]]
for i, users in enumerate(shards):
    names = sorted(u["user"] for u in users)
    if names != plan[i]:
        sys.exit("shard %d played %s, its slice is %s" % (i, names, plan[i]))
    for u in users:
        print(u["user"], "INBOX", u["delivered"]["INBOX"])
PY
	fail "the shards' counts files"
why=$(dovecot_counts_match <"$T/expected") || fail "server and run disagree: $why"
note "(c) each shard's 5 users hold what it delivered: $(awk '{ printf " %s=%s", $1, $3 }' "$T/expected")"

# (d) init of the profile's users: the second half only
while read -r u _; do
	echo "$u $("$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" '*')"
done < <(cat "$T/s0" "$T/s1") >"$T/before"
run_with_timeout 60 "$IMAPSTRESS" init host=127.0.0.1 port="$DOVECOT_PORT" \
	pass="$DOVECOT_PASS" --profile "$P" --profile-users 10 --inbox 0 \
	--deleted 0 --folders 1 --folder-messages 2 --msg-size 2k --shard 1/2 \
	>"$T/pinit.out" 2>"$T/pinit.err" ||
	fail "init --profile --shard 1/2: exit $?: $(tail -3 "$T/pinit.err")"
gained=""
while read -r u n; do
	now=$("$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" '*')
	gained="$gained $((now - n))"
done <"$T/before"
note "(d) messages gained by shard 0's then shard 1's users:$gained"
assert_eq " 0 0 0 0 0 2 2 2 2 2" "$gained" "messages init --shard 1/2 added per user"

# (d2) init --profile without --profile-users: the file's 10 users
# (total_user_count) filled to 3 in Folder01, so shard 0's gain 3 and
# shard 1's (2 from (d)) gain 1, and no other mailbox gains
# (init filled users= 1-100 before: 99 mailboxes no profile run reads)
while read -r u _; do
	echo "$u $("$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" '*')"
done < <(cat "$T/s0" "$T/s1") >"$T/before2"
all_before=$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR" '*')
run_with_timeout 60 "$IMAPSTRESS" init host=127.0.0.1 port="$DOVECOT_PORT" \
	pass="$DOVECOT_PASS" --profile "$P" --inbox 0 --deleted 0 --folders 1 \
	--folder-messages 3 --msg-size 2k >"$T/pinit2.out" 2>"$T/pinit2.err" ||
	fail "init --profile: exit $?: $(tail -3 "$T/pinit2.err")"
gained=""
while read -r u n; do
	now=$("$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" '*')
	gained="$gained $((now - n))"
done <"$T/before2"
assert_eq " 3 3 3 3 3 1 1 1 1 1" "$gained" "messages init --profile (no --profile-users) added per profile user"
assert_eq $((all_before + 20)) "$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR" '*')" \
	"messages on the server: the profile users' 20 and no one else's"
assert_match "init: 10 users" "$(cat "$T/pinit2.err")" "init's count line"

# (e) scripted tests refuse shards
rc=0
"$IMAPSTRESS" test="$ROOT/tests/scripts" port="$DOVECOT_PORT" --shard 1/2 \
	>"$T/test.out" 2>"$T/test.err" || rc=$?
assert_eq 2 "$rc" "test= --shard 1/2 exit status"
assert_match '^imapstress: --shard 1/2: scripted tests' "$(cat "$T/test.err")" "the refusal"
note "ok"
