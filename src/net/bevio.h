/* bevio.h: small bufferevent helpers the line protocols' clients share
 * (LMTP and submission in src/lmtp/, POP3 in src/pop3/): timeouts on or
 * off, and writing what a command queued at once. */
#ifndef IMAPSTRESS_BEVIO_H
#define IMAPSTRESS_BEVIO_H

#include <stdbool.h>
#include <sys/socket.h>

struct bufferevent;
struct event_base;

/* A socket bufferevent on base connecting to addr (freed with the
 * socket); NULL when the connect fails at once. */
struct bufferevent *bevio_connect(struct event_base *base,
				  const struct sockaddr_storage *addr,
				  socklen_t addrlen);
/* A test's open hook when it is set (its bufferevent counts as
 * connected), else bevio_connect; *connected says which. */
struct bufferevent *bevio_open(struct bufferevent *(*open)(void *, struct event_base *),
			       void *open_arg, struct event_base *base,
			       const struct sockaddr_storage *addr,
			       socklen_t addrlen, bool *connected);

/* bev's read and write timeouts: t seconds when on, none when off. */
void bevio_set_timeout(struct bufferevent *bev, double t, bool on);

/* Writing to the socket at once instead of through the bufferevent's
 * write event, which costs an epoll_ctl() to arm, a loop turn and another
 * epoll_ctl() to disarm per command (conn_write_now does the same for
 * IMAP).  bevio_direct: bev is a plain socket (no pair, no filter
 * whose bytes must go through its layer).  bevio_write_now: write what
 * bev's output holds; true when it is empty after that, with the write
 * event off (queuing then arms nothing: call this after each queue);
 * false when the write event is on to do the rest (or report the
 * error). */
bool bevio_direct(struct bufferevent *bev);
bool bevio_write_now(struct bufferevent *bev);

#endif
