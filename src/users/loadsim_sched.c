/* loadsim_sched.c: gaps between a LoadSim user's actions and the draws of
 * recipient counts (see loadsim_sched.h). */
#include <math.h>

#include "users/loadsim_sched.h"

double
ls_mean_gap_us(double per_day, uint64_t day_length_us, double speedup)
{
	if (!(per_day > 0) || day_length_us == 0 || !(speedup > 0))
		return 0;
	return (double)day_length_us / speedup / per_day;
}

uint64_t
ls_next_gap_us(struct rng *r, double mean_us)
{
	/* 1 - u is in (0, 1]: the log is finite. */
	double gap = -mean_us * log(1.0 - rng_unit(r));
	if (!(gap >= 1))
		return 1;
	if (gap > 1e15)		/* ~30 years: never, without overflow */
		return (uint64_t)1e15;
	return (uint64_t)gap;
}

unsigned
ls_draw_count(struct rng *r, unsigned min, double avg, unsigned max)
{
	if (max <= min)
		return min;
	if (avg < min)
		avg = min;
	if (avg > max)
		avg = max;
	double lo = min, hi = max;
	double p_low = (hi - avg) / (hi - lo);
	double x = rng_unit(r) < p_low ? lo + (avg - lo) * rng_unit(r) :
	    avg + (hi - avg) * rng_unit(r);
	double f = floor(x);
	unsigned n = (unsigned)f + (rng_unit(r) < x - f ? 1 : 0);
	return n > max ? max : n;
}
