# imapstress: plain GNU make + pkg-config.
#
#   make              build ./imapstress
#   make check        install missing Debian packages (as root), build, run
#                     every test: unit (Check), fake-server faults, Dovecot
#   make check-asan   the same tests built with -fsanitize=address,undefined
#   make demo         build, start a private Dovecot, run a short benchmark
#   make fuzz         libFuzzer harnesses (clang)
#   make valgrind     unit tests under valgrind
#   make install      PREFIX (/usr/local) and DESTDIR as usual; `make
#                     uninstall` with the same two removes what it put there
#   make deb          the Debian package (dpkg-buildpackage -us -uc -b)

PKGS      := libevent libevent_openssl libevent_pthreads openssl zlib
# imapstress itself does not link OpenSSL or libevent_openssl: it dlopens
# them when a run needs TLS or SCRAM (src/net/ossl.h), since linking them
# kept 1.7 MB resident in every run.  The other programs link them all.
BIN_PKGS  := libevent libevent_pthreads zlib
CC        ?= cc
OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter -Werror
SAN       ?=
BUILD     ?= build
# Only src/ is on the include path: an include names its folder
# ("conn/conn.h"), so a reader sees where every header lives.
CPPFLAGS  += -D_GNU_SOURCE -Isrc
CFLAGS    += -std=c11 $(OPT) $(WARN) -MMD -MP
# Check runs each unit test in a forked child (CK_FORK=yes) so that one
# crash names its test.  Under the sanitizers every child's exit ran a
# LeakSanitizer scan, 1300 of them: 20 of CI's minutes.  There the suite
# runs in one process, whose exit scans once for every test's leaks, and
# ASan names a crash's test by its stack.
UNIT_FORK := yes
# The sanitized build (CI's only shell pass) also checks the engine's
# cached may-send bits against the fields at every question
# (CONN_HOLD_CHECK, src/conn/conn_int.h): a change that forgets
# conn_hold_update aborts there, not silently in a user's run.
ifeq ($(SAN),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS    += -DCONN_HOLD_CHECK
LDFLAGS   += -fsanitize=address,undefined
BUILD     := build-asan
UNIT_FORK := no
endif

# pkg-config is only asked when compiling, so `make clean` works before
# scripts/deps has run.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
BIN_LIBS   = $(shell pkg-config --libs $(BIN_PKGS)) -lpthread -lm
CHECK_LIBS = $(shell pkg-config --libs check)

SRC       := $(wildcard src/*.c src/*/*.c src/*/*/*.c)
LIB_SRC   := $(filter-out src/main.c,$(SRC))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
# tests/unit mirrors src/: tests/unit/imap/test_imap.c tests src/imap/.
UNIT_SRC  := $(wildcard tests/unit/*.c tests/unit/*/*.c tests/unit/*/*/*.c)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(BUILD)/%.o)
FAKE_SRC  := $(wildcard tests/fake/*.c)
FAKE_OBJ  := $(FAKE_SRC:%.c=$(BUILD)/%.o)

# Shell tests run this many at a time (each waits mostly on its run's secs=).
RUN_ALL_JOBS ?= 3
# Unit suites run this many at a time (scripts/unit-lanes: they wait on
# timers and forks more than they compute).
UNIT_LANES ?= 3

BIN       := $(BUILD)/imapstress
UNIT_BIN  := $(BUILD)/unit-tests
FAKE_BIN  := $(BUILD)/fakeimapd
# Tests-only: K messages over LMTP to U users (tests/lmtp/lmtp_deliver.c).
LMTP_BIN  := $(BUILD)/lmtp-deliver
GEN_COMP  := $(BUILD)/gen-completion
COMPLETION := $(BUILD)/imapstress.bash

# The version lives in src/version.h alone; everything else reads it here.
VERSION   := $(shell sed -n 's/^\#define IMAPSTRESS_VERSION "\(.*\)"/\1/p' src/version.h)

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share/imapstress
COMPDIR   ?= $(PREFIX)/share/bash-completion/completions
INSTALL   ?= install
# Scripts installed under names a user finds next to the binary.
SCRIPTS   := sweep plot capacity
PROFILES  := $(wildcard profiles/*)

.PHONY: all deps check check-asan check-build unit demo fuzz fuzz-smoke valgrind clean bench \
	install uninstall deb version
all: imapstress $(COMPLETION)

imapstress: $(BIN)
	@if [ "$(BUILD)" = build ]; then cp $(BIN) $@; fi

$(BIN): $(BUILD)/src/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(BIN_LIBS)

$(UNIT_BIN): $(UNIT_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS)

# The fake server is linked against only what it uses: the command
# builders' quoting, COMPRESS, logging.
FAKE_LIB_OBJ := $(filter $(BUILD)/src/util/% $(BUILD)/src/imap/imap_cmd.o \
		  $(BUILD)/src/net/compress.o,$(LIB_OBJ))
$(FAKE_BIN): $(FAKE_OBJ) $(FAKE_LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(LMTP_BIN): $(BUILD)/tests/lmtp/lmtp_deliver.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The bash completion's option, word and state lists come from the
# program's own tables, so they cannot drift from what it parses.
$(GEN_COMP): $(BUILD)/tools/gen_completion.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(COMPLETION): $(GEN_COMP) completion/imapstress.bash.in
	$(GEN_COMP) completion/imapstress.bash.in > $@.tmp && mv $@.tmp $@

# Unit tests include check_main.h from the top of tests/unit.
$(UNIT_OBJ): CPPFLAGS += -Itests/unit

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

deps:
	@scripts/deps

unit: $(UNIT_BIN)
	CK_FORK=$(UNIT_FORK) CK_DEFAULT_TIMEOUT=120 UNIT_LANES=$(UNIT_LANES) scripts/unit-lanes $(UNIT_BIN)

# Every test: no call circle between src/ folders (scripts/check-layers,
# from the objects' symbols), the module maps of README.md and
# docs/layout.md still those of src/ (scripts/module-map), unit suites,
# then the fault-injection and Dovecot tests, which find the binaries
# through IMAPSTRESS / FAKEIMAPD.
check: deps
	$(MAKE) check-build
	scripts/check-layers $(BUILD)
	scripts/module-map --check
	CK_FORK=$(UNIT_FORK) CK_DEFAULT_TIMEOUT=120 UNIT_LANES=$(UNIT_LANES) scripts/unit-lanes $(UNIT_BIN)
	RUN_ALL_JOBS=$(RUN_ALL_JOBS) IMAPSTRESS=$(CURDIR)/$(BIN) FAKEIMAPD=$(CURDIR)/$(FAKE_BIN) tests/run-all

check-asan: deps
	$(MAKE) SAN=1 check

# What `make check` runs, built and nothing run (.ci/run builds the
# sanitizer tree this way beside the plain tests).
check-build:
	$(MAKE) all $(BIN) $(UNIT_BIN) $(FAKE_BIN) $(LMTP_BIN)

demo: deps
	$(MAKE) all
	scripts/demo

# Each harness for FUZZ_SECONDS (default 600); `make fuzz-smoke` is the
# short run CI does.
fuzz:
	$(MAKE) -f tests/fuzz/Makefile run

fuzz-smoke:
	scripts/fuzz-smoke

valgrind: deps
	$(MAKE) $(UNIT_BIN)
	CK_FORK=no valgrind --error-exitcode=1 --leak-check=full -q $(UNIT_BIN)

bench: all $(FAKE_BIN)
	scripts/bench-client

version:
	@echo $(VERSION)

install: $(BIN) $(COMPLETION)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/imapstress
	for s in $(SCRIPTS); do \
		$(INSTALL) -m 755 scripts/$$s $(DESTDIR)$(BINDIR)/imapstress-$$s || exit 1; \
	done
	$(INSTALL) -m 644 man/imapstress.1 $(DESTDIR)$(MANDIR)/man1/imapstress.1
	for s in $(SCRIPTS); do \
		ln -sf imapstress.1 $(DESTDIR)$(MANDIR)/man1/imapstress-$$s.1 || exit 1; \
	done
	$(INSTALL) -m 644 $(COMPLETION) $(DESTDIR)$(COMPDIR)/imapstress
	$(if $(PROFILES),$(INSTALL) -d $(DESTDIR)$(DATADIR)/profiles)
	$(if $(PROFILES),$(INSTALL) -m 644 $(PROFILES) $(DESTDIR)$(DATADIR)/profiles/)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/imapstress $(DESTDIR)$(MANDIR)/man1/imapstress.1 \
		$(DESTDIR)$(COMPDIR)/imapstress
	for s in $(SCRIPTS); do \
		rm -f $(DESTDIR)$(BINDIR)/imapstress-$$s $(DESTDIR)$(MANDIR)/man1/imapstress-$$s.1; \
	done
	rm -rf $(DESTDIR)$(DATADIR)

# From a copy under build/deb (dpkg-buildpackage writes to the parent
# directory and cleans the tree it runs in), then lintian.
deb:
	scripts/build-deb

clean:
	rm -rf build build-asan build-fuzz imapstress

-include $(shell find build build-asan -name '*.d' 2>/dev/null)
