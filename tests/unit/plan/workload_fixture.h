/* workload_fixture.h: what the plan tests (test_workload.c,
 * test_plan_may_send.c) share: the in-flight summary conn_pending() would
 * build, and an array's length. */
#ifndef IMAPSTRESS_TEST_WORKLOAD_FIXTURE_H
#define IMAPSTRESS_TEST_WORKLOAD_FIXTURE_H

#include <stdint.h>

#include "plan/ops.h"
#include "plan/workload.h"

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* What conn_pending() builds from the commands in flight. */
static inline struct plan_pending
pending_of(enum lstate cur, const uint8_t *ops, unsigned n)
{
	struct plan_pending p = { .new_lstate = cur, .ops = ops, .n_ops = n };
	for (unsigned i = 0; i < n; i++) {
		unsigned fl = op_table[ops[i]].flags;
		if (fl & OPF_STATECHANGE) {
			p.statechange = true;
			p.new_lstate = plan_target_lstate((enum op)ops[i]);
		}
		p.flags |= fl;
	}
	return p;
}

#endif
