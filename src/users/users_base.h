/* users_base.h: what every file of the profile driver uses and that needs
 * none of them: the folder names, a folder as a command argument, the
 * connection of a slot, arming a timer, reading a response code's words, and
 * waking a user's connections (through the session's function that users_new
 * hands over: the files below the session tell it that work fell due without
 * calling up into it).  Declares users_base.c's functions (ubase_) for the
 * files of src/users/ that call them; the driver's types are in users_int.h. */
#ifndef IMAPSTRESS_USERS_BASE_H
#define IMAPSTRESS_USERS_BASE_H

#include "users/users_int.h"

struct uconn *ubase_uconn(struct uworker *uw, struct conn *c);
/* User tbl of the table plays a POP3 client (protocol = pop3). */
bool ubase_is_pop3(const struct users *r, unsigned tbl);
/* "NAME" or NAME, as a command argument of folder f (n >= 80). */
void ubase_folder_arg(const struct user *u, enum ufolder f, char *out,
		      size_t n);
/* The foreign-mail guard (imap/guard.h) for a job's command: true when
 * it may go now (it destroys nothing, or the selected folder is known to
 * hold only our mail); false when it must wait (uc->guard_held: the
 * step is held, not failed, and ujob_resume runs it again). */
bool ubase_guard(struct uconn *uc, enum op op, const char *text);
/* A SELECT of folder f was answered OK: uc->sel, and an empty folder
 * needs no check. */
void ubase_selected(struct uconn *uc, enum ufolder f);
/* New mail to act on, at the end of u->todo (false: UMAIL_MAX held, it
 * is dropped); the oldest, taken off its head (the ring is freed when
 * that empties it). */
bool ubase_todo_push(struct user *u, const struct umail *m);
struct umail ubase_todo_pop(struct user *u);
/* A draft to send (false: UREPLY_MAX held, it is dropped). */
bool ubase_reply_push(struct user *u, const struct ureply *r);
/* Take draft i (< n_replies) out, the last moving into its place; the
 * array is freed when that empties it. */
struct ureply ubase_reply_take(struct user *u, unsigned i);
/* What ubase_todo_push and ubase_reply_push allocated. */
void ubase_user_free(struct user *u);
/* Arm ev to fire `us` from now (0: at the next loop turn). */
void ubase_timer(struct event *ev, uint64_t us);
/* Something fell due for the user (mail came, a send is due): wake its
 * connections (users->wake, the session's usess_kick). */
void ubase_wake(struct user *u);
/* Word `word` (1-based) of response code `code` at the start of a reply
 * text ("[APPENDUID 7 12] ..." word 2 is 12); 0 when absent. */
uint32_t ubase_code_word(const char *text, size_t len, const char *code,
			 unsigned word);

#endif
