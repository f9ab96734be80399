/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc: a process table whose read paths run under RCU.  Umbrella header. */
#ifndef RCUPROC_RCUPROC_H
#define RCUPROC_RCUPROC_H

#include <rcuproc/hlist.h>
#include <rcuproc/hlist_nulls.h>
#include <rcuproc/list.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/proc.h>
#include <rcuproc/snapshot.h>
#include <rcuproc/seqcount.h>
#include <rcuproc/sync.h>
#include <rcuproc/timers.h>
#include <rcuproc/tty.h>
#include <rcuproc/version.h>

#endif /* RCUPROC_RCUPROC_H */
