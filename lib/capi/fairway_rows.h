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
#include <string.h>

#include "fairway.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fairway_row_arena fairway_row_arena_t;

/* A block's header; its rows follow it, each behind a pointer to the block.  The fields
 * are the arena's: fairway_row_alloc() below counts a row in `live`. */
struct fairway_row_block {
  size_t live;                    /* rows of this block not freed yet */
  int big;                        /* larger than a block: never kept */
  struct fairway_row_block* next; /* among the kept blocks */
  fairway_row_arena_t* arena;     /* where it goes back to */
};

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
 * The next block for rows of at least `need` bytes in *fill (a kept one if the arena has
 * one); fairway_row_alloc() calls it when the block being filled is full.
 * Errors: FAIRWAY_EINVAL (NULL fill), FAIRWAY_ENOMEM.
 */
fairway_error_t fairway_row_fill_next(fairway_row_arena_t* arena, fairway_row_fill_t* fill,
                                      size_t need);

/* Sizes within a block: aligned for a double or a pointer. */
#define FAIRWAY_ROW_ALIGN8(n) (((size_t)(n) + 7) & ~(size_t)7)

/*
 * A row of size bytes, zeroed, and extra bytes after it (*extra_at; not zeroed), each
 * aligned for a double or a pointer, in fill's block or the next one (a kept one if the arena
 * has one).  A row larger than a block gets a block of its own, never kept.  arena NULL: no
 * block is kept, each is freed with its last row.  Inline: sprio makes one per row.
 * Errors: FAIRWAY_EINVAL (NULL fill, row or extra_at), FAIRWAY_ENOMEM.
 */
static inline fairway_error_t fairway_row_alloc(fairway_row_arena_t* arena,
                                                fairway_row_fill_t* fill, size_t size, size_t extra,
                                                void** row, void** extra_at) {
  const size_t at_extra = sizeof(struct fairway_row_block*) + FAIRWAY_ROW_ALIGN8(size);
  const size_t need = at_extra + FAIRWAY_ROW_ALIGN8(extra);
  struct fairway_row_block** head;

  if (!row || !extra_at) /* the NULL argument said as for a NULL fill */
    return fairway_row_fill_next(arena, NULL, need);
  if (!fill || need > fill->left) {
    fairway_error_t err = fairway_row_fill_next(arena, fill, need);
    if (err != FAIRWAY_OK) return err;
  }
  head = (struct fairway_row_block**)fill->at;
  *head = fill->block;
  fill->block->live++;
  fill->at += need;
  fill->left -= need;
  memset(head + 1, 0, size);
  *row = head + 1;
  *extra_at = (char*)head + at_extra;
  return FAIRWAY_OK;
}

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
 * slurmctld's TRES grew) become this partition's: each TRES the job uses and the partition
 * counts (every TRES, with NO_NORMAL_TRES) gets its factor in this partition, the others keep
 * the copied value, and every entry is weighted (a kept value twice, as sprio shows it);
 * with a QOS of non-zero priority and a QOS weight, *priority_qos is its priority
 * (NO_NORMAL_QOS) or normalized priority times the weight.  Anything else is left as it is.
 * Errors: FAIRWAY_EINVAL (NULL w, place, priority_part or priority_qos).
 */
static inline fairway_error_t fairway_sprio_row_place(const fairway_weights_t* w,
                                                      const fairway_sprio_place_t* place,
                                                      double* tres, size_t tres_count,
                                                      double* priority_part, double* priority_qos);

/*
 * The TRES part of fairway_sprio_row_place(): the tres_count entries of tres (at most w's)
 * become those of the partition counting part_tres, for a job allocated alloc or asking for
 * req, and are weighted.
 * Errors: FAIRWAY_EINVAL (NULL w or tres).
 */
fairway_error_t fairway_sprio_row_place_tres(const fairway_weights_t* w, const uint64_t* alloc,
                                             const uint64_t* req, const uint64_t* part_tres,
                                             double* tres, size_t tres_count);

/* Inline: sprio places every row it makes, and its partition and QOS factors are a product. */
static inline fairway_error_t fairway_sprio_row_place(const fairway_weights_t* w,
                                                      const fairway_sprio_place_t* place,
                                                      double* tres, size_t tres_count,
                                                      double* priority_part, double* priority_qos) {
  if (!w || !place || !priority_part || !priority_qos)
    return fairway_sprio_row_place_tres(NULL, NULL, NULL, NULL, NULL, 0); /* says EINVAL */
  if (place->has_partition) {
    *priority_part = ((w->flags & FAIRWAY_FLAG_NO_NORMAL_PART) ? place->part_job_factor
                                                               : place->part_norm_priority) *
                     (double)w->weight[FAIRWAY_FACTOR_PARTITION];
    if (tres)
      (void)fairway_sprio_row_place_tres(w, place->job_tres_alloc, place->job_tres_req,
                                         place->part_tres, tres, tres_count);
  }
  if (place->has_qos && place->qos_priority != 0 && w->weight[FAIRWAY_FACTOR_QOS])
    *priority_qos =
        ((w->flags & FAIRWAY_FLAG_NO_NORMAL_QOS) ? place->qos_priority : place->qos_norm_priority) *
        (double)w->weight[FAIRWAY_FACTOR_QOS];
  return FAIRWAY_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_ROWS_H */
