/* SPDX-License-Identifier: GPL-2.0 */
/* mrc tracepoints: transmit, receive, loss, retransmit, EV state change,
 * window change.  perf and bpftrace attach to mrc:<event>.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_NET_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NET_MRC_TRACE_H

#include <linux/tracepoint.h>

#include "protocol.h"

TRACE_EVENT(mrc_xmit,
	TP_PROTO(const struct sock *sk, u32 psn, u16 port, u16 len,
		 u8 tx_count),
	TP_ARGS(sk, psn, port, len, tx_count),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u32, psn)
		__field(u16, port)
		__field(u16, len)
		__field(u8, tx_count)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->psn = psn;
		__entry->port = port;
		__entry->len = len;
		__entry->tx_count = tx_count;
	),
	TP_printk("cid=%08x psn=%u ev=%u len=%u tx=%u", __entry->cid,
		  __entry->psn, __entry->port, __entry->len, __entry->tx_count)
);

TRACE_EVENT(mrc_rcv,
	TP_PROTO(const struct sock *sk, u8 type, unsigned int len),
	TP_ARGS(sk, type, len),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u8, type)
		__field(unsigned int, len)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->type = type;
		__entry->len = len;
	),
	TP_printk("cid=%08x type=%u len=%u", __entry->cid, __entry->type,
		  __entry->len)
);

TRACE_EVENT(mrc_loss,
	TP_PROTO(const struct sock *sk, u32 psn, u16 port, int why),
	TP_ARGS(sk, psn, port, why),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u32, psn)
		__field(u16, port)
		__field(int, why)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->psn = psn;
		__entry->port = port;
		__entry->why = why;
	),
	TP_printk("cid=%08x psn=%u ev=%u rule=%s", __entry->cid,
		  __entry->psn, __entry->port,
		  __print_symbolic(__entry->why,
				   { MRC_MIB_LOST_EV, "ev" },
				   { MRC_MIB_LOST_TIME, "time" },
				   { MRC_MIB_LOST_RTO, "rto" },
				   { MRC_MIB_LOST_DROP, "drop" }))
);

TRACE_EVENT(mrc_retransmit,
	TP_PROTO(const struct sock *sk, u32 psn, u16 old_port, u16 port),
	TP_ARGS(sk, psn, old_port, port),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u32, psn)
		__field(u16, old_port)
		__field(u16, port)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->psn = psn;
		__entry->old_port = old_port;
		__entry->port = port;
	),
	TP_printk("cid=%08x psn=%u ev=%u->%u", __entry->cid, __entry->psn,
		  __entry->old_port, __entry->port)
);

TRACE_EVENT(mrc_ev_state,
	TP_PROTO(const struct sock *sk, u16 port, u8 old, u8 state, u8 cause),
	TP_ARGS(sk, port, old, state, cause),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u16, port)
		__field(u8, old)
		__field(u8, state)
		__field(u8, cause)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->port = port;
		__entry->old = old;
		__entry->state = state;
		__entry->cause = cause;
	),
	TP_printk("cid=%08x ev=%u %s->%s cause=%s", __entry->cid,
		  __entry->port,
		  __print_symbolic(__entry->old,
				   { MRC_EV_GOOD, "good" }, { MRC_EV_SKIP, "skip" },
				   { MRC_EV_BAD, "bad" },
				   { MRC_EV_DENIED, "denied" }),
		  __print_symbolic(__entry->state,
				   { MRC_EV_GOOD, "good" }, { MRC_EV_SKIP, "skip" },
				   { MRC_EV_BAD, "bad" },
				   { MRC_EV_DENIED, "denied" }),
		  __print_symbolic(__entry->cause,
				   { MRC_PATH_CAUSE_LOSS, "loss" },
				   { MRC_PATH_CAUSE_RTO, "rto" },
				   { MRC_PATH_CAUSE_CE, "ce" },
				   { MRC_PATH_CAUSE_PROBE, "probe" },
				   { MRC_PATH_CAUSE_DENIED, "denied" },
				   { MRC_PATH_CAUSE_ALLOWED, "allowed" },
				   { MRC_PATH_CAUSE_RECYCLED, "recycled" }))
);

TRACE_EVENT(mrc_cwnd,
	TP_PROTO(const struct sock *sk, u32 cwnd, u32 ssthresh, u32 in_flight),
	TP_ARGS(sk, cwnd, ssthresh, in_flight),
	TP_STRUCT__entry(
		__field(u32, cid)
		__field(u32, cwnd)
		__field(u32, ssthresh)
		__field(u32, in_flight)
	),
	TP_fast_assign(
		__entry->cid = mrc_sk(sk)->local_cid;
		__entry->cwnd = cwnd;
		__entry->ssthresh = ssthresh;
		__entry->in_flight = in_flight;
	),
	TP_printk("cid=%08x cwnd=%u ssthresh=%u in_flight=%u", __entry->cid,
		  __entry->cwnd, __entry->ssthresh, __entry->in_flight)
);

#endif /* _NET_MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
