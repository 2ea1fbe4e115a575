# scripts/private-common.sh: helpers shared by scripts/dovecot-private and
# scripts/cyrus-private (sourced, never run).  The caller sets PROG (its
# name, for messages), PYTHON (a python3 for port probes) and, for
# make_tls, $dir (the instance directory; certificates go to $dir/tls).
# shellcheck shell=bash

die() {
	echo "$PROG: $*" >&2
	exit 1
}

usage_error() {
	echo "$PROG: $*" >&2
	echo "usage: $PROG start|stop|status|env|count|count-all [options]" \
		"(see the header of $0)" >&2
	exit 2
}

check_port() {
	case $2 in
	'' | *[!0-9]*) usage_error "$1 '$2' is not a port number" ;;
	esac
	if [ "$2" -lt 1 ] || [ "$2" -gt 65535 ]; then
		usage_error "$1 '$2' is out of range 1-65535"
	fi
}

# Without an argument, prints a port on 127.0.0.1 that nothing uses right
# now (there is a window until Dovecot binds it: start retries with fresh
# ports if it loses).  With PORT, succeeds if PORT can be bound: a bind-test,
# since a port can be taken without anyone accepting on it yet.
port_probe() {
	"$PYTHON" - "$@" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.bind(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0))
except OSError:
    sys.exit(1)
if len(sys.argv) == 1:
    print(s.getsockname()[1])
s.close()
EOF
}

abs_dir() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd -P)" "$1" ;;
	esac
}

# One-letter process state (R, S, Z...); fails if there is no such process.
proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	echo "${stat%% *}"
}

# A zombie counts as gone: a container's pid 1 may be slow to reap (or never
# reap) the daemonized master.
proc_alive() {
	local st
	st=$(proc_state "$1") && [ "$st" != Z ]
}

# Reads lines until the IMAP greeting or a timeout; "* OK" means Dovecot has
# accepted us and a login process is serving.
greeting_ok() {
	local line=''
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	IFS= read -r -t 1 line <&3 || true
	exec 3<&- 3>&-
	case $line in '* OK'*) return 0 ;; esac
	return 1
}

tcp_accepts() {
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	exec 3<&- 3>&-
}

make_tls() {
	local t=$dir/tls
	mkdir -p "$t"
	chmod 700 "$t"
	# EC P-256 keys: generated instantly, and every OpenSSL 3 client takes them.
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$t/ca.key" -out "$t/ca.pem" -days 30 \
		-subj "/CN=imapstress private test CA" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>"$t/openssl.log" ||
		{ cat "$t/openssl.log" >&2; die "start: openssl could not create the CA"; }
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$t/server.key" -out "$t/server.csr" \
		-subj "/CN=localhost" 2>>"$t/openssl.log" ||
		{ cat "$t/openssl.log" >&2; die "start: openssl could not create the server key"; }
	cat >"$t/server.ext" <<'EOF'
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
EOF
	openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" \
		-CAcreateserial -days 30 -extfile "$t/server.ext" \
		-out "$t/server.pem" 2>>"$t/openssl.log" ||
		{ cat "$t/openssl.log" >&2; die "start: openssl could not sign the server cert"; }
	chmod 600 "$t"/*.key
}
