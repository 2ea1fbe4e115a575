/* run_id.c: see run_id.h. */
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "util/run_id.h"

/* getrandom, not RAND_bytes: starting OpenSSL's DRBG pulls its providers
 * and config in, about 2 MB of RSS a run without TLS or SCRAM never
 * needs.  Without entropy yet (early boot), time and pid still make two
 * runs differ. */
uint64_t
run_id_new(void)
{
	uint64_t id;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
		id = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	return id;
}
