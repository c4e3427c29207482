# rdmad + rdmactl: the one build.  See README.md.
#
#   make            build rdmad, rdmactl and the test tools into build/
#   make run        build, then run rdmad in the foreground on the software device
#   make check      build and run every test (unit, BATS, conformance); SANITIZE=1 for ASan+UBSan,
#                   SANITIZE=thread for ThreadSanitizer
#   make bench      run the benchmarks (tests/bench/)
#   make fuzz       run each libFuzzer target for FUZZ_SECONDS (clang)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install missing Debian packages (idempotent)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
# rdmad is the system's (sbin); rdmactl is for group rdma's members too, on their PATH (bin).
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
SANITIZE   ?= 0
CC         ?= cc

ifeq ($(SANITIZE),1)
BUILD      ?= build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),thread)
# ThreadSanitizer for the workers' lock-free rings; it does not model fences (-Wno-tsan).
BUILD      ?= build-tsan
SANFLAGS   := -fsanitize=thread -Wno-tsan
else
BUILD      ?= build
SANFLAGS   :=
endif

PKGS       := libsystemd json-c libnl-3.0 libnl-route-3.0 libibumad readline libgcrypt libisal
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
              -Wmissing-prototypes -Wstrict-prototypes -fno-strict-aliasing \
              -D_GNU_SOURCE -DRDMAD_VERSION='"$(VERSION)"' -I. -I$(BUILD)/gen \
              $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS    += $(SANFLAGS)
LDLIBS     += $(PKG_LIBS) -lpthread

# Every folder is a static library; a program is its main file plus the libraries.
LIB_SRC    := $(shell find lib -name '*.c' | sort)
DP_SRC     := $(shell find dataplane -name '*.c' | sort)
DAEMON_SRC := $(filter-out daemon/main.c,$(shell find daemon -name '*.c' | sort))
CMD_SRC    := $(filter-out cmd/main.c,$(shell find cmd -name '*.c' | sort))
VARLINK_IDL:= $(shell find daemon -name '*.varlink' | sort)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
TOOL_SRC   := $(sort $(wildcard tests/tools/*.c))
BENCH_SRC  := $(sort $(wildcard tests/bench/*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBLIB     := $(BUILD)/liblib.a
LIBDP      := $(BUILD)/libdataplane.a
LIBDAEMON  := $(BUILD)/libdaemon.a
LIBCMD     := $(BUILD)/libcmd.a
# Order matters for static linking: users before what they use.
ALL_LIBS   := $(LIBDAEMON) $(LIBCMD) $(LIBDP) $(LIBLIB)

RDMAD      := $(BUILD)/rdmad
RDMACTL    := $(BUILD)/rdmactl
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
TOOL_BIN   := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
BENCH_BIN  := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# What the benches share (tests/bench/lib/), linked into each of them.
BENCH_LIB  := $(call obj,$(sort $(wildcard tests/bench/lib/*.c)))
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
IDL_C      := $(BUILD)/gen/varlink-idl.c

.PHONY: all build deps run check bench fuzz install clean
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build

build: $(RDMAD) $(RDMACTL) $(UNIT_BIN) $(TOOL_BIN) $(BENCH_BIN) $(FUZZ_BIN)

deps:
	@build-aux/deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The interface descriptions are compiled in, so GetInterfaceDescription serves exactly the files.
$(IDL_C): $(VARLINK_IDL) build-aux/embed-idl.sh
	@mkdir -p $(dir $@)
	build-aux/embed-idl.sh $(VARLINK_IDL) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/varlink-idl.o: $(IDL_C)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBLIB): $(call obj,$(LIB_SRC))
$(LIBDP): $(call obj,$(DP_SRC))
$(LIBDAEMON): $(call obj,$(DAEMON_SRC)) $(BUILD)/obj/gen/varlink-idl.o
$(LIBCMD): $(call obj,$(CMD_SRC))
$(BUILD)/%.a:
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

$(RDMAD): $(call obj,daemon/main.c) $(ALL_LIBS)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS)

# rdmactl is a client: it links no daemon code.
$(RDMACTL): $(call obj,cmd/main.c) $(LIBCMD) $(LIBDP) $(LIBLIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBCMD) $(LIBDP) $(LIBLIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS) -lcmocka

$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(BENCH_LIB) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_LIB) $(ALL_LIBS) $(LDLIBS) -lcrypto

# Fuzz targets: with replay.c here (make check replays the corpus), with libFuzzer in make fuzz.
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay.o $(LIBDAEMON) $(LIBDP) $(LIBLIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/obj/tests/fuzz/replay.o $(LIBDAEMON) $(LIBDP) $(LIBLIB) $(LDLIBS)

FUZZ_SECONDS ?= 60
FUZZ_CFLAGS   = -g -O1 -std=gnu11 -D_GNU_SOURCE -DRDMAD_VERSION='"$(VERSION)"' -I. \
                -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS)
# The VEMA agent is pure logic: the one part of daemon/ a fuzz target links.
VEMA_SRC     := $(addprefix daemon/vnic/,mactable.c vema.c vema_attr.c vema_state.c vema_trap.c vport.c)
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(DP_SRC) $(VEMA_SRC)
	@mkdir -p build-fuzz
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(DP_SRC) $(VEMA_SRC) $(PKG_LIBS)

# New inputs that reach new code land in the corpus; commit the interesting ones.
fuzz: deps
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install clang" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))
	for f in $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC)); do \
		build-fuzz/$$f -max_total_time=$(FUZZ_SECONDS) tests/fuzz/corpus/$$f || exit 1; \
	done

run: all
	@mkdir -p $(BUILD)/run/state
	$(RDMAD) --foreground --socket $(BUILD)/run/io.rdmad --state-dir $(BUILD)/run/state

check: all
	@BUILD=$(BUILD) tests/run.sh

bench: all
	@BUILD=$(BUILD) tests/bench/run.sh

install: build
	install -D -m 0755 $(RDMAD) $(DESTDIR)$(SBINDIR)/rdmad
	install -D -m 0755 $(RDMACTL) $(DESTDIR)$(BINDIR)/rdmactl
	for p in man/*.[0-9]; do install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	build-aux/install-extras.sh "$(DESTDIR)" "$(PREFIX)" "$(SBINDIR)"

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
