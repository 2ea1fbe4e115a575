/* script_pat.h: an expected reply of a test file as a pattern tree.
 *
 * The text after "* " is tokenized like a server reply (atoms, quoted
 * strings, literals, lists, "[...]" sections inside atoms) and each
 * argument becomes a pattern:
 *   $              SPAT_ANY: any one argument or list;
 *   text           SPAT_TEXT: parts that are plain text, $name / ${name}
 *                  variables, $N sequence numbers, ${case:text} (compared
 *                  case-sensitively; all else is case-insensitive);
 *   ( ... )        SPAT_LIST, with its $!directives (or imaptest's
 *                  defaults for the FETCH, FETCH FLAGS, LIST, LSUB and
 *                  STATUS lists when it has none).
 * Ours beside imaptest's, for forms the RFCs allow: $!nil (NIL in place
 * of the list: a body-fld-param, body-fld-dsp, an address list),
 * $!min=N (an ordered list the server may end after N elements: the
 * optional extension data of a BODYSTRUCTURE), and the numbers of a
 * "SEARCH" reply in any order (RFC 3501 gives them none).
 * Compiling is also how the parser checks reply lines at load time. */
#ifndef IMAPSTRESS_SCRIPT_PAT_H
#define IMAPSTRESS_SCRIPT_PAT_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

enum spat_type { SPAT_ANY, SPAT_TEXT, SPAT_LIST };

enum spat_part_kind {
	SPART_TEXT,	/* s/n: literal text */
	SPART_VAR,	/* s/n: the variable's name */
	SPART_SEQ	/* seq: $N */
};

struct spat_part {
	enum spat_part_kind kind;
	char *s;
	size_t n;
	unsigned seq;
};

struct spat_dirs {
	bool explicit;		/* written in the list: no defaults */
	bool unordered;		/* $!unordered[=N] */
	unsigned chain;		/* N (1 without =N) */
	bool extra;		/* extra elements allowed */
	char **ignore;		/* $!ignore=E: allowed although noextra */
	unsigned n_ignore;
	char **ban;		/* $!ban=E: refused although extra */
	unsigned n_ban;
	bool nil;		/* $!nil: NIL is accepted for the list */
	bool has_min;		/* $!min=N (ordered lists): the server's */
	unsigned min;		/* list may end after its first N elements */
};

struct spat {
	enum spat_type type;
	/* SPAT_TEXT */
	struct spat_part *parts;
	unsigned n_parts;
	bool case_sensitive;	/* some part came from ${case:...} */
	bool quoted;		/* written as a string ("..." or a literal) */
	/* SPAT_LIST */
	struct spat **kids;
	unsigned n_kids;
	struct spat_dirs dirs;
};

/* Compile the n octets at text (the reply after "* ") into a LIST of the
 * reply's arguments with the defaults applied.  NULL with the reason in
 * err on a malformed pattern. */
struct spat *spat_compile(const char *text, size_t n, char *err, size_t errlen);
void spat_free(struct spat *p);		/* NULL is a no-op */

/* An atom with a section, header field names quoted or not, in one
 * form: a quoted string inside "[...]" becomes its content, so
 * BODY[HEADER.FIELDS ("Subject")] reads BODY[HEADER.FIELDS (Subject)]
 * (RFC 3501's header-fld-name is an astring).  false, out untouched:
 * nothing to change. */
bool spat_section_canon(const char *s, size_t n, struct sbuf *out);

/* Does one of the first two arguments of p (a compiled reply) read the
 * n octets of kw, case-insensitively ("FETCH" in "$1 fetch (...)")? */
bool spat_names(const struct spat *p, const char *kw, size_t n);

/* The parts of a command or a result prefix: text, variables, $N.
 * Returns the count, or -1 with err set (e.g. "${" without "}"). */
int spat_parts(const char *text, size_t n, struct spat_part **out,
	       bool *case_sensitive, char *err, size_t errlen);
void spat_parts_free(struct spat_part *parts, unsigned n);

/* q points at "}\r\n" in the text that starts at start: is it the end of
 * a literal marker "{N}" or "{N+}"?  *size gets N. */
bool spat_literal_marker(const char *start, const char *q, size_t *size);

#endif
