#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Multipath over the leaf-spine fabric of mrc_lib.sh (2 leaves, 4 spines,
# ECMP with L4 hashing), one connection from the host on leaf 1 to the
# host on leaf 2:
#  - spread: the connection's packets cross every spine in proportion to
#    the entropy values (EVs) the leaf hashes onto it; with ev_policy
#    single they cross one spine; IPv6 spreads on the flow label alone;
#  - failures mid-transfer (far-side link down, near-side link down,
#    blackhole route on a spine, a flapping link, one EV dropped by a tc
#    filter, a gray failure: a spine that drops everything it forwards,
#    both ways, with every link up, over IPv4 and IPv6 and with both
#    sides sending; over IPv6 through the far-side failure WRITEs
#    instead of messages): every message arrives once and intact (every
#    WRITE's bytes where they were sent), the EVs
#    through the failure and only those go BAD, the counters show the
#    retransmissions; in the gray failure the receiver learns which of
#    its own EVs lose its ACKs and, but for its probes, leaves the dead
#    spine too;
#  - a 64 MiB WRITE and two 64 MiB READs of it back, over IPv4, through
#    the far-side failure: every byte where it was sent and back, nothing
#    refused, EVs gone BAD and packets sent again on the way;
#  - recovery: probes bring the EVs back (the time it took is printed),
#    traffic spreads over every spine again, both ways after the gray
#    failure;
#  - the gray failure with ev_policy reps at both ends: messages intact,
#    only EVs through it BAD, the sender's data leaves the dead spine,
#    the repair brings every EV back;
#  - every path dead: ETIMEDOUT within conn_timeout_ms, nothing left over.
# Which spine an EV takes is asked of the leaf (mrc_fabric_spines_of),
# never assumed.

# the cases at the end run through mrc_timed, which shellcheck cannot follow
# shellcheck disable=SC2317
# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_fabric || { mrc_fail "fabric topology"; mrc_done; }
# The emulated VM stalls for tens of milliseconds at times: with the
# default 10 ms floor such a stall is an RTO, which blames a healthy EV.
# A floor well above the emulator's stalls keeps the EV states about the
# faults the tests make (what a fabric's hosts would see).
for h in "$MRC_FH1" "$MRC_FH2"; do
	mrc -n "$h" config set rto_min_us 100000
done

NSPINES=$MRC_FABRIC_SPINES
SPINE=1			# the spine whose links fail
TOL=15			# percent of a spine's share
# the paced transfers: a few hundred messages a second of one or two
# packets (the exact rate is the emulator's), until told to stop
PACED=(-n 0 -T 90 -i 2000 -m 512 -M 2K)

addr() { [ "$1" = 6 ] && echo "$MRC_FH2_ADDR6" || echo "$MRC_FH2_ADDR4"; }
saddr() { [ "$1" = 6 ] && echo "$MRC_FH1_ADDR6" || echo "$MRC_FH1_ADDR4"; }

# ---------------------------------------------------------------------
# EVs of a connection and the spine each takes

declare -A spine_at ev_state ev_active ev_spine ev_info
ev_port=()

# evmap NS CID LEAF-NS SRC DST: read the connection's EVs into ev_port,
# ev_state[PORT], ev_active[PORT], ev_spine[PORT] (the spine LEAF-NS
# sends SRC:PORT -> DST:4797 to) and ev_info[PORT] (its counters).  Fails
# if the connection is gone.
evmap() {
	local ns=$1 cid=$2 leaf=$3 src=$4 dst=$5 line p st ac s lines new=()
	ev_port=()
	ev_state=()
	ev_active=()
	ev_spine=()
	ev_info=()
	# the plain lines of "path show" (mrc(8)): port P state S active
	# yes|no sent N acked N lost N ce N probes N srtt Nus ce_level N
	# acks N acks_lost N; read in place, no jq
	local sent acked lost probes acks acks_lost
	mapfile -t lines < <(mrc -n "$ns" path show cid "$cid" 2>/dev/null)
	[ ${#lines[@]} -gt 0 ] || return 1
	for line in "${lines[@]}"; do
		read -r _ p _ st _ ac _ sent _ acked _ lost _ _ _ probes _ _ \
			_ _ _ acks line <<<"$line"
		if [ "${line%% *}" != acks_lost ]; then
			echo "# evmap: not a path show line: $line" >&2
			return 1
		fi
		acks_lost=${line#acks_lost }
		[ "$ac" = yes ] && ac=true || ac=false
		ev_port+=("$p")
		ev_state[$p]=$st
		ev_active[$p]=$ac
		ev_info[$p]="sent $sent acked $acked lost $lost probes $probes acks $acks acks_lost $acks_lost"
		[ -n "${spine_at[$leaf $src $p]:-}" ] || new+=("$p")
	done
	if [ ${#new[@]} -gt 0 ]; then
		while read -r p s; do
			spine_at[$leaf $src $p]=$s
		done < <(mrc_fabric_spines_of "$leaf" "$src" "$dst" \
				"$MRC_DEFAULT_PORT" "${new[@]}")
	fi
	for p in "${ev_port[@]}"; do
		ev_spine[$p]=${spine_at[$leaf $src $p]:-0}
	done
}

# The sender's (host 1) and the receiver's (host 2) view, family $fam.
evmap1() { evmap "$MRC_FH1" "$cid1" "$MRC_LEAF1" "$(saddr "$fam")" "$(addr "$fam")"; }
evmap2() { evmap "$MRC_FH2" "$cid2" "$MRC_LEAF2" "$(addr "$fam")" "$(saddr "$fam")"; }

# ports_where COND: the ports of the last evmap for which COND (an awk
# expression over port, state, active, spine) holds.
# One awk and no other process: the EVs go in as a here-string.
ports_where() {
	local p rows=

	[ ${#ev_port[@]} -gt 0 ] || return 0
	for p in "${ev_port[@]}"; do
		rows+="$p ${ev_state[$p]} ${ev_active[$p]} ${ev_spine[$p]}"$'\n'
	done
	awk "{ port = \$1; state = \$2; active = \$3; spine = \$4 }
	     $1 { printf \"%s \", port }" <<<"${rows%$'\n'}"
}

# ev_summary: states per spine of the last evmap, for diagnostics.
ev_summary() {
	local p rows=

	[ ${#ev_port[@]} -gt 0 ] || return 0
	for p in "${ev_port[@]}"; do
		rows+="${ev_spine[$p]} ${ev_state[$p]} ${ev_active[$p]}"$'\n'
	done
	awk '{ n[$1 " " $2 ($3 == "true" ? "" : "(spare)")]++ }
	     END { for (k in n) printf "s%s=%d ", k, n[k] }' <<<"${rows%$'\n'}"
}

# ---------------------------------------------------------------------
# counters

stats() { mrc -n "$1" -j stats show; }

# stat_deltas BEFORE AFTER: every counter's increase into D[NAME].
declare -A D
stat_deltas() {
	local k
	local -A before=()
	D=()
	mrc_json_numbers before "$1"
	mrc_json_numbers D "$2"
	for k in "${!D[@]}"; do
		D[$k]=$((D[$k] - ${before[$k]:-0}))
	done
}

# ---------------------------------------------------------------------
# spread

# check_spread NAME "BEFORE" "AFTER" [share]: leaf 1's uplink counters
# moved in proportion to the active EVs of the last evmap on each spine
# (or to 1/N with "even"), within TOL percent of each share.
check_spread() {
	local name=$1 b a
	local how=${4:-evs} s d total=0 n=0 shares=() bad="" desc=""
	read -ra b <<<"$2"
	read -ra a <<<"$3"
	for ((s = 1; s <= NSPINES; s++)); do
		d=$((a[s - 1] - b[s - 1]))
		total=$((total + d))
		if [ "$how" = even ]; then
			shares[s]=1
			n=$((n + 1))
		else
			shares[s]=$(ports_where "active == \"true\" && spine == $s" | wc -w)
			n=$((n + shares[s]))
		fi
	done
	if [ "$total" -le 0 ] || [ "$n" -le 0 ]; then
		mrc_fail "$name" "no packets ($total) or no active EVs ($n)"
		return
	fi
	for ((s = 1; s <= NSPINES; s++)); do
		d=$((a[s - 1] - b[s - 1]))
		# |d/total - share/n| <= TOL% of share/n
		local dev=$(((d * n - shares[s] * total) * 100))
		[ "$dev" -lt 0 ] && dev=$((-dev))
		desc+="spine$s $d pkts (share ${shares[s]}/$n) "
		[ "$dev" -le $((TOL * shares[s] * total)) ] || bad+="spine$s "
	done
	if [ -z "$bad" ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "off by more than $TOL% of the share: $bad"
	fi
	echo "# $name: $desc"
}

# wait_cids FAM: the connection ids of the running transfer, both ends, in
# cid1 and cid2.
wait_cids() {
	local i
	cid1=
	cid2=
	for ((i = 1; i <= 50; i++)); do
		[ -n "$cid1" ] || cid1=$(mrc_conn_cid "$MRC_FH1" "$(addr "$1")" \
					      "$MRC_XFER_PORT")
		[ -n "$cid2" ] || cid2=$(mrc_conn_cid "$MRC_FH2" "$(saddr "$1")")
		[ -n "$cid1" ] && [ -n "$cid2" ] && return 0
		mrc_nap 0.2
	done
	return 1
}

# spread FAM [single]: one transfer; its packets over leaf 1's uplinks
# follow its EVs (spray), or stay on one spine (single).
spread() {
	local fam=$1 policy=${2:-spray} before after name d s top=0 rest=0 total=0
	name="IPv$fam $policy"
	mrc -n "$MRC_FH1" config set ev_policy "$policy"
	before=$(mrc_fabric_uplinks_tx 1)
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" \
		-n 0 -T 30 -i 1000 -m 512 -M 2K
	if ! wait_cids "$fam" || ! evmap1; then
		mrc_fail "$name: connection and its EVs listed" \
			"cid '$cid1'/'$cid2': $(mrc -n "$MRC_FH1" -j conn show)"
		mrc_transfer_stop
		mrc_transfer_wait "$name: every message once and intact"
		mrc -n "$MRC_FH1" config set ev_policy spray
		return
	fi
	echo "# [${SECONDS}s] $name EVs: $(ev_summary)"
	mrc_nap 1
	mrc_transfer_stop
	mrc_transfer_wait "$name: every message once and intact"
	after=$(mrc_fabric_uplinks_tx 1)
	if [ "$policy" = spray ]; then
		mrc_expect_eq "$name: connection has the default 128 EVs in use" \
			128 "$(ports_where 'active == "true"' | wc -w)"
		check_spread "$name: every spine within $TOL% of its EVs' share" \
			"$before" "$after"
	else
		local act
		act=$(ports_where 'active == "true"')
		mrc_expect_eq "$name: one EV in use" 1 "$(echo "$act" | wc -w)"
		local -a b a
		read -ra b <<<"$before"
		read -ra a <<<"$after"
		for ((s = 1; s <= NSPINES; s++)); do
			d=$((a[s - 1] - b[s - 1]))
			total=$((total + d))
			if [ "$d" -gt "$top" ]; then
				rest=$((rest + top))
				top=$d
				s_top=$s
			else
				rest=$((rest + d))
			fi
		done
		# noise: neighbour discovery and the like, a few packets
		if [ "$rest" -le $((10 + total / 50)) ] && [ "$top" -gt 200 ]; then
			mrc_ok "$name: crosses one spine"
		else
			mrc_fail "$name: crosses one spine" "uplinks $before -> $after"
		fi
		mrc_expect_eq "$name: the spine the leaf hashes its EV to" \
			"${ev_spine[${act// /}]:-?}" "${s_top:-none}"
	fi
	mrc -n "$MRC_FH1" config set ev_policy spray
}

# ---------------------------------------------------------------------
# failures

# bad_watch MIN MAX ALLOWED NEED: poll the sender's EVs for MIN to MAX
# seconds while traffic flows, until every port of NEED is BAD.  ALLOWED is an awk
# condition on (port, spine) for a BAD EV; any other EV BAD in two
# samples in a row (0.3 s and more apart: longer than its first probe,
# which brings back an EV that only looked dead, e.g. a packet the
# emulated VM delayed) is recorded in $bad_wrong; one seen BAD once is a
# diagnostic.  Sets $bad_missing (NEED ports neither BAD now, nor seen
# BAD, nor recycled) and
# $bad_seen (every BAD port seen).
bad_watch() {
	local min=$1 max=$2 allowed=$3 need=$4 t0=$SECONDS p wrong prev=""
	bad_wrong=
	bad_seen=
	while :; do
		evmap1 || break
		wrong=$(ports_where "state == \"bad\" && !($allowed)")
		for p in $wrong; do
			if [[ " $prev " != *" $p "* ]]; then
				echo "# [${SECONDS}s] BAD off the failure (once so far): port $p spine ${ev_spine[$p]} ${ev_info[$p]}"
				continue
			fi
			[[ " $bad_wrong " = *" $p "* ]] && continue
			bad_wrong+="$p "
			echo "# [${SECONDS}s] BAD off the failure, still: port $p spine ${ev_spine[$p]} ${ev_info[$p]}"
		done
		prev=$wrong
		for p in $(ports_where 'state == "bad"'); do
			[[ " $bad_seen " = *" $p "* ]] || bad_seen+="$p "
		done
		# went BAD: BAD now, seen BAD at an earlier turn, or gone
		# (only a BAD spare is recycled to a new port, and on a slow
		# machine that can come between two turns of this loop)
		bad_missing=
		for p in $need; do
			case ${ev_state[$p]:-gone} in
			bad|gone) ;;
			*) [[ " $bad_seen " == *" $p "* ]] || bad_missing+="$p " ;;
			esac
		done
		[ -z "$bad_missing" ] && [ $((SECONDS - t0)) -ge "$min" ] && break
		[ $((SECONDS - t0)) -ge "$max" ] && break
		mrc_nap 0.3
	done
}

# bad_count NS CID: the connection's BAD EVs (spares included).
bad_count() {
	local n=-1
	mrc_json_get n ev_bad "$(mrc -n "$1" -j conn show cid "$2" 2>/dev/null)"
	echo "$n"
}

# wait_no_bad SECS: until neither end has a BAD EV.
# nobad_ms: how long that took, in milliseconds.
wait_no_bad() {
	local t0=$SECONDS b1 b2 start=${EPOCHREALTIME/./}
	nobad_ms=
	while :; do
		b1=$(bad_count "$MRC_FH1" "$cid1")
		b2=$(bad_count "$MRC_FH2" "$cid2")
		if [ "$b1" = 0 ] && [ "$b2" = 0 ]; then
			nobad_ms=$(((${EPOCHREALTIME/./} - start) / 1000))
			return 0
		fi
		[ $((SECONDS - t0)) -ge "$1" ] && break
		mrc_nap 0.1
	done
	echo "# BAD EVs left: sender $b1, receiver $b2"
	return 1
}

fail_on() {
	case $1 in
	far) mrc_fabric_far_down "$SPINE" ;;
	near) mrc_fabric_near_down "$SPINE" ;;
	blackhole) mrc_fabric_blackhole "$SPINE" ;;
	gray) mrc_fabric_gray "$SPINE" ;;
	esac
}

restore() {
	case $1 in
	far) mrc_fabric_far_up "$SPINE" ;;
	near) mrc_fabric_near_up "$SPINE" ;;
	blackhole) mrc_fabric_unblackhole "$SPINE" ;;
	gray) mrc_fabric_ungray "$SPINE" ;;
	esac
}

# failure FAM KIND [rr|write]: a paced transfer; KIND (far, near,
# blackhole, flap, tc, gray) strikes mid-transfer; checks as described at
# the top; then the failure is repaired and the EVs must come back.  With
# rr the transfer is request/response: the receiver sends every message
# back; with write it is WRITEs into a 1 MiB region of the receiver,
# checked by a hash of the region after every 8 (mrc_msg -W).
failure() {
	local fam=$1 kind=$2 mode=${3:-} name s1 s2 s3 r1 pre_s need allowed
	local before_up after_up wrong2 recovered=1 victim="" rr=()
	name="IPv$fam $kind${mode:+ $mode}"
	[ "$mode" = rr ] && rr=(-R)
	[ "$mode" = write ] && rr=(-W 1M)
	# Which spine a port takes is the leaves' answer for the fabric as
	# it is: one cached during an earlier failure (a leaf that had lost
	# an uplink) is wrong now, and a port of this connection may have
	# been one of an earlier connection's.
	spine_at=()
	s1=$(stats "$MRC_FH1")
	r1=$(stats "$MRC_FH2")
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" "${PACED[@]}" \
		"${rr[@]}"
	if ! wait_cids "$fam" || ! evmap1; then
		mrc_fail "$name: connection and its EVs listed" "cid '$cid1'/'$cid2'"
		mrc_transfer_stop
		mrc_transfer_wait "$name: every message once and intact"
		return
	fi
	pre_s=$(ports_where "active == \"true\" && spine == $SPINE")
	echo "# [${SECONDS}s] $name: $(echo "$pre_s" | wc -w) EVs in use on spine $SPINE"
	# the events group reports the EV state changes (mrc monitor)
	local mon="" monpid=""
	if [ "$kind" = far ]; then
		mon=$(mktemp)
		"$MRC_TOOL" -n "$MRC_FH1" -j monitor path >"$mon" 2>&1 &
		monpid=$!
		mrc_pids+=("$monpid")
	fi
	mrc_nap 1
	case $kind in
	far|blackhole|gray)
		need=$pre_s
		allowed="spine == $SPINE"
		fail_on "$kind"
		;;
	near)
		# the leaf rehashes: only what was in flight on the spine
		# can be lost
		need=
		allowed="index(\" $pre_s \", \" \" port \" \")"
		fail_on "$kind"
		;;
	flap)
		need=
		allowed="spine == $SPINE"
		mrc_fabric_flap "$SPINE" 2 spine 200 10
		;;
	tc)
		victim=$(ports_where 'active == "true"' | cut -d ' ' -f 1)
		need=$victim
		allowed="port == $victim"
		modprobe -q sch_ingress
		modprobe -q cls_flower
		modprobe -q act_gact
		local proto=ip
		[ "$fam" = 6 ] && proto=ipv6
		tc -n "$MRC_FH1" qdisc add dev eth0 clsact
		tc -n "$MRC_FH1" filter add dev eth0 egress protocol "$proto" \
			flower ip_proto udp src_port "$victim" action drop
		echo "# $name: dropping EV $victim (spine ${ev_spine[$victim]})"
		;;
	esac
	# one message in flight at a time (rr): each dead EV shows itself by
	# a timeout of its own, when the rotation comes to it: about half a
	# second each (a spine that the hash gave 49 of 128 EVs had 26 left
	# after 20 s once)
	case $kind$mode in
	flap) bad_watch 10 12 "$allowed" "" ;;
	near) bad_watch 4 10 "$allowed" "" ;;
	*rr) bad_watch 2 $((10 + $(wc -w <<<"$need"))) "$allowed" "$need" ;;
	*) bad_watch 2 8 "$allowed" "$need" ;;
	esac
	echo "# [${SECONDS}s] $name sender EVs: $(ev_summary)"
	if [ "$kind" = gray ]; then
		# what still goes into the dead spine, per leaf (packets in
		# 2 s): the sender's data leaves it (its probes remain); the
		# receiver, which sends no data, learns of its own EVs from
		# the sender's reports of its lost ACKs (reverse-path
		# learning, mrc.rst) and leaves it too, but for its probes.
		# Before that, a quarter of its ACKs went there.
		# Its probes of its BAD EVs (ev_probe, probe_interval_ms
		# apart) are what may still go there: the rest, at most 5 %.
		local g1 g2 h1 h2 t2a t2b pr0 pr1 rest
		pr0=$(stats "$MRC_FH2")
		g1=$(mrc_fabric_uplink_tx 1 "$SPINE")
		g2=$(mrc_fabric_uplink_tx 2 "$SPINE")
		t2a=$(($(mrc_fabric_uplinks_tx 2 | tr ' ' '+')))
		mrc_nap 2
		h1=$(mrc_fabric_uplink_tx 1 "$SPINE")
		h2=$(mrc_fabric_uplink_tx 2 "$SPINE")
		t2b=$(($(mrc_fabric_uplinks_tx 2 | tr ' ' '+')))
		pr1=$(stats "$MRC_FH2")
		stat_deltas "$pr0" "$pr1"
		rest=$((h2 - g2 - D[ev_probe]))
		echo "# $name: into spine $SPINE in 2 s: leaf 1 (data) $((h1 - g1)) packets, leaf 2 (ACKs) $((h2 - g2)) of $((t2b - t2a)), of which the receiver's probes at most ${D[ev_probe]}"
		if [ $((rest * 20)) -le $((t2b - t2a)) ]; then
			mrc_ok "$name: besides its probes, the receiver sends at most 5 % of its packets into the dead spine"
		else
			mrc_fail "$name: besides its probes, the receiver sends at most 5 % of its packets into the dead spine" \
				"$rest of $((t2b - t2a))"
		fi
		local rb sl
		stat_deltas "$r1" "$(stats "$MRC_FH2")"
		rb=${D[ev_bad_ack]}
		stat_deltas "$s1" "$(stats "$MRC_FH1")"
		sl=${D[ack_lost]}
		echo "# $name: sender ack_lost $sl, receiver ev_bad_ack $rb"
		mrc_check "$name: the sender reported lost ACKs and the receiver's EVs went BAD for them" \
			test "${sl:-0}" -gt 0 -a "${rb:-0}" -gt 0
	fi
	if [ -n "$monpid" ]; then
		local mbad mport mok=0
		kill "$monpid" 2>/dev/null
		wait "$monpid" 2>/dev/null
		mbad=$(jq -r --argjson c "$cid1" 'select(.event == "path" and
			.cid == $c and .state == "bad") | .port' "$mon" 2>/dev/null |
			sort -u)
		for mport in $mbad; do
			[ "${ev_spine[$mport]:-0}" = "$SPINE" ] && mok=1
		done
		mrc_check "$name: mrc monitor reported EVs of spine $SPINE going BAD" \
			test "$mok" = 1
		[ "$mok" = 1 ] || echo "# monitor: $(head -c 400 "$mon" | tr '\n' ' ')"
		rm -f "$mon"
	fi
	s2=$(stats "$MRC_FH1")
	if [ -n "$need" ]; then
		mrc_check "$name: the EVs through the failure went BAD" \
			test -z "$bad_missing"
		for p in $bad_missing; do
			echo "# not BAD: port $p ${ev_state[$p]:-gone} spine ${ev_spine[$p]} ${ev_info[$p]:-}"
		done
	fi
	mrc_check "$name: only EVs through the failure went BAD" \
		test -z "$bad_wrong"
	[ -z "$bad_wrong" ] || echo "# BAD elsewhere: $bad_wrong"
	# the receiver's EVs carry its ACKs: those through the failure may go
	# BAD, never others for long.  A lost ACK makes its EV BAD as a lost
	# data packet does (reverse-path learning), and one the emulator
	# drops off the failure is answered by the next probe: as for the
	# sender (bad_watch), a second look a second later shows what stays.
	local wrong_of p still
	if [ "$kind" = tc ]; then
		wrong_of='state == "bad"'
	else
		wrong_of="state == \"bad\" && spine != $SPINE"
	fi
	if evmap2; then
		wrong2=$(ports_where "$wrong_of")
		echo "# $name receiver EVs: $(ev_summary)"
		if [ -n "$wrong2" ]; then
			for p in $wrong2; do
				echo "# $name receiver: BAD off the failure (once so far): port $p spine ${ev_spine[$p]} ${ev_info[$p]}"
			done
			mrc_nap 1
			still=
			if evmap2; then
				for p in $(ports_where "$wrong_of"); do
					[[ " $wrong2 " = *" $p "* ]] && still+="$p "
				done
			fi
			wrong2=$still
		fi
		mrc_check "$name: receiver: no EV BAD off the failure" \
			test -z "$wrong2"
		for p in $wrong2; do
			echo "# $name receiver: BAD off the failure, still: port $p spine ${ev_spine[$p]} ${ev_info[$p]}"
		done
	else
		mrc_fail "$name: receiver's EVs listed"
	fi
	if [ "$kind" != near ]; then
		stat_deltas "$s1" "$s2"
		echo "# $name: ev_bad_loss ${D[ev_bad_loss]} ev_bad_rto ${D[ev_bad_rto]} retrans ${D[retrans]} lost_ev ${D[lost_ev]} lost_time ${D[lost_time]} lost_rto ${D[lost_rto]} ev_replaced ${D[ev_replaced]}"
		mrc_check "$name: EVs went BAD on loss (counters)" \
			test $((D[ev_bad_loss] + D[ev_bad_rto])) -gt 0
		mrc_check "$name: lost packets retransmitted" \
			test $((D[retrans])) -gt 0
	fi

	# repair, and the EVs come back by probes
	case $kind in
	flap) wait "$MRC_FLAP_PID" ;;
	tc) tc -n "$MRC_FH1" qdisc del dev eth0 clsact ;;
	*) restore "$kind" ;;
	esac
	spine_at=()	# as above: the fabric changed again
	wait_no_bad 12 || recovered=0
	[ -z "$nobad_ms" ] ||
		echo "# $name: no EV BAD at either end ${nobad_ms} ms after the repair"
	s3=$(stats "$MRC_FH1")
	stat_deltas "$r1" "$(stats "$MRC_FH2")"
	local dups=${D[dup_data]}
	stat_deltas "$s1" "$s3"
	echo "# [${SECONDS}s] $name: ev_good_probe ${D[ev_good_probe]} ev_probe ${D[ev_probe]} ev_sweep ${D[ev_sweep]} ev_recycled ${D[ev_recycled]}; receiver dup_data $dups (data that arrived but was judged lost)"
	if [ "$kind" != near ]; then
		mrc_check "$name repaired: no EV BAD any more" test "$recovered" = 1
		mrc_check "$name repaired: probes brought EVs back" \
			test $((D[ev_good_probe])) -gt 0
		# a whole spine failed and came back: the first answer had
		# the other BAD EVs probed at once
		case $kind in
		far|blackhole|gray)
			mrc_check "$name repaired: an answered probe had the other BAD EVs probed (ev_sweep)" \
				test $((D[ev_sweep])) -gt 0 ;;
		esac
	fi
	if { [ "$kind" = far ] || [ "$kind" = gray ]; } && evmap1; then
		before_up=$(mrc_fabric_uplinks_tx 1)
		local before2
		before2=$(mrc_fabric_uplinks_tx 2)
		mrc_nap 2
		after_up=$(mrc_fabric_uplinks_tx 1)
		check_spread "$name repaired: spread over every spine again" \
			"$before_up" "$after_up"
		# the receiver's packets (ACKs, and its messages with rr)
		if [ "$kind" = gray ] && evmap2; then
			check_spread "$name repaired: the receiver spreads over every spine again" \
				"$before2" "$(mrc_fabric_uplinks_tx 2)"
		fi
	fi
	echo "# [${SECONDS}s] $name: stopping the transfer"
	mrc_transfer_stop
	mrc_transfer_wait "$name: every message once and intact"
	echo "# [${SECONDS}s] $name: done"
}

# tail_loss FAM: messages of 16 packets, one every 0.4 s, while spine 1
# drops everything to leaf 2 (blackhole).  A message's packets on EVs
# through spine 1 are lost; those after them arrive, but the last ACK
# comes before the time rule would judge the ones lost, and nothing
# follows: the RTO sweeps them up (lost_rto).  Every EV of spine 1 that
# lost a packet must have gone BAD (another's loss may be a packet the
# emulator held up): the first ACK after an RTO judges every
# transmission it swept up (mrc_rto_judge()), not only the oldest, whose
# EV alone went BAD before, so that the others lost the next packet sent
# on them too.
tail_loss() {
	local fam=$1 name="IPv$1 tail losses" s1 p i lost wrong=0 n=0 sent
	spine_at=()
	s1=$(stats "$MRC_FH1")
	fail_on blackhole
	echo "# [${SECONDS}s] $name: start"
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" \
		-n 12 -m 22K -M 22K -i 400000 -H 4000
	if ! wait_cids "$fam"; then
		mrc_fail "$name: connection listed" "cid '$cid1'/'$cid2'"
	else
		# the client holds the connection open after its last message:
		# until the sender has every message acknowledged
		for ((i = 0; i < 100; i++)); do
			sent=0
			mrc_json_get sent msgs_sent \
				"$(mrc -n "$MRC_FH1" -j conn show cid "$cid1")"
			[ "$sent" -ge 12 ] && break
			mrc_nap 0.2
		done
		if evmap1; then
			for p in "${ev_port[@]}"; do
				[ "${ev_spine[$p]}" = "$SPINE" ] || continue
				lost=0
				[[ ${ev_info[$p]} =~ \ lost\ ([0-9]+) ]] &&
					lost=${BASH_REMATCH[1]}
				[ "$lost" -gt 0 ] || continue
				n=$((n + 1))
				[ "${ev_state[$p]}" = bad ] && continue
				wrong=$((wrong + 1))
				echo "# $name: port $p (spine ${ev_spine[$p]}) lost packets and is ${ev_state[$p]}: ${ev_info[$p]}"
			done
		fi
		echo "# [${SECONDS}s] $name: sender EVs $(ev_summary); $n of spine $SPINE lost packets"
		mrc_check "$name: EVs of spine $SPINE lost packets" test "$n" -gt 0
		mrc_check "$name: every EV of spine $SPINE that lost a packet went BAD" \
			test "$wrong" = 0
	fi
	# the client need not hold the connection any longer
	mrc_transfer_stop
	mrc_transfer_wait "$name: every message once and intact"
	restore blackhole
	echo "# [${SECONDS}s] $name: done"
	stat_deltas "$s1" "$(stats "$MRC_FH1")"
	echo "# $name: rto ${D[rto]:-0} lost_rto ${D[lost_rto]:-0} ev_bad_rto ${D[ev_bad_rto]:-0} lost_time ${D[lost_time]:-0} ev_bad_loss ${D[ev_bad_loss]:-0}"
	mrc_check "$name: the RTO swept up lost packets (lost_rto)" \
		test "${D[lost_rto]:-0}" -gt 0
}

# big_ops FAM: one WRITE of BIG bytes (64 MiB) into a region of that size
# on the host of leaf 2, its hash checked, then two READs of all of it
# back, every byte compared (mrc_msg -W), while spine 1's link to leaf 2
# is down: from half a second after the start until all three are done.
# Leaf 1 keeps hashing into the dead spine, so the WRITE's packets and
# the READs' requests and ACKs die there until their EVs go BAD.  Every
# byte must be where it was sent and back, no packet refused, the
# failure must have struck while the transfer ran, and the counters
# must show EVs gone BAD and packets sent again (the failure did bite).
BIG=${MRC_MULTIPATH_BIG:-64M}
big_ops() {
	local fam=$1 name="IPv$1 far, a $BIG WRITE and two READs" s1 r1
	local struck=0
	spine_at=()
	s1=$(stats "$MRC_FH1")
	r1=$(stats "$MRC_FH2")
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" \
		-W "$BIG" -n 1 -m "$BIG" -M "$BIG"
	mrc_nap 0.5
	if mrc_transfer_running; then
		fail_on far
		struck=1
	fi
	mrc_transfer_wait "$name: every byte where it was sent, and back"
	[ "$struck" = 1 ] && restore far
	spine_at=()
	mrc_check "$name: the failure struck while the transfer ran" \
		test "$struck" = 1
	stat_deltas "$r1" "$(stats "$MRC_FH2")"
	echo "# $name: receiver write_placed ${D[write_placed]} read_served ${D[read_served]} refused $((D[write_bad_key] + D[write_bad_access] + D[write_bad_range] + D[read_refused]))"
	mrc_check "$name: the WRITE's packets were placed" \
		test "$((D[write_placed]))" -gt 0
	mrc_expect_eq "$name: the target served both READs" 2 \
		"$((D[read_served]))"
	mrc_expect_eq "$name: nothing refused at the target" 0 \
		"$((D[write_bad_key] + D[write_bad_access] + D[write_bad_range] + D[read_refused]))"
	stat_deltas "$s1" "$(stats "$MRC_FH1")"
	echo "# $name: initiator ev_bad_loss ${D[ev_bad_loss]} ev_bad_rto ${D[ev_bad_rto]} retrans ${D[retrans]} read_done ${D[read_done]}"
	mrc_expect_eq "$name: the initiator's READs both done" 2 \
		"$((D[read_done]))"
	mrc_check "$name: EVs of the dead spine went BAD and their packets went again" \
		test $((D[ev_bad_loss] + D[ev_bad_rto])) -gt 0 -a $((D[retrans])) -gt 0
}

# reps_failure FAM KIND: policy reps at both ends, a transfer of larger
# messages (several packets in flight, so the EVs that came back clean
# are reused and the rotation explored); KIND strikes: every message
# arrives once and intact, only EVs through the failure go BAD, within
# seconds the sender's data leaves the dead spine (besides its probes at
# most 5 % of its packets go there), and after the repair the probes
# bring every EV back.
reps_failure() {
	local fam=$1 kind=$2 name="IPv$1 $2, policy reps" h s1 s2 g1 h1 t1a t1b
	local rest recovered=1
	for h in "$MRC_FH1" "$MRC_FH2"; do
		mrc -n "$h" config set ev_policy reps
	done
	spine_at=()
	s1=$(stats "$MRC_FH1")
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" \
		-n 0 -T 90 -i 4000 -m 4K -M 16K
	if ! wait_cids "$fam" || ! evmap1; then
		mrc_fail "$name: connection and its EVs listed" "cid '$cid1'/'$cid2'"
	else
		mrc_expect_eq "$name: the connection uses policy reps" reps \
			"$(mrc_flat_json policy \
			   "$(mrc -n "$MRC_FH1" -j conn show cid "$cid1")")"
		mrc_nap 1
		fail_on "$kind"
		bad_watch 3 8 "spine == $SPINE" ""
		mrc_check "$name: only EVs through the failure went BAD" \
			test -z "$bad_wrong"
		[ -z "$bad_wrong" ] || echo "# BAD elsewhere: $bad_wrong"
		s2=$(stats "$MRC_FH1")
		g1=$(mrc_fabric_uplink_tx 1 "$SPINE")
		t1a=$(($(mrc_fabric_uplinks_tx 1 | tr ' ' '+')))
		mrc_nap 2
		h1=$(mrc_fabric_uplink_tx 1 "$SPINE")
		t1b=$(($(mrc_fabric_uplinks_tx 1 | tr ' ' '+')))
		stat_deltas "$s2" "$(stats "$MRC_FH1")"
		rest=$((h1 - g1 - D[ev_probe]))
		echo "# $name: sender EVs: $(ev_summary); into spine $SPINE in 2 s: $((h1 - g1)) of $((t1b - t1a)) packets, of which probes ${D[ev_probe]}"
		if [ $((rest * 20)) -le $((t1b - t1a)) ] && [ "$((t1b - t1a))" -gt 0 ]; then
			mrc_ok "$name: besides its probes, the sender sends at most 5 % of its packets into the dead spine"
		else
			mrc_fail "$name: besides its probes, the sender sends at most 5 % of its packets into the dead spine" \
				"$rest of $((t1b - t1a))"
		fi
		restore "$kind"
		spine_at=()
		wait_no_bad 12 || recovered=0
		[ -z "$nobad_ms" ] ||
			echo "# $name: no EV BAD at either end ${nobad_ms} ms after the repair"
		mrc_check "$name repaired: no EV BAD any more" test "$recovered" = 1
		stat_deltas "$s1" "$(stats "$MRC_FH1")"
		echo "# $name: ev_bad_loss ${D[ev_bad_loss]} ev_bad_rto ${D[ev_bad_rto]} retrans ${D[retrans]} ev_good_probe ${D[ev_good_probe]} ev_reused ${D[ev_reused]}"
		mrc_check "$name: EVs that came back clean were reused (ev_reused)" \
			test "$((D[ev_reused]))" -gt 0
	fi
	mrc_transfer_stop
	mrc_transfer_wait "$name: every message once and intact"
	for h in "$MRC_FH1" "$MRC_FH2"; do
		mrc -n "$h" config set ev_policy spray
	done
}

# ---------------------------------------------------------------------
# every path dead

all_dead() {
	local fam=$1 name t0 s out rc ns
	name="IPv$fam every path dead"
	for ns in "$MRC_FH1" "$MRC_FH2"; do
		mrc -n "$ns" config set conn_timeout_ms 3000
	done
	local before
	before=$(stats "$MRC_FH1")
	mrc_transfer_start "$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" "${PACED[@]}"
	mrc_nap 2
	t0=$SECONDS
	for ((s = 1; s <= NSPINES; s++)); do
		mrc_fabric_far_down "$s"
	done
	out=$mrc_xfer_out
	wait "$mrc_xfer_cpid"
	rc=$?
	mrc_check "$name: sender fails" test "$rc" -ne 0
	mrc_check "$name: sender gets ETIMEDOUT" \
		grep -q "Connection timed out" "$out.c"
	mrc_check "$name: within conn_timeout_ms 3000 (+10 s slack)" \
		test $((SECONDS - t0)) -le 13
	echo "# $name: client exit after $((SECONDS - t0)) s: $(tr '\n' ' ' <"$out.c")"
	wait "$mrc_xfer_spid"
	mrc_check "$name: receiver gets ETIMEDOUT" \
		grep -q "Connection timed out" "$out"
	rm -f "$out" "$out.c"
	stat_deltas "$before" "$(stats "$MRC_FH1")"
	mrc_check "$name: timeout counted" test $((D[conn_timedout])) -gt 0
	for ((s = 1; s <= NSPINES; s++)); do
		mrc_fabric_far_up "$s"
	done
	for ns in "$MRC_FH1" "$MRC_FH2"; do
		mrc -n "$ns" config set conn_timeout_ms 15000
	done
	mrc_nap 1
	mrc_expect_eq "$name: no connection left on either host" "0 0" \
		"$(mrc_conn_count "$MRC_FH1") $(mrc_conn_count "$MRC_FH2")"
	mrc_transfer_between "$name: fabric repaired, a new connection works" \
		"$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" -n 200 -m 1K -M 8K
}

# ---------------------------------------------------------------------

# a. spread, and a single flow for comparison
mrc_timed spread 4
mrc_timed spread 6
mrc_timed spread 4 single

# b. IPv6 on the flow label: hash policy 0 on the leaves (addresses and
# flow label only).  IPv4 under the same policy has nothing left that
# varies, so it shows the check can tell.
for l in 1 2; do
	ip netns exec "${MRC_LEAF[l]}" sysctl -qw \
		net.ipv6.fib_multipath_hash_policy=0 net.ipv4.fib_multipath_hash_policy=0
done
for fam in 6 4; do
	before=$(mrc_fabric_uplinks_tx 1)
	mrc_transfer_between "IPv$fam L3 hash: every message once and intact" \
		"$MRC_FH1" "$MRC_FH2" "$(addr "$fam")" -n 1500 -m 1K -M 4K
	after=$(mrc_fabric_uplinks_tx 1)
	nspread=0
	read -ra b <<<"$before"
	read -ra a <<<"$after"
	total=$(( (a[0] + a[1] + a[2] + a[3]) - (b[0] + b[1] + b[2] + b[3]) ))
	for ((s = 1; s <= NSPINES; s++)); do
		# at least half a fair share
		d=$((a[s - 1] - b[s - 1]))
		[ $((d * NSPINES * 2)) -ge "$total" ] && nspread=$((nspread + 1))
	done
	echo "# IPv$fam L3 hash: uplinks $before -> $after"
	if [ "$fam" = 6 ]; then
		mrc_expect_eq "IPv6 flow label carries entropy: every spine has at least half its share" \
			"$NSPINES" "$nspread"
	else
		mrc_expect_eq "IPv4 L3 hash (control): one spine" 1 "$nspread"
	fi
done
for l in 1 2; do
	ip netns exec "${MRC_LEAF[l]}" sysctl -qw \
		net.ipv6.fib_multipath_hash_policy=1 net.ipv4.fib_multipath_hash_policy=1
done

# c, d. failures mid-transfer and recovery.  MRC_MULTIPATH_ONLY="failure
# 6 gray" (or "tail_loss 4", ...; several separated by commas) runs those
# cases alone, after the spread checks, to look at them quickly.
if [ -n "${MRC_MULTIPATH_ONLY:-}" ]; then
	IFS=, read -ra only <<<"$MRC_MULTIPATH_ONLY"
	for c in "${only[@]}"; do
		# shellcheck disable=SC2086 # a case and its arguments
		mrc_timed $c
	done
	mrc_done
fi
mrc_timed failure 4 far
mrc_timed failure 6 far write
mrc_timed big_ops 4
mrc_timed failure 4 near
mrc_timed failure 6 blackhole
mrc_timed tail_loss 4
mrc_timed failure 4 flap
mrc_timed failure 4 tc
mrc_timed failure 4 gray
mrc_timed failure 6 gray
# both sides send: each message comes back (mrc_msg -R)
mrc_timed failure 4 gray rr
# the adaptive policy through a failure that kills both directions
mrc_timed reps_failure 4 gray

# e. every path dead
mrc_timed all_dead 4

mrc_done
