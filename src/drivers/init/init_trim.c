/* init_trim.c: `imapstress init --trim`: before topping up, every folder
 * of the table that holds more than the table asks is brought back down
 * to it, so that a run starts from the same mailboxes however many runs
 * came before (a capacity search's steps: each run's deliveries and
 * appends would otherwise pile up, and a later step would face a bigger
 * store than an earlier one).  Only imapstress's own mail goes: the
 * folder is SELECTed, the foreign-mail guard (imap/guard.h) searches it
 * before the first destructive command as for every driver, and a folder
 * holding any message without the X-Imapstress header stops the run
 * unless --allow-foreign-mail is given.  Then
 *   STORE want+1:* +FLAGS.SILENT (\Deleted), EXPUNGE
 * removes the newest messages past `want` (the guard having found only
 * our mail, EXPUNGE removes nothing else), one command at a time; the
 * untagged EXPUNGEs are counted (init_results.trimmed) and the STATUS
 * round after plans the rest as without --trim.  Nothing else runs on the
 * server's side meanwhile (the capacity search's steps do not overlap), so
 * the sequence numbers STATUS gave are the ones STORE names. */
#include <stdio.h>

#include "conn/conn.h"
#include "drivers/init/init_int.h"

/* What folder f holds past the table, by the last STATUS round. */
static uint32_t
trim_surplus(const struct init_conn *ic, unsigned f)
{
	uint32_t want = ic->w->run->spec->f[f].want;
	const struct init_have *h = &ic->have[f];

	return h->exists && h->messages > want ? h->messages - want : 0;
}

bool
init_trim_wanted(const struct init_conn *ic)
{
	if (!ic->w->run->trim || ic->trimmed)
		return false;
	for (unsigned f = 0; f < ic->w->run->spec->n; f++)
		if (trim_surplus(ic, f) > 0)
			return true;
	return false;
}

bool
init_trim_send(struct init_conn *ic, conn_done_fn done)
{
	const struct init_spec *s = ic->w->run->spec;
	char cmd[INIT_NAME_MAX + 64];
	enum op op;

	if (ic->trim_step == TRIM_SELECT) {
		while (ic->next_f < s->n && trim_surplus(ic, ic->next_f) == 0)
			ic->next_f++;
		if (ic->next_f >= s->n) {
			ic->trimmed = true;
			return false;
		}
	}
	const struct init_folder *f = &s->f[ic->next_f];
	if (ic->trim_step == TRIM_SELECT) {
		op = OP_SELECT;
		snprintf(cmd, sizeof(cmd), "SELECT \"%s\"", f->name);
	} else {
		/* The guard's search runs here, before the first command that
		 * destroys; false: asked or awaited, the ready hook comes
		 * again (or it refused, and the run stops). */
		if (!conn_guard_clear(ic->c, f->name))
			return false;
		if (ic->trim_step == TRIM_STORE) {
			op = OP_STORE;
			snprintf(cmd, sizeof(cmd), "STORE %lu:* +FLAGS.SILENT "
				 "(\\Deleted)", (unsigned long)f->want + 1);
		} else {
			op = OP_EXPUNGE;
			snprintf(cmd, sizeof(cmd), "EXPUNGE");
		}
	}
	ic->trim_ref.ic = ic;
	ic->trim_ref.f = ic->next_f;
	ic->trim_ref.n = 0;
	return conn_command(ic->c, op, cmd, NULL, done, &ic->trim_ref);
}

void
init_trim_ok(struct init_conn *ic)
{
	const struct init_folder *f = &ic->w->run->spec->f[ic->next_f];

	switch (ic->trim_step) {
	case TRIM_SELECT:
		conn_guard_selected(ic->c, f->name);
		ic->trim_step = TRIM_STORE;
		break;
	case TRIM_STORE:
		ic->trim_step = TRIM_EXPUNGE;
		break;
	default:
		ic->trim_step = TRIM_SELECT;
		ic->next_f++;
		break;
	}
}
