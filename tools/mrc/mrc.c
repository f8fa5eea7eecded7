// SPDX-License-Identifier: GPL-2.0
/* mrc(8): configure and inspect mrc over generic netlink.  This file owns
 * option parsing, the object dispatcher and the plain/JSON output helpers.
 */
#define _GNU_SOURCE		/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc.h"

struct mrc_opts opts;

/* JSON output: one level per open object or array; out_first[d] is true
 * while the container at depth d has no member yet.
 */
#define OUT_MAX_DEPTH	8
static bool out_first[OUT_MAX_DEPTH];
static unsigned int out_depth;

bool matches(const char *arg, const char *full)
{
	size_t len = strlen(arg);

	return len && len <= strlen(full) && !strncmp(arg, full, len);
}

/**
 * mrc_parse_u64() - parse a decimal or 0x hexadecimal number in a range
 * @arg: the command-line word
 * @min: smallest value accepted
 * @max: largest value accepted
 * @val: the value, set on success
 *
 * Return: 0, or -1 if @arg is not a number from @min to @max.
 */
int mrc_parse_u64(const char *arg, uint64_t min, uint64_t max, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' ||
	    *val < min || *val > max)
		return -1;
	return 0;
}

/**
 * mrc_parse_cid() - parse a connection id (decimal or 0x hexadecimal)
 * @arg: the command-line word
 * @cid: the id, set on success
 *
 * Return: 0, or -1 after printing what was wrong.
 */
int mrc_parse_cid(const char *arg, uint32_t *cid)
{
	uint64_t val;

	if (mrc_parse_u64(arg, 1, UINT32_MAX, &val)) {
		fprintf(stderr, "mrc: \"%s\" is not a connection id (1-0xffffffff)\n",
			arg);
		return -1;
	}
	*cid = val;
	return 0;
}

/**
 * mrc_word() - the name of an enumerated value
 * @words: names, indexed by value
 * @n: entries in @words
 * @val: the value
 *
 * Return: the name, or "unknown" for a value the tool has no name for.
 */
const char *mrc_word(const char *const *words, unsigned int n,
		     unsigned int val)
{
	return val < n && words[val] ? words[val] : "unknown";
}

static void out_indent(unsigned int depth)
{
	putchar('\n');
	while (depth--)
		fputs("    ", stdout);
}

/* Before a new member of the innermost container: comma, newline, indent. */
static void out_next(void)
{
	if (!out_depth)
		return;
	if (!out_first[out_depth - 1])
		putchar(',');
	out_first[out_depth - 1] = false;
	if (opts.pretty)
		out_indent(out_depth);
}

static void out_open(char c)
{
	out_next();
	putchar(c);
	if (out_depth < OUT_MAX_DEPTH)
		out_first[out_depth++] = true;
}

static void out_close(char c)
{
	if (!out_depth)
		return;
	if (!out_first[--out_depth] && opts.pretty)
		out_indent(out_depth);
	putchar(c);
	if (!out_depth)
		putchar('\n');
}

static void out_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void out_key(const char *key)
{
	out_next();
	out_json_str(key);
	putchar(':');
	if (opts.pretty)
		putchar(' ');
}

/* Objects: in plain output, each member is one "key value" line. */
void mrc_out_begin(void)
{
	if (opts.json)
		out_open('{');
}

void mrc_out_end(void)
{
	if (opts.json)
		out_close('}');
}

/* Arrays of objects (JSON only: plain output of lists is the caller's). */
void mrc_out_list_begin(void)
{
	if (opts.json)
		out_open('[');
}

void mrc_out_list_end(void)
{
	if (opts.json)
		out_close(']');
}

void mrc_out_u64(const char *key, uint64_t val)
{
	if (opts.json) {
		out_key(key);
		printf("%" PRIu64, val);
	} else {
		printf("%s %" PRIu64 "\n", key, val);
	}
}

void mrc_out_str(const char *key, const char *val)
{
	if (opts.json) {
		out_key(key);
		out_json_str(val);
	} else {
		printf("%s %s\n", key, val);
	}
}

void mrc_out_bool(const char *key, bool val)
{
	if (opts.json) {
		out_key(key);
		fputs(val ? "true" : "false", stdout);
	} else {
		printf("%s %s\n", key, val ? "yes" : "no");
	}
}

/* JSON only: a member with no value (plain output leaves it out). */
void mrc_out_null(const char *key)
{
	if (opts.json) {
		out_key(key);
		fputs("null", stdout);
	}
}

static void usage(FILE *f)
{
	fputs("Usage: mrc [OPTIONS] OBJECT { COMMAND | help }\n"
	      "where  OBJECT := { config | conn | path | stats | monitor }\n"
	      "       OPTIONS := { -j[son] | -p[retty] | -s[tatistics] |\n"
	      "                    -n[etns] NAME | -h[elp] | -V[ersion] }\n"
	      "Run \"mrc OBJECT help\" for the commands of an object.\n", f);
}

/* -n NAME: run in the network namespace NAME of "ip netns" (a name
 * with a slash is taken as the path of a namespace file, such as
 * /proc/PID/ns/net).  Only the network namespace changes: mrc talks to
 * the kernel over netlink alone, so unlike "ip netns exec" nothing is
 * mounted.
 */
static int netns_switch(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (strchr(name, '/')) {
		snprintf(path, sizeof(path), "%s", name);
	} else if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
		   snprintf(path, sizeof(path), "/run/netns/%s", name) >=
		   (int)sizeof(path)) {
		fprintf(stderr, "mrc: \"%s\" is not a namespace name\n", name);
		return MRC_EXIT_USAGE;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mrc: cannot open network namespace \"%s\": %s\n",
			name, strerror(errno));
		return MRC_EXIT_SYSTEM;
	}
	err = setns(fd, CLONE_NEWNET);
	if (err)
		fprintf(stderr, "mrc: cannot enter network namespace \"%s\": %s\n",
			name, strerror(errno));
	close(fd);
	return err ? MRC_EXIT_SYSTEM : MRC_EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "config",	cmd_config },
	{ "conn",	cmd_conn },
	{ "monitor",	cmd_monitor },
	{ "path",	cmd_path },
	{ "stats",	cmd_stats },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "statistics",	no_argument, NULL, 's' },
		{ "netns",	required_argument, NULL, 'n' },
		{ "help",	no_argument, NULL, 'h' },
		{ "Version",	no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *netns = NULL;
	unsigned int i;
	int c, err;

	while ((c = getopt_long_only(argc, argv, "+jpsn:hV", longopts,
				     NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 's':
			opts.stats = true;
			break;
		case 'n':
			netns = optarg;
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
	if (netns) {
		err = netns_switch(netns);
		if (err)
			return err;
	}
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(argv[0], objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);

	fprintf(stderr, "mrc: unknown object \"%s\"; try \"mrc help\"\n",
		argv[0]);
	return MRC_EXIT_USAGE;
}
