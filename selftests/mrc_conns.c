// SPDX-License-Identifier: GPL-2.0
/* mrc_conns: open many mrc connections between two network namespaces,
 * hold them, and print what MRC_INFO says about each, for the tests that
 * compare the tool's dumps with the socket's own view.
 *
 *   mrc_conns [-n N] [-T SECONDS] [-e EV_COUNT] [-P POLICY] [-B] [-q]
 *             CLIENT_NS SERVER_NS SERVER_ADDR PORT
 *
 * Listens on PORT in SERVER_NS (on every address), then opens N
 * connections (default 1) from CLIENT_NS to SERVER_ADDR:PORT and accepts
 * each.  A namespace given as "-" is the current one.  -e and -P set
 * MRC_EV_COUNT and MRC_EV_POLICY (0 spray, 1 single, 2 reps) on each client socket
 * before connect(); the listener keeps the namespace's settings.  -T stops
 * opening connections after SECONDS (the ones opened are kept).  -B keeps
 * the listener busy while the connections are opened: a thread calls
 * getsockopt(MRC_INFO) on it without pause, so that its socket lock is
 * owned when most handshake packets arrive (the busy-listener case of
 * the hardening issue, which deadlocked).  Then it
 * prints "ready N" (N: connections opened) and, unless -q, the "info"
 * output below; then it reads commands from stdin, one per line, and
 * answers each with lines that end with a line "end":
 *
 *   info      one JSON object per line for each end of each connection:
 *             {"side": "client" or "server", "i": index, then MRC_INFO's
 *             fields without their "mrci_" prefix}
 *   xfer K    send K small messages each way on every connection, receive
 *             and compare them; "xfer ok" or "xfer fail: WHY"
 *   big SIZE  send one SIZE-byte message on client 0 (the server reads
 *             it): "big ok" or "big ERRNO-NAME"
 *   mr SIZE   register a memory region of SIZE bytes (remote write)
 *             on client i, i + 1 times: "mr ok" or "mr ERRNO-NAME"
 *   setopt    try MRC_EV_COUNT and MRC_EV_POLICY where they are not
 *             allowed and with values out of range, and read them back on
 *             a fresh socket: "KEY=RESULT" lines (RESULT "ok", an errno
 *             name, or the value read)
 *   quit      close everything and exit (so does the end of stdin)
 *
 * Exits 1 if the listener cannot be set up or not even one connection
 * opens; what failed is on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#define IO_TIMEOUT_S	20
#define XFER_MAX	2000

static int *cli, *srv;		/* connection i: client and server end */
static int nconns, lfd;
static struct sockaddr_storage peer;
static socklen_t peer_len;

static atomic_bool busy_stop;
static unsigned long busy_calls;

/* -B: own the listener's socket lock as often as possible. */
static void *busy_listener(void *arg)
{
	struct mrc_info info;
	socklen_t len;

	(void)arg;
	while (!atomic_load(&busy_stop)) {
		len = sizeof(info);
		if (getsockopt(lfd, SOL_MRC, MRC_INFO, &info, &len) == 0)
			busy_calls++;
	}
	return NULL;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void enter_ns(const char *name)
{
	char path[256];
	int fd;

	if (!strcmp(name, "-"))
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (setns(fd, CLONE_NEWNET))
		die("setns");
	close(fd);
}

static const char *err_name(int err)
{
	static char buf[16];

	switch (err) {
	case 0: return "ok";
	case EINVAL: return "EINVAL";
	case EISCONN: return "EISCONN";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	case EAGAIN: return "EAGAIN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case EMFILE: return "EMFILE";
	}
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int set_int(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_MRC, opt, &val, sizeof(val)) ? errno : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One more member of the JSON object being printed. */
static void jnum(const char *key, uint64_t val)
{
	printf(", \"%s\": %" PRIu64, key, val);
}

static void print_info(const char *side, int i, int fd)
{
	struct mrc_info m;
	socklen_t len = sizeof(m);

	memset(&m, 0, sizeof(m));
	if (getsockopt(fd, SOL_MRC, MRC_INFO, &m, &len)) {
		printf("{\"side\": \"%s\", \"i\": %d, \"error\": \"%s\"}\n",
		       side, i, err_name(errno));
		return;
	}
	printf("{\"side\": \"%s\", \"i\": %d, \"len\": %u", side, i,
	       (unsigned int)len);
	jnum("version", m.mrci_version);
	jnum("state", m.mrci_state);
	jnum("mss", m.mrci_mss);
	jnum("evs", m.mrci_evs);
	jnum("local_cid", m.mrci_local_cid);
	jnum("peer_cid", m.mrci_peer_cid);
	jnum("srtt_us", m.mrci_srtt_us);
	jnum("rttvar_us", m.mrci_rttvar_us);
	jnum("rto_us", m.mrci_rto_us);
	jnum("cwnd", m.mrci_cwnd);
	jnum("in_flight", m.mrci_in_flight);
	jnum("snd_una", m.mrci_snd_una);
	jnum("snd_nxt", m.mrci_snd_nxt);
	jnum("rcv_nxt", m.mrci_rcv_nxt);
	jnum("bytes_sent", m.mrci_bytes_sent);
	jnum("bytes_received", m.mrci_bytes_received);
	jnum("msgs_sent", m.mrci_msgs_sent);
	jnum("msgs_received", m.mrci_msgs_received);
	jnum("pkts_sent", m.mrci_pkts_sent);
	jnum("pkts_received", m.mrci_pkts_received);
	jnum("retrans", m.mrci_retrans);
	jnum("ev_good", m.mrci_ev_good);
	jnum("ev_skip", m.mrci_ev_skip);
	jnum("ev_bad", m.mrci_ev_bad);
	jnum("ev_denied", m.mrci_ev_denied);
	jnum("ev_policy", m.mrci_ev_policy);
	jnum("ev_changes", m.mrci_ev_changes);
	if (m.mrci_version >= 4) {
		jnum("mr_count", m.mrci_mr_count);
		jnum("mr_bytes", m.mrci_mr_bytes);
	}
	printf("}\n");
}

/* Regions of @size bytes on the clients, i + 1 on client i; they stay
 * until the socket is closed.
 */
static void cmd_mr(size_t size)
{
	static char *buf;
	static size_t buf_size;
	struct mrc_mr_reg reg;
	socklen_t len;
	int i, k;

	if (size > buf_size) {
		free(buf);
		buf = calloc(1, size);
		buf_size = buf ? size : 0;
		if (!buf) {
			printf("mr ENOMEM\n");
			return;
		}
	}
	for (i = 0; i < nconns; i++)
		for (k = 0; k <= i; k++) {
			memset(&reg, 0, sizeof(reg));
			reg.addr = (uintptr_t)buf;
			reg.len = size;
			reg.access = MRC_MR_REMOTE_WRITE;
			len = sizeof(reg);
			if (getsockopt(cli[i], SOL_MRC, MRC_MR_REG, &reg,
				       &len)) {
				printf("mr %s\n", err_name(errno));
				return;
			}
		}
	printf("mr ok\n");
}

static void cmd_info(void)
{
	int i;

	for (i = 0; i < nconns; i++) {
		print_info("client", i, cli[i]);
		print_info("server", i, srv[i]);
	}
}

/* One whole message (until MSG_EOR) into @buf; its length or -1. */
static ssize_t recv_msg(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0;

	for (;;) {
		struct iovec iov = { buf + got, cap - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &mh, 0);

		if (n < 0)
			return -1;
		if (n == 0 && !(mh.msg_flags & MSG_EOR)) {
			errno = ENOTCONN;
			return -1;
		}
		got += n;
		if (mh.msg_flags & MSG_EOR)
			return got;
		if (got == cap) {
			errno = EMSGSIZE;
			return -1;
		}
	}
}

static int xfer_one(int from, int to, unsigned int k)
{
	uint8_t sbuf[XFER_MAX], rbuf[XFER_MAX + 1];
	size_t len = 1 + (k * 2654435761u) % XFER_MAX, j;
	ssize_t n;

	for (j = 0; j < len; j++)
		sbuf[j] = (uint8_t)(k * 31 + j * 7);
	if (send(from, sbuf, len, 0) != (ssize_t)len) {
		printf("xfer fail: send message %u: %s\n", k, strerror(errno));
		return -1;
	}
	n = recv_msg(to, rbuf, sizeof(rbuf));
	if (n < 0) {
		printf("xfer fail: receive message %u: %s\n", k,
		       strerror(errno));
		return -1;
	}
	if ((size_t)n != len || memcmp(sbuf, rbuf, len)) {
		printf("xfer fail: message %u differs\n", k);
		return -1;
	}
	return 0;
}

static void cmd_xfer(int count)
{
	static unsigned int k;
	int i, j;

	for (i = 0; i < nconns; i++)
		for (j = 0; j < count; j++, k++)
			if (xfer_one(cli[i], srv[i], k) ||
			    xfer_one(srv[i], cli[i], k))
				return;
	printf("xfer ok\n");
}

struct big_send {
	int fd;
	const void *buf;
	size_t len;
	ssize_t n;
	int err;
	atomic_bool done;
};

static void *big_sender(void *p)
{
	struct big_send *b = p;

	b->n = send(b->fd, b->buf, b->len, 0);
	b->err = errno;
	atomic_store(&b->done, true);
	return NULL;
}

/* A blocking send of a message larger than the send buffer returns once
 * the peer has taken most of it, as a TCP write does: it runs in a thread
 * of its own while this one reads.
 */
static void cmd_big(size_t size)
{
	uint8_t *buf = calloc(1, size ? size : 1), *rbuf = NULL;
	struct big_send b = { .fd = cli[0], .len = size };
	ssize_t n = -1;
	pthread_t th;
	int rerr = 0;

	if (buf)
		rbuf = malloc(size + 1);
	b.buf = buf;
	if (!buf || !rbuf || pthread_create(&th, NULL, big_sender, &b)) {
		printf("big ENOMEM\n");
		free(rbuf);
		free(buf);
		return;
	}
	for (;;) {
		struct pollfd pfd = { .fd = srv[0], .events = POLLIN };

		if (poll(&pfd, 1, 100) > 0) {
			n = recv_msg(srv[0], rbuf, size + 1);
			rerr = errno;
			break;
		}
		/* a send that failed leaves nothing to read */
		if (atomic_load(&b.done) && b.n != (ssize_t)size)
			break;
	}
	pthread_join(th, NULL);
	if (b.n != (ssize_t)size)
		printf("big %s\n", b.n < 0 ? err_name(b.err) : "short");
	else if (n == (ssize_t)size)
		printf("big ok\n");
	else
		printf("big receive %s\n", n < 0 ? err_name(rerr) : "short");
	free(rbuf);
	free(buf);
}

static void cmd_setopt(void)
{
	int fd, val;
	socklen_t len = sizeof(val);

	printf("connected_ev_count=%s\n",
	       err_name(set_int(cli[0], MRC_EV_COUNT, 8)));
	printf("connected_ev_policy=%s\n",
	       err_name(set_int(cli[0], MRC_EV_POLICY, MRC_EV_POLICY_SINGLE)));
	printf("accepted_ev_count=%s\n",
	       err_name(set_int(srv[0], MRC_EV_COUNT, 8)));
	printf("listener_ev_count=%s\n",
	       err_name(set_int(lfd, MRC_EV_COUNT, 8)));
	printf("listener_ev_policy=%s\n",
	       err_name(set_int(lfd, MRC_EV_POLICY, MRC_EV_POLICY_SINGLE)));

	fd = socket(peer.ss_family, SOCK_SEQPACKET, IPPROTO_MRC);
	if (fd < 0) {
		printf("fresh_socket=%s\n", err_name(errno));
		return;
	}
	printf("fresh_ev_count_limit_plus_1=%s\n",
	       err_name(set_int(fd, MRC_EV_COUNT, MRC_EV_COUNT_LIMIT + 1)));
	printf("fresh_ev_count_minus_1=%s\n",
	       err_name(set_int(fd, MRC_EV_COUNT, -1)));
	printf("fresh_ev_policy_3=%s\n",
	       err_name(set_int(fd, MRC_EV_POLICY, 3)));
	printf("fresh_ev_policy_minus_2=%s\n",
	       err_name(set_int(fd, MRC_EV_POLICY, -2)));
	printf("fresh_ev_count_short=%s\n",
	       err_name(setsockopt(fd, SOL_MRC, MRC_EV_COUNT, "", 1) ?
			errno : 0));
	printf("fresh_ev_count_set=%s\n",
	       err_name(set_int(fd, MRC_EV_COUNT, 3)));
	printf("fresh_ev_policy_set=%s\n",
	       err_name(set_int(fd, MRC_EV_POLICY, MRC_EV_POLICY_SINGLE)));
	val = -5;
	if (getsockopt(fd, SOL_MRC, MRC_EV_COUNT, &val, &len))
		printf("fresh_ev_count_get=%s\n", err_name(errno));
	else
		printf("fresh_ev_count_get=%d\n", val);
	len = sizeof(val);
	if (getsockopt(fd, SOL_MRC, MRC_EV_POLICY, &val, &len))
		printf("fresh_ev_policy_get=%s\n", err_name(errno));
	else
		printf("fresh_ev_policy_get=%d\n", val);
	close(fd);
}

static void print_usage(void)
{
	fputs("usage: mrc_conns [-n N] [-T SECONDS] [-e EV_COUNT] [-P POLICY] [-B] [-q]\n",
	      stderr);
	fputs("                 CLIENT_NS SERVER_NS SERVER_ADDR PORT\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, n = 1, ev_count = -1, policy = -2, port, i;
	double limit = 0, start;
	bool quiet = false, busy = false;
	pthread_t busy_thread;
	char line[128];
	struct rlimit rl;

	while ((opt = getopt(argc, argv, "n:T:e:P:Bq")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'T':
			limit = atof(optarg);
			break;
		case 'e':
			ev_count = atoi(optarg);
			break;
		case 'P':
			policy = atoi(optarg);
			break;
		case 'B':
			busy = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			print_usage();
		}
	}
	if (argc - optind != 4 || n < 1)
		print_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	port = atoi(argv[optind + 3]);

	memset(&peer, 0, sizeof(peer));
	if (strchr(argv[optind + 2], ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&peer;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		if (inet_pton(AF_INET6, argv[optind + 2], &a->sin6_addr) != 1)
			print_usage();
		peer_len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&peer;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		if (inet_pton(AF_INET, argv[optind + 2], &a->sin_addr) != 1)
			print_usage();
		peer_len = sizeof(*a);
	}

	/* both ends of every connection, the listener and some slack */
	rl.rlim_cur = 2 * (rlim_t)n + 64;
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl) && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < 2 * (rlim_t)n + 64)
		fprintf(stderr, "mrc_conns: only %llu files allowed\n",
			(unsigned long long)rl.rlim_cur);
	cli = calloc(n, sizeof(*cli));
	srv = calloc(n, sizeof(*srv));
	if (!cli || !srv)
		die("calloc");

	enter_ns(argv[optind + 1]);
	lfd = socket(peer.ss_family, SOCK_SEQPACKET, IPPROTO_MRC);
	if (lfd < 0)
		die("socket (listener)");
	{
		struct sockaddr_storage any = peer;

		if (any.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&any)->sin6_addr = in6addr_any;
		else
			((struct sockaddr_in *)&any)->sin_addr.s_addr =
				htonl(INADDR_ANY);
		if (bind(lfd, (struct sockaddr *)&any, peer_len))
			die("bind");
	}
	if (listen(lfd, 4096))
		die("listen");
	set_timeouts(lfd);
	if (busy && pthread_create(&busy_thread, NULL, busy_listener, NULL))
		die("pthread_create");

	enter_ns(argv[optind]);
	start = now();
	for (i = 0; i < n; i++) {
		int fd;

		if (limit > 0 && now() - start > limit)
			break;
		fd = socket(peer.ss_family, SOCK_SEQPACKET, IPPROTO_MRC);
		if (fd < 0) {
			fprintf(stderr, "mrc_conns: socket %d: %s\n", i,
				strerror(errno));
			break;
		}
		if ((ev_count >= 0 && set_int(fd, MRC_EV_COUNT, ev_count)) ||
		    (policy >= -1 && set_int(fd, MRC_EV_POLICY, policy)))
			die("setsockopt before connect");
		set_timeouts(fd);
		if (connect(fd, (struct sockaddr *)&peer, peer_len)) {
			fprintf(stderr, "mrc_conns: connect %d: %s\n", i,
				strerror(errno));
			close(fd);
			break;
		}
		cli[i] = fd;
		srv[i] = accept(lfd, NULL, NULL);
		if (srv[i] < 0) {
			fprintf(stderr, "mrc_conns: accept %d: %s\n", i,
				strerror(errno));
			close(fd);
			break;
		}
		set_timeouts(srv[i]);
	}
	nconns = i;
	if (busy) {
		atomic_store(&busy_stop, true);
		pthread_join(busy_thread, NULL);
		fprintf(stderr, "mrc_conns: %lu getsockopt calls on the listener\n",
			busy_calls);
	}
	if (!nconns)
		return 1;
	printf("ready %d %.1f\n", nconns, now() - start);
	if (!quiet) {
		cmd_info();
		printf("end\n");
	}

	while (fgets(line, sizeof(line), stdin)) {
		size_t size;
		int count;

		if (!strncmp(line, "quit", 4))
			break;
		if (!strncmp(line, "info", 4))
			cmd_info();
		else if (sscanf(line, "xfer %d", &count) == 1)
			cmd_xfer(count);
		else if (sscanf(line, "big %zu", &size) == 1)
			cmd_big(size);
		else if (sscanf(line, "mr %zu", &size) == 1)
			cmd_mr(size);
		else if (!strncmp(line, "setopt", 6))
			cmd_setopt();
		else
			printf("error unknown command\n");
		printf("end\n");
	}
	for (i = 0; i < nconns; i++) {
		close(cli[i]);
		close(srv[i]);
	}
	close(lfd);
	return 0;
}
