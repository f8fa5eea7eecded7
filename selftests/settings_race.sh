#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Settings change as a whole, never torn while connections are made.
#
#  1. a range whose minimum is above its maximum is refused with an extack
#     message, whether given in one request or made by changing one end
#  2. ev_range_flip_while_connecting: one loop flips the EV port range of
#     a namespace between two adjacent ranges of different sizes, both
#     ends in one "mrc config set", while mrc_conns opens connections in
#     it; every end of every connection has its EV ports from one of the
#     two ranges, all distinct, as many as that range gives (a connection
#     sized from one range and drawn from the other, or from a torn range
#     [min of one, max of the other], fails), and the kernel logged no
#     warning (a torn range with the minimum one above the maximum was a
#     division by zero)
#  3. children_under_owner: a listener that never accepts is killed while
#     its 100 children's peers send to them and "mrc path deny/allow"
#     and dumps reach every connection: every peer is reset, no child is
#     left, the kernel logs nothing
#
# Two loops flip the range: "mrc config set" (slow in an emulated VM) and
# mrc_nlfuzz.py flip (as fast as the kernel answers).  Connections are
# opened in batches (mrc_conns), each checked, then closed.
#
# Environment: MRC_RACE_SECONDS (how long batches are opened, 20),
# MRC_RACE_BATCH (connections per batch, 100).

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

conns_bin=$MRC_SELFTESTS/mrc_conns
nlfuzz=$MRC_SELFTESTS/mrc_nlfuzz.py
mrc_require_tools "$conns_bin" "$nlfuzz"

tmp=$(mktemp -d)
# shellcheck disable=SC2317 # called by the EXIT trap
race_cleanup() {
	mrc_cleanup
	rm -rf "$tmp"
}
trap race_cleanup EXIT

dmesg_start=$(dmesg | wc -l)
seconds=${MRC_RACE_SECONDS:-20}
batch=${MRC_RACE_BATCH:-100}

# Two adjacent ranges: A has 16 ports, B the 64 after it.  With ev_count
# 32 and ev_spares 8 a connection has 16 EVs (16 + 0) from A, 40 (32 + 8)
# from B.  Going from A to B, the old field-by-field stores left
# [B_MIN, A_MAX] for a moment: min one above max, a range of 0 ports.
A_MIN=40000
A_MAX=40015
A_EVS=16
B_MIN=40016
B_MAX=40079
B_EVS=40

mrc_ns_create NS || { mrc_fail "namespace"; mrc_done; }
mrc_check "ev_count 32 ev_spares 8, range A" \
	mrc -n "$NS" config set ev_count 32 ev_spares 8 \
	ev_port_min "$A_MIN" ev_port_max "$A_MAX"

# ------------------------------------------------------- 1. refused ranges

inverted_range_refused() {
	local out before after

	before=$(mrc -n "$NS" -j config show)
	if out=$(mrc -n "$NS" config set ev_port_min 50000 ev_port_max 40000 2>&1); then
		mrc_fail "inverted range refused" "min 50000 max 40000 was taken"
	elif [[ $out != *"ev_port_min is above ev_port_max"* ]]; then
		mrc_fail "inverted range refused" \
			"expected 'ev_port_min is above ev_port_max', saw '$out'"
	else
		mrc_ok "inverted range refused"
	fi

	# one end moved past the other, the rest of the request fine
	if out=$(mrc -n "$NS" config set ev_count 8 ev_port_min "$B_MIN" 2>&1); then
		mrc_fail "minimum moved above the maximum refused" \
			"ev_port_min $B_MIN over max $A_MAX was taken"
	elif [[ $out != *"ev_port_min is above ev_port_max"* ]]; then
		mrc_fail "minimum moved above the maximum refused" \
			"expected 'ev_port_min is above ev_port_max', saw '$out'"
	else
		mrc_ok "minimum moved above the maximum refused"
	fi

	after=$(mrc -n "$NS" -j config show)
	mrc_expect_eq "a refused request changes nothing" "$before" "$after"
}
inverted_range_refused

# ------------------------------------------- 2. flips while connecting

# flip_ranges STOPFILE: with the tool, flip between B and A until STOPFILE
# exists; print how many changes were made and how many failed.
flip_ranges() {
	local n=0 bad=0
	while [ ! -e "$1" ]; do
		mrc -n "$NS" config set ev_port_min "$B_MIN" ev_port_max "$B_MAX" ||
			bad=$((bad + 1))
		mrc -n "$NS" config set ev_port_min "$A_MIN" ev_port_max "$A_MAX" ||
			bad=$((bad + 1))
		n=$((n + 2))
	done
	echo "$n $bad"
}

# check_evs FILE: from a "mrc -j path show" dump, the connection ends whose
# EVs are not all of one range, distinct and as many as it gives; one
# line each, at most 5.
check_evs() {
	jq -r --argjson amin "$A_MIN" --argjson amax "$A_MAX" \
		--argjson aevs "$A_EVS" --argjson bmin "$B_MIN" \
		--argjson bmax "$B_MAX" --argjson bevs "$B_EVS" '
		def within($lo; $hi): all(.[]; . >= $lo and . <= $hi);
		def fits($lo; $hi; $n):
			within($lo; $hi) and length == $n and
			(unique | length) == $n;
		group_by(.cid) | map({cid: .[0].cid, ports: map(.port)}) |
		map(select((.ports | fits($amin; $amax; $aevs)) or
			   (.ports | fits($bmin; $bmax; $bevs)) | not)) |
		.[:5][] |
		"cid \(.cid): \(.ports | length) EVs, \(.ports | unique | length) distinct, ports \(.ports | min)-\(.ports | max)"
		' "$1"
}

# conns_batch PORT: open $batch connections in NS to 127.0.0.1:PORT, then
# check the EVs of every connection end of the namespace; "ok N ENDS" or
# "fail WHY".
conns_batch() {
	local port=$1 fd i out opened ends bad pid

	rm -f "$tmp/conns.in"
	mkfifo "$tmp/conns.in" || { echo "fail mkfifo"; return; }
	"$conns_bin" -q -n "$batch" "$NS" "$NS" 127.0.0.1 "$port" \
		<"$tmp/conns.in" >"$tmp/conns.out" 2>&1 &
	pid=$!
	exec {fd}>"$tmp/conns.in"
	for ((i = 0; i < 600; i++)); do
		grep -q '^ready' "$tmp/conns.out" && break
		kill -0 "$pid" 2>/dev/null || break
		mrc_nap 0.1
	done
	out=$(grep '^ready' "$tmp/conns.out")
	if [ -z "$out" ]; then
		echo "fail mrc_conns: $(tail -n 3 "$tmp/conns.out" | tr '\n' ' ')"
	else
		opened=$(echo "$out" | cut -d' ' -f2)
		mrc -n "$NS" -j path show >"$tmp/paths" 2>"$tmp/paths.err"
		ends=$(jq 'map(.cid) | unique | length' "$tmp/paths" 2>/dev/null)
		bad=$(check_evs "$tmp/paths")
		if [ "${ends:-0}" -lt $((opened * 2)) ]; then
			echo "fail expected the EVs of at least $((opened * 2)) connection ends, saw ${ends:-none} ($(head -c 200 "$tmp/paths.err"))"
		elif [ -n "$bad" ]; then
			echo "fail expected $A_EVS distinct EVs in $A_MIN-$A_MAX or $B_EVS in $B_MIN-$B_MAX, saw: $(echo "$bad" | tr '\n' ';')"
		else
			echo "ok $opened $ends"
		fi
	fi
	echo quit >&"$fd"
	exec {fd}>&-
	wait "$pid"
}

ev_range_flip_while_connecting() {
	local name=ev_range_flip_while_connecting
	local stop=$tmp/stop tool_pid fast_pid flips bad res
	local end=$((SECONDS + seconds)) port=7400 conns=0 fails=0 first=

	rm -f "$stop"
	flip_ranges "$stop" >"$tmp/flips" &
	tool_pid=$!
	mrc_pids+=("$tool_pid")
	ip netns exec "$NS" "$nlfuzz" flip -t $((seconds * 3)) -f "$stop" \
		"$B_MIN" "$B_MAX" "$A_MIN" "$A_MAX" >"$tmp/fast" 2>&1 &
	fast_pid=$!
	mrc_pids+=("$fast_pid")

	while [ "$SECONDS" -lt "$end" ]; do
		res=$(conns_batch "$port")
		port=$((port + 1))
		case $res in
		ok*)
			conns=$((conns + $(echo "$res" | cut -d' ' -f2)))
			;;
		*)
			fails=$((fails + 1))
			[ -n "$first" ] || first=${res#fail }
			;;
		esac
	done
	touch "$stop"
	wait "$tool_pid"
	wait "$fast_pid"
	read -r flips bad <"$tmp/flips"
	echo "# $((port - 7400)) batches, $conns connections opened while the range flipped"
	echo "# mrc config set: $flips range changes, $bad refused"
	echo "# mrc_nlfuzz.py flip: $(head -n 2 "$tmp/fast" | tr '\n' ' ')"
	mrc_expect_eq "every range change with the tool taken" 0 "$bad"
	if grep -q '^flips [0-9]* refused 0$' "$tmp/fast"; then
		mrc_ok "every fast range change taken"
	else
		mrc_fail "every fast range change taken" "$(tr '\n' ' ' <"$tmp/fast")"
	fi
	if [ "$fails" -eq 0 ] && [ "$conns" -gt 0 ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "$fails of $((port - 7400)) batches failed, the first: ${first:-no connection opened}"
	fi
}
ev_range_flip_while_connecting

# ------------------------------------- 3. children changed under their owner

# children_under_owner: a listener that never accepts holds 100 children
# whose peers keep sending to them; while "mrc path deny/allow ports"
# (which reaches every connection under its socket lock) and connection
# dumps loop, the listener is killed: mrc_listen_stop() aborts each child,
# taking its lock as its owner would (it once took only the BH lock, while
# a netlink handler could own the child and walk its EV set).  Every peer
# is reset, no child is left, and the kernel logs nothing (checked below,
# and by lockdep and KASAN in UML).
children_under_owner() {
	local name="children changed under their owner" stop=$tmp/stop3
	local lpid cpid loop_pid min abt0 out n i
	min=$(mrc -n "$NS" -j config show | jq .ev_port_min)
	abt0=$(mrc_stat "$NS" conn_aborted)
	mrc_listen_idle "$NS" 127.0.0.1 7600 "$tmp/l3.out"
	lpid=$mrc_listen_pid
	mrc_wait_listening "$tmp/l3.out" || { mrc_fail "$name: listener"; return; }
	ip netns exec "$NS" python3 -c '
import errno, socket, time
socks = []
for i in range(100):
    c = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
    c.connect(("127.0.0.1", 7600))
    socks.append(c)
print("connected", len(socks), flush=True)
alive, end = set(range(len(socks))), time.time() + 60
while alive and time.time() < end:
    for i in list(alive):
        try:
            socks[i].send(b"x" * 200, socket.MSG_DONTWAIT)
        except BlockingIOError:
            pass
        except OSError as e:
            if e.errno in (errno.ECONNRESET, errno.EPIPE):
                alive.discard(i)
            else:
                raise
    time.sleep(0.01)
print("reset", len(socks) - len(alive), "of", len(socks), flush=True)' \
		>"$tmp/c3.out" 2>&1 &
	cpid=$!
	mrc_pids+=("$cpid")
	for ((i = 1; i <= 300; i++)); do
		grep -q '^connected' "$tmp/c3.out" && break
		mrc_nap 0.1
	done
	mrc_expect_eq "$name: 100 connections to a listener that never accepts" \
		"connected 100" "$(grep '^connected' "$tmp/c3.out")"
	rm -f "$stop"
	(
		n=0
		while [ ! -e "$stop" ]; do
			mrc -n "$NS" path deny ports "$min-$((min + 3))"
			mrc -n "$NS" conn show >/dev/null
			mrc -n "$NS" path allow ports "$min-$((min + 3))"
			n=$((n + 1))
		done
		echo "$n" >"$tmp/loops3"
	) &
	loop_pid=$!
	mrc_nap 1
	kill -9 "$lpid"
	wait "$cpid"
	touch "$stop"
	wait "$loop_pid"
	out=$(grep '^reset' "$tmp/c3.out")
	echo "# $name: $out; $(cat "$tmp/loops3") deny/dump/allow rounds; conn_aborted +$(($(mrc_stat "$NS" conn_aborted) - abt0))"
	mrc_expect_eq "$name: the listener's close reset every child's peer" \
		"reset 100 of 100" "$out"
	for ((i = 1; i <= 50; i++)); do
		n=$(mrc_conn_count "$NS")
		[ "$n" = 0 ] && break
		mrc_nap 0.2
	done
	mrc_expect_eq "$name: no connection is left" 0 "$n"
	mrc_check "$name: the deny and allow loop ran" test "$(cat "$tmp/loops3")" -gt 0
}
children_under_owner

dmesg | tail -n +"$((dmesg_start + 1))" >"$tmp/dmesg"
if "$MRC_TOP/tools/testing/vm/check-console" "$tmp/dmesg" >"$tmp/cc.out" 2>&1; then
	mrc_ok "no kernel warning"
else
	mrc_fail "no kernel warning" "$(head -n 5 "$tmp/cc.out" | tr '\n' ' ')"
fi

mrc_done
