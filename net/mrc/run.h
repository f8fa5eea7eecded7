/* SPDX-License-Identifier: GPL-2.0 */
/* Runs of data packets sent on one EV as one UDP GSO datagram: which
 * packets may share one, and how its skb is put together from the queued
 * packets.  Used by output.c (mrc_xmit_run()) and tested by run_test.c.
 */
#ifndef _NET_MRC_RUN_H
#define _NET_MRC_RUN_H

#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "wire.h"

/* The most a packet sent in a run may hold in its linear part: a WRITE's
 * extensions.  The rest of it is in page fragments.
 */
#define MRC_RUN_EXT_MAX		(sizeof(struct mrc_rdma_ext) + \
				 sizeof(struct mrc_imm_ext))

/* A queued packet's header bytes on the wire: its DATA header and what
 * its linear part holds (a WRITE's extensions).
 */
static inline unsigned int mrc_run_hdr_len(const struct sk_buff *skb)
{
	return sizeof(struct mrc_data_hdr) + skb_headlen(skb);
}

/* A queued packet on the wire: its headers and its payload. */
static inline unsigned int mrc_run_seg_len(const struct sk_buff *skb)
{
	return sizeof(struct mrc_data_hdr) + skb->len;
}

/**
 * mrc_run_fits() - whether a packet can join a run of packets
 * @run: the run so far, at least one packet
 * @n: packets in @run
 * @skb: the next packet queued
 *
 * A run leaves as one UDP GSO datagram: every packet but the last as long
 * as the first (the datagram is cut at gso_size), each packet's headers
 * one page fragment and its payload its own fragments, all of them in
 * one skb's fragments.  A packet whose linear part holds more than its
 * extensions (a READ's response, built in a linear buffer) goes alone.
 *
 * Return: true if @skb can be the run's packet @n.
 */
static inline bool mrc_run_fits(struct sk_buff *const *run, unsigned int n,
				const struct sk_buff *skb)
{
	unsigned int seg = mrc_run_seg_len(run[0]), frags = 0, i;

	if (skb_headlen(skb) > MRC_RUN_EXT_MAX ||
	    mrc_run_seg_len(run[n - 1]) != seg ||
	    mrc_run_seg_len(skb) > seg)
		return false;
	for (i = 0; i < n; i++)
		frags += 1 + skb_shinfo(run[i])->nr_frags;
	return frags + 1 + skb_shinfo(skb)->nr_frags <= MAX_SKB_FRAGS;
}

/**
 * mrc_run_build() - put a run of packets into one UDP GSO skb
 * @nskb: a new skb with no data, its headroom reserved
 * @run: the queued packets, each one allowed by mrc_run_fits()
 * @n: how many, at least 2
 * @hdrs: a page fragment of the sum of their mrc_run_hdr_len(), each
 *        packet's DATA header written at its start of it (the packets'
 *        headers one after the other); its one page reference goes to
 *        @nskb
 *
 * Each packet's linear bytes follow its DATA header in @hdrs; then the
 * packet is @nskb's fragment of those headers and its own payload
 * fragments (the pages shared, a reference each).  Cut every gso_size
 * bytes, @nskb gives the packets back one by one.
 */
static inline void mrc_run_build(struct sk_buff *nskb,
				 struct sk_buff *const *run, unsigned int n,
				 u8 *hdrs)
{
	struct skb_shared_info *nsi = skb_shinfo(nskb);
	struct page *page = virt_to_head_page(hdrs);
	unsigned int i, j, f = 0;

	for (i = 0; i < n; i++) {
		const struct skb_shared_info *si = skb_shinfo(run[i]);
		unsigned int len = mrc_run_hdr_len(run[i]);

		memcpy(hdrs + sizeof(struct mrc_data_hdr), run[i]->data,
		       skb_headlen(run[i]));
		if (i)
			get_page(page);
		skb_fill_page_desc(nskb, f++, page,
				   hdrs - (u8 *)page_address(page), len);
		for (j = 0; j < si->nr_frags; j++) {
			nsi->frags[f] = si->frags[j];
			__skb_frag_ref(&nsi->frags[f++]);
		}
		nskb->len += len + run[i]->data_len;
		hdrs += len;
	}
	nsi->nr_frags = f;
	nskb->data_len = nskb->len;
	nskb->truesize += nskb->len;
	nsi->gso_size = mrc_run_seg_len(run[0]);
	nsi->gso_type = SKB_GSO_UDP_L4;
	nsi->gso_segs = n;
}

#endif /* _NET_MRC_RUN_H */
