/* lmtp_peer.h: the LMTP server the LMTP client tests talk to, in
 * process over bufferevent_pair_new or a socketpair (lmtp_peer.c), scripted by the fields
 * of struct peer and recording what it saw; and the harness that runs an
 * lmtp_client against it and collects each recipient's result. */
#ifndef IMAPSTRESS_TEST_LMTP_PEER_H
#define IMAPSTRESS_TEST_LMTP_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "lmtp/lmtp.h"

enum hostile { H_NONE, H_ENDLESS, H_RESET_MID, H_MANY_LINES, H_SILENT };

struct peer {
	const char *greeting;		/* NULL: "220 peer LMTP\r\n" */
	bool pipelining;
	bool drip;			/* one byte per loop turn */
	bool socket;			/* socketpair, not bufferevent_pair */
	enum hostile hostile;
	const char *mail_reply;		/* NULL: 250 */
	const char *data_reply;		/* NULL: 354 (or 503 without rcpts) */
	/* Per recipient: reply to RCPT, and after the dot; NULL = 250. */
	const char *(*rcpt_reply)(const char *addr);
	const char *(*dot_reply)(const char *addr);
	/* seen */
	unsigned conns, open, max_open, rsets, mails, max_batch;
	char bodies[4][8192];		/* raw DATA bytes, dot-stuffed */
	unsigned n_bodies;
	struct event_base *base;
};

/* What the client reported. */
struct got {
	char rcpt[300];
	int code;
	enum lmtp_fail fail;
	enum lmtp_phase phase;
	uintptr_t arg;
};

struct harness {
	struct event_base *base;
	struct peer peer;
	struct lmtp_env env;
	struct lmtp_client *c;
	struct got got[256];
	unsigned n_got, want;
};

/* A harness with a PIPELINING peer, a pool of 5 messages; change
 * h->peer or h->env, then h_start. */
struct harness *h_new(void);
void h_start(struct harness *h);
/* Deliver msg 0 to the rcpts (NULL-terminated) with arg. */
void h_deliver(struct harness *h, uintptr_t arg, const char *const *rcpts);
/* Bytes the client wrote that connection conn's socket (peer.socket)
 * holds unread: what went on the wire without the loop running. */
int peer_unread(unsigned conn);
/* Runs until every wanted result is in; 20 s is a hang, not slowness. */
void h_run(struct harness *h);
/* The result for rcpt (the test fails without one). */
const struct got *h_find(struct harness *h, const char *rcpt);
void h_free(struct harness *h);

#define STAT(h, f) ctr_get(&(h)->env.stats->f)

#endif
