// SPDX-License-Identifier: GPL-2.0
/*
 * A rank's place in the world from its launcher's environment
 * (enc/launch.h). Each launcher is a row of variable names: what it names
 * is read, checked to be a number or a host, and compared with what every
 * other launcher present names for the same value.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <enc/launch.h>

#include "enc_internal.h"

extern char **environ;

struct launcher {
	const char *name;
	/* By enum enc_launch_field; the root's is its host's variable. */
	const char *var[ENC_LAUNCH_FIELD_N];
	const char *alt_var[ENC_LAUNCH_FIELD_N];	/* read when var is not set */
	const char *port_var;		/* the root's port; Slurm's: root_port() */
	/*
	 * How many hosts the world spans: the "nodes" count them (the first
	 * set of the two), the "local size" is how many ranks this host has
	 * (fewer than the world's: there are other hosts).
	 */
	const char *nodes_var[2], *local_size_var;
};

static const struct launcher launchers[ENC_LAUNCHER_N] = {
	[ENC_LAUNCHER_SLURM] = {
		.name = "slurm",
		.var = { "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_STEP_NODELIST" },
		.alt_var = { NULL, "SLURM_NPROCS", NULL, "SLURM_JOB_NODELIST" },
		.nodes_var = { "SLURM_STEP_NUM_NODES", "SLURM_JOB_NUM_NODES" },
	},
	[ENC_LAUNCHER_TORCH] = {
		.name = "torchrun",
		.var = { "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR" },
		.port_var = "MASTER_PORT",
		.local_size_var = "LOCAL_WORLD_SIZE",
	},
	[ENC_LAUNCHER_OPENMPI] = {
		.name = "openmpi",
		.var = { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
			 "OMPI_COMM_WORLD_LOCAL_RANK", NULL },
		.local_size_var = "OMPI_COMM_WORLD_LOCAL_SIZE",
	},
	[ENC_LAUNCHER_PMIX] = {
		.name = "pmix",
		.var = { "PMIX_RANK", NULL, NULL, NULL },
	},
};

static const char *const field_names[ENC_LAUNCH_FIELD_N] = {
	[ENC_LAUNCH_RANK] = "rank",
	[ENC_LAUNCH_WORLD_SIZE] = "world size",
	[ENC_LAUNCH_LOCAL_RANK] = "local rank",
	[ENC_LAUNCH_ROOT] = "root",
};

const char *enc_launcher_name(enum enc_launcher launcher)
{
	return (unsigned int)launcher < ENC_LAUNCHER_N ? launchers[launcher].name : NULL;
}

/* The value of @name in @envp; NULL when it is not set, or @name is NULL. */
static const char *env_get(char *const *envp, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	for (; len && envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return *envp + len + 1;
	return NULL;
}

/* A decimal u32, nothing else (no sign, no space); 0 or -1. */
static int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
		if (x > UINT32_MAX)
			return -1;
	}
	*v = x;
	return 0;
}

/* Copies s[0..n) into out with room for it; -1 (ERANGE) if it has none. */
static int put(char *out, size_t size, size_t *at, const char *s, size_t n)
{
	if (*at + n >= size) {
		errno = ERANGE;
		return -1;
	}
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
	return 0;
}

/*
 * One "[...]" of a host list, at s just past the '['. Checks every range
 * in it ("01-04", "07") and gives the first one's low end, as written (its
 * zero padding kept); returns the end, past the ']', or NULL if malformed.
 */
static const char *bracket(const char *s, const char **lo, size_t *lo_len)
{
	*lo = NULL;
	for (;;) {
		const char *a = s, *b;
		unsigned long x, y;
		char *end;

		if (*s < '0' || *s > '9')
			return NULL;
		x = strtoul(s, &end, 10);
		s = end;
		if (!*lo) {
			*lo = a;
			*lo_len = s - a;
		}
		if (*s == '-') {
			b = ++s;
			if (*s < '0' || *s > '9')
				return NULL;
			y = strtoul(b, &end, 10);
			s = end;
			if (y < x)
				return NULL;
		}
		if (*s == ']')
			return s + 1;
		if (*s != ',')
			return NULL;
		s++;
	}
}

int enc_slurm_first_host(const char *list, char *out, size_t size)
{
	bool first = true;
	size_t at = 0;
	const char *s;

	if (!size) {
		errno = ERANGE;
		return -1;
	}
	out[0] = '\0';
	/* Every host of the list is checked; the first one is kept. */
	for (s = list; ; ) {
		size_t name_len = 0;

		while (*s && *s != ',') {
			const char *lo;
			size_t lo_len;

			if (*s == '[') {
				s = bracket(s + 1, &lo, &lo_len);
				if (!s)
					goto bad;
				if (first && put(out, size, &at, lo, lo_len))
					return -1;
				name_len++;
				continue;
			}
			if (*s == ']' || *s == ' ')
				goto bad;
			if (first && put(out, size, &at, s, 1))
				return -1;
			s++;
			name_len++;
		}
		if (!name_len)
			goto bad;
		first = false;
		if (!*s)
			return 0;
		s++;
	}
bad:
	out[0] = '\0';
	errno = EINVAL;
	return -1;
}

/* Whether a launcher's own variables say the world spans more than one host. */
static bool spans_hosts(char *const *envp, const struct launcher *ln, uint32_t world_size)
{
	const char *v;
	uint32_t n;

	for (int i = 0; i < 2; i++) {
		v = env_get(envp, ln->nodes_var[i]);
		if (v && !parse_u32(v, &n))
			return n > 1;
	}
	v = env_get(envp, ln->local_size_var);
	if (v && !parse_u32(v, &n))
		return n < world_size;
	return true;
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* The first address of @family that is not loopback. */
static struct addrinfo *routable(struct addrinfo *ai, int family)
{
	for (; ai; ai = ai->ai_next)
		if (ai->ai_family == family && !is_loopback(ai->ai_addr))
			return ai;
	return NULL;
}

static const char *addr_str(const struct addrinfo *ai, char *num, size_t size)
{
	const void *a = ai->ai_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)ai->ai_addr)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;

	return inet_ntop(ai->ai_family, a, num, size) ? num : "?";
}

/*
 * @host to a numeric root_comm_id with @port: the first address that is not
 * loopback (IPv4 before IPv6), else a loopback one if the world stays on
 * this host.
 */
static NRT_STATUS resolve_root(const char *host, uint16_t port, bool spans, const char *from,
			       char *out, size_t size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *pick;
	char num[INET6_ADDRSTRLEN];
	int err;

	err = getaddrinfo(host, NULL, &hints, &res);
	if (err)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: the root host '%s' (%s) does not resolve: %s",
					 host, from, gai_strerror(err));
	pick = routable(res, AF_INET);
	if (!pick)
		pick = routable(res, AF_INET6);
	if (!pick && spans) {
		addr_str(res, num, sizeof(num));
		freeaddrinfo(res);
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: the root host '%s' (%s) resolves only to %s here, a loopback address the world's other hosts cannot reach; give the root's address",
					 host, from, num);
	}
	if (!pick)
		pick = res;
	snprintf(out, size, pick->ai_family == AF_INET ? "%s:%u" : "[%s]:%u",
		 addr_str(pick, num, sizeof(num)), port);
	freeaddrinfo(res);
	return NRT_SUCCESS;
}

/* The port of a Slurm step's root from its job's id @job and its step's. */
static NRT_STATUS slurm_root_port(char *const *envp, uint32_t job, uint16_t *port, char *from,
				  size_t size)
{
	const char *step = env_get(envp, "SLURM_STEP_ID");
	uint32_t s = 0;

	if (step && parse_u32(step, &s))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: %s=%s is not a %s", "SLURM_STEP_ID", step, "step id");
	/* 64-bit: the step's stride must not wrap before the modulo. */
	*port = ENC_LAUNCH_SLURM_PORT_BASE +
		((uint64_t)job + (uint64_t)s * ENC_LAUNCH_SLURM_STEP_STRIDE) %
		ENC_LAUNCH_SLURM_PORT_SPAN;
	if (step)
		snprintf(from + strlen(from), size - strlen(from), "+SLURM_STEP_ID");
	return NRT_SUCCESS;
}

/* The port of a launcher's root: its own variable's, or Slurm's step's. */
static NRT_STATUS root_port(char *const *envp, enum enc_launcher id, uint16_t *port,
			    char *from, size_t size)
{
	const char *var = id == ENC_LAUNCHER_SLURM ? "SLURM_JOB_ID" : launchers[id].port_var;
	const char *v = env_get(envp, var);
	uint32_t n;

	if (!v)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: %s names the root's host but not its port (%s is not set); give a port",
					 launchers[id].name, var);
	if (parse_u32(v, &n) || (id != ENC_LAUNCHER_SLURM && (!n || n >= 65535)))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: %s=%s is not a %s", var, v,
					 id == ENC_LAUNCHER_SLURM ? "job id" : "port below 65535");
	snprintf(from + strlen(from), size - strlen(from), ":%s", var);
	if (id == ENC_LAUNCHER_SLURM)
		return slurm_root_port(envp, n, port, from, size);
	*port = n + 1;
	return NRT_SUCCESS;
}

/* What launcher @id names for the root, resolved, into @val; 1 if nothing. */
static int launcher_root(char *const *envp, struct enc_launch *l, enum enc_launcher id,
			 const char *var, const char *v, char *val, size_t size, char *from,
			 size_t from_size)
{
	char host[sizeof(l->root_host)];
	uint16_t port = l->port;

	snprintf(from, from_size, "%s", var);
	if (id == ENC_LAUNCHER_SLURM) {
		if (enc_slurm_first_host(v, host, sizeof(host)))
			return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
						 "launcher: %s=%s is not a Slurm host list", var, v);
	} else {
		if (!*v || strlen(v) >= sizeof(host))
			return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
						 "launcher: %s='%s' is not a host", var, v);
		snprintf(host, sizeof(host), "%s", v);
	}
	if (!port && root_port(envp, id, &port, from, from_size))
		return NRT_INVALID;
	if (resolve_root(host, port, spans_hosts(envp, &launchers[id], l->world_size), var, val,
			 size))
		return NRT_INVALID;
	if (!(l->found & (1u << ENC_LAUNCH_ROOT)))
		snprintf(l->root_host, sizeof(l->root_host), "%s", host);
	return 0;
}

/* The first of the launcher's two names for a value that is set. */
static const char *launcher_var(char *const *envp, const struct launcher *ln, int f,
				const char **v)
{
	*v = env_get(envp, ln->var[f]);
	if (*v)
		return ln->var[f];
	*v = env_get(envp, ln->alt_var[f]);
	return *v ? ln->alt_var[f] : NULL;
}

static uint32_t *field_u32(struct enc_launch *l, int f)
{
	return f == ENC_LAUNCH_RANK ? &l->rank : f == ENC_LAUNCH_WORLD_SIZE ? &l->world_size :
	       &l->local_rank;
}

/* One value from every launcher present, checked to agree. */
static NRT_STATUS read_field(char *const *envp, struct enc_launch *l, uint32_t pick, int f)
{
	char val[ENC_LAUNCH_ROOT_MAX], from[sizeof(l->from[0])];
	char first_val[ENC_LAUNCH_ROOT_MAX] = "";
	int first = -1;

	for (int id = 0; id < ENC_LAUNCHER_N; id++) {
		const char *var, *v;
		uint32_t n = 0;

		if (!(pick & (1u << id)))
			continue;
		var = launcher_var(envp, &launchers[id], f, &v);
		if (!var)
			continue;
		if (f == ENC_LAUNCH_ROOT) {
			if (launcher_root(envp, l, id, var, v, val, sizeof(val), from,
					  sizeof(from)))
				return NRT_INVALID;
		} else {
			if (parse_u32(v, &n))
				return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
							 "launcher: %s=%s is not a %s", var, v,
							 field_names[f]);
			snprintf(val, sizeof(val), "%u", n);
			snprintf(from, sizeof(from), "%s", var);
		}
		if (first < 0) {
			first = id;
			snprintf(first_val, sizeof(first_val), "%s", val);
			memcpy(l->from[f], from, sizeof(from));
			if (f == ENC_LAUNCH_ROOT)
				memcpy(l->root, val, sizeof(val));
			else
				*field_u32(l, f) = n;
			l->found |= 1u << f;
		} else if (strcmp(first_val, val)) {
			return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
						 "launcher: %s and %s disagree on the %s: %s says %s, %s says %s; pick one launcher",
						 launchers[first].name, launchers[id].name,
						 field_names[f], l->from[f], first_val, from, val);
		}
	}
	return NRT_SUCCESS;
}

/* "slurm (SLURM_PROCID, SLURM_NTASKS), pmix (PMIX_RANK)" of what is set. */
static void describe_present(char *const *envp, uint32_t present, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (int id = 0; id < ENC_LAUNCHER_N; id++) {
		const char *sep = "";

		if (!(present & (1u << id)))
			continue;
		at += snprintf(out + at, at < size ? size - at : 0, "%s%s (", at ? ", " : "",
			       launchers[id].name);
		for (int f = 0; f < ENC_LAUNCH_FIELD_N; f++) {
			const char *v, *var = launcher_var(envp, &launchers[id], f, &v);

			if (var) {
				at += snprintf(out + at, at < size ? size - at : 0, "%s%s", sep, var);
				sep = ", ";
			}
		}
		at += snprintf(out + at, at < size ? size - at : 0, ")");
	}
}

NRT_STATUS enc_launch_from_env(char *const *envp, struct enc_launch *l)
{
	uint32_t pick;
	char found[512];

	if (!l)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "enc_launch_from_env: the launch is NULL");
	if (!envp)
		envp = environ;
	pick = l->launchers ? l->launchers : (1u << ENC_LAUNCHER_N) - 1;
	if (pick >= 1u << ENC_LAUNCHER_N)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "enc_launch_from_env: launchers 0x%x name no launcher libenc knows",
					 pick);
	l->present = 0;
	l->found = l->given & ((1u << ENC_LAUNCH_FIELD_N) - 1);
	l->root_host[0] = '\0';
	for (int f = 0; f < ENC_LAUNCH_FIELD_N; f++)
		if (!(l->given & (1u << f)))
			l->from[f][0] = '\0';
	for (int id = 0; id < ENC_LAUNCHER_N; id++) {
		for (int f = 0; f < ENC_LAUNCH_FIELD_N; f++) {
			const char *v;

			if ((pick & (1u << id)) && launcher_var(envp, &launchers[id], f, &v))
				l->present |= 1u << id;
		}
	}
	if (!l->present)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: none found in the environment: none of SLURM_PROCID, RANK, OMPI_COMM_WORLD_RANK or PMIX_RANK%s is set",
					 l->launchers ? " of the launchers asked for" : "");
	/* The world size first: whether the root may be loopback depends on it. */
	static const int order[] = { ENC_LAUNCH_WORLD_SIZE, ENC_LAUNCH_RANK, ENC_LAUNCH_LOCAL_RANK,
				     ENC_LAUNCH_ROOT };
	for (unsigned int i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!(l->given & (1u << order[i])) && read_field(envp, l, l->present, order[i]))
			return NRT_INVALID;
	for (int f = 0; f < ENC_LAUNCH_ROOT; f++) {
		if (l->found & (1u << f))
			continue;
		describe_present(envp, l->present, found, sizeof(found));
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: no launcher names this rank's %s; found %s",
					 field_names[f], found);
	}
	if (!l->world_size)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: the world size (%s) is 0", l->from[ENC_LAUNCH_WORLD_SIZE]);
	/*
	 * A launcher's local rank counts its ranks on the host, so it is below
	 * the world size; a core the caller gave is any core of this host.
	 */
	if (l->rank >= l->world_size ||
	    (l->local_rank >= l->world_size && !(l->given & (1u << ENC_LAUNCH_LOCAL_RANK))))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "launcher: rank %u (%s) or local rank %u (%s) is not inside a world of %u (%s)",
					 l->rank, l->from[ENC_LAUNCH_RANK], l->local_rank,
					 l->from[ENC_LAUNCH_LOCAL_RANK], l->world_size,
					 l->from[ENC_LAUNCH_WORLD_SIZE]);
	return NRT_SUCCESS;
}
