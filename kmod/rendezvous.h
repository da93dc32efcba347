/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_RENDEZVOUS_H
#define _ENCD_RENDEZVOUS_H

#include <linux/types.h>

struct encd_xport;
struct sockaddr_storage;

/* The largest world the rendezvous forms: its peer table fits one frame. */
#define ENCD_WORLD_MAX		16384
#define ENCD_HOST_ID_LEN		16

/* What a rank tells the root about itself, and the root tells everyone. */
struct encd_peer_info {
	u8 host_id[ENCD_HOST_ID_LEN];
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u32 nec_dev;
};

/*
 * Forms the world through the root at @root: the rank with g_device_id 0
 * listens there and collects a HELLO from every other rank, turning away
 * any that disagrees (world size, an id out of range or taken); then every
 * rank gets the peer table. On success @x has its listener, rank, size,
 * token and peer addresses, and @peers (kvmalloc'ed, by rank) what each rank
 * said of itself. Runs within the deadline of the operation @x is in.
 */
int encd_rendezvous(struct encd_xport *x, const struct sockaddr_storage *root, u32 world_size,
		   u32 g_device_id, const struct encd_peer_info *self,
		   struct encd_peer_info **peers);

#endif /* _ENCD_RENDEZVOUS_H */
