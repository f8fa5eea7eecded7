/* SPDX-License-Identifier: GPL-2.0 */
/* The one-sided operations of an mrc socket, for the selftests and the
 * benchmark: a sendmsg() with one control message of level SOL_MRC.
 */
#ifndef MRC_OPS_H
#define MRC_OPS_H

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/mrc.h>

/* Room for the largest argument, and a malformed one a little larger. */
#define MRC_OPS_CMSG_MAX	(sizeof(struct mrc_read) + 16)

/**
 * mrc_send_cmsg() - sendmsg() with one control message
 * @fd: the socket
 * @level: the control message's level (SOL_MRC)
 * @type: its type (MRC_CMSG_WRITE, MRC_CMSG_READ)
 * @arg: its data
 * @arglen: bytes of @arg
 * @clen: the length it says it has (@arglen; another for a malformed one,
 *        at most MRC_OPS_CMSG_MAX; bytes past @arglen are zero)
 * @data: the bytes to send
 * @len: their number
 * @flags: sendmsg()'s
 *
 * Return: sendmsg()'s.
 */
static inline ssize_t mrc_send_cmsg(int fd, int level, int type,
				    const void *arg, size_t arglen,
				    size_t clen, const void *data, size_t len,
				    int flags)
{
	union {
		char buf[CMSG_SPACE(MRC_OPS_CMSG_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(clen),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	memset(u.buf, 0, sizeof(u.buf));
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(clen);
	memcpy(CMSG_DATA(cm), arg, arglen < clen ? arglen : clen);
	return sendmsg(fd, &mh, flags);
}

/* A WRITE @wr of @len bytes at @data (MRC_CMSG_WRITE): sendmsg()'s. */
static inline ssize_t mrc_send_write(int fd, const struct mrc_write *wr,
				     const void *data, size_t len, int flags)
{
	return mrc_send_cmsg(fd, SOL_MRC, MRC_CMSG_WRITE, wr, sizeof(*wr),
			     sizeof(*wr), data, len, flags);
}

/* A READ @rd (MRC_CMSG_READ), no bytes: 0 or -1 (errno). */
static inline int mrc_send_read(int fd, const struct mrc_read *rd, int flags)
{
	return mrc_send_cmsg(fd, SOL_MRC, MRC_CMSG_READ, rd, sizeof(*rd),
			     sizeof(*rd), NULL, 0, flags) ? -1 : 0;
}

#endif /* MRC_OPS_H */
