// SPDX-License-Identifier: GPL-2.0
/* mrc_api: the socket API's behaviour and error codes, over loopback.
 *
 *   mrc_api -m MAX_MSG_SIZE
 *
 * Runs many small checks on mrc sockets (IPv4, IPv6 and v4-mapped
 * addresses on IPv6 sockets, and across families) and prints one TAP line
 * per check, "ok N - api: <check>" or "not ok N - api: <check>" followed
 * by "# expected X, saw Y".  MAX_MSG_SIZE is the namespace's max_msg_size
 * setting.  Exits 1 if any check failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mrc.h>

#include "mrc_ops.h"

#define TIMEOUT_MS	5000	/* for anything that should happen at once */
#define FIXED_PORT	20000	/* below the ephemeral range */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BAD_OPT		99	/* no such SOL_MRC option */

struct fam {
	const char *name;
	int domain;		/* of the sockets */
	const char *addr;	/* loopback */
	const char *remote;	/* not a local address */
};

static const struct fam fams[] = {
	{ "inet", AF_INET, "127.0.0.1", "192.0.2.1" },
	{ "inet6", AF_INET6, "::1", "2001:db8::1" },
	{ "mapped", AF_INET6, "::ffff:127.0.0.1", "::ffff:192.0.2.1" },
};

static const struct fam *cur;
static int ntest, nfail;
static size_t max_msg;

/* One TAP line: the check @name passed or not; on failure the reason. */
static bool report(bool pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	printf("%sok %d - api: %s %s\n", pass ? "" : "not ", ntest, cur->name,
	       name);
	if (!pass) {
		nfail++;
		printf("# ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
	return pass;
}

static const char *err_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "unknown errno";
}

/* What a call returned, for a failure message. */
static const char *result(long ret, int err)
{
	static char buf[64];

	if (ret < 0)
		snprintf(buf, sizeof(buf), "%s", err_name(err));
	else
		snprintf(buf, sizeof(buf), "success (%ld)", ret);
	return buf;
}

static bool expect_eq(const char *name, long long expected, long long seen)
{
	return report(expected == seen, name, "expected %lld, saw %lld",
		      expected, seen);
}

/* The call returned @ret with errno @err: it must have failed with @exp. */
static bool expect_errno(const char *name, long ret, int err, int exp)
{
	return report(ret == -1 && err == exp, name, "expected %s, saw %s",
		      err_name(exp), result(ret, err));
}

#define EXPECT_ERRNO(name, call, exp) do {		\
	long __ret = (call);				\
	int __err = errno;				\
	expect_errno(name, __ret, __err, exp);		\
} while (0)

/* The call must succeed (return @ret >= 0). */
static bool expect_ok(const char *name, long ret, int err)
{
	return report(ret >= 0, name, "expected success, saw %s",
		      result(ret, err));
}

#define EXPECT_OK(name, call) ({			\
	long __ret = (call);				\
	int __err = errno;				\
	expect_ok(name, __ret, __err);			\
})

static bool expect_str(const char *name, const char *expected,
		       const char *seen)
{
	return report(!strcmp(expected, seen), name, "expected %s, saw %s",
		      expected, seen);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* A socket of @domain; blocking calls give up after TIMEOUT_MS. */
static int sock_new(int domain)
{
	int fd = socket(domain, SOCK_SEQPACKET, IPPROTO_MRC);

	if (fd < 0) {
		report(false, "setup: socket()", "socket: %s", err_name(errno));
		return -1;
	}
	set_timeo(fd, SO_RCVTIMEO, TIMEOUT_MS);
	set_timeo(fd, SO_SNDTIMEO, TIMEOUT_MS);
	return fd;
}

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* Address @ip, port @port as a socket of @domain takes it; its length. */
static socklen_t mkaddr(int domain, const char *ip, int port,
			struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (domain == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		inet_pton(AF_INET, ip, &sin->sin_addr);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	inet_pton(AF_INET6, ip, &sin6->sin6_addr);
	return sizeof(*sin6);
}

/* "family [address]:port" of a socket address, for comparisons. */
static const char *addr_str(const struct sockaddr_storage *ss, socklen_t len,
			    char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET && len == sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const void *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "inet %s:%d", ip, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6 &&
		   len == sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "inet6 [%s]:%d", ip,
			 ntohs(sin6->sin6_port));
	} else {
		snprintf(buf, size, "family %d, length %u", ss->ss_family,
			 (unsigned int)len);
	}
	return buf;
}

/* getsockname (@peer false) or getpeername, as a string. */
static const char *name_of(int fd, bool peer, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int ret;

	memset(&ss, 0, sizeof(ss));
	ret = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) :
		     getsockname(fd, (struct sockaddr *)&ss, &len);
	if (ret < 0) {
		snprintf(buf, size, "%s", err_name(errno));
		return buf;
	}
	return addr_str(&ss, len, buf, size);
}

static int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static int so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return -errno;
	return err;
}

/* poll one fd for @events; the revents, 0 on timeout */
static int poll1(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	if (poll(&p, 1, ms) < 0)
		return -1;
	return p.revents;
}

/* A listener of @domain on @ip, ephemeral port; the port into *@port. */
static int listener_on(int domain, const char *ip, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(domain, ip, 0, &ss);
	int fd = sock_new(domain);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		report(false, "setup: listener", "bind/listen on %s: %s", ip,
		       err_name(errno));
		close(fd);
		return -1;
	}
	*port = local_port(fd);
	return fd;
}

static int listener(int *port)
{
	return listener_on(cur->domain, cur->addr, port);
}

/* A connected socket of @domain to [@ip]:@port. */
static int connect_to(int domain, const char *ip, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(domain, ip, port, &ss);
	int fd = sock_new(domain);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		report(false, "setup: connect", "connect to %s port %d: %s",
		       ip, port, err_name(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int accept_one(int lfd)
{
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0) {
		report(false, "setup: accept", "accept: %s", err_name(errno));
		return -1;
	}
	set_timeo(fd, SO_RCVTIMEO, TIMEOUT_MS);
	set_timeo(fd, SO_SNDTIMEO, TIMEOUT_MS);
	return fd;
}

/* A connection of the current family: client *@c, accepted *@a. */
static int conn_pair(int *c, int *a)
{
	int l, port;

	l = listener(&port);
	if (l < 0)
		return -1;
	*c = connect_to(cur->domain, cur->addr, port);
	*a = *c < 0 ? -1 : accept_one(l);
	close(l);
	if (*a < 0) {
		if (*c >= 0)
			close(*c);
		return -1;
	}
	return 0;
}

/* recvmsg into @buf; the flags the kernel set into *@flags. */
static ssize_t recv_flags(int fd, void *buf, size_t len, int in, int *flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &mh, in);

	*flags = mh.msg_flags;
	return n;
}

struct pieces {
	size_t total;		/* bytes */
	int count;		/* recvmsg calls that returned data */
	size_t largest;		/* largest piece */
	size_t eor_at;		/* bytes read when MSG_EOR came, or 0 */
	int err;		/* errno of a failed recvmsg, or 0 */
};

/* Read a message of @len bytes in pieces of at most @chunk bytes into
 * @buf; stop at MSG_EOR, or after @len bytes.
 */
static void read_pieces(int fd, char *buf, size_t len, size_t chunk,
			struct pieces *p)
{
	int flags;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	while (p->total < len) {
		size_t want = len - p->total < chunk ? len - p->total : chunk;

		n = recv_flags(fd, buf + p->total, want, 0, &flags);
		if (n < 0) {
			p->err = errno;
			return;
		}
		if (n == 0 && !(flags & MSG_EOR)) {
			p->err = ENODATA;	/* end of stream */
			return;
		}
		p->count++;
		p->total += n;
		if ((size_t)n > p->largest)
			p->largest = n;
		if (flags & MSG_EOR) {
			p->eor_at = p->total;
			return;
		}
	}
}

static void pattern(char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + seed + (i >> 8));
}

static int get_info(int fd, struct mrc_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return getsockopt(fd, SOL_MRC, MRC_INFO, info, &len);
}

/* Wait until @fd's peer acknowledged @n messages (@sent) or @fd has
 * received @n (!@sent).
 */
static void wait_msgs(int fd, bool sent, unsigned long long n)
{
	long long end = now_ms() + TIMEOUT_MS;
	struct mrc_info info;

	while (now_ms() < end) {
		if (get_info(fd, &info) < 0)
			return;
		if ((sent ? info.mrci_msgs_sent : info.mrci_msgs_received) >= n)
			return;
		usleep(5000);
	}
}

static void test_connect(void)
{
	struct sockaddr_storage ss, peer;
	char s1[96], s2[96];
	int b, c, c2, l, a, port;
	socklen_t len;
	int rev;

	/* a port that is bound, but nobody listens on it */
	b = sock_new(cur->domain);
	if (b < 0)
		return;
	len = mkaddr(cur->domain, cur->addr, 0, &ss);
	if (bind(b, (struct sockaddr *)&ss, len) < 0) {
		report(false, "setup: bind", "bind: %s", err_name(errno));
		close(b);
		return;
	}
	port = local_port(b);
	len = mkaddr(cur->domain, cur->addr, port, &ss);

	c = sock_new(cur->domain);
	EXPECT_ERRNO("connect to a port with no listener fails with ECONNREFUSED",
		     connect(c, (struct sockaddr *)&ss, len), ECONNREFUSED);
	expect_eq("SO_ERROR is 0 once connect() reported the refusal", 0,
		  so_error(c));
	close(c);

	c = sock_new(cur->domain);
	set_nonblock(c, true);
	EXPECT_ERRNO("non-blocking connect to a port with no listener returns EINPROGRESS",
		     connect(c, (struct sockaddr *)&ss, len), EINPROGRESS);
	rev = poll1(c, POLLOUT, TIMEOUT_MS);
	report(rev > 0, "poll wakes when a non-blocking connect is refused",
	       "expected revents, saw %d", rev);
	expect_eq("SO_ERROR after a refused non-blocking connect is ECONNREFUSED",
		  ECONNREFUSED, so_error(c));
	expect_eq("SO_ERROR is cleared by reading it", 0, so_error(c));
	close(c);
	close(b);

	l = listener(&port);
	if (l < 0)
		return;
	len = mkaddr(cur->domain, cur->addr, port, &ss);
	c = sock_new(cur->domain);
	set_nonblock(c, true);
	EXPECT_ERRNO("non-blocking connect to a listener returns EINPROGRESS",
		     connect(c, (struct sockaddr *)&ss, len), EINPROGRESS);
	rev = poll1(c, POLLOUT, TIMEOUT_MS);
	report(rev > 0 && (rev & POLLOUT) && !(rev & (POLLERR | POLLHUP)),
	       "poll reports POLLOUT when a non-blocking connect completes",
	       "expected POLLOUT, saw revents %#x", rev);
	expect_eq("SO_ERROR is 0 after a successful non-blocking connect", 0,
		  so_error(c));
	EXPECT_ERRNO("connect again after a non-blocking connect completed fails with EISCONN",
		     connect(c, (struct sockaddr *)&ss, len), EISCONN);
	a = accept_one(l);
	if (a >= 0)
		close(a);
	close(c);

	c = sock_new(cur->domain);
	EXPECT_OK("blocking connect to a listener succeeds",
		  connect(c, (struct sockaddr *)&ss, len));
	EXPECT_ERRNO("connect twice fails with EISCONN",
		     connect(c, (struct sockaddr *)&ss, len), EISCONN);
	expect_str("getpeername after connect is the listener's address",
		   addr_str(&ss, len, s1, sizeof(s1)),
		   name_of(c, true, s2, sizeof(s2)));
	len = sizeof(peer);
	a = accept(l, (struct sockaddr *)&peer, &len);
	expect_str("accept returns the client's address",
		   name_of(c, false, s1, sizeof(s1)),
		   a < 0 ? err_name(errno) : addr_str(&peer, len, s2, sizeof(s2)));
	if (a >= 0)
		close(a);
	close(c);

	len = mkaddr(cur->domain, cur->addr, port, &ss);
	EXPECT_ERRNO("connect on a listener fails with EINVAL",
		     connect(l, (struct sockaddr *)&ss, len), EINVAL);
	close(l);

	c = sock_new(cur->domain);
	EXPECT_ERRNO("connect with a short sockaddr fails with EINVAL",
		     connect(c, (struct sockaddr *)&ss, 8), EINVAL);
	len = mkaddr(cur->domain == AF_INET ? AF_INET6 : AF_INET,
		     cur->domain == AF_INET ? "::1" : "127.0.0.1", port, &ss);
	EXPECT_ERRNO("connect with the other family's sockaddr fails with EAFNOSUPPORT",
		     connect(c, (struct sockaddr *)&ss, len), EAFNOSUPPORT);
	len = mkaddr(cur->domain, cur->addr, 0, &ss);
	EXPECT_ERRNO("connect to port 0 fails with EINVAL",
		     connect(c, (struct sockaddr *)&ss, len), EINVAL);
	c2 = sock_new(cur->domain);
	EXPECT_ERRNO("getpeername on an unconnected socket fails with ENOTCONN",
		     getpeername(c2, (struct sockaddr *)&ss, &len), ENOTCONN);
	close(c2);
	close(c);
}

static void test_bind(void)
{
	struct sockaddr_storage ss;
	char s1[96], s2[96];
	int a, b, c, d, port;
	socklen_t len;

	a = sock_new(cur->domain);
	b = sock_new(cur->domain);
	c = sock_new(cur->domain);
	d = sock_new(cur->domain);
	if (a < 0 || b < 0 || c < 0 || d < 0)
		goto out;

	len = mkaddr(cur->domain, cur->addr, 0, &ss);
	EXPECT_OK("bind to port 0 succeeds", bind(a, (struct sockaddr *)&ss, len));
	port = local_port(a);
	report(port > 0, "bind to port 0 picks an ephemeral port",
	       "expected a nonzero port, saw %d", port);

	len = mkaddr(cur->domain, cur->addr, port, &ss);
	EXPECT_ERRNO("bind a second socket to a port in use fails with EADDRINUSE",
		     bind(b, (struct sockaddr *)&ss, len), EADDRINUSE);
	len = mkaddr(cur->domain, cur->addr, FIXED_PORT, &ss);
	EXPECT_ERRNO("bind a bound socket again fails with EINVAL",
		     bind(a, (struct sockaddr *)&ss, len), EINVAL);

	len = mkaddr(cur->domain, cur->remote, 0, &ss);
	EXPECT_ERRNO("bind to a non-local address fails with EADDRNOTAVAIL",
		     bind(c, (struct sockaddr *)&ss, len), EADDRNOTAVAIL);

	len = mkaddr(cur->domain, cur->addr, FIXED_PORT, &ss);
	EXPECT_OK("bind to a fixed port succeeds",
		  bind(d, (struct sockaddr *)&ss, len));
	expect_str("getsockname after bind shows the address and port",
		   addr_str(&ss, len, s1, sizeof(s1)),
		   name_of(d, false, s2, sizeof(s2)));
	close(d);
	d = sock_new(cur->domain);
	EXPECT_OK("a port is free again once its socket is closed",
		  bind(d, (struct sockaddr *)&ss, len));
out:
	close(a);
	close(b);
	close(c);
	close(d);
}

static void test_accept(void)
{
	char s1[96], s2[96];
	int l, c, a, port, rev;

	l = listener(&port);
	if (l < 0)
		return;
	set_nonblock(l, true);
	EXPECT_ERRNO("non-blocking accept with nothing pending fails with EAGAIN",
		     accept(l, NULL, NULL), EAGAIN);
	rev = poll1(l, POLLIN, 0);
	expect_eq("poll on a listener with nothing pending reports nothing", 0,
		  rev);

	c = connect_to(cur->domain, cur->addr, port);
	if (c < 0) {
		close(l);
		return;
	}
	rev = poll1(l, POLLIN, TIMEOUT_MS);
	report(rev > 0 && (rev & POLLIN),
	       "poll on a listener reports POLLIN when a connection is pending",
	       "expected POLLIN, saw revents %#x", rev);
	a = accept(l, NULL, NULL);
	if (!EXPECT_OK("non-blocking accept of a pending connection succeeds", a)) {
		close(c);
		close(l);
		return;
	}
	expect_str("accepted socket's getpeername equals the client's getsockname",
		   name_of(c, false, s1, sizeof(s1)),
		   name_of(a, true, s2, sizeof(s2)));
	expect_str("accepted socket's getsockname equals the client's getpeername",
		   name_of(c, true, s1, sizeof(s1)),
		   name_of(a, false, s2, sizeof(s2)));
	close(a);
	close(c);
	close(l);
}

static void test_send(void)
{
	struct sockaddr_storage ss;
	char *big, *rbuf, small[64];
	struct pieces p;
	sigset_t pipe_set;
	struct timespec zero = { 0, 0 };
	int c, a, u, flags;
	socklen_t len;
	ssize_t n;

	big = malloc(max_msg + 1);
	rbuf = malloc(max_msg + 1);
	if (!big || !rbuf || conn_pair(&c, &a) < 0) {
		free(big);
		free(rbuf);
		return;
	}
	pattern(big, max_msg + 1, 1);
	EXPECT_ERRNO("send of a message larger than max_msg_size fails with EMSGSIZE",
		     send(c, big, max_msg + 1, 0), EMSGSIZE);
	/* non-blocking: queued whole at once (a blocking send would wait for
	 * this thread to read)
	 */
	n = send(c, big, max_msg, MSG_DONTWAIT);
	expect_eq("send of a message of exactly max_msg_size sends it whole",
		  (long long)max_msg, n < 0 ? -errno : n);
	read_pieces(a, rbuf, max_msg, max_msg, &p);
	report(!p.err && p.total == max_msg && p.eor_at == max_msg &&
	       !memcmp(big, rbuf, max_msg),
	       "a message of max_msg_size arrives whole and intact",
	       "expected %zu bytes, saw %zu (%s)", max_msg, p.total,
	       p.err ? err_name(p.err) : "no error");

	EXPECT_ERRNO("send from a bad user buffer fails with EFAULT",
		     send(c, (void *)1, 100, 0), EFAULT);
	n = send(c, "after", 5, 0);
	expect_eq("send works after EFAULT", 5, n < 0 ? -errno : n);
	n = recv_flags(a, small, sizeof(small), 0, &flags);
	report(n == 5 && !memcmp(small, "after", 5) && (flags & MSG_EOR),
	       "the message after EFAULT arrives alone and intact",
	       "expected 5 bytes \"after\" with MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);

	EXPECT_ERRNO("send with MSG_OOB fails with EOPNOTSUPP",
		     send(c, "x", 1, MSG_OOB), EOPNOTSUPP);
	len = mkaddr(cur->domain, cur->addr, FIXED_PORT, &ss);
	EXPECT_ERRNO("sendto with an address on a connected socket fails with EISCONN",
		     sendto(c, "x", 1, 0, (struct sockaddr *)&ss, len), EISCONN);

	u = sock_new(cur->domain);
	EXPECT_ERRNO("send on an unconnected socket fails with ENOTCONN",
		     send(u, "x", 1, MSG_NOSIGNAL), ENOTCONN);
	close(u);

	EXPECT_OK("shutdown(SHUT_WR) succeeds", shutdown(c, SHUT_WR));
	EXPECT_ERRNO("send after shutdown(SHUT_WR) fails with EPIPE",
		     send(c, "x", 1, MSG_NOSIGNAL), EPIPE);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
		;
	report(sigtimedwait(&pipe_set, NULL, &zero) < 0,
	       "no SIGPIPE for EPIPE with MSG_NOSIGNAL", "SIGPIPE pending");
	EXPECT_ERRNO("send after shutdown(SHUT_WR) without MSG_NOSIGNAL fails with EPIPE",
		     send(c, "x", 1, 0), EPIPE);
	report(sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE,
	       "send after shutdown(SHUT_WR) without MSG_NOSIGNAL raises SIGPIPE",
	       "expected SIGPIPE pending, saw none");
	close(a);
	close(c);
	free(big);
	free(rbuf);
}

/* A blocking send queues a large message in pieces; a buffer that faults
 * after the first piece left cannot be taken back, so the connection is
 * reset: the peer may have read pieces of the message, never its end.
 */
static void test_send_fault_midway(void)
{
	size_t page = sysconf(_SC_PAGESIZE), len = 40 * page, total = 0;
	char *buf, rbuf[4096];
	bool eor = false;
	int c, a, flags;
	ssize_t n;

	/* the last page faults, in a later piece than the first */
	if (max_msg < len || len < 128 * 1024)
		return;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return;
	pattern(buf, len - page, 7);
	munmap(buf + len - page, page);
	if (conn_pair(&c, &a) < 0) {
		munmap(buf, len - page);
		return;
	}
	/* the smallest send buffer: a piece is one packet, whatever the MSS */
	setsockopt(c, SOL_SOCKET, SO_SNDBUF, &(int){ 1 }, sizeof(int));
	EXPECT_ERRNO("a blocking send whose buffer faults after its first piece fails with EFAULT",
		     send(c, buf, len, MSG_NOSIGNAL), EFAULT);
	while ((n = recv_flags(a, rbuf, sizeof(rbuf), 0, &flags)) > 0) {
		total += n;
		eor |= flags & MSG_EOR;
	}
	report(n < 0 && errno == ECONNRESET && !eor && total < len,
	       "the peer gets ECONNRESET and never the end of that message",
	       "read %zu bytes, MSG_EOR %d, then %s", total, eor,
	       result(n, errno));
	EXPECT_ERRNO("the sender's next send fails with ECONNABORTED",
		     send(c, "x", 1, MSG_NOSIGNAL), ECONNABORTED);
	close(a);
	close(c);
	munmap(buf, len - page);
}

/* shutdown(SHUT_WR) while a blocking send (here of another process
 * sharing the socket) is in the middle of a message: the message is
 * completed and the FIN follows its last piece.
 */
static void test_shutdown_midway(void)
{
	int l, port, c, a, flags, status, rcvbuf = 4096;
	size_t len = max_msg, total = 0;
	char *msg, *buf;
	bool eor = false;
	ssize_t n = 0;
	pid_t pid;

	msg = malloc(len);
	buf = malloc(len + 1);
	l = listener(&port);
	if (!msg || !buf || l < 0)
		goto out;
	/* the peer's window is small: the send waits in the message */
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	c = connect_to(cur->domain, cur->addr, port);
	a = c < 0 ? -1 : accept_one(l);
	close(l);
	if (a < 0) {
		if (c >= 0)
			close(c);
		goto out;
	}
	setsockopt(c, SOL_SOCKET, SO_SNDBUF, &(int){ 1 }, sizeof(int));
	pattern(msg, len, 5);
	pid = fork();
	if (pid == 0) {
		alarm(60);
		n = send(c, msg, len, MSG_NOSIGNAL);
		_exit(n == (ssize_t)len ? 0 : n < 0 ? errno : 255);
	}
	usleep(300 * 1000);
	EXPECT_OK("shutdown(SHUT_WR) in the middle of another sender's message returns at once",
		  shutdown(c, SHUT_WR));
	while (!eor && total < len + 1 &&
	       (n = recv_flags(a, buf + total, len + 1 - total, 0,
			       &flags)) > 0) {
		total += n;
		eor = flags & MSG_EOR;
	}
	report(eor && total == len && !memcmp(msg, buf, len),
	       "the peer gets that message whole, after the shutdown",
	       "read %zu of %zu bytes, MSG_EOR %d, last %s", total, len, eor,
	       result(n, errno));
	n = recv(a, buf, len, 0);
	report(n == 0, "then the end of the peer's messages (recv returns 0)",
	       "saw %s", result(n, errno));
	if (pid > 0) {
		waitpid(pid, &status, 0);
		report(WIFEXITED(status) && !WEXITSTATUS(status),
		       "the interrupted sender's send returns the message's length",
		       "exit status %#x (an errno, or 255 for a short send)",
		       status);
	}
	close(a);
	close(c);
out:
	free(msg);
	free(buf);
}

static void test_recv_pieces(void)
{
	char *msg, *buf, small[64];
	struct pieces p;
	int c, a, l, port, flags, rcvbuf = 4096;
	size_t len = 10000, large = 200000;
	ssize_t n;

	msg = malloc(large);
	buf = malloc(large + 1);
	if (!msg || !buf || conn_pair(&c, &a) < 0)
		goto out;

	/* smaller than the buffer passed to recvmsg */
	pattern(msg, len, 2);
	send(c, msg, len, 0);
	send(c, "next", 4, 0);
	read_pieces(a, buf, len, 3000, &p);
	report(!p.err && p.total == len && !memcmp(msg, buf, len),
	       "a message larger than the recv buffer arrives in pieces with no byte lost",
	       "expected %zu bytes, saw %zu (%s)", len, p.total,
	       p.err ? err_name(p.err) : "no error");
	report(p.largest <= 3000 && p.count >= 4,
	       "each piece fits the recv buffer",
	       "expected at least 4 pieces of at most 3000 bytes, saw %d, largest %zu",
	       p.count, p.largest);
	expect_eq("MSG_EOR only on the last piece", len, p.eor_at);
	n = recv_flags(a, small, sizeof(small), 0, &flags);
	report(n == 4 && !memcmp(small, "next", 4) && (flags & MSG_EOR),
	       "the next message is read separately",
	       "expected 4 bytes \"next\" with MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);
	close(a);
	close(c);

	/* larger than the receiver's socket buffer */
	l = listener(&port);
	if (l < 0)
		goto out;
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	c = connect_to(cur->domain, cur->addr, port);
	a = c < 0 ? -1 : accept_one(l);
	close(l);
	if (a < 0) {
		if (c >= 0)
			close(c);
		goto out;
	}
	pattern(msg, large, 3);
	n = send(c, msg, large, MSG_DONTWAIT);	/* queued whole at once */
	expect_eq("send of a message larger than the peer's SO_RCVBUF", large,
		  n < 0 ? -errno : n);
	read_pieces(a, buf, large, 65536, &p);
	report(!p.err && p.total == large && !memcmp(msg, buf, large) &&
	       p.eor_at == large,
	       "a message larger than SO_RCVBUF arrives whole, MSG_EOR at its end",
	       "expected %zu bytes, MSG_EOR at the end; saw %zu in %d pieces, MSG_EOR after %zu (%s)",
	       large, p.total, p.count, p.eor_at,
	       p.err ? err_name(p.err) : "no error");
	close(a);
	close(c);
out:
	free(msg);
	free(buf);
}

static void test_recv(void)
{
	char msg[5000], buf[5000];
	long long t0, waited;
	int c, a, flags, i;
	ssize_t n;
	bool in_order = true;

	if (conn_pair(&c, &a) < 0)
		return;
	EXPECT_ERRNO("recv with MSG_DONTWAIT and nothing queued fails with EAGAIN",
		     recv(a, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	set_timeo(a, SO_RCVTIMEO, 200);
	t0 = now_ms();
	EXPECT_ERRNO("recv fails with EAGAIN when SO_RCVTIMEO expires",
		     recv(a, buf, sizeof(buf), 0), EAGAIN);
	waited = now_ms() - t0;
	report(waited >= 150, "recv waits for SO_RCVTIMEO before EAGAIN",
	       "expected about 200 ms, saw %lld ms", waited);
	set_timeo(a, SO_RCVTIMEO, TIMEOUT_MS);

	send(c, "peekaboo", 8, 0);
	n = recv_flags(a, buf, sizeof(buf), MSG_PEEK, &flags);
	report(n == 8 && !memcmp(buf, "peekaboo", 8) && (flags & MSG_EOR),
	       "MSG_PEEK returns the message",
	       "expected 8 bytes with MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);
	memset(buf, 0, sizeof(buf));
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 8 && !memcmp(buf, "peekaboo", 8) && (flags & MSG_EOR),
	       "recv after MSG_PEEK returns the message again",
	       "expected 8 bytes with MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);

	/* MSG_TRUNC on a complete message */
	pattern(msg, sizeof(msg), 4);
	send(c, msg, sizeof(msg), 0);
	send(c, "after", 5, 0);
	wait_msgs(a, false, 3);
	memset(buf, 0, sizeof(buf));
	n = recv_flags(a, buf, 100, MSG_TRUNC, &flags);
	report(n == sizeof(msg) && (flags & MSG_TRUNC) &&
	       !memcmp(buf, msg, 100),
	       "MSG_TRUNC returns a complete message's full length and sets MSG_TRUNC",
	       "expected %zu with MSG_TRUNC, saw %s, flags %#x", sizeof(msg),
	       result(n, errno), flags);
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 5 && !memcmp(buf, "after", 5),
	       "MSG_TRUNC discards the rest of the message",
	       "expected the next message \"after\", saw %s", result(n, errno));
	send(c, "fits", 4, 0);
	n = recv_flags(a, buf, sizeof(buf), MSG_TRUNC, &flags);
	report(n == 4 && (flags & MSG_EOR) && !(flags & MSG_TRUNC),
	       "MSG_TRUNC on a message that fits returns it without MSG_TRUNC",
	       "expected 4 with MSG_EOR only, saw %s, flags %#x",
	       result(n, errno), flags);

	/* empty messages */
	n = send(c, "", 0, 0);
	expect_eq("send of an empty message returns 0", 0, n < 0 ? -errno : n);
	flags = 0;
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 0 && (flags & MSG_EOR),
	       "an empty message is read as 0 bytes with MSG_EOR",
	       "expected 0 with MSG_EOR, saw %s, flags %#x", result(n, errno),
	       flags);
	send(c, "z", 1, 0);
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 1 && buf[0] == 'z' && (flags & MSG_EOR),
	       "the message after an empty one is read next",
	       "expected 1 byte \"z\" with MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);

	/* order */
	for (i = 0; i < 64; i++) {
		size_t len = 4 + (i * 397) % 3000;

		pattern(msg, len, i);
		memcpy(msg, &i, sizeof(i));
		if (send(c, msg, len, 0) != (ssize_t)len) {
			report(false, "messages arrive in send order",
			       "send %d: %s", i, err_name(errno));
			in_order = false;
			break;
		}
	}
	for (i = 0; in_order && i < 64; i++) {
		size_t len = 4 + (i * 397) % 3000;
		int seq = -1;

		n = recv_flags(a, buf, sizeof(buf), 0, &flags);
		if (n >= 4)
			memcpy(&seq, buf, sizeof(seq));
		pattern(msg, len, i);
		memcpy(msg, &i, sizeof(i));
		if (n != (ssize_t)len || seq != i || !(flags & MSG_EOR) ||
		    memcmp(msg, buf, len)) {
			report(false, "messages arrive in send order",
			       "expected message %d of %zu bytes, saw %s, seq %d",
			       i, len, result(n, errno), seq);
			in_order = false;
		}
	}
	if (in_order)
		report(true, "messages arrive in send order", "");

	/* end of the peer's messages */
	send(c, "one", 3, 0);
	send(c, "two", 3, 0);
	shutdown(c, SHUT_WR);
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 3 && !memcmp(buf, "one", 3),
	       "messages sent before shutdown(SHUT_WR) are delivered",
	       "expected \"one\", saw %s", result(n, errno));
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 3 && !memcmp(buf, "two", 3),
	       "the last message before shutdown(SHUT_WR) is delivered",
	       "expected \"two\", saw %s", result(n, errno));
	flags = 0;
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 0 && !(flags & MSG_EOR),
	       "recv returns 0 without MSG_EOR after the peer's shutdown(SHUT_WR)",
	       "expected 0 without MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 0 && !(flags & MSG_EOR), "recv keeps returning 0 at EOF",
	       "expected 0 without MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);
	n = send(a, "reply", 5, 0);
	expect_eq("the other direction still works after the peer's shutdown(SHUT_WR)",
		  5, n < 0 ? -errno : n);
	n = recv_flags(c, buf, sizeof(buf), 0, &flags);
	report(n == 5 && !memcmp(buf, "reply", 5),
	       "a half-closed socket still receives",
	       "expected \"reply\", saw %s", result(n, errno));
	close(a);
	close(c);
}

static void test_info(void)
{
	struct mrc_info info;
	unsigned char raw[sizeof(info)];
	char buf[4096], msg[2000];
	socklen_t len;
	int c, a, l, port, i, ret;
	bool untouched = true;

	if (conn_pair(&c, &a) < 0)
		return;
	len = sizeof(info);
	memset(&info, 0, sizeof(info));
	ret = getsockopt(c, SOL_MRC, MRC_INFO, &info, &len);
	EXPECT_OK("getsockopt(SOL_MRC, MRC_INFO) succeeds", ret);
	expect_eq("MRC_INFO fills the whole struct", sizeof(info), len);
	expect_eq("MRC_INFO version is MRC_INFO_VERSION", MRC_INFO_VERSION,
		  info.mrci_version);
	expect_eq("MRC_INFO state is TCP_ESTABLISHED on a connected socket", 1,
		  info.mrci_state);
	get_info(a, &info);
	expect_eq("MRC_INFO state is TCP_ESTABLISHED on an accepted socket", 1,
		  info.mrci_state);

	memset(msg, 'm', sizeof(msg));
	send(c, msg, 100, 0);
	send(c, msg, sizeof(msg), 0);
	send(c, msg, 0, 0);
	for (i = 0; i < 3; i++)
		recv(a, buf, sizeof(buf), 0);
	wait_msgs(c, true, 3);
	get_info(c, &info);
	expect_eq("MRC_INFO msgs_sent counts the messages sent", 3,
		  info.mrci_msgs_sent);
	expect_eq("MRC_INFO bytes_sent counts the bytes sent", 2100,
		  info.mrci_bytes_sent);
	expect_eq("MRC_INFO msgs_received is 0 on the sender", 0,
		  info.mrci_msgs_received);
	get_info(a, &info);
	expect_eq("MRC_INFO msgs_received counts the messages received", 3,
		  info.mrci_msgs_received);
	expect_eq("MRC_INFO bytes_received counts the bytes received", 2100,
		  info.mrci_bytes_received);

	memset(raw, 0xa5, sizeof(raw));
	len = 4;
	ret = getsockopt(c, SOL_MRC, MRC_INFO, raw, &len);
	EXPECT_OK("MRC_INFO with a short optlen succeeds", ret);
	expect_eq("MRC_INFO with a short optlen returns that length", 4, len);
	for (i = 4; i < (int)sizeof(raw); i++)
		if (raw[i] != 0xa5)
			untouched = false;
	report(raw[0] == MRC_INFO_VERSION && untouched,
	       "MRC_INFO with a short optlen copies only that many bytes",
	       "expected version %d and bytes 4.. untouched, saw version %d, %s",
	       MRC_INFO_VERSION, raw[0],
	       untouched ? "untouched" : "bytes written past optlen");

	len = sizeof(info);
	EXPECT_ERRNO("getsockopt of an unknown SOL_MRC option fails with ENOPROTOOPT",
		     getsockopt(c, SOL_MRC, BAD_OPT, &info, &len), ENOPROTOOPT);
	i = 1;
	EXPECT_ERRNO("setsockopt of an unknown SOL_MRC option fails with ENOPROTOOPT",
		     setsockopt(c, SOL_MRC, BAD_OPT, &i, sizeof(i)), ENOPROTOOPT);
	close(a);
	close(c);

	l = listener(&port);
	if (l < 0)
		return;
	get_info(l, &info);
	expect_eq("MRC_INFO state is TCP_LISTEN on a listener", 10,
		  info.mrci_state);
	close(l);
}

static void test_close(void)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[64];
	int c, a, rev, flags;
	ssize_t n;

	/* the receiver closes with a message unread: reset */
	if (conn_pair(&c, &a) < 0)
		return;
	send(c, "unread", 6, 0);
	wait_msgs(a, false, 1);
	close(a);
	rev = poll1(c, POLLIN, TIMEOUT_MS);
	report(rev > 0 && (rev & POLLERR),
	       "poll reports POLLERR after the peer closed with unread data",
	       "expected POLLERR, saw revents %#x", rev);
	EXPECT_ERRNO("send after the peer closed with unread data fails with ECONNRESET",
		     send(c, "x", 1, MSG_NOSIGNAL), ECONNRESET);
	EXPECT_ERRNO("send after ECONNRESET was reported fails with EPIPE",
		     send(c, "x", 1, MSG_NOSIGNAL), EPIPE);
	close(c);

	if (conn_pair(&c, &a) < 0)
		return;
	send(c, "unread", 6, 0);
	wait_msgs(a, false, 1);
	close(a);
	EXPECT_ERRNO("recv after the peer closed with unread data fails with ECONNRESET",
		     recv(c, buf, sizeof(buf), 0), ECONNRESET);
	close(c);

	/* SO_LINGER {1, 0}: abort */
	if (conn_pair(&c, &a) < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(c);
	EXPECT_ERRNO("close with SO_LINGER {1, 0} resets the peer: ECONNRESET",
		     recv(a, buf, sizeof(buf), 0), ECONNRESET);
	close(a);

	/* a plain close delivers what was sent, then the end */
	if (conn_pair(&c, &a) < 0)
		return;
	send(c, "bye", 3, 0);
	close(c);
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 3 && !memcmp(buf, "bye", 3) && (flags & MSG_EOR),
	       "a message sent just before close is delivered",
	       "expected \"bye\", saw %s", result(n, errno));
	flags = 0;
	n = recv_flags(a, buf, sizeof(buf), 0, &flags);
	report(n == 0 && !(flags & MSG_EOR),
	       "recv returns 0 without MSG_EOR after the peer's close",
	       "expected 0 without MSG_EOR, saw %s, flags %#x",
	       result(n, errno), flags);
	close(a);
}

static void test_poll(void)
{
	char buf[64];
	int c, a, rev;

	if (conn_pair(&c, &a) < 0)
		return;
	rev = poll1(c, POLLIN | POLLOUT, 0);
	report(rev == POLLOUT,
	       "poll on an idle connected socket reports POLLOUT only",
	       "expected revents %#x, saw %#x", POLLOUT, rev);
	send(c, "ping", 4, 0);
	rev = poll1(a, POLLIN, TIMEOUT_MS);
	report(rev > 0 && (rev & POLLIN),
	       "poll reports POLLIN when a message is ready",
	       "expected POLLIN, saw revents %#x", rev);
	recv(a, buf, sizeof(buf), 0);
	rev = poll1(a, POLLIN, 0);
	expect_eq("poll reports no POLLIN once the message is read", 0, rev);
	shutdown(c, SHUT_WR);
	rev = poll1(a, POLLIN | POLLRDHUP, TIMEOUT_MS);
	report(rev > 0 && (rev & POLLIN) && (rev & POLLRDHUP),
	       "poll reports POLLIN and POLLRDHUP after the peer's shutdown(SHUT_WR)",
	       "expected POLLIN|POLLRDHUP, saw revents %#x", rev);
	rev = poll1(a, POLLOUT, 0);
	report(rev > 0 && (rev & POLLOUT),
	       "poll still reports POLLOUT after the peer's shutdown(SHUT_WR)",
	       "expected POLLOUT, saw revents %#x", rev);
	close(a);
	close(c);
}

static int write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* An IPv6 socket made IPv6-only by the namespace's bindv6only sysctl. */
static int v6only_socket(void)
{
	static const char *path = "/proc/sys/net/ipv6/bindv6only";
	int fd;

	if (write_file(path, "1") < 0)
		report(false, "setup: bindv6only", "%s: %s", path,
		       err_name(errno));
	fd = sock_new(AF_INET6);
	write_file(path, "0");
	return fd;
}

/* IPv4 sockets and IPv6 sockets meet; one port space for both. */
static void test_cross(void)
{
	static const struct fam cross = { "cross-family", AF_INET6, "::", "" };
	struct sockaddr_storage ss;
	char s1[96], s2[96], buf[64];
	int l, c, a, port, ret, one = 1;
	socklen_t len;
	ssize_t n;

	cur = &cross;
	l = listener_on(AF_INET6, "::", &port);
	if (l < 0)
		return;
	c = connect_to(AF_INET, "127.0.0.1", port);
	a = c < 0 ? -1 : accept_one(l);
	if (a >= 0) {
		snprintf(s1, sizeof(s1), "inet6 [::ffff:127.0.0.1]:%d",
			 local_port(c));
		expect_str("an IPv6 listener on :: sees an IPv4 client as v4-mapped",
			   s1, name_of(a, true, s2, sizeof(s2)));
		send(c, "v4", 2, 0);
		n = recv(a, buf, sizeof(buf), 0);
		report(n == 2 && !memcmp(buf, "v4", 2),
		       "an IPv4 client's message reaches an IPv6 listener's socket",
		       "expected \"v4\", saw %s", result(n, errno));
		close(a);
	}
	if (c >= 0)
		close(c);

	len = mkaddr(AF_INET, "127.0.0.1", port, &ss);
	c = sock_new(AF_INET);
	EXPECT_ERRNO("an IPv4 socket cannot bind a port an IPv6 socket holds: EADDRINUSE",
		     bind(c, (struct sockaddr *)&ss, len), EADDRINUSE);
	close(c);
	close(l);

	l = listener_on(AF_INET, "127.0.0.1", &port);
	if (l < 0)
		return;
	c = connect_to(AF_INET6, "::ffff:127.0.0.1", port);
	a = c < 0 ? -1 : accept_one(l);
	if (a >= 0) {
		snprintf(s1, sizeof(s1), "inet6 [::ffff:127.0.0.1]:%d", port);
		expect_str("an IPv6 socket connected to a v4-mapped address sees it as its peer",
			   s1, name_of(c, true, s2, sizeof(s2)));
		snprintf(s1, sizeof(s1), "inet 127.0.0.1:%d", local_port(c));
		expect_str("an IPv4 listener sees a v4-mapped IPv6 client as IPv4",
			   s1, name_of(a, true, s2, sizeof(s2)));
		send(a, "v6", 2, 0);
		n = recv(c, buf, sizeof(buf), 0);
		report(n == 2 && !memcmp(buf, "v6", 2),
		       "an IPv4 socket's message reaches a v4-mapped IPv6 client",
		       "expected \"v6\", saw %s", result(n, errno));
		close(a);
	}
	if (c >= 0)
		close(c);

	c = sock_new(AF_INET6);
	ret = setsockopt(c, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (!EXPECT_OK("setsockopt(IPV6_V6ONLY) on an IPv6 socket succeeds", ret)) {
		/* an IPv6-only socket the other way: net.ipv6.bindv6only */
		close(c);
		c = v6only_socket();
	}
	len = mkaddr(AF_INET6, "::ffff:127.0.0.1", port, &ss);
	EXPECT_ERRNO("an IPV6_V6ONLY socket cannot connect to a v4-mapped address: ENETUNREACH",
		     connect(c, (struct sockaddr *)&ss, len), ENETUNREACH);
	close(c);
	close(l);
}

/* ------------------------------------------------------------------ */
/* Memory regions (MRC_MR_REG, MRC_MR_DEREG) */

/* A number from a "NAME: VALUE" line of a /proc file, -1 if none. */
static long long proc_value(const char *path, const char *name)
{
	size_t n = strlen(name);
	long long v = -1;
	char line[256];
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && (line[n] == ':' || line[n] == ' ')) {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Pages the rest of the system may pin or unpin meanwhile, at most. */
#define PIN_NOISE	32

/* This process's pinned memory (VmPin), kB. */
static long long vm_pin_kb(void)
{
	return proc_value("/proc/self/status", "VmPin");
}

/* Pages pinned in the whole system now (FOLL_PIN acquired - released). */
static long long foll_pins(void)
{
	return proc_value("/proc/vmstat", "nr_foll_pin_acquired") -
	       proc_value("/proc/vmstat", "nr_foll_pin_released");
}

/* MRC_MR_REG of [@addr, @addr + @len) with @access; its key in *@key. */
static int mr_reg(int fd, const void *addr, uint64_t len, uint32_t access,
		  uint64_t *key)
{
	struct mrc_mr_reg reg = {
		.addr = (uintptr_t)addr, .len = len, .access = access,
	};
	socklen_t optlen = sizeof(reg);
	int ret;

	ret = getsockopt(fd, SOL_MRC, MRC_MR_REG, &reg, &optlen);
	if (!ret && key)
		*key = reg.key;
	return ret;
}

static int mr_dereg(int fd, uint64_t key)
{
	return setsockopt(fd, SOL_MRC, MRC_MR_DEREG, &key, sizeof(key));
}

/* MRC_INFO's region count and bytes of @fd. */
static void mr_info(int fd, long long *count, long long *bytes)
{
	struct mrc_info info;

	*count = *bytes = -1;
	if (get_info(fd, &info) == 0 && info.mrci_version >= 4) {
		*count = info.mrci_mr_count;
		*bytes = info.mrci_mr_bytes;
	}
}

/* In a child without CAP_IPC_LOCK (user nobody) and RLIMIT_MEMLOCK of
 * 64 KiB: 32 KiB registers, 64 KiB more does not (ENOMEM), 16 KiB more
 * does, 32 KiB more does not.  Returns what went as expected, one bit a
 * step, in the exit status.
 */
static int mr_limit_child(char *buf)
{
	struct rlimit rl = { .rlim_cur = 64 << 10, .rlim_max = 64 << 10 };
	int fd, bits = 0;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgid(65534) || setuid(65534))
		return 0;
	fd = socket(cur->domain, SOCK_SEQPACKET, IPPROTO_MRC);
	if (fd < 0)
		return 0;
	if (mr_reg(fd, buf, 32 << 10, MRC_MR_REMOTE_WRITE, NULL) == 0)
		bits |= 1;
	if (mr_reg(fd, buf, 64 << 10, MRC_MR_REMOTE_WRITE, NULL) < 0 &&
	    errno == ENOMEM)
		bits |= 2;
	if (mr_reg(fd, buf, 16 << 10, MRC_MR_REMOTE_READ, NULL) == 0)
		bits |= 4;
	if (mr_reg(fd, buf, 32 << 10, MRC_MR_REMOTE_READ, NULL) < 0 &&
	    errno == ENOMEM)
		bits |= 8;
	if (vm_pin_kb() == 48)
		bits |= 16;
	close(fd);
	if (vm_pin_kb() == 0)
		bits |= 32;
	return bits;
}

static void test_mr(void)
{
	const size_t mib = 1 << 20, pg = sysconf(_SC_PAGESIZE);
	long long pin0, fp0, fpb, cnt, bytes, d;
	uint64_t k1 = 0, k2 = 0, k3 = 0, key;
	struct mrc_mr_reg reg;
	char *buf, *ro, *hole;
	int c, a, l, s, port, n, status;
	socklen_t optlen;
	pid_t pid;

	buf = mmap(NULL, mib + 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || ro == MAP_FAILED || hole == MAP_FAILED) {
		report(false, "mr: setup", "mmap: %s", err_name(errno));
		return;
	}
	munmap(hole, pg);	/* a page that is not mapped */
	memset(buf, 1, mib + 2 * pg);
	if (conn_pair(&c, &a))
		return;
	pin0 = vm_pin_kb();
	fp0 = foll_pins();
	report(pin0 >= 0 && fp0 >= 0, "mr: VmPin and nr_foll_pin_* readable",
	       "VmPin %lld, pins %lld", pin0, fp0);

	/* a region of 1 MiB, then 100 bytes across a page boundary */
	EXPECT_OK("mr: 1 MiB registers",
		  mr_reg(c, buf, mib, MRC_MR_REMOTE_WRITE | MRC_MR_REMOTE_READ,
			 &k1));
	report(k1 != 0, "mr: its key is not 0", "key %llx",
	       (unsigned long long)k1);
	expect_eq("mr: VmPin grew by 1 MiB", pin0 + 1024, vm_pin_kb());
	/* the system's count moves with other pins too (9p, in the VM) */
	d = foll_pins() - fp0;
	report(d > (long long)(mib / pg) - PIN_NOISE &&
	       d < (long long)(mib / pg) + PIN_NOISE,
	       "mr: the system's pinned pages grew by 1 MiB's",
	       "by %lld pages", d);
	mr_info(c, &cnt, &bytes);
	expect_eq("mr: MRC_INFO counts the region", 1, cnt);
	expect_eq("mr: MRC_INFO counts its bytes", mib, bytes);
	mr_info(a, &cnt, &bytes);
	expect_eq("mr: the peer's socket has none", 0, cnt);
	EXPECT_OK("mr: 100 bytes across a page boundary register",
		  mr_reg(c, buf + pg - 50, 100, MRC_MR_REMOTE_READ, &k2));
	report(k2 != k1 && k2, "mr: keys differ", "%llx %llx",
	       (unsigned long long)k1, (unsigned long long)k2);
	expect_eq("mr: it pins two pages", pin0 + 1024 + 2 * pg / 1024,
		  vm_pin_kb());
	optlen = sizeof(reg);
	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)buf;
	reg.len = 1;
	reg.access = MRC_MR_REMOTE_READ;
	EXPECT_OK("mr: getsockopt returns",
		  getsockopt(c, SOL_MRC, MRC_MR_REG, &reg, &optlen));
	expect_eq("mr: optlen says the struct's size", sizeof(reg), optlen);
	k3 = reg.key;

	/* deregistration: by key, on its own socket only, once */
	EXPECT_OK("mr: deregistered", mr_dereg(c, k2));
	expect_eq("mr: VmPin shrank by its pages", pin0 + 1024 + pg / 1024,
		  vm_pin_kb());
	EXPECT_ERRNO("mr: deregistered twice: ENOENT", mr_dereg(c, k2), ENOENT);
	EXPECT_ERRNO("mr: a key on another socket (the peer's): ENOENT",
		     mr_dereg(a, k1), ENOENT);
	EXPECT_ERRNO("mr: key 0: ENOENT", mr_dereg(c, 0), ENOENT);
	EXPECT_ERRNO("mr: a key with its random part changed: ENOENT",
		     mr_dereg(c, k1 ^ (1ULL << 40)), ENOENT);
	EXPECT_ERRNO("mr: MRC_MR_DEREG with 4 bytes: EINVAL",
		     setsockopt(c, SOL_MRC, MRC_MR_DEREG, &k1, 4), EINVAL);
	EXPECT_OK("mr: the 1-byte region deregistered", mr_dereg(c, k3));

	/* malformed requests */
	EXPECT_ERRNO("mr: length 0: EINVAL",
		     mr_reg(c, buf, 0, MRC_MR_REMOTE_WRITE, &key), EINVAL);
	EXPECT_ERRNO("mr: no right: EINVAL", mr_reg(c, buf, pg, 0, &key),
		     EINVAL);
	EXPECT_ERRNO("mr: an unknown right: EINVAL",
		     mr_reg(c, buf, pg, 0x8 | MRC_MR_REMOTE_READ, &key), EINVAL);
	EXPECT_ERRNO("mr: a range that wraps: EINVAL",
		     mr_reg(c, buf, UINT64_MAX, MRC_MR_REMOTE_WRITE, &key),
		     EINVAL);
	EXPECT_ERRNO("mr: longer than MRC_MR_LEN_MAX: EINVAL",
		     mr_reg(c, buf, MRC_MR_LEN_MAX + 1, MRC_MR_REMOTE_WRITE,
			    &key), EINVAL);
	memset(&reg, 0, sizeof(reg));
	reg.addr = (uintptr_t)buf;
	reg.len = pg;
	reg.access = MRC_MR_REMOTE_READ;
	reg.flags = 1;
	optlen = sizeof(reg);
	EXPECT_ERRNO("mr: flags set: EINVAL",
		     getsockopt(c, SOL_MRC, MRC_MR_REG, &reg, &optlen), EINVAL);
	reg.flags = 0;
	optlen = sizeof(reg) - 1;
	EXPECT_ERRNO("mr: a short buffer: EINVAL",
		     getsockopt(c, SOL_MRC, MRC_MR_REG, &reg, &optlen), EINVAL);
	EXPECT_ERRNO("mr: MRC_MR_REG through setsockopt: EOPNOTSUPP",
		     setsockopt(c, SOL_MRC, MRC_MR_REG, &reg, sizeof(reg)),
		     EOPNOTSUPP);
	EXPECT_ERRNO("mr: an unmapped page: EFAULT",
		     mr_reg(c, hole, pg, MRC_MR_REMOTE_READ, &key), EFAULT);
	EXPECT_ERRNO("mr: a read-only page for remote write: EFAULT",
		     mr_reg(c, ro, pg, MRC_MR_REMOTE_WRITE, &key), EFAULT);
	EXPECT_ERRNO("mr: read-only memory for our READs: EFAULT",
		     mr_reg(c, ro, pg, MRC_MR_LOCAL_WRITE, &key), EFAULT);
	EXPECT_OK("mr: a read-only page for remote read",
		  mr_reg(c, ro, pg, MRC_MR_REMOTE_READ, &k3));
	expect_eq("mr: refused requests pinned nothing",
		  pin0 + 1024 + pg / 1024, vm_pin_kb());

	/* no regions on a listener; no listen() with regions */
	l = listener(&port);
	if (l >= 0) {
		EXPECT_ERRNO("mr: on a listening socket: EINVAL",
			     mr_reg(l, buf, pg, MRC_MR_REMOTE_WRITE, &key),
			     EINVAL);
		close(l);
	}
	s = sock_new(cur->domain);
	if (s >= 0) {
		EXPECT_OK("mr: on a socket not yet connected",
			  mr_reg(s, buf, pg, MRC_MR_REMOTE_WRITE, &key));
		EXPECT_ERRNO("mr: listen() with a region: EINVAL",
			     listen(s, 4), EINVAL);
		/* MRC_MR_MAX regions a socket; the same page may be in many */
		for (n = 1; n < MRC_MR_MAX + 10; n++)
			if (mr_reg(s, buf, pg, MRC_MR_REMOTE_READ, &key))
				break;
		expect_eq("mr: MRC_MR_MAX regions on one socket", MRC_MR_MAX,
			  n);
		EXPECT_ERRNO("mr: one more: ENOSPC",
			     mr_reg(s, buf, pg, MRC_MR_REMOTE_READ, &key),
			     ENOSPC);
		close(s);
		expect_eq("mr: close() released its regions' pins",
			  pin0 + 1024 + pg / 1024, vm_pin_kb());
	}

	/* a child of fork() shares the socket; its exit takes nothing */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	mr_info(c, &cnt, &bytes);
	expect_eq("mr: a forked child's exit leaves the regions", 2, cnt);
	/* a process that exits with regions: they are released */
	fpb = foll_pins();
	pid = fork();
	if (pid == 0) {
		s = socket(cur->domain, SOCK_SEQPACKET, IPPROTO_MRC);
		_exit(mr_reg(s, buf, mib, MRC_MR_REMOTE_WRITE, NULL) ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	expect_eq("mr: a child registered 1 MiB and exited", 0,
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	d = foll_pins() - fpb;
	report(d < PIN_NOISE && d > -PIN_NOISE,
	       "mr: its exit released the pins (of 1 MiB)", "%lld pages left",
	       d);
	/* RLIMIT_MEMLOCK without CAP_IPC_LOCK */
	pid = fork();
	if (pid == 0)
		_exit(mr_limit_child(buf));
	waitpid(pid, &status, 0);
	n = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	expect_eq("mr: unprivileged, 32 KiB of 64 KiB RLIMIT_MEMLOCK register",
		  1, n & 1);
	expect_eq("mr: 64 KiB more: ENOMEM", 2, n & 2);
	expect_eq("mr: 16 KiB more register", 4, n & 4);
	expect_eq("mr: 32 KiB more: ENOMEM", 8, n & 8);
	expect_eq("mr: VmPin says 48 KiB", 16, n & 16);
	expect_eq("mr: close() brought VmPin to 0", 32, n & 32);

	/* the memory goes away under a region: the pins hold the pages */
	EXPECT_OK("mr: a region of the read-only page's munmap()",
		  munmap(ro, pg));
	EXPECT_OK("mr: then deregistered", mr_dereg(c, k3));
	close(a);
	close(c);
	expect_eq("mr: close() of the connection released every pin", pin0,
		  vm_pin_kb());
	d = foll_pins() - fp0;
	report(d < PIN_NOISE && d > -PIN_NOISE,
	       "mr: the system's pinned pages are back", "%lld pages more", d);
	munmap(buf, mib + 2 * pg);
}

/* sendmsg of a WRITE @wr of @len bytes at @data (MRC_CMSG_WRITE); @clen:
 * the control message's length, @level and @type its own.
 */
static ssize_t send_wr(int fd, const struct mrc_write *wr, const void *data,
		       size_t len, size_t clen, int level, int type,
		       int flags)
{
	return mrc_send_cmsg(fd, level, type, wr, sizeof(*wr), clen, data, len,
			     flags);
}

static ssize_t mrc_write_cmsg(int fd, uint64_t key, uint64_t off,
			      const void *data, size_t len, size_t clen,
			      int level, int type)
{
	struct mrc_write wr = { .key = key, .offset = off };

	return send_wr(fd, &wr, data, len, clen, level, type, 0);
}

static ssize_t mrc_write(int fd, uint64_t key, uint64_t off, const void *data,
			 size_t len)
{
	return mrc_write_cmsg(fd, key, off, data, len, sizeof(struct mrc_write),
			      SOL_MRC, MRC_CMSG_WRITE);
}

/* A WRITE with its @cookie and @wflags, sendmsg @flags. */
static ssize_t mrc_write_op(int fd, uint64_t key, uint64_t off,
			    const void *data, size_t len, uint64_t cookie,
			    uint32_t wflags, int flags)
{
	struct mrc_write wr = {
		.key = key, .offset = off, .cookie = cookie, .flags = wflags,
	};

	return send_wr(fd, &wr, data, len, sizeof(wr), SOL_MRC,
		       MRC_CMSG_WRITE, flags);
}

/* A WRITE with immediate @imm (MRC_WRITE_IMM and @wflags). */
static ssize_t mrc_write_op_imm(int fd, uint64_t key, uint64_t off,
				const void *data, size_t len, uint64_t cookie,
				uint32_t wflags, uint32_t imm)
{
	struct mrc_write wr = {
		.key = key, .offset = off, .cookie = cookie,
		.flags = wflags | MRC_WRITE_IMM, .imm = imm,
	};

	return send_wr(fd, &wr, data, len, sizeof(wr), SOL_MRC,
		       MRC_CMSG_WRITE, 0);
}

/* Read the completions (recvmsg(MSG_ERRQUEUE)) of @fd into @out, @n of
 * them, waiting up to TIMEOUT_MS for them (POLLERR).
 *
 * Return: how many were read.
 */
static int get_completions(int fd, struct mrc_completion *out, int n)
{
	long long at = now_ms() + TIMEOUT_MS;
	int got = 0;

	while (got < n && now_ms() < at) {
		struct pollfd p = { .fd = fd };
		union {
			char buf[CMSG_SPACE(sizeof(struct mrc_completion)) * 7];
			struct cmsghdr align;
		} u;
		struct msghdr mh = {
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
		};
		struct cmsghdr *cm;

		if (poll(&p, 1, 50) <= 0 || !(p.revents & POLLERR))
			continue;
		if (recvmsg(fd, &mh, MSG_ERRQUEUE) < 0) {
			/* a connection error also sets POLLERR */
			usleep(10000);
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_MRC &&
			    cm->cmsg_type == MRC_CMSG_COMPLETION && got < n)
				memcpy(&out[got++], CMSG_DATA(cm),
				       sizeof(*out));
	}
	return got;
}

/* Are the next completions of @fd exactly @n with these @cookies and
 * @errors, and then none?
 */
static void expect_completions(int fd, int n, const uint64_t *cookies,
			       const int *errors, const char *name)
{
	char b[CMSG_SPACE(sizeof(struct mrc_completion))];
	struct msghdr mh = { .msg_control = b, .msg_controllen = sizeof(b) };
	struct mrc_completion c[16] = {};
	char what[200];
	int got, i;

	got = get_completions(fd, c, n);
	snprintf(what, sizeof(what), "%s: completions", name);
	expect_eq(what, n, got);
	for (i = 0; i < got; i++) {
		snprintf(what, sizeof(what), "%s: completion %d's cookie",
			 name, i);
		expect_eq(what, (long long)cookies[i], (long long)c[i].cookie);
		snprintf(what, sizeof(what), "%s: completion %d's error",
			 name, i);
		expect_eq(what, errors[i], c[i].error);
	}
	snprintf(what, sizeof(what), "%s: then none (EAGAIN)", name);
	EXPECT_ERRNO(what, recvmsg(fd, &mh, MSG_ERRQUEUE), EAGAIN);
}

/* A message from @c that @a receives: every WRITE @c sent before it has
 * been placed (or refused) at @a.
 */
static bool write_fence(int c, int a, const char *name)
{
	char m = 'f', r = 0;
	bool ok;

	ok = send(c, &m, 1, 0) == 1 && recv(a, &r, 1, 0) == 1 && r == 'f';
	return report(ok, name, "the fence message did not arrive: %s",
		      err_name(errno));
}

/* MRC_INFO's WRITE counters (version 5): @c sent @sent WRITEs, @a took
 * @in bytes (-1: do not check) and refused @refused packets.
 */
static void write_info(int c, int a, long long sent, long long in,
		       long long refused, const char *when)
{
	struct mrc_info ic, ia;
	char name[160];

	if (get_info(c, &ic) || get_info(a, &ia) || ic.mrci_version < 5) {
		report(false, "write: MRC_INFO version 5", "%s",
		       err_name(errno));
		return;
	}
	snprintf(name, sizeof(name), "write: MRC_INFO %s: mrci_writes_sent",
		 when);
	expect_eq(name, sent, ic.mrci_writes_sent);
	if (in >= 0) {
		snprintf(name, sizeof(name),
			 "write: MRC_INFO %s: mrci_write_bytes_in", when);
		expect_eq(name, in, ia.mrci_write_bytes_in);
	}
	snprintf(name, sizeof(name), "write: MRC_INFO %s: mrci_write_refused",
		 when);
	expect_eq(name, refused, ia.mrci_write_refused);
}

/* Where @buf and @want differ first, or -1. */
static long long first_diff(const char *buf, const char *want, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != want[i])
			return i;
	return -1;
}

/* test_write's refused WRITEs fail (cookie 0): unknown key, read-only,
 * past the end twice, another connection's key.
 */
static const uint64_t zero_cookies[5];
static const int refused_errors[5] = { ENOKEY, EACCES, ERANGE, ERANGE, ENOKEY };

/* WRITEs into a region of the peer (MRC_CMSG_WRITE): placed where they
 * name and nowhere else, refused without harm when they name no region
 * of the connection, a read-only one or bytes past its end, and nothing
 * placed after a deregistration returns.
 */
static void test_write(void)
{
	const size_t pg = sysconf(_SC_PAGESIZE), rlen = (1 << 20) + 333;
	const size_t big = 32 << 20, total = rlen + 2 * pg;
	uint64_t key, kro, kother, kbig;
	struct mrc_completion cc = {};
	const char *name;
	char *buf, *want, *src, *bigbuf, *snap;
	int c, a, c2, a2, i, status;
	long long pin0, at;
	size_t off, len;
	unsigned int seed = 7;
	pid_t pid;

	/* the region: 1 MiB and 333 bytes from 100 bytes into the second
	 * page; all around it, bytes that must not change
	 */
	buf = mmap(NULL, total, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	want = malloc(total);
	src = malloc(rlen);
	bigbuf = mmap(NULL, big, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || bigbuf == MAP_FAILED || !want || !src) {
		report(false, "write: setup", "memory: %s", err_name(errno));
		return;
	}
	memset(buf, 0x5a, total);
	memset(want, 0x5a, total);
	if (conn_pair(&c, &a))
		return;
	pin0 = vm_pin_kb();
	name = "write: a region registers";
	EXPECT_OK(name, mr_reg(a, buf + pg + 100, rlen, MRC_MR_REMOTE_WRITE,
			       &key));

	/* one WRITE, then the fence */
	pattern(src, rlen, 3);
	name = "write: 100000 bytes at 5000: sendmsg returns their length";
	expect_eq(name, 100000, mrc_write(c, key, 5000, src, 100000));
	memcpy(want + pg + 100 + 5000, src, 100000);
	name = "write: a message after it arrives";
	write_fence(c, a, name);
	name = "write: placed there, nothing else changed (first difference at)";
	expect_eq(name, -1, first_diff(buf, want, total));
	write_info(c, a, 1, 100000, 0, "after it");

	/* random sizes at random offsets, the first and last byte too */
	for (i = 0; i < 40; i++) {
		len = 1 + rand_r(&seed) % (i < 20 ? 2000 : 200000);
		off = rand_r(&seed) % (rlen - len + 1);
		if (i == 0)
			off = 0;
		if (i == 1)
			off = rlen - len;
		pattern(src, len, i);
		if (mrc_write(c, key, off, src, len) != (ssize_t)len)
			break;
		memcpy(want + pg + 100 + off, src, len);
	}
	name = "write: 40 WRITEs of 1 B to 195 KiB at random offsets sent";
	expect_eq(name, 40, i);
	name = "write: the fence after them arrives";
	write_fence(c, a, name);
	name = "write: what was written last is there, and only there (first difference at)";
	expect_eq(name, -1, first_diff(buf, want, total));
	name = "write: an empty WRITE at the region's end";
	expect_eq(name, 0, mrc_write(c, key, rlen, src, 0));

	/* refused by the sender */
	name = "write: an offset whose last byte wraps: EINVAL";
	EXPECT_ERRNO(name, mrc_write(c, key, UINT64_MAX - 10, src, 100),
		     EINVAL);
	name = "write: longer than MRC_WRITE_LEN_MAX: EMSGSIZE";
	EXPECT_ERRNO(name, mrc_write(c, key, 0, bigbuf,
				     (size_t)MRC_WRITE_LEN_MAX + 1), EMSGSIZE);
	name = "write: a control message too short: EINVAL";
	EXPECT_ERRNO(name, mrc_write_cmsg(c, key, 0, src, 10, 8, SOL_MRC,
					  MRC_CMSG_WRITE), EINVAL);
	name = "write: an unknown control message: EINVAL";
	EXPECT_ERRNO(name, mrc_write_cmsg(c, key, 0, src, 10,
					  sizeof(struct mrc_write), SOL_MRC,
					  99), EINVAL);
	name = "write: a control message of another level: EINVAL";
	EXPECT_ERRNO(name, mrc_write_cmsg(c, key, 0, src, 10,
					  sizeof(struct mrc_write), SOL_SOCKET,
					  MRC_CMSG_WRITE), EINVAL);

	/* refused by the target: counted there (api.sh), nothing written,
	 * the connection goes on
	 */
	EXPECT_OK("write: a read-only region registers",
		  mr_reg(a, buf, pg, MRC_MR_REMOTE_READ, &kro));
	kother = 0;
	if (!conn_pair(&c2, &a2)) {
		mr_reg(a2, buf, pg, MRC_MR_REMOTE_WRITE, &kother);
		close(c2);
	}
	memset(src, 0xee, 1000);
	/* unknown key, read-only, past the end, another connection's key */
	name = "write: bad WRITEs are sent";
	report(mrc_write(c, key ^ (1ULL << 40), 0, src, 1000) == 1000 &&
	       mrc_write(c, kro, 0, src, 1000) == 1000 &&
	       mrc_write(c, key, rlen - 10, src, 1000) == 1000 &&
	       mrc_write(c, key, UINT64_MAX - 2000, src, 1000) == 1000 &&
	       mrc_write(c, kother, 0, src, 1000) == 1000,
	       name, "sendmsg: %s", err_name(errno));
	if (kother)
		close(a2);
	name = "write: the fence after them arrives";
	write_fence(c, a, name);
	name = "write: they changed nothing (first difference at)";
	expect_eq(name, -1, first_diff(buf, want, total));
	expect_completions(c, 5, zero_cookies, refused_errors,
			   "write: the refused ones fail");
	/* lo's MTU: each of the five is one packet */
	write_info(c, a, 47, -1, 5, "after 5 refused");
	pattern(src, 4096, 99);
	mrc_write(c, key, 777, src, 4096);
	memcpy(want + pg + 100 + 777, src, 4096);
	write_fence(c, a, "write: a fence after a good WRITE arrives");
	expect_eq("write: a good WRITE after them is placed (first difference at)",
		  -1, first_diff(buf, want, total));
	mr_dereg(a, kro);

	/* deregistered while a 32 MiB WRITE is on its way: once
	 * MRC_MR_DEREG returns, no byte of the region changes
	 */
	name = "write: a 32 MiB region registers";
	memset(bigbuf, 0, big);
	EXPECT_OK(name, mr_reg(a, bigbuf, big, MRC_MR_REMOTE_WRITE, &kbig));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *data = malloc(big);

		if (!data)
			_exit(1);
		memset(data, 0x11, big);
		_exit(mrc_write_op(c, kbig, 0, data, big, 32, MRC_WRITE_SIGNAL,
				   0) == (ssize_t)big ? 0 : 1);
	}
	at = now_ms() + TIMEOUT_MS;
	while (!__atomic_load_n(bigbuf, __ATOMIC_ACQUIRE) && now_ms() < at)
		;
	name = "write: deregistered once the first bytes are placed";
	EXPECT_OK(name, mr_dereg(a, kbig));
	snap = malloc(big);
	if (snap)
		memcpy(snap, bigbuf, big);
	waitpid(pid, &status, 0);
	name = "write: the WRITE was sent whole";
	expect_eq(name, 0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	name = "write: a fence after it arrives";
	write_fence(c, a, name);
	/* With one CPU (UML) the sender's loopback transfer runs to its
	 * end before this process runs again: the deregistration comes
	 * after the last byte, and the check below holds trivially.
	 */
	name = "write: it was deregistered midway (bytes not yet written then)";
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		report(snap && memchr(snap, 0, big), name,
		       "every byte was written before it");
	else
		printf("# %s: %s (one CPU)\n", name,
		       snap && memchr(snap, 0, big) ? "yes" : "no");
	name = "write: nothing placed after the deregistration returned (first difference at)";
	expect_eq(name, -1, snap ? first_diff(bigbuf, snap, big) : -2);
	free(snap);
	name = "write: the deregistered WRITE completes: ENOKEY";
	if (get_completions(c, &cc, 1) != 1 || cc.cookie != 32)
		report(false, name, "no completion with cookie 32");
	else if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		expect_eq(name, ENOKEY, cc.error);
	else
		report(cc.error == ENOKEY || !cc.error, name,
		       "error %d (one CPU: 0 if it ended first)", cc.error);

	close(c);
	close(a);
	name = "write: close() released every pin";
	expect_eq(name, pin0, vm_pin_kb());
	munmap(buf, total);
	munmap(bigbuf, big);
	free(want);
	free(src);
}

/* The completions of WRITEs (recvmsg(MSG_ERRQUEUE)): one for each
 * signaled WRITE and each that failed, in order, with its cookie and
 * errno; none for the rest; POLLERR while one waits; MRC_OPS_MAX of them
 * unread stop the next WRITE; the connection's end fails the ones whose
 * outcome was not known.
 */
static void test_completions(void)
{
	static const uint64_t ck_mix[2] = { 211, 212 };
	static const int er_mix[2] = { EACCES, 0 };
	static const uint64_t ck_bad[4] = { 301, 302, 303, 304 };
	static const int er_bad[4] = { ENOKEY, ERANGE, EACCES, ERANGE };
	static const uint64_t ck_one[1] = { 101 };
	static const uint64_t ck_reset[1] = { 701 };
	static const uint64_t ck_next[1] = { 9 };
	static const int er_ok[1] = { 0 };
	static const int er_reset[1] = { ECONNRESET };
	struct mrc_completion *cs;
	struct mrc_write wr = {};
	uint64_t key, kro, i;
	char src[5000], *region, b[CMSG_SPACE(8)];
	struct msghdr mh = { .msg_control = b, .msg_controllen = sizeof(b) };
	const char *name;
	int c, a, n;

	region = malloc(65536);
	cs = calloc(MRC_OPS_MAX, sizeof(*cs));
	if (!region || !cs || conn_pair(&c, &a)) {
		report(false, "completion: setup", "%s", err_name(errno));
		free(region);
		free(cs);
		return;
	}
	memset(src, 0x33, sizeof(src));
	if (mr_reg(a, region, 65536, MRC_MR_REMOTE_WRITE, &key) ||
	    mr_reg(a, region, 4096, MRC_MR_REMOTE_READ, &kro)) {
		report(false, "completion: regions register", "%s",
		       err_name(errno));
		goto out;
	}
	name = "completion: none yet: EAGAIN";
	EXPECT_ERRNO(name, recvmsg(c, &mh, MSG_ERRQUEUE), EAGAIN);

	/* a signaled WRITE succeeds */
	mrc_write_op(c, key, 0, src, 5000, 101, MRC_WRITE_SIGNAL, 0);
	expect_completions(c, 1, ck_one, er_ok, "completion: a signaled WRITE");

	/* ten that need none, one that fails, one signaled */
	for (i = 201; i <= 210; i++)
		mrc_write_op(c, key, i * 10, src, 100, i, 0, 0);
	mrc_write_op(c, kro, 0, src, 100, 211, 0, 0);
	mrc_write_op(c, key, 0, src, 100, 212, MRC_WRITE_SIGNAL, 0);
	expect_completions(c, 2, ck_mix, er_mix,
			   "completion: only the failed and the signaled one");

	/* every failure, with its errno */
	mrc_write_op(c, key ^ 1, 0, src, 100, 301, 0, 0);
	mrc_write_op(c, key, 65500, src, 100, 302, 0, 0);
	mrc_write_op(c, kro, 0, src, 1, 303, MRC_WRITE_SIGNAL, 0);
	mrc_write_op(c, key, 65536, src, 1, 304, MRC_WRITE_SIGNAL, 0);
	expect_completions(c, 4, ck_bad, er_bad,
			   "completion: bad key, range, access");

	/* malformed requests */
	name = "completion: unknown flags in struct mrc_write: EINVAL";
	EXPECT_ERRNO(name, mrc_write_op(c, key, 0, src, 1, 1, 4, 0), EINVAL);
	wr.key = key;
	wr.imm = 1;
	name = "completion: an immediate without MRC_WRITE_IMM: EINVAL";
	EXPECT_ERRNO(name, send_wr(c, &wr, src, 1, sizeof(wr), SOL_MRC,
				   MRC_CMSG_WRITE, 0), EINVAL);
	mrc_write_op(c, key, 0, src, 1, 101, MRC_WRITE_SIGNAL, 0);
	name = "completion: a control buffer too small for one: EINVAL";
	n = 0;
	while (n++ < 100) {
		struct pollfd p = { .fd = c };

		if (poll(&p, 1, 50) == 1 && (p.revents & POLLERR))
			break;
	}
	EXPECT_ERRNO(name, recvmsg(c, &mh, MSG_ERRQUEUE), EINVAL);
	expect_completions(c, 1, ck_one, er_ok,
			   "completion: then read whole");

	/* MRC_OPS_MAX unread stop the next WRITE */
	for (i = 0; i < MRC_OPS_MAX; i++)
		if (mrc_write_op(c, key, i, src, 1, 1000 + i,
				 MRC_WRITE_SIGNAL, 0) != 1)
			break;
	name = "completion: MRC_OPS_MAX signaled WRITEs sent";
	expect_eq(name, MRC_OPS_MAX, i);
	name = "completion: one more, MSG_DONTWAIT: EAGAIN";
	EXPECT_ERRNO(name, mrc_write_op(c, key, 0, src, 1, 9, 0, MSG_DONTWAIT),
		     EAGAIN);
	n = get_completions(c, cs, MRC_OPS_MAX);
	name = "completion: all of them, in order, successful";
	for (i = 0; i < (uint64_t)n; i++)
		if (cs[i].cookie != 1000 + i || cs[i].error)
			break;
	report(n == MRC_OPS_MAX && i == (uint64_t)n, name,
	       "%d read, the %llu-th is %llu, error %d", n,
	       (unsigned long long)i,
	       (unsigned long long)(i < (uint64_t)n ? cs[i].cookie : 0),
	       i < (uint64_t)n ? cs[i].error : 0);
	name = "completion: then the next WRITE goes";
	expect_eq(name, 1, mrc_write_op(c, key, 0, src, 1, 9, MRC_WRITE_SIGNAL,
					MSG_DONTWAIT));
	expect_completions(c, 1, ck_next, er_ok, "completion: and completes");

	/* an outcome not known when the connection ends fails with its
	 * error: the WRITE is placed, the peer closes, our next message
	 * finds it gone (ECONNRESET)
	 */
	mrc_write_op(c, key, 0, src, 100, 701, 0, 0);
	write_fence(c, a, "completion: a fence after it arrives");
	close(a);
	a = -1;
	usleep(100000);
	send(c, src, 10, MSG_NOSIGNAL);
	expect_completions(c, 1, ck_reset, er_reset,
			   "completion: the connection reset");
out:
	if (a >= 0)
		close(a);
	close(c);
	free(region);
	free(cs);
}

/* sendmsg of READ @rd (MRC_CMSG_READ) with @len bytes of iov. */
static ssize_t send_rd(int fd, const struct mrc_read *rd, size_t len,
		       int flags)
{
	char dummy[8] = "";

	return mrc_send_cmsg(fd, SOL_MRC, MRC_CMSG_READ, rd, sizeof(*rd),
			     sizeof(*rd), dummy, len, flags);
}

/* A READ of @len bytes at @off of the peer's region @key into ours
 * @lkey at @loff.
 */
static ssize_t mrc_read_op(int fd, uint64_t key, uint64_t off, uint64_t lkey,
			   uint64_t loff, uint32_t len, uint64_t cookie,
			   uint32_t rflags)
{
	struct mrc_read rd = {
		.key = key, .offset = off, .local_key = lkey,
		.local_offset = loff, .cookie = cookie, .len = len,
		.flags = rflags,
	};

	return send_rd(fd, &rd, 0, 0);
}

/* Does [@from, @to) of @buf hold @byte only? */
static bool all_bytes(const char *buf, size_t from, size_t to, char byte)
{
	for (; from < to; from++)
		if (buf[from] != byte)
			return false;
	return true;
}

/* READs of the peer's memory (MRC_CMSG_READ): its bytes come into our
 * region where the READ names and nowhere else, with a completion when
 * signaled or failed; bad requests are refused at sendmsg() (our side)
 * or fail with the peer's reason; a READ after a WRITE sees it; nothing
 * is placed into a region after its deregistration returns; the peer's
 * application is not woken.
 */
static void test_read(void)
{
	static const uint64_t ck_one[1] = { 11 };
	static const uint64_t ck_mix[3] = { 23, 24, 25 };
	static const int er_mix[3] = { 0, ENOKEY, 0 };
	static const uint64_t ck_bad[3] = { 31, 32, 33 };
	static const int er_bad[3] = { ENOKEY, EACCES, ERANGE };
	static const uint64_t ck_gone[1] = { 41 };
	static const int er_gone[1] = { ENOKEY };
	static const int er_ok[1] = { 0 };
	const size_t rlen = 1 << 20, llen = 1 << 20, pg = 4096;
	char *rbuf, *lbuf, *guard, *fresh, x;
	uint64_t kr, kw, kl, klr, klw, kf, i, sent = 0, bytes = 0;
	struct mrc_completion cs[1];
	struct mrc_read rd = {};
	struct mrc_info ic, ia;
	const char *name;
	int c, a;

	rbuf = malloc(rlen);
	/* our region between two guard pages of 0x5a */
	guard = mmap(NULL, llen + 2 * pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!rbuf || guard == MAP_FAILED || conn_pair(&c, &a)) {
		report(false, "read: setup", "%s", err_name(errno));
		free(rbuf);
		if (guard != MAP_FAILED)
			munmap(guard, llen + 2 * pg);
		return;
	}
	lbuf = guard + pg;
	memset(guard, 0x5a, llen + 2 * pg);
	for (i = 0; i < rlen; i++)
		rbuf[i] = (char)(i * 7 + (i >> 11));
	if (mr_reg(a, rbuf, rlen, MRC_MR_REMOTE_READ, &kr) ||
	    mr_reg(a, rbuf, pg, MRC_MR_REMOTE_WRITE, &kw) ||
	    mr_reg(c, lbuf, llen, MRC_MR_REMOTE_WRITE, &kl) ||
	    mr_reg(c, lbuf, pg, MRC_MR_REMOTE_READ, &klr) ||
	    mr_reg(c, lbuf, pg, MRC_MR_LOCAL_WRITE, &klw)) {
		report(false, "read: regions register", "%s", err_name(errno));
		goto out;
	}

	/* a signaled READ: its bytes, where it said, nothing around them */
	name = "read: a signaled READ of 300000 bytes is sent";
	expect_eq(name, 0, mrc_read_op(c, kr, 12345, kl, 777, 300000, 11,
				       MRC_READ_SIGNAL));
	sent++;
	bytes += 300000;
	expect_completions(c, 1, ck_one, er_ok, "read: signaled");
	name = "read: the bytes are the peer's";
	report(!memcmp(lbuf + 777, rbuf + 12345, 300000), name,
	       "differ at %lld", first_diff(lbuf + 777, rbuf + 12345, 300000));
	name = "read: nothing placed outside the READ's bytes";
	report(all_bytes(guard, 0, pg + 777, 0x5a) &&
	       all_bytes(lbuf, 777 + 300000, llen + pg, 0x5a), name,
	       "a byte around them changed");

	/* unsignaled ones of sizes from 1 byte to the whole region, one
	 * that fails, a signaled one: completions for the last two only;
	 * every byte in place by the last one's
	 */
	memset(lbuf, 0x5a, llen);
	for (i = 0; i < 20; i++) {
		uint32_t len = i == 19 ? 1 : (uint32_t)(1ULL << i) + i;
		uint64_t off = (i * 40961) % (rlen - len + 1);

		if (mrc_read_op(c, kr, off, kl, off, len, 100 + i, 0))
			break;
		sent++;
		bytes += len;
	}
	name = "read: twenty unsignaled READs are sent";
	expect_eq(name, 20, i);
	mrc_read_op(c, kr, 0, kl, 0, 0, 23, MRC_READ_SIGNAL);
	mrc_read_op(c, kr ^ 1, 0, kl, 0, 10, 24, 0);
	mrc_read_op(c, kr, rlen - 5, kl, llen - 5, 5, 25, MRC_READ_SIGNAL);
	sent += 3;
	bytes += 5;
	expect_completions(c, 3, ck_mix, er_mix,
			   "read: empty, failed and signaled ones");
	for (i = 0; i < 20; i++) {
		uint32_t len = i == 19 ? 1 : (uint32_t)(1ULL << i) + i;
		uint64_t off = (i * 40961) % (rlen - len + 1);

		if (memcmp(lbuf + off, rbuf + off, len))
			break;
	}
	name = "read: every unsignaled READ's bytes are in place";
	report(i == 20, name, "the %llu-th differs", (unsigned long long)i);

	/* the peer refuses: no region, not readable, past the end */
	mrc_read_op(c, kr ^ (1ULL << 40), 0, kl, 0, 1, 31, 0);
	mrc_read_op(c, kw, 0, kl, 0, 1, 32, 0);
	mrc_read_op(c, kr, rlen - 10, kl, 0, 11, 33, MRC_READ_SIGNAL);
	sent += 3;
	expect_completions(c, 3, ck_bad, er_bad,
			   "read: bad key, access, range");

	/* refused at once: our side's region, the request itself */
	name = "read: a local key of no region: ENOKEY";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl ^ 1, 0, 1, 1, 0), ENOKEY);
	name = "read: past the local region's end: ERANGE";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl, llen - 1, 2, 1, 0),
		     ERANGE);
	name = "read: into a region of ours not pinned for writing: EACCES";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, klr, 0, 1, 1, 0), EACCES);
	name = "read: a local offset that wraps: ERANGE";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl, ~0ULL, 2, 1, 0), ERANGE);
	name = "read: a remote offset that wraps: EINVAL";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, ~0ULL - 1, kl, 0, 4, 1, 0),
		     EINVAL);
	name = "read: over MRC_READ_LEN_MAX: EINVAL";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl, 0, MRC_READ_LEN_MAX + 1,
				       1, 0), EINVAL);
	name = "read: unknown flags: EINVAL";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl, 0, 1, 1, 2), EINVAL);
	rd.key = kr;
	rd.local_key = kl;
	rd.len = 1;
	name = "read: with bytes to send: EINVAL";
	EXPECT_ERRNO(name, send_rd(c, &rd, 1, 0), EINVAL);
	name = "read: its control message with a WRITE's length: EINVAL";
	EXPECT_ERRNO(name, mrc_send_cmsg(c, SOL_MRC, MRC_CMSG_READ, &rd,
					 sizeof(rd), sizeof(struct mrc_write),
					 NULL, 0, 0), EINVAL);

	/* a READ after a WRITE sees the WRITE */
	x = 0x11;
	memset(lbuf, 0x5a, 64);
	if (mr_reg(a, rbuf, pg, MRC_MR_REMOTE_WRITE | MRC_MR_REMOTE_READ,
		   &kw)) {
		report(false, "read: a read-write region", "%s",
		       err_name(errno));
		goto out;
	}
	mrc_write(c, kw, 100, &x, 1);
	mrc_read_op(c, kw, 99, klw, 0, 3, 11, MRC_READ_SIGNAL);
	sent++;
	bytes += 3;
	expect_completions(c, 1, ck_one, er_ok, "read: after a WRITE");
	name = "read: a READ after a WRITE sees its byte";
	report(lbuf[1] == 0x11 && lbuf[0] == rbuf[99] && lbuf[3] == 0x5a,
	       name, "read %02x %02x %02x", lbuf[0], lbuf[1], lbuf[3]);

	/* into memory never touched (mapped to the shared zero page until
	 * written): the READ's bytes go into its own pages, and a fresh
	 * mapping still reads zeros
	 */
	fresh = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED || mr_reg(c, fresh, 2 * pg, MRC_MR_LOCAL_WRITE,
					  &kf)) {
		report(false, "read: untouched memory registers", "%s",
		       err_name(errno));
		goto out;
	}
	mrc_read_op(c, kr, 0, kf, 0, 2 * pg, 11, MRC_READ_SIGNAL);
	sent++;
	bytes += 2 * pg;
	expect_completions(c, 1, ck_one, er_ok, "read: into untouched memory");
	name = "read: its bytes are in untouched memory";
	report(!memcmp(fresh, rbuf, 2 * pg), name, "differ at %lld",
	       first_diff(fresh, rbuf, 2 * pg));
	mr_dereg(c, kf);
	munmap(fresh, 2 * pg);
	fresh = mmap(NULL, 2 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	name = "read: a fresh mapping still reads zeros (the zero page)";
	report(fresh != MAP_FAILED && all_bytes(fresh, 0, 2 * pg, 0), name,
	       "%s", fresh == MAP_FAILED ? err_name(errno) : "not zero");
	if (fresh != MAP_FAILED)
		munmap(fresh, 2 * pg);

	/* the peer deregisters its region: the next READ fails */
	mr_dereg(a, kr);
	mrc_read_op(c, kr, 0, kl, 0, 100, 41, 0);
	sent++;
	expect_completions(c, 1, ck_gone, er_gone,
			   "read: the peer's region deregistered");

	/* ours deregistered with a READ in flight: nothing placed after
	 * that returns (the memory stays mapped: we look)
	 */
	if (mr_reg(a, rbuf, rlen, MRC_MR_REMOTE_READ, &kr)) {
		report(false, "read: register again", "%s", err_name(errno));
		goto out;
	}
	mrc_read_op(c, kr, 0, kl, 0, rlen, 51, MRC_READ_SIGNAL);
	sent++;
	mr_dereg(c, kl);
	memset(lbuf, 0x5a, llen);
	name = "read: a READ whose region went away ends";
	report(get_completions(c, cs, 1) == 1 && cs[0].cookie == 51 &&
	       (cs[0].error == 0 || cs[0].error == ENOKEY), name,
	       "cookie %llu error %d", (unsigned long long)cs[0].cookie,
	       cs[0].error);
	name = "read: nothing placed after the deregistration returned";
	report(all_bytes(guard, 0, llen + 2 * pg, 0x5a), name,
	       "a byte changed");
	name = "read: then with no region: ENOKEY";
	EXPECT_ERRNO(name, mrc_read_op(c, kr, 0, kl, 0, 1, 1, 0), ENOKEY);

	/* the peer's application saw none of it */
	name = "read: nothing for the peer's reader";
	EXPECT_ERRNO(name, recv(a, &x, 1, MSG_DONTWAIT), EAGAIN);
	if (get_info(c, &ic) || get_info(a, &ia) || ic.mrci_version < 6) {
		report(false, "read: MRC_INFO version 6", "%s",
		       err_name(errno));
		goto out;
	}
	expect_eq("read: MRC_INFO mrci_reads_sent", sent, ic.mrci_reads_sent);
	name = "read: MRC_INFO mrci_read_bytes_in";
	report(ic.mrci_read_bytes_in >= bytes &&
	       ic.mrci_read_bytes_in <= bytes + rlen, name, "%llu, %llu",
	       (unsigned long long)ic.mrci_read_bytes_in,
	       (unsigned long long)bytes);
	expect_eq("read: MRC_INFO mrci_read_bytes_out", bytes + rlen,
		  ia.mrci_read_bytes_out);
	expect_eq("read: MRC_INFO nothing waits", 0,
		  ic.mrci_ops_waiting + ic.mrci_ops_unread +
		  ia.mrci_reads_queued);
out:
	close(a);
	close(c);
	free(rbuf);
	munmap(guard, llen + 2 * pg);
}

/* recvmsg() on @fd: its return, *@flags its msg_flags, *@n the
 * MRC_CMSG_IMM it carried if any (*@got set), @buf up to @len bytes.
 */
static ssize_t recv_imm(int fd, void *buf, size_t len, int rflags,
			struct mrc_imm *n, bool *got, int *flags)
{
	union {
		char b[CMSG_SPACE(sizeof(struct mrc_imm))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.b, .msg_controllen = sizeof(u.b),
	};
	struct cmsghdr *cm;
	ssize_t ret;

	*got = false;
	ret = recvmsg(fd, &mh, rflags);
	*flags = mh.msg_flags;
	for (cm = CMSG_FIRSTHDR(&mh); ret >= 0 && cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_MRC && cm->cmsg_type == MRC_CMSG_IMM) {
			memcpy(n, CMSG_DATA(cm), sizeof(*n));
			*got = true;
		}
	return ret;
}

/* WRITEs with immediate (MRC_WRITE_IMM): the target's recvmsg() returns
 * an empty message with MRC_CMSG_IMM (key, offset, length, immediate)
 * once every byte is in place, in order with the messages; none for a
 * WRITE that failed.
 */
static void test_write_imm(void)
{
	static const uint64_t ck_fail[1] = { 52 };
	static const int er_fail[1] = { EACCES };
	const size_t rlen = 1 << 20;
	char *region, *src, buf[16];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct mrc_imm n = {};
	uint64_t key, kro;
	const char *name;
	int c, a, flags;
	ssize_t r;
	bool got;

	region = calloc(1, rlen);
	src = malloc(rlen);
	if (!region || !src || conn_pair(&c, &a)) {
		report(false, "imm: setup", "%s", err_name(errno));
		free(region);
		free(src);
		return;
	}
	if (mr_reg(a, region, rlen, MRC_MR_REMOTE_WRITE, &key) ||
	    mr_reg(a, region, 4096, MRC_MR_REMOTE_READ, &kro)) {
		report(false, "imm: regions register", "%s", err_name(errno));
		goto out;
	}
	pattern(src, rlen, 5);

	/* 300000 bytes at 7000, several packets: the notification comes
	 * with every byte in place
	 */
	name = "imm: a WRITE with immediate is sent";
	expect_eq(name, 300000, mrc_write_op_imm(c, key, 7000, src, 300000,
						 51, 0, 0xabcd0123));
	name = "imm: the peer reads an empty message";
	expect_eq(name, 0, recv_imm(a, buf, sizeof(buf), 0, &n, &got,
				    &flags));
	report(got && (flags & MSG_EOR), "imm: with MRC_CMSG_IMM and MSG_EOR",
	       "cmsg %d flags %#x", got, flags);
	expect_eq("imm: its key", (long long)key, (long long)n.key);
	expect_eq("imm: its offset", 7000, (long long)n.offset);
	expect_eq("imm: its length", 300000, n.len);
	expect_eq("imm: its immediate", 0xabcd0123, n.imm);
	expect_eq("imm: the bytes are in place then (first difference at)",
		  -1, first_diff(region + 7000, src, 300000));

	/* in order with messages; MSG_PEEK leaves it; none for a failure */
	send(c, "m1", 2, 0);
	mrc_write_op_imm(c, kro, 0, src, 100, 52, 0, 7);
	mrc_write_op_imm(c, key, 0, src, 0, 53, 0, 8);
	send(c, "m2", 2, 0);
	name = "imm: a message before it comes first";
	expect_eq(name, 2, recv_imm(a, buf, sizeof(buf), 0, &n, &got, &flags));
	name = "imm: MSG_PEEK returns the notification and leaves it";
	report(recv_imm(a, buf, sizeof(buf), MSG_PEEK, &n, &got, &flags) == 0 &&
	       got && n.imm == 8, name, "got %d imm %u", got, n.imm);
	name = "imm: then it is read: the empty WRITE's (the failed one has none)";
	report(recv_imm(a, buf, sizeof(buf), 0, &n, &got, &flags) == 0 &&
	       got && n.imm == 8 && n.len == 0 && n.offset == 0, name,
	       "got %d imm %u len %u", got, n.imm, n.len);
	name = "imm: the message after it follows";
	report(recv_imm(a, buf, sizeof(buf), 0, &n, &got, &flags) == 2 &&
	       !got && !memcmp(buf, "m2", 2), name, "got %d", got);
	expect_completions(c, 1, ck_fail, er_fail,
			   "imm: the failed WRITE with immediate");

	/* without a control buffer: MSG_CTRUNC */
	mrc_write_op_imm(c, key, 0, src, 10, 54, 0, 9);
	name = "imm: no control buffer: an empty message with MSG_CTRUNC";
	r = recvmsg(a, &mh, 0);
	report(r == 0 && (mh.msg_flags & MSG_CTRUNC) &&
	       (mh.msg_flags & MSG_EOR), name, "%zd, flags %#x", r,
	       mh.msg_flags);
out:
	close(c);
	close(a);
	free(region);
	free(src);
}

int main(int argc, char **argv)
{
	sigset_t pipe_set;
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm') {
			fprintf(stderr, "usage: %s -m MAX_MSG_SIZE\n", argv[0]);
			return 2;
		}
		max_msg = strtoul(optarg, NULL, 0);
	}
	if (!max_msg) {
		fprintf(stderr, "usage: %s -m MAX_MSG_SIZE\n", argv[0]);
		return 2;
	}
	/* SIGPIPE stays pending, for the checks to see */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	alarm(300);	/* a hung call fails the run rather than hang it */

	for (i = 0; i < ARRAY_SIZE(fams); i++) {
		cur = &fams[i];
		test_connect();
		test_bind();
		test_accept();
		test_send();
		test_send_fault_midway();
		test_shutdown_midway();
		test_recv();
		test_recv_pieces();
		test_info();
		test_close();
		test_poll();
	}
	test_cross();
	cur = &fams[0];
	test_mr();
	test_write();
	test_completions();
	test_write_imm();
	test_read();
	cur = &fams[1];
	test_write();
	test_completions();
	test_write_imm();
	test_read();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
