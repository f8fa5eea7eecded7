// SPDX-License-Identifier: GPL-2.0
/* mrc_hold: hold one mrc connection open between two network namespaces
 * and answer commands about it, for tests that poke at a live connection.
 *
 *   mrc_hold NS_A NS_B ADDR_B PORT
 *
 * Listens on PORT in NS_B, connects to ADDR_B:PORT from NS_A, accepts,
 * prints "ready" and then reads commands from stdin, one per line:
 *
 *   info     wait (up to 10 s) until neither side has data in flight, then
 *            print both ends' MRC_INFO as "a.KEY=VALUE" / "b.KEY=VALUE"
 *            lines and a line "end"
 *   xfer N   send N messages a->b and N messages b->a, one at a time, of
 *            sizes from 1 byte to a few packets; each is received and
 *            compared byte for byte with what was sent; prints
 *            "xfer ok N" or "xfer fail: WHY"
 *   idle     print "idle ok" if neither end has anything to read,
 *            "idle fail: WHY" otherwise
 *   quit     close both ends and exit (so does end of input)
 *
 * Message k in each direction carries k, its direction and its length in
 * its first bytes, then a pattern derived from them, so a message that was
 * delivered from somewhere else (an injected packet) never compares equal.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#define MAX_MSG		6000
#define TIMEOUT_S	30

static int fd_a, fd_b;
static uint32_t seq[2];		/* next message per direction: a->b, b->a */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void enter_ns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (setns(fd, CLONE_NEWNET))
		die("setns");
	close(fd);
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = TIMEOUT_S };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt timeout");
}

static size_t msg_len(int dir, uint32_t k)
{
	return 1 + (k * 2654435761u + dir * 977u) % MAX_MSG;
}

static void msg_fill(uint8_t *p, size_t len, int dir, uint32_t k)
{
	uint32_t hdr[3] = { htonl(0x4d524348), htonl(k), htonl(len) };
	uint32_t x = k * 31 + dir * 7 + (uint32_t)len;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = x >> 16;
	}
	p[0] = dir;
	memcpy(p + 1, hdr, len - 1 < sizeof(hdr) ? len - 1 : sizeof(hdr));
}

/* One whole message (pieces until MSG_EOR); its length, or -1. */
static ssize_t recv_msg(int fd, uint8_t *buf, size_t cap, int flags)
{
	size_t got = 0;

	for (;;) {
		struct iovec iov = { buf + got, cap - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, flags);

		if (n < 0)
			return -1;
		if (n == 0 && !(mh.msg_flags & MSG_EOR)) {
			errno = got ? EPROTO : ENOTCONN;
			return -1;
		}
		got += n;
		if (mh.msg_flags & MSG_EOR)
			return got;
		if (got == cap) {
			errno = EMSGSIZE;
			return -1;
		}
		flags &= ~MSG_DONTWAIT;
	}
}

static int xfer_one(int dir)
{
	static uint8_t sbuf[MAX_MSG], rbuf[MAX_MSG + 1];
	int sfd = dir ? fd_b : fd_a, rfd = dir ? fd_a : fd_b;
	uint32_t k = seq[dir]++;
	size_t len = msg_len(dir, k);
	ssize_t n;

	msg_fill(sbuf, len, dir, k);
	n = send(sfd, sbuf, len, 0);
	if (n != (ssize_t)len) {
		printf("xfer fail: send %c->%c message %u: %s\n",
		       dir ? 'b' : 'a', dir ? 'a' : 'b', k,
		       n < 0 ? strerror(errno) : "short");
		return -1;
	}
	n = recv_msg(rfd, rbuf, sizeof(rbuf), 0);
	if (n < 0) {
		printf("xfer fail: recv %c->%c message %u: %s\n",
		       dir ? 'b' : 'a', dir ? 'a' : 'b', k, strerror(errno));
		return -1;
	}
	if ((size_t)n != len || memcmp(sbuf, rbuf, len)) {
		printf("xfer fail: %c->%c message %u: sent %zu, got %zd differing\n",
		       dir ? 'b' : 'a', dir ? 'a' : 'b', k, len, n);
		return -1;
	}
	return 0;
}

static void cmd_xfer(int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (xfer_one(0) || xfer_one(1))
			return;
	printf("xfer ok %d\n", count);
}

static int get_info(int fd, struct mrc_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return getsockopt(fd, SOL_MRC, MRC_INFO, info, &len);
}

static void print_info(char side, const struct mrc_info *i)
{
	printf("%c.state=%u\n", side, i->mrci_state);
	printf("%c.local_cid=%u\n", side, i->mrci_local_cid);
	printf("%c.peer_cid=%u\n", side, i->mrci_peer_cid);
	printf("%c.snd_una=%u\n", side, i->mrci_snd_una);
	printf("%c.snd_nxt=%u\n", side, i->mrci_snd_nxt);
	printf("%c.rcv_nxt=%u\n", side, i->mrci_rcv_nxt);
	printf("%c.in_flight=%u\n", side, i->mrci_in_flight);
	printf("%c.peer_rwnd=%u\n", side, i->mrci_peer_rwnd);
	printf("%c.rcv_window=%u\n", side, i->mrci_rcv_window);
	printf("%c.bytes_sent=%" PRIu64 "\n", side, (uint64_t)i->mrci_bytes_sent);
	printf("%c.bytes_received=%" PRIu64 "\n", side,
	       (uint64_t)i->mrci_bytes_received);
	printf("%c.msgs_sent=%" PRIu64 "\n", side, (uint64_t)i->mrci_msgs_sent);
	printf("%c.msgs_received=%" PRIu64 "\n", side,
	       (uint64_t)i->mrci_msgs_received);
	printf("%c.pkts_sent=%" PRIu64 "\n", side, (uint64_t)i->mrci_pkts_sent);
	printf("%c.pkts_received=%" PRIu64 "\n", side,
	       (uint64_t)i->mrci_pkts_received);
	printf("%c.retrans=%" PRIu64 "\n", side, (uint64_t)i->mrci_retrans);
	printf("%c.ce=%" PRIu64 "\n", side, (uint64_t)i->mrci_ce);
}

static void cmd_info(void)
{
	struct mrc_info a, b;
	int tries;

	/* let the last ACKs land, so that only injected packets could
	 * change what we print
	 */
	for (tries = 0; tries < 1000; tries++) {
		if (get_info(fd_a, &a) || get_info(fd_b, &b)) {
			printf("error=%s\nend\n", strerror(errno));
			return;
		}
		if (a.mrci_snd_una == a.mrci_snd_nxt &&
		    b.mrci_snd_una == b.mrci_snd_nxt)
			break;
		usleep(10000);
	}
	print_info('a', &a);
	print_info('b', &b);
	printf("end\n");
}

static void cmd_idle(void)
{
	uint8_t buf[MAX_MSG + 1];
	int fds[2] = { fd_a, fd_b }, i;

	for (i = 0; i < 2; i++) {
		ssize_t n = recv_msg(fds[i], buf, sizeof(buf), MSG_DONTWAIT);

		if (n >= 0) {
			printf("idle fail: %c had a %zd-byte message to read\n",
			       i ? 'b' : 'a', n);
			return;
		}
		if (errno != EAGAIN) {
			printf("idle fail: %c: %s\n", i ? 'b' : 'a',
			       strerror(errno));
			return;
		}
	}
	printf("idle ok\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	char line[128];
	int lfd;

	if (argc != 5) {
		fprintf(stderr, "usage: mrc_hold NS_A NS_B ADDR_B PORT\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	addr.sin_port = htons(atoi(argv[4]));

	enter_ns(argv[2]);
	lfd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_MRC);
	if (lfd < 0)
		die("socket b");
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lfd, 1))
		die("bind/listen");

	enter_ns(argv[1]);
	fd_a = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_MRC);
	if (fd_a < 0)
		die("socket a");
	set_timeouts(fd_a);
	if (inet_pton(AF_INET, argv[3], &addr.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", argv[3]);
		return 2;
	}
	if (connect(fd_a, (struct sockaddr *)&addr, sizeof(addr)))
		die("connect");
	fd_b = accept(lfd, NULL, NULL);
	if (fd_b < 0)
		die("accept");
	set_timeouts(fd_b);
	printf("ready\n");

	while (fgets(line, sizeof(line), stdin)) {
		int n;

		if (!strncmp(line, "quit", 4))
			break;
		if (!strncmp(line, "info", 4))
			cmd_info();
		else if (sscanf(line, "xfer %d", &n) == 1)
			cmd_xfer(n);
		else if (!strncmp(line, "idle", 4))
			cmd_idle();
		else
			printf("error=unknown command\nend\n");
	}
	close(fd_a);
	close(fd_b);
	close(lfd);
	return 0;
}
