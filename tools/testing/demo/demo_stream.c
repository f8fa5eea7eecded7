// SPDX-License-Identifier: GPL-2.0
/* demo_stream: a steady stream of checked messages over mrc or TCP, for
 * `make demo`.
 *
 *   demo_stream server -t mrc|tcp [-6] -p PORT -o STATUS
 *   demo_stream client -t mrc|tcp [-6] -a ADDR -p PORT -o STATUS
 *                      [-s SIZE] [-r MSGS_PER_SEC] [-d SECONDS]
 *
 * The client sends SIZE-byte messages at a fixed rate for SECONDS, then
 * shuts its side down and waits (up to 60 s) for the server to finish.
 * Every message carries its number and a checksum of its content.  The
 * server checks each and counts what arrived once and intact, what was
 * missing, duplicated or corrupt, and the longest time without a message.
 * Both rewrite STATUS (one line of key=value) ten times a second:
 *
 *   server: delivered=N missing=N duplicate=N corrupt=N stall_ms=N
 *           max_stall_ms=N done=0|1
 *   client: sent=N done=0|1
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#define MAGIC		0x44454d4fu	/* "DEMO" */
#define MAX_SIZE	65536

struct hdr {
	uint32_t magic;
	uint32_t len;
	uint64_t seq;
	uint32_t sum;
	uint32_t pad;
};

static struct {
	bool server, mrc, v6;
	const char *addr, *status;
	int port, size, rate, seconds;
} cfg = { .size = 16384, .rate = 200, .seconds = 30 };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static uint32_t fill(unsigned char *p, size_t n, uint64_t seq)
{
	uint32_t sum = 0, x = (uint32_t)seq * 2654435761u + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = x >> 24;
		sum = sum * 31 + p[i];
	}
	return sum;
}

static uint32_t checksum(const unsigned char *p, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum = sum * 31 + p[i];
	return sum;
}

/* Rewrite the status file with one line (the format is a literal). */
static void write_status(const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", cfg.status);
	f = fopen(tmp, "w");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
	rename(tmp, cfg.status);
}

static int make_socket(void)
{
	int fam = cfg.v6 ? AF_INET6 : AF_INET;

	if (cfg.mrc)
		return socket(fam, SOCK_SEQPACKET, IPPROTO_MRC);
	return socket(fam, SOCK_STREAM, 0);
}

static socklen_t make_addr(struct sockaddr_storage *ss, const char *addr)
{
	memset(ss, 0, sizeof(*ss));
	if (cfg.v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(cfg.port);
		if (addr && inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
			return 0;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(cfg.port);
	if (addr && inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
		return 0;
	return sizeof(*s4);
}

/* Read one message: whole for mrc, length-framed for TCP.
 * Return: its length, 0 at the end of the stream, -1 on error.
 */
static ssize_t read_msg(int fd, unsigned char *buf)
{
	struct hdr *h = (struct hdr *)buf;
	size_t got = 0, want = sizeof(*h);
	ssize_t n;

	if (cfg.mrc) {
		n = recv(fd, buf, MAX_SIZE, 0);
		return n;
	}
	while (got < want) {
		n = recv(fd, buf + got, want - got, 0);
		if (n <= 0)
			return n;
		got += n;
		if (got == sizeof(*h)) {
			if (h->len < sizeof(*h) || h->len > MAX_SIZE)
				return -1;
			want = h->len;
		}
	}
	return got;
}

static int run_server(void)
{
	static unsigned char buf[MAX_SIZE];
	long delivered = 0, missing = 0, dup = 0, corrupt = 0;
	uint64_t expect = 0, last, max_stall = 0, last_status = 0;
	struct sockaddr_storage ss;
	int l, fd, one = 1;
	socklen_t len;

	l = make_socket();
	len = make_addr(&ss, NULL);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) || listen(l, 4)) {
		perror("demo_stream: listen");
		return 1;
	}
	write_status("delivered=0 missing=0 duplicate=0 corrupt=0 stall_ms=0 %s",
		     "max_stall_ms=0 done=0");
	fd = accept(l, NULL, NULL);
	if (fd < 0) {
		perror("demo_stream: accept");
		return 1;
	}
	last = now_ms();
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t t;
		ssize_t n = 0;

		if (poll(&p, 1, 100) > 0) {
			n = read_msg(fd, buf);
			if (n <= 0)
				break;
		}
		t = now_ms();
		if (n > 0) {
			struct hdr *h = (struct hdr *)buf;

			if (n < (ssize_t)sizeof(*h) || h->magic != MAGIC ||
			    h->len != n ||
			    checksum(buf + sizeof(*h), n - sizeof(*h)) !=
			    h->sum) {
				corrupt++;
			} else if (h->seq < expect) {
				dup++;
			} else {
				missing += h->seq - expect;
				expect = h->seq + 1;
				delivered++;
				if (t - last > max_stall)
					max_stall = t - last;
				last = t;
			}
		}
		if (t - last_status >= 100) {
			last_status = t;
			write_status("delivered=%ld missing=%ld %s%ld %s%ld %s%llu %s%llu done=0",
				     delivered, missing, "duplicate=", dup,
				     "corrupt=", corrupt, "stall_ms=",
				     (unsigned long long)(t - last),
				     "max_stall_ms=",
				     (unsigned long long)(t - last > max_stall ?
							  t - last : max_stall));
		}
	}
	write_status("delivered=%ld missing=%ld duplicate=%ld %s%ld %s%llu done=1",
		     delivered, missing, dup, "corrupt=", corrupt,
		     "stall_ms=0 max_stall_ms=",
		     (unsigned long long)max_stall);
	close(fd);
	close(l);
	return 0;
}

static int send_all(int fd, const unsigned char *buf, size_t n)
{
	size_t off = 0;

	if (cfg.mrc)
		return send(fd, buf, n, 0) == (ssize_t)n ? 0 : -1;
	while (off < n) {
		ssize_t k = send(fd, buf + off, n - off, 0);

		if (k <= 0)
			return -1;
		off += k;
	}
	return 0;
}

static int run_client(void)
{
	static unsigned char buf[MAX_SIZE];
	struct hdr *h = (struct hdr *)buf;
	struct sockaddr_storage ss;
	uint64_t start, t, seq = 0, end;
	socklen_t len;
	int fd;

	fd = make_socket();
	len = make_addr(&ss, cfg.addr);
	if (fd < 0 || !len || connect(fd, (struct sockaddr *)&ss, len)) {
		perror("demo_stream: connect");
		return 1;
	}
	start = now_ms();
	end = start + cfg.seconds * 1000ull;
	write_status("sent=0 done=0");
	while ((t = now_ms()) < end) {
		/* the next message is due at its slot of the fixed rate */
		uint64_t due = start + seq * 1000 / cfg.rate;

		if (t < due) {
			usleep((due - t) * 1000 > 20000 ? 20000 :
			       (due - t) * 1000);
			continue;
		}
		h->magic = MAGIC;
		h->len = cfg.size;
		h->seq = seq;
		h->pad = 0;
		h->sum = fill(buf + sizeof(*h), cfg.size - sizeof(*h), seq);
		if (send_all(fd, buf, cfg.size)) {
			perror("demo_stream: send");
			break;
		}
		seq++;
		if (seq % 20 == 0)
			write_status("sent=%llu done=0",
				     (unsigned long long)seq);
	}
	write_status("sent=%llu done=0", (unsigned long long)seq);
	shutdown(fd, SHUT_WR);
	/* wait for the server to have it all (it closes at our end) */
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char c;

		while (poll(&p, 1, 60000) > 0 && recv(fd, &c, 1, 0) > 0)
			;
	}
	write_status("sent=%llu done=1", (unsigned long long)seq);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int c;

	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: demo_stream server|client -t mrc|tcp [-6] %s\n",
			"[-a ADDR] -p PORT -o STATUS [-s SIZE] [-r RATE] [-d SECONDS]");
		return 2;
	}
	cfg.server = !strcmp(argv[1], "server");
	optind = 2;
	while ((c = getopt(argc, argv, "t:6a:p:o:s:r:d:")) != -1) {
		switch (c) {
		case 't':
			cfg.mrc = !strcmp(optarg, "mrc");
			break;
		case '6':
			cfg.v6 = true;
			break;
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = atoi(optarg);
			break;
		case 'o':
			cfg.status = optarg;
			break;
		case 's':
			cfg.size = atoi(optarg);
			break;
		case 'r':
			cfg.rate = atoi(optarg);
			break;
		case 'd':
			cfg.seconds = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!cfg.status || !cfg.port || cfg.rate <= 0 ||
	    cfg.size < (int)sizeof(struct hdr) || cfg.size > MAX_SIZE ||
	    (!cfg.server && !cfg.addr)) {
		fprintf(stderr, "demo_stream: missing or bad arguments\n");
		return 2;
	}
	return cfg.server ? run_server() : run_client();
}
