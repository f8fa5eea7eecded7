#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KNOWN BUG, not part of make check (it crashes the kernel): after mrc.ko
# is unloaded and loaded again while a network namespace exists, and that
# namespace is then deleted, sockets in a new namespace end up freed twice
# (WARN in call_rcu from mrc_close, then a general protection fault).
# Plain transfers survive; the socket API checks of mrc_api trigger it.
# Run: tools/testing/vm/run -- selftests/repro_reload_netns.sh

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
keep=
mrc_ns_create keep
rmmod mrc && insmod "$MRC_KO"
mrc_ns_del "$keep"
sleep 1
ns=
mrc_ns_create ns
mrc -n "$ns" config set max_msg_size 262144
ip netns exec "$ns" "$MRC_SELFTESTS/mrc_api" -m 262144 >/dev/null 2>&1
mrc_expect_eq "no warning after reload + namespace deletion" 0 \
	"$(dmesg | grep -c 'cut here')"
mrc_done
