/* SPDX-License-Identifier: GPL-2.0 */
/* mrc internal types shared between the files of the module: the socket
 * (one connection per socket), the per-namespace state and the entry
 * points each file offers the others.
 */
#ifndef _NET_MRC_PROTOCOL_H
#define _NET_MRC_PROTOCOL_H

#include <linux/hrtimer.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/net.h>
#include <linux/rhashtable-types.h>
#include <linux/siphash.h>
#include <linux/xarray.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <uapi/linux/mrc.h>

#include "cc.h"
#include "evset.h"
#include "loss.h"
#include "mib.h"
#include "mr.h"
#include "ring.h"
#include "wire.h"

/* Most packets one connection has in flight beyond its oldest unacked
 * one; the receiver accepts PSNs this far beyond its cumulative point.
 */
#define MRC_WIN_PKTS		1024

/* What the sender charges against the peer's window per packet on top of
 * its payload: roughly what holding a packet costs the receiver.
 */
#define MRC_PKT_OVERHEAD	1024

/* Most packets one call of mrc_push() sends: ACKs clock out the rest. */
#define MRC_BURST_PKTS		16

#define MRC_INIT_RTO_US		(200 * USEC_PER_MSEC)

/* How long a listener's cookie stays valid: a CONFIRM must echo a
 * SYNACK sent at most this long ago.  A connecting side that has not
 * completed within half of it starts again with a new SYN.
 */
#define MRC_COOKIE_LIFE_US	(8 * USEC_PER_SEC)

/* Most ids of ended cookie connections a namespace remembers. */
#define MRC_RECENT_MAX		65536

/* At most one challenge probe per connection in this time. */
#define MRC_CHALLENGE_GAP_NS	(100 * NSEC_PER_MSEC)

/* Room for the link layer's header: Ethernet with a VLAN tag, or with
 * virtio-net's header (LL_RESERVED_SPACE() 32), and more.  A device that
 * needs more gets it from the IP layer, which copies the packet's head
 * (ip_finish_output2(), ip6_finish_output2()).  MAX_HEADER, sized for
 * the worst link and tunnel (176 bytes in Debian's kernels), made every
 * packet's head a kmalloc-1k, zeroed at each allocation (init_on_alloc).
 */
#define MRC_LL_ROOM		48

/* Headroom for the link layer, IPv6, UDP and the largest fixed mrc header:
 * with a WRITE's extension (or an ACK's header) a packet's head, and its
 * skb_shared_info, fit a kmalloc-512.
 */
#define MRC_HEADROOM		(MRC_LL_ROOM + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr) + \
				 sizeof(struct mrc_ack_hdr))

/**
 * struct mrc_skb_cb - what mrc keeps with each queued packet
 * @psn: PSN (sender: assigned at first transmission)
 * @msg_id: message number
 * @msg_len: length of the whole message
 * @offset: offset of this piece in the message
 * @len: payload bytes
 * @evi: slot (in the connection's EV set) of the latest transmission
 * @flags: MRC_CB_*
 * @tx_count: transmissions so far
 * @sent_ns: time of the latest transmission
 * @ev_node: sender: entry in its EV's list of outstanding transmissions
 */
struct mrc_skb_cb {
	u32	psn;
	u32	msg_id;
	u32	msg_len;
	u32	offset;
	u16	len;
	u16	evi;
	u8	flags;
	u8	tx_count;
	u16	prev_evi;	/* EV of the transmission before the last */
	u64	sent_ns;
	struct list_head ev_node;
};

/* A sender's packet in the retransmission ring is in at most one of three
 * states, whose bits only mrc_rtx_set_state() changes: in flight (counted
 * in in_flight, on its EV's outstanding list), lost (counted in lost_cnt:
 * judged lost, or its transmission failed; waiting to go out again) or
 * sacked.  None of them: not yet transmitted, or cumulatively acked.
 */
#define MRC_CB_SACKED	0x01	/* receiver has it */
#define MRC_CB_LOST	0x02	/* waiting for (re)transmission */
#define MRC_CB_FIN	0x04	/* the FIN marker */
#define MRC_CB_EOR	0x08	/* last piece of its message */
#define MRC_CB_IN_FLIGHT 0x10	/* sent, on its EV's outstanding list */
#define MRC_CB_CE	0x20	/* receiver: arrived CE-marked */
#define MRC_CB_RDMA	0x20	/* sender: a one-sided packet, its DATA
				 * flags in cb->msg_id: a WRITE's piece
				 * (MRC_F_RDMA, its struct mrc_rdma_ext
				 * first in its data), or a status record
				 * (MRC_F_STATUS, its struct mrc_op_status)
				 */
#define MRC_CB_IMM	0x40	/* receiver: the notification of a WRITE
				 * with immediate (struct mrc_imm its data,
				 * no payload), with MRC_CB_EOR
				 */
#define MRC_CB_PEER_STATUS 0x20	/* receiver: a status record from the
				 * peer (cb->msg_id: op_id, cb->offset:
				 * status), taken in order
				 */
#define MRC_CB_REPORT	0x40	/* carries a report of a lost ACK */
#define MRC_CB_RESCUE	0x80	/* sent again while a slow path held it */
#define MRC_CB_STATE	(MRC_CB_SACKED | MRC_CB_LOST | MRC_CB_IN_FLIGHT)

static inline struct mrc_skb_cb *mrc_cb(const struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_skb_cb) > sizeof(skb->cb));
	return (struct mrc_skb_cb *)skb->cb;
}

/* In rcv_ofo, a PSN received out of order that holds no packet: a
 * WRITE's piece, placed (or refused) already.  The SACK and the walk in
 * order count it, nothing is delivered.  Its value: bit 0 set (packets
 * are aligned), bit 1 if the piece ends its operation, and the address
 * of the status record to send when the walk passes it (the piece was
 * refused, or ends an operation that asked for a report), if any.
 */
#define MRC_OFO_WRITE		1UL
#define MRC_OFO_WRITE_LAST	2UL

static inline struct sk_buff *mrc_ofo_write(struct sk_buff *rec, bool last)
{
	return (struct sk_buff *)((unsigned long)rec | MRC_OFO_WRITE |
				  (last ? MRC_OFO_WRITE_LAST : 0));
}

static inline bool mrc_ofo_is_write(const struct sk_buff *v)
{
	return (unsigned long)v & MRC_OFO_WRITE;
}

static inline struct sk_buff *mrc_ofo_record(const struct sk_buff *v)
{
	return (struct sk_buff *)((unsigned long)v &
				  ~(MRC_OFO_WRITE | MRC_OFO_WRITE_LAST));
}

/* struct mrc_op.flags beside the application's: the operation is a READ */
#define MRC_OP_READ	0x80000000U

/**
 * struct mrc_op - a one-sided operation this socket sent
 * @cookie: struct mrc_write.cookie or mrc_read.cookie
 * @lkey: a READ: the local region its bytes go into
 * @loff: a READ: where in it the first goes
 * @len: a READ: its bytes
 * @flags: struct mrc_write.flags or mrc_read.flags, MRC_OP_READ
 * @error: once its outcome is known: 0 or a positive errno; a READ's
 *         response that could not be placed sets it before
 */
struct mrc_op {
	u64	cookie;
	u64	lkey;
	u64	loff;
	u32	len;
	u32	flags;
	s32	error;
};

/**
 * struct mrc_read_job - the peer's READ, taken in order, being served:
 * the data of an skb on the responder's rsp_queue
 * @key: the region it reads
 * @off: where in it the first byte is
 * @op_id: the peer's number of the READ
 * @len: its bytes
 * @done: the bytes queued for the peer so far
 */
struct mrc_read_job {
	u64	key;
	u64	off;
	u32	op_id;
	u32	len;
	u32	done;
};

/* Sender (and the skbs a one-sided packet holds for the walk in order):
 * is @cb's packet a status record?
 */
static inline bool mrc_cb_status(const struct mrc_skb_cb *cb)
{
	return (cb->flags & MRC_CB_RDMA) && (cb->msg_id & MRC_F_STATUS);
}

/* A READ being served (struct mrc_read_job its data)? */
static inline bool mrc_cb_read_job(const struct mrc_skb_cb *cb)
{
	return (cb->flags & MRC_CB_RDMA) && (cb->msg_id & MRC_F_READ);
}

/* The end of a READ's response, held for the walk in order (cb->offset:
 * the READ's op_id)?
 */
static inline bool mrc_cb_read_end(const struct mrc_skb_cb *cb)
{
	return (cb->flags & MRC_CB_RDMA) && cb->msg_id == MRC_F_RESP;
}

static inline struct sk_buff *mrc_cb_skb(struct mrc_skb_cb *cb)
{
	return (struct sk_buff *)((char *)cb - offsetof(struct sk_buff, cb));
}

/**
 * struct mrc_sock - an mrc socket: a listener or one connection
 *
 * Locking: everything below is under the socket lock (lock_sock in
 * process context, bh_lock_sock in softirq with the backlog when owned)
 * unless said otherwise.
 *
 * @inet: inet socket, must be first
 * @opt_ev_count: MRC_EV_COUNT, 0 for the namespace's setting (kept by
 *                children of a listener: outside the part reset for them)
 * @opt_ev_policy: MRC_EV_POLICY plus one, 0 for the namespace's setting
 * @opt_cc: MRC_CC plus one, 0 for the namespace's setting
 * @node: in the namespace's connection table, keyed by @local_cid (RCU)
 * @id_node: in the namespace's tree of connections in @local_cid order
 * @port_node: in the namespace's port table (bound sockets, listeners)
 * @local_cid: our connection id, 0 until the connection is hashed
 * @peer_cid: the peer's connection id
 * @port: our mrc port (host order), 0 when not bound
 * @peer_port: the peer's mrc port
 * @peer_udp: the peer's UDP encapsulation port (host order)
 * @peer: the peer's address (v4 connections use v4-mapped form)
 * @saddr: our address for this connection (v4-mapped for v4)
 * @v4: the connection runs over IPv4
 * @mss: payload bytes per data packet
 * @accept_lock: listener: protects @accept_queue and the accept backlog
 *               count; taken in softirq (children are made there, without
 *               the listener's socket lock) and process context (BH-safe)
 * @accept_queue: listener: established children not yet accepted
 * @accept_node: child: entry in its listener's @accept_queue
 * @parent: child not yet accepted: its listener (holds a reference)
 * @send_lock: serialises sendmsg so messages are queued whole and in order
 * @snd_una: oldest unacknowledged PSN
 * @snd_nxt: next PSN to transmit for the first time
 * @snd_msg_id: number of the next message to queue
 * @snd_op_id: number of the next one-sided operation (WRITE, READ) to queue
 * @ops: the operations sent, by op_id % MRC_OPS_MAX: [@op_read, @op_done)
 *       have their outcome, to be read if failed or signaled, [@op_done,
 *       @op_end) wait for it; allocated at the first one (NULL before)
 * @rsp_queue: the peer's READs taken in order and not yet served whole
 *             (struct mrc_read_job), and the status records queued after
 *             them, in order; their skbs charged like packets queued
 * @op_read: oldest operation whose completion is not read (or skipped)
 * @op_done: oldest operation whose outcome is not known
 * @op_end: one past the newest operation (its first piece queued)
 * @rtx: packets sent, by PSN, [@snd_una, @snd_nxt) (ring.h: grown on
 *       demand up to MRC_WIN_PKTS slots, small again when idle)
 * @in_flight: packets in @rtx marked MRC_CB_IN_FLIGHT: sent, neither
 *             acknowledged nor judged lost (mrc_rtx_set_state() only)
 * @lost_cnt: packets in @rtx marked MRC_CB_LOST: judged lost, or their
 *            transmission failed, and not sent again yet (the same)
 * @lost_hint: no packet of @rtx before this PSN is marked lost (valid
 *             while @lost_cnt is not 0): where the next retransmission
 *             is looked for
 * @tsorted: the packets in flight, in the order of their last
 *           transmission, the oldest first (on skb->list: a packet of
 *           @rtx is on no other list); the time rule, the RTO and the
 *           timer read it instead of the whole ring
 * @bytes_out: payload bytes in [@snd_una, @snd_nxt)
 * @peer_rwnd: bytes the peer accepts beyond @snd_una
 * @cc: congestion window and its algorithm's state
 * @peer_ce: the peer's count of CE-marked data packets, latest seen
 * @srtt_us: smoothed RTT, 0 before the first sample
 * @rttvar_us: RTT variation
 * @rto_us: current retransmission timeout, backed off
 * @peer_wait_us: the longest the peer said it held one of its ACKs back
 *                (an echo's wait_us); added to the RTO
 * @rack_sent_ns: latest send time of a packet acknowledged so far
 * @reo_mult: spurious retransmissions seen lately: the time rule's
 *            reordering allowance grows with it (mrc_loss_reo_wait_ns())
 * @reo_ns: when @reo_mult last changed
 * @late: retransmitted packets acknowledged lately, by PSN % MRC_LATE_PKTS:
 *        an echo of an earlier transmission of one still shows that the
 *        retransmission was spurious (mrc_spurious())
 * @last_ack_ns: when the last valid ACK arrived
 * @last_rcv_ns: when the last valid packet of any kind came from the peer
 * @last_probe_ns: when the last probe (zero window or idle) left
 * @syn_start_ns: when connect() sent the first SYN
 * @syn_sent_ns: when the latest SYN or CONFIRM left
 * @syn_tsval: the first SYN's timestamp: a SYNACK must echo one at least
 *             as late
 * @synack_tsval: connecting: the SYNACK's timestamp, echoed in CONFIRMs
 * @synack_ns: connecting: when the SYNACK came (0: none yet)
 * @cookie_end_ns: made from a listener's cookie: until when a duplicate
 *                 CONFIRM of it could still pass the cookie check
 * @max_msg: the largest message we accept, as we advertised it
 * @peer_max_msg: the largest message the peer accepts (handshake)
 * @challenge_ns: when the last challenge probe left (RST outside the
 *                window)
 * @progress_ns: when snd_una last advanced (or the socket was orphaned)
 * @orphan_counted: closed while data was still to deliver: counted in
 *                  the protocol's orphans (mrc_orphan_count())
 * @ack_seq: sequence number of our last ACK (the next one has one more)
 * @peer_ack_seq: the newest ACK sequence number whose window we took
 * @ack_prev_port: the EV (port) our last ACK left on, 0 before the first
 * @rack: the peer's last ACKs: received, or named as missing by a later
 *        one (its prev_ev), judged lost (mrc_ack_rx_add())
 * @ack_lost: the peer's ACKs found missing, to report in our DATA
 *            (oldest first; @ack_lost_n of them), each until the DATA
 *            that carries it is acknowledged
 * @ack_lost_n: entries in @ack_lost
 * @rto_n: entries in @rto_pkt, 0 when no RTO waits for its verdict
 * @rto_ack_seq: the peer's newest ACK sequence number at the first RTO
 *               of those waiting
 * @rto_fired_us: when the latest of them fired (mrc_ns_to_us32())
 * @rto_pkt: the first transmissions those RTOs (with no ACK between)
 *           swept up that the last ACK showed missing, whose EVs they
 *           made suspect: the next ACK tells whether they or their ACKs
 *           were lost (mrc_rto_judge())
 * @timer: retransmission, probe and connection timeouts
 * @deferred: MRC_DEFERRED_* work for release_sock (atomic bits)
 * @in_timer_cb: the timer's callback is running mrc_timer_handle()
 * @fin_queued: shutdown(SHUT_WR) or close() queued our FIN
 * @snd_partial: a blocking sendmsg() has queued part of a message and
 *               sleeps for room for the rest: a shutdown(SHUT_WR) leaves
 *               the FIN to it, after the message's last piece
 * @fin_acked: the peer acknowledged our FIN
 * @failed: ended by mrc_conn_abort() (its event is sent)
 * @evset: entropy values of this connection and their states
 * @ev_policy: enum mrc_ev_policy
 * @xmit_left: data datagrams that left (our own stack took them), modulo
 *             256: tells an EV's drops in a row with others leaving
 *             between from a queue that is full for everyone
 *             (mrc_xmit_dropped())
 * @probe_ns: when the next probe of a BAD EV is due, 0 if none is BAD
 * @sweep_ns: when an answered probe last had every BAD EV probed at once
 *            (mrc_ev_sweep())
 * @rcv_nxt: next PSN expected in order
 * @rcv_ofo: received out of order, by PSN, (@rcv_nxt, @rcv_hi) (a ring
 *	like @rtx); a
 *	WRITE's piece, placed (or refused) as it arrived, holds its PSN
 *	there as mrc_ofo_write()
 * @rcv_op_failed: the walk in order queued a failure record for the
 *	operation whose pieces it passes (until it passes the last)
 * @rcv_ofo_bytes: payload held in @rcv_ofo
 * @rcv_hi: one past the highest PSN held in @rcv_ofo (when after
 *          @rcv_nxt): how far the SACK needs to look
 * @rcv_seq: where the in-order message stream is (next message and offset)
 * @rcv_queued: payload bytes in sk_receive_queue not read yet
 * @rcv_head_off: bytes of the head piece already read by recvmsg
 * @rcv_complete: whole messages (their last piece) in sk_receive_queue
 * @rcv_lowat: the smallest buffer of a reader asleep in recvmsg(), 0 if
 *	none: pieces of a message wake the readers only once one of them
 *	can return (mrc_rcv_wake_due()); reset by that wake
 * @rcv_mem_short: the next piece in order was refused for lack of memory
 *	(the pool or the memory cgroup): what is queued is readable, whole
 *	message or not, so that reading frees memory instead of waiting
 *	for a piece that cannot come
 * @rcv_reserve_pages: pages charged to the pool's reserve beyond its
 *	limit for pieces in order, until the reader has taken all that is
 *	queued (mrc_mem_force_rmem())
 * @rcv_ce: CE-marked data packets received
 * @ack_pend: data packets taken but not acknowledged yet, as the echoes
 *	of the next ACK (mrc_rcv_ack_data())
 * @ack_pend_n: entries in @ack_pend
 * @ack_coalesce: data packets one ACK may acknowledge (the setting)
 * @ack_delay_us: longest @ack_pend may wait (the setting)
 * @flowlet: new data packets sent in a row on one EV, as one UDP GSO
 *           datagram where they can be (the setting; mrc_push())
 * @ack_due_ns: when @ack_pend must go, if not empty
 * @ack_data_ns: when the last data packet was taken (mrc_rcv_ack_data())
 * @fin_rcvd: the peer's FIN was delivered in order
 * @stats: per-connection counters for MRC_INFO
 * @mrs: memory regions (struct mrc_mr) by index (mrc_mr_key_idx()),
 *	changed under the socket lock in process context (mr.c)
 * @mr_count: regions in @mrs
 * @mr_bytes: their bytes
 */
/* Acknowledged retransmissions remembered per connection (struct mrc_late). */
#define MRC_LATE_PKTS	16

/* Lost ACKs of the peer waiting to be reported. */
#define MRC_ACK_LOST_Q	4

/* Transmissions an RTO swept up whose EVs the next ACK judges. */
#define MRC_RTO_JUDGE	8

/**
 * struct mrc_rto_pkt - a transmission an RTO swept up, to be judged
 * @psn: its PSN
 * @port: the EV (port) it left on
 */
struct mrc_rto_pkt {
	u32	psn;
	u16	port;
};

/**
 * struct mrc_ack_report - one of the peer's ACKs found lost, to report
 * @seq: its sequence number
 * @port: the EV it was sent on
 * @psn: the DATA packet that carries the report, if @carried: sent again
 *       with it, and the report goes when that packet is acknowledged
 * @carried: sent at least once
 */
struct mrc_ack_report {
	u16	seq;
	u16	port;
	u32	psn;
	bool	carried;
};

/**
 * struct mrc_routes - the output routes of a connection's EVs, cached
 * @one: the route, held, of every EV whose bit in @on_one is set: each
 *       of them looked its route up once and found the same next hop
 *       (mrc_route_same()); NULL when none is cached or once @dst is
 *       in use
 * @on_one: a bit per EV slot
 * @dst: NULL until two EVs' routes differ (the host's own routes are
 *       multipath, or rules pick them by source port); then one per EV
 *       slot: its route, held; NULL until the EV's next packet or after
 *       the route went stale (dst_check())
 * @cookie: what dst_check() compares (IPv6; 0 for IPv4), for every
 *          route cached: the routes of a connection's EVs come from the
 *          entry of one destination, whose serial number changes with
 *          any route under it.  A route looked up with another cookie
 *          flushes the others (each EV looks its route up again, as it
 *          would with a cookie of its own); EVs whose routes come from
 *          different entries (rules on the source port) flush each other
 *          in turn (route_lookups), and never use a wrong route.
 * @oif: the bound device the routes are for
 * @nr: EV slots
 *
 * Where the host's own routes are multipath, the route depends on the
 * source port (and the IPv6 flow label), which are the EV: a route per
 * EV slot (8 bytes, 160 EVs in a kmalloc-2k).  Most hosts have one next
 * hop to their peers: one route and a bit per EV (a kmalloc-32).
 */
struct mrc_routes {
	struct dst_entry	*one;
	unsigned long		*on_one;
	struct dst_entry	**dst;
	u32			cookie;
	int			oif;
	u16			nr;
};

struct mrc_sock {
	struct inet_sock	inet;
	u16			opt_ev_count;
	u8			opt_ev_policy;
	u8			opt_cc;

	struct rhash_head	node;
	struct rb_node		id_node;
	struct hlist_node	port_node;
	u32			local_cid;
	u32			peer_cid;
	u16			port;
	u16			peer_port;
	u16			peer_udp;
	struct in6_addr		peer;
	struct in6_addr		saddr;
	bool			v4;
	u16			mss;

	spinlock_t		accept_lock;	/* see above */
	struct list_head	accept_queue;
	struct list_head	accept_node;
	struct sock		*parent;

	struct mutex		send_lock;	/* see above */

	u32			snd_una;
	u32			snd_nxt;
	u32			snd_msg_id;
	u32			snd_op_id;
	struct mrc_op		*ops;
	struct sk_buff_head	rsp_queue;
	u32			op_read;
	u32			op_done;
	u32			op_end;
	struct mrc_ring		rtx;
	u32			in_flight;
	u32			lost_cnt;
	u32			lost_hint;
	struct list_head	tsorted;
	u64			bytes_out;
	u32			peer_rwnd;
	struct mrc_cc		cc;
	u32			peer_ce;
	u32			srtt_us;
	u32			rttvar_us;
	u32			rto_us;
	u32			peer_wait_us;
	u64			rack_sent_ns;
	u8			reo_mult;
	u64			reo_ns;
	struct mrc_late {
		u32		psn;
		u32		tsval;	/* of the last transmission */
		u16		evi;	/* of the one before it */
		bool		rescue;	/* that one was rescued */
	} late[MRC_LATE_PKTS];
	u64			last_ack_ns;
	u64			last_rcv_ns;
	u64			last_probe_ns;
	u64			syn_start_ns;
	u64			syn_sent_ns;
	u32			syn_tsval;
	u32			synack_tsval;
	u64			synack_ns;
	u64			cookie_end_ns;
	u32			max_msg;
	u32			peer_max_msg;
	u64			challenge_ns;
	u64			progress_ns;
	bool			orphan_counted;
	u16			ack_seq;
	u16			peer_ack_seq;
	u16			ack_prev_port;
	u8			ack_lost_n;
	u8			rto_n;
	u16			rto_ack_seq;
	u32			rto_fired_us;
	struct mrc_rto_pkt	rto_pkt[MRC_RTO_JUDGE];
	struct mrc_ack_rx	rack;
	struct mrc_ack_report	ack_lost[MRC_ACK_LOST_Q];
	struct hrtimer		timer;
	unsigned long		deferred;
	bool			in_timer_cb;
	bool			fin_queued;
	bool			snd_partial;
	bool			fin_acked;
	bool			failed;

	struct mrc_evset	evset;
	struct mrc_routes	routes;
	u8			ev_policy;
	u8			xmit_left;
	u64			probe_ns;
	u64			sweep_ns;

	u32			rcv_nxt;
	struct mrc_ring		rcv_ofo;
	u32			rcv_ofo_bytes;
	u32			rcv_hi;
	struct mrc_rcv_seq	rcv_seq;
	u32			rcv_queued;
	u32			rcv_head_off;
	u32			rcv_complete;
	u32			rcv_lowat;
	bool			rcv_mem_short;
	bool			rcv_op_failed;
	u8			rcv_reserve_pages;
	u32			rcv_ce;
	struct mrc_ack_echo	ack_pend[MRC_ACK_ECHOES];
	u8			ack_pend_n;
	u8			ack_coalesce;
	u32			ack_delay_us;
	u8			flowlet;
	u64			ack_due_ns;
	u64			ack_data_ns;
	bool			fin_rcvd;

	struct mrc_conn_stats {
		u64	bytes_sent;
		u64	bytes_received;
		u64	msgs_sent;
		u64	msgs_received;
		u64	pkts_sent;
		u64	pkts_received;
		u64	retrans;
		u64	lost;
		u64	rto;
		u64	ce;
		u64	writes_sent;
		u64	write_bytes_in;
		u64	write_refused;
		u64	reads_sent;
		u64	read_bytes_in;
		u64	read_bytes_out;
	} stats;

	struct xarray		mrs;
	u32			mr_count;
	u64			mr_bytes;
};

/* bits of mrc_sock.deferred */
#define MRC_DEFERRED_TIMER	0

/* IPv6 sockets: ipv6_pinfo must be the last member (inet6_sk_generic). */
struct mrc6_sock {
	struct mrc_sock		msk;
	struct ipv6_pinfo	inet6;
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return (struct mrc_sock *)sk;
}

/* The packet in flight sent longest ago, or NULL. */
static inline struct sk_buff *mrc_tsorted_first(struct mrc_sock *msk)
{
	return list_first_entry_or_null(&msk->tsorted, struct sk_buff, list);
}

/* The packet in flight sent last; @msk->tsorted is not empty. */
static inline struct mrc_skb_cb *mrc_tsorted_last(const struct mrc_sock *msk)
{
	return mrc_cb(list_last_entry(&msk->tsorted, struct sk_buff, list));
}

/**
 * mrc_readable() - is there something for recvmsg() with a buffer of @len?
 * @sk: the connection
 * @len: the reader's buffer (0 counts as 1); SIZE_MAX for poll()
 *
 * A whole message, or a piece of one that cannot wait for its rest: as
 * much as the buffer holds, a quarter of the receive buffer (a message
 * too large to wait for), or anything when memory is short (reading
 * frees it).
 */
static inline bool mrc_readable(const struct sock *sk, size_t len)
{
	const struct mrc_sock *msk = mrc_sk(sk);
	u32 pd = READ_ONCE(sk->sk_rcvbuf) / 4;

	if (msk->rcv_complete)
		return true;
	return msk->rcv_queued &&
	       (msk->rcv_queued >= min_t(size_t, len ? len : 1, pd) ||
		READ_ONCE(msk->rcv_mem_short));
}

/* Denied source port ranges per namespace (MRC_CMD_PATH_SET). */
#define MRC_DENY_MAX		32

/**
 * struct mrc_settings - the tunables of a namespace (MRC_CMD_CONFIG_SET)
 * @rto_min_us: lowest retransmission timeout
 * @rto_max_us: highest retransmission timeout, at least @rto_min_us
 * @conn_timeout_ms: a connection that hears nothing this long ends
 * @max_msg_size: largest message a connection sends or accepts
 * @ev_count: EVs a new connection uses
 * @ev_port_min: first UDP source port of the EVs
 * @ev_port_max: last UDP source port of the EVs, at least @ev_port_min
 * @ev_spares: EVs a new connection keeps in reserve
 * @ev_policy: enum mrc_ev_policy of new connections
 * @probe_interval_ms: how often a connection probes its BAD EVs
 * @cc: enum mrc_cc_algo of new connections
 * @cc_params: the congestion control's parameters
 * @ack_coalesce: data packets one ACK may acknowledge
 * @ack_delay_us: longest an ACK is held back
 * @flowlet: new data packets sent in a row on one EV
 * @rcu: frees a replaced copy
 *
 * Never changed in place: CONFIG_SET publishes a new copy, checked as a
 * whole, with rcu_assign_pointer(), so a reader that takes one snapshot
 * (mrc_settings()) sees every field of one version and the invariants
 * above hold.
 */
struct mrc_settings {
	u32	rto_min_us;
	u32	rto_max_us;
	u32	conn_timeout_ms;
	u32	max_msg_size;
	u16	ev_count;
	u16	ev_port_min;
	u16	ev_port_max;
	u16	ev_spares;
	u8	ev_policy;
	u32	probe_interval_ms;
	u8	cc;
	struct mrc_cc_params cc_params;
	u8	ack_coalesce;
	u32	ack_delay_us;
	u8	flowlet;
	struct rcu_head rcu;
};

/**
 * struct mrc_net - mrc state of one network namespace
 * @lock: serialises changes of the settings and of the tunnel sockets;
 *        process context only
 * @sock4: UDP tunnel socket for IPv4, bound to @port; under @lock, read
 *         under RCU by the transmit path; NULL until the namespace's
 *         first mrc socket (mrc_net_tunnels_want()) or while @port is
 *         taken
 * @sock6: UDP tunnel socket for IPv6 (v6only), bound to @port; NULL when
 *         the kernel has no IPv6; as @sock4
 * @port: UDP encapsulation port, host order
 * @conns: connections by local cid (RCU lookups from softirq)
 * @conns_lock: protects @conns_by_id (BH-safe)
 * @conns_by_id: the same connections in ascending order of local cid, for
 *               walks that resume at an id (mrc_conn_collect())
 * @ports_lock: protects @ports (BH-safe)
 * @ports: bound mrc ports, RCU lookups from softirq
 * @cid_key: key of the listeners' cookies (mrc_cookie())
 * @recent_lock: protects @recent_age and @nr_recent, and orders the
 *               changes and lookups of @recent (BH-safe)
 * @recent: ids of connections made from cookies that ended while a
 *          duplicate CONFIRM could still pass the cookie check
 *          (struct mrc_recent, by id)
 * @recent_age: the same, oldest first, for pruning
 * @nr_recent: entries in @recent
 * @recent_floor_us: when @recent overflowed: cookies issued until then
 *                   are refused ...
 * @recent_floor_end_ns: ... until this time, when the last has expired
 * @rst_rs: rate limit of RSTs in reply to packets for no connection
 * @deny_lock: protects @deny and @nr_deny (BH-safe)
 * @deny: source port ranges the administrator denied, per peer or for all
 * @nr_deny: entries in @deny
 * @settings: tunables, see struct mrc_settings; replaced whole under
 *            @lock, read under RCU through mrc_settings()
 * @mib: counters of this namespace
 * @event_rs: rate limit of the EV state notifications
 */
struct mrc_net {
	struct mutex		lock;	/* see above */
	struct socket __rcu	*sock4;
	struct socket __rcu	*sock6;
	u16			port;
	struct rhashtable	conns;
	spinlock_t		conns_lock;	/* see above */
	struct rb_root		conns_by_id;
	spinlock_t		ports_lock;	/* see above */
	struct hlist_head	ports[256];
	siphash_key_t		cid_key;
	spinlock_t		recent_lock;	/* see above */
	struct rhashtable	recent;
	struct list_head	recent_age;
	u32			nr_recent;
	u64			recent_floor_us;
	u64			recent_floor_end_ns;
	struct ratelimit_state	rst_rs;
	spinlock_t		deny_lock;	/* see above */
	struct mrc_deny {
		struct in6_addr	peer;
		bool		any_peer;
		u16		port_min;
		u16		port_max;
	} deny[MRC_DENY_MAX];
	u8			nr_deny;
	struct mrc_settings __rcu *settings;
	struct mrc_mib __percpu	*mib;
	struct ratelimit_state	event_rs;
};

extern unsigned int mrc_net_id;

static inline struct mrc_net *mrc_pernet(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

static inline struct mrc_net *mrc_sk_pernet(const struct sock *sk)
{
	return mrc_pernet(sock_net(sk));
}

/**
 * mrc_settings() - the namespace's settings, one consistent snapshot
 * @mn: the namespace's mrc state
 *
 * Under rcu_read_lock() (softirq and BH-disabled sections count), or
 * holding @mn->lock.  An operation that uses several fields reads them
 * all through one returned pointer; the snapshot stays valid until the
 * read-side section ends, so a caller that sleeps copies it first
 * (mrc_settings_copy()).
 *
 * Return: the settings in force.
 */
static inline const struct mrc_settings *mrc_settings(const struct mrc_net *mn)
{
	return rcu_dereference_check(mn->settings,
				     rcu_read_lock_any_held() ||
				     lockdep_is_held(&mn->lock));
}

/**
 * mrc_settings_copy() - copy the namespace's settings
 * @mn: the namespace's mrc state
 * @s: where to copy them
 *
 * Any context.
 */
static inline void mrc_settings_copy(const struct mrc_net *mn,
				     struct mrc_settings *s)
{
	rcu_read_lock();
	*s = *mrc_settings(mn);
	rcu_read_unlock();
}

static inline u64 mrc_now_ns(void)
{
	return ktime_get_ns();
}

/* @ns (mrc_now_ns()) as mrc_now_us32() would have said it then. */
static inline u32 mrc_ns_to_us32(u64 ns)
{
	return (u32)div_u64(ns, NSEC_PER_USEC);
}

static inline u32 mrc_now_us32(void)
{
	return mrc_ns_to_us32(ktime_get_ns());
}

/* af_mrc.c */
extern struct proto mrc_prot;
extern struct proto mrcv6_prot;

/* netns.c */
int mrc_pernet_register(void);
void mrc_pernet_unregister(void);
void mrc_net_tunnels_want(struct net *net);
int mrc_net_set_port(struct mrc_net *mn, struct net *net, u16 port,
		     struct netlink_ext_ack *extack);
bool mrc_net_port_denied(struct mrc_net *mn, const struct in6_addr *peer,
			 u16 port);
int mrc_net_deny(struct mrc_net *mn, const struct in6_addr *peer,
		 u16 port_min, u16 port_max, bool deny);

/* mem.c */
void mrc_mem_proto_init(struct proto *prot);
int mrc_mem_init(void);
void mrc_mem_exit(void);
void mrc_mem_sock_added(struct sock *sk);
void mrc_mem_child_added(struct sock *sk);
void mrc_mem_child_free(struct sock *sk);
s64 mrc_mem_sockets(void);
void mrc_mem_accept_memcg(struct sock *child);
int mrc_mem_rmem_min(void);
bool mrc_mem_force_rmem(struct sock *sk, int size);
void mrc_mem_reserve_put(struct sock *sk);
int mrc_mem_reserve_users(void);
bool mrc_mem_room(const struct sock *sk, u64 size);
bool mrc_orphan_add(struct sock *sk);
void mrc_orphan_done(struct sock *sk);

/* sock.c */
extern const struct proto_ops mrc_inet_ops;
extern const struct proto_ops mrc_inet6_ops;
void mrc_sock_init_fields(struct sock *sk);
void mrc_sock_error(struct sock *sk, int err);

/* mr.c */
int mrc_mr_register(struct sock *sk, struct mrc_mr_reg *reg);
int mrc_mr_deregister(struct sock *sk, u64 key);
void mrc_mr_release_all(struct sock *sk);
int mrc_mr_write(struct sock *sk, u64 key, u64 roff,
		 const struct sk_buff *skb, int off, u32 len);
int mrc_mr_place(struct sock *sk, u64 key, u64 off,
		 const struct sk_buff *skb, int skb_off, u32 len);
int mrc_mr_read(struct sock *sk, u64 key, u64 off, void *to, u32 len);
int mrc_mr_local(struct sock *sk, u64 key, u64 off, u64 len);
void mrc_recv_consume(struct sock *sk, unsigned int nfull, size_t off);

/* op.c */
bool mrc_op_room(const struct sock *sk);
int mrc_op_alloc(struct sock *sk);
bool mrc_op_report(const struct sock *sk, u32 flags);
void mrc_op_add(struct sock *sk, u64 cookie, u32 flags);
void mrc_op_add_read(struct sock *sk, const struct mrc_read *rd);
void mrc_op_status(struct sock *sk, u32 op_id, u8 status);
struct mrc_op *mrc_op_read_find(struct sock *sk, u32 op_id, u32 len);
void mrc_op_read_end(struct sock *sk, u32 op_id);
void mrc_op_end_all(struct sock *sk, int err);
bool mrc_op_pending(const struct sock *sk);
int mrc_op_recv_completions(struct sock *sk, struct msghdr *msg);

/* conn.c */
int mrc_conn_table_init(struct mrc_net *mn);
void mrc_conn_table_destroy(struct mrc_net *mn);
int mrc_conn_hash(struct sock *sk);
void mrc_conn_unhash(struct sock *sk);
struct sock *mrc_conn_lookup(struct mrc_net *mn, u32 cid);
/* mrc_conn_collect(): the cursor past every id */
#define MRC_CONN_COLLECT_END	BIT_ULL(32)
int mrc_conn_collect(struct mrc_net *mn, u64 *from, struct sock **socks,
		     int max);
int mrc_port_bind(struct sock *sk, u16 port);
void mrc_port_unbind(struct sock *sk);
struct sock *mrc_port_lookup_listener(struct mrc_net *mn, u16 port);
int mrc_conn_alloc_state(struct sock *sk, const struct mrc_settings *s,
			 gfp_t gfp);
void mrc_conn_free_state(struct sock *sk);
void mrc_conn_init_evs(struct sock *sk, const struct mrc_settings *s,
		       u16 nr_pos, u16 nr_evs);
u16 mrc_conn_new_port(struct sock *sk);
void mrc_conn_established(struct sock *sk);
void mrc_conn_start_cc(struct sock *sk, const struct mrc_settings *s);
void mrc_conn_abort(struct sock *sk, int err, bool send_rst);
void mrc_conn_done(struct sock *sk);
void mrc_listen_rcv_syn(struct sock *lsk, struct sk_buff *skb);
void mrc_listen_rcv_confirm(struct sock *lsk, struct sk_buff *skb);
int mrc_recent_init(struct mrc_net *mn);
void mrc_recent_flush(struct mrc_net *mn);
void mrc_listen_stop(struct sock *lsk);
void mrc_sk_release_parent(struct sock *sk);
void mrc_rcv_synack(struct sock *sk, struct sk_buff *skb);
void mrc_conn_opened(struct sock *sk);
void mrc_rcv_rst(struct sock *sk, struct sk_buff *skb);

/* output.c */
int mrc_route_mss(struct sock *sk);
void mrc_routes_release(struct mrc_sock *msk);
int mrc_xmit_data(struct sock *sk, struct sk_buff *skb);
void mrc_send_ack_waited(struct sock *sk, u32 echo_psn, u32 echo_tsval,
			 u16 echo_ev, u16 flags, u32 wait_us);

/* Acknowledge a packet as it arrives (and those held back). */
static inline void mrc_send_ack_echo(struct sock *sk, u32 echo_psn,
				     u32 echo_tsval, u16 echo_ev, u16 flags)
{
	mrc_send_ack_waited(sk, echo_psn, echo_tsval, echo_ev, flags, 0);
}

int mrc_send_syn(struct sock *sk, u8 type);
void mrc_send_probe(struct sock *sk);
void mrc_send_rst(struct sock *sk);
void mrc_send_rst_reply(struct mrc_net *mn, struct sk_buff *skb,
			const struct mrc_hdr *h, bool refused);
void mrc_send_synack(struct mrc_net *mn, struct sk_buff *skb,
		     const struct mrc_syn_hdr *syn, u32 cid, u32 isn, u32 tsval,
		     u32 rwnd, int oif);
void mrc_send_challenge(struct sock *sk);
void mrc_push(struct sock *sk);
void mrc_send_ev_probe(struct sock *sk, u16 evi);

/* input.c */
int mrc_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb);
int mrc_rsp_fill(struct sock *sk);
u32 mrc_rsp_reads(struct sock *sk);
u32 mrc_rcv_window(const struct sock *sk);
void mrc_rcv_purge(struct sock *sk);
void mrc_ofo_purge(struct sock *sk);

/* ack.c */
void mrc_rcv_ack(struct sock *sk, struct sk_buff *skb);
void mrc_timer_init(struct sock *sk);
void mrc_timer_arm(struct sock *sk);
void mrc_timer_arm_by(struct sock *sk, u64 ns);
void mrc_timer_stop(struct sock *sk);
void mrc_timer_handle(struct sock *sk);
void mrc_rtx_set_state(struct sock *sk, struct sk_buff *skb, u8 state);
void mrc_on_transmit(struct sock *sk, struct sk_buff *skb, u16 evi);
void mrc_xmit_dropped(struct sock *sk, struct sk_buff *skb, bool count);
void mrc_mark_lost(struct sock *sk, struct sk_buff *skb,
		   enum mrc_mib_field why);

/* fault.c: test builds only (MRC_FAULT_INJECT=1); false otherwise */
#ifdef MRC_FAULT_INJECT
bool mrc_fault_xmit_clone(void);
u64 mrc_fault_cookie_clock_us(void);
#else
static inline bool mrc_fault_xmit_clone(void)
{
	return false;
}

static inline u64 mrc_fault_cookie_clock_us(void)
{
	return 0;
}
#endif

/* Checks of invariants a bug, not a peer, would break: warnings in test
 * builds, whose kernel log the VM's console checker reads; otherwise
 * compiled out unless CONFIG_DEBUG_NET.
 */
#ifdef MRC_FAULT_INJECT
#define MRC_DEBUG_WARN_ON_ONCE(cond)	WARN_ON_ONCE(cond)
#else
#define MRC_DEBUG_WARN_ON_ONCE(cond)	DEBUG_NET_WARN_ON_ONCE(cond)
#endif

/* path.c */
u16 mrc_ev_pick(struct sock *sk, u16 avoid);
bool mrc_ev_fail(struct sock *sk, u16 evi, enum mrc_mib_field why,
		 enum mrc_mib_field why_pkt);
void mrc_ev_revive(struct sock *sk, u16 evi, enum mrc_mib_field why);
void mrc_ev_weigh(struct sock *sk, u16 evi, enum mrc_mib_field why, u8 level);
void mrc_ev_deny(struct sock *sk, u16 evi);
void mrc_ev_probe_due(struct sock *sk, u64 now);
void mrc_ev_answered(struct sock *sk, u16 evi, u64 sent_ns);
void mrc_ev_ack_lost(struct sock *sk, u16 seq, u16 port);
void mrc_ev_changed(struct sock *sk, u16 evi, u8 old, u8 cause);
void mrc_rtx_purge(struct sock *sk);
void mrc_wmem_free(struct sock *sk, struct sk_buff *skb);
void mrc_rtt_sample(struct sock *sk, u32 rtt_us);

/* netlink.c */
int mrc_genl_register(void);
void mrc_genl_unregister(void);
void mrc_nl_conn_event(struct sock *sk, u8 what, int err);
void mrc_nl_path_event(struct sock *sk, u16 evi, u8 old, u8 cause);

#endif /* _NET_MRC_PROTOCOL_H */
