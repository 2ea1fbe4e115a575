"""scripts/bench_common.py: what bench-client and its section modules share:
the repository root and the one way they print a note or die."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG = "bench-client"


def die(msg, status=1):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(status)


def note(msg):
    print("[%s] %s" % (PROG, msg), file=sys.stderr, flush=True)
