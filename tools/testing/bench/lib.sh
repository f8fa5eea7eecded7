# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the benchmark scripts (sourced).

# cpu_snap: "busy total" of every CPU of /proc/stat, one line each.
cpu_snap() {
	awk '/^cpu[0-9]/ {
		busy = $2 + $3 + $4 + $7 + $8 + $9
		print busy, busy + $5 + $6
	}' /proc/stat
}

# cpu_busy BEFORE AFTER: "avg% max%" busy over the CPUs between the two
# snapshots.
cpu_busy() {
	paste -d ' ' <(echo "$1") <(echo "$2") | awk '{
		b = $3 - $1; t = $4 - $2
		sb += b; st += t
		if (t > 0 && b / t > m) m = b / t
	} END {
		if (st == 0) st = 1
		printf "%.0f%% %.0f%%\n", 100 * sb / st, 100 * m
	}'
}

# field LINE KEY: the value of KEY=... in LINE.
field() {
	sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p" <<<"$1"
}
