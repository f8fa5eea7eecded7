// SPDX-License-Identifier: GPL-2.0
/* mrc_bench: goodput and round-trip latency of mrc against TCP.
 *
 *   mrc_bench server -t mrc|mrcw|mrcr|tcp [-6] [-a ADDR] [-p PORT] -m stream|rr
 *                    [-s MSGSIZE] [-b BUF]
 *   mrc_bench client -t mrc|mrcw|mrcr|tcp [-6] -a ADDR [-p PORT] -m stream|rr
 *                    [-s MSGSIZE] [-d SECONDS] [-n COUNT] [-b BUF]
 *                    [-W]
 *
 * The server serves one connection and exits.  It prints "listening"
 * once it accepts connections.
 *
 * stream: the client sends messages of MSGSIZE bytes (default 64 KiB; for
 * TCP the same bytes in writes of that size) for SECONDS (default 10), or
 * with -n exactly COUNT bytes (the last message shorter if need be), then
 * shuts down its side.  The server counts the bytes from the first to the
 * last one it reads and sends that count and the time it took back to the
 * client.  Both print a line
 *
 *   result mode=stream transport=T bytes=N seconds=S mbps=R
 *
 * with the figures measured at the server (the client adds its own send
 * rate as send_mbps=, and done_s=: the seconds from its start until the
 * server's report arrived, i.e. until all its data had been read by the
 * server, plus the report's one-way trip).
 *
 * -t mrcw (stream only): mrc WRITEs instead of messages.  The server
 * registers a region of WRITE_REGION bytes (rounded down to a multiple of
 * MSGSIZE) and sends its key; the client WRITEs MSGSIZE bytes at a time
 * into it, round and round, then sends one message with the count of
 * bytes written.  Nothing wakes the server until that message: it counts
 * from sending the key (one trip more than the others) to reading it.
 * The region is MSGSIZE bytes if that is larger.  After its WRITEs the
 * client sends an empty signaled one (MRC_WRITE_SIGNAL), waits for its
 * completion, which comes once every WRITE before it is in place, and
 * adds write_done_s=, the seconds from its start until then (a failed
 * WRITE's completion ends it with an error).
 *
 * -t mrcr (stream only): mrc READs, the other way.  The server registers
 * its region (filled) for remote reads and sends its key as for mrcw;
 * the client READs MSGSIZE bytes at a time of it into a region of its
 * own, round and round, unsignaled, then one empty signaled READ, whose
 * completion comes once every READ before it is in place (read_done_s=),
 * then the message with the count.  The server's application does
 * nothing meanwhile: its kernel serves the READs.
 *
 * -W (stream): the client connects, prints "ready pid=PID" and waits for
 * SIGUSR1 before it starts, so that clients in several processes can be
 * started together; its SECONDS and done_s count from the signal.
 *
 * rr: the client sends a request of 64 bytes (one mrc message; for TCP 64
 * bytes, read back exactly), the server echoes it, COUNT times (default
 * 2000, after 20 unmeasured rounds); each round trip is timed with
 * CLOCK_MONOTONIC.  The client prints
 *
 *   result mode=rr transport=T count=N p50_us=X p99_us=X p100_us=X mean_us=X
 *
 * TCP sockets get TCP_NODELAY.  Both transports get SO_SNDBUF and
 * SO_RCVBUF of BUF bytes (default 4 MiB; the kernel caps them at
 * net.core.wmem_max/rmem_max).  Every call on a socket times out after
 * 180 s (a 64 MiB WRITE through an 8 Mbit/s host link takes 70), so a
 * stalled connection ends the program with an error instead
 * of hanging it.  Exit status 0 unless something failed.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#include "../../../selftests/mrc_ops.h"

#define RR_SIZE		64
#define RR_WARMUP	20
#define IO_TIMEOUT_S	180
#define RECV_BUF	1048576
#define WRITE_REGION	(16 << 20)

static struct {
	bool server;
	bool mrc;
	bool write;	/* -t mrcw */
	bool read;	/* -t mrcr */
	bool v6;
	bool rr;
	const char *addr;
	int port;
	size_t msgsize;
	double seconds;
	long count;
	bool count_set;
	bool wait_go;
	int buf;
} cfg = { .port = 7100, .msgsize = 65536, .seconds = 10, .count = 2000,
	  .buf = 4 << 20 };

static const char *tname(void)
{
	return cfg.write ? "mrcw" : cfg.read ? "mrcr" : cfg.mrc ? "mrc" : "tcp";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fputs("Usage: mrc_bench server -t mrc|mrcw|mrcr|tcp [-6] [-a ADDR] [-p PORT] -m stream|rr\n"
	      "                        [-s MSGSIZE] [-b BUF]\n"
	      "       mrc_bench client -t mrc|mrcw|mrcr|tcp [-6] -a ADDR [-p PORT] -m stream|rr\n"
	      "                        [-s MSGSIZE] [-d SECONDS] [-n COUNT] [-b BUF]\n"
	      "                        [-W]\n",
	      f);
}

static void die(const char *what)
{
	fprintf(stderr, "mrc_bench: %s %s: %s\n", tname(), what,
		strerror(errno));
	exit(1);
}

/* Address ADDR (or the wildcard when NULL) and PORT of the family. */
static socklen_t make_addr(struct sockaddr_storage *ss, const char *addr)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (cfg.v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(cfg.port);
		sin6->sin6_addr = in6addr_any;
		if (addr && inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1) {
			fprintf(stderr, "mrc_bench: bad IPv6 address %s\n", addr);
			exit(2);
		}
		return sizeof(*sin6);
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(cfg.port);
	sin->sin_addr.s_addr = htonl(INADDR_ANY);
	if (addr && inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "mrc_bench: bad IPv4 address %s\n", addr);
		exit(2);
	}
	return sizeof(*sin);
}

static void set_opts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.buf, sizeof(cfg.buf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cfg.buf, sizeof(cfg.buf)))
		die("SO_SNDBUF/SO_RCVBUF");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO/SO_SNDTIMEO");
	if (!cfg.mrc && cfg.rr &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

static int new_socket(void)
{
	int fd;

	if (cfg.mrc)
		fd = socket(cfg.v6 ? AF_INET6 : AF_INET, SOCK_SEQPACKET,
			    IPPROTO_MRC);
	else
		fd = socket(cfg.v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	set_opts(fd);
	return fd;
}

/* Send all of BUF: one message for mrc, a loop of writes for TCP. */
static void send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	do {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("send");
		}
		if (cfg.mrc && (size_t)n != len) {
			fprintf(stderr, "mrc_bench: mrc send returned %zd of %zu\n",
				n, len);
			exit(1);
		}
		p += n;
		len -= n;
	} while (len);
}

/* One read: the bytes, 0 at the end of the peer's data.  *eor is set when
 * the read ends a message (always for TCP).
 */
static ssize_t recv_some(int fd, void *buf, size_t len, bool *eor)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do {
		n = recvmsg(fd, &mh, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		die("recv");
	*eor = !cfg.mrc || (mh.msg_flags & MSG_EOR);
	/* mrc: 0 bytes with MSG_EOR is an empty message, not the end */
	if (n == 0 && cfg.mrc && *eor)
		return -1;
	return n;
}

/* Read exactly LEN bytes (one whole message for mrc); false at the end. */
static bool recv_exact(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;
	bool eor;
	ssize_t n;

	while (got < len) {
		n = recv_some(fd, p + got, len - got, &eor);
		if (n == 0)
			return false;
		if (n > 0)
			got += n;
		if (cfg.mrc && eor)
			break;
	}
	if (got != len || (cfg.mrc && !eor)) {
		fprintf(stderr, "mrc_bench: %s: expected a message of %zu bytes\n",
			tname(), len);
		exit(1);
	}
	return true;
}

/* -t mrcw, mrcr: the server's region; its key goes to the client. */
static void *server_region(int fd, size_t *len)
{
	struct mrc_mr_reg reg = {
		.access = cfg.read ? MRC_MR_REMOTE_READ : MRC_MR_REMOTE_WRITE,
	};
	socklen_t optlen = sizeof(reg);
	uint64_t msg[2];
	char *region;
	size_t i;

	*len = cfg.msgsize > WRITE_REGION ? cfg.msgsize :
	       WRITE_REGION / cfg.msgsize * cfg.msgsize;
	region = calloc(1, *len);
	if (!region)
		die("calloc");
	/* what READs take: every page touched, none the zero page */
	for (i = 0; cfg.read && i < *len; i++)
		region[i] = (char)(i * 7);
	reg.addr = (uintptr_t)region;
	reg.len = *len;
	if (getsockopt(fd, SOL_MRC, MRC_MR_REG, &reg, &optlen))
		die("MRC_MR_REG");
	msg[0] = reg.key;
	msg[1] = *len;
	send_all(fd, msg, sizeof(msg));
	return region;
}

/* -t mrcw, mrcr: the server's side of a stream; returns the bytes
 * written or read.
 */
static uint64_t server_writes(int fd, uint64_t *first, uint64_t *last)
{
	uint64_t count;
	size_t len;
	void *region = server_region(fd, &len);
	char c;

	*first = now_ns();
	if (!recv_exact(fd, &count, sizeof(count))) {
		fprintf(stderr, "mrc_bench: %s: no count from the client\n",
			tname());
		exit(1);
	}
	*last = now_ns();
	/* the client's end */
	while (recv(fd, &c, 1, 0) > 0)
		;
	free(region);
	return count;
}

static int do_server(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = make_addr(&ss, cfg.addr);
	int one = 1, lfd, fd;
	char *buf;

	lfd = new_socket();
	if (!cfg.mrc)
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, sl))
		die("bind");
	if (listen(lfd, 4))
		die("listen");
	printf("listening transport=%s port=%d\n", tname(), cfg.port);
	fflush(stdout);
	/* accept() times out like the other calls: wait longer for it */
	do {
		fd = accept(lfd, NULL, NULL);
	} while (fd < 0 && (errno == EAGAIN || errno == EINTR));
	if (fd < 0)
		die("accept");
	set_opts(fd);
	close(lfd);

	buf = malloc(RECV_BUF);
	if (!buf)
		die("malloc");

	if (cfg.rr) {
		long rounds = 0;

		while (recv_exact(fd, buf, RR_SIZE)) {
			send_all(fd, buf, RR_SIZE);
			rounds++;
		}
		printf("result mode=rr transport=%s side=server rounds=%ld\n",
		       tname(), rounds);
	} else {
		uint64_t bytes = 0, first = 0, last = 0, report[2];
		ssize_t n;
		double s;
		bool eor;

		if (cfg.write || cfg.read)
			bytes = server_writes(fd, &first, &last);
		while (!cfg.write && !cfg.read) {
			n = recv_some(fd, buf, RECV_BUF, &eor);
			if (n == 0)
				break;
			if (n < 0)
				continue;
			last = now_ns();
			if (!bytes)
				first = last;
			bytes += n;
		}
		s = (last - first) / 1e9;

		printf("result mode=stream transport=%s side=server bytes=%" PRIu64
		       " seconds=%.3f mbps=%.1f\n", tname(), bytes, s,
		       s > 0 ? bytes * 8 / s / 1e6 : 0.0);
		report[0] = htobe64(bytes);
		report[1] = htobe64(last - first);
		send_all(fd, report, sizeof(report));
	}
	fflush(stdout);
	free(buf);
	close(fd);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the sorted V[N], in microseconds. */
static double pct_us(const uint64_t *v, long n, int p)
{
	long i = (n * p + 99) / 100 - 1;

	if (i < 0)
		i = 0;
	return v[i] / 1e3;
}

static void client_rr(int fd)
{
	uint64_t *rtt, sum = 0, t0;
	char req[RR_SIZE], rsp[RR_SIZE];
	long i;

	rtt = calloc(cfg.count, sizeof(*rtt));
	if (!rtt)
		die("calloc");
	for (i = -RR_WARMUP; i < cfg.count; i++) {
		memset(req, (int)(i & 0xff), sizeof(req));
		t0 = now_ns();
		send_all(fd, req, sizeof(req));
		if (!recv_exact(fd, rsp, sizeof(rsp))) {
			fprintf(stderr, "mrc_bench: %s: server closed early\n",
				tname());
			exit(1);
		}
		if (i >= 0)
			rtt[i] = now_ns() - t0;
		if (memcmp(req, rsp, sizeof(req))) {
			fprintf(stderr, "mrc_bench: %s: echo differs\n", tname());
			exit(1);
		}
	}
	for (i = 0; i < cfg.count; i++)
		sum += rtt[i];
	qsort(rtt, cfg.count, sizeof(*rtt), cmp_u64);
	printf("result mode=rr transport=%s count=%ld p50_us=%.1f",
	       tname(), cfg.count, pct_us(rtt, cfg.count, 50));
	printf(" p99_us=%.1f p100_us=%.1f mean_us=%.1f\n",
	       pct_us(rtt, cfg.count, 99), pct_us(rtt, cfg.count, 100),
	       sum / 1e3 / cfg.count);
	free(rtt);
	shutdown(fd, SHUT_WR);
	/* wait for the server to finish */
	while (recv_exact(fd, rsp, sizeof(rsp)))
		;
}

/* With -W: say we are ready, wait for SIGUSR1 (blocked since main()). */
static void wait_go(void)
{
	sigset_t set;
	int sig;

	if (!cfg.wait_go)
		return;
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigwait(&set, &sig))
		die("sigwait");
}

/* -t mrcw: a WRITE of @len bytes from @buf into the server's region. */
static void send_write(int fd, uint64_t key, uint64_t off, const void *buf,
		       size_t len, bool signal)
{
	struct mrc_write wr = {
		.key = key, .offset = off, .cookie = off,
		.flags = signal ? MRC_WRITE_SIGNAL : 0,
	};
	ssize_t n;

	do {
		n = mrc_send_write(fd, &wr, buf, len, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		die("WRITE");
}

/* -t mrcr: a READ of @len bytes at @off of the server's region into
 * ours (@lkey) at the same offset.
 */
static void send_read(int fd, uint64_t key, uint64_t lkey, uint64_t off,
		      size_t len, bool signal)
{
	struct mrc_read rd = {
		.key = key, .offset = off, .local_key = lkey,
		.local_offset = off, .cookie = off, .len = len,
		.flags = signal ? MRC_READ_SIGNAL : 0,
	};
	int n;

	do {
		n = mrc_send_read(fd, &rd, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n)
		die("READ");
}

/* -t mrcr: our region for the READs, as large as the server's. */
static uint64_t client_region(int fd, size_t len, char **buf)
{
	struct mrc_mr_reg reg = { .len = len, .access = MRC_MR_LOCAL_WRITE };
	socklen_t optlen = sizeof(reg);

	*buf = calloc(1, len);
	if (!*buf)
		die("calloc");
	reg.addr = (uintptr_t)*buf;
	if (getsockopt(fd, SOL_MRC, MRC_MR_REG, &reg, &optlen))
		die("MRC_MR_REG");
	return reg.key;
}

/* -t mrcw, mrcr: wait for the completion of the signaled operation; any
 * other is a failed one.
 */
static void wait_signaled(int fd)
{
	union {
		char b[CMSG_SPACE(sizeof(struct mrc_completion))];
		struct cmsghdr align;
	} u;
	struct pollfd p = { .fd = fd };
	struct mrc_completion c;
	struct msghdr mh;

	for (;;) {
		if (poll(&p, 1, IO_TIMEOUT_S * 1000) != 1)
			die("poll for the WRITE's completion");
		memset(&mh, 0, sizeof(mh));
		mh.msg_control = u.b;
		mh.msg_controllen = sizeof(u.b);
		if (recvmsg(fd, &mh, MSG_ERRQUEUE) < 0) {
			if (errno == EAGAIN)
				continue;
			die("recvmsg(MSG_ERRQUEUE)");
		}
		if (!CMSG_FIRSTHDR(&mh))
			continue;
		memcpy(&c, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(c));
		if (c.error) {
			fprintf(stderr, "mrc_bench: %s at %" PRIu64
				" failed: %s\n", cfg.read ? "READ" : "WRITE",
				(uint64_t)c.cookie,
				strerror(c.error));
			exit(1);
		}
		return;
	}
}

static void client_stream(int fd)
{
	uint64_t start, end, sent = 0, report[2], bytes, ns, region[2] = {};
	double send_s, done_s, write_s = 0;
	char *buf, *local = NULL;
	uint64_t lkey = 0;
	size_t i, len;

	buf = malloc(cfg.msgsize);
	if (!buf)
		die("malloc");
	for (i = 0; i < cfg.msgsize; i++)
		buf[i] = (char)(i * 7);
	/* mrcw, mrcr: the server's key and region length */
	if ((cfg.write || cfg.read) &&
	    (!recv_exact(fd, region, sizeof(region)) ||
	     region[1] < cfg.msgsize)) {
		fprintf(stderr, "mrc_bench: %s: no region from the server\n",
			tname());
		exit(1);
	}
	if (cfg.read)
		lkey = client_region(fd, region[1], &local);
	wait_go();
	start = now_ns();
	end = start + (uint64_t)(cfg.seconds * 1e9);
	do {
		len = cfg.msgsize;
		if (cfg.count_set && (uint64_t)cfg.count - sent < len)
			len = cfg.count - sent;
		if (cfg.write)
			send_write(fd, region[0], sent % region[1], buf, len,
				   false);
		else if (cfg.read)
			send_read(fd, region[0], lkey, sent % region[1], len,
				  false);
		else
			send_all(fd, buf, len);
		sent += len;
	} while (cfg.count_set ? sent < (uint64_t)cfg.count : now_ns() < end);
	send_s = (now_ns() - start) / 1e9;
	/* mrcw: an empty signaled WRITE last: its completion comes after
	 * the outcome of every WRITE before it is known
	 */
	if (cfg.write || cfg.read) {
		if (cfg.write)
			send_write(fd, region[0], 0, buf, 0, true);
		else
			send_read(fd, region[0], lkey, 0, 0, true);
		wait_signaled(fd);
		write_s = (now_ns() - start) / 1e9;
		/* mrcr: what came is what the server holds */
		for (i = 0; cfg.read && i < region[1] && i < sent; i++)
			if (local[i] != (char)(i * 7)) {
				fprintf(stderr, "mrc_bench: mrcr: byte %zu differs\n",
					i);
				exit(1);
			}
		/* a message after them, read once they are in place */
		send_all(fd, &sent, sizeof(sent));
	}

	if (shutdown(fd, SHUT_WR))
		die("shutdown");
	if (!recv_exact(fd, report, sizeof(report))) {
		fprintf(stderr, "mrc_bench: %s: no report from the server\n",
			tname());
		exit(1);
	}
	done_s = (now_ns() - start) / 1e9;
	bytes = be64toh(report[0]);
	ns = be64toh(report[1]);
	if (bytes != sent) {
		fprintf(stderr, "mrc_bench: %s: sent %" PRIu64
			" bytes, server received %" PRIu64 "\n",
			tname(), sent, bytes);
		exit(1);
	}
	printf("result mode=stream transport=%s msgsize=%zu bytes=%" PRIu64
	       " seconds=%.3f mbps=%.1f send_mbps=%.1f", tname(),
	       cfg.msgsize, bytes, ns / 1e9,
	       ns ? bytes * 8e3 / ns : 0.0, sent * 8 / send_s / 1e6);
	if (cfg.write)
		printf(" write_done_s=%.3f", write_s);
	if (cfg.read)
		printf(" read_done_s=%.3f", write_s);
	printf(" done_s=%.3f\n", done_s);
	free(buf);
	free(local);
}

static int do_client(void)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	if (!cfg.addr) {
		usage(stderr);
		return 2;
	}
	sl = make_addr(&ss, cfg.addr);
	fd = new_socket();
	if (connect(fd, (struct sockaddr *)&ss, sl))
		die("connect");
	if (cfg.rr)
		client_rr(fd);
	else
		client_stream(fd);
	fflush(stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "server")) {
		cfg.server = true;
	} else if (strcmp(argv[1], "client")) {
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "t:6a:p:m:s:d:n:b:Wh")) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "mrc"))
				cfg.mrc = true;
			else if (!strcmp(optarg, "mrcw"))
				cfg.write = true;
			else if (!strcmp(optarg, "mrcr"))
				cfg.read = true;
			else if (strcmp(optarg, "tcp"))
				goto bad;
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
		case 'm':
			if (!strcmp(optarg, "rr"))
				cfg.rr = true;
			else if (strcmp(optarg, "stream"))
				goto bad;
			break;
		case 's':
			cfg.msgsize = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			cfg.seconds = atof(optarg);
			break;
		case 'n':
			cfg.count = atol(optarg);
			cfg.count_set = true;
			break;
		case 'b':
			cfg.buf = atoi(optarg);
			break;
		case 'W':
			cfg.wait_go = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	cfg.mrc |= cfg.write || cfg.read;
	if (optind != argc || cfg.count < 1 || cfg.msgsize < 1 ||
	    (cfg.write && (cfg.rr || cfg.msgsize > MRC_WRITE_LEN_MAX)) ||
	    (cfg.read && (cfg.rr || cfg.msgsize > MRC_READ_LEN_MAX)))
		goto bad;
	if (cfg.wait_go) {
		sigset_t set;

		/* blocked before "ready": an early signal stays pending */
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
	}
	return cfg.server ? do_server() : do_client();
bad:
	usage(stderr);
	return 2;
}
