/* SPDX-License-Identifier: GPL-2.0 */
/* mrc(8): shared declarations of the command-line tool. */
#ifndef MRC_TOOL_H
#define MRC_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes scripts can rely on; documented in mrc(8). */
enum {
	MRC_EXIT_OK	= 0,
	MRC_EXIT_KERNEL	= 1,	/* the kernel refused the request */
	MRC_EXIT_USAGE	= 2,	/* bad command line */
	MRC_EXIT_NOMRC	= 3,	/* mrc module not loaded (no genl family) */
	MRC_EXIT_SYSTEM	= 4,	/* netlink socket or memory trouble */
};

struct mrc_opts {
	bool json;
	bool pretty;
	bool stats;
};

extern struct mrc_opts opts;

/* genl.c */
struct mrc_nl;
struct mrc_nl *mrc_nl_open(int *exit_code);
void mrc_nl_close(struct mrc_nl *nl);
struct nlmsghdr *mrc_nl_msg(struct mrc_nl *nl, uint8_t cmd, uint16_t flags);
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data);
int mrc_nl_talk_quiet(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		      void *data, const int *quiet_errnos);
int mrc_nl_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb,
		 unsigned int max);
uint64_t mrc_nl_uint(const struct nlattr *attr, enum mnl_attr_data_type type);
int mrc_nl_join_events(struct mrc_nl *nl);
int mrc_nl_fd(struct mrc_nl *nl);
int mrc_nl_recv(struct mrc_nl *nl, mnl_cb_t cb, void *data);

/* output helpers (mrc.c) */
void mrc_out_begin(void);
void mrc_out_end(void);
void mrc_out_list_begin(void);
void mrc_out_list_end(void);
void mrc_out_u64(const char *key, uint64_t val);
void mrc_out_str(const char *key, const char *val);
void mrc_out_bool(const char *key, bool val);
void mrc_out_null(const char *key);

/* command-line values (mrc.c) */
bool matches(const char *arg, const char *full);
int mrc_parse_u64(const char *arg, uint64_t min, uint64_t max,
		  uint64_t *val);
int mrc_parse_cid(const char *arg, uint32_t *cid);
const char *mrc_word(const char *const *words, unsigned int n,
		     unsigned int val);

/* objects */
int cmd_config(int argc, char **argv);
int cmd_conn(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_stats(int argc, char **argv);

/* conn.c: the connections' local ids, for "mrc path show"; socket
 * states and addresses, for "mrc monitor"
 */
int mrc_conn_ids(struct mrc_nl *nl, uint32_t **cids, unsigned int *n);
const char *mrc_tcp_state_name(unsigned int state);
void mrc_conn_addr(const struct nlattr *a, int family, char *buf,
		   size_t len);
void mrc_conn_out_ids(const struct nlattr **tb, int family,
		      const char *saddr, const char *daddr);
extern const char *const mrc_ev_policy_words[3];

/* config.c: names of enum mrc_cc_algo */
extern const char *const mrc_cc_algo_words[3];

/* path.c: names of enum mrc_ev_state */
extern const char *const mrc_ev_state_words[4];

#endif
