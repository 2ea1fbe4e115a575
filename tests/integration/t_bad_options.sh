#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# Every option, imaptest word and long/short spelling alike (the rows of
# the option table in src/config/config_opts.c), given bad values: negative,
# overflowing, the wrong unit, empty, missing, not a number, an unknown
# word, a missing file, a combination that cannot work.  Each must be
# refused before any connection is made with
#   - exit status 2,
#   - nothing on stdout,
#   - exactly one line on stderr, and that line names the option (one of
#     its spellings: the word, the long name with or without "--", or the
#     short "-x").
# Values are checked in every spelling of the row: `word=V`, `--long V`
# and `--long=V` (alternately), `-x V`.  The cases run in four parallel
# lanes; every failing case is listed.  No network: in case a bad value
# were accepted, the arguments start with port=1 secs=2 clients=1, so the
# run would only try 127.0.0.1:1 and end (and `timeout` caps it anyway).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
need_cmd timeout
unset IMAPSTRESS_PASSWORD
# Under AddressSanitizer (CI's pass), no leak check at the exit of each of
# the ~700 refusals: LeakSanitizer's scan at exit doubled each one's cost
# (0.12 against 0.07 CPU s, twice the wall time under load), and a
# process that exits 2 at start-up hands everything back anyway; the
# runs that do work are leak-checked in every other test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

EMPTYFILE=$TEST_TMP/empty
BLANKFILE=$TEST_TMP/blank
: >"$EMPTYFILE"
printf '\n' >"$BLANKFILE"
CTLFILE=$TEST_TMP/ctl
CTLUSERFILE=$TEST_TMP/ctlusers
printf 'pw\001x\n' >"$CTLFILE"
printf 'ok:pw\nbad\001name:pw\n' >"$CTLUSERFILE"
PREFIX=(port=1 secs=2 clients=1)
LANES=4

# Rows "SPELLINGS : VALUES" put each value through every spelling;
# rows "SPELLINGS | ARGS" run ARGS as they are and expect a line naming one
# of SPELLINGS.  @empty is an empty value, @none no value at all (the
# option is the last argument), @emptyfile / @blankfile an empty file and
# a file with one empty line, @ctl / @crlf a value with a control
# character / with CR LF inside, @ctlfile a password file and
# @ctluserfile a user file with one on a line.  A word that is also a state name is left out
# where its bare or valued form is that state (compress=50, checkpoint).
table() {
	sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' <<'EOF'
# connection
host --host -H                  : @empty @none
hostip --hostip                 : @empty @none
port --port -p                  : -1 0 65536 99999999999999999999999 143x abc 1.5 @empty @none
clients --clients -c            : -1 0 1000001 99999999999999999999999 10s 4k abc 1.5 @empty @none
procs --workers --procs -w      : -1 1025 99999999999999999999999 2x abc @empty @none
--connect-rate                  : -1 0 abc 1e3 10/s 1.5.5 9999999999999999 @empty @none
--source                        : 10.0.0.1 192.168.1.1 ::2 abc 127.0.0.1,abc 127.0.0.1,,127.0.0.2 ,127.0.0.1 @empty @none
# authentication
user --user -u                  : u%s u% u%d%d%d %x u%-4d u%99d @ctl @crlf @empty @none
users --users                   : -1 0 5-1 1-x x-5 1-99999999999 abc @empty @none
domains --domains               : -1 0 5-1 1-x 99999999999 abc @empty @none
user2 --user2                   : @ctl @empty @none
userfile --userfile             : /nonexistent/users @emptyfile @blankfile @ctluserfile @empty @none
pass --password                 : @ctl @crlf @none
--password-file                 : /nonexistent/pw @emptyfile @blankfile @ctlfile @empty @none
master --master                 : @ctl @crlf @empty @none
mech --mech                     : FOO LOGINX @empty @none
# TLS and compression
ssl                             | ssl=foo
ssl                             | ssl=
ssl                             | ssl=any-cert,x
--tls                           | --tls=1
--starttls                      | --starttls=yes
--insecure                      | --insecure
--insecure                      | --tls --insecure=yes
ssl_ca_file --ca-file           : @empty @none
ssl_ca_file --ca-file           | --ca-file /etc/hostname
ssl_ca_file --ca-file           | --tls --ca-file /nonexistent/ca.pem
ssl_ca_file --ca-file           | ssl ssl_ca_file=/nonexistent/ca.pem
ssl_ca_file --ca-file           | --starttls --ca-file @emptyfile
--tls-resume                    | --tls-resume
--tls-resume                    | --tls --tls-resume=1
compress --compress             | --compress=1
compress --compress             | compress=abc
compress --compress             | compress=150
# workload
box --mailbox --box             : @empty @none
copybox --copybox               : @empty @none
mbox --mbox                     : /nonexistent/mbox @emptyfile @blankfile @empty @none
random_msg_size --random-msg-size : -1 2g 99999999999999999999999 10q 10s abc 1.5 @empty @none
--msg-size                      : -1 0 2g 99999999999g 10q 10s abc 1.5 @empty @none
msgs --msgs                     : -1 4294967296 99999999999999999999999 10k abc 1.5 @empty @none
secs                            : -1 abc 10q 10, ,5 10,abc 10,-1 2000000000 @empty @none
--duration -d                   : -1 abc 10q 1.5.5 2000000000 @empty @none
--grace                         : -1 abc 10q 2000000000 @empty @none
seed --seed                     : -1 4294967296 abc 1.5 0x10 @empty @none
checkpoint --checkpoint         : -1 4294967296 abc 10s @empty
--checkpoint                    : @none
stalled_disconnect_timeout --stalled-disconnect-timeout : -1 4294967296 abc 10s 1.5 @empty @none
test --test                     : /nonexistent/tests @empty @none
profile --profile               : /nonexistent/profile @emptyfile @blankfile @empty @none
--profile-check                 | --profile-check
random --random                 | random=1
random --random                 | --random=1
no_pipelining --no-pipelining   | no_pipelining=1
no_pipelining --no-pipelining   | --no-pipelining=1
--pipeline                      : -1 0 63 abc 1.5 @empty @none
no_tracking --no-tracking       | no_tracking=1
no_tracking --no-tracking       | --no-tracking=1
disconnect_quit --disconnect-quit | disconnect_quit=yes
disconnect_quit --disconnect-quit | --disconnect-quit=yes
error_quit --error-quit         | error_quit=1
error_quit --error-quit         | --error-quit=1
rawlog --rawlog                 | rawlog=1
rawlog --rawlog                 | --rawlog=1
--rawlog-dir                    : @empty @none
--rawlog-dir                    | rawlog --rawlog-dir /nonexistent/rawlogs
--no-id                         | --no-id=1
own_msgs --own-msgs             | own_msgs=1
own_msgs --own-msgs             | --own-msgs=1
own_flags --own-flags           | own_flags=1
own_flags --own-flags           | --own-flags=1
qresync --qresync               | qresync=1
qresync --qresync               | --qresync=1
imap4rev2 --imap4rev2           | imap4rev2=1
imap4rev2 --imap4rev2           | --imap4rev2=1
--state                         : FOO=1 APPEND=150 APPEND=-1 APPEND=abc APPEND=10,abc APPEND=10,150 APPEND= =5 @empty @none
--rate                          : -1 0 abc 1e3 9999999999999999 @empty @none
# timeouts and limits
--connect-timeout               : -1 0 abc 10q 2000000000 @empty @none
--greeting-timeout              : -1 0 abc 10q @empty @none
--cmd-timeout                   : -1 0 abc 10q 99999999999s @empty @none
--stall-timeout                 : -1 0 abc 10q 99999999999s @empty @none
--max-line                      : -1 0 127 2g abc 10q 1.5 @empty @none
--max-literal                   : -1 0 abc 10q 99999999999g 1.5 @empty @none
# output
output --output                 : /nonexistent/dir/out @empty @none
--json                          : /nonexistent/dir/out.json @empty @none
--csv                           : /nonexistent/dir/out.csv @empty @none
--json --csv                    | --json - --csv -
--quiet -q                      | --quiet=1
--quiet -q -qx                  | -qx
--tick-percentile               : -1 0 101 abc 1e2 @empty @none
--warmup                        : -1 abc 10q @empty @none
--warmup                        | --warmup 5 -d 5
--sla                           : foo APPEND.p95 APPEND.p95< FOO.p95<1s APPEND.p5<1s APPEND.x<1s APPEND.p95<abc APPEND.p95<0 APPEND.p95<-1s APPEND.p95<10q .p95<1s @empty @none
--hdr-log                       : /nonexistent/dir/run.hdr - @empty @none
--metrics-listen                : abc 127.0.0.1:99999 127.0.0.1:x localhost:9100 [::1 [::1]9100 1.2.3.4.5:80 :9100 @empty @none
--metrics-linger                : -1 abc 5q @empty @none
# several processes
--shard                         : 3/3 1 x/3 1/x -1/3 1/0 /3 1/ 0/1000001 @empty @none
--shards                        : 0 -1 1000001 abc @empty @none
--shards                        | --shards 3
--shards                        | --shard 1/3 --shards 4
--start-at                      : 5 -1 abc +abc +-5s 99999999999 @empty @none
--result                        : /nonexistent/dir/r @empty @none
--latency-log                   : /nonexistent/dir/l @empty @none
--help -h                       | --help=1
--version -V                    | --version=1
# unknown
--nosuch                        | --nosuch
--cl                            | --cl 5
-Z                              | -Z
bogus                           | bogus=1
bogus                           | bogus
EOF
}

value() {
	case $1 in
	@emptyfile) printf '%s' "$EMPTYFILE" ;;
	@blankfile) printf '%s' "$BLANKFILE" ;;
	@ctl) printf 'bad\001name' ;;
	@crlf) printf 'u%%d\r\nA1 DELETE INBOX' ;;
	@ctlfile) printf '%s' "$CTLFILE" ;;
	@ctluserfile) printf '%s' "$CTLUSERFILE" ;;
	*) printf '%s' "$1" ;;
	esac
}

# Lane LANE: runs every LANES-th case; one "FAIL ..." line per failure in
# $TEST_TMP/fail.LANE, the number of cases run in $TEST_TMP/count.LANE.
lane() {
	local lane=$1 n=0 i=0 line sp v k alt
	local -a spellings values args
	: >"$TEST_TMP/fail.$lane"
	while IFS= read -r line; do
		if [[ $line == *" | "* ]]; then
			read -ra spellings <<<"${line%% | *}"
			read -ra args <<<"${line#* | }"
			for k in "${!args[@]}"; do
				args[k]=$(value "${args[k]}")
			done
			if ((i++ % LANES == lane)); then
				check "${spellings[*]}" "${args[@]}"
				n=$((n + 1))
			fi
			continue
		fi
		read -ra spellings <<<"${line%% : *}"
		read -ra values <<<"${line#* : }"
		for sp in "${spellings[@]}"; do
			alt=0
			for v in "${values[@]}"; do
				((i++ % LANES == lane)) || continue
				n=$((n + 1))
				case $sp in
				--*)
					alt=$((1 - alt))
					case $v in
					@none) args=("$sp") ;;
					@empty) if [ $alt = 1 ]; then args=("$sp="); else args=("$sp" ""); fi ;;
					*) if [ $alt = 1 ]; then args=("$sp=$(value "$v")"); else args=("$sp" "$(value "$v")"); fi ;;
					esac ;;
				-?)
					case $v in
					@none) args=("$sp") ;;
					@empty) args=("$sp" "") ;;
					*) args=("$sp" "$(value "$v")") ;;
					esac ;;
				*)
					case $v in
					@none) args=("$sp") ;;
					@empty) args=("$sp=") ;;
					*) args=("$sp=$(value "$v")") ;;
					esac ;;
				esac
				check "${spellings[*]}" "${args[@]}"
			done
		done
	done < <(table)
	echo "$n" >"$TEST_TMP/count.$lane"
}

# check "SPELLINGS" ARGS...: the case's verdict, appended to fail.$lane.
# Spellings are made of [A-Za-z0-9_-] only, so they go into a regex as
# they are.
check() {
	local names=$1 rc=0 out err nlines name ok=0 s why=
	shift
	out=$TEST_TMP/out.$lane err=$TEST_TMP/err.$lane
	timeout --kill-after=2 10 "$IMAPSTRESS" "${PREFIX[@]}" "$@" \
		>"$out" 2>"$err" </dev/null || rc=$?
	nlines=$(wc -l <"$err")
	if [ "$rc" != 2 ]; then
		why="exit $rc, expected 2"
	elif [ -s "$out" ]; then
		why="output on stdout: $(head -c 200 "$out")"
	elif [ "$nlines" != 1 ]; then
		why="$nlines lines on stderr, expected 1"
	else
		for s in $names; do
			# A long option is named with or without its dashes.
			case $s in
			--*) name=${s#--} ;;
			*) name=$s ;;
			esac
			if grep -qE -- "(^|[^[:alnum:]_-])-*$name([^[:alnum:]_]|\$)" "$err"; then
				ok=1
				break
			fi
		done
		[ "$ok" = 1 ] || why="the message does not name ${names// / or }"
	fi
	if [ -n "$why" ]; then
		printf 'FAIL %s: %s; stderr: %s\n' "$(printf '%q ' "$@")" "$why" \
			"$(head -n 3 "$err" | tr '\n' '|' | cut -c1-300)" >>"$TEST_TMP/fail.$lane"
	fi
}

for ((l = 0; l < LANES; l++)); do
	lane "$l" &
done
wait

# A user name with a control character, from each place one comes from:
# the message shows it escaped (never the raw octet), a password is not
# shown at all, a file is named with its line.
ctl_case() {
	local want=$1 rc=0
	shift
	env "$@" "${PREFIX[@]}" >"$TEST_TMP/ctl.out" 2>"$TEST_TMP/ctl.err" \
		</dev/null || rc=$?
	[ "$rc" = 2 ] || fail "$(printf '%q ' "$@"): exit $rc, expected 2"
	[ "$(cat "$TEST_TMP/ctl.err")" = "$want" ] ||
		fail "$(printf '%q ' "$@"): stderr '$(cat -v "$TEST_TMP/ctl.err")', expected '$want'"
	! LC_ALL=C grep -q '[^ -~]' "$TEST_TMP/ctl.err" ||
		fail "$(printf '%q ' "$@"): raw control characters on stderr"
}
ctl_case 'imapstress: user=bad\x01name: control character \x01 in a user name' \
	"$IMAPSTRESS" "user=$(value @ctl)"
ctl_case 'imapstress: --user u%d\x0d\x0aA1 DELETE INBOX: control character \x0d in a user name' \
	"$IMAPSTRESS" --user "$(value @crlf)"
ctl_case 'imapstress: pass: control character \x01 at octet 4 of the password (not shown)' \
	"$IMAPSTRESS" "pass=$(value @ctl)"
ctl_case "imapstress: userfile=$CTLUSERFILE line 2: control character \x01 in the user name \"bad\x01name\"" \
	"$IMAPSTRESS" "userfile=$CTLUSERFILE"
ctl_case 'imapstress: user=bad\x01name (from $USER): control character \x01 in a user name' \
	USER="$(value @ctl)" "$IMAPSTRESS"
ctl_case "imapstress: userfile=$CTLUSERFILE line 2: control character \x01 in the user name \"bad\x01name\"" \
	"$IMAPSTRESS" init "userfile=$CTLUSERFILE"

total=0 failed=0
for ((l = 0; l < LANES; l++)); do
	[ -f "$TEST_TMP/count.$l" ] || fail "lane $l did not finish"
	total=$((total + $(cat "$TEST_TMP/count.$l")))
	failed=$((failed + $(wc -l <"$TEST_TMP/fail.$l")))
done
cat "$TEST_TMP"/fail.* >&2
note "$total bad-option cases, $failed failed"
assert_ge "$total" 400 "number of cases run"
[ "$failed" = 0 ] || fail "$failed of $total bad-option cases failed (listed above)"
