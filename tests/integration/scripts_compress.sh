# tests/integration/scripts_compress.sh, sourced by t_compress.sh (so
# against Dovecot with imap_zlib and, through t_cyrus_compress.sh, Cyrus,
# on the server that test started): scripts_compress_check runs scripted
# tests (test=) with `compress` through a TCP relay of the test's that
# records each connection's octets as they cross it.  A small test of our
# own, two connections, FETCHes a very compressible message.  It passes;
# on every connection the set-up's COMPRESS DEFLATE goes out after LOGIN
# and is answered OK, and from the octet after each side's end of it on,
# what crossed the relay is a raw DEFLATE stream (RFC 4978) in both
# directions: it inflates, with the script's FETCH and LOGOUT in the
# client's stream and the message's text and the BYE in the server's,
# none of which is readable on the wire, and the server's stream is under
# half what it inflates to.  The rawlog says the layer went on once per
# connection (before the engine's COMPRESS came to scripted tests: none).
# shellcheck shell=bash

scripts_compress_check() {
	local rc n i
	mkdir -p "$TEST_TMP/sz"
	# The relay: connection N's octets in wire/N.c2s and wire/N.s2c.
	mkdir -p "$TEST_TMP/sz/wire"
	relay_start 127.0.0.1 "$SERVER_PORT" "$TEST_TMP/sz/relay.port" "$TEST_TMP/sz/wire"

	# The test: one message of 200 like lines, fetched on both connections.
	mkdir "$TEST_TMP/sz/t"
	{
		printf 'From probe@example.org Mon Jan  5 10:00:00 2026\n'
		printf 'From: probe@example.org\nSubject: deflate probe\n\n'
		for i in $(seq 1 200); do
			printf 'zqprobe line %03d of a message that deflates well\n' "$i"
		done
	} >"$TEST_TMP/sz/t/zprobe.mbox"
	cat >"$TEST_TMP/sz/t/zprobe" <<-'EOF'
	connections: 2
	messages: all
	state: selected

	1 ok fetch 1 (body.peek[text])
	* 1 fetch (body[text] $)
	2 ok fetch 1 (body.peek[text])
	* 1 fetch (body[text] $)
	EOF

	mkdir "$TEST_TMP/sz/raw"
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" test="$TEST_TMP/sz/t" host=127.0.0.1 port="$RELAY_PORT" \
		user=zscript pass="$SERVER_PASS" compress --rawlog --rawlog-dir "$TEST_TMP/sz/raw" \
		>"$TEST_TMP/sz/out" 2>"$TEST_TMP/sz/err" || rc=$?
	cat "$TEST_TMP/sz/out" >&2
	assert_eq 0 "$rc" "test= with compress: exit status (stderr: $(head -c 300 "$TEST_TMP/sz/err"))"
	assert_match '^zprobe: ok$' "$(cat "$TEST_TMP/sz/out")" "the test passes"
	n=$(cat "$TEST_TMP"/sz/raw/rawlog.* | grep -c '^# connection ')
	# The test's two connections, and the clean-up's after the last test.
	assert_eq 3 "$n" "connections in the rawlog"
	assert_eq "$n" "$(cat "$TEST_TMP"/sz/raw/rawlog.* | grep -c '^# COMPRESS=DEFLATE active$')" \
		"rawlog: the deflate layer on, once per connection"

	# Every connection the relay saw, inflated past COMPRESS's exchange.
	"$PYTHON" - "$TEST_TMP/sz/wire" <<'PYEOF' >"$TEST_TMP/sz/wire.out" 2>&1 || rc=$?
import glob, re, sys, zlib
d = sys.argv[1]
conns = sorted(glob.glob(d + "/*.c2s"))
if len(conns) != 3:
    sys.exit("the relay saw %d connections, not 3" % len(conns))
fetched = 0
for c2s in conns:
    name = c2s[:-4]
    cli = open(c2s, "rb").read()
    srv = open(name + ".s2c", "rb").read()
    m = re.search(rb"(?m)^(u\d+) COMPRESS DEFLATE\r\n", cli)
    if m is None:
        sys.exit("%s: no COMPRESS DEFLATE from the client" % name)
    if re.search(rb"(?mi)^u\d+ LOGIN ", cli[:m.start()]) is None:
        sys.exit("%s: COMPRESS before LOGIN" % name)
    ok = re.search(rb"(?m)^" + m.group(1) + rb" OK[^\r\n]*\r\n", srv)
    if ok is None:
        sys.exit("%s: COMPRESS not answered OK" % name)
    plain = {}
    for side, wire in (("client", cli[m.end():]), ("server", srv[ok.end():])):
        z = zlib.decompressobj(-15)
        try:
            plain[side] = z.decompress(wire) + z.flush()
        except zlib.error as e:
            sys.exit("%s: the %s's octets after COMPRESS do not inflate: %s" % (name, side, e))
        if z.unused_data:
            sys.exit("%s: %d octets from the %s after its DEFLATE stream" % (name, len(z.unused_data), side))
        for word in (b"LOGOUT", b"zqprobe", b"NAMESPACE", b"FETCH", b"fetch"):
            if word in wire:
                sys.exit("%s: %r readable in the %s's octets after COMPRESS" % (name, word, side))
        print("%s %s: %d wire octets, %d inflated" % (name.rsplit("/", 1)[1], side, len(wire), len(plain[side])))
    if re.search(rb"(?mi)^[a-z0-9]+ LOGOUT\r\n", plain["client"]) is None:
        sys.exit("%s: no LOGOUT in the client's inflated stream" % name)
    if re.search(rb"(?mi)^\* BYE", plain["server"]) is None:
        sys.exit("%s: no BYE in the server's inflated stream" % name)
    if re.search(rb"(?mi) fetch 1 \(body\.peek\[text\]\)\r\n", plain["client"]):
        if plain["server"].count(b"zqprobe line") != 200:
            sys.exit("%s: the message's 200 lines not in the server's inflated stream" % name)
        if (len(srv) - ok.end()) * 2 >= len(plain["server"]):
            sys.exit("%s: the server's stream is not under half of what it inflates to" % name)
        fetched += 1
if fetched != 2:
    sys.exit("the script's FETCH inflated on %d connections, not 2" % fetched)
PYEOF
	cat "$TEST_TMP/sz/wire.out" >&2
	assert_eq 0 "$rc" "the wire after COMPRESS: $(tail -n 1 "$TEST_TMP/sz/wire.out")"
}
