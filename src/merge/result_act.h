/* result_act.h: profile mode's counter lines of a result file
 * (result_act.c), for result_read.c. */
#ifndef IMAPSTRESS_RESULT_ACT_H
#define IMAPSTRESS_RESULT_ACT_H

struct act_snap;

/* One line whose keyword is kw and whose words after it are rest (split
 * in place), added into a: 0 when read, 1 when kw is not a profile
 * counter line, -1 with *why saying what is wrong. */
int result_act_line(struct act_snap *a, char *kw, char *rest,
		    const char **why);

#endif
