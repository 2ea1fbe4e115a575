/* mbox_model.c: error reporting, and the store's keywords and owners; its
 * per-UID records are in mbox_store.c (see mbox_model.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/mbox_private.h"
#include "util/xmalloc.h"

void
mbox_report(struct mbox_reporter *r, enum mbox_err kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->n++;
	if (r->cb != NULL)
		r->cb(r->arg, kind, buf);
}

/* ---- keywords and owners (the records themselves: mbox_store.c) ---- */

int
mbox_store_keyword_index(const struct mbox_store *s, const char *name,
			 size_t len)
{
	for (unsigned i = 0; i < s->n_kw; i++)
		if (s->kw[i].len == len && imap_ci_eq(s->kw[i].name, name, len))
			return (int)i;
	return -1;
}

const char *
mbox_store_keyword_name(const struct mbox_store *s, unsigned idx)
{
	return idx < s->n_kw ? s->kw[idx].name : NULL;
}

unsigned
mbox_store_keyword_count(const struct mbox_store *s)
{
	return s->n_kw;
}

int
mbox_store_kw_intern(struct mbox_store *s, const char *name, size_t len)
{
	int i = mbox_store_keyword_index(s, name, len);

	if (i >= 0)
		return i;
	if (s->n_kw == MBOX_MAX_KEYWORDS)
		return -1;
	s->kw[s->n_kw].name = xstrndup(name, len);
	s->kw[s->n_kw].len = (uint32_t)strlen(s->kw[s->n_kw].name);
	s->kw[s->n_kw].owner = 0;
	return (int)s->n_kw++;
}

uint32_t
mbox_store_msg_owner(const struct mbox_store *s, uint32_t uid)
{
	const struct mbox_rec *r = mbox_store_get(s, uid);
	return r ? r->owner : 0;
}

bool
mbox_store_claim_msg(struct mbox_store *s, uint32_t uid, uint32_t conn_id)
{
	struct mbox_rec *r = mbox_store_get(s, uid);

	if (r == NULL || conn_id == 0)
		return false;
	if (r->owner == 0)
		r->owner = conn_id;
	return r->owner == conn_id;
}

/* Which owner slot a flag name has: 0..MBOX_SYS_FLAGS-1 for system
 * flags, MBOX_SYS_FLAGS + k for keyword k; -1 for \Recent, unknown
 * system flags and keywords not (or, with create, no longer) in the
 * table. */
static int
flag_slot(const struct mbox_store *s, const char *name, size_t len)
{
	if (len > 0 && name[0] == '\\') {
		unsigned bit = mbox_sys_flag(name, len);
		if (bit == 0 || bit == MBOX_F_RECENT)
			return -1;
		int i = 0;
		while ((1u << i) != bit)
			i++;
		return i;
	}
	int k = mbox_store_keyword_index(s, name, len);
	return k < 0 ? -1 : MBOX_SYS_FLAGS + k;
}

uint32_t
mbox_store_flag_owner(const struct mbox_store *s, const char *name,
		      size_t len)
{
	int i = flag_slot(s, name, len);

	if (i < 0)
		return 0;
	return i < MBOX_SYS_FLAGS ? s->sys_owner[i]
				  : s->kw[i - MBOX_SYS_FLAGS].owner;
}

bool
mbox_store_claim_flag(struct mbox_store *s, const char *name, size_t len,
		      uint32_t conn_id)
{
	if (conn_id == 0)
		return false;
	if (len > 0 && name[0] != '\\')
		(void)mbox_store_kw_intern(s, name, len);
	int i = flag_slot(s, name, len);
	if (i < 0)
		return false;
	uint32_t *o = i < MBOX_SYS_FLAGS ? &s->sys_owner[i]
					 : &s->kw[i - MBOX_SYS_FLAGS].owner;
	if (*o == 0)
		*o = conn_id;
	return *o == conn_id;
}

