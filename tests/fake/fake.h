/* fake.h: fakeimapd, a loopback-only in-memory IMAP server that plays
 * fault scripts for imapstress tests and answers fast for benchmarks.
 * Internals shared by the files in tests/fake; every global symbol is
 * prefixed fake_ so nothing clashes with src/ when linked together. */
#ifndef FAKE_FAKE_H
#define FAKE_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/ssl.h>

/* A command line (literals excluded) longer than this is refused: the
 * fake is a test tool, not a place to discover how much RAM we have. */
#define FAKE_LINE_MAX (64 * 1024)
#define FAKE_CMD_MAX (256 * 1024)
#define FAKE_TAG_MAX 64
#define FAKE_ENDLESS_CHUNK (64 * 1024)

/* fake_mark.c: does a message's header hold the X-Imapstress field? */
struct fake_mark {
	uint16_t len;           /* octets of the current header line */
	bool ok;                /* the line so far is the field's name */
	bool done, found;
};

enum fake_mode {
	FAKE_M_NORMAL,
	FAKE_M_NO_GREETING,
	FAKE_M_CLOSE_MID_COMMAND,
	FAKE_M_CLOSE_MID_LITERAL,
	FAKE_M_RESET,
	FAKE_M_BYE_RANDOM,
	FAKE_M_GARBAGE,
	FAKE_M_ENDLESS_LINE,
	FAKE_M_HUGE_LITERAL,
	FAKE_M_DRIP,
	FAKE_M_STALL,
	FAKE_M_REFUSE,
	FAKE_M_TLS_FAIL,
	FAKE_M_PLAIN_ON_TLS,
	FAKE_M_SCRIPT,
};

#define FAKE_MAX_CMD_DELAYS 16

struct fake_cfg {
	const char *listen;
	/* Mail-store mode (fake_store.h): --lmtp-port N, --lmtp-port-file */
	bool store;
	unsigned lmtp_port;
	const char *lmtp_port_file;
	uint64_t push_delay_us;		/* --push-delay-ms */
	unsigned notify_overflow;	/* --notify-overflow N (0: never) */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	unsigned port;
	const char *port_file;
	const char *stats_file;
	const char *script_file;
	const char *tls_cert;
	const char *tls_key;
	const char *caps;
	unsigned threads;
	enum fake_mode mode;
	uint64_t delay_us;
	/* --cmd-delay NAME=MS: this command's reply delay instead of
	 * --delay-ms (and --slow-*) */
	struct { char name[24]; uint64_t us; } cmd_delay[FAKE_MAX_CMD_DELAYS];
	unsigned n_cmd_delays;
	/* --delay-per-conn-us N: every delayed reply waits N us more per
	 * connection open (over all threads), a server that slows down
	 * with its load: the knee tests/fake/t_capacity.sh looks for */
	uint64_t delay_per_conn_us;
	unsigned slow_pct;
	uint64_t slow_us;
	bool stall;
	uint64_t stall_after_us;
	uint64_t stall_us;
	uint64_t messages;
	/* --foreign N: of those, the first N lack the X-Imapstress marker
	 * (mail imapstress did not put there: fake_mark.c) */
	uint64_t foreign;
	uint64_t msg_size;
	unsigned pct;
};

struct fake_stats {
	uint64_t connections;
	uint64_t logins;
	uint64_t commands;
	uint64_t appends;
	uint64_t append_bytes;
	uint64_t fetches;
	uint64_t fetch_bodies;
	uint64_t bytes_in;
	uint64_t bytes_out;
};

struct fake_script;
struct fake_store;
struct fake_sess;

/* Built once at startup, then only read by every loop. */
struct fake_shared {
	const struct fake_cfg *cfg;
	uint64_t start_us;
	/* When the first connection was accepted (0 before): --stall-after-ms
	 * counts from here, so a client slow to start (a loaded machine) still
	 * meets the stall, which it could miss if counted from our start. */
	_Atomic uint64_t first_conn_us;
	char *greeting;
	size_t greeting_len;
	char *msg;              /* the one message every FETCH returns */
	bool msg_marked;        /* it has the X-Imapstress field (fit in) */
	char *body_suffix;      /* " BODY[] {size}\r\n" */
	size_t body_suffix_len;
	char *endless;          /* FAKE_ENDLESS_CHUNK bytes of 'x' */
	struct fake_script *script;
	SSL_CTX *ssl_ctx;
	struct fake_store *store;	/* --lmtp-port: mail-store mode */
};

struct fake_conn;

struct fake_loop {
	/* Not const: the first accept stamps first_conn_us. */
	struct fake_shared *sh;
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *stop;
	struct fake_stats stats;
	struct fake_conn *conns;
	pthread_t thread;
	uint64_t seed;
	struct fake_zcache *zcache;	/* fake_zcache.c */
};

enum fake_rstate {
	FAKE_R_COMMAND,         /* reading command lines */
	FAKE_R_LITERAL,         /* counting literal bytes away */
	FAKE_R_AUTH,            /* waiting for the SASL response line */
	FAKE_R_IDLE,            /* waiting for DONE */
	FAKE_R_SWALLOW,         /* reading and discarding everything */
};

/* Flags on a queued reply: what to do once its bytes are flushed. */
#define FAKE_P_CLOSE 0x1u
#define FAKE_P_RESET 0x2u

struct fake_pending {
	uint64_t due_us;
	size_t len;
	unsigned flags;
};

struct fake_conn {
	struct fake_loop *loop;
	const struct fake_shared *sh;
	struct fake_conn *prev, *next;
	struct bufferevent *bev;
	struct event *timer;    /* due time of the oldest queued reply */
	struct event *tick;     /* drip pacing, reset grace */

	/* Replies are written to w: straight into the socket's output when
	 * nothing is queued ahead and no delay applies, else into the
	 * scratch buffer and then queued with a due time. */
	struct evbuffer *w;
	struct evbuffer *scratch;
	size_t w_start;
	uint64_t w_due;
	bool w_direct;
	struct evbuffer *pending;
	struct evbuffer *drip;
	struct fake_pending *q;
	size_t q_head, q_len, q_cap;
	uint64_t last_due;

	enum fake_rstate rstate;
	uint64_t lit_left;
	char *cmd;
	size_t cmd_len, cmd_cap;
	unsigned lit_count;
	uint64_t lit_bytes;
	bool lit_mailbox;       /* APPEND's first literal is the mailbox name */
	uint64_t lit_mailbox_bytes;
	struct fake_mark lit_mark;      /* of the literal being read */
	bool lit_is_msg;                /* it is a message, not a mailbox */
	uint8_t *lit_marks;             /* per message literal: marked */
	size_t n_lit_marks, cap_lit_marks;
	char tag[FAKE_TAG_MAX + 1];

	uint64_t exists;
	/* normal mode: appended messages without the marker (sequence
	 * numbers, which are their UIDs) */
	uint64_t *foreign;
	size_t n_foreign, cap_foreign;
	uint64_t rng;
	unsigned char *once_fired;
	bool logged_in;
	bool selected;
	bool closing;
	bool reset;
	bool reset_grace_done;
	bool dead;
	bool paused;            /* reading stopped until output drains */
	bool endless;
	bool garbage_sent;
	bool script_cont;       /* a script reply ended in "+": next line is data */
	bool deflating;         /* under COMPRESS (fake_conn_deflate) */
	bool tls_fail_sent;
	struct fake_sess *sess; /* mail-store mode: logged in (fake_store.h) */
	struct fake_stream *stream;	/* a reply made as it drains */
};

/* A parsed command; tag, name and args point into conn->cmd. */
struct fake_cmd {
	const char *tag;
	const char *name;       /* for UID commands, the word after UID */
	const char *args;       /* "" when there are none */
	bool uid;
	unsigned messages;      /* APPEND: message literals */
	uint64_t message_bytes;
	const uint8_t *marked;  /* APPEND: per message, 1 when it carries
				 * the X-Imapstress field (fake_mark.c) */
};

/* fake_mark.c */
void fake_mark_start(struct fake_mark *m);
void fake_mark_feed(struct fake_mark *m, const char *p, size_t n);
/* Is cmd the foreign-mail check, UID SEARCH NOT HEADER X-Imapstress ""? */
bool fake_is_guard_search(const struct fake_cmd *cmd);

/* fake_util.c */
uint64_t fake_now_us(void);
uint64_t fake_rand(uint64_t *state);
uint64_t fake_seed(uint64_t x);
bool fake_eq(const char *a, const char *b);
const char *fake_mode_name(enum fake_mode m);
bool fake_mode_parse(const char *s, enum fake_mode *out);

/* fake_conn.c */
void fake_conn_accept(struct fake_loop *loop, int fd);
void fake_conn_free(struct fake_conn *c);
/* COMPRESS=DEFLATE from here on, both ways (src/compress.c at level 9, as the
 * server's filter); what is already written goes out as it is.  False
 * (and nothing changed) if the filter could not be set up. */
bool fake_conn_deflate(struct fake_conn *c);
/* fake_zcache.c: under COMPRESS, with the reply going out now, the
 * octets make(c, key) writes to c->w are deflated once per loop for key
 * and the same bytes go to every connection; false (nothing written)
 * otherwise, and the caller writes them itself.  key names a reply part
 * that is the same for every connection. */
struct fake_zcache;
bool fake_zcache_send(struct fake_conn *c, const void *key,
		      void (*make)(struct fake_conn *, const void *));
void fake_zcache_free(struct fake_zcache *z);
/* fake_delay.c */
void fake_delay_conn_opened(void);
void fake_delay_conn_closed(void);
uint64_t fake_reply_delay(struct fake_conn *c);
/* The delay of a reply to the command `name`: its --cmd-delay, else
 * fake_reply_delay's; both with the --delay-per-conn-us share. */
uint64_t fake_cmd_delay(struct fake_conn *c, const char *name);

/* fake_conn.c (continued) */
void fake_reply_begin(struct fake_conn *c, uint64_t delay_us);
void fake_reply_end(struct fake_conn *c, unsigned flags);
void fake_out(struct fake_conn *c, const void *s, size_t n);
void fake_outs(struct fake_conn *c, const char *s);
void fake_outf(struct fake_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fake_out_ref(struct fake_conn *c, const void *s, size_t n);
void fake_reply_now(struct fake_conn *c, const char *line, unsigned flags);
void fake_close(struct fake_conn *c, unsigned flags);
void fake_conn_pump(struct fake_conn *c);
/* More than FAKE_OUT_MAX waiting to go out, or a stream running: reading
 * stops until it drains (or ends). */
bool fake_conn_backlogged(struct fake_conn *c);
/* Reading stopped by a backlog goes on, with what came meanwhile, once
 * there is none. */
void fake_conn_resume_input(struct fake_conn *c);
/* Frees c when it is dead or closed and flushed; true when it did. */
bool fake_conn_settle(struct fake_conn *c);

/* fake_stream.c: a large reply made a piece at a time.  A piece is about
 * FAKE_STREAM_PIECE octets; the next is made once no more than
 * FAKE_STREAM_LOW of c's octets wait to go out.  more(c, state) writes
 * the next piece (fake_reply_begin .. fake_reply_end) and returns true
 * when the reply is over; state is freed with the stream. */
#define FAKE_STREAM_PIECE (256u * 1024)
#define FAKE_STREAM_LOW (64u * 1024)
struct fake_stream;
void fake_stream_start(struct fake_conn *c,
		       bool (*more)(struct fake_conn *, void *), void *state);
void fake_stream_free(struct fake_conn *c);
size_t fake_stream_queued(struct fake_conn *c);

/* fake_input.c: parse what is in `in` (commands, literals, AUTHENTICATE
 * and IDLE lines) until it is used up or the output is backlogged. */
void fake_conn_parse(struct fake_conn *c, struct evbuffer *in);

/* fake_cmd.c */
void fake_cmd_dispatch(struct fake_conn *c);
/* Shared with fake_store_cmd.c: "tag TEXT\r\n", "tag OK NAME completed",
 * sequence-set ranges clipped to 1..star (1: a range, 0: the end, -1: bad
 * syntax), a whole set's syntax, the text after the next word, whether
 * FETCH items ask for a body, the end of a mailbox argument. */
void fake_tagged(struct fake_conn *c, const struct fake_cmd *cmd,
		 const char *text);
unsigned fake_h_ok(struct fake_conn *c, const struct fake_cmd *cmd);
int fake_seq_next(const char **pp, uint64_t star, uint64_t *lo, uint64_t *hi);
bool fake_seq_valid(const char *set);
const char *fake_skip_word(const char *p);
bool fake_items_want_body(const char *items);
const char *fake_mailbox_end(const char *p);
/* " (NAME value ...)\r\n" for the names asked in items ("(MESSAGES ...)"),
 * in the order asked. */
void fake_out_status_items(struct fake_conn *c, const char *items,
			   const char *const *names, const uint64_t *values,
			   size_t n);
void fake_cmd_auth_response(struct fake_conn *c, const char *line);
void fake_cmd_idle_line(struct fake_conn *c, const char *line);
void fake_cmd_greet(struct fake_conn *c);
bool fake_cmd_first_literal_is_mailbox(const char *cmd);

/* fake_fault.c */
bool fake_fault_greet(struct fake_conn *c);
bool fake_fault_input(struct fake_conn *c, struct evbuffer *in);
bool fake_fault_line_start(struct fake_conn *c);
bool fake_fault_command(struct fake_conn *c, struct fake_cmd *cmd);
bool fake_fault_continuation_allowed(const struct fake_conn *c);
unsigned fake_fault_login_ok(struct fake_conn *c);
void fake_fault_after_login(struct fake_conn *c);

/* fake_script.c */
struct fake_script *fake_script_load(const char *path, char *err,
				     size_t err_len);
void fake_script_free(struct fake_script *s);
size_t fake_script_rules(const struct fake_script *s);
bool fake_script_greet(struct fake_conn *c);
void fake_script_command(struct fake_conn *c, const struct fake_cmd *cmd);
void fake_script_continuation(struct fake_conn *c, const char *line);
/* A sync literal announced on the command line so far: true when an
 * "on LITERAL" rule answered it instead of "+" (the client then sends no
 * literal; the command is over). */
bool fake_script_literal(struct fake_conn *c, const char *cmdline);

/* fake_net.c */
int fake_listen_socket(const struct fake_cfg *cfg, unsigned port,
		       unsigned *bound_port, char *err, size_t err_len);
bool fake_addr_parse(const char *s, struct sockaddr_storage *ss,
		     socklen_t *len);
SSL_CTX *fake_tls_ctx(const char *cert, const char *key, char *err,
		      size_t err_len);

#endif
