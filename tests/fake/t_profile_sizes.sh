#!/bin/bash
# A profile's msg_sizes key, against fakeimapd in mail-store mode (IMAP and
# LMTP), sizes read back with FETCH RFC822.SIZE from the fake's store:
#   1. tests/profiles/lmtp-only.conf with msg_sizes = 1k:50,8k:50: every
#      delivered message (INBOX and Spam) is 1024 or 8192 octets exactly,
#      --profile-check and the JSON summary say the spec;
#   2. tests/profiles/send-only.conf with the same key and --msg-sizes 2k:1
#      on the command line: every message APPENDed to Sent is 2048 octets
#      (the command line wins), and the summary says 2k:1.
# Before msg_sizes, the profile was refused ("unknown key") and LMTP and a
# profile's APPENDs took the generator's mean mix.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

[ -x "$FAKEIMAPD" ] || fail "no fakeimapd at $FAKEIMAPD"
# shellcheck disable=SC2119 # no arguments for the fake
fake_lmtp_start

# run NAME SECS ARGS...: tests/profiles/NAME.conf with the fake's LMTP port
# and msg_sizes = 1k:50,8k:50 added.
run() {
	local name=$1 secs=$2 rc=0
	shift 2
	sed -e "s/^lmtp_port = .*/lmtp_port = $FAKE_LMTP\nmsg_sizes = 1k:50,8k:50/" \
		"$ROOT/tests/profiles/$name.conf" >"$TEST_TMP/$name.conf"
	run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/$name.conf" \
		--port "$FAKE_PORT" --duration "$secs" --seed 4 \
		--json "$TEST_TMP/$name.json" "$@" >"$TEST_TMP/$name.out" \
		2>"$TEST_TMP/$name.err" || rc=$?
	assert_eq 0 "$rc" "$name: exit status ($(head -n 3 "$TEST_TMP/$name.err"))"
}

# sizes USER-PREFIX N BOXES: "SIZE COUNT" of every message of the users
# PREFIX1..PREFIXN in the mailboxes BOXES (comma-separated).
sizes() {
	# shellcheck disable=SC2046 # the users are words
	"$PYTHON" "$ROOT/tests/integration/fetch_sizes.py" "$FAKE_PORT" x "$3" \
		$(seq -f "$1%g" "$2")
}

run lmtp-only 3
out=$("$IMAPSTRESS" --profile "$TEST_TMP/lmtp-only.conf" --profile-check)
assert_match '^message sizes \(msg_sizes, .*\): 1k:50,8k:50$' "$out" "--profile-check shows msg_sizes"
summary_get "$TEST_TMP/lmtp-only.json" msg_sizes.spec >"$TEST_TMP/spec"
assert_eq "1k:50,8k:50" "$(cat "$TEST_TMP/spec")" "lmtp-only: the summary's msg_sizes.spec"
sizes lmtp 6 INBOX,Spam >"$TEST_TMP/lmtp.sizes"
note "lmtp-only: stored sizes: $(tr '\n' ' ' <"$TEST_TMP/lmtp.sizes")"
awk '$1 != 1024 && $1 != 8192 { print; bad = 1 } END { exit bad }' "$TEST_TMP/lmtp.sizes" ||
	fail "lmtp-only: delivered sizes outside 1k:50,8k:50: $(cat "$TEST_TMP/lmtp.sizes")"
assert_ge "$(awk '{ n += $2 } END { print n + 0 }' "$TEST_TMP/lmtp.sizes")" 5 "lmtp-only: deliveries stored"

run send-only 3 --msg-sizes 2k:1
summary_get "$TEST_TMP/send-only.json" msg_sizes.spec >"$TEST_TMP/spec"
assert_eq "2k:1" "$(cat "$TEST_TMP/spec")" "send-only: --msg-sizes wins over the profile's"
sizes send 3 Sent >"$TEST_TMP/send.sizes"
note "send-only: stored sizes: $(tr '\n' ' ' <"$TEST_TMP/send.sizes")"
assert_eq 2048 "$(awk '{ print $1 }' "$TEST_TMP/send.sizes" | sort -u | tr '\n' ' ' | sed 's/ $//')" \
	"send-only: every APPEND to Sent 2048 octets"
assert_ge "$(awk '{ n += $2 } END { print n + 0 }' "$TEST_TMP/send.sizes")" 3 "send-only: mail written"
note "ok: msg_sizes from the profile for LMTP, --msg-sizes over it for APPEND"
