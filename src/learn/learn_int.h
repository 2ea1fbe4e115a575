/* learn_int.h: what the files of `imapstress learn` share.  A reader
 * (learn_read.c) turns one recorded session into a struct lsession: the
 * client's commands in the order sent, each classified as an imaptest
 * state (learn_cmd.c), with the server's answers (learn_resp.c) filled in;
 * learn_walk.c folds each session into the learned mix, learn_tally.c
 * into the sizes, item sets, names and times, and the writers
 * (learn_write.c, learn_profile.c) turn those into files.  Nothing a log
 * holds is kept beyond what the outputs need: no message text, no
 * passwords, names only as numbers in a table (learn_names.c). */
#ifndef IMAPSTRESS_LEARN_INT_H
#define IMAPSTRESS_LEARN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/ops.h"

/* A command no state stands for (its verb is counted in the summary), and
 * one the walk leaves out although it is known (a CREATE after a NO
 * [TRYCREATE], what imapstress itself sends on its own: ID, CAPABILITY). */
#define LOP_UNMAPPED (-1)
#define LOP_IGNORED (-2)

/* Flags a STORE adds (+FLAGS, or FLAGS replacing). */
#define LFL_SEEN 1u
#define LFL_ANSWERED 2u
#define LFL_DELETED 4u

#define LEARN_VERB_MAX 24
/* New mails remembered per session for the action delay. */
#define LEARN_GROW_MAX 100000
#define LEARN_NAME_MAX 256

struct lcmd {
	char tag[32];
	char verb[LEARN_VERB_MAX];	/* "FETCH", "UID FETCH": an atom, upper */
	int op;			/* enum op, LOP_UNMAPPED or LOP_IGNORED */
	unsigned line;		/* where it starts in its file */
	double t_sent;		/* epoch seconds; < 0: the log has no times */
	double t_done;		/* its tagged answer; < 0: none or no times */
	char status;		/* 'O', 'N', 'B', or 0: never answered */
	bool trycreate;		/* NO [TRYCREATE] */
	bool unselect;		/* CLOSE, UNSELECT: leaves the selected state */
	bool body;		/* FETCH of a message's body */
	bool range_to_end;	/* a FETCH of "N:*" (new mail) */
	int box;		/* mailbox (learn_names), -1 none */
	int items;		/* FETCH item set (learn_names), -1 none */
	unsigned n_msgs;	/* APPEND: messages; STORE/MOVE/FETCH: set size */
	unsigned flags_add;	/* STORE: LFL_* added */
	bool after_end;		/* sent after --until, or in imapstress's
				 * stop: not walked (the session is cut) */
};

struct lsession {
	const char *path;	/* the client's file, for messages */
	int user;		/* learn_names user id, -1 unknown */
	bool implied_login;	/* the log starts after LOGIN (Dovecot) */
	bool login_auth;	/* logged in with AUTHENTICATE */
	bool timed;
	struct lcmd *c;
	size_t n, cap;
	size_t cursor;		/* first command not yet answered */
	double t_first, t_last;
	/* EXISTS as the server announced them (learn_resp.c) */
	long exists;		/* -1 before the first */
	uint64_t exists_grown;	/* growth not explained by own APPENDs */
	uint64_t own_appends;	/* messages appended to the selected box */
	int selected_box;
	double *grow_t;		/* when new mail was announced (with times) */
	size_t n_grow, cap_grow;
	bool idle;		/* sent IDLE */
	bool pending_auth;	/* AUTHENTICATE waits for its SASL lines */
	bool pending_idle;	/* IDLE waits for DONE */
	bool stopped;		/* imapstress's rawlog noted its stop */
};

/* Names seen in the logs, numbered in order of appearance; only the
 * numbers (or a role name: Sent, Drafts) reach the outputs when
 * anonymizing. */
struct lnames {
	char **v;
	uint64_t *count;
	size_t n, cap;
};

/* A histogram over powers of two (octets, or microseconds). */
#define LHIST_BUCKETS 40
struct lhist {
	uint64_t b[LHIST_BUCKETS];
	uint64_t n;
	double sum;
};

/* Message sizes by class: class k holds the sizes nearest 2^k in log
 * scale (2^(k-1/2) <= s < 2^(k+1/2)), with their sum, so that a class's
 * mean is a bucket of --msg-sizes (learn_sizes.c). */
struct lsizes {
	uint64_t n[LHIST_BUCKETS];
	double sum[LHIST_BUCKETS];
	uint64_t total;
};

/* The learned mix (learn_walk.c): the sessions' transitions from state
 * to state, [previous][next][selected | compressed << 1], with LOGIN as
 * the previous state of a session's first; P and R once solved, with the
 * expected draws and takes behind them. */
struct lmix {
	uint64_t trans[OP_COUNT][OP_COUNT][4];
	uint64_t runs[OP_COUNT];		/* commands; APPEND: messages */
	uint64_t inner_repeats[OP_COUNT];	/* MULTIAPPEND's extra messages */
	uint64_t sessions, auth_sessions, cut;
	double p[OP_COUNT], r[OP_COUNT];
	double e_draws[OP_COUNT], e_taken[OP_COUNT];
	double e_rdraws[OP_COUNT], e_repeats[OP_COUNT];
	bool solved;
};

/* Everything learned over all files. */
struct learn {
	bool anonymize;		/* forced with --anonymize */
	double until;		/* --until: epoch seconds, 0 none */
	unsigned lmtp_port;	/* --lmtp-port, 0: the placeholder 24 */
	struct lmix mix;
	struct lnames users, boxes, items, unmapped, ignored;
	struct lnames user_boxes;	/* "user/box" ids: mailboxes per user */
	struct lhist append_sizes, fetch_sizes;
	struct lsizes append_sz, fetch_sz;	/* the same, by class */
	struct lhist think_us, session_us, idle_us;
	uint64_t files, files_skipped, sessions, commands, truncated;
	uint64_t timed_sessions, untimed_sessions;
	uint64_t formats[3];		/* enum lfmt */
	uint64_t idle_sessions;
	uint64_t new_mail, read, replied, deleted, moved, sent;
	struct lhist action_delay_us;	/* new mail announced -> its reading */
	/* per user: first and last time seen, session starts */
	double *user_first, *user_last;
	uint64_t *user_sessions;
	size_t user_cap;
	uint64_t login_gaps;
	double login_gap_sum;
	struct lnames new_items, read_items;	/* FETCH N:*, body FETCHes */
	struct lnames copy_boxes;	/* COPY/MOVE targets, by mailbox id */
};

enum lfmt { LFMT_DOVECOT, LFMT_DOVECOT_TS, LFMT_IMAPSTRESS };

/* learn_names.c */
int lnames_add(struct lnames *t, const char *name, size_t len);
int lnames_find(const struct lnames *t, const char *name, size_t len);
void lnames_free(struct lnames *t);
/* The name to print for mailbox id `box`: INBOX and the special-use
 * roles by their role, the rest "boxN" (when anonymizing). */
void learn_box_shown(const struct learn *l, int box, char *out, size_t len);
/* "Sent", "Drafts", ... for a special-use name, NULL for any other. */
const char *learn_box_role(const char *name);

/* learn_hist.c */
void lhist_add(struct lhist *h, double v);
double lhist_quantile(const struct lhist *h, double q);
double lhist_mean(const struct lhist *h);

/* learn_sizes.c: a message size seen (APPEND literal; RFC822.SIZE or
 * BODY[] literal in a FETCH answer) into h and c; the buckets of
 * --msg-sizes from c, weights in percent summing to 100 (classes under
 * half a percent left out): 0, or -1 when c holds nothing. */
struct msg_sizes;
void learn_size_add(struct lhist *h, struct lsizes *c, uint64_t size);
int learn_sizes_spec(const struct lsizes *c, struct msg_sizes *out);
/* The spec the outputs write (the mix's --msg-sizes, the profile's
 * msg_sizes): of the APPEND literals, else of the FETCH answers.  0, or
 * -1 when no size was seen. */
#define LEARN_SIZES_SPEC (16 * 24)	/* MSG_SIZES_MAX buckets */
int learn_sizes_of(const struct learn *l, char *spec, size_t len);

/* learn_cmd.c: one client command (its text with literals as {N}, and the
 * literals' sizes and small contents) classified into c. */
struct llit {
	uint64_t size;
	char text[LEARN_NAME_MAX];	/* a literal of up to that size */
	bool have_text;
};
void learn_cmd_classify(struct learn *l, struct lsession *s, struct lcmd *c,
			const char *text, size_t len, const struct llit *lits,
			size_t n_lits);

/* learn_resp.c: one server line (literals as {N}) of session s. */
void learn_resp(struct learn *l, struct lsession *s, const char *text,
		size_t len, double t, const uint64_t *lit_sizes, size_t n_lits);

/* learn_read.c: read one file (a Dovecot .in with its .out beside it, or
 * an imapstress rawlog), learning every session in it.  0 when it held
 * at least one session, -1 when it was skipped (the reason said). */
int learn_file(struct learn *l, const char *path);

/* learn_session.c: a session is complete: fold it into l and free it. */
void learn_session_end(struct learn *l, struct lsession *s);
struct lcmd *lsession_add(struct lsession *s);
/* Everything a struct learn holds (not the struct). */
void learn_free(struct learn *l);
void lsession_free(struct lsession *s);

/* learn_walk.c: a session's transitions into m; then, once all are in,
 * learn_solve for P and R. */
void learn_walk(struct lmix *m, const struct lsession *s);
void learn_solve(struct lmix *m);

/* learn_write.c, learn_profile.c: 0, or -1 with the reason said. */
int learn_write_mix(const struct learn *l, const char *path);
int learn_write_summary(const struct learn *l, const char *path);
int learn_write_profile(const struct learn *l, const char *path);

/* The learned P and R of state op, in percent. */
int lmix_p(const struct lmix *m, int op);
int lmix_r(const struct lmix *m, int op);

#endif
