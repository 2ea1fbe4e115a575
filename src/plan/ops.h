/* ops.h: the imaptest states (commands) imapstress can run, in the order
 * imaptest walks them.  The order is part of the contract: the in-order
 * state walk goes from LOGIN towards LOGOUT and wraps. */
#ifndef IMAPSTRESS_OPS_H
#define IMAPSTRESS_OPS_H

enum op {
	OP_AUTHENTICATE,
	OP_LOGIN,
	OP_COMPRESS,
	OP_LISTROOT,
	OP_LIST,
	OP_MCREATE,
	OP_MDELETE,
	OP_MRENAME,
	OP_MSUBS,
	OP_STATUS,
	OP_SELECT,
	OP_UIDFETCH,	/* before FETCH, as in imaptest's table */
	OP_FETCH,
	OP_FETCH2,
	OP_SEARCH,
	OP_SORT,
	OP_THREAD,
	OP_COPY,
	OP_MOVE,
	OP_STORE,
	OP_DELETE,
	OP_EXPUNGE,
	OP_APPEND,
	OP_NOOP,
	OP_IDLE,
	OP_CHECK,
	OP_LOGOUT,
	OP_DISCONNECT,
	OP_DELAY,
	OP_CHECKPOINT,
	OP_LMTP,
	OP_COUNT
};

/* Which IMAP state a command needs before it can be sent. */
enum op_need {
	OP_NEED_NONAUTH,
	OP_NEED_AUTH,
	OP_NEED_SELECTED
};

/* The IMAP session state, ordered like enum op_need (here, not beside
 * the plan: the engine knows a session's state, never the plan). */
enum lstate {
	LSTATE_NONAUTH = OP_NEED_NONAUTH,
	LSTATE_AUTH = OP_NEED_AUTH,
	LSTATE_SELECTED = OP_NEED_SELECTED
};

/* imaptest's state flags: they decide what may be pipelined together. */
enum op_flags {
	OPF_STATECHANGE = 1 << 0,	/* changes login state: wait for it */
	OPF_MSGSET = 1 << 1,		/* uses sequence numbers */
	OPF_EXPUNGES = 1 << 2		/* may make the server send EXPUNGE */
};

struct op_info {
	const char *name;	/* imaptest's full name: "APPEND" */
	const char *shortname;	/* imaptest's 4-char column: "Appe" */
	int def_prob;		/* default percent chance */
	int def_again;		/* default percent repeat (MULTIAPPEND for APPEND) */
	enum op_need need;
	unsigned flags;		/* enum op_flags */
};

extern const struct op_info op_table[OP_COUNT];

/* Look a state up by full or short name, case-insensitive.  Returns -1
 * when unknown. */
int op_lookup(const char *name, unsigned len);

#endif
