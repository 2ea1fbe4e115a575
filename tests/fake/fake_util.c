/* fake_util.c: clock, PRNG, mode names and small string helpers. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fake.h"

uint64_t
fake_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* splitmix64: good enough spread for seeding per-connection generators. */
uint64_t
fake_seed(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* xorshift64*: cheap, per connection, no locking. */
uint64_t
fake_rand(uint64_t *state)
{
	uint64_t x = *state;
	if (x == 0)
		x = 0x2545f4914f6cdd1dull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

bool
fake_eq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

static const char *const fake_mode_names[] = {
	[FAKE_M_NORMAL] = "normal",
	[FAKE_M_NO_GREETING] = "no-greeting",
	[FAKE_M_CLOSE_MID_COMMAND] = "close-mid-command",
	[FAKE_M_CLOSE_MID_LITERAL] = "close-mid-literal",
	[FAKE_M_RESET] = "reset",
	[FAKE_M_BYE_RANDOM] = "bye-random",
	[FAKE_M_GARBAGE] = "garbage",
	[FAKE_M_ENDLESS_LINE] = "endless-line",
	[FAKE_M_HUGE_LITERAL] = "huge-literal",
	[FAKE_M_DRIP] = "drip",
	[FAKE_M_STALL] = "stall",
	[FAKE_M_REFUSE] = "refuse",
	[FAKE_M_TLS_FAIL] = "tls-fail",
	[FAKE_M_PLAIN_ON_TLS] = "plain-on-tls",
	[FAKE_M_SCRIPT] = "script",
};

const char *
fake_mode_name(enum fake_mode m)
{
	if ((size_t)m < sizeof(fake_mode_names) / sizeof(fake_mode_names[0]))
		return fake_mode_names[m];
	return "?";
}

bool
fake_mode_parse(const char *s, enum fake_mode *out)
{
	for (size_t i = 0;
	     i < sizeof(fake_mode_names) / sizeof(fake_mode_names[0]); i++) {
		if (strcmp(s, fake_mode_names[i]) == 0) {
			*out = (enum fake_mode)i;
			return true;
		}
	}
	return false;
}
