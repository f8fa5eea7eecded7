#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile and unlucky peers (the hardening issue): a listener whose lock
# is always owned, a handshake that needs the listener's cookie, old
# duplicates of a finished handshake, and a local user without privileges
# who knows a connection's ids and tries to reset, inject into and starve
# it through a plain UDP socket.  Each part failed on the code before the
# three-way handshake and the RST check (wire version 1); the last, the
# order of the windows in reordered ACKs, failed before ack_seq; the
# last, reports of lost ACKs, before they were read from duplicates and
# repeated.  The status records of one-sided operations (wire version 5)
# are checked against a peer by hand too, and READs (wire version 7).
# The last part is bad luck rather than malice: with no TIME_WAIT, the
# RST that answers a FIN whose ACK was lost must end the connection in
# order.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }

PEER=$MRC_SELFTESTS/mrc_peer.py
CONNS=$MRC_SELFTESTS/mrc_conns
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
tmp=$(mktemp -d)
# the unprivileged user keeps its CONFIRM there
chmod 0777 "$tmp"

# stat_delta NS NAME BEFORE: how much a counter moved since BEFORE
stat_delta() {
	echo $(($(mrc_stat "$1" "$2") - $3))
}

# as_nobody NS CMD...: CMD in namespace NS as an unprivileged user
as_nobody() {
	local ns=$1
	shift
	ip netns exec "$ns" "${NOBODY[@]}" "$@"
}

# peer_start NS: mrc_peer.py's server (serve), as an unprivileged user in
# NS, for peer_run; python starts slowly in the VM, so one per namespace
peer_start() {
	local ns=$1 w r
	mkfifo "$tmp/peer.$ns.in" "$tmp/peer.$ns.out"
	as_nobody "$ns" python3 "$PEER" serve <"$tmp/peer.$ns.in" \
		>"$tmp/peer.$ns.out" 2>&1 &
	peer_pid[$ns]=$!
	mrc_pids+=("$!")
	exec {w}>"$tmp/peer.$ns.in" {r}<"$tmp/peer.$ns.out"
	peer_in[$ns]=$w
	peer_out[$ns]=$r
}
declare -A peer_in peer_out peer_pid

# peer_run NS CMD ARGS...: mrc_peer.py CMD ARGS as an unprivileged user in
# NS; what it printed (its errors too) in $peer_said, and "(exit N)" after
# it unless it exited 0
peer_run() {
	local ns=$1 line rc=none
	shift
	[ -n "${peer_in[$ns]:-}" ] || peer_start "$ns"
	# writing to it once it is gone would kill this script (SIGPIPE)
	if ! kill -0 "${peer_pid[$ns]}" 2>/dev/null; then
		peer_said="(mrc_peer.py serve is gone)"
		return
	fi
	printf '%q ' "$@" >&"${peer_in[$ns]}"
	echo >&"${peer_in[$ns]}"
	peer_said=
	while IFS= read -r -t 120 line <&"${peer_out[$ns]}"; do
		case "$line" in
		end) break ;;
		rc=*) rc=${line#rc=} ;;
		*) peer_said+="${peer_said:+ }$line" ;;
		esac
	done
	[ "$rc" = 0 ] || peer_said+=" (exit $rc)"
}

# peer_stop: the servers peer_start started end with their input
peer_stop() {
	local ns w r
	for ns in "${!peer_in[@]}"; do
		w=${peer_in[$ns]}
		r=${peer_out[$ns]}
		exec {w}>&- {r}<&-
	done
}

# app_listen PORT OUT CODE [ARG...]: in the background, an application
# in h2 that listens on PORT, says "listening", accepts one connection
# (c) and runs the python CODE on it (ARGs in sys.argv[1:]); its output
# in OUT, its pid in app_pid.  Returns once it listens.
app_listen() {
	local port=$1 out=$2 code=$3
	shift 3
	ip netns exec "$MRC_H2" python3 -c "
import errno, os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
s.bind(('0.0.0.0', $port))
s.listen(1)
print('listening', flush=True)
c, _ = s.accept()
$code" "$@" >"$out" 2>&1 &
	app_pid=$!
	mrc_pids+=("$app_pid")
	mrc_wait_listening "$out"
}

# answer FD [TIMEOUT]: the lines mrc_conns answers on FD up to its "end",
# on one line ("ready" left out)
answer() {
	local line res=
	while IFS= read -r -t "${2:-120}" line <&"$1"; do
		[ "$line" = end ] && break
		case "$line" in
		ready*) ;;
		*) res+="$line " ;;
		esac
	done
	echo "$res"
}

# 1. Busy listener.  A thread owns the listener's socket lock (getsockopt
# in a loop) while 200 connections are made over the veth.  Before, SYNs
# went to the listener's backlog and were processed by release_sock with
# BH enabled, taking a child's lock and transmitting under it; the peer's
# answer, processed on the same CPU, spun on that lock for ever.
out=$(timeout 180 "$CONNS" -B -q -n 200 "$MRC_H1" "$MRC_H2" \
	"$MRC_H2_ADDR4" 7100 </dev/null 2>"$tmp/busy.err")
rc=$?
case "$rc:$out" in
"0:ready 200 "*) mrc_ok "200 connections to a listener whose lock is always owned" ;;
*) mrc_fail "200 connections to a listener whose lock is always owned" \
	"exit $rc, '$out', $(tr '\n' ' ' <"$tmp/busy.err")" ;;
esac
if grep -q "[1-9][0-9]* getsockopt calls" "$tmp/busy.err"; then
	mrc_ok "the listener was busy meanwhile"
else
	mrc_fail "the listener was busy meanwhile" "$(cat "$tmp/busy.err")"
fi

# 2. The handshake by hand, as an unprivileged user with a UDP socket.
# A listener that never accepts, on h2.
mrc_listen_idle "$MRC_H2" 0.0.0.0 7200 "$tmp/listen.out"
mrc_wait_listening "$tmp/listen.out"

acc0=$(mrc_stat "$MRC_H2" conn_accepted)
abt0=$(mrc_stat "$MRC_H2" conn_aborted)
peer_run "$MRC_H1" handshake --src "$MRC_H1_ADDR4" \
	--dst "$MRC_H2_ADDR4" --port 7200 --save "$tmp/confirm" --reset
out=$peer_said
case "$out" in
cid=*) mrc_ok "SYN, SYNACK, CONFIRM and the first ACK by hand" ;;
*) mrc_fail "SYN, SYNACK, CONFIRM and the first ACK by hand" "$out" ;;
esac
mrc_expect_eq "the CONFIRM made one connection" 1 \
	"$(stat_delta "$MRC_H2" conn_accepted "$acc0")"
mrc_expect_eq "an RST naming its first PSN aborted it" 1 \
	"$(stat_delta "$MRC_H2" conn_aborted "$abt0")"

# A delayed duplicate of that CONFIRM, while its cookie is still valid,
# must not make the connection again.
old0=$(mrc_stat "$MRC_H2" drop_old_confirm)
acc0=$(mrc_stat "$MRC_H2" conn_accepted)
peer_run "$MRC_H1" replay --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	"$tmp/confirm"
mrc_nap 0.5
mrc_expect_eq "a replayed CONFIRM is an old duplicate (drop_old_confirm)" 1 \
	"$(stat_delta "$MRC_H2" drop_old_confirm "$old0")"
mrc_expect_eq "a replayed CONFIRM makes no connection" 0 \
	"$(stat_delta "$MRC_H2" conn_accepted "$acc0")"

# CONFIRMs with made-up cookies make nothing and get no answer.
bad0=$(mrc_stat "$MRC_H2" drop_bad_cookie)
rst0=$(mrc_stat "$MRC_H2" out_rst)
peer_run "$MRC_H1" forge-confirm --src "$MRC_H1_ADDR4" \
	--dst "$MRC_H2_ADDR4" --port 7200 --count 20
mrc_nap 0.5
mrc_expect_eq "forged cookies are dropped (drop_bad_cookie)" 20 \
	"$(stat_delta "$MRC_H2" drop_bad_cookie "$bad0")"
mrc_expect_eq "forged cookies make no connection" 0 \
	"$(stat_delta "$MRC_H2" conn_accepted "$acc0")"
mrc_expect_eq "forged cookies are not answered" 0 \
	"$(stat_delta "$MRC_H2" out_rst "$rst0")"

# SYNs alone cost the listener a SYNACK each and nothing else.
syn0=$(mrc_stat "$MRC_H2" out_synack)
peer_run "$MRC_H1" syns --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7200 --count 100 --first-id $((0x1000))
mrc_nap 0.5
mrc_expect_eq "100 SYNs sent" "sent=100" "${peer_said%% *}"
mrc_expect_eq "100 SYNs get 100 SYNACKs" 100 \
	"$(stat_delta "$MRC_H2" out_synack "$syn0")"
mrc_expect_eq "100 SYNs make no connection" 0 \
	"$(stat_delta "$MRC_H2" conn_accepted "$acc0")"

# The same CONFIRM after the cookie clock's low 32 bits have wrapped
# (71.6 minutes) must not pass the cookie check again: the cookie covers
# all 64 bits.  A test build moves the clock: once the connection is
# forgotten (8 s after the SYNACK), forward by 2^32 us less the time
# since the SYNACK, plus a second, so that the 32-bit age is 1 s.  A
# new handshake on the moved clock still works.
clock_param=/sys/module/mrc/parameters/cookie_clock_us
if [ -w "$clock_param" ]; then
	# the CONFIRM's echo_tsval: bytes 32-35, our clock at the SYNACK
	t=$((16#$(cut -c65-72 "$tmp/confirm")))
	peer_run "$MRC_H1" now
	elapsed=$(((peer_said - t) & 0xffffffff))
	[ "$elapsed" -lt 8500000 ] &&
		sleep "$(((8500000 - elapsed) / 1000000 + 1))"
	peer_run "$MRC_H1" now
	elapsed=$(((peer_said - t) & 0xffffffff))
	wbad0=$(mrc_stat "$MRC_H2" drop_bad_cookie)
	wacc0=$(mrc_stat "$MRC_H2" conn_accepted)
	echo $(((1 << 32) - elapsed + 1000000)) >"$clock_param"
	peer_run "$MRC_H1" replay --src "$MRC_H1_ADDR4" \
		--dst "$MRC_H2_ADDR4" "$tmp/confirm"
	mrc_nap 0.5
	peer_run "$MRC_H1" handshake --src "$MRC_H1_ADDR4" \
		--dst "$MRC_H2_ADDR4" --port 7200 --reset
	out=$peer_said
	echo 0 >"$clock_param"
	mrc_expect_eq "a CONFIRM replayed after the cookie clock wrapped is refused (drop_bad_cookie)" \
		1 "$(stat_delta "$MRC_H2" drop_bad_cookie "$wbad0")"
	case "$out" in
	cid=*) mrc_ok "a new handshake on the moved cookie clock" ;;
	*) mrc_fail "a new handshake on the moved cookie clock" "$out" ;;
	esac
	mrc_expect_eq "only the new handshake made a connection" 1 \
		"$(stat_delta "$MRC_H2" conn_accepted "$wacc0")"
else
	mrc_skip "a CONFIRM replayed after the cookie clock wrapped" \
		"the module is not a test build (MRC_FAULT_INJECT=1)"
fi

# Refusals are answered with RSTs at most 1000 a second per namespace:
# 5000 SYNs for a port nobody listens on, as fast as a plain UDP socket
# sends them, get at most 1000 a second of sending (and one more
# second's worth), every other one counted in out_rst_limited.
rst0=$(mrc_stat "$MRC_H2" out_rst)
lim0=$(mrc_stat "$MRC_H2" out_rst_limited)
ref0=$(mrc_stat "$MRC_H2" drop_no_listener)
peer_run "$MRC_H1" syns --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7299 --count 5000 --first-id $((0x2000))
out=$peer_said
mrc_nap 0.5
rsts=$(stat_delta "$MRC_H2" out_rst "$rst0")
lim=$(stat_delta "$MRC_H2" out_rst_limited "$lim0")
ref=$(stat_delta "$MRC_H2" drop_no_listener "$ref0")
secs=${out##*seconds=}
echo "# 5000 refused SYNs: $out, $ref refused, $rsts RSTs, $lim limited"
if [[ "$out" = sent=5000* ]] && [ "$ref" -ge 4000 ] &&
   [ "$((rsts + lim))" -eq "$ref" ] &&
   [ "$rsts" -le $((1000 * (secs + 1))) ] &&
   { [ "$lim" -gt 0 ] || [ "$secs" -ge 5 ]; }; then
	mrc_ok "RSTs answering refused SYNs are rate-limited (out_rst_limited)"
else
	mrc_fail "RSTs answering refused SYNs are rate-limited (out_rst_limited)" \
		"$out: $ref refused, $rsts RSTs (at most $((1000 * (${secs:-0} + 1)))), $lim limited"
fi

# 3. An unprivileged local user against a connection between two sockets
# of this host (both ends on h2's loopback): it can send from the peer's
# address, so only what it does not know protects the connection.  It is
# given the ids (as if it had guessed them), not the PSNs.
coproc CONNS_P { ip netns exec "$MRC_H2" "$CONNS" -n 1 - - 127.0.0.1 7300 2>&1; }
info=
while IFS= read -r -t 60 line <&"${CONNS_P[0]}"; do
	[ "$line" = end ] && break
	case "$line" in
	'{'*) info+="$line"$'\n' ;;
	esac
done
field() {
	echo "$info" | jq -r --arg s "$1" --arg k "$2" \
		'select(.side == $s) | .[$k]' | head -n 1
}
scid=$(field server local_cid)
speer=$(field server peer_cid)
if [ -z "$scid" ] || [ "$scid" = null ]; then
	mrc_fail "a connection over h2's loopback" "$info"
else
	mrc_ok "a connection over h2's loopback"
	chl0=$(mrc_stat "$MRC_H2" rst_challenged)
	abt0=$(mrc_stat "$MRC_H2" conn_aborted)
	peer_run "$MRC_H2" attack --src 127.0.0.1 \
		--dst 127.0.0.1 --cid "$scid" --peer "$speer" --count 50 \
		--avoid "$(field server snd_una)" "$(field server snd_nxt)" \
		"$(field server rcv_nxt)"
	mrc_expect_eq "the attacker sent its 200 packets" "sent=200" \
		"$peer_said"
	peer_run "$MRC_H2" attack --src 127.0.0.1 \
		--dst 127.0.0.1 --cid "$(field client local_cid)" \
		--peer "$(field client peer_cid)" --count 50 \
		--avoid "$(field client snd_una)" "$(field client snd_nxt)" \
		"$(field client rcv_nxt)"
	mrc_expect_eq "and 200 at the other end" "sent=200" "$peer_said"
	mrc_expect_eq "its RSTs are challenged (rst_challenged)" 100 \
		"$(stat_delta "$MRC_H2" rst_challenged "$chl0")"
	mrc_expect_eq "no connection was aborted" 0 \
		"$(stat_delta "$MRC_H2" conn_aborted "$abt0")"
	echo "xfer 500" >&"${CONNS_P[1]}"
	mrc_expect_eq "500 messages each way arrive intact afterwards" \
		"xfer ok " "$(answer "${CONNS_P[0]}")"
	echo "big 4000000" >&"${CONNS_P[1]}"
	mrc_expect_eq "and a 4 MB message" "big ok " \
		"$(answer "${CONNS_P[0]}")"
fi
if [ -n "${CONNS_P[1]:-}" ]; then
	echo quit >&"${CONNS_P[1]}"
fi
wait "$CONNS_P_PID" 2>/dev/null

# 4. The largest message is announced in the handshake: a message larger
# than the peer's limit fails at sendmsg(), not by a timeout later.
mrc -n "$MRC_H2" config set max_msg_size 100000 >/dev/null
coproc BIG_P { "$CONNS" -q -n 1 "$MRC_H1" "$MRC_H2" \
	"$MRC_H2_ADDR4" 7400 2>&1; }
echo "big 200000" >&"${BIG_P[1]}"
mrc_expect_eq "a message above the peer's max_msg_size: EMSGSIZE at once" \
	"big EMSGSIZE " "$(answer "${BIG_P[0]}" 60)"
echo "big 100000" >&"${BIG_P[1]}"
mrc_expect_eq "a message at the peer's max_msg_size is delivered" \
	"big ok " "$(answer "${BIG_P[0]}" 60)"
if [ -n "${BIG_P[1]:-}" ]; then
	echo quit >&"${BIG_P[1]}"
fi
wait "$BIG_P_PID" 2>/dev/null

# 5. Sprayed ACKs reorder: the window an older ACK carries must not
# replace a newer one's.  A peer by hand takes the data of a connection
# whose application sends a message (within h2's max_msg_size, which
# part 4 left at 100000), closes the window with ACK sequence
# 10, then sends sequence 9 of the same data with a window of 1 MiB: no
# new data may follow it, while sequence 11 with that window opens it.
app_listen 7500 "$tmp/win.out" 'c.send(b"w" * 90000)
time.sleep(30)'
wpid=$app_pid
peer_run "$MRC_H1" window --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7500
out=$peer_said
echo "# window order: $out"
case "$out" in
"stale=0 fresh="[1-9]*)
	mrc_ok "an older ACK's window is ignored, a newer one's taken" ;;
*)
	mrc_fail "an older ACK's window is ignored, a newer one's taken" \
		"expected stale=0 and fresh data, saw '$out'; the sender: $(tr '\n' ' ' <"$tmp/win.out")" ;;
esac
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null

# 6. Reports of lost ACKs (reverse-path learning) survive the losses
# that come with them.  A peer by hand reports an ACK of the listener's
# lost in a duplicate of its message's packet: the listener must read it
# (it once dropped duplicates first).  Then a peer by hand receives,
# skips one ACK sequence number and never acknowledges the packet that
# carries the report: its retransmission must carry it again (the
# report was once sent once).
bad0=$(mrc_stat "$MRC_H2" ev_bad_ack)
peer_run "$MRC_H1" report-dup --src "$MRC_H1_ADDR4" \
	--dst "$MRC_H2_ADDR4" --port 7200
out=$peer_said
mrc_nap 0.5
mrc_expect_eq "a report in a duplicate DATA packet is read ($out)" 1 \
	"$(stat_delta "$MRC_H2" ev_bad_ack "$bad0")"

app_listen 7600 "$tmp/rep.out" 'c.send(b"r" * 90000)
time.sleep(40)'
rpid=$app_pid
peer_run "$MRC_H1" report-again --src "$MRC_H1_ADDR4" \
	--dst "$MRC_H2_ADDR4" --port 7600
out=$peer_said
case "$out" in
report=*:2:40000" again=2:40000")
	mrc_ok "a report goes again with its packet ($out)" ;;
*)
	mrc_fail "a report goes again with its packet" \
		"expected report=PSN:2:40000 again=2:40000, saw '$out'" ;;
esac
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null

# 7. Operation status records from a peer by hand (to the idle listener's
# connection, which sent no operation): one in order and one out of order
# behind a message name no operation and are ignored, counted; WRITE
# pieces with a key of no region draw one failure record per operation
# (a two-piece one too), and the connection takes everything in order.
declare -A st0
for k in drop_bad_status out_status write_bad_key; do
	st0[$k]=$(mrc_stat "$MRC_H2" "$k")
done
peer_run "$MRC_H1" status --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7200
out=$peer_said
mrc_expect_eq "records for no operation are ignored ($out)" 2 \
	"$(stat_delta "$MRC_H2" drop_bad_status "${st0[drop_bad_status]}")"
mrc_expect_eq "one failure record per refused WRITE: the peer saw them" \
	"acked=7 records=0:1,1:1" "$out"
mrc_expect_eq "out_status counts them" 2 \
	"$(stat_delta "$MRC_H2" out_status "${st0[out_status]}")"
mrc_expect_eq "write_bad_key counts the refused pieces" 3 \
	"$(stat_delta "$MRC_H2" write_bad_key "${st0[write_bad_key]}")"

# 8. READs by hand (wire version 7), to the idle listener's connection,
# which has no region and sent no READ: two pieces of responses naming no
# READ, one in order and one out of order behind a message, are taken,
# counted and placed nowhere; a READ of a key of no region draws a
# failure record; the connection takes everything in order.
declare -A rd0
for k in drop_bad_resp read_refused read_served out_status; do
	rd0[$k]=$(mrc_stat "$MRC_H2" "$k")
done
peer_run "$MRC_H1" read --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7200
out=$peer_said
mrc_expect_eq "responses to no READ are taken and ignored ($out)" 2 \
	"$(stat_delta "$MRC_H2" drop_bad_resp "${rd0[drop_bad_resp]}")"
mrc_expect_eq "a READ of no region fails: the peer saw its record" \
	"acked=5 records=0:1" "$out"
mrc_expect_eq "read_refused counts it" 1 \
	"$(stat_delta "$MRC_H2" read_refused "${rd0[read_refused]}")"
mrc_expect_eq "read_served: none" 0 \
	"$(stat_delta "$MRC_H2" read_served "${rd0[read_served]}")"
mrc_expect_eq "out_status counts its record" 1 \
	"$(stat_delta "$MRC_H2" out_status "${rd0[out_status]}")"

# 9. No TIME_WAIT: a peer by hand completes first and forgets the
# connection, its ACK of our FIN lost.  The listener's application shuts
# its side down; the peer takes that FIN without acknowledging it, sends
# its own (acknowledged), then answers our FIN's retransmission with an
# RST naming it, as for a packet of no connection.  Both directions were
# complete: the application, reading only now, must see the end of the
# messages (it saw ECONNRESET before), counted in rst_after_fin, not
# conn_aborted.
raf0=$(mrc_stat "$MRC_H2" rst_after_fin)
abt0=$(mrc_stat "$MRC_H2" conn_aborted)
app_listen 7700 "$tmp/fin.out" 'c.shutdown(socket.SHUT_WR)
end = time.monotonic() + 60
while not os.path.exists(sys.argv[1]) and time.monotonic() < end:
    time.sleep(0.05)
try:
    print("eof" if c.recv(100) == b"" else "data", flush=True)
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)), flush=True)' \
	"$tmp/fin.read"
fpid=$app_pid
peer_run "$MRC_H1" fin-rst --src "$MRC_H1_ADDR4" --dst "$MRC_H2_ADDR4" \
	--port 7700
out=$peer_said
touch "$tmp/fin.read"
wait "$fpid" 2>/dev/null
mrc_expect_eq "the FIN came again and drew the peer's RST" "acked=1 rst=1" \
	"${out#fin=* }"
mrc_expect_eq "an RST after both FINs: the reader sees the end ($out)" \
	"listening eof" "$(tr '\n' ' ' <"$tmp/fin.out" | sed 's/ $//')"
mrc_expect_eq "rst_after_fin counts it" 1 \
	"$(stat_delta "$MRC_H2" rst_after_fin "$raf0")"
mrc_expect_eq "conn_aborted does not" 0 \
	"$(stat_delta "$MRC_H2" conn_aborted "$abt0")"

peer_stop
rm -rf "$tmp"
mrc_done
