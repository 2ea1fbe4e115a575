/* ops.c: the state table.  Names, short names and default percentages are
 * imaptest's, so that state words and column headers carry over unchanged. */
#include <string.h>
#include <strings.h>

#include "plan/ops.h"

const struct op_info op_table[OP_COUNT] = {
	[OP_AUTHENTICATE] = { "AUTHENTICATE", "Auth", 0, 0, OP_NEED_NONAUTH, OPF_STATECHANGE },
	[OP_LOGIN]	= { "LOGIN", "Logi", 100, 0, OP_NEED_NONAUTH, OPF_STATECHANGE },
	[OP_COMPRESS]	= { "COMPRESS", "Comp", 0, 0, OP_NEED_AUTH, 0 },
	[OP_LISTROOT]	= { "LISTROOT", "Root", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_LIST]	= { "LIST", "List", 50, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_MCREATE]	= { "MCREATE", "MCre", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_MDELETE]	= { "MDELETE", "MDel", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_MRENAME]	= { "MRENAME", "MRen", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_MSUBS]	= { "MSUBS", "MSub", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_STATUS]	= { "STATUS", "Stat", 50, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_SELECT]	= { "SELECT", "Sele", 100, 0, OP_NEED_AUTH, OPF_STATECHANGE },
	/* During a UID command the server may send EXPUNGE (RFC 3501 5.5). */
	[OP_UIDFETCH]	= { "UIDFETCH", "UIDF", 0, 0, OP_NEED_SELECTED, OPF_MSGSET | OPF_EXPUNGES },
	[OP_FETCH]	= { "FETCH", "Fetc", 100, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_FETCH2]	= { "FETCH2", "Fet2", 100, 30, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_SEARCH]	= { "SEARCH", "Sear", 0, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_SORT]	= { "SORT", "Sort", 0, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_THREAD]	= { "THREAD", "Thre", 0, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_COPY]	= { "COPY", "Copy", 33, 5, OP_NEED_SELECTED, OPF_MSGSET | OPF_EXPUNGES },
	[OP_MOVE]	= { "MOVE", "Move", 0, 0, OP_NEED_SELECTED, OPF_MSGSET | OPF_EXPUNGES },
	[OP_STORE]	= { "STORE", "Stor", 50, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_DELETE]	= { "DELETE", "Dele", 100, 0, OP_NEED_SELECTED, OPF_MSGSET },
	[OP_EXPUNGE]	= { "EXPUNGE", "Expu", 100, 0, OP_NEED_SELECTED, OPF_EXPUNGES },
	[OP_APPEND]	= { "APPEND", "Appe", 100, 5, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_NOOP]	= { "NOOP", "Noop", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	[OP_IDLE]	= { "IDLE", "Idle", 0, 0, OP_NEED_AUTH, OPF_EXPUNGES },
	/* CHECK is a selected-state command (RFC 3501 6.4.1). */
	[OP_CHECK]	= { "CHECK", "Chec", 0, 0, OP_NEED_SELECTED, OPF_EXPUNGES },
	[OP_LOGOUT]	= { "LOGOUT", "Logo", 100, 0, OP_NEED_NONAUTH, OPF_STATECHANGE },
	[OP_DISCONNECT]	= { "DISCONNECT", "Disc", 0, 0, OP_NEED_NONAUTH, 0 },
	[OP_DELAY]	= { "DELAY", "Dela", 0, 0, OP_NEED_NONAUTH, 0 },
	[OP_CHECKPOINT]	= { "CHECKPOINT!", "ChkP", 0, 0, OP_NEED_NONAUTH, 0 },
	[OP_LMTP]	= { "LMTP", "LMTP", 0, 0, OP_NEED_NONAUTH, 0 },
};

int
op_lookup(const char *name, unsigned len)
{
	for (int i = 0; i < OP_COUNT; i++) {
		const struct op_info *o = &op_table[i];
		if ((strlen(o->name) == len && strncasecmp(o->name, name, len) == 0) ||
		    (strlen(o->shortname) == len &&
		     strncasecmp(o->shortname, name, len) == 0))
			return i;
	}
	/* imaptest's "CHECKPOINT!" is also accepted without the bang. */
	if (len == 10 && strncasecmp(name, "CHECKPOINT", 10) == 0)
		return OP_CHECKPOINT;
	return -1;
}
