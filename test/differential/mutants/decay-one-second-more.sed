# Usage decayed over one second more than the period, applied to a copy of plugin/period.c
# for test/differential/run-mutant: only the --decay-thread scenarios can see it.
/double run_delta = difftime(now, st->last_ran);/a\
		run_delta += 1;
