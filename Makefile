# imapstress: plain GNU make + pkg-config.
#
#   make              build ./imapstress
#   make check        install missing Debian packages (as root), build, run
#                     every test: unit (Check), fake-server faults, Dovecot
#   make check-asan   the same tests built with -fsanitize=address,undefined
#   make demo         build, start a private Dovecot, run a short benchmark
#   make fuzz         libFuzzer harnesses (clang)
#   make valgrind     unit tests under valgrind

PKGS      := libevent libevent_openssl libevent_pthreads openssl zlib
CC        ?= cc
OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter -Werror
SAN       ?=
BUILD     ?= build
CPPFLAGS  += -D_GNU_SOURCE -Isrc
CFLAGS    += -std=c11 $(OPT) $(WARN) -MMD -MP
ifeq ($(SAN),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=address,undefined
BUILD     := build-asan
endif

# pkg-config is only asked when compiling, so `make clean` works before
# scripts/deps has run.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
CHECK_LIBS = $(shell pkg-config --libs check)

SRC       := $(wildcard src/*.c)
LIB_SRC   := $(filter-out src/main.c,$(SRC))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(BUILD)/%.o)
FAKE_SRC  := $(wildcard tests/fake/*.c)
FAKE_OBJ  := $(FAKE_SRC:%.c=$(BUILD)/%.o)

BIN       := $(BUILD)/imapstress
UNIT_BIN  := $(BUILD)/unit-tests
FAKE_BIN  := $(BUILD)/fakeimapd

.PHONY: all deps check check-asan unit demo fuzz fuzz-smoke valgrind clean bench
all: imapstress

imapstress: $(BIN)
	@if [ "$(BUILD)" = build ]; then cp $(BIN) $@; fi

$(BIN): $(BUILD)/src/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(UNIT_BIN): $(UNIT_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(PKG_LIBS)

$(FAKE_BIN): $(FAKE_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

deps:
	@scripts/deps

unit: $(UNIT_BIN)
	CK_FORK=yes CK_DEFAULT_TIMEOUT=120 $(UNIT_BIN)

# Every test: unit suites, then the fault-injection and Dovecot tests, which
# find the binaries through IMAPSTRESS / FAKEIMAPD.
check: deps
	$(MAKE) all $(BIN) $(UNIT_BIN) $(FAKE_BIN)
	CK_FORK=yes CK_DEFAULT_TIMEOUT=120 $(UNIT_BIN)
	IMAPSTRESS=$(CURDIR)/$(BIN) FAKEIMAPD=$(CURDIR)/$(FAKE_BIN) tests/run-all

check-asan: deps
	$(MAKE) SAN=1 check

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

clean:
	rm -rf build build-asan build-fuzz imapstress

-include $(shell find build build-asan -name '*.d' 2>/dev/null)
