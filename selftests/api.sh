#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The socket API's behaviour and error codes over loopback, for IPv4, IPv6
# and v4-mapped addresses: connect, bind, listen/accept, sendmsg, recvmsg,
# MRC_INFO, close, poll and memory regions (registration, limits,
# release).  mrc_api does the checks, in a namespace of its own with a
# small max_msg_size; this script relays its TAP lines and checks the
# namespace's counters.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

api=$MRC_SELFTESTS/mrc_api
[ -x "$api" ] || { mrc_fail "mrc_api is built" "$api missing: run make"; mrc_done; }

max=262144
ns=
mrc_ns_create ns || { mrc_fail "namespace created"; mrc_done; }
mrc_check "max_msg_size set to $max" mrc -n "$ns" config set max_msg_size "$max"
mrc_expect_eq "namespace reports max_msg_size $max" "$max" \
	"$(mrc_setting "$ns" max_msg_size)"

out=$(mktemp)
ip netns exec "$ns" "$api" -m "$max" >"$out" 2>&1
rc=$?
checks=0
failed=$mrc_nfail
while IFS= read -r line; do
	case "$line" in
	"not ok "*" - api: "*)
		checks=$((checks + 1))
		mrc_fail "${line#not ok * - api: }"
		;;
	"ok "*" - api: "*)
		checks=$((checks + 1))
		mrc_ok "${line#ok * - api: }"
		;;
	1..*)
		;;
	*)
		echo "$line"
		;;
	esac
done <"$out"
rm -f "$out"
if [ "$checks" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$mrc_nfail" -eq "$failed" ]; }; then
	mrc_fail "mrc_api ran to the end" "exited $rc after $checks checks"
fi

# two refused connects per address family (inet, inet6, v4-mapped)
mrc_expect_eq "conn_refused counts the refused connects" 6 \
	"$(mrc_stat "$ns" conn_refused)"
# mrc_api's memory regions (test_mr): 4 on its connection, MRC_MR_MAX
# (1024) on one socket, 1 in a child that exits with it, 2 under
# RLIMIT_MEMLOCK; refused for room: 2 past MRC_MR_MAX, 2 over the limit.
# test_write: 4 per family; test_completions, test_write_imm: 2 each;
# test_read: 8 each
mrc_expect_eq "mr_reg counts the registrations" 1063 \
	"$(mrc_stat "$ns" mr_reg)"
mrc_expect_eq "mr_dereg: every region released" 1063 \
	"$(mrc_stat "$ns" mr_dereg)"
mrc_expect_eq "mr_denied counts the refusals for room" 4 \
	"$(mrc_stat "$ns" mr_denied)"

# mrc_api's WRITEs (test_write, test_completions and test_write_imm, inet
# and inet6): per family four into a read-only region, four past a region's end, three
# with keys of no region of the connection, and the pieces of a 32 MiB
# WRITE that arrived after its region was deregistered (with more than
# one CPU at least one: the test saw bytes not yet written when it
# deregistered)
declare -A w
for k in out_write write_placed write_bad_key write_bad_access \
	 write_bad_range out_status in_status drop_bad_status write_imm \
	 read_served read_refused read_done drop_bad_resp; do
	w[$k]=$(mrc_stat "$ns" "$k")
done
mrc_expect_eq "write_bad_access counts WRITEs into read-only regions" 8 \
	"${w[write_bad_access]}"
mrc_expect_eq "write_bad_range counts WRITEs past a region's end" 8 \
	"${w[write_bad_range]}"
bad_keys=6
[ "$(nproc)" -gt 1 ] && bad_keys=8
if [ "${w[write_bad_key]:-0}" -ge "$bad_keys" ]; then
	mrc_ok "write_bad_key counts WRITEs with no region's key"
else
	mrc_fail "write_bad_key counts WRITEs with no region's key" \
		"${w[write_bad_key]}, expected at least $bad_keys"
fi
# loopback loses nothing: every WRITE packet sent arrived once, and was
# placed or refused
mrc_expect_eq "every WRITE packet sent was placed or refused" \
	"${w[out_write]}" \
	"$((w[write_placed] + w[write_bad_key] + w[write_bad_access] + \
	    w[write_bad_range]))"
# per family at least 2 packets of 100000 bytes (lo's MTU is 64 KiB) and
# one per WRITE of the 40
if [ "${w[write_placed]:-0}" -ge 84 ]; then
	mrc_ok "write_placed counts the WRITE packets placed"
else
	mrc_fail "write_placed counts the WRITE packets placed" \
		"${w[write_placed]}, expected at least 84"
fi
# status records, one per WRITE that failed or was signaled: per family
# test_write's 5 refused and its signaled 32 MiB one, test_completions'
# 265, test_write_imm's failed one, test_read's 5 failed READs (mrc_api.c);
# both ends are in this namespace, loopback loses none
mrc_expect_eq "out_status counts the records sent" 554 "${w[out_status]}"
mrc_expect_eq "in_status: each record taken once" 554 "${w[in_status]}"
# test_write_imm: three notifications per family (its fourth WRITE with
# immediate failed)
mrc_expect_eq "write_imm counts the notifications" 6 "${w[write_imm]}"
mrc_expect_eq "drop_bad_status: no record for an unknown operation" 0 \
	"${w[drop_bad_status]}"
# test_read per family: 26 READs served whole (one while its requester
# deregistered its region) and ended at the requester, 5 refused (a key of
# no region, one not readable, past the end, deregistered)
mrc_expect_eq "read_served counts the READs served" 52 "${w[read_served]}"
mrc_expect_eq "read_done: each served READ ended once" 52 "${w[read_done]}"
mrc_expect_eq "read_refused counts the READs refused" 10 \
	"${w[read_refused]}"
mrc_expect_eq "drop_bad_resp: every response named its READ" 0 \
	"${w[drop_bad_resp]}"

mrc_done
