// SPDX-License-Identifier: GPL-2.0
/* mrc_msg: end-to-end message integrity over mrc sockets.
 *
 *   mrc_msg server [-6] [-N NETNS] [-p PORT] [-c CONNS] [-P PAUSE_MS]
 *                  [-b RCVBUF] [-W REGION]
 *   mrc_msg client [-6] [-N NETNS] -a ADDR [-p PORT] [-c CONNS] [-n MSGS]
 *                  [-m MIN] [-M MAX] [-s SEED] [-b SNDBUF]
 *                  [-i INTERVAL_US] [-T SECONDS] [-H HOLD_MS] [-R]
 *                  [-W REGION]
 *
 * The client opens CONNS connections and sends MSGS messages on each, of
 * random sizes in [MIN, MAX], then shuts down its side and waits for the
 * server to close.  Every message carries its sequence number, length and
 * a checksum of its content, which is generated from (seed, connection,
 * sequence); messages shorter than the header carry a prefix of it.  The
 * server checks every message and prints, per run:
 *
 *   delivered=N missing=N duplicate=N corrupt=N bytes=N
 *
 * Both exit 0 only if every message arrived once, whole and intact.
 * -P makes the server wait before reading (a receiver that stops reading).
 *
 * -i paces the client: it waits INTERVAL_US between two messages of a
 * connection.  -T stops it sending after SECONDS (MSGS is then a maximum,
 * 0 for none); the server must then be given -n 0, which accepts any
 * number of messages (compare its delivered= with the client's sent=).
 * -H keeps each connection open HOLD_MS after its last message before the
 * client shuts it down, for tools that inspect live connections.
 * SIGUSR1 makes the client stop sending (or holding) and finish as if its
 * last message had been sent (use it with -n 0 on the server).
 *
 * -N NETNS (both sides) runs in the network namespace NETNS of "ip netns"
 * (a name with a slash: that namespace file): what "ip netns exec" does
 * for a program that needs no sysfs, without starting ip.
 *
 * -R (both sides) is request/response: the server sends every message it
 * receives back, and the client waits for each echo before its next
 * message and checks that it is the message it sent, byte for byte.  The
 * client then prints echoed=N too, and exits 1 if an echo is missing or
 * differs.
 *
 * -W REGION (both sides) sends WRITEs instead of messages: the server
 * registers a region of REGION bytes on each connection and sends its
 * key; the client sends MSGS WRITEs of random sizes in [MIN, MAX] (MAX at
 * most REGION) at random offsets, keeping a copy of what the region
 * must hold, and after every WRITE_BATCH of them (and the last) a check
 * message with a hash of that copy.  The server, reading it after the
 * WRITEs before it are in place (mrc.rst, the fence), hashes its region,
 * counts the check delivered when the hashes match and corrupt when they
 * do not, and answers; the client waits for the answer before it writes
 * again.  sent= and delivered= count checks, bytes= the bytes written.
 * -T, -i and SIGUSR1 work as for messages (a last check follows).  Every
 * other WRITE (odd numbers) is signaled (MRC_WRITE_SIGNAL, its number the
 * cookie): after each check the client reads their completions, which
 * must be exactly those, in order, each once and successful; anything
 * else fails the connection (EPROTO, said on stderr).  The last WRITE of
 * each batch has an immediate (MRC_WRITE_IMM, its number): the server
 * must read its notification, once, before the check, naming the key
 * and bytes inside the region; otherwise the check counts corrupt.
 * After each check the client READs two ranges of random sizes in [MIN,
 * MAX] of the server's region back into a region of its own (the first
 * unsignaled, the second signaled), waits for the second's completion and
 * requires both ranges to hold what it wrote; it prints reads=N, the
 * READs checked.
 */
#define _GNU_SOURCE		/* setns() */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#include "mrc_ops.h"

#define MAGIC	0x4d524331u	/* "MRC1" */

struct msg_hdr {
	uint32_t magic;
	uint32_t conn;
	uint32_t seq;
	uint32_t len;
	uint32_t sum;	/* checksum of the bytes after the header */
};

static struct {
	bool v6;
	const char *addr;
	int port;
	int conns;
	long msgs;
	size_t min, max;
	unsigned int seed;
	int pause_ms;
	int buf;
	long interval_us;
	double seconds;
	int hold_ms;
	bool rr;
	size_t region;		/* -W */
} cfg = { .port = 7000, .conns = 1, .msgs = 100, .min = 1,
	  .max = 65536, .seed = 1 };

struct result {
	long delivered, missing, duplicate, corrupt, echoed;
	uint64_t bytes;
	int err;
};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* set by SIGUSR1: the client stops sending */
static int stop_sending;

/* xorshift, seeded per (seed, conn, seq): both sides derive the same */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint64_t rng_seed(uint32_t conn, uint32_t seq)
{
	uint64_t s = ((uint64_t)cfg.seed << 32) ^ ((uint64_t)conn << 20) ^
		     seq ^ 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 4; i++)
		rng_next(&s);
	return s ? s : 1;
}

static void fill(uint8_t *p, size_t n, uint32_t conn, uint32_t seq)
{
	uint64_t s = rng_seed(conn, seq), v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			v = rng_next(&s);
		p[i] = v >> ((i & 7) * 8);
	}
}

static uint32_t checksum(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;	/* Adler-32 */
	size_t i;

	for (i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

/* The whole message @seq of @conn, @len bytes, into @buf. */
static void build(uint8_t *buf, size_t len, uint32_t conn, uint32_t seq)
{
	struct msg_hdr h;
	size_t body = len > sizeof(h) ? len - sizeof(h) : 0;

	fill(buf + (len > sizeof(h) ? sizeof(h) : len), body, conn, seq);
	h.magic = htonl(MAGIC);
	h.conn = htonl(conn);
	h.seq = htonl(seq);
	h.len = htonl(len);
	h.sum = htonl(checksum(buf + sizeof(h), body));
	memcpy(buf, &h, len < sizeof(h) ? len : sizeof(h));
}

static size_t pick_len(uint64_t *s)
{
	size_t span = cfg.max - cfg.min + 1;

	/* log-uniform: many small messages, some very large */
	if (span > 1 && (rng_next(s) & 1)) {
		unsigned int bits = 64 - __builtin_clzll(span);
		size_t lim = 1ull << (rng_next(s) % bits);

		return cfg.min + rng_next(s) % (lim < span ? lim : span);
	}
	return cfg.min + rng_next(s) % span;
}

#define WRITE_MAGIC	0x4d524357u	/* "MRCW" */
#define WRITE_BATCH	8

/* -W: the server's first message, then the client's after WRITEs */
struct write_key {
	uint64_t key;
	uint64_t len;
};

struct write_check {
	uint32_t magic;
	uint32_t conn;
	uint32_t seq;		/* WRITEs so far */
	uint32_t pad;
	uint64_t bytes;		/* bytes written so far */
	uint64_t hash;		/* region_hash() of what the region holds */
};

/* FNV-1a over 64-bit words, then the bytes left: order-sensitive */
static uint64_t region_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int sock_addr(struct sockaddr_storage *ss, const char *addr)
{
	memset(ss, 0, sizeof(*ss));
	if (cfg.v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(cfg.port);
		if (addr && inet_pton(AF_INET6, addr, &a->sin6_addr) != 1)
			return -1;
		if (!addr)
			a->sin6_addr = in6addr_any;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(cfg.port);
	if (addr && inet_pton(AF_INET, addr, &a->sin_addr) != 1)
		return -1;
	return sizeof(*a);
}

static int mrc_socket(void)
{
	int fd = socket(cfg.v6 ? AF_INET6 : AF_INET, SOCK_SEQPACKET,
			IPPROTO_MRC);

	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	if (cfg.buf) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.buf, sizeof(cfg.buf));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cfg.buf, sizeof(cfg.buf));
	}
	return fd;
}

/* Receive one whole message (pieces until MSG_EOR); 0 at end. */
static ssize_t recv_message(int fd, uint8_t *buf, size_t cap, int *err)
{
	size_t got = 0;
	ssize_t n;
	struct iovec iov;
	struct msghdr mh;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = buf + got;
		iov.iov_len = cap - got;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			return -1;
		}
		if (n == 0 && !(mh.msg_flags & MSG_EOR))
			return got ? -1 : 0;
		got += n;
		if (mh.msg_flags & MSG_EOR)
			return got;
		if (got == cap) {
			*err = EMSGSIZE;
			return -1;
		}
	}
}

struct conn_arg {
	int fd;
	uint32_t conn;
	struct result r;
	pthread_t th;
};

/* -W: the next check message, after the notifications of WRITEs with
 * immediate before it: *@nimm counts them, *@imm is the last one's.
 * Returns as recv_message().
 */
static ssize_t recv_check(int fd, struct write_check *chk, uint64_t key,
			  uint32_t *imm, unsigned int *nimm, int *err)
{
	union {
		char b[CMSG_SPACE(sizeof(struct mrc_imm))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr mh;
	struct mrc_imm n;
	struct cmsghdr *cm;
	size_t got = 0;
	ssize_t r;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = (uint8_t *)chk + got;
		iov.iov_len = sizeof(*chk) - got;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = u.b;
		mh.msg_controllen = sizeof(u.b);
		r = recvmsg(fd, &mh, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			return -1;
		}
		cm = CMSG_FIRSTHDR(&mh);
		if (cm && cm->cmsg_level == SOL_MRC &&
		    cm->cmsg_type == MRC_CMSG_IMM) {
			memcpy(&n, CMSG_DATA(cm), sizeof(n));
			/* an impossible one: counted twice, so it fails */
			if (n.key != key || n.offset > cfg.region ||
			    n.len > cfg.region - n.offset)
				++*nimm;
			++*nimm;
			*imm = n.imm;
			continue;
		}
		if (r == 0 && !(mh.msg_flags & MSG_EOR))
			return got ? -1 : 0;
		got += r;
		if (mh.msg_flags & MSG_EOR)
			return got;
		if (got == sizeof(*chk)) {
			*err = EMSGSIZE;
			return -1;
		}
	}
}

/* -W: one connection of the server; see the top of the file. */
static void *server_write_conn(struct conn_arg *a)
{
	struct mrc_mr_reg reg = { .len = cfg.region,
				  .access = MRC_MR_REMOTE_WRITE |
					    MRC_MR_REMOTE_READ };
	socklen_t optlen = sizeof(reg);
	struct write_check chk;
	uint32_t last_seq = 0, imm = 0;
	unsigned int nimm = 0;
	struct write_key k;
	uint8_t *region;
	int err = 0;
	ssize_t n;

	region = calloc(1, cfg.region);
	if (!region) {
		a->r.err = ENOMEM;
		goto out;
	}
	reg.addr = (uintptr_t)region;
	if (getsockopt(a->fd, SOL_MRC, MRC_MR_REG, &reg, &optlen)) {
		a->r.err = errno;
		goto out;
	}
	k.key = reg.key;
	k.len = cfg.region;
	if (send(a->fd, &k, sizeof(k), 0) != sizeof(k)) {
		a->r.err = errno;
		goto out;
	}
	for (;;) {
		nimm = 0;
		n = recv_check(a->fd, &chk, k.key, &imm, &nimm, &err);
		if (n == 0)
			break;
		if (n < 0) {
			a->r.err = err ? err : EPROTO;
			break;
		}
		if (n != sizeof(chk) || chk.magic != WRITE_MAGIC ||
		    chk.conn != a->conn || chk.seq < last_seq) {
			a->r.corrupt++;
		} else if (nimm > 1 || (nimm && imm != chk.seq - 1) ||
			   (!nimm && chk.seq % WRITE_BATCH == 0)) {
			a->r.corrupt++;
			pthread_mutex_lock(&out_lock);
			fprintf(stderr, "conn %u: %u notifications (last %u) before check %u\n",
				a->conn, nimm, imm, chk.seq);
			pthread_mutex_unlock(&out_lock);
		} else if (region_hash(region, cfg.region) != chk.hash) {
			a->r.corrupt++;
			pthread_mutex_lock(&out_lock);
			fprintf(stderr, "conn %u: region differs after %u WRITEs\n",
				a->conn, chk.seq);
			pthread_mutex_unlock(&out_lock);
		} else {
			a->r.delivered++;
			a->r.bytes = chk.bytes;
			last_seq = chk.seq;
		}
		if (send(a->fd, "y", 1, 0) != 1) {
			a->r.err = errno;
			break;
		}
	}
out:
	close(a->fd);	/* releases the region */
	free(region);
	return NULL;
}

static void *server_conn(void *p)
{
	struct conn_arg *a = p;
	size_t cap = cfg.max + 1;
	uint8_t *buf = malloc(cap), *ref = malloc(cap);
	uint32_t next = 0;
	int err = 0;

	if (cfg.region) {
		free(buf);
		free(ref);
		return server_write_conn(a);
	}
	if (!buf || !ref) {
		a->r.err = ENOMEM;
		return NULL;
	}
	if (cfg.pause_ms)
		usleep(cfg.pause_ms * 1000);
	for (;;) {
		ssize_t n = recv_message(a->fd, buf, cap, &err);
		struct msg_hdr h;

		if (n == 0)
			break;
		if (n < 0) {
			a->r.err = err ? err : EPROTO;
			break;
		}
		a->r.bytes += n;
		if (cfg.rr && send(a->fd, buf, n, 0) != n) {
			a->r.err = errno ? errno : EPROTO;
			break;
		}
		if ((size_t)n >= sizeof(h)) {
			memcpy(&h, buf, sizeof(h));
			uint32_t seq = ntohl(h.seq);

			if (ntohl(h.magic) != MAGIC || ntohl(h.len) != n ||
			    ntohl(h.conn) != a->conn ||
			    checksum(buf + sizeof(h), n - sizeof(h)) !=
			    ntohl(h.sum)) {
				a->r.corrupt++;
				next++;
				continue;
			}
			build(ref, n, a->conn, seq);
			if (memcmp(ref, buf, n)) {
				a->r.corrupt++;
			} else if (seq < next) {
				a->r.duplicate++;
			} else {
				a->r.missing += seq - next;
				a->r.delivered++;
				next = seq + 1;
			}
			continue;
		}
		/* shorter than a header: must be the expected message */
		build(ref, n, a->conn, next);
		if (memcmp(ref, buf, n))
			a->r.corrupt++;
		else
			a->r.delivered++;
		next++;
	}
	free(buf);
	free(ref);
	close(a->fd);
	return NULL;
}

static int run_server(void)
{
	struct sockaddr_storage ss;
	int len = sock_addr(&ss, NULL), lfd, i, fail = 0;
	struct conn_arg *args = calloc(cfg.conns, sizeof(*args));
	struct result tot = {};

	lfd = mrc_socket();
	if (bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, cfg.conns)) {
		perror("bind/listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (i = 0; i < cfg.conns; i++) {
		args[i].fd = accept(lfd, NULL, NULL);
		if (args[i].fd < 0) {
			perror("accept");
			return 1;
		}
		/* the client says which connection it is in its messages;
		 * it numbers them in connect order, so do we: check below
		 */
		args[i].conn = i;
	}
	for (i = 0; i < cfg.conns; i++)
		pthread_create(&args[i].th, NULL, server_conn, &args[i]);
	for (i = 0; i < cfg.conns; i++) {
		pthread_join(args[i].th, NULL);
		tot.delivered += args[i].r.delivered;
		tot.missing += args[i].r.missing;
		tot.duplicate += args[i].r.duplicate;
		tot.corrupt += args[i].r.corrupt;
		tot.bytes += args[i].r.bytes;
		if (args[i].r.err) {
			fprintf(stderr, "conn %d: %s\n", i,
				strerror(args[i].r.err));
			fail = 1;
		}
	}
	printf("delivered=%ld missing=%ld duplicate=%ld corrupt=%ld bytes=%" PRIu64 "\n",
	       tot.delivered, tot.missing, tot.duplicate, tot.corrupt,
	       tot.bytes);
	close(lfd);
	/* -W: a check after every WRITE_BATCH WRITEs and the last */
	if (cfg.region)
		cfg.msgs = (cfg.msgs + WRITE_BATCH - 1) / WRITE_BATCH;
	if (tot.missing || tot.duplicate || tot.corrupt ||
	    (cfg.msgs && tot.delivered != cfg.msgs * cfg.conns))
		fail = 1;
	return fail;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* -W: a WRITE of @len bytes from @src into the peer's region @key at
 * @off.
 */
static ssize_t send_write(int fd, uint64_t key, uint64_t off,
			  const void *src, size_t len, uint32_t seq, bool imm)
{
	struct mrc_write wr = {
		.key = key, .offset = off, .cookie = seq,
		.flags = (seq % 2 ? MRC_WRITE_SIGNAL : 0) |
			 (imm ? MRC_WRITE_IMM : 0),
		.imm = imm ? seq : 0,
	};

	return mrc_send_write(fd, &wr, src, len, 0);
}

/* -W: the completions of the signaled WRITEs before @seq, *@next the
 * first not read yet; they come once their status records have, after
 * the server's answer to a check at the latest.
 */
static int write_completions(struct conn_arg *a, uint32_t *next, uint32_t seq)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct mrc_completion)) * 8];
		struct cmsghdr align;
	} u;
	double end = now_s() + 30;
	struct mrc_completion c;
	struct cmsghdr *cm;

	*next |= 1;
	while (*next < seq && now_s() < end) {
		struct msghdr mh = {
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
		};
		struct pollfd p = { .fd = a->fd };

		if (poll(&p, 1, 100) != 1 || !(p.revents & POLLERR) ||
		    recvmsg(a->fd, &mh, MSG_ERRQUEUE) < 0)
			continue;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			memcpy(&c, CMSG_DATA(cm), sizeof(c));
			if (cm->cmsg_type != MRC_CMSG_COMPLETION ||
			    c.cookie != *next || c.error) {
				fprintf(stderr, "conn %u: completion %" PRIu64
					" error %d, expected %u\n", a->conn,
					(uint64_t)c.cookie, c.error, *next);
				a->r.err = EPROTO;
				return -1;
			}
			*next += 2;
		}
	}
	if (*next < seq) {
		fprintf(stderr, "conn %u: no completion for WRITE %u\n",
			a->conn, *next);
		a->r.err = ETIMEDOUT;
		return -1;
	}
	return 0;
}

/* -W: a READ of @len bytes at @off of the peer's region @key into ours
 * @lkey at the same offset.
 */
static int send_read(int fd, uint64_t key, uint64_t lkey, uint64_t off,
		     size_t len, uint64_t cookie, uint32_t flags)
{
	struct mrc_read rd = {
		.key = key, .offset = off, .local_key = lkey,
		.local_offset = off, .cookie = cookie, .len = len,
		.flags = flags,
	};

	return mrc_send_read(fd, &rd, 0);
}

/* -W: after the check at @seq, two ranges of the peer's region @key read
 * back into @back (our region @lkey) must hold what @copy says; their
 * bytes in @back are made to differ first.
 */
static int read_back(struct conn_arg *a, uint64_t key, uint64_t lkey,
		     uint8_t *back, const uint8_t *copy, uint64_t *s,
		     uint32_t seq)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct mrc_completion)) * 2];
		struct cmsghdr align;
	} u;
	uint64_t off[2], cookie = (1ULL << 32) | seq;
	double end = now_s() + 120;	/* 2 x 64 MiB on a lossy link */
	struct mrc_completion c = {};
	size_t len[2], j;
	int i, got = 0;

	for (i = 0; i < 2; i++) {
		len[i] = pick_len(s);
		off[i] = rng_next(s) % (cfg.region - len[i] + 1);
		for (j = off[i]; j < off[i] + len[i]; j++)
			back[j] = ~copy[j];
	}
	for (i = 0; i < 2; i++)
		if (send_read(a->fd, key, lkey, off[i], len[i], cookie - 1 + i,
			      i ? MRC_READ_SIGNAL : 0)) {
			a->r.err = errno;
			return -1;
		}
	while (!got && now_s() < end) {
		struct msghdr mh = {
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
		};
		struct pollfd p = { .fd = a->fd };
		struct cmsghdr *cm;

		if (poll(&p, 1, 100) != 1 || !(p.revents & POLLERR) ||
		    recvmsg(a->fd, &mh, MSG_ERRQUEUE) < 0)
			continue;
		cm = CMSG_FIRSTHDR(&mh);
		if (cm)
			memcpy(&c, CMSG_DATA(cm), sizeof(c));
		got = 1;
	}
	if (!got || c.cookie != cookie || c.error) {
		fprintf(stderr, "conn %u: READ completion %" PRIx64
			" error %d, expected %" PRIx64 "\n", a->conn,
			(uint64_t)c.cookie, c.error, cookie);
		a->r.err = got ? EPROTO : ETIMEDOUT;
		return -1;
	}
	for (i = 0; i < 2; i++)
		if (memcmp(back + off[i], copy + off[i], len[i])) {
			fprintf(stderr, "conn %u: READ of %zu bytes at %" PRIu64
				" after check %u differs\n", a->conn, len[i],
				off[i], seq);
			a->r.err = EPROTO;
			return -1;
		}
	a->r.echoed += 2;
	return 0;
}

/* -W: the check after @seq WRITEs; waits for the server's answer. */
static int write_check(struct conn_arg *a, struct write_check *chk,
		       const uint8_t *copy, uint32_t seq)
{
	char c;

	chk->seq = seq;
	chk->bytes = a->r.bytes;
	chk->hash = region_hash(copy, cfg.region);
	if (send(a->fd, chk, sizeof(*chk), 0) != sizeof(*chk) ||
	    recv(a->fd, &c, 1, 0) != 1) {
		a->r.err = errno ? errno : EPROTO;
		return -1;
	}
	a->r.delivered++;
	return 0;
}

/* -W: one connection of the client; see the top of the file. */
static void client_write_conn(struct conn_arg *a)
{
	uint64_t s = rng_seed(a->conn, 0xfffffffe);
	struct write_check chk = { .magic = WRITE_MAGIC, .conn = a->conn };
	double end = cfg.seconds > 0 ? now_s() + cfg.seconds : 0;
	struct mrc_mr_reg reg = { .len = cfg.region,
				  .access = MRC_MR_LOCAL_WRITE };
	uint64_t rs = rng_seed(a->conn, 0xfffffffd);
	socklen_t optlen = sizeof(reg);
	uint8_t *copy = NULL, *back;
	uint32_t seq, checked = 0, next = 0;
	struct write_key k;
	int err = 0;
	char c;

	if (recv_message(a->fd, (uint8_t *)&k, sizeof(k), &err) != sizeof(k) ||
	    k.len != cfg.region) {
		a->r.err = err ? err : EPROTO;
		return;
	}
	copy = calloc(1, cfg.region);
	back = calloc(1, cfg.region);
	if (!copy || !back) {
		a->r.err = ENOMEM;
		goto out;
	}
	/* where READs put the server's bytes back */
	reg.addr = (uintptr_t)back;
	if (getsockopt(a->fd, SOL_MRC, MRC_MR_REG, &reg, &optlen)) {
		a->r.err = errno;
		goto out;
	}
	for (seq = 0; !cfg.msgs || seq < cfg.msgs; seq++) {
		size_t len = pick_len(&s);
		uint64_t off = rng_next(&s) % (cfg.region - len + 1);
		bool last;

		if ((end && now_s() >= end) ||
		    __atomic_load_n(&stop_sending, __ATOMIC_RELAXED))
			break;
		if (seq && cfg.interval_us)
			usleep(cfg.interval_us);
		fill(copy + off, len, a->conn, seq);
		last = cfg.msgs && seq + 1 == cfg.msgs;
		/* the batch's last has an immediate, its number */
		if (send_write(a->fd, k.key, off, copy + off, len, seq,
			       last || (seq + 1) % WRITE_BATCH == 0) !=
		    (ssize_t)len) {
			a->r.err = errno;
			break;
		}
		a->r.bytes += len;
		if (!last && (seq + 1) % WRITE_BATCH)
			continue;
		if (write_check(a, &chk, copy, seq + 1) ||
		    write_completions(a, &next, seq + 1) ||
		    read_back(a, k.key, reg.key, back, copy, &rs, seq + 1))
			break;
		checked = seq + 1;
	}
	/* stopped by time or SIGUSR1: the WRITEs since the last check */
	if (!a->r.err && seq != checked && !write_check(a, &chk, copy, seq) &&
	    !write_completions(a, &next, seq))
		read_back(a, k.key, reg.key, back, copy, &rs, seq);
out:
	/* nothing may come into it once it is freed */
	if (reg.key)
		setsockopt(a->fd, SOL_MRC, MRC_MR_DEREG, &reg.key,
			   sizeof(reg.key));
	free(copy);
	free(back);
	if (!a->r.err && (shutdown(a->fd, SHUT_WR) || recv(a->fd, &c, 1, 0) < 0))
		a->r.err = errno;
}

static void *client_conn(void *p)
{
	struct conn_arg *a = p;
	uint8_t *buf = malloc(cfg.max ? cfg.max : 1);
	uint8_t *echo = cfg.rr ? malloc(cfg.max + 1) : NULL;
	uint64_t s = rng_seed(a->conn, 0xffffffff);
	double end = cfg.seconds > 0 ? now_s() + cfg.seconds : 0;
	uint32_t seq;
	char c;

	if (cfg.region) {
		free(buf);
		free(echo);
		client_write_conn(a);
		return NULL;
	}
	for (seq = 0; !cfg.msgs || seq < cfg.msgs; seq++) {
		size_t len = pick_len(&s);

		if ((end && now_s() >= end) ||
		    __atomic_load_n(&stop_sending, __ATOMIC_RELAXED))
			break;
		if (seq && cfg.interval_us)
			usleep(cfg.interval_us);

		build(buf, len, a->conn, seq);
		if (send(a->fd, buf, len, 0) != (ssize_t)len) {
			a->r.err = errno;
			free(buf);
			return NULL;
		}
		a->r.bytes += len;
		a->r.delivered++;
		if (cfg.rr) {
			int err = 0;
			ssize_t n = recv_message(a->fd, echo, cfg.max + 1,
						 &err);

			if (n != (ssize_t)len || memcmp(echo, buf, len)) {
				a->r.err = n < 0 && err ? err : EPROTO;
				break;
			}
			a->r.echoed++;
		}
	}
	free(buf);
	free(echo);
	if (a->r.err)
		return NULL;
	/* hold the connection open; SIGUSR1 ends the wait early */
	end = now_s() + cfg.hold_ms / 1000.0;
	while (now_s() < end &&
	       !__atomic_load_n(&stop_sending, __ATOMIC_RELAXED))
		usleep(10000);
	/* our side is done; the server closes when it has read everything */
	if (shutdown(a->fd, SHUT_WR) || recv(a->fd, &c, 1, 0) < 0)
		a->r.err = errno;
	return NULL;
}

/* SIGUSR1 is blocked in every thread; this one waits for it. */
static void *stop_waiter(void *p)
{
	sigset_t *set = p;
	int sig;

	if (!sigwait(set, &sig))
		__atomic_store_n(&stop_sending, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int run_client(void)
{
	struct sockaddr_storage ss;
	int len = sock_addr(&ss, cfg.addr), i, fail = 0;
	struct conn_arg *args = calloc(cfg.conns, sizeof(*args));
	struct timespec t0, t1;
	uint64_t bytes = 0;
	long sent = 0, echoed = 0;
	double secs;
	static sigset_t usr1;
	pthread_t waiter;

	if (len < 0) {
		fprintf(stderr, "bad address %s\n", cfg.addr);
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_create(&waiter, NULL, stop_waiter, &usr1);
	pthread_detach(waiter);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* connect in order so the server's accept order numbers them */
	for (i = 0; i < cfg.conns; i++) {
		args[i].fd = mrc_socket();
		args[i].conn = i;
		if (connect(args[i].fd, (struct sockaddr *)&ss, len)) {
			fprintf(stderr, "connect: %s\n", strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < cfg.conns; i++)
		pthread_create(&args[i].th, NULL, client_conn, &args[i]);
	for (i = 0; i < cfg.conns; i++) {
		pthread_join(args[i].th, NULL);
		bytes += args[i].r.bytes;
		sent += args[i].r.delivered;
		echoed += args[i].r.echoed;
		if (args[i].r.err) {
			pthread_mutex_lock(&out_lock);
			fprintf(stderr, "conn %d: %s\n", i,
				strerror(args[i].r.err));
			pthread_mutex_unlock(&out_lock);
			fail = 1;
		}
		close(args[i].fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("sent=%ld bytes=%" PRIu64 " seconds=%.3f", sent, bytes, secs);
	if (cfg.rr) {
		printf(" echoed=%ld", echoed);
		if (echoed != sent)
			fail = 1;
	}
	if (cfg.region)
		printf(" reads=%ld", echoed);
	printf("\n");
	return fail;
}

static size_t parse_size(const char *s)
{
	char *end;
	size_t v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10;
	else if (*end == 'm' || *end == 'M')
		v <<= 20;
	return v;
}

/* -N: enter a network namespace by name or path. */
static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mrc_msg: %s: %s\n", path, strerror(errno));
		return -1;
	}
	err = setns(fd, CLONE_NEWNET);
	if (err)
		fprintf(stderr, "mrc_msg: setns %s: %s\n", path, strerror(errno));
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	bool server;
	int c;

	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: mrc_msg server|client [options]\n");
		return 2;
	}
	server = !strcmp(argv[1], "server");
	while ((c = getopt(argc - 1, argv + 1, "6a:p:c:n:m:M:s:P:b:i:T:H:RN:W:")) != -1) {
		switch (c) {
		case '6':
			cfg.v6 = true;
			break;
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = atoi(optarg);
			break;
		case 'c':
			cfg.conns = atoi(optarg);
			break;
		case 'n':
			cfg.msgs = atol(optarg);
			break;
		case 'm':
			cfg.min = parse_size(optarg);
			break;
		case 'M':
			cfg.max = parse_size(optarg);
			break;
		case 's':
			cfg.seed = atoi(optarg);
			break;
		case 'P':
			cfg.pause_ms = atoi(optarg);
			break;
		case 'b':
			cfg.buf = parse_size(optarg);
			break;
		case 'i':
			cfg.interval_us = atol(optarg);
			break;
		case 'T':
			cfg.seconds = atof(optarg);
			break;
		case 'H':
			cfg.hold_ms = atoi(optarg);
			break;
		case 'R':
			cfg.rr = true;
			break;
		case 'W':
			cfg.region = parse_size(optarg);
			break;
		case 'N':
			if (enter_netns(optarg))
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (cfg.min > cfg.max || cfg.conns < 1 || (!server && !cfg.addr) ||
	    cfg.msgs < 0 || (!server && !cfg.msgs && cfg.seconds <= 0) ||
	    (cfg.region && (cfg.max > cfg.region || cfg.rr))) {
		fprintf(stderr, "mrc_msg: bad options\n");
		return 2;
	}
	return server ? run_server() : run_client();
}
