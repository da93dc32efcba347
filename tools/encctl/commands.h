/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects encctl knows. Each file that implements one defines a
 * `const struct encctl_cmd encctl_cmd_<name>` and adds itself here and to
 * ENCCTL_OBJS in tools/tools.mk.
 */
#ifndef _ENCCTL_COMMANDS_H
#define _ENCCTL_COMMANDS_H

#include "encctl.h"

extern const struct encctl_cmd encctl_cmd_status;
extern const struct encctl_cmd encctl_cmd_comm;
extern const struct encctl_cmd encctl_cmd_topo;
extern const struct encctl_cmd encctl_cmd_monitor;
extern const struct encctl_cmd encctl_cmd_world;
extern const struct encctl_cmd encctl_cmd_program;

#define ENCCTL_COMMANDS		\
	&encctl_cmd_status,	\
	&encctl_cmd_comm,	\
	&encctl_cmd_topo,	\
	&encctl_cmd_monitor,	\
	&encctl_cmd_world,	\
	&encctl_cmd_program,

#endif /* _ENCCTL_COMMANDS_H */
