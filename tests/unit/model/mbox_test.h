/* mbox_test.h: helpers shared by test_mbox_model.c and test_mbox_checks.c:
 * record violations, and feed server lines to a view the way conn code
 * does, from struct imap_resp.  A line is "* [N ]KEYWORD[ text]" with any
 * literal already inline ("{N}\r\n<octets>"), exactly as imap.h delivers
 * it, or a pseudo line standing for the client's own actions:
 *     !reset !done !end !status !state NAME !store SET !uidstore SET
 *     !silent SET
 * (!status: the server answered a STATUS of the selected mailbox). */
#ifndef IMAPSTRESS_MBOX_TEST_H
#define IMAPSTRESS_MBOX_TEST_H

#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "model/mbox_model.h"

#define ERRS_MAX 32

struct errs {
	unsigned n;
	enum mbox_err kind[ERRS_MAX];
	char msg[ERRS_MAX][320];
	unsigned untracked;	/* FETCH answers the view did not keep */
};

static inline void
errs_cb(void *arg, enum mbox_err kind, const char *msg)
{
	struct errs *e = arg;

	if (e->n < ERRS_MAX) {
		e->kind[e->n] = kind;
		snprintf(e->msg[e->n], sizeof(e->msg[e->n]), "%s", msg);
	}
	e->n++;
}

static inline void
errs_untracked(void *arg)
{
	((struct errs *)arg)->untracked++;
}

enum { O_MSGS = 1, O_FLAGS = 2, O_MODSEQ = 4, O_KNOWN = 8 };

static inline struct mbox_view *
mkview(struct mbox_store *s, uint32_t id, unsigned o, struct errs *e)
{
	struct mbox_view_opts opts = {
		.own_msgs = (o & O_MSGS) != 0,
		.own_flags = (o & O_FLAGS) != 0,
		.check_modseq = (o & O_MODSEQ) != 0,
		.err_cb = errs_cb,
		.err_arg = e,
		.untracked_cb = errs_untracked,
	};
	return mbox_view_new(s, id, &opts);
}

static inline unsigned
feed(struct mbox_view *v, const char *line)
{
	if (line[0] == '!') {
		const char *arg = strchr(line, ' ');
		size_t alen = arg ? strlen(++arg) : 0;
		if (strcmp(line, "!reset") == 0) {
			mbox_view_reset(v);
			return 0;
		}
		if (strcmp(line, "!done") == 0)
			return mbox_view_select_done(v);
		if (strcmp(line, "!end") == 0) {
			mbox_view_store_end(v);
			return 0;
		}
		if (strcmp(line, "!status") == 0) {
			mbox_view_on_status(v);
			return 0;
		}
		ck_assert_ptr_nonnull(arg);
		if (strncmp(line, "!state ", 7) == 0)
			mbox_view_set_state(v, arg);
		else if (strncmp(line, "!store ", 7) == 0)
			ck_assert_int_ge(mbox_view_store_begin(v, arg, alen,
							       false, false), 0);
		else if (strncmp(line, "!uidstore ", 10) == 0)
			ck_assert_int_ge(mbox_view_store_begin(v, arg, alen,
							       true, false), 0);
		else if (strncmp(line, "!silent ", 8) == 0)
			ck_assert_int_ge(mbox_view_store_begin(v, arg, alen,
							       false, true), 0);
		else
			ck_abort_msg("bad pseudo line %s", line);
		return 0;
	}

	struct imap_resp r;
	memset(&r, 0, sizeof(r));
	ck_assert_msg(strncmp(line, "* ", 2) == 0, "bad line %s", line);
	r.kind = IMAP_UNTAGGED;
	r.line = line;
	r.line_len = strlen(line);
	const char *p = line + 2;
	if (*p >= '0' && *p <= '9') {
		r.has_num = true;
		while (*p >= '0' && *p <= '9')
			r.num = r.num * 10 + (uint32_t)(*p++ - '0');
		ck_assert(*p == ' ');
		p++;
	}
	r.keyword = p;
	while (*p != '\0' && *p != ' ')
		p++;
	r.keyword_len = (size_t)(p - r.keyword);
	if (*p == ' ')
		p++;
	r.text = p;
	r.text_len = strlen(p);
	static const struct {
		const char *kw;
		enum imap_cond cond;
	} conds[] = { { "OK", IMAP_COND_OK }, { "NO", IMAP_COND_NO },
		      { "BAD", IMAP_COND_BAD }, { "BYE", IMAP_COND_BYE } };
	for (unsigned i = 0; i < 4; i++)
		if (!r.has_num && r.keyword_len == strlen(conds[i].kw) &&
		    memcmp(r.keyword, conds[i].kw, r.keyword_len) == 0)
			r.cond = conds[i].cond;
	return mbox_view_untagged(v, &r);
}

static inline unsigned
feed_all(struct mbox_view *v, const char *const *lines)
{
	unsigned n = 0;

	for (; *lines != NULL; lines++)
		n += feed(v, *lines);
	return n;
}

/* A Dovecot SELECT of a 5-message INBOX; O_KNOWN also learns the UIDs
 * 3 5 7 9 10 and their flags. */
static const char *const select_lines[] = {
	"* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Label1)",
	"* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft "
	"$Label1 \\*)] Flags permitted.",
	"* 5 EXISTS",
	"* 0 RECENT",
	"* OK [UIDVALIDITY 1700000000] UIDs valid",
	"* OK [UIDNEXT 11] Predicted next UID",
	"* OK [HIGHESTMODSEQ 20] Highest",
	"!done",
	NULL
};

static const char *const known_lines[] = {
	"* 1 FETCH (UID 3 FLAGS ())",
	"* 2 FETCH (UID 5 FLAGS (\\Seen))",
	"* 3 FETCH (UID 7 FLAGS ())",
	"* 4 FETCH (UID 9 FLAGS ($Label1))",
	"* 5 FETCH (UID 10 FLAGS ())",
	NULL
};

static inline void
select_box(struct mbox_view *v, unsigned o, struct errs *e)
{
	feed_all(v, select_lines);
	if (o & O_KNOWN)
		feed_all(v, known_lines);
	ck_assert_msg(e->n == 0, "select: %s", e->msg[0]);
}

#endif
