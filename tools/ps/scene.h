/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The small simulated system that `rcuproc ps` lists. */
#ifndef RP_TOOLS_SCENE_H
#define RP_TOOLS_SCENE_H

#include <stdbool.h>
#include <rcuproc/rcuproc.h>

/*
 * Pids the scene takes besides its workers: init, sshd and its two threads,
 * bash, cron, watchdog, make, ld and two compilers.
 */
#define PS_SCENE_PIDS	11

/* The most workers: the whole pid space, pids 1 to RP_PID_MAX_LIMIT - 1. */
#define PS_WORKERS_MAX	(RP_PID_MAX_LIMIT - 1 - PS_SCENE_PIDS)
#define PS_WORKERS_MAX_WHY \
	"with the scene's own 11 processes, 4194292 fill the whole pid space: with " \
	"pid_max at its limit, 4194304, the pids are 1 to 4194303"
_Static_assert(PS_WORKERS_MAX == 4194292 && PS_SCENE_PIDS == 11, "PS_WORKERS_MAX_WHY's figures");

/*
 * The container of `ps --ns`: a pid namespace whose init runs two
 * services, one of which runs a sandbox, a namespace of its own below.
 */
#define PS_CONTAINER_PIDS	5

struct scene {
	struct rp_system *sys;
	struct rp_task *init;
	struct rp_task *held[24];	/* handles kept until the end */
	unsigned int nr_held;
};

/*
 * Build it in @mode with @workers extra processes, and with @container
 * the container too: 0 or -errno.
 */
int ps_scene_build(struct scene *s, enum rp_sync_mode mode, unsigned long workers,
		   bool container);
void ps_scene_destroy(struct scene *s);

#endif /* RP_TOOLS_SCENE_H */
