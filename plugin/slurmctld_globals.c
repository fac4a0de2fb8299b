/*****************************************************************************\
 *  slurmctld_globals.c - fallback definitions of slurmctld's globals.
 *
 *  Exported as multifactor's are: client commands such as sshare load the
 *  priority plugin (for priority_g_calc_fs_factor) in processes that do not
 *  define them.  Inside slurmctld the executable's definitions take precedence
 *  (the dynamic linker binds the plugin's references to them).
 *
 *  Copyright (C) 2026 The Fairway authors.
 *  SPDX-License-Identifier: GPL-2.0-or-later
\*****************************************************************************/

#include <time.h>

#include "fairway_plugin.h"

void *acct_db_conn = NULL;
uint32_t cluster_cpus = NO_VAL;
list_t *job_list = NULL;
list_t *part_list = NULL;
time_t last_job_update = (time_t) 0;
time_t last_part_update = (time_t) 0;
int slurmctld_tres_cnt = 0;
uint16_t accounting_enforce = 0;
