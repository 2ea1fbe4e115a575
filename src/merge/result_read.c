/* result_read.c: the reader side of result.h.  Strict: every line must be
 * one this version writes, every number whole and in range, every
 * histogram consistent with its buckets; anything else is refused with
 * the file and line, because a merge built on a damaged file would print
 * numbers nobody measured. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/result.h"
#include "merge/result_act.h"
#include "merge/result_tokens.h"
#include "util/xmalloc.h"

struct result_reader {
	FILE *f;
	char *path;
	unsigned long lineno;
	char *line;
	size_t cap;
	bool pending;		/* line holds a record start not yet used */
	bool ended;
	bool profile;		/* mode profile: its lines are allowed */
	unsigned long ticks;
	char stop_reason[64];
	struct result_header h;
};

static int
fail(struct result_reader *r, char *err, size_t errlen, const char *what)
{
	if (r->lineno > 0)
		snprintf(err, errlen, "%s:%lu: %s", r->path, r->lineno, what);
	else
		snprintf(err, errlen, "%s: %s", r->path, what);
	return -1;
}

/* The next line without its newline; 0 at EOF, -1 for a line cut short
 * (no newline: the writer did not finish). */
static int
read_line(struct result_reader *r, char *err, size_t errlen)
{
	if (r->pending) {
		r->pending = false;
		return 1;
	}
	ssize_t n = getline(&r->line, &r->cap, r->f);
	if (n < 0)
		return 0;
	r->lineno++;
	if (r->line[n - 1] != '\n')
		return fail(r, err, errlen, "truncated (last line cut short)");
	r->line[n - 1] = '\0';
	if (memchr(r->line, '\0', (size_t)n - 1) != NULL)
		return fail(r, err, errlen, "not a text line");
	return 1;
}

static int
parse_header_line(struct result_reader *r, char *kw, char *rest,
		  char *err, size_t errlen)
{
	struct result_header *h = &r->h;
	char *k, *v;

	if (strcmp(kw, "program") == 0) {
		snprintf(h->program, sizeof(h->program), "%s", rest);
	} else if (strcmp(kw, "mode") == 0) {
		snprintf(h->mode, sizeof(h->mode), "%s", rest);
		if (strcmp(rest, "stress") != 0 &&
		    (strcmp(rest, "profile") != 0 || h->version < 2))
			return fail(r, err, errlen, "a mode this version cannot "
				    "merge (it knows stress, and profile from "
				    "version 2)");
	} else if (strcmp(kw, "profile") == 0 &&
		   strcmp(h->mode, "profile") == 0) {
		unsigned seen = 0;
		while ((k = result_next_pair(&rest, &v)) != NULL) {
			bool ok = v != NULL;
			if (ok && strcmp(k, "push_timeout_s") == 0)
				ok = result_parse_double(v, &h->push_timeout_s) &&
				    h->push_timeout_s > 0;
			else if (ok && strcmp(k, "path") == 0)
				ok = result_unescape(v) == 0 && *v != '\0' &&
				    strlen(v) < sizeof(h->profile_path);
			else
				ok = false;
			if (!ok)
				return fail(r, err, errlen, "bad profile line");
			if (strcmp(k, "path") == 0)
				snprintf(h->profile_path, sizeof(h->profile_path),
					 "%s", v);
			seen++;
		}
		if (seen != 2)
			return fail(r, err, errlen, "bad profile line");
	} else if (strcmp(kw, "shard") == 0) {
		char from[96];
		if (sscanf(rest, "%u %u %95s", &h->shard_index, &h->shard_count,
			   from) != 3 || h->shard_count == 0 ||
		    h->shard_index >= h->shard_count || result_unescape(from) < 0)
			return fail(r, err, errlen, "bad shard line");
		snprintf(h->shard_from, sizeof(h->shard_from), "%s", from);
	} else if (strcmp(kw, "args") == 0) {
		free(h->args_key);
		h->args_key = xstrdup(rest);
	} else if (strcmp(kw, "states") == 0) {
		while ((k = result_next_pair(&rest, &v)) != NULL) {
			int op = result_op_by_name(k);
			char *comma = v ? strchr(v, ',') : NULL;
			uint64_t p, a;
			if (comma != NULL)
				*comma = '\0';
			if (op < 0 || comma == NULL || !result_parse_u64(v, &p) ||
			    p > 100 || !result_parse_u64(comma + 1, &a) || a > 100)
				return fail(r, err, errlen, "bad states line");
			h->states[op].prob = (int)p;
			h->states[op].again = (int)a;
		}
	} else if (strcmp(kw, "report") == 0) {
		while ((k = result_next_pair(&rest, &v)) != NULL) {
			double *d = strcmp(k, "rate") == 0 ? &h->rate :
			    strcmp(k, "tick_percentile") == 0 ? &h->tick_percentile :
			    strcmp(k, "warmup_secs") == 0 ? &h->warmup_secs : NULL;
			if (d == NULL || v == NULL || !result_parse_double(v, d))
				return fail(r, err, errlen, "bad report line");
		}
	} else if (strcmp(kw, "sla") == 0) {
		if (h->n_slas == CONFIG_MAX_SLA)
			return fail(r, err, errlen, "too many sla lines");
		struct sla *s = &h->slas[h->n_slas++];
		unsigned seen = 0;
		while ((k = result_next_pair(&rest, &v)) != NULL) {
			bool ok = v != NULL;
			if (ok && strcmp(k, "op") == 0) {
				s->op = strcmp(v, "all") == 0 ? SLA_OP_ALL :
				    strcmp(v, "score") == 0 ? SLA_OP_SCORE :
				    result_op_by_name(v);
				ok = s->op >= 0 || s->op == SLA_OP_ALL ||
				    s->op == SLA_OP_SCORE;
			} else if (ok && strcmp(k, "percentile") == 0) {
				ok = result_parse_double(v, &s->percentile);
			} else if (ok && strcmp(k, "max_us") == 0) {
				ok = result_parse_u64(v, &s->max_us);
			} else if (ok && strcmp(k, "text") == 0) {
				ok = result_unescape(v) == 0;
				snprintf(s->text, sizeof(s->text), "%s", v);
			} else {
				ok = false;
			}
			if (!ok)
				return fail(r, err, errlen, "bad sla line");
			seen++;
		}
		if (seen != 4)
			return fail(r, err, errlen, "bad sla line");
	} else if (strcmp(kw, "server_watched") == 0) {
		if (*rest != '\0')
			return fail(r, err, errlen, "bad server_watched line");
		h->server_watched = true;
	} else if (strcmp(kw, "score_weights") == 0) {
		if (!result_parse_weights(rest, result_op_by_name, h->score_weights))
			return fail(r, err, errlen, "bad score_weights line");
		h->score_weights_set = true;
	} else if (strcmp(kw, "act_weights") == 0) {
		if (!result_parse_weights(rest, result_act_by_name, h->act_weights))
			return fail(r, err, errlen, "bad act_weights line");
		h->act_weights_set = true;
	} else if (strcmp(kw, "start") == 0) {
		if (!result_parse_u64(rest, &h->t0_wall_us))
			return fail(r, err, errlen, "bad start line");
	} else {
		return 1;	/* not a header line: the first record */
	}
	return 0;
}

struct result_reader *
result_reader_open(const char *path, char *err, size_t errlen)
{
	struct result_reader *r = xcalloc(1, sizeof(*r));
	unsigned version;
	char magic[32], extra;

	r->path = xstrdup(path);
	r->h.args_key = xstrdup("");
	r->f = fopen(path, "r");
	if (r->f == NULL) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto bad;
	}
	int n = read_line(r, err, errlen);
	if (n == 0)
		fail(r, err, errlen, "empty: not a result file");
	if (n <= 0)
		goto bad;
	if (sscanf(r->line, "%31s %u%c", magic, &version, &extra) != 2 ||
	    strcmp(magic, RESULT_MAGIC) != 0) {
		fail(r, err, errlen, "not an imapstress result file");
		goto bad;
	}
	if (version < 1 || version > RESULT_VERSION) {
		snprintf(err, errlen, "%s: result format version %u; this "
			 "imapstress (%s) reads versions 1 to %u", path, version,
			 imapstress_version, RESULT_VERSION);
		goto bad;
	}
	r->h.version = version;
	for (;;) {
		n = read_line(r, err, errlen);
		if (n < 0)
			goto bad;
		if (n == 0) {
			fail(r, err, errlen, "truncated (no records)");
			goto bad;
		}
		char *rest = r->line, *kw = strsep(&rest, " ");
		int hr = parse_header_line(r, kw, rest ? rest : (char *)"",
					   err, errlen);
		if (hr < 0)
			goto bad;
		if (hr > 0) {
			if (rest != NULL)
				rest[-1] = ' ';	/* strsep's cut, undone */
			r->pending = true;
			break;
		}
	}
	if (r->h.program[0] == '\0' || r->h.mode[0] == '\0' ||
	    r->h.shard_count == 0) {
		fail(r, err, errlen, "header without program, mode or shard line");
		goto bad;
	}
	if (strcmp(r->h.mode, "profile") == 0 && r->h.profile_path[0] == '\0') {
		fail(r, err, errlen, "mode profile without its profile line");
		goto bad;
	}
	r->profile = strcmp(r->h.mode, "profile") == 0;
	return r;
bad:
	result_reader_free(r);
	return NULL;
}

const struct result_header *
result_reader_header(const struct result_reader *r)
{
	return &r->h;
}

static int
parse_run(struct result_reader *r, char *rest, struct report_run *run,
	  char *err, size_t errlen)
{
	char *k, *v;
	unsigned seen = 0;

	memset(run, 0, sizeof(*run));
	while ((k = result_next_pair(&rest, &v)) != NULL) {
		if (v != NULL && strcmp(k, "stop_reason") == 0) {
			if (result_unescape(v) < 0)
				return fail(r, err, errlen, "bad stop_reason");
			snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", v);
			run->stop_reason = r->stop_reason;
			continue;
		}
		size_t i;
		for (i = 0; i < result_n_run_fields; i++)
			if (strcmp(result_run_fields[i].name, k) == 0)
				break;
		if (i == result_n_run_fields || v == NULL)
			return fail(r, err, errlen, "unknown run field");
		const struct result_field *rf = &result_run_fields[i];
		char *p = (char *)run + rf->off;
		uint64_t u;
		bool ok = rf->type == RF_DOUBLE ? result_parse_double(v, (double *)p) :
		    result_parse_u64(v, &u);
		if (rf->type == RF_UNSIGNED && ok && u <= UINT32_MAX)
			*(unsigned *)p = (unsigned)u;
		else if (rf->type == RF_BOOL && ok && u <= 1)
			*(bool *)p = u == 1;
		else if (rf->type == RF_U64 && ok)
			*(uint64_t *)p = u;
		else if (rf->type == RF_INT && ok && u <= 255)
			*(int *)p = (int)u;
		else if (rf->type != RF_DOUBLE || !ok)
			return fail(r, err, errlen, "bad run field value");
		seen++;
	}
	if (seen != result_n_run_fields)
		return fail(r, err, errlen, "run line without every field");
	return 0;
}

static int
parse_hist(struct result_reader *r, char *rest, struct stats_snap *s,
	   char *err, size_t errlen)
{
	char *name = strsep(&rest, " "), *k, *v;
	uint64_t n = 0, sum = 0, mn = 0, mx = 0, *lat_sum = NULL;
	bool have_b = false;

	/* "hist" alone: strsep of a NULL rest is NULL (the fuzzer's find) */
	if (name == NULL)
		return fail(r, err, errlen, "histogram line without a name");
	struct hist *h = strcmp(name, "tls") == 0 ? s->tls_lat :
	    strcmp(name, "connect") == 0 ? s->connect_lat : NULL;
	if (h == NULL && r->profile)
		h = act_snap_hist_named(&s->act, name);
	if (h == NULL) {
		int op = result_op_by_name(name);
		if (op < 0)
			return fail(r, err, errlen, "histogram of an unknown command");
		h = s->lat[op];
		lat_sum = &s->lat_sum_us[op];	/* the files carry no sums */
	}
	if (hist_count(h) != 0)
		return fail(r, err, errlen, "histogram given twice");
	while (rest != NULL && (k = result_next_pair(&rest, &v)) != NULL) {
		uint64_t *dst = strcmp(k, "n") == 0 ? &n : strcmp(k, "sum") == 0 ?
		    &sum : strcmp(k, "min") == 0 ? &mn : strcmp(k, "max") == 0 ?
		    &mx : NULL;
		if (v != NULL && dst != NULL && result_parse_u64(v, dst))
			continue;
		if (v == NULL || strcmp(k, "b") != 0)
			return fail(r, err, errlen, "bad histogram field");
		have_b = true;
		for (char *b; (b = strsep(&v, ",")) != NULL; ) {
			char *colon = strchr(b, ':');
			uint64_t idx, c;
			if (colon == NULL)
				return fail(r, err, errlen, "bad histogram bucket");
			*colon = '\0';
			if (!result_parse_u64(b, &idx) || !result_parse_u64(colon + 1, &c) ||
			    idx >= HIST_N_BUCKETS ||
			    hist_load_bucket(h, (unsigned)idx, c) < 0)
				return fail(r, err, errlen, "bad histogram bucket");
		}
	}
	if (!have_b || hist_count(h) != n ||
	    hist_load_end(h, sum, mn, mx) < 0)
		return fail(r, err, errlen, "histogram scalars do not match its "
			    "buckets");
	if (lat_sum != NULL)
		*lat_sum = sum;
	return 0;
}

/* Profile mode's counter lines; 1 when kw is not one of them. */
static int
parse_act_line(struct result_reader *r, char *kw, char *rest,
	       struct act_snap *a, char *err, size_t errlen)
{
	const char *why = NULL;
	int n = result_act_line(a, kw, rest, &why);

	return n < 0 ? fail(r, err, errlen, why) : n;
}


static int
parse_snap_line(struct result_reader *r, char *kw, char *rest,
		struct stats_snap *s, char *err, size_t errlen)
{
	char *k, *v;
	uint64_t x;

	if (strcmp(kw, "hist") == 0)
		return parse_hist(r, rest, s, err, errlen);
	if (r->profile) {
		int n = parse_act_line(r, kw, rest, &s->act, err, errlen);
		if (n <= 0)
			return n;
	}
	if (strcmp(kw, "op") == 0) {
		int op = result_op_by_name(strsep(&rest, " "));
		if (op < 0)
			return fail(r, err, errlen, "counts of an unknown command");
		while (rest != NULL && (k = result_next_pair(&rest, &v)) != NULL) {
			uint64_t *d = strcmp(k, "ok") == 0 ? &s->ok[op] :
			    strcmp(k, "no") == 0 ? &s->no[op] :
			    strcmp(k, "bad") == 0 ? &s->bad[op] :
			    strcmp(k, "failed") == 0 ? &s->failed[op] : NULL;
			if (d == NULL || v == NULL || !result_parse_u64(v, d))
				return fail(r, err, errlen, "bad op field");
		}
		return 0;
	}
	bool is_err = strcmp(kw, "err") == 0;
	bool is_benign = strcmp(kw, "benign") == 0;
	bool is_state = strcmp(kw, "state") == 0;
	if (!is_err && !is_benign && !is_state && strcmp(kw, "ctr") != 0)
		return fail(r, err, errlen, "unknown line");
	while (rest != NULL && (k = result_next_pair(&rest, &v)) != NULL) {
		uint64_t *d = NULL;
		if (is_err) {
			for (int e = 0; e < ERR_COUNT; e++)
				if (strcmp(err_kind_name[e], k) == 0)
					d = &s->errors[e];
		} else if (is_benign) {
			for (int b = 0; b < BENIGN_COUNT; b++)
				if (strcmp(benign_code_name[b], k) == 0)
					d = &s->benign[b];
		} else if (is_state) {
			for (int m = 0; m < MBOX_ERR_COUNT; m++)
				if (strcmp(mbox_err_name((enum mbox_err)m),
					   k) == 0)
					d = &s->state[m];
		}
#define X(f) else if (strcmp(k, #f) == 0) d = &s->f;
		if (is_err || is_benign || is_state) {}
		STATS_COUNTERS(X)
		STATS_SUM_GAUGES(X)
		X(loop_lag_max_us)
#undef X
		/* written as a counter of its own before the state line */
		else if (strcmp(k, "state_unannounced") == 0)
			d = &s->state[MBOX_ERR_UNANNOUNCED];
		if (d == NULL || v == NULL || !result_parse_u64(v, &x))
			return fail(r, err, errlen, is_err ? "unknown error kind" :
				    is_benign ? "unknown benign code" :
				    is_state ? "unknown state error kind" :
				    "unknown counter");
		*d = x;
	}
	return 0;
}

int
result_reader_next(struct result_reader *r, enum result_rec *kind,
		   int64_t *second, struct report_run *run,
		   struct stats_snap *snap, char *err, size_t errlen)
{
	if (result_reader_peek(r, kind, second, err, errlen) < 0)
		return -1;
	if (r->ended)
		return 0;
	r->pending = false;	/* the record's first line is taken here */
	char *rest = r->line, *kw = strsep(&rest, " ");
	uint64_t x;
	if (strcmp(kw, "end") == 0) {
		if (rest == NULL || strncmp(rest, "ticks=", 6) != 0 ||
		    !result_parse_u64(rest + 6, &x) || x != r->ticks)
			return fail(r, err, errlen, "end line does not match the "
				    "ticks read");
		if (read_line(r, err, errlen) != 0)
			return fail(r, err, errlen, "data after the end line");
		r->ended = true;
		*kind = RESULT_END;
		return 0;
	}
	if (*kind == RESULT_TICK)
		r->ticks++;
	else if (*kind != RESULT_FINAL)
		return fail(r, err, errlen, "expected tick, final or end");
	if (read_line(r, err, errlen) <= 0)
		return fail(r, err, errlen, "truncated (record cut short)");
	rest = r->line;
	kw = strsep(&rest, " ");
	if (strcmp(kw, "run") != 0 ||
	    parse_run(r, rest ? rest : (char *)"", run, err, errlen) < 0)
		return strcmp(kw, "run") != 0 ?
		    fail(r, err, errlen, "record without its run line") : -1;
	stats_snap_clear(snap);
	for (;;) {
		int n = read_line(r, err, errlen);
		if (n < 0)
			return -1;
		if (n == 0)
			return fail(r, err, errlen, "truncated (no end line)");
		rest = r->line;
		kw = strsep(&rest, " ");
		if (strcmp(kw, "tick") == 0 || strcmp(kw, "final") == 0 ||
		    strcmp(kw, "end") == 0) {
			if (rest != NULL)
				rest[-1] = ' ';
			r->pending = true;
			return 0;
		}
		if (parse_snap_line(r, kw, rest, snap, err, errlen) < 0)
			return -1;
	}
}

int
result_reader_peek(struct result_reader *r, enum result_rec *kind,
		   int64_t *second, char *err, size_t errlen)
{
	*kind = RESULT_END;
	if (r->ended)
		return 0;
	int n = read_line(r, err, errlen);
	if (n < 0)
		return -1;
	if (n == 0)
		return fail(r, err, errlen, "truncated (no end line)");
	r->pending = true;
	if (strncmp(r->line, "tick ", 5) == 0) {
		char *end;
		errno = 0;
		*second = strtoll(r->line + 5, &end, 10);
		if (*end != '\0' || errno != 0)
			return fail(r, err, errlen, "bad tick line");
		*kind = RESULT_TICK;
	} else if (strcmp(r->line, "final") == 0) {
		*kind = RESULT_FINAL;
	}
	return 0;
}

void
result_reader_free(struct result_reader *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	free(r->line);
	free(r->path);
	free(r->h.args_key);
	free(r);
}
