#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mrc.ko loads, registers its socket protocol and netlink family, refuses
# to unload while a socket is open, unloads cleanly, and loads again.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build

sock=$MRC_SELFTESTS/mrc_sock

mrc_check "module loads" mrc_module_load
mrc_check "netlink family answers after load" mrc config show
mrc_expect_eq "IPv4 socket created after load" OK "$("$sock" create inet)"
mrc_check "module unloads with no socket open" mrc_module_unload
mrc_check_fails "module absent from /proc/modules after unload" mrc_module_loaded
mrc_check_fails "netlink family gone after unload" mrc config show
# ESOCKTNOSUPPORT when no protocol serves SOCK_SEQPACKET, EPROTONOSUPPORT
# when another one does (sctp loaded)
err=$("$sock" create inet)
case "$err" in
ESOCKTNOSUPPORT|EPROTONOSUPPORT) mrc_ok "socket() refused after unload" ;;
*) mrc_fail "socket() refused after unload" "expected ESOCKTNOSUPPORT or EPROTONOSUPPORT, saw '$err'" ;;
esac
mrc_check "module loads again" mrc_module_load
mrc_check "netlink family answers after reload" mrc config show

# A socket holds a reference on the module.
ready=$(mktemp -u /tmp/mrc-ready.XXXXXX)
"$sock" hold inet6 "$ready" &
holder=$!
mrc_pids+=("$holder")
for ((_n = 1; _n <= 100; _n++)); do
	[ -e "$ready" ] && break
	mrc_nap 0.1
done
mrc_check "socket held open" test -e "$ready"
mrc_check_fails "unload refused while a socket is open" rmmod mrc
mrc_check "module still loaded" mrc_module_loaded
kill "$holder"
wait "$holder" 2>/dev/null
rm -f "$ready"
mrc_check "unload once the socket is closed" mrc_module_unload

# Many sockets created and closed leave no reference behind.
mrc_check "module loads for the many-sockets run" mrc_module_load
mrc_expect_eq "1000 IPv4 sockets created and closed" OK "$("$sock" create inet 1000)"
mrc_expect_eq "1000 IPv6 sockets created and closed" OK "$("$sock" create inet6 1000)"
mrc_check "unload after 2000 sockets" mrc_module_unload
mrc_check "module loaded for the next tests" mrc_module_load

mrc_done
