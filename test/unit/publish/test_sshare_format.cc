// sshare output: golden files produced by Slurm 22.05.8 itself (see test/data/README.md),
// the live cluster's capture, and the rows Slurm's test24.1/24.3/24.4 expect.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "snapshot.h"
#include "sshare_format.h"
#include "test_data.h"

namespace fairway {
namespace {

struct Case {
  AssocTree tree;
  FairShareResult out;
  Snapshot snapshot;
};

Case load(const std::string& name, Algorithm algo) {
  Snapshot s = read_snapshot_file(test::data_path("snapshots/" + name + ".json"));
  Case c{snapshot_tree(s), {}, s};
  compute_fair_share(c.tree, algo, s.dampening_factor, c.out);
  return c;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// Every fixture under every algorithm, byte for byte against Slurm's own sshare code.
TEST(SshareFormat, MatchesSlurmGoldenFiles) {
  const Algorithm algos[] = {Algorithm::kFairTree, Algorithm::kClassic, Algorithm::kDepthOblivious};
  for (const char* name :
       {"test24_1", "test24_3", "test24_4", "testbed_2328", "seed002_classic", "seed002_damp3",
        "dkrz_000", "parent_levels", "zero_usage", "deep6", "huge_usage", "ties", "single_user"}) {
    for (Algorithm a : algos) {
      SCOPED_TRACE(std::string(name) + " " + algorithm_name(a));
      const Case c = load(name, a);
      SshareOptions o;
      o.dampening_factor = c.snapshot.dampening_factor;
      const std::string want =
          test::read_data(std::string("snapshots/") + name + "." + algorithm_name(a) + ".sshare");
      EXPECT_EQ(format_sshare(c.tree, c.out, a, o), want);
    }
  }
}

// The capture from a live Slurm 22.05.8 cluster (testbed_2328 in test/data/README.md; its
// GrpTRESMins/TRESRunMins columns were cut when it was captured).
TEST(SshareFormat, LiveClusterCapture) {
  const Case c = load("testbed_2328", Algorithm::kFairTree);
  const auto got = lines(format_sshare(c.tree, c.out, Algorithm::kFairTree));
  const auto want = lines(test::read_data("snapshots/testbed_2328.live.sshare"));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    // First 9 columns: everything before the 9th '|'.
    size_t pos = 0;
    for (int pipes = 0; pos < got[i].size(); ++pos)
      if (got[i][pos] == '|' && ++pipes == 9) break;
    EXPECT_EQ(got[i].substr(0, pos), want[i]) << "line " << i;
  }
}

// test24.x: no header, -p, a single TRES "cpu"; the expect patterns must appear in order.
void expect_patterns(const std::string& name, Algorithm algo,
                     const std::vector<std::string>& patterns) {
  const Case c = load(name, algo);
  SshareOptions o;
  o.header = false;
  o.parsable_trailing = true;
  o.tres_names = {"cpu"};
  const auto rows = lines(format_sshare(c.tree, c.out, algo, o));
  size_t r = 0;
  for (const std::string& p : patterns) {
    while (r < rows.size() && rows[r].find(p) == std::string::npos) ++r;
    EXPECT_LT(r, rows.size()) << "pattern not found in order: " << p;
    if (r < rows.size()) ++r;
  }
}

TEST(SshareFormat, SlurmTest24_1Patterns) {
  expect_patterns("test24_1", Algorithm::kClassic,
                  {"AccountA||40|0.400000|45|0.450000|0.450000|0.458502|",
                   "AccountB||30|0.300000|20|0.200000|0.387500|0.408479|",
                   "AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479|",
                   "AccountC||10|0.100000|25|0.250000|0.300000|0.125000|",
                   "AccountC|User2|1|0.050000|25|0.250000|0.275000|0.022097|",
                   "AccountC|User3|1|0.050000|0|0.000000|0.150000|0.125000|",
                   "AccountD||60|0.600000|25|0.250000|0.250000|0.749154|",
                   "AccountE||25|0.250000|25|0.250000|0.250000|0.500000|",
                   "AccountE|User4|1|0.250000|25|0.250000|0.250000|0.500000|",
                   "AccountF||35|0.350000|0|0.000000|0.145833|0.749154|",
                   "AccountF|User5|1|0.350000|0|0.000000|0.145833|0.749154|",
                   "AccountG||0|0.000000|30|0.300000|0.300000|0.000000|", "AccountG|User6|0|"});
}

TEST(SshareFormat, SlurmTest24_3Patterns) {
  expect_patterns("test24_3", Algorithm::kClassic,
                  {"root|||1.000000|210||1.000000|0.500000||cpu=0|",
                   "AccountA||40|0.266667|45|0.214286|0.214286|0.572929||cpu=0|",
                   "AccountB||30|0.200000|20|0.095238|0.184524|0.527550||cpu=0|",
                   "AccountB|User1|1|0.200000|20|0.095238|0.184524|0.527550||cpu=0|",
                   "AccountC||10|0.066667|25|0.119048|0.142857|0.226431||cpu=0|",
                   "AccountC|User2|1|0.033333|25|0.119048|0.130952|0.065672||cpu=0|",
                   "AccountC|User3|1|0.033333|0|0.000000|0.071429|0.226431||cpu=0|",
                   "AccountD||60|0.400000|25|0.119048|0.119048|0.813594||cpu=0|",
                   "AccountE||25|0.166667|25|0.119048|0.119048|0.609507||cpu=0|",
                   "AccountE|User4|1|0.166667|25|0.119048|0.119048|0.609507||cpu=0|",
                   "AccountF||35|0.233333|0|0.000000|0.069444|0.813594||cpu=0|",
                   "AccountF|User5|1|0.233333|0|0.000000|0.069444|0.813594||cpu=0|",
                   "AccountG||0|0.000000|30|0.142857|0.142857|0.000000||cpu=0|",
                   "AccountG|User6|0|0.000000|30|0.142857|0.142857|0.000000||cpu=0|",
                   "AccountH||50|0.333333|110|0.523810|0.523810|0.336475||cpu=0|",
                   "AccountH|UHRA1|parent|0.333333|20|0.095238|0.523810|0.336475||cpu=0|",
                   "AccountH|UHRA2|40|0.078431|20|0.095238|0.196078|0.176777||cpu=0|",
                   "AccountH|UHRA3|50|0.098039|25|0.119048|0.238095|0.185749||cpu=0|",
                   "AccountHTA||parent|0.333333|45|0.214286|0.523810|0.336475||cpu=0|",
                   "AccountHTA|UHTAStd1|parent|0.333333|10|0.047619|0.523810|0.336475||cpu=0|",
                   "AccountHTA|UHTAStd2|30|0.058824|10|0.047619|0.131653|0.211966||cpu=0|",
                   "AccountHTA|UHTAStd3|50|0.098039|25|0.119048|0.238095|0.185749||cpu=0|"});
}

TEST(SshareFormat, SlurmTest24_4Patterns) {
  expect_patterns("test24_4", Algorithm::kFairTree,
                  {"root|||0.000000|240||1.000000||||cpu=0|",
                   "root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf||cpu=0|",
                   "root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846||cpu=0|",
                   "aA||40|0.192308|45|0.187500|0.187500||1.025641||cpu=0|",
                   "aAA||30|0.750000|20|0.083333|0.444444||1.687500||cpu=0|",
                   "aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000||cpu=0|",
                   "aAB||10|0.250000|25|0.104167|0.555556||0.450000||cpu=0|",
                   "aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000||cpu=0|",
                   "aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf||cpu=0|",
                   "aB||60|0.288462|25|0.104167|0.104167||2.769231||cpu=0|",
                   "aBA||25|0.416667|25|0.104167|1.000000||0.416667||cpu=0|",
                   "aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000||cpu=0|",
                   "aBB||35|0.583333|0|0.000000|0.000000||inf||cpu=0|",
                   "aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf||cpu=0|",
                   "aC||0|0.000000|30|0.125000|0.125000||0.000000||cpu=0|",
                   "aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000||cpu=0|",
                   "aD||50|0.240385|110|0.458333|0.458333||0.524476||cpu=0|",
                   "aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190|||cpu=0|",
                   "aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118||cpu=0|",
                   "aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118||cpu=0|",
                   "aDA||parent|0.240385|45|0.187500|0.409091||||cpu=0|",
                   "aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190|||cpu=0|",
                   "aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176||cpu=0|",
                   "aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118||cpu=0|",
                   "aE||10|0.048077|0|0.000000|0.000000||inf||cpu=0|",
                   "aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf||cpu=0|",
                   "aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf||cpu=0|",
                   "aF||20|0.096154|0|0.000000|0.000000||inf||cpu=0|",
                   "aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf||cpu=0|",
                   "aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf||cpu=0|",
                   "aG||8|0.038462|20|0.083333|0.083333||0.461538||cpu=0|",
                   "aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000||cpu=0|",
                   "aGA||10|0.500000|10|0.041667|0.500000||1.000000||cpu=0|",
                   "aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000||cpu=0|",
                   "aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333||cpu=0|"});
}

TEST(SshareFormat, HeaderIndentationAndColumns) {
  const Case c = load("test24_4", Algorithm::kFairTree);
  const auto ft = lines(format_sshare(c.tree, c.out, Algorithm::kFairTree));
  EXPECT_EQ(ft[0],
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|"
            "GrpTRESMins|TRESRunMins");
  EXPECT_EQ(ft[1].rfind("root|||", 0), 0u);
  EXPECT_EQ(ft[2].rfind(" root|u1|", 0), 0u);  // user rows show their account, one level deeper
  EXPECT_EQ(ft[4].rfind(" aA||", 0), 0u);
  EXPECT_EQ(ft[5].rfind("  aAA||", 0), 0u);
  EXPECT_EQ(ft[6].rfind("   aAA|uAA1|", 0), 0u);
  EXPECT_NE(ft[1].find("||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0"),
            std::string::npos);
  const auto cl = lines(format_sshare(c.tree, c.out, Algorithm::kClassic));
  EXPECT_EQ(cl[0],
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|"
            "GrpTRESMins|TRESRunMins");
  SshareOptions p;
  p.parsable_trailing = true;
  EXPECT_EQ(lines(format_sshare(c.tree, c.out, Algorithm::kFairTree, p))[0].back(), '|');
}

TEST(SshareFormat, HugeUsagePrintsWhatSshareDoes) {
  const Case c = load("huge_usage", Algorithm::kFairTree);
  // (uint64_t) of 1e30 is 0 with gcc on x86-64, which is what Debian's sshare prints.
  EXPECT_NE(format_sshare(c.tree, c.out, Algorithm::kFairTree).find("  big|h1|1|0.500000|0|"),
            std::string::npos);
}

TEST(SshareFormat, JsonForm) {
  const Case c = load("test24_4", Algorithm::kFairTree);
  const auto j = nlohmann::json::parse(format_sshare_json(c.tree, c.out, Algorithm::kFairTree));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), c.tree.size());
  const auto& root = j[0];
  for (const char* k : {"account", "user", "raw_shares", "norm_shares", "raw_usage", "norm_usage",
                        "effective_usage", "fairshare", "level_fs"})
    EXPECT_TRUE(root.contains(k)) << k;
  EXPECT_EQ(root.size(), 9u);
  EXPECT_EQ(root["account"], "root");
  EXPECT_TRUE(root["user"].is_null());
  EXPECT_TRUE(root["raw_shares"].is_null());
  EXPECT_TRUE(root["norm_usage"].is_null());
  EXPECT_TRUE(root["fairshare"].is_null());
  EXPECT_TRUE(root["level_fs"].is_null());
  EXPECT_EQ(root["raw_usage"], 240);
  EXPECT_EQ(root["effective_usage"], 1.0);
  // Fair Tree's root norm shares are its raw shares over NO_VAL (0.000000 in -P): null.
  EXPECT_TRUE(root["norm_shares"].is_null()) << root;
  const auto& u1 = j[1];  // root|u1: no usage, level_fs infinite
  EXPECT_EQ(u1["user"], "u1");
  EXPECT_EQ(u1["level_fs"], "inf");
  EXPECT_EQ(u1["fairshare"], 1.0);
  EXPECT_EQ(u1["raw_shares"], 10);
  bool saw_parent = false;
  for (const auto& row : j) {
    if (row["raw_shares"] == "parent") {
      saw_parent = true;
      EXPECT_TRUE(row["level_fs"].is_null());
    }
    if (row["user"].is_null()) {
      EXPECT_TRUE(row["fairshare"].is_null());  // Fair Tree accounts
    }
  }
  EXPECT_TRUE(saw_parent);
  // Full precision, not %f: uAA1's fs factor is exactly 13/21.
  for (const auto& row : j) {
    if (row["user"] == "uAA1") {
      EXPECT_EQ(row["fairshare"].get<double>(), 13 / 21.0);
    }
  }

  const Case cl = load("test24_3", Algorithm::kClassic);
  const auto jc = nlohmann::json::parse(format_sshare_json(cl.tree, cl.out, Algorithm::kClassic));
  EXPECT_EQ(jc[0]["fairshare"], 0.5);
  for (const auto& row : jc) EXPECT_TRUE(row["level_fs"].is_null());
}

// Without -P: sshare's table (print_fields.c): fixed widths, Account left-aligned, the others
// right-aligned, each field followed by a space, the header underlined, an unset value blank,
// a string too wide cut with '+'.
TEST(SshareFormat, TableOfFixedWidths) {
  const Case c = load("testbed_2328", Algorithm::kFairTree);
  SshareOptions table;
  table.parsable = false;
  const auto got = lines(format_sshare(c.tree, c.out, Algorithm::kFairTree, table));
  ASSERT_GE(got.size(), 4u);
  EXPECT_EQ(got[0],
            "Account                    User  RawShares  NormShares    RawUsage   NormUsage "
            " EffectvUsage  FairShare    LevelFS                    GrpTRESMins "
            "                   TRESRunMins ");
  EXPECT_EQ(got[1], std::string(20, '-') + " " + std::string(10, '-') + " " + std::string(10, '-') +
                        " " + std::string(11, '-') + " " + std::string(11, '-') + " " +
                        std::string(11, '-') + " " + std::string(13, '-') + " " +
                        std::string(10, '-') + " " + std::string(10, '-') + " " +
                        std::string(30, '-') + " " + std::string(30, '-') + " ");
  // root|||0.000000|3867||1.000000||||cpu=0,...
  EXPECT_EQ(got[2], "root                 " + std::string(10, ' ') + " " + std::string(10, ' ') +
                        "    0.000000        3867 " + std::string(11, ' ') + "      1.000000 " +
                        std::string(10, ' ') + " " + std::string(10, ' ') + " " +
                        std::string(30, ' ') + " cpu=0,mem=0,energy=0,node=0,b+ ");
  //  root|root|1|0.009901|1079|0.279126|0.279126|0.166667|0.035471||...
  const std::string root_user =
      " root                      root          1    0.009901        1079    0.279126 "
      "     0.279126   0.166667   0.035471 ";
  EXPECT_EQ(got[3].substr(0, root_user.size()), root_user);
  // Every line as wide as the columns.
  for (const auto& l : got) EXPECT_EQ(l.size(), got[1].size()) << l;
  // The -P form is unchanged by the option's default.
  EXPECT_EQ(format_sshare(c.tree, c.out, Algorithm::kFairTree),
            format_sshare(c.tree, c.out, Algorithm::kFairTree, SshareOptions{}));
}

// A double wider than its field: %e with as many digits as fit (print_fields_double).
TEST(SshareFormat, TableShowsHugeValuesInExponentForm) {
  AssocTree t = AssocTree::build({{1, 0, "root", "", false, 1, 1e308L},
                                  {2, 1, "a", "", false, 1, 1e308L},
                                  {3, 2, "a", "u", false, 1, 1e308L},
                                  {4, 1, "b", "", false, 1, 1},
                                  {5, 4, "b", "v", false, 1, 1}});
  FairShareResult r;
  compute_fair_share(t, Algorithm::kFairTree, 1, r);
  SshareOptions table;
  table.parsable = false;
  const std::string text = format_sshare(t, r, Algorithm::kFairTree, table);
  // b's Level FS is 0.5 over 1e-308: 5e307, shown in 10 characters.
  EXPECT_NE(text.find(" 5.000e+307 "), std::string::npos) << text;
  const auto got = lines(text);
  for (const auto& l : got) EXPECT_EQ(l.size(), got[1].size()) << l;
}

}  // namespace
}  // namespace fairway
