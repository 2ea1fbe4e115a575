/* loadsim_sched.h: the arithmetic of LoadSim's day, apart from any
 * connection so that unit tests can check it.
 *
 * An action done N times per day of day_length, the day run in
 * day_length / speedup (day_compressed_to), happens on average every
 *
 *     day_length / speedup / N
 *
 * of real time.  Each user draws its own exponential gaps with that mean
 * (a Poisson process), so over a run of T the count of an action over U
 * users is Poisson with mean U * N * T * speedup / day_length: its standard
 * deviation is the square root of that, which is what tests compare with.
 *
 * A count with a minimum, average and maximum (recipients of a mail,
 * members of a distribution list) is drawn from two uniform halves: from
 * [min, avg] with probability (max - avg) / (max - min), else from
 * [avg, max], which makes the mean exactly avg; the real value is rounded
 * up or down at random in proportion, which keeps the mean. */
#ifndef IMAPSTRESS_LOADSIM_SCHED_H
#define IMAPSTRESS_LOADSIM_SCHED_H

#include <stdint.h>

#include "util/rng.h"

/* The mean real time between two of an action, us; 0 when it never
 * happens (per_day <= 0, or a zero day). */
double ls_mean_gap_us(double per_day, uint64_t day_length_us, double speedup);
/* One exponential gap with that mean, us (at least 1). */
uint64_t ls_next_gap_us(struct rng *r, double mean_us);
/* A count in [min, max] whose mean is avg (avg is clamped to the range;
 * min > max is taken as min == max). */
unsigned ls_draw_count(struct rng *r, unsigned min, double avg, unsigned max);

#endif
