// test_private_data.cc - what fairway.prom says of users under slurm.conf's PrivateData:
// the decision (private_data.h), the option (fairway_publish_users), the metrics without user
// samples, the C API's log line and the files fairway_publish writes.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fairway.h"
#include "fairway_publish.h"
#include "metrics_format.h"
#include "plugin_options.h"
#include "private_data.h"
#include "starvation.h"
#include "whatif.h"

namespace fairway {
namespace {

// A sample whose user label is not empty: one that names a user.
const std::regex kNamesAUser(R"(^fairway_[a-z_]+\{[^}]*user="[^"])");

size_t samples_naming_users(const std::string& text) {
  size_t n = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (std::regex_search(line, kNamesAUser)) n++;
  return n;
}

TEST(PrivateData, UsersArePublishedUnlessUsageOrUsersAreHidden) {
  EXPECT_TRUE(publish_user_samples({}, false));
  EXPECT_FALSE(publish_user_samples({.usage = true}, false));
  EXPECT_FALSE(publish_user_samples({.users = true}, false));
  EXPECT_FALSE(publish_user_samples({.usage = true, .users = true}, false));
  // fairway_publish_users publishes them anyway.
  EXPECT_TRUE(publish_user_samples({.usage = true, .users = true}, true));
  EXPECT_TRUE(publish_user_samples({}, true));
}

TEST(PrivateData, OneLineOnlyWhenMetricsAreWrittenAndSomethingIsHidden) {
  EXPECT_FALSE(private_data_line({}, false, true));
  EXPECT_FALSE(private_data_line({.usage = true}, false, false));
  EXPECT_EQ(private_data_line({.usage = true}, false, true),
            "PrivateData=usage: fairway.prom has the accounts' samples only, none that names a "
            "user (fairway_publish_users publishes them)");
  EXPECT_EQ(private_data_line({.users = true}, false, true)->rfind("PrivateData=users: ", 0), 0u);
  EXPECT_EQ(private_data_line({.usage = true, .users = true}, true, true),
            "PrivateData=usage,users: fairway.prom still has a sample per user "
            "(fairway_publish_users), readable by whoever can read the file or scrape it");
}

TEST(PrivateData, TheOptionIsAFlagOrYesOrNo) {
  std::vector<std::string> problems;
  EXPECT_FALSE(parse_priority_parameters("fairway_metrics_dir=/x", problems).publish_users);
  EXPECT_TRUE(parse_priority_parameters("fairway_publish_users", problems).publish_users);
  EXPECT_TRUE(parse_priority_parameters("fairway_publish_users=yes", problems).publish_users);
  EXPECT_FALSE(parse_priority_parameters("fairway_publish_users=no", problems).publish_users);
  EXPECT_TRUE(problems.empty());
  EXPECT_FALSE(parse_priority_parameters("fairway_publish_users=1", problems).publish_users);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "PriorityParameters: fairway_publish_users='1' is not yes or no, ignored (users are "
            "published as PrivateData allows)");
  fairway_options_t o;
  ASSERT_EQ(fairway_options_parse("fairway_publish_users", &o, nullptr, nullptr), FAIRWAY_OK);
  EXPECT_EQ(o.publish_users, 1);
  fairway_publication_t p{};
  ASSERT_EQ(fairway_publication_from_options(&o, &p), FAIRWAY_OK);
  EXPECT_EQ(p.publish_users, 1);
}

void collect(const char* line, void* arg) {
  static_cast<std::vector<std::string>*>(arg)->push_back(line);
}

TEST(PrivateData, TheCApiDecidesAndSaysItOnce) {
  fairway_options_t o;
  ASSERT_EQ(fairway_options_parse("fairway_metrics_dir=/m", &o, nullptr, nullptr), FAIRWAY_OK);
  std::vector<std::string> said;
  EXPECT_EQ(fairway_private_data_tell(&o, 0, collect, &said), 1);
  EXPECT_TRUE(said.empty());
  EXPECT_EQ(fairway_private_data_tell(&o, FAIRWAY_PRIVATE_DATA_USERS, collect, &said), 0);
  EXPECT_EQ(fairway_private_data_tell(&o, FAIRWAY_PRIVATE_DATA_USAGE, nullptr, nullptr), 0);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].rfind("PrivateData=users: fairway.prom has the accounts' samples only", 0), 0u);
  o.publish_users = 1;
  EXPECT_EQ(fairway_private_data_tell(&o, FAIRWAY_PRIVATE_DATA_USAGE, collect, &said), 1);
  EXPECT_EQ(said.size(), 2u);
  // Without metrics nothing is said.
  ASSERT_EQ(fairway_options_parse("", &o, nullptr, nullptr), FAIRWAY_OK);
  EXPECT_EQ(fairway_private_data_tell(&o, FAIRWAY_PRIVATE_DATA_USAGE, collect, &said), 0);
  EXPECT_EQ(said.size(), 2u);
  EXPECT_EQ(fairway_private_data_tell(nullptr, FAIRWAY_PRIVATE_DATA_USAGE, collect, &said), 1);
}

// root -> a (shares 1) -> u1 (usage 90), u2; root -> b (shares 1) -> u3 (usage 10).
std::vector<AssocRecord> two_accounts() {
  std::vector<AssocRecord> r(6);
  r[0] = {1, 0, "root", "", false, 1, 100};
  r[1] = {2, 1, "a", "", false, 1, 90};
  r[2] = {3, 2, "a", "u1", false, 1, 90};
  r[3] = {4, 2, "a", "u2", false, 1, 0};
  r[4] = {5, 1, "b", "", false, 1, 10};
  r[5] = {6, 5, "b", "u3", false, 1, 10};
  return r;
}

TEST(PrivateData, MetricsWithoutUsersKeepTheAccountsOnly) {
  const AssocTree t = AssocTree::build(two_accounts());
  FairShareResult res;
  compute_fair_share(t, Algorithm::kFairTree, 1, res);
  StarvationReport starving;
  starving.with_pending = {1, 2, 5};  // a, u1, u3
  starving.starved = {{5, 12, 4000, 1}};
  WhatIf shadow;
  shadow.associations = {{"a", "", 0.5, 0.6}, {"a", "u1", 0.3, 0.6}};
  MetricsInput in;
  in.tree = &t;
  in.result = &res;
  in.starvation = &starving;
  in.starvation_minutes = 60;
  in.shadow_on = true;
  in.shadow = &shadow;
  const std::string all = format_metrics(in);
  // Eight association families of three users, a starvation sample each of u1 and u3, the
  // shadow change of u1.
  EXPECT_EQ(samples_naming_users(all), 3u * 8 + 2 + 1) << all;
  in.user_samples = false;
  const std::string accounts = format_metrics(in);
  EXPECT_EQ(samples_naming_users(accounts), 0u) << accounts;
  for (const char* user : {"u1", "u2", "u3"})
    EXPECT_EQ(accounts.find(std::string("\"") + user + "\""), std::string::npos) << user;
  // The accounts' rows stay, with their usage; so do the account's starvation and shadow change.
  EXPECT_NE(accounts.find(
                R"(fairway_association_usage_raw{id="2",account="a",user="",parent="root"} 90)"),
            std::string::npos);
  EXPECT_NE(accounts.find(
                R"(fairway_association_usage_raw{id="5",account="b",user="",parent="root"} 10)"),
            std::string::npos);
  EXPECT_NE(
      accounts.find(R"(fairway_association_starved{id="2",account="a",user="",parent="root"} 0)"),
      std::string::npos);
  EXPECT_NE(accounts.find(R"(fairway_shadow_fairshare_factor_change{account="a",user=""})"),
            std::string::npos);
  EXPECT_NE(accounts.find("fairway_associations 6\n"), std::string::npos);
}

class PrivateDataFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fw-private-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string read(const std::string& name) const {
    std::ifstream f(dir_ + "/" + name);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  unsigned mode(const std::string& name) const {
    struct stat st {};
    return stat((dir_ + "/" + name).c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
  }
  std::string dir_;
};

// fairway_publish, as the plugin calls it: fairway.prom (0644) leaves the users out under
// PrivateData unless fairway_publish_users, fairway.json (0600) keeps them.
TEST_F(PrivateDataFiles, ThePublicFileLeavesUsersOutAndThePrivateOneKeepsThem) {
  const char* accounts[] = {"root", "a", "a", "b", "b"};
  const char* users[] = {nullptr, nullptr, "alice", nullptr, "bob"};
  const long double usage[] = {136, 100, 100, 36, 36};
  const uint32_t ids[] = {1, 2, 3, 4, 5}, parents[] = {0, 1, 2, 1, 4};
  fairway_assoc_t a[5];
  for (int i = 0; i < 5; i++) a[i] = {ids[i], parents[i], accounts[i], users[i], 1, 0, usage[i]};
  fairway_publication_t p{};
  p.directory = dir_.c_str();
  p.slurm_release = "22.05.8";
  p.algo = FAIRWAY_ALGO_FAIR_TREE;
  p.dampening = 1;
  p.assocs = a;
  p.assoc_count = 5;
  p.period_end = 150;
  for (uint32_t hidden : {FAIRWAY_PRIVATE_DATA_USAGE, FAIRWAY_PRIVATE_DATA_USERS,
                          FAIRWAY_PRIVATE_DATA_USAGE | FAIRWAY_PRIVATE_DATA_USERS}) {
    p.private_data = hidden;
    p.publish_users = 0;
    ASSERT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
    EXPECT_EQ(mode("fairway.prom"), 0644u);
    EXPECT_EQ(mode("fairway.json"), 0600u);
    const std::string prom = read("fairway.prom");
    EXPECT_EQ(samples_naming_users(prom), 0u) << hidden;
    EXPECT_EQ(prom.find("alice"), std::string::npos) << hidden;
    EXPECT_NE(
        prom.find(R"(fairway_association_usage_raw{id="2",account="a",user="",parent="root"} 100)"),
        std::string::npos);
    EXPECT_NE(read("fairway.json").find("alice"), std::string::npos);
    p.publish_users = 1;
    ASSERT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
    EXPECT_EQ(samples_naming_users(read("fairway.prom")), 2u * 8) << hidden;
  }
  p.private_data = 0;
  p.publish_users = 0;
  ASSERT_EQ(fairway_publish(nullptr, &p, nullptr, nullptr), FAIRWAY_OK) << fairway_last_error();
  EXPECT_EQ(samples_naming_users(read("fairway.prom")), 2u * 8);
}

}  // namespace
}  // namespace fairway
