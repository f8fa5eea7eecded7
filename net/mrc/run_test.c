// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for runs of packets in one UDP GSO datagram: which packets
 * may share one, and that the datagram cut every gso_size bytes gives
 * every packet back, its header, extensions and payload.
 */
#include <kunit/test.h>

#include "run.h"

#define RUN_PAYLOAD	100	/* bytes of each full packet */

/* A queued packet: @ext bytes of extension in its linear part, then
 * @len payload bytes of @page from @off, in @nfrags fragments.
 */
static struct sk_buff *run_pkt(struct kunit *test, struct page *page,
			       unsigned int ext, unsigned int off,
			       unsigned int len, unsigned int nfrags)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	unsigned int i, part;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 16);
	memset(skb_put(skb, ext), 0xe0 + ext, ext);
	for (i = 0; i < nfrags; i++) {
		part = i + 1 < nfrags ? len / nfrags : len - i * (len / nfrags);
		get_page(page);
		skb_fill_page_desc(skb, i, page, off, part);
		skb->len += part;
		skb->data_len += part;
		off += part;
	}
	return skb;
}

static void run_free(struct sk_buff **run, unsigned int n)
{
	while (n--)
		kfree_skb(run[n]);
}

static void mrc_run_fits_rules(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	struct sk_buff *run[4], *skb;

	KUNIT_ASSERT_NOT_NULL(test, page);
	run[0] = run_pkt(test, page, 0, 0, RUN_PAYLOAD, 2);
	run[1] = run_pkt(test, page, 0, 0, RUN_PAYLOAD, 1);
	KUNIT_EXPECT_TRUE(test, mrc_run_fits(run, 1, run[1]));
	/* a shorter packet ends a run: nothing may follow it */
	run[2] = run_pkt(test, page, 0, 0, RUN_PAYLOAD - 1, 1);
	KUNIT_EXPECT_TRUE(test, mrc_run_fits(run, 2, run[2]));
	run[3] = run_pkt(test, page, 0, 0, RUN_PAYLOAD - 1, 1);
	KUNIT_EXPECT_FALSE(test, mrc_run_fits(run, 3, run[3]));
	kfree_skb(run[3]);
	/* nor a longer one after the first */
	skb = run_pkt(test, page, 0, 0, RUN_PAYLOAD + 1, 1);
	KUNIT_EXPECT_FALSE(test, mrc_run_fits(run, 1, skb));
	kfree_skb(skb);
	/* a WRITE's packet of the same length on the wire may */
	skb = run_pkt(test, page, 8, 0, RUN_PAYLOAD - 8, 1);
	KUNIT_EXPECT_TRUE(test, mrc_run_fits(run, 2, skb));
	kfree_skb(skb);
	/* a packet whose payload is linear (a READ's response) may not */
	skb = run_pkt(test, page, MRC_RUN_EXT_MAX + 1, 0,
		      RUN_PAYLOAD - MRC_RUN_EXT_MAX - 1, 1);
	KUNIT_EXPECT_FALSE(test, mrc_run_fits(run, 1, skb));
	kfree_skb(skb);
	/* the fragments of one skb: 5 so far; a header and 11 fit, 12 not */
	skb = run_pkt(test, page, 0, 0, RUN_PAYLOAD, 11);
	KUNIT_EXPECT_TRUE(test, mrc_run_fits(run, 2, skb));
	kfree_skb(skb);
	skb = run_pkt(test, page, 0, 0, RUN_PAYLOAD, 12);
	KUNIT_EXPECT_FALSE(test, mrc_run_fits(run, 2, skb));
	kfree_skb(skb);
	run_free(run, 3);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	__free_page(page);
}

static void mrc_run_build_segments(struct kunit *test)
{
	static const unsigned int ext[] = { 0, 8, MRC_RUN_EXT_MAX, 0 };
	struct page *page = alloc_page(GFP_KERNEL);
	struct sk_buff *run[ARRAY_SIZE(ext)], *nskb;
	unsigned int i, n = ARRAY_SIZE(ext), hlen = 0, off = 0, seg, len;
	u8 *data, *hdrs, buf[256];

	KUNIT_ASSERT_NOT_NULL(test, page);
	data = page_address(page);
	for (i = 0; i < PAGE_SIZE; i++)
		data[i] = i * 7 + (i >> 8);
	/* packets of one length on the wire, the last shorter; payloads
	 * at different places in the page, in 1 to 3 fragments
	 */
	for (i = 0; i < n; i++) {
		len = RUN_PAYLOAD - ext[i] - (i + 1 == n ? 30 : 0);
		run[i] = run_pkt(test, page, ext[i], 200 * i + 3, len, i % 3 + 1);
		if (i)
			KUNIT_EXPECT_TRUE(test, mrc_run_fits(run, i, run[i]));
		hlen += mrc_run_hdr_len(run[i]);
	}
	hdrs = netdev_alloc_frag(hlen);
	KUNIT_ASSERT_NOT_NULL(test, hdrs);
	for (i = 0; i < n; i++) {
		struct mrc_data_hdr *d = (struct mrc_data_hdr *)(hdrs + off);

		memset(d, 0, sizeof(*d));
		d->psn = htonl(1000 + i);
		d->len = htons(run[i]->data_len);
		off += mrc_run_hdr_len(run[i]);
	}
	nskb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nskb);
	skb_reserve(nskb, 64);
	mrc_run_build(nskb, run, n, hdrs);

	seg = sizeof(struct mrc_data_hdr) + RUN_PAYLOAD;
	KUNIT_EXPECT_EQ(test, skb_shinfo(nskb)->gso_size, seg);
	KUNIT_EXPECT_EQ(test, skb_shinfo(nskb)->gso_segs, n);
	KUNIT_EXPECT_TRUE(test, skb_shinfo(nskb)->gso_type & SKB_GSO_UDP_L4);
	KUNIT_EXPECT_EQ(test, nskb->len, (n - 1) * seg + seg - 30);
	KUNIT_EXPECT_EQ(test, skb_headlen(nskb), 0U);
	/* cut every gso_size bytes: each packet, whole, in order */
	for (i = 0, off = 0; i < n; i++, off += seg) {
		const struct mrc_data_hdr *d = (const void *)buf;
		unsigned int plen = run[i]->data_len;

		len = min(seg, nskb->len - off);
		KUNIT_ASSERT_EQ(test, skb_copy_bits(nskb, off, buf, len), 0);
		KUNIT_EXPECT_EQ(test, len, mrc_run_seg_len(run[i]));
		KUNIT_EXPECT_EQ(test, ntohl(d->psn), 1000 + i);
		KUNIT_EXPECT_EQ(test, ntohs(d->len), plen);
		KUNIT_EXPECT_EQ(test, memcmp(buf + sizeof(*d), run[i]->data,
					     ext[i]), 0);
		KUNIT_EXPECT_EQ(test, memcmp(buf + sizeof(*d) + ext[i],
					     data + 200 * i + 3, plen), 0);
	}
	/* the payload pages are shared, a reference per fragment */
	kfree_skb(nskb);
	run_free(run, n);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	__free_page(page);
}

static struct kunit_case mrc_run_cases[] = {
	KUNIT_CASE(mrc_run_fits_rules),
	KUNIT_CASE(mrc_run_build_segments),
	{}
};

static struct kunit_suite mrc_run_suite = {
	.name = "mrc_run",
	.test_cases = mrc_run_cases,
};

kunit_test_suite(mrc_run_suite);
