/* profile_loadsim.c: the LoadSim keys (profile_loadsim.h).  One table of
 * keys, each with its section, kind and place; the base parser
 * (profile_parse.c) hands over every key its own tables do not know. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "profile/profile_int.h"
#include "profile/profile_loadsim.h"
#include "util/units.h"

const char *const loadsim_action_name[LS_N_ACTIONS] = {
	"send_mail", "clean_inbox", "browse_mail", "free_busy",
	"meeting_request", "make_appointment", "browse_calendar", "journal",
	"log_off", "browse_contacts", "create_contact"
};

/* Whether the profile user driver performs action a: journal and the
 * contacts actions are in the format (and in the seed's tables) but not
 * yet in src/users/. */
static bool
ls_action_acted(unsigned a)
{
	return a != LS_JOURNAL && a != LS_BROWSE_CONTACTS &&
	    a != LS_CREATE_CONTACT;
}

/* Rates and counts are bounded so that a typo (an extra zero or three)
 * is an error, not a run that cannot keep up. */
_Static_assert(PROFILE_MAX_BLOCKS == 64, "profile_loadsim.h sizes its "
	       "per-block arrays for 64 blocks");
_Static_assert((int)LS_IN_USER == 1 && (int)LS_IN_CLIENT == 2,
	       "profile_parse.c passes its own section numbers");

#define LS_MAX_PER_DAY 100000.0
#define LS_MAX_COUNT 1000000u
#define LS_MAX_SIZE (64ull << 20)

enum ls_kind {
	LK_RATE,	/* double, user block: per_day[arg] */
	LK_RECEIVED,	/* double, user block */
	LK_SENT,	/* double, user block */
	LK_RCPT_MIN, LK_RCPT_AVG, LK_RCPT_MAX,	/* user block */
	LK_DELETED_MAX,	/* unsigned, user block */
	LK_DAY,		/* global durations */
	LK_COMPRESS,
	LK_DL,		/* global unsigned: distribution lists, arg 0..3 */
	LK_WEIGHT,	/* global double: weight[arg] */
	LK_INIT,	/* global: init table entry arg */
	LK_MODE		/* client block */
};

struct ls_key {
	enum ls_kind kind;
	unsigned arg;
	enum loadsim_where in;
	unsigned slot;		/* index into its section's seen[] */
};

static const char *const init_key_name[LS_INIT_N] = {
	"init_inbox_messages", "init_deleted_messages", "init_new_folders",
	"init_folder_messages", "init_calendar_appointments", "init_contacts",
	"init_message_size", "init_deleted_folder", "init_folder_prefix"
};

static const char *const dl_key_name[4] = {
	"distribution_lists", "distribution_list_min_size",
	"distribution_list_avg_size", "distribution_list_max_size"
};

/* The key named `name`, built from the lists above; false if none. */
static bool
ls_key_find(const char *name, struct ls_key *k)
{
	unsigned g = 0, u = 0;
	char buf[64];

	/* Each key gets the next slot of its section, matched or not. */
#define TRY(nm, kd, a, where, slotp) do {				\
		unsigned slot_ = (slotp);				\
		if (strcmp(name, (nm)) == 0) {				\
			k->kind = (kd); k->arg = (a); k->in = (where);	\
			k->slot = slot_;				\
			return true;					\
		}							\
	} while (0)
	for (unsigned i = 0; i < LS_N_ACTIONS; i++) {
		snprintf(buf, sizeof(buf), "%s_per_day", loadsim_action_name[i]);
		TRY(buf, LK_RATE, i, LS_IN_USER, u++);
		snprintf(buf, sizeof(buf), "score_weight_%s",
			 loadsim_action_name[i]);
		TRY(buf, LK_WEIGHT, i, LS_IN_ROOT, g++);
	}
	TRY("received_mail_per_day", LK_RECEIVED, 0, LS_IN_USER, u++);
	TRY("sent_mail_per_day", LK_SENT, 0, LS_IN_USER, u++);
	TRY("send_recipients_min", LK_RCPT_MIN, 0, LS_IN_USER, u++);
	TRY("send_recipients_avg", LK_RCPT_AVG, 0, LS_IN_USER, u++);
	TRY("send_recipients_max", LK_RCPT_MAX, 0, LS_IN_USER, u++);
	TRY("deleted_folder_max_messages", LK_DELETED_MAX, 0, LS_IN_USER, u++);
	TRY("day_length", LK_DAY, 0, LS_IN_ROOT, g++);
	TRY("day_compressed_to", LK_COMPRESS, 0, LS_IN_ROOT, g++);
	for (unsigned i = 0; i < 4; i++)
		TRY(dl_key_name[i], LK_DL, i, LS_IN_ROOT, g++);
	for (unsigned i = 0; i < LS_INIT_N; i++)
		TRY(init_key_name[i], LK_INIT, i, LS_IN_ROOT, g++);
	TRY("client_mode", LK_MODE, 0, LS_IN_CLIENT, 0);
#undef TRY
	return false;
}

static int __attribute__((format(printf, 3, 4)))
ls_fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A rate as the seed writes them: "12", "1.4", "161.90".  Decimal digits
 * and at most one point, nothing else (no sign, exponent or unit). */
static int
ls_decimal(const char *s, double max, double *out, const char **why)
{
	bool digit = false, point = false;

	for (const char *p = s; *p != '\0'; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && !point)
			point = true;
		else {
			*why = "not a number (digits and one '.')";
			return -1;
		}
	}
	if (!digit) {
		*why = "not a number (digits and one '.')";
		return -1;
	}
	*out = strtod(s, NULL);
	if (*out > max) {
		*why = "too large";
		return -1;
	}
	return 0;
}

int
profile_loadsim_folder_name(const char *s, char *out, const char **why)
{
	size_t len = strlen(s);

	if (len == 0 || len > LS_NAME_MAX) {
		*why = len == 0 ? "empty" : "longer than 64 characters";
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x20 || ch >= 0x7f || ch == '*' || ch == '%' ||
		    ch == '"' || ch == '\\') {
			*why = "not a folder name (printable ASCII without "
			    "'*', '%', '\"' or '\\')";
			return -1;
		}
	}
	if (s[0] == ' ' || s[len - 1] == ' ') {
		*why = "starts or ends with a blank";
		return -1;
	}
	memcpy(out, s, len + 1);
	return 0;
}

/* "75 KB" as well as "75KB": the blanks before the unit go. */
static int
ls_size(const char *s, uint64_t *out, const char **why)
{
	char buf[64];
	size_t j = 0;

	for (const char *p = s; *p != '\0' && j + 1 < sizeof(buf); p++)
		if (*p != ' ' && *p != '\t')
			buf[j++] = *p;
	buf[j] = '\0';
	if (units_parse_size(buf, out, why) < 0)
		return -1;
	if (*out == 0 || *out > LS_MAX_SIZE) {
		*why = "not in 1 octet .. 64 MiB";
		return -1;
	}
	return 0;
}

static int
ls_init_value(struct loadsim_init *in, unsigned which, const char *val,
	      const char **why)
{
	uint64_t u;

	switch (which) {
	case LS_INIT_SIZE:
		return ls_size(val, &in->msg_size, why);
	case LS_INIT_DELETED_FOLDER:
		return profile_loadsim_folder_name(val, in->deleted_folder, why);
	case LS_INIT_FOLDER_PREFIX:
		return profile_loadsim_folder_name(val, in->folder_prefix, why);
	default:
		break;
	}
	unsigned max = which == LS_INIT_NEW_FOLDERS ? 1000 : LS_MAX_COUNT;
	if (units_parse_uint(val, 0, max, &u, why) < 0)
		return -1;
	unsigned *dst[] = { &in->inbox, &in->deleted, &in->new_folders,
			    &in->folder_messages, &in->calendar,
			    &in->contacts };
	*dst[which] = (unsigned)u;
	return 0;
}

static int
ls_set(struct profile_loadsim *ls, const struct ls_key *k, unsigned block,
       const char *val, const char **why)
{
	struct loadsim_user *lu = &ls->users[block];
	uint64_t u;

	switch (k->kind) {
	case LK_RATE:
		if (ls_decimal(val, LS_MAX_PER_DAY, &lu->per_day[k->arg],
			       why) < 0)
			return -1;
		/* A rate the profile user driver would not act on is refused,
		 * not ignored: a run would report a day without them. */
		if (lu->per_day[k->arg] > 0 && !ls_action_acted(k->arg)) {
			*why = "not supported yet: the profile user driver has "
			    "no journal or contacts action (only 0 is accepted)";
			return -1;
		}
		return 0;
	case LK_RECEIVED:
		return ls_decimal(val, LS_MAX_PER_DAY, &lu->received_per_day,
				  why);
	case LK_SENT:
		return ls_decimal(val, LS_MAX_PER_DAY, &lu->sent_per_day, why);
	case LK_RCPT_MIN:
	case LK_RCPT_MAX:
		if (units_parse_uint(val, 1, 10000, &u, why) < 0)
			return -1;
		*(k->kind == LK_RCPT_MIN ? &lu->rcpt_min : &lu->rcpt_max) =
		    (unsigned)u;
		return 0;
	case LK_DELETED_MAX:
		if (units_parse_uint(val, 1, LS_MAX_COUNT, &u, why) < 0)
			return -1;
		lu->deleted_max = (unsigned)u;
		return 0;
	case LK_RCPT_AVG:
		if (ls_decimal(val, 10000, &lu->rcpt_avg, why) < 0)
			return -1;
		if (lu->rcpt_avg < 1) {
			*why = "below 1 (a mail goes to one recipient at least)";
			return -1;
		}
		return 0;
	case LK_DAY:
	case LK_COMPRESS: {
		uint64_t us;
		if (profile_parse_time(val, &us, why) < 0)
			return -1;
		if (k->kind == LK_DAY && us < 1000000) {
			*why = "shorter than a second";
			return -1;
		}
		*(k->kind == LK_DAY ? &ls->day_length_us
				    : &ls->day_compressed_us) = us;
		return 0;
	}
	case LK_DL: {
		unsigned *dst[] = { &ls->dl_count, &ls->dl_min, &ls->dl_avg,
				    &ls->dl_max };
		if (units_parse_uint(val, k->arg == 0 ? 0 : 1, 100000, &u,
				     why) < 0)
			return -1;
		*dst[k->arg] = (unsigned)u;
		return 0;
	}
	case LK_WEIGHT:
		ls->has_weights = true;
		return ls_decimal(val, 1000000, &ls->weight[k->arg], why);
	case LK_INIT:
		if (ls_init_value(&ls->init, k->arg, val, why) < 0)
			return -1;
		ls->init.has |= 1u << k->arg;
		return 0;
	case LK_MODE:
		if (strcmp(val, "online") == 0)
			ls->mode[block] = LS_MODE_ONLINE;
		else if (strcmp(val, "cached") == 0)
			ls->mode[block] = LS_MODE_CACHED;
		else {
			*why = "not a client mode (online or cached)";
			return -1;
		}
		return 0;
	}
	*why = "internal: unhandled key kind";
	return -1;
}

static const char *const where_name[] = {
	"outside the blocks (a global key)", "in a user { } block",
	"in a client { } block"
};

int
profile_loadsim_key(struct profile *p, enum loadsim_where in, unsigned block,
		    const char *key, const char *val, unsigned line, char *why,
		    size_t n)
{
	struct profile_loadsim *ls = &p->loadsim;
	struct ls_key k;
	const char *problem = NULL;

	if (!ls_key_find(key, &k))
		return 1;
	if (k.in != in)
		return ls_fail(why, n, "a LoadSim key that belongs %s",
			       where_name[k.in]);
	unsigned *seen = in == LS_IN_USER ? &ls->users[block].seen[k.slot]
	    : in == LS_IN_CLIENT ? &ls->mode_line[block]
	    : &ls->seen_global[k.slot];
	if (*seen != 0)
		return ls_fail(why, n, "given twice (first on line %u)", *seen);
	*seen = line;
	if (ls_set(ls, &k, block, val, &problem) < 0) {
		char v[80];
		size_t len = strlen(val), w = escape_text(v, sizeof(v), val, len);
		if (escape_len(val, len) > w && w >= 3)
			memcpy(v + w - 3, "...", 3);
		return ls_fail(why, n, "'%s': %s", v, problem);
	}
	ls->any = true;
	if (in == LS_IN_USER)
		ls->users[block].any = true;
	return 0;
}

/* min <= avg <= max, when given; each missing one is left alone. */
static int
ls_order(unsigned min, double avg, unsigned max, char *why, size_t n)
{
	if (min != 0 && max != 0 && min > max)
		return ls_fail(why, n, "the minimum %u is above the maximum %u",
			       min, max);
	if (avg > 0 && ((min != 0 && avg < min) || (max != 0 && avg > max)))
		return ls_fail(why, n, "the average %g is not between the "
			       "minimum and the maximum", avg);
	return 0;
}

/* The line a global key was given on (0: not given). */
static unsigned
ls_line(const struct profile_loadsim *ls, const char *name)
{
	struct ls_key k;

	return ls_key_find(name, &k) ? ls->seen_global[k.slot] : 0;
}

int
profile_loadsim_finish(struct profile *p, unsigned *line, const char **key,
		       char *why, size_t n)
{
	struct profile_loadsim *ls = &p->loadsim;

	if (ls->day_length_us == 0)
		ls->day_length_us = 8ull * 3600 * 1000000;
	if (ls->day_compressed_us > ls->day_length_us) {
		*key = "day_compressed_to";
		*line = ls_line(ls, *key);
		return ls_fail(why, n, "longer than day_length (time "
			       "compression runs the day faster, not slower)");
	}
	if (ls_order(ls->dl_min, ls->dl_avg, ls->dl_max, why, n) < 0) {
		*key = "distribution_list_avg_size";
		*line = ls_line(ls, *key);
		return -1;
	}
	for (unsigned b = 0; b < p->n_user_blocks; b++) {
		struct loadsim_user *lu = &ls->users[b];
		if (ls_order(lu->rcpt_min, lu->rcpt_avg, lu->rcpt_max, why,
			     n) < 0) {
			*line = p->users[b].line;
			*key = "send_recipients_avg";
			return -1;
		}
		if (lu->deleted_max == 0)
			lu->deleted_max = LS_DELETED_MAX_DEFAULT;
		/* The seed's "sent, counting recipients" over "sent". */
		if (lu->rcpt_avg == 0 && lu->per_day[LS_SEND_MAIL] > 0 &&
		    lu->sent_per_day > 0)
			lu->rcpt_avg = lu->sent_per_day /
			    lu->per_day[LS_SEND_MAIL];
	}
	return 0;
}

double
profile_loadsim_speedup(const struct profile_loadsim *ls)
{
	if (ls->day_compressed_us == 0)
		return 1.0;
	return (double)ls->day_length_us / (double)ls->day_compressed_us;
}

static void
ls_print_user(const struct profile *p, unsigned b, FILE *out)
{
	const struct loadsim_user *lu = &p->loadsim.users[b];
	const char *name = p->users[b].name[0] ? p->users[b].name : "(unnamed)";
	double speed = profile_loadsim_speedup(&p->loadsim);

	fprintf(out, "  user %s: actions per day (per run hour at this "
		"speed):\n", name);
	for (unsigned i = 0; i < LS_N_ACTIONS; i++)
		if (lu->per_day[i] > 0)
			fprintf(out, "    %-18s %8.2f  (%.2f/h)\n",
				loadsim_action_name[i], lu->per_day[i],
				lu->per_day[i] * speed * 3600e6 /
				(double)p->loadsim.day_length_us);
	fprintf(out, "    received %.2f, sent counting recipients %.2f, "
		"recipients per mail %.2f", lu->received_per_day,
		lu->sent_per_day, lu->rcpt_avg);
	if (lu->rcpt_min || lu->rcpt_max)
		fprintf(out, " (%u..%u)", lu->rcpt_min, lu->rcpt_max);
	fputc('\n', out);
	if (lu->per_day[LS_CLEAN_INBOX] > 0)
		fprintf(out, "    clean inbox moves to the deleted folder, "
			"emptied past %u messages\n", lu->deleted_max);
}

void
profile_loadsim_print(const struct profile *p, FILE *out)
{
	const struct profile_loadsim *ls = &p->loadsim;
	char d1[32], d2[32];

	if (!ls->any)
		return;
	units_fmt_us(d1, sizeof(d1), ls->day_length_us);
	units_fmt_us(d2, sizeof(d2), ls->day_compressed_us);
	fprintf(out, "LoadSim extension: the profile user driver acts on the "
		"actions, imapstress init on "
		"init_*\n");
	fprintf(out, "  day %s, run in %s (x%.1f)\n", d1,
		ls->day_compressed_us ? d2 : "real time",
		profile_loadsim_speedup(ls));
	for (unsigned b = 0; b < p->n_user_blocks; b++)
		if (ls->users[b].any)
			ls_print_user(p, b, out);
	for (unsigned c = 0; c < p->n_client_blocks; c++)
		if (ls->mode[c] != LS_MODE_UNSET)
			fprintf(out, "  client %s: %s mode\n",
				p->clients[c].name[0] ? p->clients[c].name
						      : "(unnamed)",
				ls->mode[c] == LS_MODE_ONLINE ? "online"
							      : "cached");
	if (ls->dl_count || ls->dl_min || ls->dl_avg || ls->dl_max)
		fprintf(out, "  distribution lists: %u of %u..%u members "
			"(average %u)\n", ls->dl_count, ls->dl_min, ls->dl_max,
			ls->dl_avg);
	if (ls->has_weights) {
		fprintf(out, "  score weights:");
		for (unsigned i = 0; i < LS_N_ACTIONS; i++)
			if (ls->weight[i] > 0)
				fprintf(out, " %s %g", loadsim_action_name[i],
					ls->weight[i]);
		fputc('\n', out);
	}
	const struct loadsim_init *in = &ls->init;
	if (in->has != 0) {
		units_fmt_size(d1, sizeof(d1), in->msg_size);
		fprintf(out, "  init (given keys; the rest are init's "
			"defaults): inbox %u, deleted %u, %u new folders of "
			"%u, calendar %u, contacts %u, mean size %s\n",
			in->inbox, in->deleted, in->new_folders,
			in->folder_messages, in->calendar, in->contacts,
			in->msg_size ? d1 : "(default)");
	}
}
