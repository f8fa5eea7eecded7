#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KNOWN BUG, not part of make check: after the flow tests (64 connections,
# a stalled receiver, peers cut off) one socket reference is never
# dropped and rmmod stays EBUSY.  Run:
#   tools/testing/vm/run -- selftests/repro_leak_after_failures.sh

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
"$(dirname "$0")/flow.sh" >/dev/null 2>&1
# shellcheck disable=SC2317 # called through mrc_check
unload_when_free() {
	local i
	for i in $(seq 40); do
		rmmod mrc 2>/dev/null && return 0
		sleep 0.5
	done
	echo "# after 20 s: $(grep '^mrc ' /proc/modules)"
	return 1
}
mrc_check "module unloads after the flow tests" unload_when_free
mrc_done
