#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# t_init_dovecot.sh against a private Cyrus IMAP (scripts/cyrus-private):
# the same assertions, the same helpers.
IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_init_dovecot.sh"
