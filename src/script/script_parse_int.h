/* script_parse_int.h: the parser's state and the helpers its files
 * share.  They are script_parse.c (the driver: header then commands,
 * the load-time pattern check, script_free), script_parse_head.c (the
 * header lines), script_parse_step.c (commands and result lines grouped
 * into steps), script_parse_untagged.c (the untagged reply lines:
 * imaptest's star, bang and question-mark lines),
 * script_parse_directive.c (the group directives !ordered, !sleep and
 * !output) and script_parse_text.c (words, numbers, errors: called by all, calling
 * none).  Nothing else includes it. */
#ifndef IMAPSTRESS_SCRIPT_PARSE_INT_H
#define IMAPSTRESS_SCRIPT_PARSE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "script/script.h"
#include "script/script_lines.h"

struct rkey;

struct pstate {
	struct script *s;
	const struct slines *ls;
	char *err;
	size_t errlen;
	struct script_step *cur;	/* the step lines attach to */
	unsigned open;			/* its commands still without a result */
	bool sealed;			/* its last result line has been read */
	/* "conn word OK|NO|BAD" lines by (conn, word), with the last line
	 * each pair has: tells a tag from a command in one lookup
	 * (script_parse_step.c). */
	struct rkey *rkeys;
	unsigned n_rkeys;
	bool rkeys_built;
};

/* A command or result line's start (script_parse_step.c). */
struct head {
	unsigned conn;		/* 0-based */
	const char *rest;	/* after the connection number */
	size_t w1;		/* length of the first word of rest */
	int w2_result;		/* result kind of the second word, or -1 */
};

/* script_parse_text.c: "PATH:LINE: why" into p->err (fmt has one %s, a);
 * returns -1. */
int sparse_fail(struct pstate *p, unsigned line, const char *fmt,
		const char *a);
/* A word of s: its length (up to a space or the end). */
size_t sparse_word_len(const char *s);
const char *sparse_skip_sp(const char *s);
/* OK, NO, BAD (any case) or "": the result kind, or -1. */
int sparse_result_word(const char *s, size_t n);
/* A decimal number up to max, the whole of v: 0, else -1. */
int sparse_num(const char *v, unsigned long max, unsigned long *out);

/* script_parse_head.c: the header from line *i, when the first line
 * looks like one ("key:"), up to the blank line that ends it; *i is
 * left after it.  0, or -1 with the error in p->err. */
int sparse_header(struct pstate *p, unsigned *i);

/* script_parse_step.c: logical line i of the commands part. */
int sparse_body_line(struct pstate *p, unsigned i);

/* script_parse_untagged.c: "* ", "! " or "? " (or the mark alone) at
 * t: the kind (enum script_exist), else -1. */
int sparse_untagged_mark(const char *t);
/* Line l, whose text after its connection number (rest) begins with
 * such a mark, as an expected reply of the current step. */
int sparse_untagged(struct pstate *p, const struct sline *l,
		    const char *rest);

void sparse_rkeys_free(struct pstate *p);

/* script_parse_directive.c: line l, a group directive
 * (slines_group_directive), applied to the current step. */
int sparse_directive(struct pstate *p, const struct sline *l);

#endif
