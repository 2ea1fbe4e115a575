#!/bin/bash
# t_default_mix.sh against a private Cyrus IMAP 3.6 (scripts/cyrus-private)
# instead of Dovecot: the same runs, assertions and helpers.  Runs 1 and 2
# keep their 10 s: Cyrus is slower, and with 5 s under ASan on a loaded
# machine no COPY had succeeded yet.
IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_default_mix.sh"
