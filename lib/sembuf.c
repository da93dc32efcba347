// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of the semaphore-increment value buffers.
 *
 * A mapping is cached per comm, named by its mmap offset (one per
 * nec_dev and context) and its serial: asking again for the same comm gives
 * the same pointer, while a comm rebuilt on the same core after a release is
 * a new object with its own page and gets a new mapping. Old mappings stay
 * until enc_destroy_gcomm_locks(), because a caller may still read them; the
 * kernel keeps their page alive after the comm is gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "enc_internal.h"

struct enc_sem_map {
	uint64_t offset;
	uint64_t serial;
	void *addr;
};

static pthread_mutex_t enc_sem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct enc_sem_map *enc_sem_maps;
static size_t enc_sem_nr, enc_sem_cap;

static struct enc_sem_map *sem_find(uint64_t offset, uint64_t serial)
{
	size_t i;

	for (i = 0; i < enc_sem_nr; i++)
		if (enc_sem_maps[i].offset == offset && enc_sem_maps[i].serial == serial)
			return &enc_sem_maps[i];
	return NULL;
}

/* Maps the buffer of @hdr's comm through @fd and remembers it; enc_sem_lock held. */
static NRT_STATUS sem_map(int fd, const struct encd_glb_comm_header *hdr, uint32_t vnc,
			  uint32_t ctx_id, void **addr)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct enc_sem_map *maps;
	const char *name;
	int err;

	if (enc_sem_nr == enc_sem_cap) {
		size_t cap = enc_sem_cap ? 2 * enc_sem_cap : 8;

		maps = realloc(enc_sem_maps, cap * sizeof(*maps));
		if (!maps)
			return enc_set_error_why(NRT_FAIL_HOST_MEM_ALLOC, ENCD_REASON_NO_MEMORY,
						 "enc_map_sem_values: out of memory");
		enc_sem_maps = maps;
		enc_sem_cap = cap;
	}

	*addr = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, hdr->inc_recv_sem_values_buffer);
	if (*addr == MAP_FAILED) {
		err = errno;
		name = strerrorname_np(err);
		return enc_set_error(enc_status_from_errno(err),
				     "global comm failed to mmap memory for the semaphore increment value buffer: enc_map_sem_values: mmap of core %u context %u: %s (%s)",
				     vnc, ctx_id, strerror(err), name ? name : "unknown errno");
	}
	enc_sem_maps[enc_sem_nr++] = (struct enc_sem_map) {
		.offset = hdr->inc_recv_sem_values_buffer,
		.serial = hdr->serial,
		.addr = *addr,
	};
	return NRT_SUCCESS;
}

NRT_STATUS enc_map_sem_values(uint32_t vnc, uint32_t ctx_id, const uint32_t **buf, size_t *size)
{
	struct encd_get_global_comm get = { .vnc = vnc, .ctx_id = ctx_id };
	struct enc_sem_map *m;
	NRT_STATUS st;
	void *addr = NULL;
	int fd;

	if (!buf || !size)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: %s is NULL",
					 __func__, buf ? "size" : "buf");

	/* the fd must stay open from the lookup to the mmap */
	fd = enc_dev_lock(&st);
	if (fd < 0)
		return st;
	st = enc_ioctl_locked(fd, ENCD_IOC_GET_GLOBAL_COMM, &get, sizeof(get), __func__);
	if (st != NRT_SUCCESS)
		goto out;

	pthread_mutex_lock(&enc_sem_lock);
	m = sem_find(get.hdr.inc_recv_sem_values_buffer, get.hdr.serial);
	if (m)
		addr = m->addr;
	else
		st = sem_map(fd, &get.hdr, vnc, ctx_id, &addr);
	pthread_mutex_unlock(&enc_sem_lock);
	if (st == NRT_SUCCESS) {
		*buf = addr;
		*size = get.hdr.inc_recv_sem_values_buffer_size;
	}
out:
	enc_dev_unlock();
	return st;
}

void enc_sem_unmap_all(void)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t i;

	pthread_mutex_lock(&enc_sem_lock);
	for (i = 0; i < enc_sem_nr; i++)
		munmap(enc_sem_maps[i].addr, page);
	free(enc_sem_maps);
	enc_sem_maps = NULL;
	enc_sem_nr = 0;
	enc_sem_cap = 0;
	pthread_mutex_unlock(&enc_sem_lock);
}
