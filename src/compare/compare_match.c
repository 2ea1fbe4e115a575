/* compare_match.c: may these result files be compared?  Only when they
 * measure the same thing: one result format, one mode, one command mix,
 * the same options.  The options that only say where the server is (or
 * how this process reports) may differ, since comparing two servers is
 * the point: host, hostip, port, password-file, ca-file, and the seed
 * (a repeat with another seed is still the same workload).  Everything
 * else is compared option by option, in the order given within one
 * option (a later value overrides) but not across options, so that
 * "-c 10 secs=5" and "secs=5 -c 10" are one workload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_int.h"
#include "util/xmalloc.h"

static const char *const may_differ[] = {
	"host", "hostip", "port", "password-file", "ca-file", "seed",
	"hdr-log", "metrics-listen", "metrics-linger",
};

struct tok {
	char *s;
	size_t name_len;
	unsigned pos;		/* as given: keeps one option's order */
};

static int
tok_cmp(const void *a, const void *b)
{
	const struct tok *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = strncmp(x->s, y->s, n);
	if (c == 0 && x->name_len != y->name_len)
		c = x->name_len < y->name_len ? -1 : 1;
	if (c == 0)
		c = x->pos < y->pos ? -1 : x->pos > y->pos;
	return c;
}

/* The key's options, those that may differ left out, sorted by name;
 * the strings point into *buf (a copy of key). */
static struct tok *
tokens(const char *key, char **buf, unsigned *n)
{
	char *p, *t;
	struct tok *v = xcalloc(strlen(key) / 2 + 2, sizeof(*v));

	*buf = p = xstrdup(key);
	*n = 0;
	unsigned pos = 0;
	while ((t = strsep(&p, " ")) != NULL) {
		size_t len = strcspn(t, "=");
		bool skip = *t == '\0';
		for (size_t i = 0; !skip && i < sizeof(may_differ) /
		     sizeof(may_differ[0]); i++)
			skip = strlen(may_differ[i]) == len &&
			    strncmp(may_differ[i], t, len) == 0;
		if (!skip)
			v[(*n)++] = (struct tok){ t, len, pos++ };
	}
	qsort(v, *n, sizeof(*v), tok_cmp);
	return v;
}

/* Every word of the option named like t, "NAME=V1 NAME=V2" (repeats in
 * the order given), or "(not given)". */
static void
words_of(const struct tok *v, unsigned n, const struct tok *t, char *out,
	 size_t len)
{
	size_t o = 0;

	*out = '\0';
	for (unsigned i = 0; i < n; i++)
		if (v[i].name_len == t->name_len &&
		    strncmp(v[i].s, t->s, t->name_len) == 0 && o < len)
			o += (size_t)snprintf(out + o, len - o, "%s%s",
					      o > 0 ? " " : "", v[i].s);
	if (*out == '\0')
		snprintf(out, len, "(not given)");
}

/* The first option whose words differ, "'NAME': 'words' against
 * 'words'"; false when the keys measure the same. */
static bool
key_difference(const char *a, const char *b, char *out, size_t len)
{
	char *ba, *bb, wa[200], wb[200];
	unsigned na, nb, i;
	struct tok *ta = tokens(a, &ba, &na), *tb = tokens(b, &bb, &nb);
	bool differ = false;

	for (i = 0; i < na && i < nb; i++)
		if (strcmp(ta[i].s, tb[i].s) != 0)
			break;
	if (i < na || i < nb) {
		/* Of the two words there, the option that sorts first is
		 * the one missing or changed. */
		const struct tok *x = i < na ? &ta[i] : NULL;
		const struct tok *y = i < nb ? &tb[i] : NULL;
		const struct tok *name = x == NULL ? y : y == NULL ? x :
		    tok_cmp(x, y) <= 0 ? x : y;
		words_of(ta, na, name, wa, sizeof(wa));
		words_of(tb, nb, name, wb, sizeof(wb));
		snprintf(out, len, "'%.*s': '%s' against '%s'",
			 (int)name->name_len, name->s, wa, wb);
		differ = true;
	}
	free(ta);
	free(tb);
	free(ba);
	free(bb);
	return differ;
}

/* Why f does not measure what f0 does, or false. */
static bool
mismatch(const struct cmp_file *f, const struct cmp_file *f0, char *why,
	 size_t len)
{
	const struct result_header *h = &f->h, *h0 = &f0->h;

	if (h->version != h0->version) {
		snprintf(why, len, "key 'version': result format %u against %u "
			 "(write both sides with one imapstress)", h->version,
			 h0->version);
		return true;
	}
	if (strcmp(h->mode, h0->mode) != 0) {
		snprintf(why, len, "key 'mode': '%s' against '%s'", h->mode,
			 h0->mode);
		return true;
	}
	for (int op = 0; op < OP_COUNT; op++)
		if (h->states[op].prob != h0->states[op].prob ||
		    h->states[op].again != h0->states[op].again) {
			snprintf(why, len, "key 'states' (the command mix): "
				 "'%s=%d,%d' against '%s=%d,%d'",
				 op_table[op].name, h->states[op].prob,
				 h->states[op].again, op_table[op].name,
				 h0->states[op].prob, h0->states[op].again);
			return true;
		}
	char diff[512];
	if (key_difference(h->args_key, h0->args_key, diff, sizeof(diff))) {
		snprintf(why, len, "key 'args', option %s", diff);
		return true;
	}
	if (h->act_weights_set != h0->act_weights_set ||
	    memcmp(h->act_weights, h0->act_weights, sizeof(h->act_weights))) {
		snprintf(why, len, "key 'act_weights' (the profile's actions)");
		return true;
	}
	return false;
}

int
cmp_match(const struct cmp_file *files, unsigned n, char *err,
	  size_t errlen, char *note, size_t notelen)
{
	const struct cmp_file *f0 = &files[0];
	char why[700];

	*note = '\0';
	for (unsigned i = 1; i < n; i++) {
		const struct cmp_file *f = &files[i];
		if (mismatch(f, f0, why, sizeof(why))) {
			snprintf(err, errlen, "%s: another workload than %s: %s",
				 f->path, f0->path, why);
			return -1;
		}
		if (*note == '\0' && strcmp(f->h.program, f0->h.program) != 0)
			snprintf(note, notelen, "%s was written by imapstress "
				 "%s, %s by %s: the client differs too",
				 f->path, f->h.program, f0->path,
				 f0->h.program);
	}
	return 0;
}
