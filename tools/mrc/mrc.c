// SPDX-License-Identifier: GPL-2.0
/* mrc(8): configure and inspect mrc over generic netlink.  This file owns
 * option parsing, the object dispatcher and the plain/JSON output helpers.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mrc.h"

struct mrc_opts opts;

static bool out_first;

bool matches(const char *arg, const char *full)
{
	size_t len = strlen(arg);

	return len && len <= strlen(full) && !strncmp(arg, full, len);
}

void mrc_out_begin(void)
{
	out_first = true;
	if (opts.json)
		fputs(opts.pretty ? "{\n" : "{", stdout);
}

void mrc_out_u64(const char *key, uint64_t val)
{
	if (opts.json)
		printf("%s%s\"%s\":%s%" PRIu64, out_first ? "" : ",",
		       opts.pretty ? (out_first ? "    " : "\n    ") : "",
		       key, opts.pretty ? " " : "", val);
	else
		printf("%s %" PRIu64 "\n", key, val);
	out_first = false;
}

void mrc_out_end(void)
{
	if (opts.json)
		fputs(opts.pretty ? "\n}\n" : "}\n", stdout);
}

static void usage(FILE *f)
{
	fputs("Usage: mrc [OPTIONS] OBJECT { COMMAND | help }\n"
	      "where  OBJECT := { config | stats }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -h[elp] | -V[ersion] }\n"
	      "Run \"mrc OBJECT help\" for the commands of an object.\n", f);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "config",	cmd_config },
	{ "stats",	cmd_stats },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "help",	no_argument, NULL, 'h' },
		{ "Version",	no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int i;
	int c;

	while ((c = getopt_long_only(argc, argv, "+jphV", longopts,
				     NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 'h':
			usage(stdout);
			return MRC_EXIT_OK;
		case 'V':
			puts("mrc " MRC_TOOL_VERSION);
			return MRC_EXIT_OK;
		default:
			usage(stderr);
			return MRC_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	if (argc < 1) {
		usage(stderr);
		return MRC_EXIT_USAGE;
	}
	if (matches(argv[0], "help")) {
		usage(stdout);
		return MRC_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(argv[0], objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);

	fprintf(stderr, "mrc: unknown object \"%s\"; try \"mrc help\"\n",
		argv[0]);
	return MRC_EXIT_USAGE;
}
