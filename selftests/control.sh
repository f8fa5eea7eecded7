#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The control plane: the "mrc" generic netlink family and the mrc tool.
#
#  1. every setting round-trips through "mrc config set/show" (and its JSON
#     parses) and changes what new connections do
#  2. settings are per namespace; a new namespace starts from the defaults
#  3. reads need no privilege, writes need CAP_NET_ADMIN over the netns:
#     root of a user namespace changes its own netns only
#  4. malformed requests are refused with EINVAL/ERANGE and an extack
#     message (mrc_nlfuzz.py bad), which the tool prints
#  5. a netlink fuzz run (mrc_nlfuzz.py fuzz) leaves the kernel working
#  6. connection dumps resume correctly over many messages (10,000
#     connections, mrc_conns), also when 300 others close while a dump
#     is paused between its parts (mrc_nlfuzz.py dumppause)
#  7. "conn show" and "path show" agree with MRC_INFO; the per-socket
#     MRC_EV_COUNT/MRC_EV_POLICY options and memory regions show in both
#  8. "path deny/allow" for one EV and for a peer's port range
#  9. the tracepoints fire during a transfer with loss (tracefs, perf),
#     and the "events" group reports connections and EV state changes (a
#     raw netlink listener, and "mrc monitor" when the tool has it)
# 10. connection ids go only to the connection's owner and CAP_NET_ADMIN:
#     nobody sees root's connection without ids and cannot dump its EVs
#     or join the events group, and sees the ids of its own connections
#
# Environment: MRC_FUZZ_COUNT (10000), MRC_FUZZ_SEED (random, printed),
# MRC_DUMP_CONNS (10000), MRC_DUMP_SECONDS (time allowed to open them, 150).

# the parts are called as "part_$N", the cleanup by the EXIT trap
# shellcheck disable=SC2317
# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

conns_bin=$MRC_SELFTESTS/mrc_conns
nlfuzz=$MRC_SELFTESTS/mrc_nlfuzz.py
mrc_require_tools "$conns_bin" "$nlfuzz"

tmp=$(mktemp -d)
trace_dir=
init_ev_count=
init_probe=
control_cleanup() {
	local d
	if [ -n "$init_ev_count" ]; then
		"$MRC_TOOL" config set ev_count "$init_ev_count" \
			probe_interval_ms "$init_probe" 2>/dev/null
	fi
	if [ -n "$trace_dir" ]; then
		for d in "$trace_dir"-*; do
			[ -d "$d" ] || continue
			echo 0 >"$d/events/mrc/enable" 2>/dev/null
			rmdir "$d" 2>/dev/null
		done
	fi
	mrc_cleanup
	rm -rf "$tmp"
}
trap control_cleanup EXIT

dmesg_start=$(dmesg | wc -l)

# ------------------------------------------------------------ helpers

# relay FILE: the "ok - NAME" / "not ok - NAME" lines of a helper as checks
# of this script; other lines (diagnostics) are passed on.
relay() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) mrc_ok "${line#ok - }" ;;
		"not ok - "*) mrc_fail "${line#not ok - }" ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done <"$1"
}

# expect_fail NAME RC-WANTED TEXT CMD...: CMD exits RC-WANTED and prints TEXT.
expect_fail() {
	local name=$1 want=$2 text=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && [[ "$out" == *"$text"* ]]; then
		mrc_ok "$name"
		echo "# $name: $out"
	else
		mrc_fail "$name" "'$*' exited $rc (want $want), printed '$out' (want '$text')"
	fi
}

# jchecks FILE NAME JQ-EXPR [NAME JQ-EXPR]...: for each pair, the JSON in
# FILE satisfies JQ-EXPR (it gives true, once).  One jq run for them all
# (a jq run costs a third of a second or more in the emulated VM): each
# expression prints true, what it gave instead, or its error.
jchecks() {
	local file=$1 prog='' names=() exprs=() res=() i bad=''
	shift
	while [ $# -ge 2 ]; do
		names+=("$1")
		exprs+=("$2")
		prog+="${prog:+, }(try ([($2)] | if . == [true] then true else . end)
			   catch \"error: \\(.)\")"
		shift 2
	done
	mapfile -t res < <(jq -c "$prog" "$file" 2>&1)
	if [ "${#res[@]}" != "${#names[@]}" ]; then
		bad="${#res[@]} lines for ${#names[@]} expressions: ${res[*]}"
		res=()
	fi
	for i in "${!names[@]}"; do
		if [ -z "$bad" ] && [ "${res[i]}" = true ]; then
			mrc_ok "${names[i]}"
		else
			mrc_fail "${names[i]}" "jq '${exprs[i]}' gave '${res[i]:-$bad}' on: $(head -c 600 "$file" | tr '\n' ' ')"
		fi
	done
}

# jcheck NAME JQ-EXPR FILE: one of jchecks.
jcheck() {
	jchecks "$3" "$1" "$2"
}

# conn_json NS FILE / path_json NS CID FILE: the dumps, as JSON files.
conn_json() {
	mrc -n "$1" -j conn show >"$2"
}
path_json() {
	mrc -n "$1" -j path show cid "$2" >"$3"
}

# The defaults of a new namespace (mrc(8), include/uapi/linux/mrc.h), as
# "config set" takes them.
defaults=(port 4797 rto_min_us 10000 rto_max_us 2000000
	conn_timeout_ms 15000 max_msg_size 67108864 ev_count 128
	ev_port_min 49152 ev_port_max 65535 ev_spares 32
	ev_policy spray probe_interval_ms 100)
known_keys='{port, rto_min_us, rto_max_us, conn_timeout_ms, max_msg_size,
	ev_count, ev_port_min, ev_port_max, ev_spares, ev_policy,
	probe_interval_ms}'

# json_pair JSON KEY1 KEY2: "VALUE1 VALUE2" of the flat object JSON
# (mrc_json_get), "none" for a key it lacks.
json_pair() {
	local a b

	mrc_json_get a "$2" "$1" || a=none
	mrc_json_get b "$3" "$1" || b=none
	echo "$a $b"
}

# config_json [NS]: "mrc -j config show" of NS (the initial namespace
# without): one line, its keys always in one order, so that two answers
# are equal exactly when the settings are.
config_json() {
	mrc ${1:+-n "$1"} -j config show
}

# config_known NS: the known settings of NS, "KEY VALUE ..." in the order
# of $defaults (the defaults read "${defaults[*]}").
config_known() {
	local -A v=()
	local i out=()

	mrc_json_values v "$(config_json "$1")"
	for ((i = 0; i < ${#defaults[@]}; i += 2)); do
		out+=("${defaults[i]}" "${v[${defaults[i]}]-none}")
	done
	echo "${out[*]}"
}

# reset_config NS: back to the defaults.
reset_config() {
	mrc -n "$1" config set "${defaults[@]}"
}

# config_round NS KEY VALUE...: set them at once; one check per setting
# that "config show" and "-j config show" report it
config_round() {
	local ns=$1 key val out i
	local -A plain=() json=()
	shift
	if ! out=$(mrc -n "$ns" config set "$@" 2>&1); then
		mrc_fail "config set $*" "$out"
		return
	fi
	while read -r key val; do
		plain[$key]=$val
	done < <(mrc -n "$ns" config show)
	mrc_json_values json "$(config_json "$ns")"
	while [ $# -ge 2 ]; do
		key=$1
		val=$2
		shift 2
		if [ "${plain[$key]:-}" = "$val" ] && [ "${json[$key]:-}" = "$val" ]; then
			mrc_ok "config set $key $val: show and -j show report it"
		else
			mrc_fail "config set $key $val: show and -j show report it" \
				"show says '${plain[$key]:-}', -j show '${json[$key]:-}'"
		fi
	done
}

# mrc_conns sessions: conns_start NAME ARGS... runs mrc_conns ARGS in the
# background, fed through a fifo (through the command in conns_as, if
# any: another user, another namespace); conns_cmd NAME CMD sends one
# command and prints its answer; conns_stop NAME ends it.
declare -A cs_fd cs_out cs_pid
conns_as=()
conns_start() {
	local name=$1 fifo out fd i
	shift
	fifo=$tmp/fifo-$name
	out=$tmp/out-$name
	mkfifo "$fifo" || return 1
	"${conns_as[@]}" "$conns_bin" "$@" <"$fifo" >"$out" 2>&1 &
	cs_pid[$name]=$!
	mrc_pids+=("$!")
	exec {fd}>"$fifo"
	cs_fd[$name]=$fd
	cs_out[$name]=$out
	for ((i = 1; i <= ${CONNS_WAIT:-300}; i++)); do
		mrc_file_has "$out" ready && break
		kill -0 "${cs_pid[$name]}" 2>/dev/null || break
		mrc_nap 0.2
	done
	mrc_file_has "$out" ready || {
		echo "# mrc_conns $*: $(tail -n 3 "$out" | tr '\n' ' ')"
		return 1
	}
	# the initial info, unless -q
	if [[ " $* " != *" -q "* ]]; then
		for ((i = 1; i <= 100; i++)); do
			grep -qx end "$out" && break
			mrc_nap 0.1
		done
	fi
}

# conns_cmd NAME CMD [TIMEOUT-S]: the lines of the answer, without "end".
conns_cmd() {
	local name=$1 cmd=$2 out=${cs_out[$1]} n i
	n=$(grep -cx end "$out")
	echo "$cmd" >&"${cs_fd[$name]}"
	for i in $(seq $((${3:-30} * 10))); do
		[ "$(grep -cx end "$out")" -gt "$n" ] && break
		mrc_nap 0.1
	done
	awk -v n="$n" '$0 == "end" { c++; next } c == n' "$out"
}

conns_stop() {
	local name=$1 i fd=${cs_fd[$1]:-}
	[ -n "$fd" ] || return 0
	echo quit >&"$fd"
	exec {fd}>&-
	for ((i = 1; i <= 100; i++)); do
		kill -0 "${cs_pid[$name]}" 2>/dev/null || break
		mrc_nap 0.1
	done
	kill "${cs_pid[$name]}" 2>/dev/null
	wait "${cs_pid[$name]}" 2>/dev/null
	unset "cs_fd[$name]"
}

# conns_info NAME FILE: MRC_INFO of every connection, as one JSON array
# (mrc_conns prints an object a line; the array keeps one a line).
conns_info() {
	local lines i sep=,

	mapfile -t lines < <(conns_cmd "$1" info)
	{
		echo "["
		for i in "${!lines[@]}"; do
			[ "$i" = $((${#lines[@]} - 1)) ] && sep=
			printf '%s%s\n' "${lines[i]}" "$sep"
		done
		echo "]"
	} >"$2"
}

# info_cids FILE SIDE: the local_cid of each SIDE ("client", "server")
# connection of FILE, as conns_info writes it, one a line.
info_cids() {
	local line re="\"local_cid\": ([0-9]+)"

	while read -r line; do
		[[ $line == *"\"side\": \"$2\""* && $line =~ $re ]] &&
			echo "${BASH_REMATCH[1]}"
	done <"$1"
}

# unchrooted CMD [ARGS...]: run CMD as root in a private mount namespace
# whose root is the tree this script runs in, mounted over the namespace's
# own root (as switch_root does).  The VM runs the tests in a chroot, and
# in a chroot unshare(CLONE_NEWUSER) fails with EPERM for everyone; this
# is all the kernel asks for.  Outside a chroot, CMD runs as it is.
unchrooted() {
	local cmd id mp bb=/proc/1/root/bin/busybox
	cmd=$(command -v "$1") || return 127
	shift
	if [ "$(stat -L -c %d:%i /)" = "$(stat -L -c %d:%i /proc/1/root)" ]; then
		"$cmd" "$@"
		return
	fi
	id=$(awk '$5 == "/" { print $1 }' /proc/self/mountinfo | tail -n 1)
	mp=$(awk -v id="$id" '$1 == id { print $5 }' /proc/1/mountinfo)
	if [ -z "$mp" ] || [ ! -x "$bb" ]; then
		echo "# chrooted, and no way out found (root mount $id at '$mp')"
		"$cmd" "$@"
		return
	fi
	# shellcheck disable=SC2016 # expanded by busybox sh
	chroot /proc/1/root /bin/busybox unshare -m /bin/busybox sh -c \
		'cd "$0" && /bin/busybox mount --move . / &&
		 exec /bin/busybox chroot . "$@"' "$mp" "$cmd" "$@"
}

# ns_stat NS NAME: one counter.
ns_stat() {
	mrc_stat "$@"
}

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
asnobody() {	# asnobody NS CMD...
	local ns=$1
	shift
	ip netns exec "$ns" "${nobody[@]}" "$@"
}

# asnobody_userns NS CMD...: as nobody, where user namespaces work
asnobody_userns() {
	local ns=$1
	shift
	unchrooted ip netns exec "$ns" "${nobody[@]}" "$@"
}

# compare MRC_INFO (file $1, one side) with the conn dump of NS ($3)
info_vs_dump() {	# info_vs_dump NAME INFO-JSON SIDE NS
	local name=$1 info=$2 side=$3 ns=$4
	conn_json "$ns" "$tmp/dump.json"
	jq -c --slurpfile d "$tmp/dump.json" --arg side "$side" '
		def pol: if . == 0 then "spray" elif . == 1 then "single" elif . == 2 then "reps" else . end;
		[.[] | select(.side == $side) | . as $i |
		 ($d[0] | map(select(.local_cid == $i.local_cid))) as $m |
		 if ($m | length) != 1 then {cid: $i.local_cid, dump_entries: ($m | length)}
		 else $m[0] as $c |
		  [["peer_cid", $i.peer_cid, $c.peer_cid],
		   ["evs", $i.evs, $c.evs],
		   ["policy", ($i.ev_policy | pol), $c.policy],
		   ["ev_good", $i.ev_good, $c.ev_good],
		   ["ev_skip", $i.ev_skip, $c.ev_skip],
		   ["ev_bad", $i.ev_bad, $c.ev_bad],
		   ["ev_denied", $i.ev_denied, $c.ev_denied],
		   ["ev_changes", $i.ev_changes, $c.ev_changes],
		   ["state", $i.state, (if $c.state == "established" then 1 else $c.state end)],
		   ["msgs_sent", $i.msgs_sent, $c.msgs_sent],
		   ["msgs_received", $i.msgs_received, $c.msgs_received],
		   ["bytes_sent", $i.bytes_sent, $c.bytes_sent],
		   ["bytes_received", $i.bytes_received, $c.bytes_received],
		   ["mr_count", $i.mr_count, $c.mrs],
		   ["mr_bytes", $i.mr_bytes, $c.mr_bytes]] |
		  map(select(.[1] != .[2])) |
		  if length == 0 then empty else {cid: $i.local_cid, differ: .} end
		 end]' "$info" >"$tmp/diff.json"
	if [ "$(cat "$tmp/diff.json")" = "[]" ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "MRC_INFO vs conn show: $(head -c 600 "$tmp/diff.json")"
	fi
}

# paths_json NS FILE CID...: path show of each connection, one JSON
# object {"cid": CID, "evs": [...]} a line, in FILE; the cids whose path
# show failed in paths_failed.  One jq then reads them all (a jq run
# costs a third of a second in the emulated VM).
paths_json() {
	local ns=$1 file=$2 c
	shift 2
	paths_failed=''
	: >"$file"
	for c in "$@"; do
		if path_json "$ns" "$c" "$tmp/path.json"; then
			printf '{"cid": %s, "evs": %s}\n' "$c" "$(<"$tmp/path.json")" >>"$file"
		else
			paths_failed+=" $c"
		fi
	done
}

# path show of each connection of one side agrees with its MRC_INFO
info_vs_path() {	# info_vs_path NAME INFO-JSON SIDE NS
	local name=$1 info=$2 side=$3 ns=$4 c bad=''
	# shellcheck disable=SC2046 # one cid a word
	paths_json "$ns" "$tmp/paths.json" \
		$(info_cids "$info" "$side")
	for c in $paths_failed; do
		bad+=" $c: path show failed"
	done
	bad+=$(jq -r --arg s "$side" --slurpfile info "$info" '
		.cid as $c | .evs as $p |
		[$info[0][] | select(.side == $s and .local_cid == $c)] as $m |
		if ($m | length) != 1 then " \($c): \($m | length) MRC_INFO entries"
		elif ($m[0] as $i | $p |
		      length == $i.ev_good + $i.ev_skip + $i.ev_bad + $i.ev_denied and
		      (map(select(.state == "good")) | length) == $i.ev_good and
		      (map(select(.state == "skip")) | length) == $i.ev_skip and
		      (map(select(.state == "bad")) | length) == $i.ev_bad and
		      (map(select(.state == "denied")) | length) == $i.ev_denied and
		      (map(select(.active)) | length) <= $i.evs and
		      ((map(select(.active)) | length) == $i.evs or
		       all(.[]; .active or .state != "good")) and
		      all(.cid == $c))
		then empty
		else " \($c): \($p | map([.port, .state, .active]) | tojson)" end' \
		"$tmp/paths.json" 2>&1 | tr -d '\n')
	if [ -z "$bad" ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "$bad"
	fi
}

# denied_check NAME INFO-FILE WANT: the EVs of the client ends in INFO-FILE
# (h1).  WANT "range": every EV in [lo, hi] denied and no other; "none":
# nothing denied.  Sets denied_n to the number denied.
denied_check() {
	local name=$1 info=$2 want=$3 c r bad='' n=0
	# shellcheck disable=SC2046 # one cid a word
	paths_json "$H1" "$tmp/paths.json" \
		$(info_cids "$info" client)
	for c in $paths_failed; do
		bad+=" $c: no path show"
	done
	# per connection, the number denied when as wanted, else its EVs
	while read -r c r; do
		if [[ "$r" =~ ^[0-9]+$ ]]; then
			n=$((n + r))
		else
			bad+=" $c: $r"
		fi
	done < <(jq -r --arg want "$want" --argjson lo "$lo" --argjson hi "$hi" '
		.cid as $c | .evs |
		if all(if $want == "range" and .port >= $lo and .port <= $hi
		       then .state == "denied" else .state != "denied" end)
		then "\($c) \(map(select(.state == "denied")) | length)"
		else "\($c) \(map([.port, .state]) | tojson)" end' "$tmp/paths.json" 2>&1)
	if [ -z "$bad" ]; then
		mrc_ok "$name"
		[ "$want" = range ] && echo "# $name: $n EVs denied"
	else
		mrc_fail "$name" "$bad"
	fi
	denied_n=$n
}

# events_check WHO FILE CID-KEY
events_check() {
	local who=$1 file=$2 key=$3
	grep -v '^#' "$file" >"$file.json"
	if jq -s . "$file.json" >"$file.all" 2>"$file.err"; then
		mrc_ok "$who: every line is JSON"
	else
		mrc_fail "$who: every line is JSON" "$(head -c 300 "$file.err")"
		return
	fi
	jchecks "$file.all" "$who: conn up reported" \
		"any(.[]; .event == \"conn\" and .what == \"up\" and .$key > 0)" \
		"$who: conn closed reported" \
		"any(.[]; .event == \"conn\" and .what == \"closed\" and .$key > 0)" \
		"$who: EV state changes reported, with cid, port, state, old_state, cause" \
		'any(.[]; .event == "path") and all(.[] | select(.event == "path");
		  .cid > 0 and .port > 0 and (.state | type) == "string" and
		  (.old_state | type) == "string" and (.cause | type) == "string" and
		  .state != .old_state)'
	echo "# $who: $(jq -c 'group_by(.event, .what, .cause) |
		map({(.[0].event + ":" + (.[0].what // .[0].cause // "?")): length}) | add' "$file.all")"
}

# policy_conn POLICY VALUE EVS GOOD PORT: with ev_policy POLICY on h1, a
# connection to h2's PORT shows it in conn show (with EVS EVs, GOOD of
# them and the spares GOOD) and in MRC_INFO (as VALUE).
policy_conn() {
	local pol=$1 val=$2 evs=$3 good=$4 port=$5
	mrc_check "h1: ev_policy $pol" mrc -n "$H1" config set ev_policy "$pol"
	if conns_start "p$port" -n 1 "$H1" "$H2" "$MRC_H2_ADDR4" "$port"; then
		conns_info "p$port" "$tmp/p$port.json"
		conn_json "$H1" "$tmp/h1.json"
		jcheck "ev_policy $pol: conn show policy $pol, evs $evs, $good GOOD" \
			"[.[] | select(.dport == $port) | [.policy, .evs, .ev_good]] == [[\"$pol\", $evs, $good]]" \
			"$tmp/h1.json"
		jcheck "ev_policy $pol: MRC_INFO ev_policy $val, evs $evs" \
			"[.[] | select(.side == \"client\") | [.ev_policy, .evs]] == [[$val, $evs]]" \
			"$tmp/p$port.json"
		conns_stop "p$port"
	else
		mrc_fail "a connection with ev_policy $pol"
	fi
}

# 1. settings round-trip and act
part_1() {
	settings=(
		port 5123
		rto_max_us 3000000
		rto_min_us 20000
		conn_timeout_ms 20000
		max_msg_size 1048576
		ev_count 16
		ev_port_min 50000
		ev_port_max 50999
		ev_spares 4
		ev_policy reps
		ev_policy spray
		probe_interval_ms 250
	)
	if [[ $(config_json "$ns_a") == *'"cc":'* ]]; then
		settings+=(cc reno cc dctcp)
	fi
	# all at once (a second round for the values set twice), then each
	# checked in "config show" and "-j config show"
	local round1=() round2=()
	local -A seen
	for ((i = 0; i < ${#settings[@]}; i += 2)); do
		if [ -n "${seen[${settings[i]}]:-}" ]; then
			round2+=("${settings[i]}" "${settings[i + 1]}")
		else
			round1+=("${settings[i]}" "${settings[i + 1]}")
		fi
		seen[${settings[i]}]=1
	done
	config_round "$ns_a" "${round1[@]}"
	config_round "$ns_a" "${round2[@]}"
	mrc -n "$ns_a" -j config show >"$tmp/config.json"
	jcheck "config show -j is one JSON object with every setting" \
		"type == \"object\" and ($known_keys | map(values) | length) == 11 and
		 (map(values) | all(. != null))" "$tmp/config.json"
	if mrc -n "$ns_a" -j -p config show | jq -e 'type == "object"' >/dev/null; then
		mrc_ok "config show -j -p parses"
	else
		mrc_fail "config show -j -p parses"
	fi
	# mrc -n enters the namespace itself: the same answer as under
	# "ip netns exec", by name or by path; a namespace it cannot enter
	# is a clean error
	mrc_expect_eq "mrc -n NAME shows what ip netns exec shows" \
		"$(ip netns exec "$ns_a" "$MRC_TOOL" -j config show)" \
		"$(mrc -n "$ns_a" -j config show)"
	mrc_expect_eq "mrc -n PATH shows the same" \
		"$(mrc -n "$ns_a" -j config show)" \
		"$(mrc -n "/run/netns/$ns_a" -j config show)"
	mrc -n "$ns_a-none" stats show >"$tmp/netns.out" 2>&1
	mrc_expect_eq "mrc -n of a namespace that does not exist: exit 4" \
		"4 mrc: cannot open network namespace \"$ns_a-none\": No such file or directory" \
		"$? $(cat "$tmp/netns.out")"
	ip netns exec "$ns_a" "${nobody[@]}" "$MRC_TOOL" -n "$ns_c" \
		config show >"$tmp/netns.out" 2>&1
	mrc_expect_eq "mrc -n without CAP_SYS_ADMIN: exit 4, EPERM" \
		"4 mrc: cannot enter network namespace \"$ns_c\": Operation not permitted" \
		"$? $(cat "$tmp/netns.out")"
	mrc -n .. stats show >"$tmp/netns.out" 2>&1
	mrc_expect_eq "mrc -n .. is a usage error" \
		"2 mrc: \"..\" is not a namespace name" "$? $(cat "$tmp/netns.out")"

	mrc -n "$ns_a" -j stats show >"$tmp/stats.json"
	jcheck "stats show -j is an object of numbers" \
		'type == "object" and length > 10 and (map(type) | unique) == ["number"]' \
		"$tmp/stats.json"

	# port: the UDP port the namespace binds
	mrc_check "port 5123: UDP port 5123 bound" mrc_udp_bound "$ns_a" 5123
	mrc_check_fails "port 5123: port 4797 released" mrc_udp_bound "$ns_a" 4797

	# the rest acts on new connections: h1 connects to h2, which keeps its
	# defaults for comparison
	mrc_check "h1: ev_count 16 ev_spares 4 ev_port 50000-50099 rto_min_us 3 s" \
		mrc -n "$H1" config set ev_count 16 ev_spares 4 ev_port_min 50000 \
		ev_port_max 50099 rto_max_us 5000000 rto_min_us 3000000
	if conns_start s1 -n 2 "$H1" "$H2" "$MRC_H2_ADDR4" 9001; then
		mrc_ok "2 connections h1 -> h2 (mrc_conns)"
		xfer=$(conns_cmd s1 "xfer 3")
		mrc_expect_eq "messages both ways on them" "xfer ok" "$xfer"
		conns_info s1 "$tmp/s1.json"
		conn_json "$H1" "$tmp/h1.json"
		conn_json "$H2" "$tmp/h2.json"
		cid=$(jq '[.[] | select(.side == "client")][0].local_cid' "$tmp/s1.json")
		jcheck "ev_count 16: MRC_INFO evs 16 on h1's connections" \
			'[.[] | select(.side == "client") | .evs] == [16, 16]' "$tmp/s1.json"
		# SKIP is in use too: a slow echo on a loaded machine weighs
		# an EV down (delay weighting) without taking it out
		jchecks "$tmp/h1.json" "ev_count 16: conn show evs 16 on h1" \
			'[.[] | select(.dport == 9001) | .evs] == [16, 16]' \
			"ev_spares 4: conn show ev_good + ev_skip 20 (evs + spares), none else" \
			'[.[] | select(.dport == 9001) | [.ev_good + .ev_skip, .ev_bad + .ev_denied]] == [[20, 0], [20, 0]]' \
			"rto_min_us 3 s: h1's connections have rto_us >= 3000000" \
			'[.[] | select(.dport == 9001) | .rto_us >= 3000000] == [true, true]'
		jcheck "h2 (defaults) has evs 128 and rto_us below 3 s" \
			'[.[] | select(.sport == 9001 and .state == "established") |
			  .evs == 128 and .rto_us < 3000000] == [true, true]' "$tmp/h2.json"
		if path_json "$H1" "$cid" "$tmp/p1.json"; then
			jchecks "$tmp/p1.json" \
				"ev_port 50000-50099: every EV port of cid $cid in range" \
				'length == 20 and all(.port >= 50000 and .port <= 50099) and
				 (map(.port) | unique | length) == 20' \
				"path show: 16 active EVs and 4 spares" \
				'(map(select(.active)) | length) == 16'
		else
			mrc_fail "path show cid $cid"
		fi
		mrc_check "h1: max_msg_size 4096" mrc -n "$H1" config set max_msg_size 4096
		mrc_expect_eq "max_msg_size 4096: a 5000-byte message is refused" \
			"big EMSGSIZE" "$(conns_cmd s1 "big 5000")"
		mrc_expect_eq "max_msg_size 4096: a 4096-byte message goes" \
			"big ok" "$(conns_cmd s1 "big 4096")"
		conns_stop s1
	else
		mrc_fail "2 connections h1 -> h2 (mrc_conns)"
	fi

	policy_conn single 1 1 1 9002
	policy_conn reps 2 16 20 9004
	if [[ $(config_json "$H1") == *'"cc":'* ]]; then
		mrc_check "h1: cc reno" mrc -n "$H1" config set cc reno
		if conns_start s2b -n 1 "$H1" "$H2" "$MRC_H2_ADDR4" 9003; then
			conn_json "$H1" "$tmp/h1.json"
			jcheck "cc reno: conn show cc reno" \
				'[.[] | select(.dport == 9003) | .cc] == ["reno"]' "$tmp/h1.json"
			conns_stop s2b
		else
			mrc_fail "a connection with cc reno"
		fi
	fi
	reset_config "$H1" >/dev/null
}

# 2. per namespace
part_2() {
	mrc_expect_eq "namespace c untouched by a's settings (defaults)" \
		"${defaults[*]}" "$(config_known "$ns_c")"
	mrc_expect_eq "initial namespace untouched" "$init_before" \
		"$(config_json)"
	mrc_expect_eq "h2 untouched by h1's settings" \
		"${defaults[*]}" "$(config_known "$H2")"
	read -r init_ev_count init_probe < <(json_pair "$(config_json)" \
		ev_count probe_interval_ms)
	mrc_check "initial namespace: ev_count 64 probe_interval_ms 150 (for now)" \
		mrc config set ev_count 64 probe_interval_ms 150
	ns_d=
	mrc_ns_create ns_d
	mrc_expect_eq "a namespace created now starts from the defaults" \
		"${defaults[*]}" "$(config_known "$ns_d")"
	mrc_expect_eq "... with every setting as an untouched one's" \
		"$(config_json "$ns_c")" \
		"$(config_json "$ns_d")"
	mrc_expect_eq "namespace a keeps its own settings" "16 250" \
		"$(json_pair "$(config_json "$ns_a")" ev_count probe_interval_ms)"
	mrc config set ev_count "$init_ev_count" probe_interval_ms "$init_probe"
	init_ev_count=
	mrc_expect_eq "initial namespace restored" "$init_before" \
		"$(config_json)"
}

# 3. privileges
part_3() {
	c_before=$(config_json "$ns_c")
	mrc_expect_eq "unprivileged: config show" "$c_before" \
		"$(asnobody "$ns_c" "$MRC_TOOL" -j config show)"
	asnobody "$ns_c" "$MRC_TOOL" -j stats show >"$tmp/nstats.json"
	jcheck "unprivileged: stats show" 'type == "object" and has("in_pkts")' \
		"$tmp/nstats.json"
	asnobody "$H1" "$MRC_TOOL" -j conn show >"$tmp/nconn.json"
	jcheck "unprivileged: conn show" 'type == "array"' "$tmp/nconn.json"
	expect_fail "unprivileged: config set fails with EPERM (exit 1)" 1 \
		"Operation not permitted" asnobody "$ns_c" "$MRC_TOOL" config set ev_count 5
	expect_fail "unprivileged: path deny of a range fails with EPERM" 1 \
		"Operation not permitted" asnobody "$ns_c" "$MRC_TOOL" path deny ports 50000-50010
	expect_fail "unprivileged: path deny of one EV fails with EPERM" 1 \
		"Operation not permitted" asnobody "$ns_c" "$MRC_TOOL" path deny cid 1 port 50000
	mrc_expect_eq "unprivileged writes changed nothing" "$c_before" \
		"$(config_json "$ns_c")"

	if ! out=$(asnobody_userns "$ns_c" unshare -Ur true 2>&1); then
		mrc_fail "unprivileged user namespaces work" "unshare -Ur as nobody failed: $out; $(sysctl kernel.unprivileged_userns_clone user.max_user_namespaces 2>&1 | tr '\n' ' ')"
	else
		mrc_ok "unprivileged user namespaces work"
		# shellcheck disable=SC2016 # expanded by the inner bash
		out=$(asnobody_userns "$ns_c" unshare -Ur -n bash -c \
			'"$0" config set ev_count 7 ev_policy single && "$0" -j config show' \
			"$MRC_TOOL" 2>"$tmp/userns.err")
		mrc_expect_eq "root of a user namespace sets its own netns' settings" \
			"7 single" "$(json_pair "$out" ev_count ev_policy)$(cat "$tmp/userns.err")"
		mrc_expect_eq "... and they differ from the namespace it came from" \
			"$c_before" "$(config_json "$ns_c")"
		expect_fail "root of a user namespace cannot set a netns it does not own" 1 \
			"Operation not permitted" asnobody_userns "$ns_c" unshare -Ur "$MRC_TOOL" \
			config set ev_count 7
		asnobody_userns "$ns_c" python3 "$nlfuzz" userns >"$tmp/userns.out" 2>&1
		relay "$tmp/userns.out"
		mrc_expect_eq "namespace c unchanged by the user namespaces" "$c_before" \
			"$(config_json "$ns_c")"
		mrc_expect_eq "initial namespace unchanged by the user namespaces" \
			"$init_before" "$(config_json)"
	fi
}

# 4. bad attributes
part_4() {
	ip netns exec "$ns_c" python3 "$nlfuzz" bad >"$tmp/bad.out" 2>&1
	rc=$?
	relay "$tmp/bad.out"
	if ! grep -q '^ok - ' "$tmp/bad.out" || [ "$rc" -gt 1 ]; then
		mrc_fail "mrc_nlfuzz.py bad ran" "exited $rc"
	fi
	expect_fail "mrc prints the kernel's extack: rto_min_us above rto_max_us" 1 \
		"rto_min_us is above rto_max_us" \
		mrc -n "$ns_c" config set rto_min_us 5000000 rto_max_us 1000
	expect_fail "mrc prints the kernel's extack: ev_port_min above ev_port_max" 1 \
		"ev_port_min is above ev_port_max" \
		mrc -n "$ns_c" config set ev_port_min 60000 ev_port_max 50000
	expect_fail "mrc prints the kernel's extack: path show of an unknown cid" 1 \
		"no connection with that id" mrc -n "$ns_c" path show cid 4000000000
	expect_fail "mrc prints the kernel's extack: path deny of an unknown cid" 1 \
		"no connection with that id" mrc -n "$ns_c" path deny cid 4000000000 port 50000
	expect_fail "mrc prints the kernel's extack: allow of a range never denied" 1 \
		"no denied range" mrc -n "$ns_c" path allow peer 10.9.9.9 ports 100-200
	expect_fail "mrc refuses ev_count 5000 itself (usage, exit 2)" 2 "" \
		mrc -n "$ns_c" config set ev_count 5000
	mrc_expect_eq "refused requests changed nothing" "$c_before" \
		"$(config_json "$ns_c")"
}

# 5. fuzz
part_5() {
	ns_f=
	mrc_ns_create ns_f
	fuzz_args=(-n "${MRC_FUZZ_COUNT:-10000}")
	[ -n "${MRC_FUZZ_SEED:-}" ] && fuzz_args+=(-s "$MRC_FUZZ_SEED")
	if conns_start fz -n 3 "$ns_f" "$ns_f" 127.0.0.1 9005; then
		conns_info fz "$tmp/fz.json"
		for c in $(info_cids "$tmp/fz.json" client) \
			 $(info_cids "$tmp/fz.json" server); do
			fuzz_args+=(-c "$c")
		done
	else
		echo "# no live connections for the fuzzer to hit"
	fi
	start=$SECONDS
	ip netns exec "$ns_f" timeout 300 python3 "$nlfuzz" fuzz "${fuzz_args[@]}" \
		>"$tmp/fuzz.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/fuzz.out" | grep -v '^# fuzzed'
	n=$(sed -n 's/^fuzzed //p' "$tmp/fuzz.out")
	if [ "$rc" -eq 0 ] && [ "${n:-0}" -ge "${MRC_FUZZ_COUNT:-10000}" ]; then
		mrc_ok "fuzz: $n random messages to every command, the kernel answered throughout ($((SECONDS - start)) s)"
	else
		mrc_fail "fuzz: ${MRC_FUZZ_COUNT:-10000} random messages, the kernel answered throughout" \
			"exited $rc after '${n:-?}' messages"
	fi
	conns_stop fz
	mrc_check "fuzz: mrc config show still works in the fuzzed namespace" \
		mrc -n "$ns_f" config show
	mrc_check "fuzz: mrc stats show still works" mrc -n "$ns_f" stats show
	mrc_check "fuzz: the fuzzed namespace can be deleted" mrc_ns_del "$ns_f"
	mrc_check "fuzz: mrc config show works" mrc config show
	mrc_transfer "fuzz: a short transfer over the pair works" 4 -n 50 -M 20000
	dmesg | tail -n +"$((dmesg_start + 1))" >"$tmp/dmesg"
	if "$MRC_TOP/tools/testing/vm/check-console" "$tmp/dmesg" >"$tmp/cc.out" 2>&1; then
		mrc_ok "fuzz: no kernel warning so far"
	else
		mrc_fail "fuzz: no kernel warning so far" "$(head -n 5 "$tmp/cc.out" | tr '\n' ' ')"
	fi
}

# 6. long dumps
# dump_churn: with the connections of "big" open (their ids in
# $tmp/many1.json), 300 more open; a raw dump of h1 reads its first part
# and pauses while those 300 close, then reads the rest: every one of
# big's connections is listed, and no connection twice.  (A dump that
# resumed by position in the table missed those that moved down.)
dump_churn() {
	local fifo=$tmp/dumppause.in out=$tmp/dumppause.out pid fd i left r
	if ! conns_start churn -q -n 300 "$H1" "$H2" "$MRC_H2_ADDR4" 9007; then
		mrc_fail "300 connections more for the churn dump"
		return
	fi
	mkfifo "$fifo"
	ip netns exec "$H1" python3 "$nlfuzz" dumppause <"$fifo" >"$out" 2>&1 &
	pid=$!
	exec {fd}>"$fifo"
	for ((i = 1; i <= 100; i++)); do
		mrc_file_has "$out" paused && break
		mrc_nap 0.1
	done
	conns_stop churn
	for ((i = 1; i <= 300; i++)); do
		# (grep, not jq: the dump lists 10,000 connections more;
		# its objects are flat, one "dport" each)
		left=$(mrc -n "$H1" -j conn show | grep -o '"dport":9007[,}]' | wc -l)
		[ "$left" = 0 ] && break
		mrc_nap 0.1
	done
	echo "# dump paused after $(sed -n 's/^paused //p' "$out") connections; the 300 gone ($left left) in $((i / 10)) s"
	echo go >&"$fd"
	exec {fd}>&-
	wait "$pid"
	r=$(tail -n 1 "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
big = {x["local_cid"] for x in json.load(open(sys.argv[1]))}
seen = d["cids"]
print("%d:%d:%d:%s" % (d["parts"], len(big - set(seen)),
                       len(seen) - len(set(seen)), str(d["done"]).lower()))
' "$tmp/many1.json" 2>&1)
	echo "# churn dump: parts:missed:repeated:done $r"
	mrc_expect_eq "a dump paused while 300 connections close misses none of the others and repeats none" \
		"0:0:true" "${r#*:}"
}

part_6() {
	want=${MRC_DUMP_CONNS:-10000}
	mrc_check "h1: ev_count 4 ev_spares 0 (small connections)" \
		mrc -n "$H1" config set ev_count 4 ev_spares 0
	mrc_check "h2: ev_count 4 ev_spares 0" mrc -n "$H2" config set ev_count 4 ev_spares 0
	start=$SECONDS
	if CONNS_WAIT=$(((${MRC_DUMP_SECONDS:-150} + 60) * 5)) conns_start big -q \
		-n "$want" -T "${MRC_DUMP_SECONDS:-150}" "$H1" "$H2" "$MRC_H2_ADDR4" 9006; then
		got=$(sed -n 's/^ready \([0-9]*\).*/\1/p' "${cs_out[big]}")
		echo "# opened $got connections in $(sed -n 's/^ready [0-9]* //p' "${cs_out[big]}") s"
		if [ "$got" -lt "$want" ]; then
			echo "# only $got of $want connections opened within ${MRC_DUMP_SECONDS:-150} s: checking the dump with $got"
			grep -v '^ready' "${cs_out[big]}" | sed 's/^/# /' | head -n 3
		fi
		if [ "$got" -ge 2000 ]; then
			mrc_ok "at least 2000 connections open ($got)"
		else
			mrc_fail "at least 2000 connections open ($got)"
		fi
		t0=$(date +%s%N)
		conn_json "$H1" "$tmp/many1.json"
		echo "# conn show -j of $got connections took $((($(date +%s%N) - t0) / 1000000)) ms"
		t0=$(date +%s%N)
		mrc -n "$H1" -j conn show cid 1 >/dev/null
		echo "# conn show -j cid 1 among them took $((($(date +%s%N) - t0) / 1000000)) ms"
		conn_json "$H2" "$tmp/many2.json"
		# python3: jq takes half a minute over these (several MB each)
		local r1 r2 r3 cid
		read -r r1 r2 r3 cid < <(python3 -c '
import json, sys
c, s = (json.load(open(f)) for f in sys.argv[1:3])
e = [x for x in s if x["state"] == "established"]
print("%d:%d:%s %d:%s %s %d" % (
    len(c), len({x["local_cid"] for x in c}),
    str(all(x["dport"] == 9006 and x["state"] == "established"
            for x in c)).lower(),
    len(e), str(len({x["local_cid"] for x in s}) == len(s)).lower(),
    str(sorted(x["peer_cid"] for x in c) ==
        sorted(x["local_cid"] for x in e)).lower(),
    c[len(c) // 2]["local_cid"] if c else 0))' "$tmp/many1.json" "$tmp/many2.json")
		mrc_expect_eq "conn dump lists each of h1's $got connections once (length:unique:all established)" \
			"$got:$got:true" "$r1"
		# (listeners have no connection id and are not in the dump)
		mrc_expect_eq "conn dump lists each of h2's $got connections once (established:all unique)" \
			"$got:true" "$r2"
		mrc_expect_eq "h1's and h2's dumps pair up (peer_cid)" true "$r3"
		mrc_expect_eq "conn show (plain) prints $got lines" "$got" \
			"$(mrc -n "$H1" conn show | grep -c '^cid ')"
		mrc_expect_eq "conn show cid X among $got prints that one" "$cid" \
			"$(mrc -n "$H1" -j conn show cid "$cid" | jq -c 'map(.local_cid) | .[]')"
		dump_churn
		t0=$SECONDS
		conns_stop big
		# they finish as orphans: later parts dump the tables
		for ((_n = 1; _n <= 300; _n++)); do
			[ "$(mrc -n "$H1" -j conn show)" = "[]" ] &&
				[ "$(mrc -n "$H2" -j conn show)" = "[]" ] &&
				break
			mrc_nap 0.1
		done
		echo "# closing them took $((SECONDS - t0)) s"
	else
		mrc_fail "connections for the dump test open" "$(tail -n 3 "${cs_out[big]}" | tr '\n' ' ')"
	fi
	echo "# dump test: $((SECONDS - start)) s"
	reset_config "$H1" >/dev/null
	reset_config "$H2" >/dev/null
}

# 7. agree with MRC_INFO
part_7() {
	mrc -n "$H1" config set ev_count 8 ev_spares 2 >/dev/null
	mrc -n "$H2" config set ev_count 6 ev_spares 3 >/dev/null
	if conns_start s3 -n 3 "$H1" "$H2" "$MRC_H2_ADDR4" 9007; then
		mrc_expect_eq "3 connections exchange messages" "xfer ok" "$(conns_cmd s3 "xfer 20")"
		# memory regions: client i registers i + 1 of 64 KiB
		mrc_expect_eq "memory regions registered on the clients" "mr ok" \
			"$(conns_cmd s3 "mr 65536")"
		mrc_nap 0.5
		conns_info s3 "$tmp/s3.json"
		jchecks "$tmp/s3.json" "MRC_INFO counts each socket's memory regions" \
			'[.[] | [.side, .i, .mr_count, .mr_bytes]] | sort ==
			 ([range(3) | ["client", ., . + 1, (. + 1) * 65536]] +
			  [range(3) | ["server", ., 0, 0]] | sort)' \
			"MRC_INFO is version >= 2 and peers pair up" \
			'all(.version >= 2) and
			 ([.[] | select(.side == "client") | .peer_cid] | sort) ==
			 ([.[] | select(.side == "server") | .local_cid] | sort)' \
			"ev_count 8 (h1) and 6 (h2) in MRC_INFO" \
			'([.[] | select(.side == "client") | .evs] | unique) == [8] and
			 ([.[] | select(.side == "server") | .evs] | unique) == [6]'
		info_vs_dump "conn show agrees with MRC_INFO (client ends)" "$tmp/s3.json" client "$H1"
		info_vs_dump "conn show agrees with MRC_INFO (server ends)" "$tmp/s3.json" server "$H2"
		info_vs_path "path show agrees with MRC_INFO (client ends)" "$tmp/s3.json" client "$H1"
		info_vs_path "path show agrees with MRC_INFO (server ends)" "$tmp/s3.json" server "$H2"
		conns_stop s3
	else
		mrc_fail "3 connections for MRC_INFO"
	fi
	# per-socket options
	if conns_start s4 -n 2 -e 5 "$H1" "$H2" "$MRC_H2_ADDR4" 9008; then
		conns_info s4 "$tmp/s4.json"
		jcheck "MRC_EV_COUNT 5 on the client sockets: MRC_INFO evs 5 (server: 6)" \
			'([.[] | select(.side == "client") | .evs] | unique) == [5] and
			 ([.[] | select(.side == "server") | .evs] | unique) == [6]' "$tmp/s4.json"
		info_vs_dump "MRC_EV_COUNT 5: conn show agrees" "$tmp/s4.json" client "$H1"
		info_vs_path "MRC_EV_COUNT 5: path show agrees" "$tmp/s4.json" client "$H1"
		conns_cmd s4 setopt >"$tmp/setopt.out"
		sed 's/^/# /' "$tmp/setopt.out"
		# after connect() or accept(), on a listener, out of range, and
		# set and read back on a fresh socket
		local want_opts=(
			connected_ev_count=EISCONN connected_ev_policy=EISCONN
			accepted_ev_count=EISCONN
			listener_ev_count=EINVAL listener_ev_policy=EINVAL
			fresh_ev_count_limit_plus_1=EINVAL
			fresh_ev_count_minus_1=EINVAL fresh_ev_policy_3=EINVAL
			fresh_ev_policy_minus_2=EINVAL fresh_ev_count_short=EINVAL
			fresh_ev_count_set=ok fresh_ev_policy_set=ok
			fresh_ev_count_get=3 fresh_ev_policy_get=1
		)
		mrc_expect_eq "MRC_EV_COUNT/MRC_EV_POLICY: EISCONN once connected, EINVAL on a listener and out of range" \
			"${want_opts[*]}" "$(tr '\n' ' ' <"$tmp/setopt.out" | sed 's/ $//')"
		conns_stop s4
	else
		mrc_fail "connections with MRC_EV_COUNT 5"
	fi
	if conns_start s5 -n 1 -P 1 "$H1" "$H2" "$MRC_H2_ADDR4" 9009; then
		conns_info s5 "$tmp/s5.json"
		jcheck "MRC_EV_POLICY single on the client: MRC_INFO policy 1, evs 1 (server spray)" \
			'[.[] | [.side, .ev_policy, (if .side == "client" then .evs else 0 end)]] ==
			 [["client", 1, 1], ["server", 0, 0]]' "$tmp/s5.json"
		info_vs_dump "MRC_EV_POLICY single: conn show agrees" "$tmp/s5.json" client "$H1"
		info_vs_path "MRC_EV_POLICY single: path show agrees" "$tmp/s5.json" client "$H1"
		conns_stop s5
	else
		mrc_fail "a connection with MRC_EV_POLICY single"
	fi
	reset_config "$H1" >/dev/null
	reset_config "$H2" >/dev/null
}

# 8. deny and allow
part_8() {
	peer2=10.0.1.3
	ip -n "$H2" addr add "$peer2/24" dev eth0
	mrc -n "$H1" config set ev_count 8 ev_spares 4 ev_port_min 50000 ev_port_max 50063 >/dev/null
	lo=50000
	hi=50031
	if conns_start d1 -n 2 "$H1" "$H2" "$MRC_H2_ADDR4" 9010 &&
	   conns_start d2 -n 2 "$H1" "$H2" "$peer2" 9011; then
		conns_info d1 "$tmp/d1.json"
		conns_info d2 "$tmp/d2.json"
		cid=$(jq '[.[] | select(.side == "client")][0].local_cid' "$tmp/d1.json")
		path_json "$H1" "$cid" "$tmp/dp.json"
		port=$(jq '[.[] | select(.active and .state == "good")][0].port' "$tmp/dp.json")
		denied0=$(ns_stat "$H1" ev_denied)
		replaced0=$(ns_stat "$H1" ev_replaced)
		allowed0=$(ns_stat "$H1" ev_allowed)
		mrc_check "path deny cid $cid port $port" mrc -n "$H1" path deny cid "$cid" port "$port"
		path_json "$H1" "$cid" "$tmp/dp.json"
		mrc_expect_eq "path show: port $port denied" denied \
			"$(jq -r ".[] | select(.port == $port) | .state" "$tmp/dp.json")"
		mrc_expect_eq "ev_denied rose by 1" $((denied0 + 1)) "$(ns_stat "$H1" ev_denied)"
		replaced=$(ns_stat "$H1" ev_replaced)
		if [ "$replaced" -gt "$replaced0" ]; then
			mrc_ok "ev_replaced rose (a spare took its place)"
		else
			mrc_fail "ev_replaced rose (a spare took its place)" "$replaced0 -> $replaced"
		fi
		jcheck "path show: still 8 active EVs, none of them denied" \
			'(map(select(.active)) | length) == 8 and
			 (map(select(.active and .state == "denied")) | length) == 0' "$tmp/dp.json"
		conn_json "$H1" "$tmp/dc.json"
		jcheck "conn show: ev_denied 1 on cid $cid" \
			"[.[] | select(.local_cid == $cid) | .ev_denied] == [1]" "$tmp/dc.json"
		mrc_check "path allow cid $cid port $port" mrc -n "$H1" path allow cid "$cid" port "$port"
		path_json "$H1" "$cid" "$tmp/dp.json"
		mrc_expect_eq "path show: port $port good again" good \
			"$(jq -r ".[] | select(.port == $port) | .state" "$tmp/dp.json")"
		mrc_expect_eq "ev_allowed rose by 1" $((allowed0 + 1)) "$(ns_stat "$H1" ev_allowed)"

		# a range, for one peer
		mrc_check "path deny peer $MRC_H2_ADDR4 ports $lo-$hi" \
			mrc -n "$H1" path deny peer "$MRC_H2_ADDR4" ports "$lo-$hi"
		denied_check "range deny: every EV of $MRC_H2_ADDR4's connections in $lo-$hi denied, no other" \
			"$tmp/d1.json" range
		if [ "$denied_n" -gt 0 ]; then
			mrc_ok "range deny: some EVs were in the range ($denied_n)"
		else
			mrc_fail "range deny: some EVs were in the range" "none of 24 EVs in $lo-$hi?"
		fi
		denied_check "range deny: $peer2's connections untouched" "$tmp/d2.json" none
		if conns_start d3 -n 2 "$H1" "$H2" "$MRC_H2_ADDR4" 9012; then
			conns_info d3 "$tmp/d3.json"
			denied_check "range deny: new connections to $MRC_H2_ADDR4 start with EVs in $lo-$hi denied" \
				"$tmp/d3.json" range
			info_vs_path "range deny: MRC_INFO of the new connections agrees with path show" \
				"$tmp/d3.json" client "$H1"
		else
			mrc_fail "new connections after the range deny"
		fi
		mrc_check "path allow peer $MRC_H2_ADDR4 ports $lo-$hi" \
			mrc -n "$H1" path allow peer "$MRC_H2_ADDR4" ports "$lo-$hi"
		denied_check "range allow: nothing denied on $MRC_H2_ADDR4's connections" "$tmp/d1.json" none
		[ -n "${cs_fd[d3]:-}" ] &&
			denied_check "range allow: nothing denied on the newer ones" "$tmp/d3.json" none
		conns_stop d3
		if conns_start d4 -n 1 "$H1" "$H2" "$MRC_H2_ADDR4" 9013; then
			conns_info d4 "$tmp/d4.json"
			denied_check "range allow: a connection made after it has nothing denied" \
				"$tmp/d4.json" none
			conns_stop d4
		fi
		# the same for every peer
		mrc_check "path deny ports $lo-$hi (every peer)" mrc -n "$H1" path deny ports "$lo-$hi"
		denied_check "deny for every peer: $peer2's connections denied in range too" \
			"$tmp/d2.json" range
		mrc_check "path allow ports $lo-$hi (every peer)" mrc -n "$H1" path allow ports "$lo-$hi"
		denied_check "allow for every peer: nothing denied" "$tmp/d2.json" none
	else
		mrc_fail "connections to two peers for deny/allow"
	fi
	conns_stop d1
	conns_stop d2
	reset_config "$H1" >/dev/null
}

# 9 and 10. tracepoints and events
part_9() {
	tracefs=/sys/kernel/tracing
	[ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
	trace_dir=$tracefs/instances/mrc-control-$$
	often=(mrc_xmit mrc_rcv)
	rare=(mrc_loss mrc_retransmit mrc_ev_state mrc_cwnd)
	tracing=1
	for t in "${often[@]}" "${rare[@]}"; do
		[ -d "$tracefs/events/mrc/$t" ] || { mrc_fail "tracepoint mrc:$t exists"; tracing=0; }
	done
	if [ "$tracing" = 1 ]; then
		# the frequent events in a buffer of their own, so that they do not
		# overwrite the rare ones
		mkdir "$trace_dir-often" "$trace_dir-rare" || tracing=0
		for t in "${often[@]}"; do echo 1 >"$trace_dir-often/events/mrc/$t/enable"; done
		for t in "${rare[@]}"; do echo 1 >"$trace_dir-rare/events/mrc/$t/enable"; done
		echo 2048 >"$trace_dir-rare/buffer_size_kb"
	fi

	# the events group: a raw listener, and mrc monitor if the tool has it
	ip netns exec "$H1" python3 "$nlfuzz" listen >"$tmp/listen.out" 2>&1 &
	listen_pid=$!
	mrc_pids+=("$listen_pid")
	monitor=0
	if "$MRC_TOOL" monitor help >/dev/null 2>&1; then
		monitor=1
		"$MRC_TOOL" -n "$H1" -j monitor >"$tmp/monitor.out" 2>&1 &
		monitor_pid=$!
		mrc_pids+=("$monitor_pid")
	else
		echo "# mrc monitor is not in the tool: the raw listener only"
	fi
	perf_pid=
	if command -v perf >/dev/null && perf list 'mrc:*' 2>/dev/null | grep -q mrc_xmit; then
		perf stat -a -x, -e mrc:mrc_xmit -e mrc:mrc_ev_state -o "$tmp/perf.out" &
		perf_pid=$!
		mrc_pids+=("$perf_pid")
	elif command -v bpftrace >/dev/null; then
		echo "# no perf: bpftrace would do; not attached"
	else
		echo "# neither perf nor bpftrace usable: tracefs only"
	fi
	for ((_n = 1; _n <= 50; _n++)); do
		mrc_file_has "$tmp/listen.out" '# listening' && break
		mrc_nap 0.1
	done
	mrc_nap 1
	mrc_netem "$H1" eth0 loss 5%
	mrc_transfer "transfer with 5% loss while tracing and listening" 4 -n 400 -M 20000
	mrc_netem "$H1" eth0 none
	mrc_nap 1
	kill "$listen_pid"
	[ "$monitor" = 1 ] && kill "$monitor_pid"
	[ -n "$perf_pid" ] && kill -INT "$perf_pid"
	wait "$listen_pid" 2>/dev/null
	[ "$monitor" = 1 ] && wait "$monitor_pid" 2>/dev/null
	[ -n "$perf_pid" ] && wait "$perf_pid" 2>/dev/null

	if [ "$tracing" = 1 ]; then
		for t in "${often[@]}" "${rare[@]}"; do echo 0 >"$trace_dir-often/events/mrc/$t/enable" 2>/dev/null; echo 0 >"$trace_dir-rare/events/mrc/$t/enable" 2>/dev/null; done
		cat "$trace_dir-often/trace" "$trace_dir-rare/trace" >"$tmp/trace"
		for t in "${often[@]}" "${rare[@]}"; do
			n=$(grep -c " $t: " "$tmp/trace")
			if [ "$n" -gt 0 ]; then
				mrc_ok "tracepoint mrc:$t fired ($n in the buffer)"
				echo "# $(grep -m 1 " $t: " "$tmp/trace" | sed 's/^ *//')"
			else
				mrc_fail "tracepoint mrc:$t fired" "not in the trace"
			fi
		done
	fi
	if [ -n "$perf_pid" ]; then
		grep mrc "$tmp/perf.out" | sed 's/^/# perf: /'
		n=$(awk -F, '/mrc:mrc_xmit/ { print $1 }' "$tmp/perf.out")
		if [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ]; then
			mrc_ok "perf counts mrc:mrc_xmit during the transfer ($n)"
		else
			mrc_fail "perf counts mrc:mrc_xmit during the transfer" "$(tr '\n' ' ' <"$tmp/perf.out")"
		fi
	fi

	events_check "events (raw listener)" "$tmp/listen.out" local_cid
	if [ "$monitor" = 1 ]; then
		events_check "mrc -j monitor" "$tmp/monitor.out" local_cid
	fi
}

# 10. who sees connection ids
part_10() {
	local rcid rpeer ocids hex mon_pid rc
	if ! conns_start root1 -n 1 "$H1" "$H2" "$MRC_H2_ADDR4" 9011; then
		mrc_fail "a connection of root for the visibility test"
		return
	fi
	conns_cmd root1 info >"$tmp/vis-info.json"
	read -r rcid rpeer < <(jq -r 'select(.side == "client") |
		"\(.local_cid) \(.peer_cid)"' "$tmp/vis-info.json")
	echo "# root's connection: cid $rcid peer_cid $rpeer"
	conn_json "$H1" "$tmp/vis-root.json"
	jcheck "root sees the ids of root's connection" \
		"any(.[]; .local_cid == $rcid and .peer_cid == $rpeer)" "$tmp/vis-root.json"
	asnobody "$H1" "$MRC_TOOL" -j conn show >"$tmp/vis-nobody.json"
	jcheck "nobody: root's connection is listed, without local_cid and peer_cid" \
		'[.[] | select(.daddr == "'"$MRC_H2_ADDR4"'" and .dport == 9011)] |
		 length == 1 and all(has("local_cid") or has("peer_cid") | not)' \
		"$tmp/vis-nobody.json"
	hex=$(printf '0x%08x' "$rcid")
	asnobody "$H1" "$MRC_TOOL" conn show >"$tmp/vis-nobody.txt"
	if grep -q "$MRC_H2_ADDR4:9011 " "$tmp/vis-nobody.txt" &&
	   ! grep -qi -e "$hex" -e "$(printf '0x%08x' "$rpeer")" "$tmp/vis-nobody.txt"; then
		mrc_ok "nobody: conn show prints root's connection without its ids"
	else
		mrc_fail "nobody: conn show prints root's connection without its ids" \
			"expected a line for $MRC_H2_ADDR4:9011 without $hex, saw: $(tr '\n' ' ' <"$tmp/vis-nobody.txt")"
	fi
	mrc_expect_eq "nobody: conn show cid of root's connection finds nothing" "[]" \
		"$(asnobody "$H1" "$MRC_TOOL" -j conn show cid "$rcid" | jq -c .)"
	expect_fail "nobody: path show of root's connection fails with EPERM" 1 \
		"Operation not permitted: mrc: no connection of yours has that id" \
		asnobody "$H1" "$MRC_TOOL" path show cid "$rcid"
	expect_fail "nobody: path show of a cid that does not exist fails the same way" 1 \
		"Operation not permitted: mrc: no connection of yours has that id" \
		asnobody "$H1" "$MRC_TOOL" path show cid 4000000000
	path_json "$H1" "$rcid" "$tmp/vis-path.json"
	jcheck "root: path show of root's connection lists its EVs" \
		"length > 0 and all(.cid == $rcid)" "$tmp/vis-path.json"
	# the events group: closed to nobody where the kernel can say so
	# (compat.h); where it cannot, nobody may listen but hears no ids
	asnobody "$H1" timeout 20 "$MRC_TOOL" -j monitor conn \
		>"$tmp/vis-mon.out" 2>&1 &
	mon_pid=$!
	mrc_pids+=("$mon_pid")
	mrc_nap 1
	if conns_start root2 -n 1 "$H1" "$H2" "$MRC_H2_ADDR4" 9013; then
		conns_stop root2
	else
		mrc_fail "a second connection of root, for the events"
	fi
	wait "$mon_pid"
	rc=$?
	if [ "$rc" = 4 ] && grep -q "Operation not permitted (it needs CAP_NET_ADMIN)" \
	   "$tmp/vis-mon.out"; then
		mrc_ok "nobody: mrc monitor cannot join the events group (EPERM)"
	elif [ "$rc" = 124 ] && grep -q '"event":"conn"' "$tmp/vis-mon.out" &&
	     ! grep -q '_cid' "$tmp/vis-mon.out"; then
		mrc_ok "nobody: events without connection ids (this kernel cannot restrict the group)"
	else
		mrc_fail "nobody: mrc monitor cannot join the events group (EPERM)" \
			"monitor exited $rc (want 4, or 124 and no ids), printed: $(head -c 400 "$tmp/vis-mon.out" | tr '\n' ' ')"
	fi

	conns_as=(ip netns exec "$H1" "${nobody[@]}")
	if ! conns_start nobody1 -n 1 - - 127.0.0.1 9012; then
		conns_as=()
		mrc_fail "a connection of nobody over loopback"
		conns_stop root1
		return
	fi
	conns_as=()
	ocids=$(conns_cmd nobody1 info | jq -s -c 'map(.local_cid) | sort')
	echo "# nobody's connection: cids $ocids"
	asnobody "$H1" "$MRC_TOOL" -j conn show >"$tmp/vis-own.json"
	jcheck "nobody sees the ids of its own connection (both ends), and no others" \
		"(map(.local_cid // empty) | sort) == $ocids and
		 all(.[] | select(.daddr == \"127.0.0.1\" and .state == \"established\");
		     has(\"local_cid\") and has(\"peer_cid\"))" "$tmp/vis-own.json"
	ocid=${ocids#[}
	ocid=${ocid%%[],]*}
	asnobody "$H1" "$MRC_TOOL" -j path show cid "$ocid" \
		>"$tmp/vis-own-path.json"
	jcheck "nobody: path show of its own connection lists its EVs" \
		"length > 0 and all(.cid == $ocid)" "$tmp/vis-own-path.json"
	asnobody "$H1" "$MRC_TOOL" -j path show >"$tmp/vis-own-paths.json"
	jcheck "nobody: path show (every connection) lists the EVs of its own connections only" \
		"length > 0 and (map(.cid) | unique) == $ocids" "$tmp/vis-own-paths.json"
	conn_json "$H1" "$tmp/vis-root2.json"
	jcheck "root sees the ids of every connection, nobody's too" \
		"all(.[]; has(\"local_cid\")) and
		 ($ocids + [$rcid]) - map(.local_cid) == []" "$tmp/vis-root2.json"
	conns_stop nobody1
	conns_stop root1
}

# ------------------------------------------------------------ main

mrc_pair || { mrc_fail "pair topology"; mrc_done; }
H1=$MRC_H1
H2=$MRC_H2
ns_a=
ns_c=
if ! mrc_ns_create ns_a || ! mrc_ns_create ns_c; then
	mrc_fail "namespaces created"
	mrc_done
fi
init_before=$(config_json)

# MRC_CONTROL_PARTS: which parts to run (default all), e.g. "1 7"
for part in ${MRC_CONTROL_PARTS:-1 2 3 4 5 6 7 8 9 10}; do
	echo "# part $part (at $SECONDS s)"
	"part_$part"
done

dmesg | tail -n +"$((dmesg_start + 1))" >"$tmp/dmesg"
if "$MRC_TOP/tools/testing/vm/check-console" "$tmp/dmesg" >"$tmp/cc.out" 2>&1; then
	mrc_ok "no kernel warning during the test"
else
	mrc_fail "no kernel warning during the test" "$(head -n 5 "$tmp/cc.out" | tr '\n' ' ')"
fi

echo "# done (at $SECONDS s)"
mrc_done
