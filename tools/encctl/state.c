// SPDX-License-Identifier: GPL-2.0
/* Phases, counters, errors and enum names: see state.h. */
#include <stdio.h>
#include <string.h>

#include <enc/enc.h>

#include "nl.h"
#include "print.h"
#include "state.h"

#define NAME(table, i)							\
	((i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i] : "unknown")

static const char *const pod_types[] = {
	[ENCD_POD_TYPE_NONE] = "none",
	[ENCD_POD_TYPE_P2P] = "p2p",
	[ENCD_POD_TYPE_SWITCH] = "switch",
	[ENCD_POD_TYPE_INVALID] = "invalid",
};

static const char *const gcomm_states[] = {
	[ENCD_GCOMM_BUILT] = "built",
	[ENCD_GCOMM_BOOTSTRAPPED] = "bootstrapped",
};

static const char *const node_states[] = {
	[ENCD_NODE_PENDING] = "pending",
	[ENCD_NODE_VALIDATING] = "validating",
	[ENCD_NODE_BROADCASTING] = "broadcasting",
	[ENCD_NODE_CONNECTING] = "connecting",
	[ENCD_NODE_BARRIER] = "barrier",
	[ENCD_NODE_READY] = "ready",
	[ENCD_NODE_FAILED] = "failed",
};

static const char *const phases[] = {
	[ENCD_PHASE_RENDEZVOUS] = "rendezvous",
	[ENCD_PHASE_VALIDATE] = "validate",
	[ENCD_PHASE_BROADCAST] = "broadcast",
	[ENCD_PHASE_COMM_INIT] = "comm-init",
	[ENCD_PHASE_LOCAL_BARRIER] = "local-barrier",
};

static const char *const msg_types[] = {
	[ENCD_MSG_HELLO] = "hello",
	[ENCD_MSG_PEERS] = "peers",
	[ENCD_MSG_SIGNATURE] = "signature",
	[ENCD_MSG_UNIQUE_ID] = "unique-id",
	[ENCD_MSG_RING] = "ring",
	[ENCD_MSG_BARRIER] = "barrier",
};

const char *encctl_pod_type_name(uint32_t type)
{
	return NAME(pod_types, type);
}

const char *encctl_gcomm_state_name(uint32_t state)
{
	return NAME(gcomm_states, state);
}

const char *encctl_node_state_name(uint32_t state)
{
	return NAME(node_states, state);
}

const char *encctl_phase_name(uint32_t id)
{
	return NAME(phases, id);
}

const char *encctl_msg_type_name(uint32_t type)
{
	return NAME(msg_types, type);
}

void encctl_phase_add(struct encctl_phases *phases, const struct nlattr *nest)
{
	const struct nlattr *tb[ENCD_A_PHASE_MAX + 1] = {};
	struct encctl_phase *p;

	if (phases->n == ENCCTL_MAX_PHASES)
		return;
	encctl_nl_parse_nested(nest, tb, ENCD_A_PHASE_MAX);
	p = &phases->p[phases->n++];
	p->id = encctl_attr_u32(tb[ENCD_A_PHASE_ID], 0);
	p->start_ns = encctl_attr_u64(tb[ENCD_A_PHASE_START], 0);
	p->duration_ns = encctl_attr_u64(tb[ENCD_A_PHASE_DURATION], 0);
}

void encctl_counter_add(struct encctl_counters *counters, const struct nlattr *nest)
{
	const struct nlattr *tb[ENCD_A_COUNTER_MAX + 1] = {};
	struct encctl_counter *c;

	if (counters->n == ENCCTL_MAX_COUNTERS)
		return;
	encctl_nl_parse_nested(nest, tb, ENCD_A_COUNTER_MAX);
	c = &counters->c[counters->n++];
	c->type = encctl_attr_u32(tb[ENCD_A_COUNTER_TYPE], 0);
	c->size = encctl_attr_u32(tb[ENCD_A_COUNTER_SIZE], 0);
	c->tx = encctl_attr_u64(tb[ENCD_A_COUNTER_TX], 0);
	c->rx = encctl_attr_u64(tb[ENCD_A_COUNTER_RX], 0);
}

static int64_t opt_u32(const struct nlattr *attr)
{
	if (!attr || mnl_attr_validate(attr, MNL_TYPE_U32))
		return -1;
	return mnl_attr_get_u32(attr);
}

static bool get_sig(const struct nlattr *attr, uint8_t *sig)
{
	if (!attr || mnl_attr_get_payload_len(attr) != ENCD_SIG_LEN)
		return false;
	memcpy(sig, mnl_attr_get_payload(attr), ENCD_SIG_LEN);
	return true;
}

void encctl_error_parse(struct encctl_error *e, const struct nlattr *nest)
{
	const struct nlattr *tb[ENCD_A_ERROR_MAX + 1] = {};
	const char *msg;

	encctl_nl_parse_nested(nest, tb, ENCD_A_ERROR_MAX);
	memset(e, 0, sizeof(*e));
	e->valid = true;
	e->err = encctl_attr_u32(tb[ENCD_A_ERROR_ERRNO], 0);
	e->reason = encctl_attr_u32(tb[ENCD_A_ERROR_REASON], ENCD_REASON_NONE);
	msg = encctl_attr_str(tb[ENCD_A_ERROR_MSG]);
	snprintf(e->msg, sizeof(e->msg), "%s", msg ? msg : "");
	e->phase = opt_u32(tb[ENCD_A_ERROR_PHASE]);
	e->peer_rank = opt_u32(tb[ENCD_A_ERROR_PEER_RANK]);
	e->peer_g_device_id = opt_u32(tb[ENCD_A_ERROR_PEER_G_DEVICE_ID]);
	e->group_id = opt_u32(tb[ENCD_A_ERROR_GROUP_ID]);
	e->has_local_sig = get_sig(tb[ENCD_A_ERROR_LOCAL_SIG], e->local_sig);
	e->has_peer_sig = get_sig(tb[ENCD_A_ERROR_PEER_SIG], e->peer_sig);
}

void encctl_phases_print(const struct encctl_phases *ph)
{
	char buf[32];
	unsigned int i;

	print_open_array("phases");
	for (i = 0; i < ph->n; i++) {
		const struct encctl_phase *p = &ph->p[i];

		print_open_object(NULL);
		print_string(PRINT_ANY, "phase", " %s", encctl_phase_name(p->id));
		print_uint(PRINT_JSON, "start_ns", NULL, p->start_ns);
		if (p->duration_ns) {
			print_uint(PRINT_JSON, "duration_ns", NULL, p->duration_ns);
			print_string(PRINT_FP, NULL, " %s",
				     print_duration(p->duration_ns, buf, sizeof(buf)));
		} else {
			print_null("duration_ns");
			print_text(" (running)");
		}
		print_close();
	}
	print_close();
}

void encctl_counters_print(const struct encctl_counters *cs)
{
	unsigned int i;

	print_open_array("counters");
	for (i = 0; i < cs->n; i++) {
		const struct encctl_counter *c = &cs->c[i];

		print_open_object(NULL);
		print_string(PRINT_ANY, "type", " %s", encctl_msg_type_name(c->type));
		print_uint(PRINT_ANY, "size", "/%llu", c->size);
		print_uint(PRINT_ANY, "tx", " tx %llu", c->tx);
		print_uint(PRINT_ANY, "rx", " rx %llu", c->rx);
		print_close();
	}
	print_close();
}

static void print_sig(const char *key, const uint8_t *sig)
{
	char hex[2 * ENCD_SIG_LEN + 1];
	unsigned int i;

	for (i = 0; i < ENCD_SIG_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", sig[i]);
	print_string(PRINT_JSON, key, NULL, hex);
}

static void print_opt(const char *key, const char *fmt, int64_t value)
{
	if (value >= 0)
		print_int(PRINT_ANY, key, fmt, value);
	else
		print_null(key);
}

void encctl_error_print(const struct encctl_error *e, const char *indent)
{
	if (!e->valid) {
		print_null("error");
		return;
	}
	print_open_object("error");
	print_text("%serror:", indent);
	print_string(PRINT_ANY, "msg", " %s", e->msg[0] ? e->msg : strerror(e->err));
	print_uint(PRINT_JSON, "errno", NULL, e->err);
	print_string(PRINT_JSON, "reason", NULL, enc_reason_name(e->reason));
	if (e->phase >= 0)
		print_string(PRINT_ANY, "phase", " (in %s)", encctl_phase_name(e->phase));
	else
		print_null("phase");
	print_opt("peer_rank", ", bootstrap rank %lld", e->peer_rank);
	print_opt("peer_g_device_id", ", global device %lld", e->peer_g_device_id);
	print_opt("group_id", ", group %lld", e->group_id);
	if (e->has_local_sig)
		print_sig("local_sig", e->local_sig);
	if (e->has_peer_sig)
		print_sig("peer_sig", e->peer_sig);
	print_text("\n");
	print_close();
}
