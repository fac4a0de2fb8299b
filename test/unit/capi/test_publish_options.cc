// What PriorityParameters' options ask of publishing (fairway_publish.h): the settings a
// period plans with and the fields of the publication they decide, "" read as none.
#include <gtest/gtest.h>

#include <cstring>

#include "fairway.h"
#include "fairway_publish.h"

namespace {

fairway_options_t options_with_everything() {
  fairway_options_t o{};
  std::strcpy(o.metrics_dir, "/var/lib/fairway");
  std::strcpy(o.shadow_file, "/etc/fairway/shadow");
  o.history_days = 30;
  o.starvation_minutes = 120;
  o.starvation_quantile = 0.9;
  o.queue_jobs = 500;
  o.decay_exact = 1;
  o.usage_basis = FAIRWAY_USAGE_ALLOCATED;
  std::strcpy(o.fairshare_tres[0], "gres/gpu");
  std::strcpy(o.fairshare_tres[1], "license/matlab");
  o.fairshare_tres_count = 2;
  return o;
}

TEST(PublishOptionsCApi, NullArgumentsAreInvalid) {
  fairway_options_t o{};
  const char* names[FAIRWAY_MAX_FAIRSHARE_TRES];
  fairway_publish_settings_t s{};
  fairway_publication_t p{};
  EXPECT_EQ(fairway_publish_settings_from_options(nullptr, names, &s), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publish_settings_from_options(&o, nullptr, &s), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publish_settings_from_options(&o, names, nullptr), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publication_from_options(nullptr, &p), FAIRWAY_EINVAL);
  EXPECT_EQ(fairway_publication_from_options(&o, nullptr), FAIRWAY_EINVAL);
}

TEST(PublishOptionsCApi, SettingsTakeTheOptionsAndNameTheListedTresInO) {
  const fairway_options_t o = options_with_everything();
  const char* names[FAIRWAY_MAX_FAIRSHARE_TRES] = {};
  fairway_publish_settings_t s{};
  s.queue_tres = 3;
  s.fair_share = 1;
  ASSERT_EQ(fairway_publish_settings_from_options(&o, names, &s), FAIRWAY_OK);
  EXPECT_EQ(s.metrics_dir, o.metrics_dir);
  EXPECT_EQ(s.history_days, 30u);
  EXPECT_EQ(s.starvation_minutes, 120u);
  EXPECT_EQ(s.queue_jobs, 500u);
  ASSERT_EQ(s.fairshare_tres_count, 2u);
  EXPECT_EQ(s.fairshare_tres, names);
  EXPECT_EQ(names[0], o.fairshare_tres[0]);
  EXPECT_EQ(names[1], o.fairshare_tres[1]);
  EXPECT_EQ(s.queue_tres, 3u);
  EXPECT_EQ(s.fair_share, 1);
}

TEST(PublishOptionsCApi, NoMetricsDirectoryIsNone) {
  const fairway_options_t o{};
  const char* names[FAIRWAY_MAX_FAIRSHARE_TRES] = {};
  fairway_publish_settings_t s{};
  fairway_publication_t p{};
  ASSERT_EQ(fairway_publish_settings_from_options(&o, names, &s), FAIRWAY_OK);
  ASSERT_EQ(fairway_publication_from_options(&o, &p), FAIRWAY_OK);
  EXPECT_EQ(s.metrics_dir, nullptr);
  EXPECT_EQ(s.fairshare_tres_count, 0u);
  EXPECT_EQ(p.directory, nullptr);
  EXPECT_EQ(p.shadow_file, nullptr);
}

TEST(PublishOptionsCApi, TooManyListedTresAreInvalid) {
  fairway_options_t o{};
  const char* names[FAIRWAY_MAX_FAIRSHARE_TRES] = {};
  fairway_publish_settings_t s{};
  o.fairshare_tres_count = FAIRWAY_MAX_FAIRSHARE_TRES + 1;
  EXPECT_EQ(fairway_publish_settings_from_options(&o, names, &s), FAIRWAY_EINVAL);
}

TEST(PublishOptionsCApi, ThePublicationTakesTheFieldsTheOptionsDecideOnly) {
  const fairway_options_t o = options_with_everything();
  fairway_publication_t p{};
  p.history_dir = "/kept";
  p.calc_period = 300;
  ASSERT_EQ(fairway_publication_from_options(&o, &p), FAIRWAY_OK);
  EXPECT_EQ(p.directory, o.metrics_dir);
  EXPECT_EQ(p.history_days, 30u);
  EXPECT_EQ(p.starvation_minutes, 120u);
  EXPECT_DOUBLE_EQ(p.starvation_quantile, 0.9);
  EXPECT_EQ(p.shadow_file, o.shadow_file);
  EXPECT_EQ(p.decay_exact, 1);
  EXPECT_EQ(p.usage_basis, static_cast<uint32_t>(FAIRWAY_USAGE_ALLOCATED));
  EXPECT_STREQ(p.history_dir, "/kept");
  EXPECT_EQ(p.calc_period, 300u);
}

}  // namespace
