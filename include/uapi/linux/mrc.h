/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mrc: multipath reliable message connections over UDP.
 * The socket API and the generic netlink API, for userspace.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>

/* socket(AF_INET or AF_INET6, SOCK_SEQPACKET, IPPROTO_MRC).  The number is
 * from the experimental range of RFC 3692 and never appears on the wire.
 */
#define IPPROTO_MRC		254

/* Level for mrc's own socket options. */
#define SOL_MRC			IPPROTO_MRC

/* Defaults of a namespace's settings (see enum mrc_config_attr). */
#define MRC_DEFAULT_UDP_PORT		4797
#define MRC_DEFAULT_RTO_MIN_US		10000
#define MRC_DEFAULT_RTO_MAX_US		2000000
#define MRC_DEFAULT_CONN_TIMEOUT_MS	15000
#define MRC_DEFAULT_MAX_MSG_SIZE	(64U << 20)
#define MRC_DEFAULT_EV_COUNT		128
#define MRC_DEFAULT_EV_PORT_MIN		49152
#define MRC_DEFAULT_EV_PORT_MAX		65535
#define MRC_DEFAULT_EV_SPARES		32
#define MRC_DEFAULT_EV_POLICY		MRC_EV_POLICY_SPRAY
#define MRC_DEFAULT_PROBE_INTERVAL_MS	100
#define MRC_DEFAULT_CC			MRC_CC_NSCC
#define MRC_DEFAULT_CC_TARGET_DELAY_US	1000
#define MRC_DEFAULT_CC_AI		1
#define MRC_DEFAULT_CC_MD		512	/* of 1024: halve on loss */
#define MRC_DEFAULT_CC_INIT_CWND	10
#define MRC_DEFAULT_CC_MAX_CWND		1024
#define MRC_DEFAULT_ACK_COALESCE	8
#define MRC_DEFAULT_ACK_DELAY_US	50
#define MRC_DEFAULT_FLOWLET		1

/* Limits of the settings. */
#define MRC_MAX_MSG_SIZE_LIMIT		(1U << 30)
#define MRC_EV_COUNT_LIMIT		1024
#define MRC_EV_SPARES_LIMIT		1024
#define MRC_ACK_COALESCE_LIMIT		17	/* one ACK's echoes (wire) */
#define MRC_ACK_DELAY_US_LIMIT		10000
#define MRC_FLOWLET_LIMIT		16

/* How a connection spreads its packets over its entropy values (EVs). */
enum mrc_ev_policy {
	MRC_EV_POLICY_SPRAY,	/* rotate over every usable EV */
	MRC_EV_POLICY_SINGLE,	/* one EV for the whole connection, like a
				 * classic ECMP-hashed flow (for comparison)
				 */
	MRC_EV_POLICY_REPS,	/* reuse the EVs whose packets came back
				 * clean, explore the rotation otherwise
				 */
};

/* Congestion control algorithms (see Documentation/networking/mrc.rst). */
enum mrc_cc_algo {
	MRC_CC_NSCC,		/* CE fraction and queueing delay (default) */
	MRC_CC_DCTCP,		/* CE fraction only */
	MRC_CC_RENO,		/* loss only, for comparison */
};

/* State of one entropy value of a connection. */
enum mrc_ev_state {
	MRC_EV_GOOD,		/* in use */
	MRC_EV_SKIP,		/* returned a CE mark: skipped for one round */
	MRC_EV_BAD,		/* lost a packet: not used, probed until it
				 * answers
				 */
	MRC_EV_DENIED,		/* not used, by the administrator's order */
};

/* getsockopt(SOL_MRC, ...) */
#define MRC_INFO		1	/* struct mrc_info */
#define MRC_EV_COUNT		2	/* int: EVs of the connection (1 to
					 * MRC_EV_COUNT_LIMIT, 0 = the
					 * namespace's setting); before
					 * connect() or listen()
					 */
#define MRC_EV_POLICY		3	/* int: enum mrc_ev_policy, -1 = the
					 * namespace's setting; before
					 * connect() or listen()
					 */

#define MRC_CC			4	/* int: enum mrc_cc_algo, -1 = the
					 * namespace's setting; before
					 * connect() or listen()
					 */

/* Memory regions (mrc(7) "Memory regions"): MRC_MR_REG is a getsockopt
 * whose buffer goes both ways (struct mrc_mr_reg in, its key filled in),
 * as TCP_ZEROCOPY_RECEIVE's does; MRC_MR_DEREG a setsockopt of the key.
 */
#define MRC_MR_REG		5	/* struct mrc_mr_reg */
#define MRC_MR_DEREG		6	/* __u64: a key MRC_MR_REG returned */

/* What a region lets the peer do (struct mrc_mr_reg.access). */
#define MRC_MR_REMOTE_WRITE	0x1
#define MRC_MR_REMOTE_READ	0x2
#define MRC_MR_LOCAL_WRITE	0x4	/* this socket's READs may put bytes
					 * into it (so may the peer's WRITEs
					 * with MRC_MR_REMOTE_WRITE): its pages
					 * are pinned for writing
					 */

#define MRC_MR_MAX		1024		/* regions per socket */
#define MRC_MR_LEN_MAX		(1ULL << 36)	/* bytes per region */

/**
 * struct mrc_mr_reg - register a memory region (MRC_MR_REG)
 * @addr: its first byte, in the caller's address space
 * @len: its bytes, 1 to MRC_MR_LEN_MAX; [addr, addr + len) must not wrap
 * @access: MRC_MR_REMOTE_WRITE, MRC_MR_REMOTE_READ and/or
 *          MRC_MR_LOCAL_WRITE
 * @flags: 0
 * @key: out: the region's key, valid on this socket only
 */
struct mrc_mr_reg {
	__u64	addr;
	__u64	len;
	__u32	access;
	__u32	flags;
	__u64	key;
};

/* Control messages, level SOL_MRC (mrc(7) "One-sided operations"). */
#define MRC_CMSG_WRITE		1	/* sendmsg: struct mrc_write: the iov's
					 * bytes go into the peer's region, not
					 * its receive queue
					 */
#define MRC_CMSG_COMPLETION	2	/* recvmsg(MSG_ERRQUEUE): struct
					 * mrc_completion, one per operation
					 * completed
					 */
#define MRC_CMSG_IMM		3	/* recvmsg: struct mrc_imm, the
					 * notification of a WRITE with
					 * immediate
					 */
#define MRC_CMSG_READ		4	/* sendmsg, with no bytes: struct
					 * mrc_read: bytes of the peer's region
					 * come into one of this socket's
					 */

#define MRC_WRITE_LEN_MAX	(1U << 30)	/* bytes per WRITE */
#define MRC_READ_LEN_MAX	(1U << 30)	/* bytes per READ */

/* Operations a socket has sent whose completion is not yet known, or
 * known and not yet read: a WRITE past them waits (EAGAIN non-blocking).
 */
#define MRC_OPS_MAX		256

/* struct mrc_write.flags */
#define MRC_WRITE_SIGNAL	0x1	/* a completion also when it succeeds */
#define MRC_WRITE_IMM		0x2	/* with immediate: the peer reads a
					 * notification once every byte is in
					 * place (MRC_CMSG_IMM)
					 */

/**
 * struct mrc_write - a WRITE into the peer's memory (MRC_CMSG_WRITE)
 * @key: the peer's region, a key its MRC_MR_REG returned
 * @offset: where in that region the first byte goes; offset + length
 *          must not pass 2^64
 * @cookie: returned in the operation's completion
 * @flags: MRC_WRITE_SIGNAL (a completion even when it succeeds),
 *         MRC_WRITE_IMM (a notification for the peer), or 0
 * @imm: with MRC_WRITE_IMM, the value in the peer's notification; else 0
 */
struct mrc_write {
	__u64	key;
	__u64	offset;
	__u64	cookie;
	__u32	flags;
	__u32	imm;
};

/* struct mrc_read.flags */
#define MRC_READ_SIGNAL		MRC_WRITE_SIGNAL	/* a completion also
							 * when it succeeds
							 */

/**
 * struct mrc_read - a READ of the peer's memory (MRC_CMSG_READ)
 * @key: the peer's region, a key its MRC_MR_REG returned
 * @offset: where in it the first byte to read is
 * @local_key: where the bytes go: one of this socket's regions, with
 *             MRC_MR_LOCAL_WRITE or MRC_MR_REMOTE_WRITE
 * @local_offset: where in it the first byte goes
 * @cookie: returned in the operation's completion
 * @len: the bytes, 0 to MRC_READ_LEN_MAX
 * @flags: MRC_READ_SIGNAL or 0
 */
struct mrc_read {
	__u64	key;
	__u64	offset;
	__u64	local_key;
	__u64	local_offset;
	__u64	cookie;
	__u32	len;
	__u32	flags;
};

/**
 * struct mrc_imm - a WRITE with immediate is in place (MRC_CMSG_IMM):
 * recvmsg() returns it as an empty message, in order with the messages
 * @key: the region written, the key of one of this socket's regions
 * @offset: where in it the WRITE's first byte went
 * @len: the WRITE's bytes
 * @imm: the sender's struct mrc_write.imm
 */
struct mrc_imm {
	__u64	key;
	__u64	offset;
	__u32	len;
	__u32	imm;
};

/**
 * struct mrc_completion - an operation's end (MRC_CMSG_COMPLETION)
 * @cookie: the operation's struct mrc_write.cookie or mrc_read.cookie
 * @error: 0, or why it failed, a positive errno: ENOKEY (no region of the
 *         connection has the key; a READ: or its local region was
 *         deregistered before every byte came), EACCES (the region does
 *         not allow it),
 *         ERANGE (bytes past the region's end), or the error that ended
 *         the connection (ECONNRESET, ETIMEDOUT, ...) before its outcome
 *         was known
 * @reserved: 0
 */
struct mrc_completion {
	__u64	cookie;
	__s32	error;
	__u32	reserved;
};

#define MRC_INFO_VERSION	6

/**
 * struct mrc_info - state and counters of one connection (MRC_INFO)
 *
 * Versioned like tcp_info: fields are only ever added at the end; the
 * kernel copies min(optlen, sizeof) bytes and mrci_version says which
 * fields it knows.
 */
struct mrc_info {
	__u8	mrci_version;		/* MRC_INFO_VERSION */
	__u8	mrci_state;		/* TCP_ESTABLISHED, TCP_LISTEN, ... */
	__u16	mrci_mss;		/* payload bytes per packet */
	__u16	mrci_evs;		/* EV positions (the EV count); one
					 * is unserved when no usable spare
					 * is left
					 */
	__u16	mrci_pad;
	__u32	mrci_local_cid;
	__u32	mrci_peer_cid;
	__u32	mrci_srtt_us;
	__u32	mrci_rttvar_us;
	__u32	mrci_rto_us;
	__u32	mrci_cwnd;		/* packets */
	__u32	mrci_ssthresh;		/* packets */
	__u32	mrci_in_flight;		/* packets */
	__u32	mrci_peer_rwnd;		/* bytes */
	__u32	mrci_rcv_window;	/* bytes we advertise */
	__u64	mrci_bytes_sent;	/* acknowledged */
	__u64	mrci_bytes_received;	/* delivered in order */
	__u64	mrci_msgs_sent;		/* acknowledged */
	__u64	mrci_msgs_received;	/* delivered in order */
	__u64	mrci_pkts_sent;		/* transmissions */
	__u64	mrci_pkts_received;
	__u64	mrci_retrans;
	__u64	mrci_lost;
	__u64	mrci_rto_count;
	__u64	mrci_ce;		/* CE marks, both directions */
	__u32	mrci_snd_una;		/* oldest unacknowledged PSN */
	__u32	mrci_snd_nxt;		/* next new PSN */
	__u32	mrci_rcv_nxt;		/* next PSN expected in order */
	__u32	mrci_pad2;
	/* version 2 */
	__u16	mrci_ev_good;		/* EVs per state, spares included */
	__u16	mrci_ev_skip;
	__u16	mrci_ev_bad;
	__u16	mrci_ev_denied;
	__u8	mrci_ev_policy;		/* enum mrc_ev_policy */
	__u8	mrci_pad3[3];
	__u32	mrci_ev_changes;	/* EV state changes */
	/* version 3 */
	__u8	mrci_cc;		/* enum mrc_cc_algo */
	__u8	mrci_pad4[3];
	__u32	mrci_cc_alpha;		/* EWMA of the CE-marked fraction,
					 * 1/1024
					 */
	__u32	mrci_base_rtt_us;	/* lowest RTT seen */
	__u32	mrci_queue_delay_us;	/* mean RTT above it, last round */
	/* version 4 */
	__u32	mrci_mr_count;		/* memory regions registered */
	__u32	mrci_pad5;
	__u64	mrci_mr_bytes;		/* their bytes */
	/* version 5 */
	__u64	mrci_writes_sent;	/* WRITEs queued whole */
	__u64	mrci_write_bytes_in;	/* bytes the peer's WRITEs placed
					 * in this socket's regions
					 */
	__u64	mrci_write_refused;	/* the peer's WRITE packets refused */
	/* version 6 */
	__u64	mrci_reads_sent;	/* READs queued */
	__u64	mrci_read_bytes_in;	/* bytes our READs placed here */
	__u64	mrci_read_bytes_out;	/* bytes of our regions the peer's
					 * READs were sent
					 */
	__u32	mrci_ops_waiting;	/* operations whose outcome is not
					 * known yet
					 */
	__u32	mrci_ops_unread;	/* operations whose outcome is known
					 * and not passed by the reader of
					 * completions yet
					 */
	__u32	mrci_reads_queued;	/* the peer's READs not yet served
					 * whole
					 */
	__u32	mrci_pad6;
};

/* Generic netlink family; see Documentation/netlink/specs/mrc.yaml. */
#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	1
#define MRC_GENL_MCGRP_EVENTS	"events"

/* What happened to a connection (MRC_CMD_CONN_EVENT). */
enum mrc_conn_event {
	MRC_CONN_EVENT_UP,	/* established (connect or accept side) */
	MRC_CONN_EVENT_CLOSED,	/* closed in order */
	MRC_CONN_EVENT_FAILED,	/* timed out, reset or refused
				 * (MRC_A_CONN_ERROR says which)
				 */
};

/* Why an EV changed state (MRC_CMD_PATH_EVENT); the counters of the same
 * name count them.
 */
enum mrc_path_cause {
	MRC_PATH_CAUSE_LOSS,	/* BAD: a packet sent on it was lost */
	MRC_PATH_CAUSE_RTO,	/* BAD: a retransmission timeout */
	MRC_PATH_CAUSE_CE,	/* SKIP: a CE mark came back on it */
	MRC_PATH_CAUSE_PROBE,	/* GOOD: a probe (or data) sent on it while
				 * BAD was answered
				 */
	MRC_PATH_CAUSE_DENIED,	/* DENIED by the administrator */
	MRC_PATH_CAUSE_ALLOWED,	/* GOOD: allowed again */
	MRC_PATH_CAUSE_RECYCLED,	/* GOOD: a spare that stayed BAD got a
					 * new port (MRC_A_PATH_PORT)
					 */
	MRC_PATH_CAUSE_ACK,	/* BAD: the peer reported an ACK sent on
				 * it lost (its reverse path loses)
				 */
	MRC_PATH_CAUSE_DELAY,	/* SKIP: its packets' RTT is twice the
				 * connection's (its path queues)
				 */
};

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_CONFIG_GET,
	MRC_CMD_CONFIG_SET,
	MRC_CMD_STATS_GET,
	MRC_CMD_CONN_GET,	/* dump: connections (attribute set "conn") */
	MRC_CMD_PATH_GET,	/* dump: the EVs of one connection ("path") */
	MRC_CMD_PATH_SET,	/* deny or allow EVs ("path") */
	MRC_CMD_CONN_EVENT,	/* notification: a connection came up, closed
				 * or failed ("conn", MRC_A_CONN_EVENT)
				 */
	MRC_CMD_PATH_EVENT,	/* notification: an EV changed state ("path",
				 * MRC_A_PATH_CAUSE); rate-limited
				 */

	__MRC_CMD_MAX,
	MRC_CMD_MAX = __MRC_CMD_MAX - 1
};

/* Attribute set "config": the settings of one network namespace.  A new
 * namespace starts from the defaults (MRC_DEFAULT_*).
 */
enum mrc_config_attr {
	MRC_A_CONFIG_UNSPEC,
	MRC_A_CONFIG_PORT,		/* u16: UDP encapsulation port */
	MRC_A_CONFIG_RTO_MIN_US,	/* u32: retransmission timeout's least
					 * allowance over the smoothed RTT
					 */
	MRC_A_CONFIG_RTO_MAX_US,	/* u32: retransmission timeout ceiling */
	MRC_A_CONFIG_CONN_TIMEOUT_MS,	/* u32: nothing acknowledged this long:
					 * the connection fails (ETIMEDOUT)
					 */
	MRC_A_CONFIG_MAX_MSG_SIZE,	/* u32: largest message, bytes */
	MRC_A_CONFIG_EV_COUNT,		/* u16: entropy values per connection */
	MRC_A_CONFIG_EV_PORT_MIN,	/* u16: lowest UDP source port (EV) */
	MRC_A_CONFIG_EV_PORT_MAX,	/* u16: highest UDP source port (EV) */
	MRC_A_CONFIG_EV_SPARES,		/* u16: spare EVs per connection */
	MRC_A_CONFIG_EV_POLICY,		/* u8: enum mrc_ev_policy */
	MRC_A_CONFIG_PROBE_INTERVAL_MS,	/* u32: probes of BAD EVs this often */
	MRC_A_CONFIG_CC,		/* u8: enum mrc_cc_algo */
	MRC_A_CONFIG_CC_TARGET_DELAY_US,	/* u32: queueing delay nscc aims at */
	MRC_A_CONFIG_CC_AI,		/* u32: packets added per round trip */
	MRC_A_CONFIG_CC_MD,		/* u32: largest decrease, 1/1024 of the
					 * window (on loss: all of it)
					 */
	MRC_A_CONFIG_CC_INIT_CWND,	/* u32: initial window, packets */
	MRC_A_CONFIG_CC_MAX_CWND,	/* u32: largest window, packets */
	MRC_A_CONFIG_ACK_COALESCE,	/* u8: data packets one ACK may
					 * acknowledge, 1 for an ACK per packet
					 */
	MRC_A_CONFIG_ACK_DELAY_US,	/* u32: longest an ACK is held back */
	MRC_A_CONFIG_FLOWLET,		/* u8: new data packets sent in a row on
					 * one EV, as one UDP GSO datagram; 1
					 * for a new EV per packet
					 */

	__MRC_A_CONFIG_MAX,
	MRC_A_CONFIG_MAX = __MRC_A_CONFIG_MAX - 1
};

/* Attribute set "stats": the counters of one network namespace, each u64.
 * Every drop and every retransmission has a reason of its own.
 */
enum mrc_stats_attr {
	MRC_A_STATS_UNSPEC,
	MRC_A_STATS_PAD,
	MRC_A_STATS_IN_PKTS,		/* datagrams the UDP tunnel handed to mrc */
	MRC_A_STATS_DROP_SHORT,	/* dropped: shorter than its header */
	MRC_A_STATS_DROP_VERSION,	/* dropped: unknown protocol version */
	MRC_A_STATS_DROP_TYPE,		/* dropped: unknown packet type */
	MRC_A_STATS_DROP_NO_CONN,	/* dropped: no connection with that id */
	MRC_A_STATS_DROP_BAD_FLAGS,	/* dropped: unknown or misplaced flag */
	MRC_A_STATS_DROP_BAD_LEN,	/* dropped: length fields disagree with the datagram */
	MRC_A_STATS_DROP_BAD_CID,	/* dropped: connection ids do not match the connection */
	MRC_A_STATS_DROP_TOO_BIG,	/* dropped: message larger than max_msg_size */
	MRC_A_STATS_DROP_BAD_FIELD,	/* dropped: reserved field set, port zero or wrong */
	MRC_A_STATS_DROP_NO_LISTENER,	/* SYN, CONFIRM: nobody listens on the port (refused) */
	MRC_A_STATS_DROP_BACKLOG,	/* dropped: accept queue or socket backlog full */
	MRC_A_STATS_DROP_NOMEM,	/* dropped: out of memory */
	MRC_A_STATS_DROP_STATE,	/* dropped: not expected in the connection's state */
	MRC_A_STATS_DROP_OUT_OF_WINDOW,	/* data dropped: PSN beyond the receive window */
	MRC_A_STATS_DROP_AFTER_FIN,	/* data dropped: PSN after the peer's FIN */
	MRC_A_STATS_DROP_RCVBUF,	/* data dropped: receive buffer overrun by the peer */
	MRC_A_STATS_DROP_BAD_SEQUENCE,	/* data dropped: message id or offset out of sequence */
	MRC_A_STATS_DROP_ACK_UNSENT,	/* ACK dropped: acknowledges data never sent */
	MRC_A_STATS_ACK_OLD,		/* ACK ignored: older than one already processed */
	MRC_A_STATS_DUP_DATA,		/* data received again (already had it): re-acknowledged */
	MRC_A_STATS_IN_OFO,		/* data received out of order (placed by PSN) */
	MRC_A_STATS_IN_CE,		/* data received CE-marked */
	MRC_A_STATS_OUT_DATA,		/* data packets sent, retransmissions included */
	MRC_A_STATS_OUT_ACK,		/* ACKs sent */
	MRC_A_STATS_OUT_SYN,		/* SYNs sent */
	MRC_A_STATS_OUT_SYNACK,	/* SYNACKs sent */
	MRC_A_STATS_OUT_PROBE,		/* probes sent */
	MRC_A_STATS_OUT_RST,		/* RSTs sent */
	MRC_A_STATS_OUT_NOROUTE,	/* packets not sent: no route or tunnel socket */
	MRC_A_STATS_OUT_NOMEM,		/* packets not sent: out of memory */
	MRC_A_STATS_RETRANS,		/* data packets retransmitted */
	MRC_A_STATS_LOST_EV,		/* lost: a later one on its EV arrived */
	MRC_A_STATS_LOST_TIME,		/* lost: outstanding too long */
	MRC_A_STATS_LOST_RTO,		/* lost: retransmission timeout */
	MRC_A_STATS_RTO,		/* retransmission timeouts */
	MRC_A_STATS_SYN_RETRANS,	/* SYNs and CONFIRMs retransmitted */
	MRC_A_STATS_SYN_REPEATED,	/* repeated CONFIRM or SYNACK (one was lost) */
	MRC_A_STATS_IDLE_PROBE,		/* probes of an idle connection's peer */
	MRC_A_STATS_ZERO_WINDOW,	/* sender stopped by the peer's zero window */
	MRC_A_STATS_WINDOW_UPDATE,	/* ACKs sent because reading opened the window */
	MRC_A_STATS_CONN_OPENED,	/* connections opened by connect() */
	MRC_A_STATS_CONN_ACCEPTED,	/* connections made from a CONFIRM */
	MRC_A_STATS_CONN_REFUSED,	/* connect() refused by the peer */
	MRC_A_STATS_CONN_ABORTED,	/* connections aborted (reset, protocol error) */
	MRC_A_STATS_CONN_TIMEDOUT,	/* connections that timed out */
	MRC_A_STATS_CONN_ORPHANED,	/* connections closed with data still to deliver */
	MRC_A_STATS_EV_BAD_LOSS,	/* EV went BAD: a packet sent on it was lost */
	MRC_A_STATS_EV_BAD_RTO,		/* EV went BAD: a timeout while it carried data */
	MRC_A_STATS_EV_SKIP_CE,		/* EV went SKIP: a CE mark came back on it */
	MRC_A_STATS_EV_GOOD_PROBE,	/* EV went GOOD: a probe on it was answered */
	MRC_A_STATS_EV_GOOD_SKIPPED,	/* turns of the rotation given up by SKIP EVs */
	MRC_A_STATS_EV_DENIED,		/* EV went DENIED: by the administrator */
	MRC_A_STATS_EV_ALLOWED,		/* EV went GOOD: allowed again by the administrator */
	MRC_A_STATS_EV_REPLACED,	/* a spare EV took the place of a BAD or DENIED one */
	MRC_A_STATS_EV_RECYCLED,	/* a BAD EV that never answered got a new source port */
	MRC_A_STATS_EV_PROBE,		/* probes sent on BAD EVs */
	MRC_A_STATS_EV_NONE_USABLE,	/* packets sent on a BAD EV: no usable EV was left */
	MRC_A_STATS_EVENTS_SUPPRESSED,	/* EV state notifications not sent: rate limit */
	MRC_A_STATS_DROP_BAD_ADDR,	/* dropped: not from the connection's peer address */
	MRC_A_STATS_SPURIOUS_RETRANS,	/* a retransmitted packet arrived before */
	MRC_A_STATS_OUT_CONFIRM,	/* CONFIRMs sent (handshake, third packet) */
	MRC_A_STATS_DROP_BAD_COOKIE,	/* CONFIRM: cookie wrong or expired */
	MRC_A_STATS_DROP_OLD_CONFIRM,	/* CONFIRM of a connection that ended */
	MRC_A_STATS_RST_CHALLENGED,	/* RST outside the PSN window: dropped, probe sent */
	MRC_A_STATS_OUT_RST_LIMITED,	/* RST replies not sent: rate limit */
	MRC_A_STATS_DROP_MEM,		/* data dropped: protocol or memcg memory limit */
	MRC_A_STATS_ORPHAN_ABORTED,	/* orphans reset: over max_orphans or stuck */
	MRC_A_STATS_EV_GOOD_LATE,	/* EV went GOOD: a packet judged lost on it arrived late */
	MRC_A_STATS_CC_UNDO,		/* window cuts undone: their loss was a late packet */
	MRC_A_STATS_EV_BAD_ACK,		/* EV went BAD: the peer found an ACK sent on it lost */
	MRC_A_STATS_ACK_LOST,		/* the peer's ACKs found missing here, reported to it */
	MRC_A_STATS_LOST_DROP,		/* lost: the receiver dropped it (memory, buffer) */
	MRC_A_STATS_EV_SKIP_DELAY,	/* EV went SKIP: its RTT twice the connection's */
	MRC_A_STATS_EV_SWEEP,		/* an answered probe had every BAD EV probed at once */
	MRC_A_STATS_EV_REUSED,		/* policy reps: data sent on an EV that came back clean */
	MRC_A_STATS_RETRANS_RESCUE,	/* oldest packet sent again: a slow path held it */
	MRC_A_STATS_OUT_DROPPED,	/* packets our own stack dropped (a full qdisc) */
	MRC_A_STATS_MR_REG,		/* memory regions registered */
	MRC_A_STATS_MR_DEREG,		/* and released (deregistered, closed) */
	MRC_A_STATS_MR_DENIED,		/* registrations refused: over
					 * RLIMIT_MEMLOCK or MRC_MR_MAX
					 */
	MRC_A_STATS_OUT_WRITE,		/* WRITE packets sent (first transmissions) */
	MRC_A_STATS_WRITE_PLACED,	/* WRITE packets placed into a region */
	MRC_A_STATS_WRITE_BAD_KEY,	/* refused: no region of the connection has the key */
	MRC_A_STATS_WRITE_BAD_ACCESS,	/* refused: the region is not remotely writable */
	MRC_A_STATS_WRITE_BAD_RANGE,	/* refused: bytes past the region's end */
	MRC_A_STATS_OUT_STATUS,		/* operation status records queued for the peer */
	MRC_A_STATS_IN_STATUS,		/* the peer's status records taken in order */
	MRC_A_STATS_DROP_BAD_STATUS,	/* status records naming no operation in flight */
	MRC_A_STATS_WRITE_IMM,		/* notifications of WRITEs with immediate queued */
	MRC_A_STATS_READ_SERVED,	/* the peer's READs whose bytes were all queued */
	MRC_A_STATS_READ_REFUSED,	/* the peer's READs refused: key, access, range */
	MRC_A_STATS_READ_DONE,		/* our READs whose bytes all came, in order */
	MRC_A_STATS_DROP_BAD_RESP,	/* READ response packets naming no READ in flight */
	MRC_A_STATS_ROUTE_LOOKUPS,	/* output route lookups (an EV's route is kept) */
	MRC_A_STATS_RCV_WAKEUPS,	/* readers woken for messages received */
	MRC_A_STATS_OUT_GSO,		/* UDP GSO datagrams sent, each a run of
					 * packets on one EV
					 */
	MRC_A_STATS_OUT_GSO_PKTS,	/* data packets sent in them */
	MRC_A_STATS_RST_AFTER_FIN,	/* RSTs that ended a connection in order:
					 * both FINs taken but our FIN's ACK
					 */
	MRC_A_STATS_ROUTES_PER_EV,	/* connections whose EVs' routes
					 * differ: a route kept per EV
					 */

	__MRC_A_STATS_MAX,
	MRC_A_STATS_MAX = __MRC_A_STATS_MAX - 1
};

/* Attribute set "conn": one connection (MRC_CMD_CONN_GET dump). */
enum mrc_conn_attr {
	MRC_A_CONN_UNSPEC,
	MRC_A_CONN_PAD,
	MRC_A_CONN_LOCAL_CID,		/* u32 */
	MRC_A_CONN_PEER_CID,		/* u32 */
	MRC_A_CONN_FAMILY,		/* u16: AF_INET or AF_INET6 */
	MRC_A_CONN_SADDR,		/* binary: 4 or 16 bytes, by family */
	MRC_A_CONN_DADDR,		/* binary: 4 or 16 bytes, by family */
	MRC_A_CONN_SPORT,		/* u16: our mrc port */
	MRC_A_CONN_DPORT,		/* u16: the peer's mrc port */
	MRC_A_CONN_STATE,		/* u8: TCP_ESTABLISHED, ... */
	MRC_A_CONN_POLICY,		/* u8: enum mrc_ev_policy */
	MRC_A_CONN_EVS,			/* u16: EV positions (spares excluded;
					 * one may be unserved)
					 */
	MRC_A_CONN_EV_GOOD,		/* u16: EVs per state, spares included */
	MRC_A_CONN_EV_SKIP,		/* u16 */
	MRC_A_CONN_EV_BAD,		/* u16 */
	MRC_A_CONN_EV_DENIED,		/* u16 */
	MRC_A_CONN_EV_CHANGES,		/* u32: EV state changes */
	MRC_A_CONN_SRTT_US,		/* u32 */
	MRC_A_CONN_RTO_US,		/* u32 */
	MRC_A_CONN_CWND,		/* u32: packets */
	MRC_A_CONN_IN_FLIGHT,		/* u32: packets */
	MRC_A_CONN_BYTES_SENT,		/* u64: acknowledged */
	MRC_A_CONN_BYTES_RECEIVED,	/* u64: delivered in order */
	MRC_A_CONN_MSGS_SENT,		/* u64 */
	MRC_A_CONN_MSGS_RECEIVED,	/* u64 */
	MRC_A_CONN_PKTS_SENT,		/* u64: transmissions */
	MRC_A_CONN_PKTS_RECEIVED,	/* u64 */
	MRC_A_CONN_RETRANS,		/* u64 */
	MRC_A_CONN_LOST,		/* u64 */
	MRC_A_CONN_RTO_COUNT,		/* u64 */
	MRC_A_CONN_CE,			/* u64 */
	MRC_A_CONN_EVENT,		/* u8: enum mrc_conn_event (events) */
	MRC_A_CONN_ERROR,		/* u32: errno of a failure (events) */
	MRC_A_CONN_CC,			/* u8: enum mrc_cc_algo */
	MRC_A_CONN_CC_ALPHA,		/* u32: CE-marked fraction, 1/1024 */
	MRC_A_CONN_BASE_RTT_US,		/* u32 */
	MRC_A_CONN_QUEUE_DELAY_US,	/* u32 */
	MRC_A_CONN_MR_COUNT,		/* u32: memory regions registered */
	MRC_A_CONN_MR_BYTES,		/* u64: their bytes */
	MRC_A_CONN_RTX_SLOTS,		/* u32: slots of the ring of packets
					 * sent and not acknowledged
					 */
	MRC_A_CONN_OFO_SLOTS,		/* u32: slots of the ring of packets
					 * received out of order
					 */

	__MRC_A_CONN_MAX,
	MRC_A_CONN_MAX = __MRC_A_CONN_MAX - 1
};

/* Attribute set "path": one entropy value of a connection
 * (MRC_CMD_PATH_GET dump, which needs MRC_A_PATH_CID), or what to deny or
 * allow (MRC_CMD_PATH_SET: MRC_A_PATH_STATE DENIED or GOOD, and either
 * MRC_A_PATH_CID with MRC_A_PATH_PORT for one EV of one connection, or
 * MRC_A_PATH_PORT_MIN/MAX, optionally with MRC_A_PATH_PEER, for a source
 * port range of every present and future connection to that peer).
 */
enum mrc_path_attr {
	MRC_A_PATH_UNSPEC,
	MRC_A_PATH_PAD,
	MRC_A_PATH_CID,			/* u32: the connection's local id */
	MRC_A_PATH_PORT,		/* u16: UDP source port of the EV */
	MRC_A_PATH_STATE,		/* u8: enum mrc_ev_state */
	MRC_A_PATH_ACTIVE,		/* u8: 1 in use, 0 a spare */
	MRC_A_PATH_SENT,		/* u64: packets sent on it */
	MRC_A_PATH_ACKED,		/* u64 */
	MRC_A_PATH_LOST,		/* u64 */
	MRC_A_PATH_CE,			/* u64 */
	MRC_A_PATH_PROBES,		/* u64: probes sent on it while BAD */
	MRC_A_PATH_SRTT_US,		/* u32: 0 before the first sample */
	MRC_A_PATH_PEER,		/* binary: 4 or 16 bytes (PATH_SET) */
	MRC_A_PATH_PORT_MIN,		/* u16 (PATH_SET) */
	MRC_A_PATH_PORT_MAX,		/* u16 (PATH_SET) */
	MRC_A_PATH_CAUSE,		/* u8: enum mrc_path_cause (events) */
	MRC_A_PATH_OLD_STATE,		/* u8: enum mrc_ev_state (events) */
	MRC_A_PATH_CE_LEVEL,		/* u8: how heavily CE marks and delay
					 * weigh it down (0 to 5): it takes
					 * one data turn in 2^level
					 */
	MRC_A_PATH_ACKS,		/* u64: ACKs and probe answers sent
					 * on it
					 */
	MRC_A_PATH_ACKS_LOST,		/* u64: of which the peer found lost */

	__MRC_A_PATH_MAX,
	MRC_A_PATH_MAX = __MRC_A_PATH_MAX - 1
};

#endif /* _UAPI_LINUX_MRC_H */
