/* init_report.c: progress, check and summary of `imapstress init`
 * (init_report.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "init/init_report.h"
#include "util/units.h"
#include "util/xmalloc.h"

static void
fmt_hms(char *buf, size_t n, double s)
{
	unsigned long t = s < 0 ? 0 : (unsigned long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
}

void
init_progress_format(char *buf, size_t n, const struct init_progress *p)
{
	char eta[32] = "?";

	if (p->users_done > 0 && p->users_done <= p->users_total)
		fmt_hms(eta, sizeof(eta), p->elapsed_s / (double)p->users_done *
			(double)(p->users_total - p->users_done));
	snprintf(buf, n, "init: %llu/%llu users, %llu messages appended "
		 "(%.0f/s), ETA %s", (unsigned long long)p->users_done,
		 (unsigned long long)p->users_total,
		 (unsigned long long)p->appended, p->msgs_per_sec, eta);
}

static const char *
user_name(const struct init_results *r, unsigned u, char *buf, size_t n)
{
	const char *name = r->names[u] != NULL ? r->names[u] : "?";

	escape_text(buf, n, name, strlen(name));
	return buf;
}

/* One line, while under max_lines; counted either way. */
static void
say(FILE *out, unsigned *lines, unsigned max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void
say(FILE *out, unsigned *lines, unsigned max, const char *fmt, ...)
{
	va_list ap;

	if ((*lines)++ >= max)
		return;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

void
init_report(FILE *out, const struct init_spec *s, const struct init_results *r,
	    double secs, unsigned max_lines, struct init_tally *t)
{
	unsigned lines = 0;
	char name[160], why[320], size[32];

	memset(t, 0, sizeof(*t));
	for (unsigned u = 0; u < r->n_users; u++) {
		unsigned char st = atomic_load(&r->state[u]);
		if (st == INIT_U_PENDING) {
			t->users_pending++;
			t->users_bad++;
			say(out, &lines, max_lines, "init: %s: not done (the run "
			    "ended first)\n", user_name(r, u, name, sizeof(name)));
			continue;
		}
		if (st == INIT_U_FAILED) {
			t->users_failed++;
			t->users_bad++;
			const char *e = r->err[u] != NULL ? r->err[u] : "?";
			escape_text(why, sizeof(why), e, strlen(e));
			say(out, &lines, max_lines, "init: %s: failed: %s\n",
			    user_name(r, u, name, sizeof(name)), why);
			continue;
		}
		bool bad = false;
		for (unsigned f = 0; f < s->n; f++) {
			uint32_t h = r->have[(size_t)u * r->n_folders + f];
			struct init_have hv = { h != INIT_HAVE_NONE,
						h == INIT_HAVE_NONE ? 0 : h };
			switch (init_verdict(&s->f[f], &hv)) {
			case INIT_OK:
				break;
			case INIT_MORE:
				t->folders_more++;
				break;
			case INIT_FEWER:
				t->folders_fewer++;
				bad = true;
				say(out, &lines, max_lines, "init: %s: %s holds "
				    "%u of %u messages\n",
				    user_name(r, u, name, sizeof(name)),
				    s->f[f].name, h, s->f[f].want);
				break;
			case INIT_MISSING:
				t->folders_missing++;
				bad = true;
				say(out, &lines, max_lines, "init: %s: %s does not "
				    "exist\n", user_name(r, u, name, sizeof(name)),
				    s->f[f].name);
				break;
			}
		}
		if (bad)
			t->users_bad++;
		else
			t->users_ok++;
	}
	if (lines > max_lines)
		fprintf(out, "init: ... and %u more such lines\n",
			lines - max_lines);
	units_fmt_size(size, sizeof(size), atomic_load(&r->bytes));
	fprintf(out, "init: %u users in %.1f s: %llu folders created, %llu "
		"messages appended (%s) in %llu APPEND commands\n", r->n_users,
		secs, (unsigned long long)atomic_load(&r->created),
		(unsigned long long)atomic_load(&r->appended), size,
		(unsigned long long)atomic_load(&r->append_cmds));
	if (r->trim)
		fprintf(out, "init: --trim: %llu messages of our own past the "
			"table expunged\n",
			(unsigned long long)atomic_load(&r->trimmed));
	if (t->users_bad == 0)
		fprintf(out, "init: check: every folder of all %u users holds "
			"what was asked (%u folders, %llu messages each)\n",
			r->n_users, s->n, (unsigned long long)s->msgs_per_user);
	else
		fprintf(out, "init: check FAILED: %u of %u users do not hold "
			"what was asked (%u folders short, %u missing, %u "
			"users failed, %u not done)\n", t->users_bad,
			r->n_users, t->folders_fewer, t->folders_missing,
			t->users_failed, t->users_pending);
	if (t->folders_more > 0)
		fprintf(out, "init: note: %u folders hold more than asked (init "
			"never deletes)\n", t->folders_more);
}

int
init_report_json(const char *path, const struct init_spec *s,
		 const struct init_results *r, const struct init_tally *t,
		 double secs)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fprintf(f, "{\"type\":\"init\",\"users\":%u,\"folders_per_user\":%u,"
		"\"messages_per_user\":%llu,\"mean_size\":%llu,"
		"\"created\":%llu,\"appended\":%llu,\"appended_bytes\":%llu,"
		"\"append_commands\":%llu,\"trimmed\":%llu,"
		"\"users_ok\":%u,\"users_bad\":%u,\"users_failed\":%u,"
		"\"users_not_done\":%u,\"folders_short\":%u,"
		"\"folders_missing\":%u,\"folders_more\":%u,\"secs\":%.3f}\n",
		r->n_users, s->n, (unsigned long long)s->msgs_per_user,
		(unsigned long long)s->msg_size,
		(unsigned long long)atomic_load(&r->created),
		(unsigned long long)atomic_load(&r->appended),
		(unsigned long long)atomic_load(&r->bytes),
		(unsigned long long)atomic_load(&r->append_cmds),
		(unsigned long long)atomic_load(&r->trimmed), t->users_ok,
		t->users_bad, t->users_failed, t->users_pending,
		t->folders_fewer, t->folders_missing, t->folders_more, secs);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}
