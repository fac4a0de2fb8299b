// Snapshot reader/writer: valid files, strict rejection of everything else, round trips.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "snapshot.h"
#include "test_data.h"

namespace fairway {
namespace {

const char* kValid = R"({"fairway_snapshot": 1, "algorithm": "classic", "dampening_factor": 2,
 "associations": [
  {"id": 1, "parent": null, "account": "root", "user": null, "shares": 1, "usage": 0},
  {"id": 5, "parent": 1, "account": "hta", "user": null, "shares": "parent", "usage": 3.5},
  {"id": 21, "parent": 1, "account": "b", "user": null, "shares": 30, "usage": 0},
  {"id": 211, "parent": 21, "account": "b", "user": "u1", "shares": 1, "usage": 20.0},
  {"id": 51, "parent": 5, "account": "hta", "user": "u2", "shares": 4294967294, "usage": "0x1.8p+3"}]})";

TEST(Snapshot, ParsesAllFields) {
  const Snapshot s = parse_snapshot(kValid);
  EXPECT_EQ(s.algorithm, Algorithm::kClassic);
  EXPECT_EQ(s.dampening_factor, 2.0);
  ASSERT_EQ(s.associations.size(), 5u);
  const AssocRecord& root = s.associations[0];
  EXPECT_EQ(root.id, 1u);
  EXPECT_EQ(root.parent_id, 0u);
  EXPECT_EQ(root.account, "root");
  EXPECT_TRUE(root.user.empty());
  EXPECT_TRUE(s.associations[1].shares_parent);
  EXPECT_EQ(s.associations[1].usage_raw, 3.5L);
  EXPECT_EQ(s.associations[3].user, "u1");
  EXPECT_EQ(s.associations[3].usage_raw, 20.0L);
  EXPECT_EQ(s.associations[4].shares_raw, 4294967294u);
  EXPECT_EQ(s.associations[4].usage_raw, 12.0L);  // hex string
}

TEST(Snapshot, TreeHasTotals) {
  const AssocTree t = snapshot_tree(parse_snapshot(kValid));
  EXPECT_EQ(t.usage_raw(t.root()), 3.5L + 20 + 12);
  EXPECT_EQ(t.usage_raw(t.find(5)), 15.5L);  // own 3.5 + child 12
  EXPECT_EQ(t.usage_raw(t.find(21)), 20.0L);
}

TEST(Snapshot, AllFixturesParse) {
  for (const char* name :
       {"test24_1", "test24_3", "test24_4", "testbed_2328", "seed002_classic", "seed002_damp3",
        "dkrz_000", "parent_levels", "zero_usage", "deep6", "huge_usage", "ties", "single_user"}) {
    SCOPED_TRACE(name);
    const Snapshot s =
        read_snapshot_file(test::data_path(std::string("snapshots/") + name + ".json"));
    EXPECT_GT(s.associations.size(), 1u);
    EXPECT_NO_THROW((void)snapshot_tree(s));
  }
  EXPECT_EQ(read_snapshot_file(test::data_path("snapshots/seed002_damp3.json")).dampening_factor,
            3);
}

TEST(Snapshot, RoundTripIsExact) {
  Snapshot s = parse_snapshot(kValid);
  s.associations[3].usage_raw = 1.0L / 3.0L;  // not a double: written as a hex string
  s.associations[2].usage_raw = 0.1;          // a double: written as a number
  s.algorithm = Algorithm::kDepthOblivious;
  const std::string text = write_snapshot(s);
  EXPECT_NE(text.find("\"0x"), std::string::npos);
  EXPECT_NE(text.find("\"shares\": \"parent\""), std::string::npos);
  const Snapshot back = parse_snapshot(text);
  EXPECT_EQ(back.algorithm, Algorithm::kDepthOblivious);
  EXPECT_EQ(back.dampening_factor, 2.0);
  ASSERT_EQ(back.associations.size(), s.associations.size());
  for (size_t i = 0; i < s.associations.size(); ++i) {
    const AssocRecord &a = s.associations[i], &b = back.associations[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.parent_id, b.parent_id);
    EXPECT_EQ(a.account, b.account);
    EXPECT_EQ(a.user, b.user);
    EXPECT_EQ(a.shares_parent, b.shares_parent);
    if (!a.shares_parent) {
      EXPECT_EQ(a.shares_raw, b.shares_raw);
    }
    EXPECT_EQ(a.usage_raw, b.usage_raw);
  }
}

TEST(Snapshot, FromTreeRecoversDirectUsage) {
  const Snapshot s = parse_snapshot(kValid);
  const Snapshot back = snapshot_from_tree(snapshot_tree(s), s.algorithm, s.dampening_factor);
  for (size_t i = 0; i < s.associations.size(); ++i)
    EXPECT_EQ(back.associations[i].usage_raw, s.associations[i].usage_raw) << i;
}

std::string with_assoc(const std::string& assoc) {
  return R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1,
 "associations": [{"id": 1, "parent": null, "account": "root", "user": null, "shares": 1, "usage": 0},
 )" + assoc +
         "]}";
}

struct Bad {
  std::string json;
  std::string fragment;  // expected in the message
};

TEST(Snapshot, RejectsMalformedInput) {
  const std::string ok_assoc =
      R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1})";
  const std::vector<Bad> bad = {
      {"{",
       "line 1, column 2: expected a key (a string in double quotes) or '}', found the end of "
       "the input"},
      {"[]", "top level must be an object"},
      {R"({"fairway_snapshot": 3, "algorithm": "fair_tree", "dampening_factor": 1, "associations": []})",
       "unsupported version 3"},
      {R"({"algorithm": "fair_tree", "dampening_factor": 1, "associations": []})",
       "missing key \"fairway_snapshot\""},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1})",
       "missing key \"associations\""},
      {R"({"fairway_snapshot": 1, "algorithm": "fairtree", "dampening_factor": 1, "associations": []})",
       "unknown \"algorithm\""},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 0, "associations": []})",
       "\"dampening_factor\" is 0"},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 70000, "associations": []})",
       "\"dampening_factor\" is 70000"},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1, "associations": {}})",
       "\"associations\" must be an array"},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1, "associations": [], "x": 1})",
       "unknown key \"x\""},
      {R"({"fairway_snapshot": 1, "algorithm": "fair_tree", "dampening_factor": 1, "associations": []})",
       "the snapshot has no associations"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": -1, "usage": 1})"),
       "associations[1] (id 5): \"shares\" is -1"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 4294967295, "usage": 1})"),
       "(id 5): \"shares\" is 4294967295"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 2147483647, "usage": 1})"),
       "Fairshare=parent marker"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1.5, "usage": 1})"),
       "(id 5): \"shares\" must be an integer"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": "Parent", "usage": 1})"),
       "(id 5): \"shares\" must be an integer or \"parent\""},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": -3})"),
       "(id 5): \"usage\" is negative"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": -0.5})"),
       "(id 5): \"usage\" is negative"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": "nan"})"),
       "(id 5): \"usage\" is NaN"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": "inf"})"),
       "(id 5): \"usage\" is infinite"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": "1e99999"})"),
       "(id 5): \"usage\" is infinite"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1e400})"),
       "the number 1e400 is too large for a double"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": "12abc"})"),
       "(id 5): \"usage\" is not a number"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": true})"),
       "(id 5): \"usage\" must be a number"},
      {with_assoc(R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1})"),
       "(id 5): missing key \"usage\""},
      {with_assoc(R"({"id": 5, "parent": 1, "account": "a", "user": "u", "usage": 1})"),
       "(id 5): missing key \"shares\""},
      {with_assoc(R"({"parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1})"),
       "associations[1]: missing key \"id\""},
      {with_assoc(
           R"({"id": 0, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1})"),
       "associations[1]: \"id\" is 0"},
      {with_assoc(
           R"({"id": "5", "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1})"),
       "\"id\" must be an integer"},
      {with_assoc(R"({"id": 5, "parent": 1, "account": "", "user": "u", "shares": 1, "usage": 1})"),
       "(id 5): \"account\" must not be empty"},
      {with_assoc(R"({"id": 5, "parent": 1, "account": "a", "user": "", "shares": 1, "usage": 1})"),
       "(id 5): \"user\" (null for an account) must not be empty"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a\n", "user": "u", "shares": 1, "usage": 1})"),
       "control character"},
      {with_assoc(R"({"id": 5, "parent": 1, "account": 7, "user": "u", "shares": 1, "usage": 1})"),
       "(id 5): \"account\" must be a string"},
      {with_assoc(
           R"({"id": 5, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1, "qos": 1})"),
       "(id 5): unknown key \"qos\""},
      {with_assoc("[1]"), "associations[1] must be an object"},
      {with_assoc(
           R"({"id": 5, "parent": 9, "account": "a", "user": "u", "shares": 1, "usage": 1})"),
       "unknown parent id 9: association id 5"},
      {with_assoc(
           R"({"id": 1, "parent": 1, "account": "a", "user": "u", "shares": 1, "usage": 1})"),
       "association id 1"},
      {with_assoc(
           ok_assoc + "," +
           R"({"id": 6, "parent": 5, "account": "a", "user": null, "shares": 1, "usage": 1})"),
       "user association has children: association id 5"},
      {with_assoc(
           R"({"id": 5, "parent": 6, "account": "a", "user": null, "shares": 1, "usage": 1},)"
           R"({"id": 6, "parent": 5, "account": "b", "user": null, "shares": 1, "usage": 1})"),
       "cycle"},
      {with_assoc(
           R"({"id": 5, "parent": null, "account": "r2", "user": null, "shares": 1, "usage": 1})"),
       "second root"},
      {with_assoc(std::string(100, '[') + std::string(100, ']')), "nested deeper than"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.fragment);
    try {
      (void)parse_snapshot(b.json);
      ADD_FAILURE() << "accepted: " << b.json;
    } catch (const SnapshotError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(b.fragment), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "multi-line message: " << msg;
    }
  }
}

TEST(Snapshot, DeeplyNestedInputIsRejectedEarly) {
  // A million levels would blow a recursive parser's stack or a recursive destructor.
  const std::string bomb = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_THROW((void)parse_snapshot(bomb), SnapshotError);
}

TEST(Snapshot, MissingFile) {
  try {
    (void)read_snapshot_file(test::data_path("snapshots/does-not-exist.json"));
    FAIL();
  } catch (const SnapshotError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cannot open \""), std::string::npos) << msg;
    EXPECT_NE(msg.find("does-not-exist.json\": No such file or directory"), std::string::npos)
        << msg;
  }
}

TEST(Snapshot, DirectoryIsNotAFile) {
  try {
    (void)read_snapshot_file(test::data_path("snapshots"));
    FAIL();
  } catch (const SnapshotError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cannot read \""), std::string::npos) << msg;
    EXPECT_NE(msg.find("\": Is a directory"), std::string::npos) << msg;
  }
}

// Text that is not JSON: line and column, what was expected and what was found, in one line,
// with bytes outside printable ASCII shown by their value.
TEST(Snapshot, SyntaxErrorsSayWhereAndWhat) {
  const std::vector<Bad> bad = {
      {"", "line 1, column 1: the input is empty; expected a snapshot (a JSON object)"},
      {" \n\t\n", "line 3, column 1: the input is empty"},
      {"Account|User|RawShares\nroot||1\n",
       "line 1, column 1: expected '{' (a snapshot is a JSON object), found 'Account'"},
      {std::string("\x7f"
                   "ELF\x02\x01",
                   6),
       "line 1, column 1: expected '{' (a snapshot is a JSON object), found byte 0x7f"},
      {std::string("\0\0\0", 3), "found byte 0x00"},
      {"{\"a\": 1,\n \"b\" 2}", "line 2, column 6: expected ':' after the key, found '2'"},
      {"{\"a\": [1, 2,]}",
       "line 1, column 13: expected a value (an object, array, string, "
       "number, true, false or null), found ']'"},
      {"{\"a\": [1 2]}", "line 1, column 10: expected ',' or ']' after a value in an array"},
      {"{\"a\": 1 \"b\": 2}",
       "line 1, column 9: expected ',' or '}' after a value in an "
       "object, found '\"'"},
      {"{\"a\": 1,}", "line 1, column 9: expected a key (a string in double quotes), found '}'"},
      {"{\"a\": nul}",
       "line 1, column 7: expected a value (an object, array, string, number, "
       "true, false or null), found 'nul'"},
      {"{\"a\": -x}", "line 1, column 8: expected a digit after '-', found 'x'"},
      {"{\"a\": 1.}", "line 1, column 9: expected a digit after the decimal point, found '}'"},
      {"{\"a\": 1e+}", "line 1, column 10: expected a digit in the exponent, found '}'"},
      {"{\"a\": 01}",
       "line 1, column 8: expected ',' or '}' after a value in an object, found '1'"},
      {"{\"a\": \"x",
       "line 1, column 9: expected '\"' to end the string, found the end of the "
       "input"},
      {"{\"a\": \"x\ny\"}", "line 1, column 9: found byte 0x0a inside a string"},
      {"{\"a\": \"\\q\"}", "line 1, column 9: expected an escape"},
      {"{\"a\": \"\\u12\"}", "expected four hexadecimal digits after '\\u'"},
      {"{\"a\": \"\\ud800x\"}", "expected \\uDC00 to \\uDFFF"},
      {"{\"a\": \"\\udc00\"}", "line 1, column 8: \\uDC00 is the second half of a UTF-16"},
      {"{\"a\": \"\xff\"}",
       "line 1, column 8: found byte 0xff inside a string, which is not "
       "UTF-8 text"},
      {"{\"a\": \"\xc3\"}", "found byte 0xc3 inside a string, which is not UTF-8 text"},
      {"{\"a\": \"\xed\xa0\x80\"}", "found byte 0xed inside a string"},  // a surrogate
      {"{} x",
       "line 1, column 4: expected the end of the input after the top-level value, "
       "found 'x'"},
      {"{\"a\": 1e400}", "line 1, column 7: the number 1e400 is too large for a double"},
      {"{\"a\": [" + std::string(400, '9') + "]}",
       "line 1, column 8: a number too large for a double"},
      {"{\"a\": " + std::string(40, 'x') + "}", "found 'xxxxxxxxxxxxxxxx...'"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.json);
    try {
      (void)parse_snapshot(b.json);
      ADD_FAILURE() << "accepted: " << b.json;
    } catch (const SnapshotError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("snapshot: ", 0), 0u) << msg;
      EXPECT_NE(msg.find(b.fragment), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "multi-line message: " << msg;
      for (unsigned char c : msg) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "raw byte in: " << msg;
    }
  }
  // A UTF-8 byte order mark and valid UTF-8 are JSON.
  EXPECT_NO_THROW((void)parse_snapshot("\xEF\xBB\xBF" + std::string(kValid)));
}

// FairShareDampeningFactor is an integer from 1 to 65535 in Slurm: the same rule for files, for
// what write_snapshot writes, and for the CLI's --dampening.
TEST(Snapshot, DampeningFactorIsAnInteger) {
  const std::string rule = kDampeningFactorRule;
  for (const char* value : {"1.5", "2.0", "0", "65536", "-1", "\"2\"", "null", "true"}) {
    std::string text = kValid;
    const size_t at = text.find("\"dampening_factor\": 2");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 21, std::string("\"dampening_factor\": ") + value);
    SCOPED_TRACE(text);
    try {
      (void)parse_snapshot(text);
      ADD_FAILURE() << "accepted dampening_factor " << value;
    } catch (const SnapshotError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("\"dampening_factor\" is "), std::string::npos) << msg;
      EXPECT_NE(msg.find(rule), std::string::npos) << msg;
    }
  }
  Snapshot s = parse_snapshot(kValid);
  s.dampening_factor = 1.5;
  try {
    (void)write_snapshot(s);
    ADD_FAILURE() << "wrote dampening factor 1.5";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << e.what();
  }
  s.dampening_factor = 65535;
  EXPECT_EQ(parse_snapshot(write_snapshot(s)).dampening_factor, 65535);

  EXPECT_EQ(parse_dampening_factor("1"), std::optional<uint16_t>(1));
  EXPECT_EQ(parse_dampening_factor("65535"), std::optional<uint16_t>(65535));
  for (const char* text :
       {"", "0", "1.5", "2.0", "+2", " 2", "2 ", "65536", "99999999999", "1e3", "-1", "0x10"})
    EXPECT_EQ(parse_dampening_factor(text), std::nullopt) << text;
}

// A stream that never ends and is not JSON (/dev/zero, `yes`) is refused at its first byte,
// not read on to the size limit.
TEST(ReadSnapshotFd, EndlessNonJsonStreamIsRefusedAtItsFirstByte) {
  signal(SIGPIPE, SIG_IGN);  // the writer learns of the closed pipe by EPIPE
  for (const char fill : {'\0', 'y'}) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    std::atomic<size_t> written{0};
    std::thread writer([&] {
      const std::vector<char> block(65536, fill);
      for (;;) {  // until the reader closes its end (EPIPE) or 64 MiB, to bound a failure
        const ssize_t n = write(p[1], block.data(), block.size());
        if (n <= 0 || (written += static_cast<size_t>(n)) >= (size_t{64} << 20)) break;
      }
      close(p[1]);
    });
    std::string message;
    try {
      (void)read_snapshot_fd(p[0], "standard input");
    } catch (const SnapshotError& e) {
      message = e.what();
    }
    close(p[0]);
    writer.join();
    EXPECT_EQ(message, fill == 'y' ? "snapshot: standard input: line 1, column 1: expected '{' (a "
                                     "snapshot is a JSON object), found 'yyyyyyyyyyyyyyyy...'"
                                   : "snapshot: standard input: line 1, column 1: expected '{' (a "
                                     "snapshot is a JSON object), found byte 0x00");
    EXPECT_LT(written.load(), size_t{8} << 20) << "read far past the first byte";
  }
}

TEST(ReadSnapshotFd, LeadingBlanksAloneAreBounded) {
  signal(SIGPIPE, SIG_IGN);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::thread writer([&] {
    const std::vector<char> block(65536, ' ');
    size_t written = 0;
    while (written < (size_t{64} << 20)) {
      const ssize_t n = write(p[1], block.data(), block.size());
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    close(p[1]);
  });
  std::string message;
  try {
    (void)read_snapshot_fd(p[0], "standard input");
  } catch (const SnapshotError& e) {
    message = e.what();
  }
  close(p[0]);
  writer.join();
  EXPECT_EQ(message,
            "snapshot: standard input: more than 1048576 bytes of blanks and no snapshot (a JSON "
            "object)");
}

// After the opening brace too: an endless stream of NULs or of blanks (a snapshot's brace
// followed by /dev/zero, or by spaces) is refused where it stops being JSON that anything
// writes, not buffered to the size limit.
TEST(ReadSnapshotFd, EndlessNonJsonAfterTheBraceIsRefusedEarly) {
  signal(SIGPIPE, SIG_IGN);
  for (const char fill : {'\0', ' '}) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    std::atomic<size_t> written{0};
    std::thread writer([&] {
      const std::string head = "{\"fairway_snapshot\": 2, ";
      if (write(p[1], head.data(), head.size()) != static_cast<ssize_t>(head.size())) return;
      const std::vector<char> block(65536, fill);
      for (;;) {  // until the reader closes its end (EPIPE) or 64 MiB, to bound a failure
        const ssize_t n = write(p[1], block.data(), block.size());
        if (n <= 0 || (written += static_cast<size_t>(n)) >= (size_t{64} << 20)) break;
      }
      close(p[1]);
    });
    std::string message;
    try {
      (void)read_snapshot_fd(p[0], "standard input");
    } catch (const SnapshotError& e) {
      message = e.what();
    }
    close(p[0]);
    writer.join();
    EXPECT_EQ(message, fill == ' '
                           ? "snapshot: standard input: line 1, column 1048600: more than 1048576 "
                             "blanks in a row: no snapshot (a JSON object)"
                           : "snapshot: standard input: line 1, column 25: a control byte (byte "
                             "0x00) that no JSON text holds");
    EXPECT_LT(written.load(), size_t{8} << 20) << "read far past where it stopped being JSON";
  }
}

}  // namespace
}  // namespace fairway
