#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SOCK_SEQPACKET/IPPROTO_MRC sockets exist in both inet families, and the
# calls that are not implemented yet fail with EOPNOTSUPP, never silently.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

sock=$MRC_SELFTESTS/mrc_sock

mrc_expect_eq "IPv4 socket is SEQPACKET/IPPROTO_MRC" \
	"domain=2 type=5 protocol=254" "$("$sock" info inet)"
mrc_expect_eq "IPv6 socket is SEQPACKET/IPPROTO_MRC" \
	"domain=10 type=5 protocol=254" "$("$sock" info inet6)"

for fam in inet inet6; do
	mrc_expect_eq "$fam getsockname works on a new socket" OK \
		"$("$sock" call "$fam" getsockname)"
	for call in bind connect listen accept send recv shutdown; do
		mrc_expect_eq "$fam $call not implemented: EOPNOTSUPP" \
			EOPNOTSUPP "$("$sock" call "$fam" "$call")"
	done
done

mrc_done
