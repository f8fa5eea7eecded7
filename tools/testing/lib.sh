#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers of mrc's test tooling: where caches live, which kernel
# build tree to use, and the extracted linux-source tree.

# Caches (kernel sources, UML builds, VM initramfs) live outside the checkout.
mrc_cache_dir() {
	local d=${MRC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrc}
	mkdir -p "$d"
	echo "$d"
}

# The kernel build tree the module is built against: $KDIR, or the newest
# /lib/modules/*/build.
mrc_kdir() {
	if [ -n "${KDIR:-}" ]; then
		echo "$KDIR"
		return
	fi
	find /lib/modules -mindepth 2 -maxdepth 2 -name build 2>/dev/null |
		sort -V | tail -n 1
}

# Path of the extracted linux-source-6.1 tree, extracting it on first use.
mrc_kernel_source() {
	local cache tarball name
	cache=$(mrc_cache_dir)
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' |
		  sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		echo "no /usr/src/linux-source-*.tar.xz: install linux-source-6.1" >&2
		return 1
	fi
	name=$(basename "$tarball" .tar.xz)
	if [ ! -f "$cache/$name/.mrc-extracted" ]; then
		rm -rf "${cache:?}/$name"
		tar -C "$cache" -xf "$tarball" || return 1
		touch "$cache/$name/.mrc-extracted"
	fi
	echo "$cache/$name"
}
