/* conn_ext.c: untagged responses that only an extension the client
 * enabled allows.  RFC 7162 3.2.10: a server sends "* VANISHED" only after
 * ENABLE QRESYNC succeeded (and VANISHED (EARLIER) only in reply to the
 * QRESYNC forms of SELECT and UID FETCH, which need it enabled too).  One
 * that arrives otherwise answers a question the client did not put:
 * applied, it would shift sequence numbers and change the workload unseen
 * (a VANISHED of every UID leaves nothing to FETCH), so it is a protocol
 * error, like a tag we never sent.  RFC 5161 3.2: an ENABLE is answered
 * by "* ENABLED" listing what it turned on; that list, not the tagged OK
 * (a server OKs an ENABLE of what it does not know), says QRESYNC is on. */
#include <stdbool.h>

#include "conn/conn_int.h"
#include "conn/conn_log.h"
#include "imap/imap_resp.h"

static bool
conn_enable_in_flight(const struct conn *c)
{
	for (unsigned i = 0; i < c->n_fl; i++)
		if (c->cmd.fl[i].internal == CONN_I_ENABLE)
			return true;
	return false;
}

bool
conn_ext_untagged(struct conn *c, const struct imap_resp *r)
{
	enum imap_kw kw = imap_resp_kw(r);

	if (kw == IMAP_KW_ENABLED) {
		/* An ENABLED nobody asked for turns nothing on. */
		if (conn_enable_in_flight(c) &&
		    (conn_caps_parse(r->text, r->text_len) & CAP_QRESYNC))
			c->setup.qresync_on = true;
		return true;
	}
	if (kw != IMAP_KW_VANISHED || c->setup.qresync_on)
		return true;
	char ex[208];
	conn_fail(c, ERR_PROTOCOL, "VANISHED but QRESYNC was not enabled "
			"(RFC 7162 3.2.10): \"%s\"",
			imap_resp_excerpt(ex, sizeof(ex), r->line, r->line_len));
	return false;
}
