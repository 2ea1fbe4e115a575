/* fuzz_model.c: libFuzzer harness for the argument tokenizer and the
 * mailbox model, fed what the parser makes of raw server bytes.
 *
 * Every response's text goes through imap_args_parse and
 * imap_args_parse_fetch (tree invariants checked: children inside their
 * list, counts matching, every token inside the text), then to two views
 * of one store as a connection would feed them: a tagged OK ends a
 * "SELECT" (mbox_view_select_done), a tagged NO starts one
 * (mbox_view_reset), every untagged response goes to
 * mbox_view_untagged.  After each response the seq map's invariants are
 * checked (mbox_seqs.c: pages non-empty and at most MBOX_PAGE, counts
 * adding up to EXISTS and to the known UIDs, no two neighbours at half a
 * page or less), and the work is bounded: the model's own checks are the
 * oracle for "no crash"; libFuzzer's -timeout for "no quadratic path".
 * The store is small (max_msgs 5000) so that EXISTS claims also reach
 * the tracking limit. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imap/imap.h"
#include "imap/imap_args.h"
#include "model/mbox_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fz_require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_model: invariant failed: %s\n", what);
		abort();
	}
}

/* Reads every octet of a token, so ASan sees a pointer into freed or
 * foreign memory. */
static void
fz_touch(const char *s, size_t n)
{
	volatile unsigned char sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)s[i];
	(void)sum;
}

/* The subtree at a: every token inside [text, text+len) -- except a
 * quoted string with escapes, unescaped into the parser's scratch and so
 * shorter than the text -- list counts right; returns the number of
 * tokens it spans. */
static unsigned
fz_tree(const struct imap_arg *a, const char *text, size_t len, unsigned depth)
{
	fz_require(depth <= IMAP_ARGS_MAX_DEPTH + 1, "nesting bounded");
	if (a->type != IMAP_ARG_LITERAL || a->len > 0) {
		uintptr_t s = (uintptr_t)a->str, t = (uintptr_t)text;
		if (s < t || s + a->len > t + len)
			fz_require(a->type == IMAP_ARG_QUOTED && a->len < len,
				   "token inside the text, or an unescaped quoted string");
		fz_touch(a->str, a->len);
	}
	if (a->type == IMAP_ARG_LITERAL)
		fz_require(a->size == a->len, "inline literal size");
	if (a->type != IMAP_ARG_LIST)
		return 1;
	unsigned n = 1, kids = 0;
	for (const struct imap_arg *c = imap_arg_child(a); c != NULL;
	     c = imap_arg_next(c)) {
		n += fz_tree(c, text, len, depth + 1);
		kids++;
	}
	fz_require(kids == a->count, "list count matches its children");
	return n;
}

static void
fz_args(struct imap_args *args, const struct imap_resp *r)
{
	const struct imap_arg *root = imap_args_parse(args, r->text,
						      r->text_len);
	if (root != NULL) {
		fz_require(root->type == IMAP_ARG_LIST, "root is a list");
		fz_tree(root, r->text, r->text_len, 0);
	} else {
		fz_require(imap_args_error(args)[0] != '\0', "error said");
	}
	root = imap_args_parse_fetch(args, r->text, r->text_len);
	if (root != NULL)
		fz_tree(root, r->text, r->text_len, 0);
}

static void
fz_view(const struct mbox_view *v)
{
	uint32_t sum = 0, known = 0;

	for (uint32_t p = 0; p < v->n_pages; p++) {
		const struct mbox_page *pg = &v->pages[p];
		fz_require(pg->n > 0 && pg->n <= MBOX_PAGE, "page size");
		fz_require(pg->known <= pg->n, "page known <= n");
		fz_require(pg->m != NULL || pg->known == 0, "holes know none");
		if (p + 1 < v->n_pages)
			fz_require(pg->n + v->pages[p + 1].n > MBOX_PAGE / 2,
				   "neighbours fold at half a page");
		sum += pg->n;
		known += pg->known;
	}
	fz_require(sum == v->count, "pages add up to EXISTS");
	fz_require(known == v->known_uids, "known UIDs add up");
	fz_require(v->old_count <= v->count, "old_count <= EXISTS");
	fz_require(v->recent <= v->count || v->disabled, "RECENT <= EXISTS");
}

struct fz {
	struct imap_args *args;
	struct mbox_view *v[2];
	unsigned n;
};

static int
fz_cb(void *arg, const struct imap_resp *r)
{
	struct fz *f = arg;
	unsigned k = f->n++ & 1;

	fz_args(f->args, r);
	if (r->kind == IMAP_TAGGED) {
		if (r->cond == IMAP_COND_OK)
			mbox_view_select_done(f->v[k]);
		else
			mbox_view_reset(f->v[k]);
	} else if (r->kind == IMAP_UNTAGGED) {
		mbox_view_untagged(f->v[0], r);
		mbox_view_untagged(f->v[1], r);
	}
	fz_view(f->v[0]);
	fz_view(f->v[1]);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imap_limits lim = { .max_line = 16384, .max_literal = 1 << 20,
				   .capture_literal = 1024 };
	struct mbox_store *s = mbox_store_new("u\tINBOX", 5000);
	struct mbox_view_opts o = { .own_msgs = true, .check_modseq = true };
	struct fz f = { imap_args_new(0), { NULL, NULL }, 0 };

	f.v[0] = mbox_view_new(s, 1, &o);
	o.own_msgs = false;
	o.own_flags = true;
	f.v[1] = mbox_view_new(s, 2, &o);
	mbox_view_set_state(f.v[0], "FETCH");
	struct imap_parser *p = imap_parser_new(&lim, fz_cb, &f);
	(void)imap_parser_feed(p, (const char *)data, size);
	struct mbox_view *const views[2] = { f.v[0], f.v[1] };
	(void)mbox_view_checkpoint_compare(views, 2, true, NULL, NULL);
	imap_parser_free(p);
	mbox_view_free(f.v[0]);
	mbox_view_free(f.v[1]);
	mbox_store_free(s);
	imap_args_free(f.args);
	return 0;
}
