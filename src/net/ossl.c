/* ossl.c: see ossl.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/ossl.h"

struct ossl_table ossl_fn;

static pthread_once_t ossl_once = PTHREAD_ONCE_INIT;
static bool ossl_ok;
static char ossl_err[512];

static void
ossl_load_once(void)
{
	static const char *const sonames[OSSL_N_LIBS] = OSSL_SONAMES;
	void *lib[OSSL_N_LIBS];
	const char *dir = getenv("IMAPSTRESS_TEST_OSSL_DIR");

	for (int i = 0; i < OSSL_N_LIBS; i++) {
		char path[4096];
		if (dir != NULL)
			snprintf(path, sizeof(path), "%s/%s", dir, sonames[i]);
		else
			snprintf(path, sizeof(path), "%s", sonames[i]);
		/* RTLD_NOW: a missing symbol is an error here, at start-up,
		 * not in the middle of a run.  Never closed: OpenSSL cleans up
		 * at exit on its own. */
		lib[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (lib[i] == NULL) {
			snprintf(ossl_err, sizeof(ossl_err), "TLS and SCRAM need "
				 "%s, which cannot be loaded: %s (install the "
				 "libssl3 and libevent-openssl-2.1-7 packages)",
				 sonames[i], dlerror());
			return;
		}
	}
	/* dlsym returns void *; POSIX guarantees it converts to the
	 * function pointer it names (memcpy: ISO C has no such cast). */
#define OSSL_RESOLVE(l, fn)						\
	{								\
		void *sym = dlsym(lib[l], #fn);				\
		_Static_assert(sizeof(sym) == sizeof(ossl_fn.fn), #fn);	\
		if (sym == NULL) {					\
			snprintf(ossl_err, sizeof(ossl_err), "%s lacks %s: %s", \
				 sonames[l], #fn, dlerror());		\
			return;						\
		}							\
		memcpy(&ossl_fn.fn, &sym, sizeof(sym));			\
	}
	OSSL_FUNCS(OSSL_RESOLVE)
#undef OSSL_RESOLVE
	ossl_ok = true;
}

bool
ossl_load(char *err, size_t errlen)
{
	pthread_once(&ossl_once, ossl_load_once);
	if (!ossl_ok && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", ossl_err);
	return ossl_ok;
}

bool
ossl_loaded(void)
{
	return ossl_ok;
}
