#!/bin/bash
# Issue 13's probes as a careless or hostile local user would make them,
# each of which main at 1a4eff3 got wrong:
#   fifo-*, zero-*   userfile=, --password-file, mbox= (and --ca-file,
#                    which OpenSSL reads) naming a FIFO
#                    (nobody writing) or /dev/zero: one line naming the
#                    option and "not a regular file", exit 2, at once
#                    (main hung until killed).
#   size-*           --msg-size 1g, random_msg_size=1g: a usage error
#                    naming the option (main aborted in xmalloc, exit 134,
#                    or took 8 GiB).  Under ulimit -v 4 GiB so that the
#                    answer does not depend on the machine's memory.
#   rawlog-symlink   rawlog.N names placed in --rawlog-dir beforehand (a
#                    symlink to a file, a dangling symlink, a hard link):
#                    each refused by name, the targets untouched, exit 1;
#                    the free slot's rawlog is written (mode 0600).
#   full-*           --json, --csv, output= and stdout on /dev/full: the
#                    file and ENOSPC named once, exit 1, the summary still
#                    printed (on stderr when stdout is the full one); and
#                    --help on a full stdout exits 1, not 0.
#   tmpfs-full       --json and the rawlogs on a 16 KiB tmpfs that fills
#                    during the run (a private mount namespace; skipped
#                    where unshare -rm is not allowed).
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

_asan=0
grep -qa __asan_init "$IMAPSTRESS" && _asan=1

# run NAME ARGS...: imapstress in the background, its stdout, stderr and
# exit status in NAME.{out,err,rc}; a hang shows as exit 124.
pids=()
run() {
	local name=$1
	shift
	(
		rc=0
		timeout --kill-after=5 20 "$IMAPSTRESS" "$@" \
			>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" </dev/null || rc=$?
		echo "$rc" >"$TEST_TMP/$name.rc"
	) &
	pids+=($!)
}
wait_all() {
	local p
	for p in "${pids[@]}"; do wait "$p" || true; done
	pids=()
}
rc_of() { cat "$TEST_TMP/$1.rc" 2>/dev/null || echo missing; }
expect_rc() {
	[ "$(rc_of "$1")" = "$2" ] ||
		_fault_bad "$1: exit $(rc_of "$1"), expected $2; stderr: $(head -c 300 "$TEST_TMP/$1.err")"
}
expect_err() {
	grep -Eq -- "$2" "$TEST_TMP/$1.err" ||
		_fault_bad "$1: no stderr line matches /$2/; stderr: $(head -c 300 "$TEST_TMP/$1.err")"
}
expect_count() {
	local n
	n=$(grep -Ec -- "$2" "$TEST_TMP/$1.err" || true)
	[ "$n" = "$3" ] || _fault_bad "$1: $n stderr lines match /$2/, expected $3"
}

# --- inputs: FIFO and /dev/zero -------------------------------------------
fifo=$TEST_TMP/fifo
mkfifo "$fifo"
for src in fifo:"$fifo" zero:/dev/zero; do
	tag=${src%%:*} f=${src#*:}
	run "$tag-userfile" "userfile=$f" secs=1
	run "$tag-password" --password-file "$f" secs=1
	run "$tag-mbox" "mbox=$f" secs=1
	run "$tag-cafile" --tls --ca-file "$f" secs=1
done
wait_all
for tag in fifo zero; do
	for what in userfile:userfile= password:--password-file mbox:mbox= \
		cafile:--ca-file/ssl_ca_file=; do
		s=$tag-${what%%:*} opt=${what#*:}
		expect_rc "$s" 2
		expect_err "$s" "^imapstress: ${opt}[ ]?[^ ]+: not a regular file \\(a (FIFO|character device)\\)"
		[ "$(wc -l <"$TEST_TMP/$s.err")" = 1 ] || _fault_bad "$s: more than one line on stderr"
		note "$s: exit $(rc_of "$s"): $(head -n 1 "$TEST_TMP/$s.err")"
	done
done

# --- sizes at parse time ----------------------------------------------------
size_run() {
	local name=$1
	shift
	local rc=0
	if [ "$_asan" = 1 ]; then
		# A sanitizer needs terabytes of address space: no ulimit -v.
		timeout 20 "$IMAPSTRESS" "$@" secs=1 >"$TEST_TMP/$name.out" \
			2>"$TEST_TMP/$name.err" </dev/null || rc=$?
	else
		(ulimit -S -v 4194304; exec timeout 20 "$IMAPSTRESS" "$@" secs=1) \
			>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" </dev/null || rc=$?
	fi
	echo "$rc" >"$TEST_TMP/$name.rc"
}
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
if [ "$_asan" = 1 ] && [ "${mem_kb:-0}" -ge $((64 * 1024 * 1024)) ]; then
	note "size-*: skipped: a sanitizer build on a machine with 64 GiB or more could hold it"
else
	size_run size-msg --msg-size 1g
	size_run size-random random_msg_size=1g
	expect_rc size-msg 2
	expect_err size-msg '^imapstress: --msg-size 1.0 GiB: the message pool would need up to 16.0 GiB, more than this machine can spare'
	expect_rc size-random 2
	expect_err size-random '^imapstress: random_msg_size=1.0 GiB: the message pool would need'
	note "size-msg: exit $(rc_of size-msg): $(head -n 1 "$TEST_TMP/size-msg.err")"
fi

# --- rawlog: names placed in the directory beforehand -------------------------
fault_server normal
rl=$TEST_TMP/rawlogs
mkdir "$rl"
printf 'victim\n' >"$TEST_TMP/victim"
printf 'linked\n' >"$TEST_TMP/linked"
ln -s "$TEST_TMP/victim" "$rl/rawlog.0"
ln -s "$TEST_TMP/dangling" "$rl/rawlog.1"
ln "$TEST_TMP/linked" "$rl/rawlog.2"
run rawlog-symlink port="$FAULT_PORT" clients=4 secs=2 rawlog --rawlog-dir "$rl" \
	--json "$TEST_TMP/rawlog-symlink.json"

# --- outputs on /dev/full ---------------------------------------------------
run full-json port="$FAULT_PORT" clients=2 secs=2 --json /dev/full
run full-csv port="$FAULT_PORT" clients=2 secs=2 --csv /dev/full \
	--json "$TEST_TMP/full-csv.json"
run full-tsv port="$FAULT_PORT" clients=2 secs=2 output=/dev/full
(
	rc=0
	timeout 20 "$IMAPSTRESS" port="$FAULT_PORT" clients=2 secs=2 \
		>/dev/full 2>"$TEST_TMP/full-stdout.err" </dev/null || rc=$?
	echo "$rc" >"$TEST_TMP/full-stdout.rc"
	rc=0
	timeout 20 "$IMAPSTRESS" port="$FAULT_PORT" clients=2 secs=2 --json - \
		>/dev/full 2>"$TEST_TMP/full-stdout-json.err" </dev/null || rc=$?
	echo "$rc" >"$TEST_TMP/full-stdout-json.rc"
) &
pids+=($!)
wait_all

s=rawlog-symlink
expect_rc $s 1
expect_err $s "^Error: rawlog: cannot open $rl/rawlog\\.0: is a symbolic link; not followed\$"
expect_err $s "^Error: rawlog: cannot open $rl/rawlog\\.1: is a symbolic link; not followed\$"
expect_err $s "^Error: rawlog: cannot open $rl/rawlog\\.2: has another hard link; not written through\$"
[ "$(cat "$TEST_TMP/victim")" = victim ] || _fault_bad "$s: the symlink's target was written to"
[ "$(cat "$TEST_TMP/linked")" = linked ] || _fault_bad "$s: the hard link's other name was written to"
[ ! -e "$TEST_TMP/dangling" ] || _fault_bad "$s: the dangling symlink's target was created"
grep -q '^C: ' "$rl/rawlog.3" || _fault_bad "$s: the free slot's rawlog.3 has no protocol in it"
[ "$(stat -c %a "$rl/rawlog.3")" = 600 ] || _fault_bad "$s: rawlog.3 has mode $(stat -c %a "$rl/rawlog.3"), not 600"
grep -q '"type":"summary".*"exit_status":1' "$TEST_TMP/$s.json" ||
	_fault_bad "$s: the JSON summary does not say exit_status 1"
note "$s: exit $(rc_of $s), $(grep -c rawlog "$TEST_TMP/$s.err") rawlog lines"

# NAME|the stream as named|where the summary must be (out or err)
for c in 'full-json|--json /dev/full|out' 'full-csv|--csv /dev/full|out' \
	'full-tsv|output=/dev/full|out' 'full-stdout|standard output|err' \
	'full-stdout-json|standard output|err'; do
	IFS='|' read -r s what where <<<"$c"
	expect_rc "$s" 1
	expect_count "$s" "^Error: $what: cannot write: No space left on device" 1
	grep -q '^Totals:' "$TEST_TMP/$s.$where" || _fault_bad "$s: no Totals in $s.$where"
	grep -q '^measured: ' "$TEST_TMP/$s.$where" || _fault_bad "$s: no measured line in $s.$where"
	note "$s: exit $(rc_of "$s"): $(grep -m1 'cannot write' "$TEST_TMP/$s.err")"
done

# The JSON file that could be written says what the exit status says.
grep -q '"type":"summary".*"exit_status":1' "$TEST_TMP/full-csv.json" ||
	_fault_bad "full-csv: the JSON summary does not say exit_status 1"

# --help on a full stdout: not a silent exit 0.
rc=0
"$IMAPSTRESS" --help >/dev/full 2>"$TEST_TMP/help.err" || rc=$?
[ "$rc" = 1 ] || _fault_bad "help-full: exit $rc, expected 1"
grep -q '^imapstress: standard output: cannot write: No space left on device$' \
	"$TEST_TMP/help.err" || _fault_bad "help-full: stderr: $(head -c 200 "$TEST_TMP/help.err")"

# --- a tmpfs that fills up during the run -------------------------------------
if unshare -rm true 2>/dev/null; then
	mnt=$TEST_TMP/mnt
	mkdir "$mnt"
	rc=0
	timeout 30 unshare -rm bash -c '
		mount -t tmpfs -o size=16k tmpfs "$1" || exit 99
		shift
		exec "$@"' _ "$mnt" "$IMAPSTRESS" port="$FAULT_PORT" clients=4 secs=3 \
		rawlog --rawlog-dir "$mnt" --json "$mnt/run.json" \
		>"$TEST_TMP/tmpfs.out" 2>"$TEST_TMP/tmpfs.err" </dev/null || rc=$?
	echo "$rc" >"$TEST_TMP/tmpfs.rc"
	if [ "$rc" = 99 ]; then
		note "tmpfs-full: skipped: no tmpfs mount in a private namespace here"
	else
		expect_rc tmpfs 1
		expect_err tmpfs "^Error: --json $mnt/run.json: cannot write: No space left on device"
		expect_err tmpfs "^Error: rawlog: cannot write $mnt/rawlog\\.[0-9]: No space left on device\$"
		grep -q '^Totals:' "$TEST_TMP/tmpfs.out" || _fault_bad "tmpfs: no Totals on the terminal"
		note "tmpfs-full: exit $rc, $(grep -c 'No space left' "$TEST_TMP/tmpfs.err") ENOSPC lines: $(grep -m1 'No space' "$TEST_TMP/tmpfs.err")"
	fi
else
	note "tmpfs-full: skipped: unshare -rm is not allowed here"
fi

for f in "$TEST_TMP"/*.out "$TEST_TMP"/*.err; do
	if LC_ALL=C grep -q -P '[^\t\n\x20-\x7e]' "$f"; then
		_fault_bad "$(basename "$f"): control or non-ASCII bytes"
	fi
	if grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:' "$f"; then
		_fault_bad "$(basename "$f"): sanitizer report"
	fi
done
fault_finish
