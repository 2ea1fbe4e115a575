/* profile_expand.c: from the parsed blocks to the users of a run (names,
 * passwords, client kinds), the schedule helpers every user's timers will
 * use, and the plan --profile-check prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "profile/profile_int.h"
#include "config/userfile.h"
#include "util/xmalloc.h"
#include "util/strhash.h"

/* Stream number of the client-assignment shuffle, so it draws numbers no
 * connection's rng (streams = slots) draws. */
#define PROFILE_RNG_STREAM 0x70726f66696c65ULL

/* shares[i] = total * pct[i] / 100, rounded so that they add up to total
 * exactly: floors first, then one more for the largest remainders (the
 * earlier block wins a tie).  pct[] adds up to 100. */
static void
apportion(unsigned total, const unsigned *pct, unsigned n, unsigned *shares)
{
	unsigned given = 0;
	bool extra[PROFILE_MAX_BLOCKS] = { false };

	for (unsigned i = 0; i < n; i++) {
		shares[i] = (unsigned)((uint64_t)total * pct[i] / 100);
		given += shares[i];
	}
	while (given < total) {
		unsigned best = n;
		uint64_t best_rem = 0;
		for (unsigned i = 0; i < n; i++) {
			uint64_t rem = (uint64_t)total * pct[i] % 100;
			if (!extra[i] && rem > 0 && (best == n || rem > best_rem)) {
				best = i;
				best_rem = rem;
			}
		}
		if (best == n)
			break;	/* cannot happen when pct[] adds up to 100 */
		extra[best] = true;
		shares[best]++;
		given++;
	}
}

static int
name_block_users(struct profile *p, unsigned b, unsigned first, char *err,
		 size_t errlen)
{
	struct profile_user_block *ub = &p->users[b];
	char buf[512];

	if (ub->userfile != NULL) {
		char uerr[512];
		struct userfile *uf = userfile_load(ub->userfile, uerr,
						    sizeof(uerr));
		if (uf == NULL) {
			snprintf(err, errlen, "%s:%u: userfile: %s", p->path,
				 ub->userfile_line, uerr);
			return -1;
		}
		p->userfiles[b] = uf;
		if (uf->n < ub->n_users) {
			char shown[256];
			escape_text(shown, sizeof(shown), ub->userfile,
				    strlen(ub->userfile));
			snprintf(err, errlen, "%s:%u: userfile: %s has %u users, "
				 "but this block needs %u (count = %u%% of %u)",
				 p->path, ub->userfile_line, shown, uf->n,
				 ub->n_users, ub->count_pct, p->total_users);
			return -1;
		}
		for (unsigned i = 0; i < ub->n_users; i++) {
			struct profile_user *u = &p->u[first + i];
			u->name = xstrdup(uf->e[i].user);
			u->pass = uf->e[i].pass;
			u->index = i + 1;
		}
		return 0;
	}
	if ((uint64_t)ub->start_index + ub->n_users > UINT32_MAX) {
		snprintf(err, errlen, "%s:%u: username_start_index: %u plus %u "
			 "users overflows", p->path, ub->line, ub->start_index,
			 ub->n_users);
		return -1;
	}
	for (unsigned i = 0; i < ub->n_users; i++) {
		struct profile_user *u = &p->u[first + i];
		u->index = ub->start_index + i;
		size_t need = profile_template_expand(&ub->username, u->index,
						      buf, sizeof(buf));
		if (need >= sizeof(buf)) {
			snprintf(err, errlen, "%s:%u: username_format: user "
				 "names longer than %zu bytes", p->path,
				 ub->line, sizeof(buf) - 1);
			return -1;
		}
		u->name = xstrdup(buf);
	}
	return 0;
}

/* Two user blocks that give the same name give one user, as imaptest's
 * user_get() does; the later block's settings win there (it overwrites
 * the user's profile), so the later one is kept here.  An open-addressing
 * set of plan indices, walked from the end. */
static void
drop_repeated_names(struct profile *p)
{
	size_t cap = 16;
	unsigned kept = 0;

	while (cap < (size_t)p->n_u * 2)
		cap *= 2;
	uint32_t *set = xcalloc(cap, sizeof(*set));	/* index + 1; 0 empty */
	bool *drop = xcalloc(p->n_u ? p->n_u : 1, sizeof(*drop));
	for (unsigned i = p->n_u; i-- > 0;) {
		size_t at = strhash(p->u[i].name) & (cap - 1);
		while (set[at] != 0 &&
		       strcmp(p->u[set[at] - 1].name, p->u[i].name) != 0)
			at = (at + 1) & (cap - 1);
		if (set[at] == 0)
			set[at] = i + 1;
		else
			drop[i] = true;
	}
	for (unsigned i = 0; i < p->n_u; i++) {
		if (!drop[i]) {
			p->u[kept++] = p->u[i];
			continue;
		}
		p->users[p->u[i].block].n_users--;
		free(p->u[i].name);
		p->n_repeated++;
	}
	p->n_u = kept;
	free(set);
	free(drop);
}

int
profile_expand(struct profile *p, uint64_t seed, char *err, size_t errlen)
{
	unsigned pct[PROFILE_MAX_BLOCKS] = { 0 }, shares[PROFILE_MAX_BLOCKS];
	unsigned first = 0;

	if (p->u != NULL) {
		snprintf(err, errlen, "%s: expanded twice", p->path);
		return -1;
	}
	p->n_u = p->total_users;
	p->u = xcalloc(p->n_u, sizeof(*p->u));
	for (unsigned b = 0; b < p->n_user_blocks; b++)
		pct[b] = p->users[b].count_pct;
	apportion(p->total_users, pct, p->n_user_blocks, shares);
	for (unsigned b = 0; b < p->n_user_blocks; b++) {
		p->users[b].n_users = shares[b];
		for (unsigned i = 0; i < shares[b]; i++)
			p->u[first + i].block = b;
		if (name_block_users(p, b, first, err, errlen) < 0)
			return -1;
		first += shares[b];
	}

	drop_repeated_names(p);
	for (unsigned c = 0; c < p->n_client_blocks; c++)
		pct[c] = p->clients[c].count_pct;
	apportion(p->n_u, pct, p->n_client_blocks, shares);
	first = 0;
	for (unsigned c = 0; c < p->n_client_blocks; c++) {
		p->clients[c].n_users = shares[c];
		for (unsigned i = 0; i < shares[c]; i++)
			p->u[first + i].client = c;
		first += shares[c];
	}
	/* Exact shares per client kind, spread over the users (and so over
	 * the user blocks) at random: Fisher-Yates on the kinds. */
	struct rng r;
	rng_seed(&r, seed, PROFILE_RNG_STREAM);
	for (unsigned i = p->n_u; i > 1; i--) {
		unsigned j = rng_below(&r, i);
		unsigned t = p->u[i - 1].client;
		p->u[i - 1].client = p->u[j].client;
		p->u[j].client = t;
	}
	return 0;
}

uint64_t
profile_jitter_us(struct rng *r, uint64_t n_us)
{
	if (n_us == 0)
		return 0;
	/* Box-Muller; 1 - u keeps the log's argument in (0, 1]. */
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);
	double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
	double v = (double)n_us + z * (double)n_us / 2.0;
	/* Symmetric clamp: the mean stays n. */
	if (v < 0)
		v = 0;
	if (v > 2.0 * (double)n_us)
		v = 2.0 * (double)n_us;
	return (uint64_t)(v + 0.5);
}

uint64_t
profile_start_offset_us(const struct profile *p, unsigned i, unsigned n)
{
	if (n == 0 || p->rampup_us == 0)
		return 0;
	return (uint64_t)((double)p->rampup_us * (double)(i + 1) / (double)n);
}

static double
per_hour(uint64_t interval_us)
{
	return interval_us == 0 ? 0 : 3600e6 / (double)interval_us;
}

double
profile_deliveries_per_hour(const struct profile *p)
{
	double sum = 0;

	for (unsigned b = 0; b < p->n_user_blocks; b++) {
		const struct profile_user_block *ub = &p->users[b];
		sum += ub->n_users * (per_hour(ub->inbox_delivery_us) +
				      per_hour(ub->spam_delivery_us));
	}
	return sum;
}

/* "never", "500 ms", "10 s", "3 min", "2 hours" */
static const char *
dur(char *buf, size_t n, uint64_t us, const char *zero)
{
	if (us == 0)
		snprintf(buf, n, "%s", zero);
	else if (us % 3600000000ULL == 0)
		snprintf(buf, n, "%llu hour%s", (unsigned long long)(us / 3600000000ULL),
			 us == 3600000000ULL ? "" : "s");
	else if (us % 60000000ULL == 0)
		snprintf(buf, n, "%llu min", (unsigned long long)(us / 60000000ULL));
	else if (us % 1000000ULL == 0)
		snprintf(buf, n, "%llu s", (unsigned long long)(us / 1000000ULL));
	else
		snprintf(buf, n, "%.3f s", (double)us / 1e6);
	return buf;
}

/* "every 5 s" or "never" */
static const char *
every(char *buf, size_t n, uint64_t us)
{
	char d[32];

	if (us == 0)
		snprintf(buf, n, "never");
	else
		snprintf(buf, n, "every %s", dur(d, sizeof(d), us, ""));
	return buf;
}

/* Names from a userfile may hold anything: never raw to a terminal. */
static const char *
safe(char *buf, size_t n, const char *s)
{
	escape_text(buf, n, s, strlen(s));
	return buf;
}

static void
print_user_block(const struct profile *p, unsigned b, unsigned first,
		 FILE *out)
{
	const struct profile_user_block *ub = &p->users[b];
	char d1[48], d2[48], d3[48], d4[48], n1[128], n2[128];

	fprintf(out, "user %s (line %u): %u users (count = %u%%)", ub->name[0] ?
		ub->name : "(unnamed)", ub->line, ub->n_users, ub->count_pct);
	if (ub->n_users > 0)
		fprintf(out, ", %s .. %s%s\n",
			safe(n1, sizeof(n1), p->u[first].name),
			safe(n2, sizeof(n2), p->u[first + ub->n_users - 1].name),
			ub->userfile ? " (from the userfile)" : "");
	else
		fputc('\n', out);
	fprintf(out, "  INBOX delivery %s, Spam delivery %s\n",
		every(d1, sizeof(d1), ub->inbox_delivery_us),
		every(d2, sizeof(d2), ub->spam_delivery_us));
	fprintf(out, "  action delay %s, repeat %s; session %s; send %s "
		"(writing %s)\n",
		dur(d1, sizeof(d1), ub->action_delay_us, "0"),
		dur(d2, sizeof(d2), ub->action_repeat_us, "0"),
		dur(d3, sizeof(d3), ub->session_length_us, "unlimited"),
		every(d4, sizeof(d4), ub->send_interval_us),
		dur(n1, sizeof(n1), ub->write_duration_us, "0"));
	double del, mv, rep;
	profile_action_shares(ub, &del, &mv, &rep);
	fprintf(out, "  of new INBOX mail: move at once (filter) %u%%; of the "
		"rest, read, then delete %.4g%%, move %.4g%%, reply %.4g%% "
		"(imaptest's order: delete %u, else move %u, else reply %u)\n",
		ub->move_filter_pct, del * 100, mv * 100, rep * 100,
		ub->delete_pct, ub->move_pct, ub->reply_pct);
	double in = ub->n_users * per_hour(ub->inbox_delivery_us);
	double sp = ub->n_users * per_hour(ub->spam_delivery_us);
	fprintf(out, "  deliveries expected: %.0f/hour (INBOX %.0f, Spam %.0f)\n",
		in + sp, in, sp);
	fprintf(out, "  client kinds:");
	for (unsigned c = 0; c < p->n_client_blocks; c++) {
		unsigned k = 0;
		for (unsigned i = 0; i < ub->n_users; i++)
			k += p->u[first + i].client == c;
		fprintf(out, " %s %u", p->clients[c].name[0] ? p->clients[c].name
			: "(unnamed)", k);
	}
	fputc('\n', out);
}

void
profile_print_plan(const struct profile *p, FILE *out)
{
	char d1[48];
	unsigned first = 0;

	char path[512];
	fprintf(out, "profile %s: %u users, LMTP port %u (%s%u sessions), "
		"ramp-up %s\n", safe(path, sizeof(path), p->path),
		p->n_u, p->lmtp_port,
		p->lmtp_max_parallel ? "at most " : "unlimited: ",
		p->lmtp_max_parallel, dur(d1, sizeof(d1), p->rampup_us, "none"));
	if (p->n_repeated > 0)
		fprintf(out, "  %u of total_user_count = %u repeat a name of a "
			"later user block: one user each, with the later "
			"block's settings (as imaptest)\n", p->n_repeated,
			p->total_users);
	if (p->msg_sizes.n > 0) {
		char spec[MSG_SIZES_MAX * 24];
		msg_sizes_format(&p->msg_sizes, spec, sizeof(spec));
		fprintf(out, "message sizes (msg_sizes, unless the command line "
			"gives --msg-sizes, mbox= or random_msg_size=): %s\n",
			spec);
	}
	if (p->lmtp_host != NULL)
		fprintf(out, "LMTP on %s (not the IMAP host)\n", p->lmtp_host);
	if (p->pop3_host != NULL)
		fprintf(out, "POP3 on %s (not the IMAP host)\n", p->pop3_host);
	if (p->submission_port != 0)
		fprintf(out, "users send by submission to %s port %u, %sAUTH %s, "
			"%u recipient%s a message\n",
			p->submission_host ? p->submission_host : "the IMAP host",
			p->submission_port, p->submission_tls ? "STARTTLS, " : "",
			profile_submit_auth_name(p->submission_auth),
			p->submission_rcpts ? p->submission_rcpts : 1,
			p->submission_rcpts > 1 ? "s" : "");
	for (unsigned b = 0; b < p->n_user_blocks; b++) {
		print_user_block(p, b, first, out);
		first += p->users[b].n_users;
	}
	for (unsigned c = 0; c < p->n_client_blocks; c++) {
		const struct profile_client_block *cb = &p->clients[c];
		if (cb->protocol == PROFILE_PROTO_POP3) {
			/* imaptest's POP3 client: a visit, then the next
			 * login_interval after its end. */
			fprintf(out, "client %s (line %u): %u users (count = "
				"%u%%), POP3 on port %u: RETR new mail%s, QUIT, "
				"log in again %s after\n",
				cb->name[0] ? cb->name : "(unnamed)", cb->line,
				cb->n_users, cb->count_pct,
				p->pop3_port ? p->pop3_port : PROFILE_POP3_PORT_DEFAULT,
				cb->pop3_keep_mails ? " (kept: no DELE)" : ", DELE it",
				dur(d1, sizeof(d1), cb->login_interval_us, "at once"));
			continue;
		}
		if (cb->connection_max == 0) {
			fprintf(out, "client %s (line %u): %u users (count = "
				"%u%%), connection_max_count = 0: no IMAP "
				"client (LMTP deliveries only)\n",
				cb->name[0] ? cb->name : "(unnamed)", cb->line,
				cb->n_users, cb->count_pct);
			continue;
		}
		fprintf(out, "client %s (line %u): %u users (count = %u%%), %u "
			"connection%s each, IDLE %s, log in %s\n",
			cb->name[0] ? cb->name : "(unnamed)", cb->line,
			cb->n_users, cb->count_pct, cb->connection_max,
			cb->connection_max > 1 ? "s" : "",
			cb->push == PROFILE_PUSH_NOTIFY ? "no (NOTIFY SET "
			"instead, push = notify)" :
			cb->imap_idle ? "yes" : "no (NOOP polling)",
			cb->login_interval_us ? every(d1, sizeof(d1),
						      cb->login_interval_us)
			: "once (stays logged in)");
		fprintf(out, "  fetch at once: %s\n  fetch to read: %s\n",
			cb->fetch_immediate ? cb->fetch_immediate : "(none)",
			cb->fetch_manual ? cb->fetch_manual : "(none)");
		if (cb->status_interval_us > 0)
			fprintf(out, "  imap_status_interval %s: read and not "
				"used (imaptest does not use it either)\n",
				dur(d1, sizeof(d1), cb->status_interval_us, ""));
	}
	double h = profile_deliveries_per_hour(p);
	fprintf(out, "deliveries expected in all: %.0f/hour (%.2f/s)\n", h,
		h / 3600.0);
	profile_loadsim_print(p, out);
}
