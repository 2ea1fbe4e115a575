/* fuzz_config.c: libFuzzer harness for argv -> struct config.
 *
 *   make -f tests/fuzz/Makefile build-fuzz/fuzz_config
 *   build-fuzz/fuzz_config tests/fuzz/seeds-config
 *
 * The input is a command line: words separated by NUL bytes (at most 64,
 * argv[0] = "imapstress").  Each input runs config_defaults, config_parse,
 * config_validate, config_port and config_free, and aborts on a broken
 * invariant: the return code, the shape of the error message (non-empty,
 * one line, NUL-terminated, and the same message cut short when the buffer
 * is small), and on success a config the rest of the program can trust
 * without checking again.  Leaks are LeakSanitizer's job.
 *
 * Only --password-file touches the file system (a read).  So that no input
 * can read a FIFO, a tty or /dev/zero, or depend on the files in the
 * working directory, the harness swaps its value for one of a few fixed
 * fixtures (memfds, "/" and a missing path) chosen by the value's first
 * byte.  config_validate may stat() the --rawlog-dir, which writes nothing.
 * --json, --csv, output=, --rawlog-dir, mbox= and userfile= are only stored
 * here; report.c, rawlog.c and main.c open them later, outside this
 * harness. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_WORDS 64
#define FZ_ERRLEN 256
#define FZ_GIB (1ULL << 30)

/* What --password-file may open: every outcome h_password_file has. */
enum { FZ_N_PWFILES = 6 };
static char fz_pwfile[FZ_N_PWFILES][48];

static void
fz_require(bool ok, const char *what, const char *detail)
{
	if (!ok) {
		fprintf(stderr, "fuzz_config: invariant failed: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
		abort();
	}
}

/* --msg-sizes as parsed: what msg_sizes_draw and the pool trust (n
 * buckets, sizes ascending in range, cum the running sums), and its
 * canonical form parses back to the same table. */
static void
fz_check_msg_sizes(const struct msg_sizes *s)
{
	char spec[MSG_SIZES_MAX * 24], why[160];
	struct msg_sizes back;
	uint64_t sum = 0;

	if (s->n == 0)
		return;
	fz_require(s->n <= MSG_SIZES_MAX, "--msg-sizes: at most 16 buckets",
		   NULL);
	for (unsigned b = 0; b < s->n; b++) {
		fz_require(s->size[b] >= MSG_SIZES_MIN_SIZE &&
			   s->size[b] <= MSG_SIZES_MAX_SIZE &&
			   (b == 0 || s->size[b] > s->size[b - 1]),
			   "--msg-sizes: sizes in range, ascending", NULL);
		fz_require(s->weight[b] >= 1 &&
			   s->weight[b] <= MSG_SIZES_MAX_WEIGHT,
			   "--msg-sizes: weights in range", NULL);
		sum += s->weight[b];
		fz_require(s->cum[b] == sum, "--msg-sizes: cum the running sum",
			   NULL);
	}
	fz_require(msg_sizes_format(s, spec, sizeof(spec)) < (int)sizeof(spec),
		   "--msg-sizes: the canonical form fits", NULL);
	fz_require(msg_sizes_parse(spec, &back, why, sizeof(why)) == 0 &&
		   memcmp(&back, s, sizeof(back)) == 0,
		   "--msg-sizes: the canonical form parses back", spec);
}

static void
fz_memfd(char *path, size_t n, const char *content)
{
	int fd = memfd_create("fuzz_config_pw", 0);
	size_t len = strlen(content);

	if (fd < 0 || write(fd, content, len) != (ssize_t)len) {
		perror("fuzz_config: memfd");
		abort();
	}
	/* The fd stays open for the whole run: the path is its name. */
	snprintf(path, n, "/proc/self/fd/%d", fd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* config_defaults reads these; a fuzzer's result must not depend on
	 * who runs it. */
	unsetenv("USER");
	unsetenv("IMAPSTRESS_PASSWORD");
	/* --help and --version print to stdout: thousands of usage texts
	 * would only slow the run and bury libFuzzer's own lines. */
	if (freopen("/dev/null", "w", stdout) == NULL) {
		perror("fuzz_config: /dev/null");
		abort();
	}
	fz_memfd(fz_pwfile[0], sizeof(fz_pwfile[0]), "s3cret pass\r\n");
	fz_memfd(fz_pwfile[1], sizeof(fz_pwfile[1]), "");
	fz_memfd(fz_pwfile[2], sizeof(fz_pwfile[2]), "\nsecond line\n");
	fz_memfd(fz_pwfile[3], sizeof(fz_pwfile[3]), "no newline at the end");
	snprintf(fz_pwfile[4], sizeof(fz_pwfile[4]), "/");	/* EISDIR */
	snprintf(fz_pwfile[5], sizeof(fz_pwfile[5]),
		 "/nonexistent/imapstress-fuzz");		/* ENOENT */
	config_free(NULL);
	return 0;
}

static const char *
fz_pwfile_for(const char *val)
{
	return fz_pwfile[(unsigned char)val[0] % FZ_N_PWFILES];
}

/* Swap every --password-file value in argv for a fixture.  Over-eager on
 * purpose: a word is rewritten even when an earlier option will swallow
 * it as its own value, which only changes a value nobody reads.  Should
 * the option gain another spelling, fz_pass's check that password_file is
 * a fixture says so. */
static void
fz_tame_pwfile(int argc, char **argv, char **owned)
{
	static const char opt[] = "--password-file";
	const size_t olen = sizeof(opt) - 1;
	char buf[80];

	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (strncmp(w, opt, olen) != 0)
			continue;
		if (w[olen] == '\0') {
			if (i + 1 < argc && argv[i + 1][0] != '\0')
				argv[i + 1] = (char *)fz_pwfile_for(argv[i + 1]);
		} else if (w[olen] == '=' && w[olen + 1] != '\0') {
			snprintf(buf, sizeof(buf), "%s=%s", opt,
				 fz_pwfile_for(w + olen + 1));
			owned[i] = strdup(buf);
			fz_require(owned[i] != NULL, "strdup", NULL);
			argv[i] = owned[i];
		}
		/* An empty value is refused before the handler runs. */
	}
}

static bool
fz_is_pwfile(const char *path)
{
	for (int i = 0; i < FZ_N_PWFILES; i++)
		if (strcmp(path, fz_pwfile[i]) == 0)
			return true;
	return false;
}

/* rc -1: a message a person can read on one line. */
static void
fz_check_err(int rc, const char *err, size_t errlen)
{
	fz_require(rc == -1 || rc == 0 || rc == 1, "return code in {-1,0,1}",
		   NULL);
	fz_require(errlen == 0 || memchr(err, '\0', errlen) != NULL,
		   "error message NUL-terminated", NULL);
	if (errlen == 0)
		return;
	if (rc == -1) {
		fz_require(errlen < 2 || err[0] != '\0', "error message not empty",
			   NULL);
		fz_require(strpbrk(err, "\r\n") == NULL,
			   "error message on one line", err);
	} else {
		fz_require(err[0] == '\0', "no error message on success", err);
	}
}

static bool
fz_dur_ok(double v)
{
	return isfinite(v) && v >= 0 && v <= 1e9;
}

/* At most two %d/%i and no other conversion: the template reaches
 * snprintf-like code at run time. */
static bool
fz_template_ok(const char *t)
{
	int n = 0;

	for (const char *p = t; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		/* printf's zero flag and a width of at most 20 */
		unsigned width = 0;
		if (*p == '0')
			p++;
		while (*p >= '0' && *p <= '9')
			if ((width = width * 10 + (unsigned)(*p++ - '0')) > 20)
				return false;
		if ((*p != 'd' && *p != 'i') || ++n > 2)
			return false;
	}
	return true;
}

/* rc 0 after config_validate: what every later module takes for granted. */
static void
fz_check_config(const struct config *cfg)
{
	int port = config_port(cfg);

	fz_require(cfg->host && cfg->user_template && cfg->pass && cfg->mech &&
		   cfg->box && cfg->rawlog_dir, "defaulted strings non-NULL",
		   NULL);
	fz_require(fz_template_ok(cfg->user_template),
		   "user template has only %[0][W]d/%[0][W]i/%%",
		   cfg->user_template);
	fz_require(cfg->clients >= 1 && cfg->clients <= 1000000,
		   "clients in 1..1000000", NULL);
	fz_require(cfg->workers <= 1024, "workers <= 1024", NULL);
	fz_require(cfg->port >= 0 && cfg->port <= 65535, "port in 0..65535",
		   NULL);
	fz_require(port >= 1 && port <= 65535, "config_port in 1..65535",
		   NULL);
	fz_require(cfg->users_min <= cfg->users_max, "users_min <= users_max",
		   NULL);
	fz_require(cfg->domains_min <= cfg->domains_max,
		   "domains_min <= domains_max", NULL);
	for (int i = 0; i < OP_COUNT; i++)
		fz_require(cfg->states[i].prob >= 0 &&
			   cfg->states[i].prob <= 100 &&
			   cfg->states[i].again >= 0 &&
			   cfg->states[i].again <= 100,
			   "state percentages in 0..100", op_table[i].name);
	/* A profile's day moves and copies into its own folders (the
	 * LoadSim actions), never to --copybox. */
	fz_require(cfg->copybox != NULL || cfg->profile_path != NULL ||
		   (cfg->states[OP_COPY].prob == 0 &&
		    cfg->states[OP_MOVE].prob == 0),
		   "no COPY/MOVE without copybox outside a profile", NULL);
	fz_require(cfg->tls == TLS_NONE || cfg->tls == TLS_IMPLICIT ||
		   cfg->tls == TLS_STARTTLS, "tls mode in range", NULL);
	/* With a profile, --insecure and --ca-file may be for its
	 * submission_tls: checked once the profile is read (config.c). */
	fz_require(cfg->tls != TLS_NONE || (!cfg->tls_resume &&
		   (cfg->profile_path != NULL ||
		    (!cfg->tls_insecure && !cfg->ca_file))),
		   "TLS options only with TLS", NULL);
	fz_require(cfg->format == OUT_TEXT || cfg->format == OUT_QUIET,
		   "format in range", NULL);
	fz_require(!cfg->imap4rev2 || cfg->qresync, "imap4rev2 implies qresync",
		   NULL);
	fz_require(cfg->n_sources <= CONFIG_MAX_SOURCES, "n_sources bounded",
		   NULL);
	for (unsigned i = 0; i < cfg->n_sources; i++)
		fz_require(cfg->sources[i] != NULL && cfg->sources[i][0] != '\0',
			   "source address set", NULL);
	fz_require(cfg->n_slas <= CONFIG_MAX_SLA, "n_slas bounded", NULL);
	for (unsigned i = 0; i < cfg->n_slas; i++) {
		const struct sla *s = &cfg->slas[i];
		/* a command, all commands, or the score */
		fz_require((s->op >= 0 && s->op < OP_COUNT) ||
			   s->op == SLA_OP_ALL || s->op == SLA_OP_SCORE,
			   "sla op in range", NULL);
		fz_require(s->percentile >= 0 && s->percentile <= 100,
			   "sla percentile in 0..100", NULL);
		fz_require(s->max_us > 0, "sla bound > 0", NULL);
		fz_require(memchr(s->text, '\0', sizeof(s->text)) != NULL &&
			   s->text[0] != '\0', "sla text NUL-terminated", NULL);
	}
	fz_require(cfg->pipeline_max >= 1 && cfg->pipeline_max <= 1000,
		   "pipeline in 1..1000", NULL);
	fz_require(fz_dur_ok(cfg->secs) && fz_dur_ok(cfg->grace_secs) &&
		   fz_dur_ok(cfg->warmup_secs), "run durations finite", NULL);
	fz_require(cfg->secs == 0 || cfg->warmup_secs < cfg->secs,
		   "warmup shorter than the run", NULL);
	fz_require(fz_dur_ok(cfg->connect_timeout) &&
		   cfg->connect_timeout > 0 &&
		   fz_dur_ok(cfg->greeting_timeout) &&
		   cfg->greeting_timeout > 0 &&
		   fz_dur_ok(cfg->cmd_timeout) && cfg->cmd_timeout > 0,
		   "timeouts finite and positive", NULL);
	fz_require(isfinite(cfg->connect_rate) && cfg->connect_rate >= 0 &&
		   isfinite(cfg->rate) && cfg->rate >= 0,
		   "rates finite and not negative", NULL);
	fz_require(isfinite(cfg->tick_percentile) &&
		   cfg->tick_percentile >= 0 && cfg->tick_percentile <= 100,
		   "tick percentile in 0..100", NULL);
	fz_require(cfg->max_line >= 128 && cfg->max_line <= FZ_GIB,
		   "max_line in 128..1 GiB", NULL);
	fz_require(cfg->max_literal >= 1 && cfg->max_literal <= INT64_MAX,
		   "max_literal in 1..2^63-1", NULL);
	fz_require(cfg->msg_size_mean >= 1 && cfg->msg_size_mean <= FZ_GIB &&
		   cfg->random_msg_size <= FZ_GIB, "message sizes bounded",
		   NULL);
	fz_check_msg_sizes(&cfg->msg_sizes);
	fz_require(!(cfg->json_path && cfg->csv_path &&
		     strcmp(cfg->json_path, "-") == 0 &&
		     strcmp(cfg->csv_path, "-") == 0),
		   "only one of --json/--csv on stdout", NULL);
}

/* One full pass with an error buffer of exactly errlen bytes (malloc'd,
 * so AddressSanitizer sees any write past it).  Returns the code and
 * leaves the message in msg. */
static int
fz_pass(int argc, char **argv, size_t errlen, char *msg, size_t msglen)
{
	struct config cfg;
	char *err = malloc(errlen ? errlen : 1);
	int rc;

	fz_require(err != NULL, "malloc", NULL);
	/* Not zeroed: a message that is not terminated must show. */
	memset(err, 'X', errlen);
	config_defaults(&cfg);
	rc = config_parse(&cfg, argc, argv, err, errlen);
	fz_check_err(rc, err, errlen);
	fz_require(cfg.password_file == NULL || fz_is_pwfile(cfg.password_file),
		   "--password-file read only a fixture", cfg.password_file);
	if (rc == 0) {
		rc = config_validate(&cfg, err, errlen);
		fz_check_err(rc, err, errlen);
		fz_require(rc != 1, "config_validate returns 0 or -1", NULL);
		if (rc == 0)
			fz_check_config(&cfg);
	}
	config_free(&cfg);
	snprintf(msg, msglen, "%s", errlen ? err : "");
	free(err);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	char *argv[FZ_MAX_WORDS + 2];
	char *owned[FZ_MAX_WORDS + 2] = { NULL };
	char full[FZ_ERRLEN], cut[FZ_ERRLEN];
	int argc = 1;

	fz_require(buf != NULL, "malloc", NULL);
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = (char *)"imapstress";
	/* A trailing NUL ends the last word rather than starting an empty
	 * one, so seeds can be written with printf '%s\0'. */
	for (size_t at = 0; at < size && argc <= FZ_MAX_WORDS;) {
		argv[argc++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	argv[argc] = NULL;
	fz_tame_pwfile(argc, argv, owned);

	int rc = fz_pass(argc, argv, FZ_ERRLEN, full, sizeof(full));
	if (rc == -1) {
		/* The same failure into a small buffer: same code, and the
		 * message is the full one cut short (both are scrubbed of
		 * line breaks the same way). */
		size_t small = 1 + size % 40;
		int rc2 = fz_pass(argc, argv, small, cut, sizeof(cut));
		fz_require(rc2 == -1, "same code with a small error buffer",
			   NULL);
		fz_require(strlen(cut) < small &&
			   strncmp(full, cut, strlen(cut)) == 0 &&
			   strlen(cut) == (strlen(full) < small - 1
					   ? strlen(full) : small - 1),
			   "small-buffer message is the full one truncated",
			   cut);
	}
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(buf);
	return 0;
}
