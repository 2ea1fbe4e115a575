#!/bin/bash
# t_loadsim_cached.sh against a private Cyrus IMAP (scripts/cyrus-private):
# the same assertions, the same helpers.
IMAP_SERVER=cyrus exec bash "$(dirname "$0")/t_loadsim_cached.sh"
