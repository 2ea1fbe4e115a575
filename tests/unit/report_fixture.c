/* report_fixture.c: see report_fixture.h. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "report_fixture.h"

void
seed_config(struct config *cfg)
{
	config_defaults(cfg);
	for (int op = 0; op < OP_COUNT; op++)
		cfg->states[op].prob = 0;
	cfg->states[OP_LOGIN].prob = 100;
	cfg->states[OP_APPEND].prob = 100;
	cfg->clients = 100;
}

void
memout_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
}

const char *
memout_text(struct memout *m)
{
	fflush(m->f);
	return m->buf;
}

void
memout_close(struct memout *m)
{
	fclose(m->f);
	free(m->buf);
}

void
seed_window(struct stats_snap *w, uint64_t logins, uint64_t appends,
	    uint64_t lat_us)
{
	stats_snap_clear(w);
	w->ok[OP_LOGIN] = logins;
	w->ok[OP_APPEND] = appends;
	if (lat_us > 0) {
		hist_record_n(w->lat[OP_APPEND], lat_us, appends);
		/* as stats_cmd records it: the histogram and the sum */
		w->lat_sum_us[OP_APPEND] = lat_us * appends;
	}
	w->append_msgs = appends;
	w->conns_open = 100;
	w->conns_total = 100;
}

struct report_run
plain_run(double t)
{
	struct report_run run = {
		.elapsed_s = t, .measured_s = t, .clients = 100, .workers = 1,
		.stop_reason = "duration",
	};
	return run;
}

const char *
line_at(const char *text, int n, char *buf, size_t len)
{
	const char *p = text;
	for (int i = 0; i < n && p != NULL; i++) {
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	if (p == NULL || *p == '\0')
		return NULL;
	size_t l = strcspn(p, "\n");
	if (l >= len)
		l = len - 1;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

bool
same_hist(const struct hist *a, const struct hist *b)
{
	unsigned i = 0, j = 0;
	uint64_t ca, cb;
	if (hist_count(a) != hist_count(b) || hist_sum(a) != hist_sum(b) ||
	    hist_min(a) != hist_min(b) || hist_max(a) != hist_max(b))
		return false;
	for (;;) {
		bool ma = hist_next_bucket(a, &i, &ca), mb = hist_next_bucket(b, &j, &cb);
		if (ma != mb)
			return false;
		if (!ma)
			return true;
		if (i != j || ca != cb)
			return false;
		i++;
		j++;
	}
}
