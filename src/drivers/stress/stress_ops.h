/* stress_ops.h: what the state builders (stress_ops.c, stress_append.c,
 * stress_store.c) share. */
#ifndef IMAPSTRESS_STRESS_OPS_H
#define IMAPSTRESS_STRESS_OPS_H

#include <stdint.h>

#include "conn/conn.h"
#include "drivers/stress/stress_plan.h"
#include "util/rng.h"

struct imap_cmd;

/* Sequence numbers a FETCH or STORE names at most. */
#define STRESS_MAX_SEQS 100

/* imaptest's flags, for STORE and APPEND (a table in each file that
 * uses it: the builders call no other file for it). */
static const char *const stress_flags[] = {
	"\\Seen", "\\Answered", "\\Flagged", "\\Draft", "$Label1", "$Label2"
};
/* Their lengths: APPEND adds one to half of its commands. */
static const unsigned char stress_flag_len[] = {
	sizeof("\\Seen") - 1, sizeof("\\Answered") - 1, sizeof("\\Flagged") - 1,
	sizeof("\\Draft") - 1, sizeof("$Label1") - 1, sizeof("$Label2") - 1
};

#define STRESS_N_ELEM(a) (sizeof(a) / sizeof((a)[0]))
#define STRESS_PICK(rng, a) ((a)[rng_below((rng), STRESS_N_ELEM(a))])
_Static_assert(sizeof(stress_flag_len) == STRESS_N_ELEM(stress_flags),
	       "a length for every flag");

/* The command in cmd (tag from conn_cmd_begin) goes out as state op,
 * its reply to the plan (stress_reply.c).  Inline: once per command. */
static inline void
stress_reply_send(struct stress_plans *sp, struct conn *c,
		  struct imap_cmd *cmd, uint32_t tag, enum op op)
{
	conn_cmd_send(c, cmd, tag, op, 0, 0, stress_reply, &sp->ref[op]);
}

#endif
