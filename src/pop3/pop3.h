/* pop3.h: a POP3 client on a libevent loop (RFC 1939; RFC 2449 CAPA and
 * PIPELINING; RFC 2595 STLS; POP3S; RFC 5034 AUTH PLAIN), for profile
 * mode's POP3 users.  They are
 * imaptest's `protocol = pop3` client kind.
 *
 * One `struct pop3_client` per event loop (a worker's).  A session is one
 * mailbox visit, as imaptest's POP3 client makes it: the greeting, CAPA,
 * STLS and CAPA again when asked (RFC 2595: what CAPA said before TLS
 * is forgotten), USER and PASS (or AUTH PLAIN with its initial response,
 * RFC 5034, when asked), STAT, UIDL (LIST when UIDL is refused),
 * then RETR of every message the user has not
 * retrieved before and (unless it keeps its mail) DELE of each once its
 * body is in, then QUIT.  With PIPELINING in the CAPA reply, up to
 * `window` commands are in flight at once; without it, one.  A message's
 * DELE goes out only after its RETR's body arrived, so a failed RETR never
 * deletes unread mail.  Deletions count only when QUIT's +OK commits them
 * (RFC 1939 6: the UPDATE state); a session that ends otherwise leaves
 * them on the server (delete_lost).
 *
 * A keeping user (pop3_keep_mails) skips the messages at the start of the
 * UIDL list that the previous session retrieved (imaptest's rule: the
 * longest common prefix of the two UIDL lists); the session hands back
 * the UIDL hashes of what it retrieved for the next one.
 *
 * Every pop3_session_start that returns 0 gets exactly one on_result call.
 * Counts and latencies per command go to the pop3_stats given (single
 * writer: the loop's thread).  Against a hostile server: a line longer
 * than max_line, a response longer than max_resp (pop3_parse.h), a
 * response to no command, or no progress for timeout_s ends the session
 * (counted by kind); server text reaches the result only escaped. */
#ifndef IMAPSTRESS_POP3_H
#define IMAPSTRESS_POP3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "stats/pop3_stats.h"

struct event_base;
struct bufferevent;
struct tls_ctx;

/* TLS for a session: none, from the first byte (POP3S), or STLS (RFC
 * 2595) after the first CAPA, which must offer it: a refused or missing
 * STLS ends the session (P3F_TLS), never a login in clear. */
enum pop3_tls { POP3_TLS_NONE, POP3_TLS_IMPLICIT, POP3_TLS_STLS };

/* How a session logs in: USER and PASS (RFC 1939), or SASL PLAIN with
 * the initial response on the AUTH line (RFC 5034), which must then fit
 * the 255 octets RFC 5034 4 allows it. */
enum pop3_auth { POP3_AUTH_USER, POP3_AUTH_PLAIN };

#define POP3_TIMEOUT_DEFAULT_S 30
#define POP3_WINDOW_DEFAULT 8		/* commands in flight, pipelining */
#define POP3_MAX_MSGS 100000u		/* UIDL lines one session takes */
#define POP3_TEXT 160			/* result text kept, escaped */

/* Who logs in, and what it retrieved last time (keep). */
struct pop3_login {
	const char *user, *pass;
	bool keep;			/* pop3_keep_mails: no DELE */
	const uint64_t *known;		/* UIDL hashes retrieved before */
	unsigned n_known;
};

struct pop3_result {
	void *arg;			/* pop3_session_start's */
	bool quit_ok;			/* the session ended with QUIT's +OK */
	bool logged_in;			/* PASS or AUTH got +OK */
	bool failed;			/* ended by `fail` (not a -ERR) */
	enum pop3_fail fail;
	unsigned n_err;			/* -ERR replies in the session */
	uint32_t stat_n;		/* STAT's message count */
	uint32_t listed;		/* UIDL lines */
	uint32_t retrieved;		/* RETR bodies complete */
	uint32_t deleted;		/* DELE +OK committed by QUIT */
	uint32_t delete_lost;		/* DELE +OK not committed */
	/* A keeping session: the UIDL hashes of the prefix it retrieved
	 * (valid during the callback only; copy what is kept). */
	const uint64_t *seen;
	unsigned n_seen;
	const char *text;		/* why it ended, escaped; "" if QUIT */
	/* The -ERR that refused the login (USER, PASS or AUTH): its
	 * command and its text, escaped; P3_CMD_COUNT and "" if none. */
	enum pop3_cmd login_err;
	const char *login_err_text;
	uint64_t t_start_us, t_end_us;
};

typedef void (*pop3_result_fn)(void *cb_arg, const struct pop3_result *r);

struct pop3_env {
	struct event_base *base;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	/* Tests: a connected bufferevent on base, or NULL (connect fails). */
	struct bufferevent *(*open)(void *open_arg, struct event_base *base);
	void *open_arg;
	unsigned max_sessions;		/* 0 = unlimited; others queue */
	unsigned window;		/* 0: POP3_WINDOW_DEFAULT */
	double timeout_s;		/* 0: POP3_TIMEOUT_DEFAULT_S */
	size_t max_line;		/* 0: POP3_MAX_LINE_DEFAULT */
	uint64_t max_resp;		/* 0: POP3_MAX_RESP_DEFAULT */
	enum pop3_tls tls_mode;
	enum pop3_auth auth;
	struct tls_ctx *tls;		/* the run's (tls.h); needed for TLS */
	struct pop3_stats *stats;	/* NULL: not counted */
	pop3_result_fn on_result;
	/* Optional: the login got +OK in the session of `arg` (its on_result
	 * follows, with logged_in set). */
	void (*on_login)(void *cb_arg, void *arg);
	/* Optional: the session of `arg` has closed its socket (after its
	 * on_result, from the client's reap event): the place it held is
	 * free.  Not for the sessions pop3_client_free closes. */
	void (*on_closed)(void *cb_arg, void *arg);
	void *cb_arg;
};

struct pop3_client;

/* The env is copied (the stats must outlive the client). */
struct pop3_client *pop3_client_new(const struct pop3_env *env);
/* Queue one session (the strings and known[] are copied).  -1 for bad
 * arguments (nothing queued, no callback: a name or password with CR or
 * LF, or an AUTH PLAIN line over 255 octets), 0 otherwise; the result may
 * come before this returns (a failed synchronous open). */
int pop3_session_start(struct pop3_client *c, const struct pop3_login *who,
		       void *arg);
/* The run ends: queued sessions are dropped (no callback); open ones
 * send no more RETR and QUIT once their commands are answered. */
void pop3_client_stop(struct pop3_client *c);
/* Sessions open or queued. */
unsigned pop3_client_busy(const struct pop3_client *c);
/* Closes every session: each gets on_result with P3F_SHUTDOWN.  NULL is
 * a no-op.  Not from inside on_result. */
void pop3_client_free(struct pop3_client *c);

/* A UIDL's 64-bit hash (FNV-1a): what a keeping user remembers. */
uint64_t pop3_uidl_hash(const char *s, size_t n);

#endif
