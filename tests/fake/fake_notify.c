/* fake_notify.c: NOTIFY (RFC 5465) in mail-store mode, as much as a
 * profile client uses: NOTIFY SET turns notifications on for the session
 * (whatever events it names), NOTIFY NONE off.  While it is on and the
 * session is between commands, a delivery to its selected mailbox is
 * told as EXISTS, one to INBOX while another mailbox is selected as
 * `* STATUS INBOX (MESSAGES n UIDNEXT u)`.  With --notify-overflow N the
 * session's Nth notification is `* OK [NOTIFICATIONOVERFLOW]` instead,
 * and notifications stop until the next SET (RFC 5465 5.8).  SET STATUS
 * says INBOX's STATUS at once when INBOX is not selected. */
#include <string.h>
#include <strings.h>

#include "fake.h"
#include "fake_store.h"

static void
fake_notify_status(struct fake_sess *s, struct fake_box *inbox)
{
	fake_outf(s->c, "* STATUS INBOX (MESSAGES %zu UIDNEXT %u)\r\n",
		  inbox->n, (unsigned)inbox->uidnext);
}

unsigned
fake_s_notify(struct fake_conn *c, const struct fake_cmd *cmd)
{
	struct fake_sess *s = c->sess;
	const char *a = cmd->args;

	if (strncasecmp(a, "NONE", 4) == 0 && a[4] == '\0') {
		s->notify = false;
		return fake_h_ok(c, cmd);
	}
	if (strncasecmp(a, "SET ", 4) != 0) {
		fake_tagged(c, cmd, "BAD NOTIFY needs SET or NONE");
		return 0;
	}
	s->notify = true;
	s->notified = 0;
	c->sh->store->st.notify_sets++;
	struct fake_box *inbox = fake_store_box(s->u, "INBOX", false);
	if (strncasecmp(a + 4, "STATUS ", 7) == 0 && inbox != NULL &&
	    s->sel != inbox)
		fake_notify_status(s, inbox);
	return fake_h_ok(c, cmd);
}

bool
fake_notify_push(struct fake_sess *s, struct fake_box *b)
{
	struct fake_box *inbox = fake_store_box(s->u, "INBOX", false);

	if (s->sel != b && b != inbox)
		return false;
	fake_reply_begin(s->c, 0);
	if (s->c->sh->store->notify_overflow != 0 &&
	    ++s->notified == s->c->sh->store->notify_overflow) {
		fake_outf(s->c, "* OK [NOTIFICATIONOVERFLOW] too many\r\n");
		s->notify = false;
		s->c->sh->store->st.notify_overflows++;
	} else if (s->sel == b) {
		fake_sess_sync(s, true);
	} else {
		fake_notify_status(s, b);
		s->c->sh->store->st.notify_status++;
	}
	fake_reply_end(s->c, 0);
	fake_conn_pump(s->c);
	return s->notify;
}
