/* learn_profile.c: the learned profile, in imaptest's profile format as
 * `imapstress --profile` reads it (man page, PROFILE MODE): one user
 * block and one client block per way of waiting for mail (IDLE or not).
 * Times need logs with times; a key that could not be learned is left
 * out (its default applies) and a comment says why. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "learn/learn_int.h"
#include "learn/learn_write.h"

static void
duration(FILE *f, const char *key, double secs, const char *why)
{
	if (secs > 0 && secs < 365.0 * 86400)
		fprintf(f, "  %s = %.0f ms\n", key, ceil(secs * 1000));
	else
		fprintf(f, "  # %s: not learned (%s)\n", key, why);
}

static int
share(uint64_t a, uint64_t b)
{
	if (b == 0)
		return 0;
	uint64_t p = (200 * a + b) / (2 * b);
	return p > 100 ? 100 : (int)p;
}

/* The profile parser takes FETCH items with balanced () and [], no
 * quotes or backslashes: the normalized sets qualify, but check. */
static bool
items_ok(const char *s)
{
	int par = 0, br = 0;
	if (*s == '\0' || strlen(s) > 1000)
		return false;
	for (; *s; s++) {
		par += *s == '(' ? 1 : *s == ')' ? -1 : 0;
		br += *s == '[' ? 1 : *s == ']' ? -1 : 0;
		if (par < 0 || br < 0 || *s == '"' || *s == '\\' || *s == '?')
			return false;
	}
	return par == 0 && br == 0;
}

static void
items(FILE *f, const char *key, const struct lnames *t)
{
	int top = lnames_top(t);
	if (top >= 0 && items_ok(t->v[top]))
		fprintf(f, "  %s = %s\n", key, t->v[top]);
	else
		fprintf(f, "  # %s: not learned (no such FETCH seen)\n", key);
}

static void
client_block(const struct learn *l, FILE *f, const char *name, int count,
	     bool idle, double login_gap)
{
	fprintf(f, "\nclient %s {\n  count = %d%%\n  imap_idle = %s\n", name,
		count, idle ? "yes" : "no");
	items(f, "imap_fetch_immediate", &l->new_items);
	items(f, "imap_fetch_manual", &l->read_items);
	duration(f, "login_interval", login_gap,
		 "no user seen in two sessions with times");
	fprintf(f, "}\n");
}

int
learn_write_profile(const struct learn *l, const char *path)
{
	FILE *f = learn_open_out(path);
	if (f == NULL)
		return -1;
	size_t users = l->users.n ? l->users.n : 1;
	/* The hours the logs cover, summed over users. */
	double user_secs = 0;
	for (size_t u = 0; u < users && u < l->user_cap; u++)
		if (l->user_first[u] >= 0 && l->user_last[u] > l->user_first[u])
			user_secs += l->user_last[u] - l->user_first[u];
	fprintf(f, "# imapstress learn: a profile learned from %llu sessions "
		"of %zu users (%llu with times)\n",
		(unsigned long long)l->sessions, l->users.n,
		(unsigned long long)l->timed_sessions);
	if (user_secs > 0)
		fprintf(f, "# sessions per user per hour: %.2f\n",
			(double)l->sessions / (user_secs / 3600.0));
	fprintf(f, "# new mail seen: %llu, of it read: %d%%\n",
		(unsigned long long)l->new_mail, share(l->read, l->new_mail));
	fprintf(f, "# think time between commands: median %.0f ms\n",
		lhist_quantile(&l->think_us, 0.5) / 1000);
	fprintf(f, "# an IDLE lasted: median %.0f ms\n",
		lhist_quantile(&l->idle_us, 0.5) / 1000);
	learn_write_folders(l, f);
	if (l->lmtp_port == 0)
		fprintf(f, "# lmtp_port: not in IMAP logs; set your server's "
			"(or learn --lmtp-port)\n");
	fprintf(f, "lmtp_port = %u\n", l->lmtp_port ? l->lmtp_port : 24);
	fprintf(f, "total_user_count = %zu\n", users);
	char spec[LEARN_SIZES_SPEC];
	if (learn_sizes_of(l, spec, sizeof(spec)) == 0)
		fprintf(f, "msg_sizes = %s\n", spec);
	fprintf(f, "\nuser learned {\n  count = 100%%\n"
		"  username_format = user%%{username_idx}\n");
	duration(f, "mail_session_length",
		 l->session_us.n ? lhist_mean(&l->session_us) / 1e6 : 0,
		 "no session with times");
	duration(f, "mail_inbox_delivery_interval",
		 l->new_mail ? user_secs / (double)l->new_mail : 0,
		 "no new mail seen over time");
	/* A reply is saved to Sent too: new mail written is the rest. */
	uint64_t sends = l->sent > l->replied ? l->sent - l->replied : 0;
	duration(f, "mail_send_interval",
		 sends ? user_secs / (double)sends : 0,
		 "no APPEND to Sent beyond the replies seen over time");
	double think = lhist_quantile(&l->think_us, 0.5) / 1e6;
	duration(f, "mail_action_delay",
		 l->action_delay_us.n ? lhist_mean(&l->action_delay_us) / 1e6 : 0,
		 "no new mail read, with times");
	duration(f, "mail_action_repeat_delay", think, "no times");
	uint64_t base = l->read ? l->read : l->new_mail;
	fprintf(f, "  mail_inbox_reply_percentage = %d\n", share(l->replied, base));
	fprintf(f, "  mail_inbox_delete_percentage = %d\n", share(l->deleted, base));
	fprintf(f, "  mail_inbox_move_percentage = %d\n", share(l->moved, base));
	fprintf(f, "}\n");
	double gap = l->login_gaps ? l->login_gap_sum / (double)l->login_gaps : 0;
	int idle = share(l->idle_sessions, l->sessions);
	if (idle > 0)
		client_block(l, f, "idle", idle, true, gap);
	if (idle < 100)
		client_block(l, f, "poll", 100 - idle, false, gap);
	return learn_close_out(f, path);
}
