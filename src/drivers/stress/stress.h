/* stress.h: the stress mix, imaptest's behaviour, as a driver of the
 * worker (run/driver.h).  One per run: it holds what its workers share
 * (the checkpoint's meeting point) and hands each worker the contract. */
#ifndef IMAPSTRESS_STRESS_H
#define IMAPSTRESS_STRESS_H

struct config;
struct driver;
struct stress_run;

/* For n_workers workers (the checkpoint's coordinator among them). */
struct stress_run *stress_run_new(const struct config *cfg, unsigned n_workers);
void stress_run_free(struct stress_run *r);	/* NULL is a no-op */
/* The contract; it lives as long as r. */
const struct driver *stress_driver(struct stress_run *r);

#endif
