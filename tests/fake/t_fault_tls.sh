#!/bin/bash
# TLS that cannot work: a server answering the ClientHello with junk
# (tls-fail), a plaintext IMAP server (plain-on-tls, which greets in
# clear), and a server that accepts TCP and then never says a word, so the
# handshake never finishes.  imapstress with `ssl` (verification on) or
# --tls --insecure must count each failure, retry with backoff, end on
# time (secs=3, grace 2) and exit 3: nobody ever got in.
#
# How src/ classifies each (conn.c conn_event_cb, tls.c):
#   tls-fail, `ssl`            handshake error before any certificate
#                              is seen (not a verify failure)       -> tls
#   tls-fail, --tls --insecure the same handshake error              -> tls
#   plain-on-tls               "* OK ..." read as a TLS record:
#                              "wrong version number"                -> tls
#   no-greeting + --tls        no ServerHello: the connection stays in
#                              CONNECTING until --connect-timeout 1s -> timeout
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=2
common=("secs=$SECS" --grace "$GRACE")

fault_server tlsfail --mode tls-fail
fault_run tls-fail-ssl clients=10 "${common[@]}" ssl
fault_run tls-fail-insecure clients=10 "${common[@]}" --tls --insecure
fault_server plain --mode plain-on-tls
fault_run plain-on-tls clients=10 "${common[@]}" --tls --insecure
fault_server silent --mode no-greeting
fault_run tls-silent clients=5 "${common[@]}" --tls --insecure --connect-timeout 1s
fault_wait

for s in tls-fail-ssl tls-fail-insecure plain-on-tls tls-silent; do
	fault_note "$s"
	fault_common "$s" $SECS $GRACE
	fault_exit "$s" 3
	fault_cmp "$s" logins -eq 0
done
for s in tls-fail-ssl tls-fail-insecure plain-on-tls; do
	fault_kinds "$s" tls
	# Backoff (20 ms doubling): about 10 attempts per client in 3 s at
	# most, not a tight loop.
	fault_cmp "$s" connects -gt 10
	fault_cmp "$s" connects -le 120
done
fault_stderr plain-on-tls 'TLS' "the TLS failure is reported as such"
fault_kinds tls-silent timeout
fault_cmp tls-silent connects -ge 10

fault_finish
