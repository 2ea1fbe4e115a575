/* script_parse_directive.c: imaptest's command-group directives, lines
 * of their own after a step's command (its untagged lines and results
 * may come before or after them), which set up the step they follow, as
 * imaptest's test-parser.c does for its current command group:
 *
 *   !ordered          the step's untagged replies must come in the order
 *                     its lines list them (script_step.c);
 *   !sleep INTERVAL   when the step is over, pause before the next (the
 *                     last one given counts);
 *   !output TEXT      when the step is over, print TEXT with its
 *                     variables replaced (one line each, in order).
 *
 * INTERVAL is Dovecot's time interval, as imaptest reads it: a number,
 * optional spaces, and a unit any prefix of secs/seconds, mins/minutes,
 * msecs/mseconds/millisecs/milliseconds, hours, days or weeks ("m" is
 * minutes, "ms" milliseconds); a bare 0 needs none. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/script_parse_int.h"
#include "util/xmalloc.h"

/* Is the n octets at p a prefix of word (any case)? */
static bool
prefix_of(const char *p, size_t n, const char *word)
{
	return n <= strlen(word) && strncasecmp(p, word, n) == 0;
}

int
script_interval_ms(const char *v, unsigned *ms)
{
	unsigned long long num = 0, mult;
	const char *p = v;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		num = num * 10 + (unsigned)(*p - '0');
		if (num > UINT_MAX)
			return -1;
	}
	while (*p == ' ')
		p++;
	size_t n = strlen(p);
	if (n == 0) {
		if (num != 0)
			return -1;	/* Dovecot: a unit is needed */
		*ms = 0;
		return 0;
	}
	switch (tolower((unsigned char)*p)) {
	case 's':
		mult = 1000;
		if (!prefix_of(p, n, "secs") && !prefix_of(p, n, "seconds"))
			return -1;
		break;
	case 'm':
		if (prefix_of(p, n, "mins") || prefix_of(p, n, "minutes"))
			mult = 60 * 1000;
		else if (prefix_of(p, n, "msecs") || prefix_of(p, n, "mseconds") ||
			 prefix_of(p, n, "millisecs") ||
			 prefix_of(p, n, "milliseconds"))
			mult = 1;
		else
			return -1;
		break;
	case 'h':
		mult = 60ull * 60 * 1000;
		if (!prefix_of(p, n, "hours"))
			return -1;
		break;
	case 'd':
		mult = 24ull * 60 * 60 * 1000;
		if (!prefix_of(p, n, "days"))
			return -1;
		break;
	case 'w':
		mult = 7ull * 24 * 60 * 60 * 1000;
		if (!prefix_of(p, n, "weeks"))
			return -1;
		break;
	default:
		return -1;
	}
	if (num > UINT_MAX / mult)
		return -1;
	*ms = (unsigned)(num * mult);
	return 0;
}

int
sparse_directive(struct pstate *p, const struct sline *l)
{
	const char *t = l->text;
	size_t w = sparse_word_len(t);
	char word[16];

	snprintf(word, sizeof(word), "%.*s", (int)(w < 12 ? w : 12), t);
	if (p->cur == NULL)
		return sparse_fail(p, l->line, "%s before any command (it "
				   "applies to the command before it)", word);
	struct script_step *st = p->cur;
	if (strcmp(word, "!ordered") == 0) {
		if (*sparse_skip_sp(t + w) != '\0')
			return sparse_fail(p, l->line, "%s takes nothing after "
					   "it", word);
		st->ordered = true;
		return 0;
	}
	if (strcmp(word, "!sleep") == 0) {
		char *v = xstrdup(sparse_skip_sp(t + w));
		size_t vl = strlen(v);
		while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = '\0';
		int rc = script_interval_ms(v, &st->sleep_ms);
		if (rc < 0)
			rc = sparse_fail(p, l->line, "!sleep needs an interval "
					 "(a number and a unit: 500ms, 2s, 1min; "
					 "not '%s')", v);
		free(v);
		return rc < 0 ? -1 : 0;
	}
	/* !output: the text after its one space, as imaptest keeps it */
	const char *v = t[w] == '\0' ? t + w : t + w + 1;
	st->outputs = xrealloc(st->outputs,
			       (st->n_outputs + 1) * sizeof(*st->outputs));
	st->outputs[st->n_outputs].text = xstrndup(v, l->len - (size_t)(v - t));
	st->outputs[st->n_outputs++].line = l->line;
	return 0;
}
