/* pop3_stats.c: the POP3 block's names and arithmetic (pop3_stats.h);
 * its histograms are walked with the others in actions.c. */
#include <stdbool.h>

#include "stats/pop3_stats.h"
#include "stats/stats.h"

const char *const pop3_cmd_name[P3_CMD_COUNT] = {
	"greeting", "capa", "stls", "user", "pass", "auth", "stat", "uidl",
	"list", "retr", "dele", "quit",
};

const char *const pop3_fail_name[P3F_COUNT] = {
	"connect", "timeout", "disconnect", "protocol", "tls", "shutdown",
};

static uint64_t
sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void
pop3_stats_copy_counts(struct pop3_stats *d, const struct pop3_stats *s)
{
#define C(f) ctr_set(&d->f, ctr_get(&s->f));
	for (int i = 0; i < P3_CMD_COUNT; i++) {
		C(ok[i]) C(err[i]) C(failed[i])
	}
	for (int k = 0; k < P3F_COUNT; k++)
		C(fails[k])
#define X(f) C(f)
	POP3_COUNTERS(X)
	X(sessions_open)
#undef X
#undef C
}

void
pop3_snap_add_live_counts(struct pop3_snap *d, const struct pop3_stats *s)
{
	for (int i = 0; i < P3_CMD_COUNT; i++) {
		d->ok[i] += ctr_get(&s->ok[i]);
		d->err[i] += ctr_get(&s->err[i]);
		d->failed[i] += ctr_get(&s->failed[i]);
	}
	for (int k = 0; k < P3F_COUNT; k++)
		d->fails[k] += ctr_get(&s->fails[k]);
#define X(f) d->f += ctr_get(&s->f);
	POP3_COUNTERS(X)
	X(sessions_open)
#undef X
}

void
pop3_snap_add_counts(struct pop3_snap *d, const struct pop3_snap *s)
{
	for (int i = 0; i < P3_CMD_COUNT; i++) {
		d->ok[i] += s->ok[i];
		d->err[i] += s->err[i];
		d->failed[i] += s->failed[i];
	}
	for (int k = 0; k < P3F_COUNT; k++)
		d->fails[k] += s->fails[k];
#define X(f) d->f += s->f;
	POP3_COUNTERS(X)
	X(sessions_open)
#undef X
}

void
pop3_snap_diff_counts(struct pop3_snap *d, const struct pop3_snap *a,
		      const struct pop3_snap *b)
{
	for (int i = 0; i < P3_CMD_COUNT; i++) {
		d->ok[i] = sub0(a->ok[i], b->ok[i]);
		d->err[i] = sub0(a->err[i], b->err[i]);
		d->failed[i] = sub0(a->failed[i], b->failed[i]);
	}
	for (int k = 0; k < P3F_COUNT; k++)
		d->fails[k] = sub0(a->fails[k], b->fails[k]);
#define X(f) d->f = sub0(a->f, b->f);
	POP3_COUNTERS(X)
#undef X
	d->sessions_open = a->sessions_open;
}

bool
pop3_snap_any(const struct pop3_snap *d)
{
	return d->sessions > 0 || d->sessions_open > 0;
}

uint64_t
pop3_snap_errors(const struct pop3_snap *d)
{
	uint64_t n = 0;

	/* A dead session's commands in flight are not counted again. */
	for (int i = 0; i < P3_CMD_COUNT; i++)
		n += d->err[i];
	for (int k = 0; k < P3F_COUNT; k++)
		n += d->fails[k];
	return n;
}
