/* fuzz_profile.c: libFuzzer harness for the profile parser (src/profile/).
 *
 *   make -f tests/fuzz/Makefile build-fuzz/fuzz_profile
 *   build-fuzz/fuzz_profile tests/fuzz/seeds-profile
 *
 * The input is the text of a profile file.  Each input runs profile_parse
 * and, when it parses, checks what the rest of the program will take for
 * granted (required keys set, counts adding up to 100%, names and FETCH
 * items printable), then profile_expand and the plan printer, and checks
 * the expansion (every user named, shares adding up, client kinds in
 * range).  On failure: one line "fuzz.conf:LINE: KEY: ...", and the same
 * message cut short in a small buffer.  A profile naming a userfile is not
 * expanded (that would read arbitrary files), nor one with more than
 * 20000 users (memory and time, not correctness).  Leaks are
 * LeakSanitizer's job. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void
fz_require(bool ok, const char *what, const char *detail)
{
	if (!ok) {
		fprintf(stderr, "fuzz_profile: invariant failed: %s%s%s\n", what,
			detail ? ": " : "", detail ? detail : "");
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	fz_require(devnull != NULL, "open /dev/null", NULL);
	return 0;
}

static bool
fz_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isprint((unsigned char)*s))
			return false;
	return true;
}

static void
fz_check_parsed(const struct profile *p)
{
	unsigned sum = 0;

	fz_require(p->lmtp_port >= 1 && p->lmtp_port <= 65535, "lmtp_port range", NULL);
	fz_require(p->total_users >= 1 && p->total_users <= PROFILE_MAX_USERS,
		   "total_user_count range", NULL);
	fz_require(p->n_user_blocks >= 1 && p->n_user_blocks <= PROFILE_MAX_BLOCKS &&
		   p->n_client_blocks >= 1 && p->n_client_blocks <= PROFILE_MAX_BLOCKS,
		   "block counts", NULL);
	for (unsigned i = 0; i < p->n_user_blocks; i++) {
		const struct profile_user_block *b = &p->users[i];
		fz_require(b->has_username || b->userfile != NULL, "user names from somewhere",
			   b->name);
		fz_require(fz_printable(b->name), "block name printable", NULL);
		fz_require(b->reply_pct <= 100 && b->delete_pct <= 100 && b->move_pct <= 100 &&
			   b->move_filter_pct <= 100, "percentages", NULL);
		sum += b->count_pct;
	}
	fz_require(sum == 100, "user counts add up to 100", NULL);
	sum = 0;
	for (unsigned i = 0; i < p->n_client_blocks; i++) {
		const struct profile_client_block *c = &p->clients[i];
		fz_require(c->fetch_immediate == NULL || fz_printable(c->fetch_immediate),
			   "fetch items printable", NULL);
		fz_require(c->fetch_manual == NULL || fz_printable(c->fetch_manual),
			   "fetch items printable", NULL);
		sum += c->count_pct;
	}
	fz_require(sum == 100, "client counts add up to 100", NULL);
}

static void
fz_check_expanded(const struct profile *p)
{
	unsigned per_block = 0, per_client = 0;

	/* A name two blocks give is one user (as imaptest): n_repeated. */
	fz_require(p->n_u + p->n_repeated == p->total_users && p->n_u > 0,
		   "one entry per user", NULL);
	for (unsigned i = 0; i < p->n_user_blocks; i++)
		per_block += p->users[i].n_users;
	for (unsigned i = 0; i < p->n_client_blocks; i++)
		per_client += p->clients[i].n_users;
	fz_require(per_block == p->n_u && per_client == p->n_u, "shares add up", NULL);
	for (unsigned i = 0; i < p->n_u; i++) {
		const struct profile_user *u = &p->u[i];
		fz_require(u->name != NULL && u->name[0] != '\0', "user named", NULL);
		fz_require(u->block < p->n_user_blocks && u->client < p->n_client_blocks,
			   "kinds in range", NULL);
		for (const char *c = u->name; *c != '\0'; c++)
			fz_require(isgraph((unsigned char)*c), "user name printable", u->name);
	}
}

static struct profile *
fz_parse(const uint8_t *data, size_t size, char *err, size_t errlen)
{
	return profile_parse("fuzz.conf", (const char *)data, size, err, errlen);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	memset(err, 'X', sizeof(err));
	struct profile *p = fz_parse(data, size, err, sizeof(err));

	if (p == NULL) {
		fz_require(memchr(err, '\0', sizeof(err)) != NULL, "message terminated", NULL);
		fz_require(strncmp(err, "fuzz.conf:", 10) == 0, "message names the file", err);
		fz_require(strpbrk(err, "\r\n") == NULL, "message on one line", err);
		for (const char *c = err; *c != '\0'; c++)
			fz_require(isprint((unsigned char)*c), "message printable", err);
		size_t small = 1 + size % 40;
		char *cut = malloc(small);
		fz_require(cut != NULL, "malloc", NULL);
		fz_require(fz_parse(data, size, cut, small) == NULL, "fails again", NULL);
		fz_require(strlen(cut) < small && strncmp(cut, err, strlen(cut)) == 0,
			   "small-buffer message is the full one cut short", cut);
		free(cut);
		return 0;
	}
	fz_check_parsed(p);
	bool userfile = false;
	for (unsigned i = 0; i < p->n_user_blocks; i++)
		userfile |= p->users[i].userfile != NULL;
	if (!userfile && p->total_users <= 20000) {
		int rc = profile_expand(p, size, err, sizeof(err));
		if (rc == 0) {
			fz_check_expanded(p);
			profile_print_plan(p, devnull);
		} else {
			fz_require(strncmp(err, "fuzz.conf:", 10) == 0, "expand message", err);
		}
	}
	profile_free(p);
	return 0;
}
