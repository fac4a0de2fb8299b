/* The C API's headers (fairway.h, fairway_fair_share_table.h, fairway_publish.h,
 * fairway_usage_files.h, fairway_usage_state.h) must be usable from C (the plugin shim is C): compile them with the
 * C compiler, drive a small tree through the fair-share table and call each header's
 * functions once.  Prints a GoogleTest-style summary. */
#include <math.h>
#include <stdio.h>

#include "fairway.h"
#include "fairway_fair_share_table.h"
#include "fairway_publish.h"
#include "fairway_usage_files.h"
#include "fairway_usage_state.h"

static int failed, passed;
#define CHECK(cond) \
	do { \
		if (cond) { \
			passed++; \
		} else { \
			failed++; \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, \
				__LINE__, #cond); \
		} \
	} while (0)

int main(void)
{
	fairway_assoc_t tree[] = {
		{ 1, 0, "root", NULL, 1, 0, 30.0L },
		{ 2, 1, "a", NULL, 2, 0, 10.0L },
		{ 3, 1, "b", NULL, 1, 0, 20.0L },
		{ 4, 2, "a", "u1", 1, 0, 10.0L },
		{ 5, 3, "b", "u2", 1, 0, 20.0L },
	};
	fairway_fair_share_table_t *t = NULL;
	fairway_assoc_result_t r;

	CHECK(fairway_fair_share_table_new(&t) == FAIRWAY_OK);
	CHECK(fairway_fair_share_table_load(t, tree, 5,
					    FAIRWAY_USAGE_HISTORICAL, NULL, 0,
					    NULL) == FAIRWAY_OK);
	CHECK(fairway_fair_share_table_compute(t, FAIRWAY_ALGO_FAIR_TREE, 1,
					       0) == FAIRWAY_OK);
	/* a: S 2/3 over U 1/3 = 2; b: S 1/3 over U 2/3 = 0.5 -> u1 ranks first. */
	CHECK(fairway_fair_share_table_result(t, 3, &r) == FAIRWAY_OK);
	CHECK(r.fs_factor == 1.0);
	CHECK(fairway_fair_share_table_result(t, 1, &r) == FAIRWAY_OK);
	CHECK(fabsl(r.level_fs - 2.0L) < 1e-12L);
	CHECK(fairway_fair_share_table_result(t, 4, &r) == FAIRWAY_OK);
	CHECK(r.fs_factor == 0.5);
	fairway_fair_share_table_destroy(&t);
	CHECK(t == NULL);
	CHECK(fairway_fair_share_table_compute(NULL, FAIRWAY_ALGO_CLASSIC, 1,
					       0) == FAIRWAY_EINVAL);
	CHECK(fairway_last_error()[0] != '\0');
	CHECK(fairway_options_parse("", NULL, NULL, NULL) == FAIRWAY_EINVAL);
	CHECK(fairway_publisher_new(NULL) == FAIRWAY_EINVAL);
	CHECK(fairway_decay_state_recover_in(NULL, 0, NULL) == FAIRWAY_EINVAL);
	CHECK(fairway_usage_copy_save(NULL, "/", 0) == FAIRWAY_EINVAL);
	fairway_usage_copy_clear(NULL);
	CHECK(fairway_usage_copy_reserve(NULL, 1, 1) == FAIRWAY_EINVAL);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
