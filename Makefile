# rdmad + rdmactl: the one build.  See README.md.
#
#   make            build rdmad, rdmactl and the test tools into build/
#   make run        build, then run rdmad in the foreground on the software device
#   make check      build and run every test (unit, BATS, conformance); SANITIZE=1 for ASan+UBSan,
#                   SANITIZE=thread for ThreadSanitizer
#   make bench      run the benchmarks (tests/bench/)
#   make fuzz       run each libFuzzer target for FUZZ_SECONDS (clang)
#   make install    PREFIX=/usr/local DESTDIR= (LIBDIR, INCLUDEDIR: the client library's)
#   make deps       install missing Debian packages (idempotent)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
# rdmad is the system's (sbin); rdmactl is for group rdma's members too, on their PATH (bin).
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR     ?= $(PREFIX)/share/doc/rdmad
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
# Tools a user runs (tools/), installed with their pages; built beside the test tools.
USER_TOOL_SRC := $(sort $(wildcard tools/*.c))
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
# The test front end of the virtio-net RoCE device: a program of several files that
# links nothing of rdmad, so it holds its own reading of the seed and of vhost-user;
# its unit test links its files but main.c.
VHOST_GUEST_SRC := $(sort $(wildcard tests/tools/vhost-guest/*.c))
VHOST_GUEST_OBJ := $(call obj,$(filter-out tests/tools/vhost-guest/main.c,$(VHOST_GUEST_SRC)))
VHOST_GUEST     := $(BUILD)/tools/vhost-guest
USER_TOOL_BIN := $(patsubst tools/%.c,$(BUILD)/tools/%,$(USER_TOOL_SRC))
BENCH_BIN  := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# What the benches share (tests/bench/lib/), linked into each of them.
BENCH_LIB  := $(call obj,$(sort $(wildcard tests/bench/lib/*.c)))
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
IDL_C      := $(BUILD)/gen/varlink-idl.c

.PHONY: all build deps run check bench fuzz install clean
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build

build: $(RDMAD) $(RDMACTL) $(UNIT_BIN) $(TOOL_BIN) $(VHOST_GUEST) $(USER_TOOL_BIN) $(BENCH_BIN) $(FUZZ_BIN) client

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

# The RoCE load test drives two devices in namespaces as bench_roce does (tests/bench/lib/).
$(BUILD)/tests/test_roce_load: $(BUILD)/obj/tests/unit/test_roce_load.o $(BENCH_LIB) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_LIB) $(ALL_LIBS) $(LDLIBS) -lcmocka -lcrypto

$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(ALL_LIBS) $(LDLIBS)

# The test front end of the virtio-net RoCE device (see VHOST_GUEST above).
$(VHOST_GUEST): $(call obj,tests/tools/vhost-guest/main.c) $(VHOST_GUEST_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/test_vhost_guest_ring: $(BUILD)/obj/tests/unit/test_vhost_guest_ring.o $(VHOST_GUEST_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka

# A user's tool links no daemon code, as rdmactl.
$(USER_TOOL_BIN): $(BUILD)/tools/%: $(BUILD)/obj/tools/%.o $(LIBDP) $(LIBLIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIBDP) $(LIBLIB) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(BENCH_LIB) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BENCH_LIB) $(ALL_LIBS) $(LDLIBS) -lcrypto

# Fuzz targets: with replay.c here (make check replays the corpus), with libFuzzer in make fuzz.
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay.o $(LIBDAEMON) $(LIBDP) $(LIBLIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/obj/tests/fuzz/replay.o $(LIBDAEMON) $(LIBDP) $(LIBLIB) $(LDLIBS)

# The client library (client/, include/rdmad/): a shared library of its own,
# built from position-independent objects of its files and of the varlink
# client it links in; client/librdmad.map exports the API and nothing else.
CLIENT_SRC   := $(sort $(wildcard client/*.c)) lib/varlink/client.c lib/varlink/buffer.c \
                lib/varlink/fds.c lib/varlink/transport.c dataplane/queue.c
CLIENT_OBJ   := $(patsubst %.c,$(BUILD)/pic/%.o,$(CLIENT_SRC))
CLIENT_SO    := $(BUILD)/librdmad.so.$(VERSION)
CLIENT_LINKS := $(BUILD)/librdmad.so.0 $(BUILD)/librdmad.so
# What links the library as an application would: its headers, the .so, found at run time beside it.
APP_CFLAGS    = $(CFLAGS) -Iinclude
APP_LIBS      = -L$(BUILD) -lrdmad -Wl,-rpath,'$$ORIGIN/..'
EXAMPLE_SRC  := $(sort $(wildcard examples/*.c))
EXAMPLE_BIN  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRC))
CLIENT_TEST_SRC := $(sort $(wildcard tests/client/test_*.c))
CLIENT_TEST_BIN := $(patsubst tests/client/%.c,$(BUILD)/tests/%,$(CLIENT_TEST_SRC))
# Programs the BATS suites run: one killed while it holds objects (tests/client/hold.c),
# a victim and an attacker of the data path (tests/client/tenant.c).
CLIENT_TOOLS := $(BUILD)/tools/rdmad-hold $(BUILD)/tools/rdmad-tenant $(BUILD)/tools/rdmad-scale

.PHONY: client
client: $(CLIENT_LINKS) $(EXAMPLE_BIN) $(CLIENT_TEST_BIN) $(CLIENT_TOOLS)

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iinclude -fPIC -MMD -MP -c -o $@ $<

$(CLIENT_SO): $(CLIENT_OBJ) client/librdmad.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,librdmad.so.0 -Wl,--version-script=client/librdmad.map \
		-Wl,--no-undefined -o $@ $(CLIENT_OBJ) $(shell pkg-config --libs json-c)

$(CLIENT_LINKS): $(CLIENT_SO)
	ln -sf $(notdir $(CLIENT_SO)) $@

# The pkg-config file is made at install: it names where the library was installed.
PC_SED       := -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
                -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|'

$(BUILD)/obj/examples/%.o: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -MMD -MP -c -o $@ $<

$(EXAMPLE_BIN): $(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(CLIENT_LINKS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(APP_LIBS)

# Client tests run the library against a real rdmad (tests/bench/lib/rdmad.c starts one).
$(BUILD)/obj/tests/client/%.o: tests/client/%.c
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) -MMD -MP -c -o $@ $<

$(CLIENT_TOOLS): $(BUILD)/tools/rdmad-%: $(BUILD)/obj/tests/client/%.o $(CLIENT_LINKS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(APP_LIBS)

CLIENT_HARNESS := $(BUILD)/obj/tests/client/harness.o $(BUILD)/obj/tests/client/loop.o $(call obj,tests/bench/lib/rdmad.c)
$(CLIENT_TEST_BIN): $(BUILD)/tests/%: $(BUILD)/obj/tests/client/%.o $(CLIENT_HARNESS) $(LIBLIB) \
		$(CLIENT_LINKS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CLIENT_HARNESS) $(APP_LIBS) $(LIBLIB) $(LDLIBS) -lcmocka

FUZZ_SECONDS ?= 60
FUZZ_CFLAGS   = -g -O1 -std=gnu11 -D_GNU_SOURCE -DRDMAD_VERSION='"$(VERSION)"' -I. \
                -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS)
# The VEMA agent is pure logic: the one part of daemon/ a fuzz target links.
VEMA_SRC     := $(addprefix daemon/vnic/,mactable.c vema.c vema_attr.c vema_state.c vema_trap.c vport.c)
# The VM's RoCE control door runs on the device model and a software device without workers.
VDEV_ROCE_SRC := $(filter daemon/verbs/% daemon/soft/%,$(DAEMON_SRC)) daemon/vdev/roce_ctrl.c
build-fuzz/fuzz_vdev_roce: FUZZ_DAEMON_SRC = $(VDEV_ROCE_SRC)
build-fuzz/fuzz_vdev_wqe: FUZZ_DAEMON_SRC = daemon/vdev/wqe.c
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(DP_SRC) $(VEMA_SRC)
	@mkdir -p build-fuzz
	clang $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(DP_SRC) $(VEMA_SRC) $(FUZZ_DAEMON_SRC) $(PKG_LIBS)

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
	for t in $(USER_TOOL_BIN); do install -D -m 0755 $$t $(DESTDIR)$(BINDIR)/$${t##*/}; done
	install -D -m 0755 $(CLIENT_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(CLIENT_SO))
	ln -sf $(notdir $(CLIENT_SO)) $(DESTDIR)$(LIBDIR)/librdmad.so.0
	ln -sf librdmad.so.0 $(DESTDIR)$(LIBDIR)/librdmad.so
	install -D -m 0644 include/rdmad/rdmad.h $(DESTDIR)$(INCLUDEDIR)/rdmad/rdmad.h
	install -D -m 0644 include/rdmad/verbs.h $(DESTDIR)$(INCLUDEDIR)/rdmad/verbs.h
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	sed $(PC_SED) client/rdmad.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/rdmad.pc
	chmod 0644 $(DESTDIR)$(LIBDIR)/pkgconfig/rdmad.pc
	for p in man/*.[0-9]; do install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	@# The examples, linked again without the build tree's run path: installed, they find
	@# librdmad in LIBDIR as any program of the user's does.
	mkdir -p $(DESTDIR)$(BINDIR)
	for e in $(notdir $(EXAMPLE_BIN)); do \
		$(CC) $(LDFLAGS) -o $(DESTDIR)$(BINDIR)/$$e $(BUILD)/obj/examples/$$e.o -L$(BUILD) -lrdmad && \
		chmod 0755 $(DESTDIR)$(BINDIR)/$$e || exit 1; \
	done
	@# The VNIC example is a script to read and adapt, run as root: beside the
	@# examples' README, not on every user's PATH.
	install -D -m 0644 examples/README.md $(DESTDIR)$(DOCDIR)/examples/README.md
	install -D -m 0755 examples/vnic-netns.sh $(DESTDIR)$(DOCDIR)/examples/vnic-netns.sh
	build-aux/install-extras.sh "$(DESTDIR)" "$(PREFIX)" "$(SBINDIR)" "$(BINDIR)"

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
