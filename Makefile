# SPDX-License-Identifier: GPL-2.0
#
# mrc: out-of-tree build of net/mrc/mrc.ko, the mrc(8) tool and the tests.
#
#   make               module (against KDIR) and tools
#   make check         every test: static checks, KUnit in UML, selftests
#                      in a VM; installs missing Debian packages (as root)
#   make install       module (+ depmod), tool, man pages, bash completion
#   make kunit         only the KUnit suites and the selftests that run
#                      in the same UML kernel (KASAN, lockdep)
#   make vmtest        only the selftests in the VM (with a test build)
#   make MRC_FAULT_INJECT=1
#                      a test build: module parameters that make
#                      transmissions fail (net/mrc/fault.c)
#   make vm            a shell in the VM with mrc.ko loaded
#   make fuzz          libFuzzer on the packet parser for FUZZ_SECONDS (300)
#   make bench         mrc against TCP (pair), TCP and MPTCP (fabric), TCP
#                      cubic and dctcp (congestion control) in the VM
#   make demo          mrc and TCP side by side through a spine failure

# Newest installed kernel build tree unless told otherwise.
KDIR ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
PREFIX ?= /usr/local
DESTDIR ?=
# extra warnings always: the tree must stay clean with W=1
KBUILD_OPTS := W=1
FUZZ_SECONDS ?= 300

all: modules tools

modules:
	@test -n "$(KDIR)" || { echo "no kernel build tree: install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_OPTS) modules

tools:
	$(MAKE) -C tools/mrc
	$(MAKE) -C selftests

check:
	tools/testing/check

kunit:
	tools/testing/kunit/run --selftests

# the module with its fault injection parameters (inert until set), so
# that the tests that need them run; TEST_PROGS in one VM, then each of
# TEST_PROGS_OWN_VM in one of its own (make check's vm stage)
vmtest:
	$(MAKE) MRC_FAULT_INJECT=1 all
	tools/testing/check vm

vm: all
	tools/testing/vm/run --shell

fuzz:
	$(MAKE) -C tools/testing/fuzz run SECONDS=$(FUZZ_SECONDS)

# the packages first: on a fresh machine these are the first commands run
bench:
	tools/testing/deps
	$(MAKE) all
	$(CC) -O2 -g -Wall -Wextra -Iinclude/uapi -o tools/testing/bench/mrc_bench \
		tools/testing/bench/mrc_bench.c
	$(CC) -O2 -g -Wall -Wextra -Iinclude/uapi -o tools/testing/demo/demo_stream \
		tools/testing/demo/demo_stream.c
	tools/testing/vm/run --timeout 1800 -- tools/testing/bench/run --inside

demo:
	tools/testing/deps
	$(MAKE) all
	$(CC) -O2 -g -Wall -Wextra -Iinclude/uapi -o tools/testing/demo/demo_stream \
		tools/testing/demo/demo_stream.c
	tools/testing/demo/run

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra \
		INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod -a -b $(or $(DESTDIR),/) $(notdir $(patsubst %/build,%,$(KDIR)))
	install -D -m 0755 tools/mrc/mrc $(DESTDIR)$(PREFIX)/sbin/mrc
	install -D -m 0644 tools/mrc/mrc.8 $(DESTDIR)$(PREFIX)/share/man/man8/mrc.8
	install -D -m 0644 tools/mrc/mrc.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/mrc
	install -D -m 0644 Documentation/mrc.7 $(DESTDIR)$(PREFIX)/share/man/man7/mrc.7
	install -D -m 0644 include/uapi/linux/mrc.h $(DESTDIR)$(PREFIX)/include/linux/mrc.h

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/mrc clean
	$(MAKE) -C selftests clean

.PHONY: all modules tools check kunit vmtest vm fuzz bench demo install clean
