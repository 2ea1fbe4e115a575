/* users_report.c: what the profile run claims at its end (see users.h):
 * --profile-counts' JSON (per user, and the totals) and the log's totals,
 * summed from the users the run made. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lmtp/lmtp.h"
#include "stats/actions.h"
#include "stats/push_track.h"
#include "users/users_int.h"
#include "users/users_loadsim.h"
#include "users/users_settle.h"
#include "util/log.h"

/* A JSON string: user names come from files, so escape what needs it. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
counts_json(FILE *f, const struct ucounts *c)
{
	fprintf(f, "\"delivered\":{\"INBOX\":%llu,\"Spam\":%llu},"
		"\"appended\":{\"Drafts\":%llu,\"Sent\":%llu,\"Calendar\":%llu},"
		"\"expunged\":{\"INBOX\":%llu,\"Spam\":%llu,\"Drafts\":%llu,"
		"\"Sent\":%llu,\"Deleted\":%llu},\"moved_to_spam\":%llu,"
		"\"moved_to_deleted\":%llu,\"read\":%llu,"
		"\"replied\":%llu,\"sent\":%llu,\"deliver_failed\":%llu,"
		"\"pop3\":{\"sessions\":%llu,\"retrieved\":%llu,"
		"\"deleted\":%llu,\"delete_lost\":%llu}",
		(unsigned long long)c->delivered[UF_INBOX],
		(unsigned long long)c->delivered[UF_SPAM],
		(unsigned long long)c->appended[UF_DRAFTS],
		(unsigned long long)c->appended[UF_SENT],
		(unsigned long long)c->appended[UF_CALENDAR],
		(unsigned long long)c->expunged[UF_INBOX],
		(unsigned long long)c->expunged[UF_SPAM],
		(unsigned long long)c->expunged[UF_DRAFTS],
		(unsigned long long)c->expunged[UF_SENT],
		(unsigned long long)c->expunged[UF_DELETED],
		(unsigned long long)c->moved_to_spam,
		(unsigned long long)c->moved_to_deleted,
		(unsigned long long)c->read, (unsigned long long)c->replied,
		(unsigned long long)c->sent,
		(unsigned long long)c->deliver_failed,
		(unsigned long long)c->pop3_sessions,
		(unsigned long long)c->pop3_retrieved,
		(unsigned long long)c->pop3_deleted,
		(unsigned long long)c->pop3_delete_lost);
	fprintf(f, ",\"cached\":{\"compressed\":%llu,\"qresync_selects\":%llu,"
		"\"sync_fetches\":%llu,\"header_fetches\":%llu,"
		"\"vanished\":%llu}",
		(unsigned long long)c->cache.compressed,
		(unsigned long long)c->cache.qresync_selects,
		(unsigned long long)c->cache.sync_fetches,
		(unsigned long long)c->cache.header_fetches,
		(unsigned long long)c->cache.vanished);
	fprintf(f, ",\"loadsim\":{\"schedule_s\":%.3f",
		(double)c->ls.schedule_us / 1e6);
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		if (uls_stat(a) < 0)
			continue;
		fprintf(f, ",\"%s\":{\"started\":%llu,\"missed\":%llu,"
			"\"ok\":%llu,\"failed\":%llu}",
			action_name[uls_stat(a)],
			(unsigned long long)c->ls.started[a],
			(unsigned long long)c->ls.missed[a],
			(unsigned long long)c->ls.ok[a],
			(unsigned long long)c->ls.failed[a]);
	}
	fputc('}', f);
}

static void
counts_add(struct ucounts *a, const struct ucounts *b)
{
	for (unsigned f = 0; f < UF_COUNT; f++) {
		a->delivered[f] += b->delivered[f];
		a->appended[f] += b->appended[f];
		a->expunged[f] += b->expunged[f];
	}
	a->moved_to_spam += b->moved_to_spam;
	a->moved_to_deleted += b->moved_to_deleted;
	a->read += b->read;
	a->replied += b->replied;
	a->sent += b->sent;
	a->deliver_failed += b->deliver_failed;
	a->deliver_unready += b->deliver_unready;
	a->pop3_sessions += b->pop3_sessions;
	a->pop3_retrieved += b->pop3_retrieved;
	a->pop3_deleted += b->pop3_deleted;
	a->pop3_delete_lost += b->pop3_delete_lost;
	a->cache.compressed += b->cache.compressed;
	a->cache.qresync_selects += b->cache.qresync_selects;
	a->cache.sync_fetches += b->cache.sync_fetches;
	a->cache.header_fetches += b->cache.header_fetches;
	a->cache.vanished += b->cache.vanished;
	for (unsigned i = 0; i < LS_N_ACTIONS; i++) {
		a->ls.started[i] += b->ls.started[i];
		a->ls.missed[i] += b->ls.missed[i];
		a->ls.ok[i] += b->ls.ok[i];
		a->ls.failed[i] += b->ls.failed[i];
	}
	a->ls.schedule_us += b->ls.schedule_us;
}

int
users_write_counts(const struct users *r, const char *path, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "w");
	struct ucounts tot;
	struct upush_counts push_tot[PUSH_MECHS];

	if (f == NULL) {
		snprintf(err, errlen, "--profile-counts %s: %s", path,
			 strerror(errno));
		return -1;
	}
	memset(&tot, 0, sizeof(tot));
	memset(push_tot, 0, sizeof(push_tot));
	fprintf(f, "{\"users\":[");
	/* Only the users the run touched: the others have nothing. */
	bool first = true;
	for (unsigned i = 0; i < r->n_u; i++) {
		const struct user *u = r->users[i];
		if (u == NULL)
			continue;
		fprintf(f, "%s\n{\"user\":", first ? "" : ",");
		first = false;
		json_str(f, u->pu->name);
		fputc(',', f);
		counts_json(f, &u->cnt);
		upush_sum(f, &u->push_end, push_tot);
		fprintf(f, "}");
		counts_add(&tot, &u->cnt);
	}
	fprintf(f, "],\n\"deleted_folder\":");
	json_str(f, r->folder[UF_DELETED]);
	fprintf(f, ",\n\"totals\":{");
	counts_json(f, &tot);
	fprintf(f, ",\"push\":{");
	for (int m = 0; m < PUSH_MECHS; m++)
		fprintf(f, "%s\"%s\":{\"delivered\":%llu,\"announced\":%llu,"
			"\"unannounced\":%llu,\"dropped\":%llu,\"missed\":%llu}",
			m ? "," : "", push_mech_name[m],
			(unsigned long long)push_tot[m].delivered,
			(unsigned long long)push_tot[m].announced,
			(unsigned long long)push_tot[m].unannounced,
			(unsigned long long)push_tot[m].dropped,
			(unsigned long long)push_tot[m].missed);
	fprintf(f, "}}}\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "--profile-counts %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Sessions the server never greeted in time: with no limit each delivery
 * that finds no idle session opens one, and a server that starts one
 * process per session falls behind (Dovecot at load 20: 50 sessions
 * opened at once were greeted after 5.2 s at the median, 6.8 s at most),
 * so more are opened while they wait.  Said once, with the way out. */
static void
users_warn_unready(const struct users *r, uint64_t n)
{
	char limit[64];

	if (n == 0)
		return;
	if (r->p->lmtp_max_parallel == 0)
		snprintf(limit, sizeof(limit), "is unlimited");
	else
		snprintf(limit, sizeof(limit), "is %u", r->p->lmtp_max_parallel);
	log_warn("LMTP: %llu deliveries failed waiting for a new session's "
		 "greeting or LHLO reply (%d s): the server did not start "
		 "sessions as fast as they were opened; lmtp_max_parallel_count "
		 "%s (Dovecot's imaptest guide: about half the deliveries per "
		 "second)", (unsigned long long)n, LMTP_TIMEOUT_DEFAULT_S, limit);
}

void
users_log_totals(const struct users *r)
{
	struct ucounts t;

	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < r->n_u; i++)
		if (r->users[i] != NULL)
			counts_add(&t, &r->users[i]->cnt);
	log_info("profile: delivered INBOX %llu Spam %llu (%llu failed), "
		 "appended Drafts %llu Sent %llu, moved to Spam %llu, moved to "
		 "%s %llu, expunged INBOX %llu Drafts %llu %s %llu; read %llu "
		 "replied %llu sent %llu",
		 (unsigned long long)t.delivered[UF_INBOX],
		 (unsigned long long)t.delivered[UF_SPAM],
		 (unsigned long long)t.deliver_failed,
		 (unsigned long long)t.appended[UF_DRAFTS],
		 (unsigned long long)t.appended[UF_SENT],
		 (unsigned long long)t.moved_to_spam, r->folder[UF_DELETED],
		 (unsigned long long)t.moved_to_deleted,
		 (unsigned long long)t.expunged[UF_INBOX],
		 (unsigned long long)t.expunged[UF_DRAFTS], r->folder[UF_DELETED],
		 (unsigned long long)t.expunged[UF_DELETED],
		 (unsigned long long)t.read, (unsigned long long)t.replied,
		 (unsigned long long)t.sent);
	uint64_t due = 0, missed = 0;
	for (unsigned a = 0; a < LS_N_ACTIONS; a++) {
		due += t.ls.started[a] + t.ls.missed[a];
		missed += t.ls.missed[a];
	}
	/* Counts that came out low because the client fell behind must say
	 * so, not pass for the schedule's rate. */
	if (missed > 0)
		log_warn("LoadSim: %llu of %llu scheduled actions were still due "
			 "at the end (the client fell behind; --profile-counts "
			 "has them per action as \"missed\")",
			 (unsigned long long)missed, (unsigned long long)due);
	users_warn_unready(r, t.deliver_unready);
	upush_log(r);
}
