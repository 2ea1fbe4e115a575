/* result_act.c: profile mode's counter lines of a result file ("act",
 * "action", the LMTP and submission client blocks, "pop3*"), read into an
 * act_snap for result_read.c; kept apart from the reader's framing and
 * histograms, which every mode's file has. */
#include <stdint.h>
#include <string.h>

#include "merge/result_act.h"
#include "merge/result_tokens.h"
#include "stats/actions.h"
#include "stats/pop3_stats.h"

/* The client block a keyword's prefix names ("lmtp...", "submit..."),
 * with the rest of the keyword in *suffix; NULL for neither. */
static struct lmtp_snap *
blk_of(struct act_snap *a, const char *kw, const char **suffix)
{
	static const char *const pfx[2] = { "lmtp", "submit" };
	struct lmtp_snap *b[2] = { &a->lmtp, &a->submit };

	for (int i = 0; i < 2; i++) {
		size_t n = strlen(pfx[i]);
		if (strncmp(kw, pfx[i], n) != 0)
			continue;
		*suffix = kw + n;
		if (strcmp(*suffix, "") == 0 || strcmp(*suffix, "fail") == 0 ||
		    strcmp(*suffix, "code") == 0 || strcmp(*suffix, "esc") == 0)
			return b[i];
	}
	return NULL;
}

/* A key of a client block line: the counter it names, or NULL. */
static uint64_t *
blk_key(struct lmtp_snap *b, const char *suffix, const char *k)
{
	uint64_t code;
	char n[16];

	if (strcmp(suffix, "fail") == 0) {
		for (int f = 0; f < LMTP_FAIL_SLOTS; f++)
			if (strcmp(lmtp_fail_name[f], k) == 0)
				return &b->fails[f];
		return NULL;
	}
	if (strcmp(suffix, "code") == 0)
		return result_parse_u64(k, &code) && code < LMTP_CODES ?
		    &b->codes[code] : NULL;
	if (strcmp(suffix, "esc") == 0) {
		for (int e = 0; e < LMTP_ESC_SLOTS; e++) {
			lmtp_esc_name(e, n, sizeof(n));
			if (strcmp(n, k) == 0)
				return &b->esc[e];
		}
		return NULL;
	}
#define X(f) if (strcmp(k, #f) == 0) return &b->f;
	LMTP_COUNTERS(X)
	X(sessions_open)
	X(queued_max)
#undef X
	return NULL;
}

/* The users gauges, NOTIFY's counters and push_unseen_end on the "act"
 * line (files from before a key have none of it). */
static uint64_t *
act_line_key(struct act_snap *a, const char *k)
{
#define X(n) if (strcmp(k, #n) == 0) return &a->n;
	ACT_USER_GAUGES(X)
	ACT_LATE_COUNTERS(X)
#undef X
	return NULL;
}

/* A key of a POP3 line (result_write.c, write_pop3): "pop3" counters,
 * "pop3fail" kinds, "pop3cmd" (cmd >= 0) ok/err/failed; NULL if none. */
static uint64_t *
pop3_key(struct pop3_snap *p, const char *kw, int cmd, const char *k)
{
	if (cmd >= 0)
		return strcmp(k, "ok") == 0 ? &p->ok[cmd] :
		    strcmp(k, "err") == 0 ? &p->err[cmd] :
		    strcmp(k, "failed") == 0 ? &p->failed[cmd] : NULL;
	if (strcmp(kw, "pop3fail") == 0) {
		for (int f = 0; f < P3F_COUNT; f++)
			if (strcmp(pop3_fail_name[f], k) == 0)
				return &p->fails[f];
		return NULL;
	}
#define X(f) if (strcmp(k, #f) == 0) return &p->f;
	POP3_COUNTERS(X)
	X(sessions_open)
#undef X
	return NULL;
}

static int
pop3_cmd_by_name(const char *name)
{
	for (int c = 0; name != NULL && c < P3_CMD_COUNT; c++)
		if (strcmp(pop3_cmd_name[c], name) == 0)
			return c;
	return -1;
}

/* Profile mode's counter lines (result_write.c, write_act); 1 when kw is
 * not one of them. */
int
result_act_line(struct act_snap *a, char *kw, char *rest, const char **why)
{
	char *k, *v;
	int act = -1, cmd = -1;
	const char *suffix = "";
	struct lmtp_snap *b = NULL;
	bool pop3 = strcmp(kw, "pop3") == 0 || strcmp(kw, "pop3fail") == 0;

	if (strcmp(kw, "action") == 0) {
		act = rest != NULL ? action_from_name(strsep(&rest, " ")) : -1;
		if (act < 0) {
			*why = "counts of an unknown action";
			return -1;
		}
	} else if (strcmp(kw, "pop3cmd") == 0) {
		pop3 = true;
		cmd = pop3_cmd_by_name(rest != NULL ? strsep(&rest, " ") : NULL);
		if (cmd < 0) {
			*why = "counts of an unknown POP3 command";
			return -1;
		}
	} else if (!pop3 && strcmp(kw, "act") != 0 &&
		   (b = blk_of(a, kw, &suffix)) == NULL) {
		return 1;
	}
	while (rest != NULL && (k = result_next_pair(&rest, &v)) != NULL) {
		uint64_t *d = NULL;
		if (pop3)
			d = pop3_key(&a->pop3, kw, cmd, k);
		else if (act >= 0)
			d = strcmp(k, "ok") == 0 ? &a->ok[act] :
			    strcmp(k, "failed") == 0 ? &a->failed[act] : NULL;
		else if (b == NULL)
			d = strcmp(k, "profile") == 0 ? &a->profile :
			    strcmp(k, "push_missed") == 0 ? &a->push_missed :
			    act_line_key(a, k);
		else
			d = blk_key(b, suffix, k);
		if (d == NULL || v == NULL || !result_parse_u64(v, d)) {
			*why = "bad profile counter";
			return -1;
		}
	}
	return 0;
}
