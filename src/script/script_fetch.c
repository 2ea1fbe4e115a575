/* script_fetch.c: FETCH replies of one message matched together.  RFC
 * 3501 (7.4.2) and 9051 let a server send a message's data items in
 * several FETCH responses: Courier-IMAP sends the \Seen that BODY[]
 * set in a FETCH of its own, a server may send FLAGS and MODSEQ apart.
 * A FETCH reply that matches no expected line by itself is kept, per
 * message number, for the rest of the step; the items of all kept for a
 * message are tried as one "N FETCH (...)" against the expected FETCH
 * lines still open.  What no line took is an extra reply at the end of
 * the step (ignore_extra_untagged: no).  imaptest matches each reply on
 * its own. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_run_int.h"
#include "util/xmalloc.h"

struct sfetch {
	unsigned num;
	struct sbuf items;	/* the data items of its replies so far */
};

void
sfetch_reset(struct script_run *r)
{
	for (unsigned i = 0; i < r->n_fetch; i++)
		sbuf_reset(&r->fetch[i].items);
	free(r->fetch);
	r->fetch = NULL;
	r->n_fetch = 0;
}

static struct sfetch *
acc_get(struct script_run *r, unsigned num)
{
	for (unsigned i = 0; i < r->n_fetch; i++)
		if (r->fetch[i].num == num)
			return &r->fetch[i];
	r->fetch = xrealloc(r->fetch, (r->n_fetch + 1) * sizeof(*r->fetch));
	struct sfetch *f = &r->fetch[r->n_fetch++];
	memset(f, 0, sizeof(*f));
	f->num = num;
	return f;
}

static void
acc_drop(struct script_run *r, struct sfetch *f)
{
	sbuf_reset(&f->items);
	*f = r->fetch[--r->n_fetch];
}

/* "N FETCH (items)": the items, between the list's parentheses. */
static bool
items_of(const struct imap_resp *resp, const char **s, size_t *n)
{
	const char *t = resp->text, *e = resp->text + resp->text_len;

	while (e > t && e[-1] == ' ')
		e--;
	if (e - t < 2 || t[0] != '(' || e[-1] != ')')
		return false;
	*s = t + 1;
	*n = (size_t)(e - t) - 2;
	return true;
}

static bool
is_fetch(const struct imap_resp *resp)
{
	return resp->kind == IMAP_UNTAGGED && resp->has_num &&
	       imap_resp_kw(resp) == IMAP_KW_FETCH;
}

bool
sfetch_merge(struct script_run *r, const struct script_step *st,
	     const struct imap_resp *resp)
{
	const char *s;
	size_t n;

	if (!is_fetch(resp) || !items_of(resp, &s, &n))
		return false;
	struct sfetch *f = acc_get(r, resp->num);
	bool first = f->items.len == 0;
	if (!first)
		sbuf_add(&f->items, " ", 1);
	sbuf_add(&f->items, s, n);
	if (first)
		return false;	/* tried alone already */

	struct sbuf line = { 0 };
	sbuf_addf(&line, "* %u FETCH (", f->num);
	sbuf_add(&line, f->items.s, f->items.len);
	sbuf_adds(&line, ")");
	struct imap_resp m = *resp;
	m.line = line.s;
	m.line_len = line.len;
	m.text = line.s + line.len - f->items.len - 2;
	m.text_len = f->items.len + 2;
	bool hit = false;
	for (unsigned i = 0; i < st->n_untagged && !hit; i++) {
		struct sbuf why = { 0 };
		if (!r->matched[i] && spat_names(r->pats[i], "FETCH", 5))
			hit = r->matched[i] = smatch_untagged(&r->m, r->pats[i],
							      &m, &why);
		sbuf_reset(&why);
	}
	sbuf_reset(&line);
	if (hit)
		acc_drop(r, f);
	return hit;
}

void
sfetch_extra(const struct script_run *r, struct sbuf *b, size_t max)
{
	if (r->n_fetch == 0)
		return;
	const struct sfetch *f = &r->fetch[0];
	sbuf_addf(b, "* %u FETCH (", f->num);
	sbuf_add_escaped(b, f->items.s, f->items.len > max ? max : f->items.len);
	sbuf_adds(b, f->items.len > max ? "..." : ")");
}
