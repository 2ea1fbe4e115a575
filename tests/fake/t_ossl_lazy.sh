#!/bin/bash
# OpenSSL is loaded only when a run needs it (issue 19, src/net/ossl.h):
#   - a plain run (NOOPs, --hdr-log, which base64-encodes without
#     libcrypto) never maps libcrypto, libssl or libevent_openssl, and does
#     not even look for them (IMAPSTRESS_TEST_OSSL_DIR pointing nowhere
#     changes nothing);
#   - an implicit-TLS run against fakeimapd --tls-cert maps all three and
#     works (handshakes, NOOPs answered, exit 0);
#   - when they cannot be loaded (the test hook IMAPSTRESS_TEST_OSSL_DIR
#     names an empty directory), --tls and mech=scram-sha-256 stop at
#     start-up with exit 2 and a message naming the library and dlerror's
#     reason.
# The maps are read from /proc/PID/maps while the run is under way.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd openssl python3 timeout
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD"
OSSL_RE='libcrypto\.so|libssl\.so|libevent_openssl'

# fake NAME ARGS...: fakeimapd ARGS in the background; its port in PORT.
fake() {
	local name=$1 pid i
	shift
	: >"$TEST_TMP/$name.fake.out"
	"$FAKEIMAPD" "$@" >"$TEST_TMP/$name.fake.out" 2>"$TEST_TMP/$name.fake.err" &
	pid=$!
	on_exit "stop_bg $pid"
	PORT=
	for ((i = 0; i < 200; i++)); do
		PORT=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$TEST_TMP/$name.fake.out")
		[ -z "$PORT" ] || return 0
		sleep 0.05
	done
	fail "fakeimapd $* printed no PORT line: $(head -n 5 "$TEST_TMP/$name.fake.err")"
}

# mapped NAME ARGS...: runs imapstress ARGS (secs=3) in the background,
# copies its /proc/PID/maps once its first per-second line is out, waits
# for it; exit status in RC, the OpenSSL libraries it had mapped in
# MAPPED ("libcrypto libevent_openssl libssl ", or empty).
mapped() {
	local name=$1 pid i
	shift
	"$IMAPSTRESS" "$@" secs=3 --json "$TEST_TMP/$name.json" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" </dev/null &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		[ ! -s "$TEST_TMP/$name.json" ] || break
		_lib_alive "$pid" || break
		sleep 0.05
	done
	cp "/proc/$pid/maps" "$TEST_TMP/$name.maps" 2>/dev/null || : >"$TEST_TMP/$name.maps"
	RC=0
	wait "$pid" || RC=$?
	[ -s "$TEST_TMP/$name.maps" ] || fail "$name: imapstress ended before its maps could be read (exit $RC): $(tail -n 3 "$TEST_TMP/$name.err")"
	MAPPED=$(awk '{print $6}' "$TEST_TMP/$name.maps" | grep -E "$OSSL_RE" | sed -E 's,.*/(lib[a-z_]+).*,\1,' | sort -u | tr '\n' ' ' || true)
}

# A plain run, with --hdr-log (base64, ours) and the hook pointing nowhere.
fake plain --messages 10
mkdir "$TEST_TMP/nolibs"
IMAPSTRESS_TEST_OSSL_DIR=$TEST_TMP/nolibs mapped plain port="$PORT" - noop=100 \
	logout=0 clients=2 --hdr-log "$TEST_TMP/plain.hlog"
assert_eq 0 "$RC" "plain run exit status (stderr: $(tail -n 3 "$TEST_TMP/plain.err"))"
assert_eq "" "$MAPPED" "OpenSSL libraries mapped by a run without TLS or SCRAM"
summary "$TEST_TMP/plain.json" commands.NOOP.ok peak_rss_kb
assert_ge "${S[0]}" 1 "plain run: NOOPs answered"
assert_match '^Tag=' "$(cat "$TEST_TMP/plain.hlog")" "--hdr-log wrote histograms"
note "plain: nothing of OpenSSL mapped, ${S[0]} NOOPs, peak RSS ${S[1]} KB"

# Implicit TLS: the three are loaded, and TLS works.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-keyout "$TEST_TMP/key.pem" -out "$TEST_TMP/cert.pem" -days 1 \
	-subj /CN=localhost >"$TEST_TMP/openssl.log" 2>&1 ||
	fail "openssl req: $(tail -n 3 "$TEST_TMP/openssl.log")"
fake tls --messages 10 --tls-cert "$TEST_TMP/cert.pem" --tls-key "$TEST_TMP/key.pem"
mapped tls port="$PORT" --tls --insecure - noop=100 logout=0 clients=2
assert_eq 0 "$RC" "TLS run exit status (stderr: $(tail -n 3 "$TEST_TMP/tls.err"))"
assert_eq "libcrypto libevent_openssl libssl " "$MAPPED" \
	"OpenSSL libraries mapped by a TLS run"
summary "$TEST_TMP/tls.json" commands.NOOP.ok tls.handshakes peak_rss_kb errors
assert_ge "${S[0]}" 1 "TLS run: NOOPs answered"
assert_ge "${S[1]}" 1 "TLS run: handshakes"
assert_eq 0 "${S[3]}" "TLS run: errors"
note "tls: $MAPPED mapped, ${S[1]} handshakes, ${S[0]} NOOPs, peak RSS ${S[2]} KB"

# Cannot be loaded: a clear message and exit 2, for TLS and for SCRAM.
for what in tls scram; do
	case $what in
	tls) args=(port="$PORT" --tls --insecure) ;;
	scram) args=(port="$PORT" mech=scram-sha-256) ;;
	esac
	RC=0
	IMAPSTRESS_TEST_OSSL_DIR=$TEST_TMP/nolibs run_with_timeout 20 "$IMAPSTRESS" \
		"${args[@]}" secs=2 >"$TEST_TMP/no-$what.out" 2>"$TEST_TMP/no-$what.err" || RC=$?
	assert_eq 2 "$RC" "$what without the libraries: exit status"
	err=$(cat "$TEST_TMP/no-$what.err")
	assert_match "libcrypto\.so\.3.*cannot be loaded: .*nolibs/libcrypto\.so\.3: cannot open shared object file" \
		"$err" "$what without the libraries: the message names the library and the reason"
	note "no-$what: $(head -n 1 "$TEST_TMP/no-$what.err")"
done
echo "PASS: $TEST_NAME"
