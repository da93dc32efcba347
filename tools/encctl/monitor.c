// SPDX-License-Identifier: GPL-2.0
/*
 * encctl monitor: prints encd's events as they arrive, until interrupted.
 * With -j, one JSON object per line: {"event": NAME, "comm"|"node": {...}}.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include "args.h"
#include "encctl.h"
#include "gcomm.h"
#include "print.h"

static volatile sig_atomic_t stop;

static int monitor_help(int argc, char **argv)
{
	int ret = encctl_no_args("monitor help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j] monitor\n"
	       "       encctl monitor help\n"
	       "\n"
	       "Prints the module's events until interrupted (SIGINT or SIGTERM; exit 0):\n"
	       "gcomm-add and gcomm-del (a global comm built, torn down), world-formed,\n"
	       "world-failed, sig-mismatch and node-del (comm nodes). Joining needs no\n"
	       "privilege. With -j each event is one JSON object on its own line.\n");
	return ENCCTL_EXIT_OK;
}

static void on_signal(int sig)
{
	stop = 1;
}

static const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case ENCD_NL_CMD_GCOMM_ADD_NTF:
		return "gcomm-add";
	case ENCD_NL_CMD_GCOMM_DEL_NTF:
		return "gcomm-del";
	case ENCD_NL_CMD_WORLD_FORMED_NTF:
		return "world-formed";
	case ENCD_NL_CMD_WORLD_FAILED_NTF:
		return "world-failed";
	case ENCD_NL_CMD_SIG_MISMATCH_NTF:
		return "sig-mismatch";
	case ENCD_NL_CMD_NODE_DEL_NTF:
		return "node-del";
	}
	return NULL;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct encctl_nl *nl = data;
	struct encctl_gcomm g;
	struct encctl_node n;
	const char *name;

	if (nlh->nlmsg_type != nl->family)
		return MNL_CB_OK;
	name = event_name(genl->cmd);
	if (!name)
		return MNL_CB_OK;

	print_open_object(NULL);
	print_string(PRINT_ANY, "event", "[%s] ", name);
	if (genl->cmd == ENCD_NL_CMD_GCOMM_ADD_NTF || genl->cmd == ENCD_NL_CMD_GCOMM_DEL_NTF) {
		encctl_gcomm_parse(nlh, &g);
		encctl_gcomm_print("comm", &g, false);
	} else if (!encctl_node_parse(nlh, &n)) {
		encctl_node_print("node", &n, "");
		encctl_node_free(&n);
	}
	print_close();
	print_doc_end();
	fflush(stdout);
	return MNL_CB_OK;
}

/* cmd_select() runs it with no word left: monitor has no other arguments. */
static int monitor_run(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct encctl_nl nl;
	ssize_t n;
	int ret = ENCCTL_EXIT_OK;

	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	if (encctl_nl_subscribe(&nl)) {
		encctl_nl_close(&nl);
		return ENCCTL_EXIT_FAIL;
	}
	/* No SA_RESTART: a signal ends the wait in recv. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		n = mnl_socket_recvfrom(nl.sock, nl.buf, ENCCTL_NL_BUF);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Not the end: the events after the lost ones still come. */
			if (errno == ENOBUFS) {
				encctl_warn("monitor: events were lost (too many at once)");
				continue;
			}
			ret = encctl_err(ENCCTL_EXIT_FAIL, "monitor: %s", strerror(errno));
			break;
		}
		mnl_cb_run(nl.buf, n, 0, 0, event_cb, &nl);
	}
	encctl_nl_close(&nl);
	return ret;
}

static const struct cmd cmds[] = {
	{ "help", monitor_help },
	{ NULL, NULL },
};

int do_monitor(int argc, char **argv)
{
	return cmd_select(cmds, "monitor", argc, argv, monitor_run);
}
