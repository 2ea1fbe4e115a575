#!/bin/bash
# t_default_mix.sh against a private Cyrus IMAP 3.6 (scripts/cyrus-private)
# instead of Dovecot: the same assertions, the same helpers; runs 1 and 2
# last 3 s here (MIX_SECS) to keep CI short.
MIX_SECS=${MIX_SECS:-3} IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_default_mix.sh"
