/* report_calc.c: the figures every writer derives from a snapshot the
 * same way (which states are columns, commands that ended, rates, a
 * division that never yields NaN), so that the text, JSON and CSV agree.
 * Calls nothing of report/: the writers and report.c call down here. */
#include <math.h>

#include "report/report_int.h"

bool
report_visible(const struct derived *dv, int op)
{
	return op >= 0 && op < OP_COUNT && dv->states[op].prob != 0;
}

uint64_t
report_op_activity(const struct stats_snap *s, int op)
{
	return s->ok[op] + s->no[op] + s->bad[op] + s->failed[op];
}

uint64_t
report_commands(const struct stats_snap *s)
{
	uint64_t n = 0;
	for (int op = 0; op < OP_COUNT; op++)
		n += report_op_activity(s, op);
	return n;
}

double
report_div(double a, double b)
{
	if (!(b > 0.0))
		return 0.0;
	double q = a / b;
	return isfinite(q) ? q : 0.0;
}

double
report_achieved_rate(const struct report_run *run,
		     const struct stats_snap *tot)
{
	uint64_t n = report_commands(tot) -
		report_op_activity(tot, OP_LOGIN) -
		report_op_activity(tot, OP_AUTHENTICATE);
	return report_div((double)n, run->measured_s);
}
