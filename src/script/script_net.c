/* script_net.c: STOPGAP connection driver for `imapstress test=PATH`.
 *
 * Until the connection engine (issue 14) has a script driver, this file
 * opens its own libevent connections (plain or implicit TLS through
 * tls.h), parses replies with imap.h and feeds them to the state machine
 * in script_run.h, one test at a time.  A sequential tester needs no
 * pipelining engine: the script's own pipelined groups are written at
 * once by script_run.c.  Replace this file, not the state machine, when
 * the engine lands. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "config/config.h"
#include "imap/imap.h"
#include "script/script_net.h"
#include "script/script_opts.h"
#include "script/script_report.h"
#include "script/script_run.h"
#include "imap/guard.h"
#include "net/tls.h"
#include "run/exit_policy.h"
#include "util/log.h"
#include "util/run_id.h"
#include "util/xmalloc.h"

struct nconn {
	struct net *n;
	unsigned no;
	struct bufferevent *bev;
	struct imap_parser *parser;
	bool greeted, dead;
};

struct net {
	const struct config *cfg;
	struct event_base *base;
	struct tls_ctx *tls;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	struct script_run *run;
	struct nconn *conn[SCRIPT_MAX_CONNS];
	struct event *timer;	/* no reply for cmd_timeout: the test fails */
};

static void
net_arm(struct net *n)
{
	double t = n->cfg->cmd_timeout;
	struct timeval tv = { (time_t)t, (suseconds_t)((t - (double)(time_t)t) * 1e6) };
	evtimer_add(n->timer, &tv);
}

static void
net_check_done(struct net *n)
{
	if (script_run_finished(n->run))
		event_base_loopbreak(n->base);
}

static void
nconn_free(struct nconn *c)
{
	if (c == NULL)
		return;
	if (c->bev)
		bufferevent_free(c->bev);
	imap_parser_free(c->parser);
	free(c);
}

static int
on_reply(void *arg, const struct imap_resp *resp)
{
	struct nconn *c = arg;
	struct net *n = c->n;

	if (c->dead)
		return 1;
	if (!c->greeted) {
		c->greeted = true;
		if (resp->kind == IMAP_UNTAGGED &&
		    (resp->cond == IMAP_COND_OK || resp->cond == IMAP_COND_PREAUTH))
			script_on_ready(n->run, c->no);
		else
			script_on_closed(n->run, c->no, "the greeting is not * OK");
	} else {
		script_on_resp(n->run, c->no, resp);
	}
	return c->dead || script_run_finished(n->run);
}

static void
on_read(struct bufferevent *bev, void *arg)
{
	struct nconn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct net *n = c->n;

	net_arm(n);
	while (!c->dead && evbuffer_get_length(in) > 0) {
		size_t len = evbuffer_get_length(in);
		const char *data = (const char *)evbuffer_pullup(in, -1);
		long used = imap_parser_feed(c->parser, data, len);
		if (used < 0) {
			char why[300];
			snprintf(why, sizeof(why), "unparsable reply: %s",
				 imap_parser_error(c->parser));
			script_on_closed(n->run, c->no, why);
			break;
		}
		evbuffer_drain(in, (size_t)used);
		if ((size_t)used < len && !c->dead && !script_run_finished(n->run))
			continue;
		break;
	}
	net_check_done(n);
}

static void
on_event(struct bufferevent *bev, short what, void *arg)
{
	struct nconn *c = arg;

	if (what & BEV_EVENT_CONNECTED)
		return;
	char why[300] = "the server closed the connection";
	bool verify;
	if (!tls_bev_error(bev, why, sizeof(why), &verify) &&
	    (what & BEV_EVENT_ERROR))
		snprintf(why, sizeof(why), "%s",
			 evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	script_on_closed(c->n->run, c->no, why);
	net_check_done(c->n);
}

static void
io_open(void *ctx, unsigned no)
{
	struct net *n = ctx;
	struct nconn *c = xcalloc(1, sizeof(*c));

	c->n = n;
	c->no = no;
	c->parser = imap_parser_new(NULL, on_reply, c);
	n->conn[no] = c;
	c->bev = n->tls ? tls_bev_new(n->tls, n->base, -1, true, NULL)
			: bufferevent_socket_new(n->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		script_on_closed(n->run, no, "cannot create a connection");
		return;
	}
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&n->addr,
				       (int)n->addr_len) != 0)
		script_on_closed(n->run, no, "connect failed");
}

static void
io_send(void *ctx, unsigned no, const char *data, size_t len)
{
	struct net *n = ctx;

	if (n->conn[no] && n->conn[no]->bev)
		bufferevent_write(n->conn[no]->bev, data, len);
}

/* Called from inside the connection's callbacks: only marked here, freed
 * after the test (struct net's loop). */
static void
io_close(void *ctx, unsigned no)
{
	struct net *n = ctx;

	if (n->conn[no] != NULL) {
		n->conn[no]->dead = true;
		if (n->conn[no]->bev)
			bufferevent_disable(n->conn[no]->bev, EV_READ | EV_WRITE);
	}
}

static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct net *n = arg;
	char why[80];

	snprintf(why, sizeof(why), "no reply within %.0f s (--cmd-timeout)",
		 n->cfg->cmd_timeout);
	for (unsigned i = 0; i < SCRIPT_MAX_CONNS && !script_run_finished(n->run); i++)
		if (n->conn[i] && !n->conn[i]->dead)
			script_on_closed(n->run, i, why);
	net_check_done(n);
}

static int
net_resolve(struct net *n, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char port[16];
	const char *name = n->cfg->hostip ? n->cfg->hostip : n->cfg->host;

	snprintf(port, sizeof(port), "%d", config_port(n->cfg));
	int e = getaddrinfo(name, port, &hints, &res);
	if (e != 0) {
		snprintf(err, errlen, "host=%s: %s", name, gai_strerror(e));
		return -1;
	}
	memcpy(&n->addr, res->ai_addr, res->ai_addrlen);
	n->addr_len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int
script_net_main(const struct config *cfg)
{
	struct script_list list;
	char err[1024];

	if (script_check_options(cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: %s\n", err);
		return 2;
	}
	if (script_list_load(&list, cfg->test_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: test=%s\n", err);
		return 2;
	}
	struct net n = { .cfg = cfg };
	struct script_report *rep = script_report_new(cfg, err, sizeof(err));
	if (rep == NULL || net_resolve(&n, err, sizeof(err)) < 0) {
		fprintf(stderr, "imapstress: %s\n", err);
		script_report_free(rep);
		script_list_free(&list);
		return 2;
	}
	if (cfg->tls != TLS_NONE &&
	    (cfg->tls == TLS_STARTTLS ||
	     (n.tls = tls_ctx_new(cfg, err, sizeof(err))) == NULL)) {
		fprintf(stderr, "imapstress: test=: %s\n", cfg->tls == TLS_STARTTLS
			? "--starttls is not supported in test mode yet" : err);
		script_report_free(rep);
		script_list_free(&list);
		return 2;
	}
	/* box= left at INBOX (which cannot be deleted): "imaptest", under
	 * the personal namespace when the server names one. */
	bool box_auto = strcmp(cfg->box, "INBOX") == 0;
	struct script_env env = {
		.user = cfg->user_template, .user2 = cfg->user2,
		.password = cfg->pass, .mailbox = box_auto ? "imaptest" : cfg->box,
		.mailbox_auto = box_auto, .host = cfg->host,
		.port = config_port(cfg), .run_id = run_id_new(),
		.guard = cfg->allow_foreign_mail ? NULL : guard_new(),
	};
	struct script_io io = { io_open, io_send, io_close };
	n.base = event_base_new();
	n.timer = evtimer_new(n.base, on_timeout, &n);
	n.run = script_run_new(&env, &io, &n);
	bool foreign = false;
	for (unsigned i = 0; i < list.n; i++) {
		script_run_start(n.run, list.v[i], list.pools[i]);
		net_arm(&n);
		while (!script_run_finished(n.run))
			event_base_dispatch(n.base);
		evtimer_del(n.timer);
		for (unsigned k = 0; k < SCRIPT_MAX_CONNS; k++) {
			nconn_free(n.conn[k]);
			n.conn[k] = NULL;
		}
		const struct script_outcome *o = script_run_outcome(n.run);
		script_report_test(rep, list.v[i], o);
		if (o->foreign) {
			/* Nothing was deleted; no further test runs. */
			log_error("%s", o->detail);
			foreign = true;
			break;
		}
	}
	int status = script_report_end(rep);
	if (foreign)
		status = EXIT_USAGE;
	guard_free(env.guard);
	script_run_free(n.run);
	event_free(n.timer);
	event_base_free(n.base);
	tls_ctx_free(n.tls);
	script_report_free(rep);
	script_list_free(&list);
	return status;
}
