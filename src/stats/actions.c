/* actions.c: profile mode's per-action, push and LMTP figures: the
 * writer's calls and the snapshot arithmetic (see actions.h).  No I/O
 * beyond a warning for a caller bug. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stats/actions.h"
#include "util/log.h"
#include "stats/stats.h"

const char *const action_name[ACT_COUNT] = {
	[ACT_DELIVER] = "deliver",
	[ACT_NOTICE] = "notice",
	[ACT_READ] = "read",
	[ACT_REPLY] = "reply",
	[ACT_DELETE] = "delete",
	[ACT_MOVE] = "move",
	[ACT_SEND] = "send",
	[ACT_LOGIN] = "login",
	[ACT_LOGOUT] = "logout",
	[ACT_BROWSE] = "browse",
	[ACT_CLEAN] = "clean",
	[ACT_CALENDAR] = "calendar",
	[ACT_FREEBUSY] = "freebusy",
	[ACT_MEETING] = "meeting",
	[ACT_LOGOFF] = "logoff",
	[ACT_APPOINTMENT] = "appointment",
	[ACT_SUBMIT] = "submit",
};

const char *const lmtp_fail_name[LMTP_FAIL_SLOTS] = {
	"none", "connect", "timeout", "disconnect", "protocol", "shutdown",
};

const char *const push_kind_name[PUSH_COUNT] = {
	[PUSH_EXISTS] = "exists",
	[PUSH_FETCH] = "fetch",
	[PUSH_NOTIFY_EXISTS] = "notify_exists",
	[PUSH_NOTIFY_FETCH] = "notify_fetch",
	[PUSH_EXISTS_LMTP] = "exists_lmtp",
	[PUSH_EXISTS_SUBMIT] = "exists_submit",
};

const char *const push_mech_name[PUSH_MECHS] = {
	[PUSH_M_IDLE] = "idle",
	[PUSH_M_NOTIFY] = "notify",
};

int
lmtp_esc_slot(int klass, int subject, int detail)
{
	int k = klass == 2 ? 0 : klass == 4 ? 1 : klass == 5 ? 2 : -1;

	if (k < 0 || subject < 0 || subject > 7 || detail < 0 || detail > 9)
		return LMTP_ESC_SLOTS - 1;
	return (k * 8 + subject) * 10 + detail;
}

void
lmtp_esc_name(int slot, char *out, size_t n)
{
	static const int klass[3] = { 2, 4, 5 };

	if (slot < 0 || slot >= LMTP_ESC_SLOTS - 1)
		snprintf(out, n, "other");
	else
		snprintf(out, n, "%d.%d.%d", klass[slot / 80], slot / 10 % 8,
			 slot % 10);
}

void
lmtp_snap_print_esc(FILE *f, const char *head, const struct lmtp_snap *b)
{
	bool any = false;

	for (int e = 0; e < LMTP_ESC_SLOTS; e++) {
		char n[16];
		if (b->esc[e] == 0)
			continue;
		if (!any)
			fputs(head, f);
		lmtp_esc_name(e, n, sizeof(n));
		fprintf(f, " %s=%" PRIu64, n, b->esc[e]);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

int
action_from_name(const char *name)
{
	for (int i = 0; i < ACT_COUNT; i++)
		if (strcmp(name, action_name[i]) == 0)
			return i;
	return -1;
}

static uint64_t
sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* ---- writer ---- */

void
act_profile_on(struct act_stats *a)
{
	ctr_set(&a->profile, 1);
}

static bool
act_valid(enum action act)
{
	if ((unsigned)act < ACT_COUNT)
		return true;
	log_warn("stats: out-of-range action %d ignored", (int)act);
	return false;
}

void
act_ok(struct act_stats *a, enum action act, uint64_t us)
{
	if (!act_valid(act))
		return;
	ctr_add(&a->ok[act], 1);
	hist_record(a->lat[act], us);
}

void
act_failed(struct act_stats *a, enum action act)
{
	if (act_valid(act))
		ctr_add(&a->failed[act], 1);
}

void
act_push(struct act_stats *a, enum push_kind k, uint64_t us)
{
	if ((unsigned)k >= PUSH_COUNT) {
		log_warn("stats: out-of-range push kind %d ignored", (int)k);
		return;
	}
	hist_record(a->push[k], us);
}

void
act_push_missed(struct act_stats *a, uint64_t n)
{
	ctr_add(&a->push_missed, n);
}

void
act_push_missed_by(struct act_stats *a, enum push_mech m, uint64_t n)
{
	ctr_add(m == PUSH_M_NOTIFY ? &a->push_missed_notify : &a->push_missed,
		n);
}

void
act_notify_refused(struct act_stats *a)
{
	ctr_add(&a->notify_refused, 1);
}

void
act_push_unseen_end(struct act_stats *a, uint64_t n)
{
	ctr_add(&a->push_unseen_end, n);
}

void
act_notify_overflow(struct act_stats *a)
{
	ctr_add(&a->notify_overflow, 1);
}

/* Unsigned wrap-around does the subtraction; a gauge read mid-way is
 * never below zero because one thread does both halves. */
void
act_users_add(struct act_stats *a, int delta)
{
	ctr_add(&a->users_in, (uint64_t)(int64_t)delta);
}

void
act_users_started(struct act_stats *a)
{
	ctr_add(&a->users_started, 1);
}

/* ---- histograms, all of them in one place so no step forgets one ---- */

/* Every histogram of a shard or snapshot, in one fixed order (ACT_N_HISTS
 * of them, actions.h), so that each step below walks them all and none
 * can be forgotten. */
static void
live_hists(const struct act_stats *a, struct hist **h)
{
	unsigned n = 0;
	for (int i = 0; i < ACT_COUNT; i++)
		h[n++] = a->lat[i];
	for (int k = 0; k < PUSH_COUNT; k++)
		h[n++] = a->push[k];
	h[n++] = a->lmtp.lat_total;
	h[n++] = a->lmtp.lat_data;
	h[n++] = a->submit.lat_total;
	h[n++] = a->submit.lat_data;
	for (int c = 0; c < P3_CMD_COUNT; c++)
		h[n++] = a->pop3.lat[c];
}

static void
snap_hists(const struct act_snap *d, struct hist **h)
{
	unsigned n = 0;
	for (int i = 0; i < ACT_COUNT; i++)
		h[n++] = d->lat[i];
	for (int k = 0; k < PUSH_COUNT; k++)
		h[n++] = d->push[k];
	h[n++] = d->lmtp.lat_total;
	h[n++] = d->lmtp.lat_data;
	h[n++] = d->submit.lat_total;
	h[n++] = d->submit.lat_data;
	for (int c = 0; c < P3_CMD_COUNT; c++)
		h[n++] = d->pop3.lat[c];
}

static void
set_snap_hists(struct act_snap *d, struct hist **h)
{
	unsigned n = 0;
	for (int i = 0; i < ACT_COUNT; i++)
		d->lat[i] = h[n++];
	for (int k = 0; k < PUSH_COUNT; k++)
		d->push[k] = h[n++];
	d->lmtp.lat_total = h[n++];
	d->lmtp.lat_data = h[n++];
	d->submit.lat_total = h[n++];
	d->submit.lat_data = h[n++];
	for (int c = 0; c < P3_CMD_COUNT; c++)
		d->pop3.lat[c] = h[n++];
}

/* ---- lifecycle ---- */

void
act_stats_init(struct act_stats *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < ACT_COUNT; i++)
		a->lat[i] = hist_new();
	for (int k = 0; k < PUSH_COUNT; k++)
		a->push[k] = hist_new();
	a->lmtp.lat_total = hist_new();
	a->lmtp.lat_data = hist_new();
	a->submit.lat_total = hist_new();
	a->submit.lat_data = hist_new();
	for (int c = 0; c < P3_CMD_COUNT; c++)
		a->pop3.lat[c] = hist_new();
}

void
act_stats_fini(struct act_stats *a)
{
	struct hist *h[ACT_N_HISTS];
	live_hists(a, h);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_free(h[i]);
	memset(a, 0, sizeof(*a));
}

void
act_snap_init(struct act_snap *d)
{
	struct hist *h[ACT_N_HISTS];
	memset(d, 0, sizeof(*d));
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		h[i] = hist_new();
	set_snap_hists(d, h);
}

void
act_snap_free(struct act_snap *d)
{
	struct hist *h[ACT_N_HISTS];
	snap_hists(d, h);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_free(h[i]);
	memset(d, 0, sizeof(*d));
}

void
act_snap_clear_counts(struct act_snap *d)
{
	struct hist *h[ACT_N_HISTS];
	snap_hists(d, h);
	memset(d, 0, sizeof(*d));
	set_snap_hists(d, h);
}

void
act_snap_clear(struct act_snap *d)
{
	struct hist *h[ACT_N_HISTS];
	act_snap_clear_counts(d);
	snap_hists(d, h);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_reset(h[i]);
}

/* ---- arithmetic ---- */

static uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

#define C(f) ctr_set(&d->f, ctr_get(&s->f));
/* The LMTP (or submission) block's counters and gauges. */
static void
blk_copy_counts(struct lmtp_stats *d, const struct lmtp_stats *s)
{
#define X(f) C(f)
	LMTP_COUNTERS(X)
	X(sessions_open) X(queued_max)
#undef X
	for (int k = 0; k < LMTP_FAIL_SLOTS; k++)
		C(fails[k])
	for (int c = 0; c < LMTP_CODES; c++)
		C(codes[c])
	for (int e = 0; e < LMTP_ESC_SLOTS; e++)
		C(esc[e])
}

/* d = s for a published copy (stats_pub.c): d is written by s's thread
 * only, its histograms refreshed from the blocks s changed. */
void
act_stats_copy_counts(struct act_stats *d, const struct act_stats *s)
{
	C(profile) C(push_missed)
#define X(f) C(f)
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	for (int i = 0; i < ACT_COUNT; i++) {
		C(ok[i]) C(failed[i])
	}
	blk_copy_counts(&d->lmtp, &s->lmtp);
	blk_copy_counts(&d->submit, &s->submit);
	pop3_stats_copy_counts(&d->pop3, &s->pop3);
}
#undef C

static void
blk_add_live(struct lmtp_snap *d, const struct lmtp_stats *s)
{
#define X(f) d->f += ctr_get(&s->f);
	LMTP_COUNTERS(X)
	X(sessions_open)
#undef X
	d->queued_max = max_u64(d->queued_max, ctr_get(&s->queued_max));
	for (int k = 0; k < LMTP_FAIL_SLOTS; k++)
		d->fails[k] += ctr_get(&s->fails[k]);
	for (int c = 0; c < LMTP_CODES; c++)
		d->codes[c] += ctr_get(&s->codes[c]);
	for (int e = 0; e < LMTP_ESC_SLOTS; e++)
		d->esc[e] += ctr_get(&s->esc[e]);
}

static void
blk_add(struct lmtp_snap *d, const struct lmtp_snap *s)
{
#define X(f) d->f += s->f;
	LMTP_COUNTERS(X)
	X(sessions_open)
#undef X
	d->queued_max = max_u64(d->queued_max, s->queued_max);
	for (int k = 0; k < LMTP_FAIL_SLOTS; k++)
		d->fails[k] += s->fails[k];
	for (int c = 0; c < LMTP_CODES; c++)
		d->codes[c] += s->codes[c];
	for (int e = 0; e < LMTP_ESC_SLOTS; e++)
		d->esc[e] += s->esc[e];
}

static void
blk_diff(struct lmtp_snap *d, const struct lmtp_snap *a,
	 const struct lmtp_snap *b)
{
#define X(f) d->f = sat_sub(a->f, b->f);
	LMTP_COUNTERS(X)
#undef X
	d->sessions_open = a->sessions_open;
	d->queued_max = a->queued_max;
	for (int k = 0; k < LMTP_FAIL_SLOTS; k++)
		d->fails[k] = sat_sub(a->fails[k], b->fails[k]);
	for (int c = 0; c < LMTP_CODES; c++)
		d->codes[c] = sat_sub(a->codes[c], b->codes[c]);
	for (int e = 0; e < LMTP_ESC_SLOTS; e++)
		d->esc[e] = sat_sub(a->esc[e], b->esc[e]);
}

void
act_stats_hists(const struct act_stats *a, struct hist *h[ACT_N_HISTS])
{
	live_hists(a, h);
}

void
act_snap_hists(const struct act_snap *d, struct hist *h[ACT_N_HISTS])
{
	snap_hists(d, h);
}

void
act_snap_add_live_counts(struct act_snap *d, const struct act_stats *s)
{
	d->profile += ctr_get(&s->profile);
	for (int i = 0; i < ACT_COUNT; i++) {
		d->ok[i] += ctr_get(&s->ok[i]);
		d->failed[i] += ctr_get(&s->failed[i]);
	}
	d->push_missed += ctr_get(&s->push_missed);
#define X(f) d->f += ctr_get(&s->f);
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	blk_add_live(&d->lmtp, &s->lmtp);
	blk_add_live(&d->submit, &s->submit);
	pop3_snap_add_live_counts(&d->pop3, &s->pop3);
}

void
act_snap_add_live_hists(struct act_snap *d, const struct act_stats *s)
{
	struct hist *hd[ACT_N_HISTS], *hs[ACT_N_HISTS];
	snap_hists(d, hd);
	live_hists(s, hs);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_merge(hd[i], hs[i]);
}

void
act_snap_add(struct act_snap *d, const struct act_snap *s)
{
	struct hist *hd[ACT_N_HISTS], *hs[ACT_N_HISTS];
	d->profile += s->profile;
	for (int i = 0; i < ACT_COUNT; i++) {
		d->ok[i] += s->ok[i];
		d->failed[i] += s->failed[i];
	}
	d->push_missed += s->push_missed;
#define X(f) d->f += s->f;
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	blk_add(&d->lmtp, &s->lmtp);
	blk_add(&d->submit, &s->submit);
	pop3_snap_add_counts(&d->pop3, &s->pop3);
	snap_hists(d, hd);
	snap_hists(s, hs);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_merge(hd[i], hs[i]);
}

void
act_snap_diff_counts(struct act_snap *d, const struct act_snap *a,
		     const struct act_snap *b)
{
	d->profile = a->profile;
	for (int i = 0; i < ACT_COUNT; i++) {
		d->ok[i] = sat_sub(a->ok[i], b->ok[i]);
		d->failed[i] = sat_sub(a->failed[i], b->failed[i]);
	}
	d->push_missed = sat_sub(a->push_missed, b->push_missed);
#define X(f) d->f = a->f;
	ACT_USER_GAUGES(X)
#undef X
#define X(f) d->f = sat_sub(a->f, b->f);
	ACT_LATE_COUNTERS(X)
#undef X
	blk_diff(&d->lmtp, &a->lmtp, &b->lmtp);
	blk_diff(&d->submit, &a->submit, &b->submit);
	pop3_snap_diff_counts(&d->pop3, &a->pop3, &b->pop3);
}

void
act_snap_diff(struct act_snap *d, const struct act_snap *a,
	      const struct act_snap *b)
{
	struct hist *hd[ACT_N_HISTS], *ha[ACT_N_HISTS], *hb[ACT_N_HISTS];
	act_snap_diff_counts(d, a, b);
	snap_hists(d, hd);
	snap_hists(a, ha);
	snap_hists(b, hb);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_diff(hd[i], ha[i], hb[i]);
}

void
act_snap_copy_counts(struct act_snap *d, const struct act_snap *s)
{
	struct hist *hd[ACT_N_HISTS];
	if (d == s)
		return;
	snap_hists(d, hd);
	memcpy(d, s, sizeof(*d));
	set_snap_hists(d, hd);
}

void
act_snap_copy(struct act_snap *d, const struct act_snap *s)
{
	struct hist *hd[ACT_N_HISTS], *hs[ACT_N_HISTS];
	if (d == s)
		return;
	act_snap_copy_counts(d, s);
	snap_hists(d, hd);
	snap_hists(s, hs);
	for (unsigned i = 0; i < ACT_N_HISTS; i++)
		hist_copy(hd[i], hs[i]);
}

uint64_t
lmtp_snap_codes(const struct lmtp_snap *b, int klass)
{
	uint64_t n = 0;
	if (klass < 1 || klass > 5)
		return 0;
	for (int c = klass * 100; c < klass * 100 + 100; c++)
		n += b->codes[c];
	return n;
}

uint64_t
act_lmtp_codes(const struct act_snap *d, int klass)
{
	return lmtp_snap_codes(&d->lmtp, klass);
}

struct hist *
act_snap_hist(const struct act_snap *d, unsigned i,
	      char name[ACT_HIST_NAME_MAX])
{
	struct hist *h[ACT_N_HISTS];
	if (i >= ACT_N_HISTS)
		return NULL;
	snap_hists(d, h);
	if (i < ACT_COUNT)
		snprintf(name, ACT_HIST_NAME_MAX, "act.%s", action_name[i]);
	else if (i < ACT_COUNT + PUSH_COUNT)
		snprintf(name, ACT_HIST_NAME_MAX, "push.%s",
			 push_kind_name[i - ACT_COUNT]);
	else if (i >= ACT_COUNT + PUSH_COUNT + 4)
		snprintf(name, ACT_HIST_NAME_MAX, "pop3.%s",
			 pop3_cmd_name[i - ACT_COUNT - PUSH_COUNT - 4]);
	else
		snprintf(name, ACT_HIST_NAME_MAX, "%s.%s",
			 i < ACT_COUNT + PUSH_COUNT + 2 ? "lmtp" : "submit",
			 (i - ACT_COUNT - PUSH_COUNT) % 2 == 0 ? "total" : "data");
	return h[i];
}

struct hist *
act_snap_hist_named(const struct act_snap *d, const char *name)
{
	char n[ACT_HIST_NAME_MAX];
	struct hist *h;
	for (unsigned i = 0; (h = act_snap_hist(d, i, n)) != NULL; i++)
		if (strcmp(n, name) == 0)
			return h;
	return NULL;
}

bool
act_activity(const struct act_snap *d, int act)
{
	return d->ok[act] + d->failed[act] + hist_count(d->lat[act]) > 0;
}
