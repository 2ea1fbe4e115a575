/* hr_cap.h: what the two files of the capacity page share: a CSV of
 * scripts/capacity as read (hr_capacity.c), and the answer the script
 * wrote beside it, capacity-answer.json (hr_capacity_answer.c). */
#ifndef IMAPSTRESS_HR_CAP_H
#define IMAPSTRESS_HR_CAP_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "htmlreport/hr_buf.h"
#include "htmlreport/hr_json.h"

#define CAP_MAX_COLS 128

/* capacity.csv or capacity-fit.csv: the header's names, every cell as
 * a number (NAN where empty or a word) and as written. */
struct cap {
	char *cols[CAP_MAX_COLS];
	size_t ncol;
	double *v;		/* nrow * ncol */
	char **text;		/* nrow * ncol */
	size_t nrow;
};

/* The column named name, -1 without one.  Inline beside the struct,
 * like cap_at: hr_capacity.c calls down into hr_capacity_answer.c, which
 * looks columns up too, and must not call back up for it. */
static inline int
cap_col(const struct cap *c, const char *name)
{
	for (size_t i = 0; i < c->ncol; i++)
		if (strcmp(c->cols[i], name) == 0)
			return (int)i;
	return -1;
}

/* Row row's number in column col (NAN for col -1). */
static inline double
cap_at(const struct cap *c, size_t row, int col)
{
	return col < 0 ? NAN : c->v[row * c->ncol + (size_t)col];
}

/* DIR/capacity-answer.json into *a.  0, with *have false when the file
 * is not there (a directory of an older script); -1 with "PATH: ..." in
 * err when it is there but is not the script's answer. */
int hr_cap_answer_read(const char *dir, struct jv *a, bool *have, char *err,
		       size_t errlen);
/* The answer in a sentence, the script's line and its settings; a note
 * saying there is no answer file when a is NULL. */
void hr_cap_answer(struct hbuf *b, const struct jv *a);
/* The answer's value (score, or the limiting p95) of every run against
 * users (o: capacity.csv's rows ordered by users), the median per count,
 * the limit across and the capacity's interval shaded; without an
 * answer (a NULL) the score_ms column, no limit.  false when the CSV has
 * no such value. */
bool hr_cap_limit_chart(struct hbuf *b, const struct cap *c, const size_t *o,
			const struct jv *a);

#endif
