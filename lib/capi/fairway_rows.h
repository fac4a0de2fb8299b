/*
 * fairway_rows.h - Fairway's C API for the memory of sprio's rows: rows of a caller's
 * type, each with its variable part behind it, carved out of 1 MiB blocks, one allocation
 * per few thousand rows instead of two to four per row.
 *
 * A list's rows are made and then freed by one thread at a time (a block counts its rows
 * without atomics), one fairway_row_fill_t per list, and freed one by one with
 * fairway_row_free() in any order (a list's destructor is given only the row): a block goes
 * back with its last row.  Blocks given back are kept by the arena for the next
 * lists, up to 32 of them (32 MiB): fresh memory costs a page fault per 4 KiB page on first
 * touch, which was a third of sprio's time at 100,000 jobs.  Several threads may make and
 * free lists from one arena at once; its kept blocks are under its own lock, taken once per
 * block.  fairway_row_arena_destroy() frees the kept blocks.
 *
 * Plain C over fairway.h (its errors), with the same habits: every failure is a
 * fairway_error_t with details in fairway_last_error(), "Errors:" on each function.
 *
 * Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
 */
#ifndef FAIRWAY_ROWS_H
#define FAIRWAY_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fairway_row_arena fairway_row_arena_t;
struct fairway_row_block;

/* The block one list's rows are being made in; zeroed before a list's first row.  It owns
 * nothing (each block is its rows'). */
typedef struct fairway_row_fill {
  struct fairway_row_block* block;
  char* at;    /* the block's first free byte */
  size_t left; /* its free bytes */
} fairway_row_fill_t;

/*
 * A new arena, no block kept.
 * Errors: FAIRWAY_EINVAL (NULL out), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_row_arena_create(fairway_row_arena_t** out);

/* Free the arena and the blocks it keeps (NULL: nothing).  Every row made from it must have
 * been freed. */
void fairway_row_arena_destroy(fairway_row_arena_t* arena);

/*
 * A row of size bytes, zeroed, and extra bytes after it (*extra_at; not zeroed), each
 * aligned for a double or a pointer, in fill's block or the next one (a kept one if the arena
 * has one).  A row larger than a block gets a block of its own, never kept.  arena NULL: no
 * block is kept, each is freed with its last row.
 * Errors: FAIRWAY_EINVAL (NULL fill, row or extra_at), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_row_alloc(fairway_row_arena_t* arena, fairway_row_fill_t* fill, size_t size,
                                  size_t extra, void** row, void** extra_at);

/* Free a row of fairway_row_alloc() (NULL: nothing); its block goes back with its last row.
 * The type of a list's destructor. */
void fairway_row_free(void* row);

/* ---- a row's partition and QOS factors ---- */

/* What a sprio row shows of the partition and QOS it is for, as the plugin copies them. */
typedef struct fairway_sprio_place {
  int has_partition;              /* the row is for one of a job's several partitions */
  double part_job_factor;         /* its PriorityJobFactor */
  double part_norm_priority;      /* that, normalized */
  const uint64_t* part_tres;      /* its TRES counts (slurmctld's TRES arrays) */
  const uint64_t* job_tres_alloc; /* the job's allocated TRES (NULL: none) */
  const uint64_t* job_tres_req;   /* the job's requested TRES (NULL: none) */
  int has_qos;                    /* the row is for one of a job's QOS */
  double qos_priority;            /* its Priority */
  double qos_norm_priority;       /* that, normalized */
} fairway_sprio_place_t;

/*
 * The partition and QOS factors of one sprio row over a copy of the job's weighted factors,
 * as multifactor's rows show them: with a partition, *priority_part is its job factor
 * (PriorityFlags NO_NORMAL_PART) or normalized priority times the partition weight, and the
 * tres_count entries of tres (NULL: none; fewer than w's when the job was weighed before
 * slurmctld's TRES grew) become this partition's as fairway_sprio_row_tres() computes them;
 * with a QOS of non-zero priority and a QOS weight, *priority_qos is its priority
 * (NO_NORMAL_QOS) or normalized priority times the weight.  Anything else is left as it is.
 * Errors: FAIRWAY_EINVAL (NULL w, place, priority_part or priority_qos).
 */
fairway_error_t fairway_sprio_row_place(const fairway_weights_t* w,
                                        const fairway_sprio_place_t* place, double* tres,
                                        size_t tres_count, double* priority_part,
                                        double* priority_qos);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_ROWS_H */
