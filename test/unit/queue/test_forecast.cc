// The forecast of when a pending job starts: the first places the plugin notes, the samples
// its journal of starts yields, the model's percentiles, the jobs it refuses to guess for,
// and the model as published in fairway_forecast.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "error.h"
#include "forecast.h"
#include "forecast_file.h"
#include "job_starts.h"
#include "job_starts_file.h"

namespace fairway {
namespace {

constexpr int64_t kT = 1795600000;

TEST(FirstPlaces, AJobKeepsThePlaceOfThePeriodThatFirstWeighedIt) {
  FirstPlaces fp;
  // Period 1: debug holds 4 (1st) and 1 (2nd); big holds 1 too (a job in two partitions).
  const std::vector<OrderRow> first = {{0, 1, 100, 10}, {0, 4, 900, 30}, {1, 1, 70, 10}};
  note_first_places(period_order(first, {"debug", "big"}, kT), fp);
  ASSERT_EQ(fp.jobs.size(), 2u);
  EXPECT_EQ(fp.jobs.at(4).place, 1u);
  EXPECT_EQ(fp.jobs.at(1).place, 2u);
  EXPECT_EQ(fp.partitions.at(fp.jobs.at(1).partition), "debug");
  // Period 2: 4 started; 7 arrives ahead of 1, in big only.  1 keeps its first place.
  const std::vector<OrderRow> second = {{0, 1, 100, 10}, {1, 7, 500, 40}, {1, 1, 70, 10}};
  note_first_places(period_order(second, {"debug", "big"}, kT + 60), fp);
  EXPECT_EQ(fp.jobs.count(4), 0u);
  EXPECT_EQ(fp.jobs.at(1).place, 2u);
  EXPECT_EQ(fp.jobs.at(1).time, kT);
  EXPECT_EQ(fp.jobs.at(7).time, kT + 60);
  EXPECT_EQ(fp.partitions.at(fp.jobs.at(7).partition), "big");
  // Its start record carries where it was first seen; the sample is its wait from then per
  // place.
  StartedJob j;
  j.job_id = 1;
  j.partition = "debug";
  j.submit_time = 10;
  j.start_time = kT + 100;
  const std::vector<OrderRow> third = {{0, 1, 100, 10}};
  const PeriodOrder last = period_order(third, {"debug"}, kT + 60);
  const StartRecord r = explain_start(j, last, {7}, &fp);
  EXPECT_EQ(r.seen_time, kT);
  EXPECT_EQ(r.seen_partition, "debug");
  EXPECT_EQ(r.seen_place, 2u);
  const std::optional<WaitSample> s = wait_sample(r);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->waited, 100);
  EXPECT_EQ(s->place, 2u);
  // A job no period weighed gives no sample.
  j.job_id = 99;
  EXPECT_FALSE(wait_sample(explain_start(j, last, {}, &fp)));
}

std::vector<WaitSample> samples(const std::string& partition, int n, int64_t first_start) {
  std::vector<WaitSample> out;
  for (int i = 0; i < n; i++)  // waited 10 * (i + 1) s from place 1: 10, 20, ..., 10 n
    out.push_back({partition, first_start + i, 1, 10 * (i + 1), i % 4 == 0});
  return out;
}

TEST(ForecastModel, PercentilesOfTheSecondsPerPlaceInEachPartition) {
  std::vector<WaitSample> all = samples("debug", 21, kT);
  // big: 30 jobs first seen 3rd that waited 30 s (10 s per place).
  for (int i = 0; i < 30; i++) all.push_back({"big", kT + i, 3, 30, false});
  const ForecastModel m = forecast_model(all, kT + 100);
  ASSERT_EQ(m.partitions.size(), 2u);
  const PartitionForecast* d = m.find("debug");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->starts, 21u);
  EXPECT_EQ(d->since, kT);
  EXPECT_DOUBLE_EQ(d->per_place_p10, 30);   // 10 .. 210: at 2.0 of 0..20
  EXPECT_DOUBLE_EQ(d->per_place_p50, 110);  // at 10
  EXPECT_DOUBLE_EQ(d->per_place_p90, 190);  // at 18
  EXPECT_NEAR(d->passed_share, 6.0 / 21, 1e-12);
  // Job i of debug was first seen 10 + 9 i s before kT and started at kT + i: every job but
  // the first was overtaken by the jobs first seen after it.  In big, the first seen start
  // first: none.
  EXPECT_NEAR(d->overtaken_share, 20.0 / 21, 1e-12);
  const PartitionForecast* b = m.find("big");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->overtaken_share, 0);
  EXPECT_DOUBLE_EQ(b->per_place_p10, 10);
  EXPECT_DOUBLE_EQ(b->per_place_p90, 10);

  // A job 4th in debug: 4 x the percentiles.
  const JobForecast f = forecast_job(m, "debug", 4, 9, "");
  ASSERT_TRUE(f.estimated) << f.why_not;
  EXPECT_DOUBLE_EQ(f.central, 440);
  EXPECT_DOUBLE_EQ(f.low, 120);
  EXPECT_DOUBLE_EQ(f.high, 760);
}

// Overtaken: a job first seen strictly later started strictly earlier.  Jobs first seen in
// the same period overtake none of each other, whatever their order of start.
TEST(ForecastModel, OvertakenByJobsFirstSeenLater) {
  std::vector<WaitSample> all;
  // Seen at kT: starts at kT + 50 and kT + 10.  Seen at kT + 5: starts at kT + 20 (before the
  // first of kT's: overtook it) and kT + 60.  Seen at kT + 30: starts at kT + 40 (overtook
  // kT + 5's second and kT's first).
  for (auto [seen, start] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 50}, {0, 10}, {5, 20}, {5, 60}, {30, 40}})
    all.push_back({"debug", kT + start, 1, start - seen, false});
  const ForecastModel m = forecast_model(all, kT + 100);
  ASSERT_TRUE(m.find("debug"));
  EXPECT_NEAR(m.find("debug")->overtaken_share, 2.0 / 5, 1e-12);  // kT+50 and kT+60
}

TEST(ForecastModel, TheWindowKeepsTheNewestStartsOfTheLastDays) {
  std::vector<WaitSample> all = samples("debug", kForecastStarts + 50, kT);
  all.push_back({"old", kT - kForecastDays * 86400 - 1, 1, 5, false});
  trim_samples(all, kT + 1000);
  ASSERT_EQ(all.size(), kForecastStarts);
  EXPECT_EQ(all.front().start, kT + 50);  // the 50 oldest went
  EXPECT_EQ(all.back().start, kT + kForecastStarts + 49);
}

TEST(ForecastModel, NoEstimateWithTooFewStartsABlockerOrNoPlace) {
  const ForecastModel m = forecast_model(samples("debug", kForecastMinStarts - 1, kT), kT + 60);
  JobForecast f = forecast_job(m, "debug", 2, 5, "");
  EXPECT_FALSE(f.estimated);
  EXPECT_EQ(f.why_not, "19 jobs started in debug in the last 7 days, too few (under 20)");
  f = forecast_job(m, "gpu", 1, 1, "");
  EXPECT_EQ(f.why_not, "0 jobs started in gpu in the last 7 days, too few (under 20)");
  const ForecastModel ok = forecast_model(samples("debug", 40, kT), kT + 60);
  EXPECT_TRUE(forecast_job(ok, "debug", 1, 1, "").estimated);
  EXPECT_EQ(forecast_job(ok, "debug", 1, 1, forecast_blocker("Priority", true)).why_not,
            "it is held");
  EXPECT_EQ(forecast_job(ok, "debug", 0, 1, "").why_not, "its place in debug is not known");
  EXPECT_EQ(forecast_job(ForecastModel{}, "debug", 1, 1, "").why_not,
            "the plugin has published no forecast");
  EXPECT_EQ(forecast_blocker("Priority", false), "");
  EXPECT_EQ(forecast_blocker("Resources", false), "");
  EXPECT_EQ(forecast_blocker("", false), "");
  EXPECT_EQ(forecast_blocker("Dependency", false), "it waits for another job (Dependency)");
  EXPECT_EQ(forecast_blocker("AssocGrpCpuLimit", false), "a limit holds it (AssocGrpCpuLimit)");
  EXPECT_EQ(forecast_blocker("QOSMaxJobsPerUserLimit", false),
            "a limit holds it (QOSMaxJobsPerUserLimit)");
  EXPECT_EQ(forecast_blocker("Reservation", false), "it waits for a reservation (Reservation)");
  EXPECT_EQ(forecast_blocker("BeginTime", false),
            "it may not start before its begin time (BeginTime)");
  EXPECT_EQ(forecast_blocker("JobHeldUser", false), "it is held (JobHeldUser)");
  EXPECT_EQ(forecast_blocker("PartitionDown", false),
            "it waits for something other than its place (PartitionDown)");
}

TEST(ForecastModel, TheLinesHeadAndMedianPlaceAndTheOldestJobs) {
  // debug: 5 jobs (ids 1..5, 1 first); big: 3 jobs (5 first); gpu: one job, no model.
  const std::vector<OrderRow> rows = {{0, 1, 90, 1}, {0, 2, 80, 1}, {0, 3, 70, 1},
                                      {0, 4, 60, 1}, {0, 5, 50, 1}, {1, 5, 99, 1},
                                      {1, 6, 98, 1}, {1, 7, 97, 1}, {2, 8, 10, 1}};
  const PeriodOrder o = period_order(rows, {"debug", "big", "gpu"}, kT);
  std::vector<WaitSample> all = samples("debug", 21, kT - 100);  // median 110 s per place
  for (int i = 0; i < 30; i++) all.push_back({"big", kT - 50, 1, 40, false});
  const ForecastModel m = forecast_model(all, kT);
  const std::vector<LineForecast> lines = line_forecasts(m, o);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].head, 110.0);
  EXPECT_EQ(lines[0].median_place, 330.0);  // 3rd of 5
  EXPECT_EQ(lines[0].without_estimate, 0u);
  EXPECT_EQ(lines[1].median_place, 80.0);  // 2nd of 3
  EXPECT_FALSE(lines[2].head);
  EXPECT_EQ(lines[2].without_estimate, 1u);
  // Job 5: 5th in debug (550 s) and 1st in big (40 s): the earliest.  Job 8: no model.
  const std::vector<uint32_t> jobs = {5, 3, 8, 42};
  const std::vector<std::optional<double>> f = job_forecasts(m, o, jobs);
  EXPECT_EQ(f[0], 40.0);
  EXPECT_EQ(f[1], 330.0);
  EXPECT_FALSE(f[2]);
  EXPECT_FALSE(f[3]);
}

TEST(ForecastFile, RoundTripsAndRefusesWhatIsNotAModel) {
  std::vector<WaitSample> all = samples("debug", 30, kT);
  all.push_back({"big", kT, 1, 5, false});
  const ForecastModel m = forecast_model(all, kT + 60);
  const std::string text = forecast_model_json(m);
  EXPECT_NE(text.find("\"seconds_per_place\": null"), std::string::npos) << text;
  const ForecastModel back = parse_forecast_model(text);
  EXPECT_EQ(forecast_model_json(back), text);
  EXPECT_EQ(back.find("debug")->per_place_p50, m.find("debug")->per_place_p50);
  EXPECT_THROW(parse_forecast_model("{"), Error);
  EXPECT_THROW(parse_forecast_model(R"({"version": 2, "time": 1, "partitions": []})"), Error);
  try {
    parse_forecast_model(
        R"({"version": 1, "time": 1, "partitions": [{"name": "d", "starts": 30, "since": 1,
            "seconds_per_place": {"p10": 5, "p50": 2, "p90": 9}, "passed_share": 0}]})");
    FAIL() << "percentiles out of order were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "forecast: partition d: seconds_per_place are not 0 <= p10 <= p50 <= p90");
  }
}

TEST(ForecastFile, TheJournalKeepsWhereAJobWasFirstSeenAndOldRecordsReadWithout) {
  char tmpl[] = "/tmp/fw-forecast-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string dir = tmpl;
  StartRecord r;
  r.job.job_id = 12;
  r.job.partition = "debug";
  r.job.start_time = kT + 500;
  r.seen_time = kT;
  r.seen_partition = "debug";
  r.seen_place = 5;
  StartRecord unseen = r;
  unseen.job.job_id = 13;
  unseen.seen_time = 0;
  unseen.seen_partition.clear();
  unseen.seen_place = 0;
  append_starts(dir, r.job.start_time, {r, unseen}, 3);
  const std::vector<StartRecord> back = read_starts(dir, kT);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].seen_time, kT);
  EXPECT_EQ(back[0].seen_place, 5u);
  EXPECT_EQ(back[1].seen_place, 0u);
  EXPECT_EQ(read_starts(dir, kT + 501).size(), 0u);
  // A record written before the forecast (no seen_*) still reads, without a sample.
  std::string old = start_record_json(unseen);
  old = old.substr(0, old.find(",\"seen\"")) + "}";
  const std::optional<StartRecord> o = parse_start_record(old);
  ASSERT_TRUE(o) << old;
  EXPECT_FALSE(wait_sample(*o));
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
}  // namespace fairway
