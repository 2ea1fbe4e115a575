#!/usr/bin/python3
"""fetch_sizes.py PORT PASSWORD BOXES USER...: the RFC822.SIZE of every
message in the mailboxes BOXES (comma-separated) of each USER, counted:
one "SIZE COUNT" line per size, smallest first.  A mailbox that cannot be
selected or is empty counts nothing.  For the tests that check what sizes
a run stored (t_learn_sizes, t_profile_sizes)."""
import collections
import imaplib
import re
import sys


def main():
    port, password = int(sys.argv[1]), sys.argv[2]
    boxes, users = sys.argv[3].split(","), sys.argv[4:]
    count = collections.Counter()
    for user in users:
        m = imaplib.IMAP4("127.0.0.1", port)
        m.login(user, password)
        for box in boxes:
            typ, data = m.select(box, readonly=True)
            if typ != "OK" or int(data[0]) == 0:
                continue
            typ, data = m.fetch("1:*", "(RFC822.SIZE)")
            for d in data:
                if isinstance(d, tuple):
                    d = d[0]
                count[int(re.search(rb"RFC822\.SIZE (\d+)", d).group(1))] += 1
        m.logout()
    for size, n in sorted(count.items()):
        print(size, n)


if __name__ == "__main__":
    main()
