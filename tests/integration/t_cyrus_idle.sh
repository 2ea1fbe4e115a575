#!/bin/bash
# t_idle.sh against a private Cyrus IMAP 3.6 (scripts/cyrus-private)
# instead of Dovecot: the same assertions, the same helpers.
IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_idle.sh"
