// SPDX-License-Identifier: GPL-2.0
/*
 * encctl comm [show] [dev NEC_DEV] [ctx CTX]: the global comms, whole, with
 * their comm nodes.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "encctl.h"
#include "gcomm.h"
#include "print.h"

static int comm_help(int argc, char **argv)
{
	int ret = encctl_no_args("comm help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j [-p]] comm [show] [dev NEC_DEV] [ctx CTX]\n"
	       "       encctl comm help\n"
	       "\n"
	       "Shows the global comms of this host (or of one NeuronCore device and/or\n"
	       "context) with their comm nodes. With both dev and ctx, a comm that is not\n"
	       "there is an error. list is another name for show.\n");
	return ENCCTL_EXIT_OK;
}

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	encctl_gcomm_parse(nlh, data);
	return MNL_CB_OK;
}

/* With both keys given the comm must exist: ask for it, and fail in words. */
static int comm_check(struct encctl_nl *nl, uint32_t nec_dev, uint32_t ctx)
{
	struct encctl_gcomm g;
	struct nlmsghdr *req;
	char what[64];

	req = encctl_nl_request(nl, ENCD_NL_CMD_GCOMM_GET, 0);
	mnl_attr_put_u32(req, ENCD_A_GCOMM_NEC_DEV, nec_dev);
	mnl_attr_put_u32(req, ENCD_A_GCOMM_CTX, ctx);
	snprintf(what, sizeof(what), "comm dev %u ctx %u", nec_dev, ctx);
	return encctl_nl_talk(nl, req, get_cb, &g, what, encctl_gcomm_attr_name);
}

static const char *const show_words[] = { "dev", "ctx", NULL };

static int comm_show(int argc, char **argv)
{
	uint32_t nec_dev = 0, ctx = 0;
	bool has_dev = false, has_ctx = false;
	struct encctl_gcomms comms;
	struct encctl_nl nl;
	unsigned int i;
	int ret = ENCCTL_EXIT_FAIL;

	for (; argc > 0; argc -= 2, argv += 2) {
		const char *value = argc > 1 ? argv[1] : NULL;

		if (argv[0][0] == '-' && argv[0][1])
			return encctl_bad_option("comm show", argv[0], NULL, show_words);
		switch (encctl_word_index(argv[0], show_words)) {
		case 0:
			if (encctl_parse_u32("comm show", "dev", value, ENCD_NEC_MAX_DEVICES - 1,
					     &nec_dev))
				return ENCCTL_EXIT_USAGE;
			has_dev = true;
			break;
		case 1:
			if (encctl_parse_u32("comm show", "ctx", value, ENCD_MAX_CONTEXTS - 1,
					     &ctx))
				return ENCCTL_EXIT_USAGE;
			has_ctx = true;
			break;
		default:
			return encctl_bad_word("comm show", "argument", argv[0], show_words, NULL);
		}
	}

	if (encctl_nl_open(&nl))
		return ENCCTL_EXIT_FAIL;
	if (has_dev && has_ctx && comm_check(&nl, nec_dev, ctx))
		goto out;
	if (encctl_gcomms_read(&nl, has_dev ? (int)nec_dev : -1, has_ctx ? (int)ctx : -1,
			       &comms))
		goto out;

	print_open_array(NULL);
	for (i = 0; i < comms.n; i++)
		encctl_gcomm_print(NULL, &comms.comms[i], true);
	print_close();
	print_doc_end();
	encctl_gcomms_free(&comms);
	ret = ENCCTL_EXIT_OK;
out:
	encctl_nl_close(&nl);
	return ret;
}

static const struct cmd cmds[] = {
	{ "show", comm_show },
	{ "list", comm_show },
	{ "help", comm_help },
	{ NULL, NULL },
};

int do_comm(int argc, char **argv)
{
	return cmd_select(cmds, "comm", argc, argv, comm_show);
}
