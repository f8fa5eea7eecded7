// SPDX-License-Identifier: GPL-2.0
/* mrc_sock: socket-level probes for the selftests.
 *
 *   mrc_sock create FAMILY [COUNT]   create and close COUNT sockets
 *   mrc_sock info FAMILY             print domain, type and protocol
 *   mrc_sock call FAMILY CALL        make CALL on a new socket, print
 *                                    OK or the errno name
 *   mrc_sock hold FAMILY FILE        create a socket, create FILE, then
 *                                    wait until killed
 *
 * FAMILY is inet or inet6.  Errors print the errno name (EPROTONOSUPPORT)
 * on stdout so scripts can compare it; exit status 1 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/mrc.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EINVAL: return "EINVAL";
	case ENOTCONN: return "ENOTCONN";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case ENOBUFS: return "ENOBUFS";
	default: return strerror(e);
	}
}

static int family_of(const char *s)
{
	if (!strcmp(s, "inet"))
		return AF_INET;
	if (!strcmp(s, "inet6"))
		return AF_INET6;
	fprintf(stderr, "mrc_sock: family must be inet or inet6\n");
	exit(2);
}

static int mrc_socket(int family)
{
	int fd = socket(family, SOCK_SEQPACKET, IPPROTO_MRC);

	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		exit(1);
	}
	return fd;
}

/* A loopback address of @family with mrc port 1000. */
static socklen_t loopback(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(1000);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(1000);
	sin6->sin6_addr = in6addr_loopback;
	return sizeof(*sin6);
}

static int do_call(int family, const char *call)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(family, &ss);
	int fd = mrc_socket(family);
	char buf[16] = "x";
	int ret;

	if (!strcmp(call, "bind"))
		ret = bind(fd, (struct sockaddr *)&ss, len);
	else if (!strcmp(call, "connect"))
		ret = connect(fd, (struct sockaddr *)&ss, len);
	else if (!strcmp(call, "listen"))
		ret = listen(fd, 8);
	else if (!strcmp(call, "accept"))
		ret = accept(fd, NULL, NULL);
	else if (!strcmp(call, "send"))
		ret = sendto(fd, buf, 1, MSG_DONTWAIT, (struct sockaddr *)&ss,
			     len);
	else if (!strcmp(call, "recv"))
		ret = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	else if (!strcmp(call, "shutdown"))
		ret = shutdown(fd, SHUT_RDWR);
	else if (!strcmp(call, "getsockname"))
		ret = getsockname(fd, (struct sockaddr *)&ss, &len);
	else
		ret = -2;
	if (ret == -2) {
		fprintf(stderr, "mrc_sock: unknown call %s\n", call);
		exit(2);
	}
	if (ret < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	printf("OK\n");
	close(fd);
	return 0;
}

static int do_info(int family)
{
	int fd = mrc_socket(family);
	int domain, type, protocol;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len)) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	printf("domain=%d type=%d protocol=%d\n", domain, type, protocol);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int family, fd, i, count;

	if (argc < 3) {
		fprintf(stderr, "usage: mrc_sock create|info|call|hold FAMILY [ARG]\n");
		return 2;
	}
	family = family_of(argv[2]);

	if (!strcmp(argv[1], "create")) {
		count = argc > 3 ? atoi(argv[3]) : 1;
		for (i = 0; i < count; i++)
			close(mrc_socket(family));
		printf("OK\n");
		return 0;
	}
	if (!strcmp(argv[1], "info"))
		return do_info(family);
	if (!strcmp(argv[1], "call") && argc > 3)
		return do_call(family, argv[3]);
	if (!strcmp(argv[1], "hold") && argc > 3) {
		fd = mrc_socket(family);
		i = open(argv[3], O_CREAT | O_WRONLY, 0600);
		if (i < 0) {
			perror(argv[3]);
			return 1;
		}
		close(i);
		pause();
		close(fd);
		return 0;
	}
	fprintf(stderr, "mrc_sock: unknown command %s\n", argv[1]);
	return 2;
}
