#!/bin/bash
# t_default_mix.sh against a private Cyrus IMAP 3.6 (scripts/cyrus-private)
# instead of Dovecot: the same assertions, the same helpers; runs 1 and 2
# last 5 s here (MIX_SECS), not 10, to keep CI short (3 s was too few
# for a COPY to succeed under ASan on a loaded machine).
MIX_SECS=${MIX_SECS:-5} IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_default_mix.sh"
