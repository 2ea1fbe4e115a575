/* users_base.c: what every file of the profile driver uses and that
 * needs none of them: the folder names, a folder as a command argument,
 * the connection of a slot, arming a timer, reading a response code's
 * words, and waking a user's connections (through the session's function
 * that users_new hands over: the files below the session tell it that
 * work fell due without calling up into it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/event.h>

#include "users/users_int.h"
#include "users/users_base.h"
#include "util/xmalloc.h"

const char *const ubase_folder_name[UF_COUNT] = { "INBOX", "Spam", "Drafts",
					     "Sent", "Calendar",
					     "Deleted Items" };

void
ubase_folder_arg(const struct user *u, enum ufolder f, char *out, size_t n)
{
	const char *name = u->uw->run->folder[f];
	bool atom = true;

	/* Names are checked printable ASCII without quotes or backslashes
	 * (profile_loadsim_folder_name): quoting needs no escapes. */
	for (const char *p = name; *p != '\0'; p++)
		if (strchr(" (){%*]", *p) != NULL)
			atom = false;
	snprintf(out, n, atom ? "%s" : "\"%s\"", name);
}

bool
ubase_guard(struct uconn *uc, enum op op, const char *text)
{
	if (!conn_guard_destructive(op, text, strlen(text)))
		return true;
	/* A folder the job did not note as selected still gets its check:
	 * the search runs on whatever the session has selected, it is only
	 * remembered under no folder's name. */
	const char *box = uc->sel < UF_COUNT ? uc->u->uw->run->folder[uc->sel] :
	    "\\imapstress selected";
	if (conn_guard_clear(uc->c, box))
		return true;
	uc->guard_held = true;
	return false;
}

void
ubase_selected(struct uconn *uc, enum ufolder f)
{
	uc->sel = f;
	conn_guard_selected(uc->c, uc->u->uw->run->folder[f]);
}

struct uconn *
ubase_uconn(struct uworker *uw, struct conn *c)
{
	return &uw->run->slots[conn_slot(c)];
}

bool
ubase_todo_push(struct user *u, const struct umail *m)
{
	if (u->todo_n == UMAIL_MAX)
		return false;
	if (u->todo_n == u->todo_cap) {
		/* Grow and unwrap the ring: the head goes to 0. */
		unsigned cap = u->todo_cap ? u->todo_cap * 2 : 4;
		struct umail *t = xmalloc(cap * sizeof(*t));
		for (unsigned i = 0; i < u->todo_n; i++)
			t[i] = u->todo[(u->todo_head + i) % u->todo_cap];
		free(u->todo);
		u->todo = t;
		u->todo_cap = cap;
		u->todo_head = 0;
	}
	u->todo[(u->todo_head + u->todo_n++) % u->todo_cap] = *m;
	return true;
}

struct umail
ubase_todo_pop(struct user *u)
{
	struct umail m = u->todo[u->todo_head];

	u->todo_head = (u->todo_head + 1) % u->todo_cap;
	if (--u->todo_n == 0) {
		/* Given back once empty: a user acts on its mail, then waits
		 * minutes to hours for more (60 a day), and a ring kept from
		 * its first mail on was memory every user grew into as the
		 * day went on (issue 35). */
		free(u->todo);
		u->todo = NULL;
		u->todo_head = u->todo_cap = 0;
	}
	return m;
}

bool
ubase_reply_push(struct user *u, const struct ureply *r)
{
	if (u->n_replies == UREPLY_MAX)
		return false;
	if (u->n_replies == u->replies_cap) {
		u->replies_cap = u->replies_cap ? u->replies_cap * 2 : 2;
		u->replies = xrealloc(u->replies,
				      u->replies_cap * sizeof(*u->replies));
	}
	u->replies[u->n_replies++] = *r;
	return true;
}

struct ureply
ubase_reply_take(struct user *u, unsigned i)
{
	struct ureply r = u->replies[i];

	u->replies[i] = u->replies[--u->n_replies];
	if (u->n_replies == 0) {
		/* As the todo ring: none kept between mails (issue 35). */
		free(u->replies);
		u->replies = NULL;
		u->replies_cap = 0;
	}
	return r;
}

void
ubase_user_free(struct user *u)
{
	free(u->todo);
	free(u->replies);
	free(u);
}

void
ubase_timer(struct event *ev, uint64_t us)
{
	struct timeval tv = { (time_t)(us / 1000000),
			      (suseconds_t)(us % 1000000) };
	evtimer_add(ev, &tv);
}

/* n after "[CODE " in a reply text ("[APPENDUID 7 12] ..." -> 12 is
 * word 2), 0 when absent. */
uint32_t
ubase_code_word(const char *text, size_t len, const char *code, unsigned word)
{
	size_t cl = strlen(code);
	if (len < cl + 2 || text[0] != '[' ||
	    strncasecmp(text + 1, code, cl) != 0 || text[cl + 1] != ' ')
		return 0;
	const char *p = text + cl + 2, *end = text + len;
	for (unsigned w = 1; w < word; w++) {
		while (p < end && *p != ' ' && *p != ']')
			p++;
		if (p >= end || *p != ' ')
			return 0;
		p++;
	}
	uint64_t n = 0;
	while (p < end && *p >= '0' && *p <= '9' && n <= UINT32_MAX)
		n = n * 10 + (uint64_t)(*p++ - '0');
	return n <= UINT32_MAX ? (uint32_t)n : 0;
}

void
ubase_wake(struct user *u)
{
	u->uw->run->wake(u);
}

bool
ubase_is_pop3(const struct users *r, unsigned tbl)
{
	const struct profile_user *pu = &r->p->u[r->first + tbl];
	return r->p->clients[pu->client].protocol == PROFILE_PROTO_POP3;
}
