#include "proj/comp/core/src/answer_lines.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace clada::core {
namespace {

TEST(ChangedLines, NamesTheOneRunThatDiffers) {
  EXPECT_FALSE(ChangedLines("a\nb\n", "a\nb\n").has_value());
  std::optional<LineChange> c = ChangedLines("a\nb\nc\n", "a\nx\ny\nb\nc\n");  // two inserted before line 2
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 2);
  EXPECT_EQ(c->old_count, 0);
  EXPECT_EQ(c->new_count, 2);
  c = ChangedLines("a\nb\nc\nd\n", "a\nB\nC\nd\n");  // lines 2-3 replaced
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 2);
  EXPECT_EQ(c->old_count, 2);
  EXPECT_EQ(c->new_count, 2);
  c = ChangedLines("a\nb\nc\n", "a\nc\n");  // line 2 deleted
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 2);
  EXPECT_EQ(c->old_count, 1);
  EXPECT_EQ(c->new_count, 0);
  c = ChangedLines("a\nbXc\nd\n", "a\nbYc\nd\n");  // inside a line
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 2);
  EXPECT_EQ(c->old_count, 1);
  EXPECT_EQ(c->new_count, 1);
  c = ChangedLines("a\n", "a\nb\n");  // appended
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 2);
  EXPECT_EQ(c->old_count, 0);
  EXPECT_EQ(c->new_count, 1);
}

// Texts past the block the comparison takes at a time (4 KB): a change
// anywhere, also on a block's first or last byte, is found on its line.
TEST(ChangedLines, LongTextsChangedAtBlockEdges) {
  std::string text;
  for (int k = 1; k <= 3000; ++k) absl::StrAppend(&text, "line ", k, "\n");
  for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{8191}, size_t{12288}, text.size() / 2,
                    text.size() - 4097, text.size() - 2}) {
    std::string changed = text;
    changed[at] = changed[at] == '\n' ? 'x' : '#';
    std::optional<LineChange> c = ChangedLines(text, changed);
    ASSERT_TRUE(c.has_value()) << at;
    const int64_t line = 1 + static_cast<int64_t>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(at), '\n'));
    EXPECT_EQ(c->first, line) << at;
    // A line break changed joins two lines into one.
    EXPECT_EQ(c->old_count, text[at] == '\n' ? 2 : 1) << at;
    EXPECT_EQ(c->new_count, 1) << at;
  }
}

// An edit of places as pieces: the text's own bytes between the places
// (views of it, or copies when `copies`) and each place's new text.
struct Pieces {
  std::vector<std::string> owned;  // the new texts (and copies)
  std::vector<absl::string_view> views;
  PiecedText text() const {
    return PiecedText{views.size(), [this](size_t i) { return views[i]; }};
  }
  std::string Joined() const { return absl::StrJoin(views, ""); }
};
Pieces RandomPlaces(const std::string& before, std::mt19937& rng, bool copies) {
  static const char* const kNew[] = {"", "x", "\n", "a\n", "\nb", "x\ny\n", "a", "\n\n"};
  Pieces p;
  p.owned.reserve(64);
  size_t at = 0;
  const int places = static_cast<int>(rng() % 5);
  for (int k = 0; k < places && at <= before.size(); ++k) {
    const size_t begin = at + rng() % (before.size() - at + 1);
    const size_t end = begin + rng() % std::min<size_t>(4, before.size() - begin + 1);
    absl::string_view kept = absl::string_view(before).substr(at, begin - at);
    if (copies) {
      p.owned.emplace_back(kept);
      kept = p.owned.back();
    }
    p.views.push_back(kept);
    p.owned.emplace_back(kNew[rng() % 8]);
    p.views.push_back(p.owned.back());
    at = end;
  }
  absl::string_view rest = absl::string_view(before).substr(std::min(at, before.size()));
  if (copies) {
    p.owned.emplace_back(rest);
    rest = p.owned.back();
  }
  p.views.push_back(rest);
  return p;
}

// The line record from an edit's places (pieces, the result not built) is
// the record from the two texts, on random edits of random texts: places
// at line starts and ends, new text with and without breaks, texts with
// and without a last break; the pieces views of the text (taken as equal
// unread) or copies of it (compared).
TEST(ChangedLines, FromPiecesAsFromTheTwoTexts) {
  std::mt19937 rng(35);
  int changed = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string before;
    const int lines = static_cast<int>(rng() % 8);
    for (int i = 0; i < lines; ++i) absl::StrAppend(&before, std::string(rng() % 3, 'a' + (rng() % 2)), "\n");
    if (rng() % 3 == 0) before += "z";
    const Pieces p = RandomPlaces(before, rng, round % 2 == 1);
    const std::string after = p.Joined();
    const std::optional<LineChange> want = ChangedLines(before, after);
    const std::optional<LineChange> got = ChangedLines(before, p.text());
    ASSERT_EQ(got.has_value(), want.has_value()) << "round " << round;
    if (!want.has_value()) continue;
    ++changed;
    ASSERT_EQ(got->first, want->first) << "round " << round;
    ASSERT_EQ(got->old_count, want->old_count) << "round " << round;
    ASSERT_EQ(got->new_count, want->new_count) << "round " << round;
  }
  EXPECT_GT(changed, 10000);
  // And the records agree: a line mapped after either is the same.
  for (int round = 0; round < 2000; ++round) {
    std::string before;
    for (int i = 0; i < 12; ++i) absl::StrAppend(&before, "l", rng() % 4, "\n");
    const Pieces p = RandomPlaces(before, rng, false);
    AnswerLines by_texts, by_pieces;
    by_texts.Record("/f", before, p.Joined(), "e");
    by_pieces.Record("/f", before, p.text(), "e");
    for (int64_t line = 1; line <= 12; ++line) {
      const AnswerLines::Mapped a = by_texts.Map("/f", line, line), b = by_pieces.Map("/f", line, line);
      ASSERT_EQ(a.ok, b.ok);
      ASSERT_EQ(a.first, b.first);
      ASSERT_EQ(a.changed_first, b.changed_first);
      ASSERT_EQ(a.changed_last, b.changed_last);
    }
  }
}

// A 60,000-line text with a place on every line, as pieces of its own
// bytes: the run from the first line to the last.
TEST(ChangedLines, FromPiecesOfALargeEdit) {
  std::string before;
  for (int i = 0; i < 60000; ++i) absl::StrAppend(&before, "v = f(alpha);\n");
  Pieces p;
  p.owned.assign(1, "alpha_renamed");
  size_t at = 0;
  for (size_t hit = before.find("alpha"); hit != std::string::npos; hit = before.find("alpha", hit + 5)) {
    p.views.push_back(absl::string_view(before).substr(at, hit - at));
    p.views.push_back(p.owned[0]);
    at = hit + 5;
  }
  p.views.push_back(absl::string_view(before).substr(at));
  const std::optional<LineChange> c = ChangedLines(before, p.text());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->first, 1);
  EXPECT_EQ(c->old_count, 60000);
  EXPECT_EQ(c->new_count, 60000);
}

TEST(AnswerLines, LinesBelowAnEarlierEditMoveAndLinesItChangedAreRefused) {
  AnswerLines lines;
  // task-1 replaced line 2 of five with three lines.
  lines.Record("/r/f", "1\n2\n3\n4\n5\n", "1\nA\nB\nC\n3\n4\n5\n", "task-1");
  AnswerLines::Mapped m = lines.Map("/r/f", 4, 5);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.first, 6);
  EXPECT_EQ(m.last, 7);
  m = lines.Map("/r/f", 1, 1);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.first, 1);
  m = lines.Map("/r/f", 1, 3);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.by, "task-1");
  EXPECT_EQ(m.changed_first, 2);
  EXPECT_EQ(m.changed_last, 2);
  m = lines.Map("/r/other", 4, 5);  // a file no edit touched
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.first, 4);
  EXPECT_EQ(lines.LastChangeBy("/r/f"), "task-1");
  EXPECT_EQ(lines.LastChangeBy("/r/other"), "");
}

TEST(AnswerLines, CreatedFilesAndMovesAndDeletes) {
  AnswerLines lines;
  lines.Created("/r/new", "csl-1");
  AnswerLines::Mapped m = lines.Map("/r/new", 1, 1);
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(m.created);
  EXPECT_EQ(m.by, "csl-1");
  lines.Record("/r/d/f", "1\n2\n", "0\n1\n2\n", "task-2");
  lines.Move("/r/d", "/r/e");
  m = lines.Map("/r/e/f", 2, 2);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.first, 3);
  EXPECT_TRUE(lines.Map("/r/d/f", 2, 2).ok && lines.Map("/r/d/f", 2, 2).first == 2);
  lines.Forget("/r/e");
  EXPECT_EQ(lines.Map("/r/e/f", 2, 2).first, 2);
}

TEST(AnswerLines, WatchedPathsOnlyOnceOneIsWatched) {
  AnswerLines lines;
  lines.Watch("/r/w");
  lines.Record("/r/w", "1\n2\n", "0\n1\n2\n", "e1");
  lines.Record("/r/u", "1\n2\n", "0\n1\n2\n", "e2");
  lines.Created("/r/n", "e3");
  EXPECT_EQ(lines.Map("/r/w", 2, 2).first, 3);
  EXPECT_EQ(lines.Map("/r/u", 2, 2).first, 2);  // not kept: as it is now
  EXPECT_TRUE(lines.Map("/r/n", 1, 1).ok);
  EXPECT_EQ(lines.LastChangeBy("/r/u"), "");
}

// Random edits of a file whose lines are all different, against an oracle
// that tracks where each original line is: a range maps when its lines are
// all still there, in one piece, and then to where they are.
TEST(AnswerLines, AgreesWithWhereEachOriginalLineIs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<std::string> now;  // each line's text: "o<k>" original line k, "n<..>" new
    for (int k = 1; k <= n; ++k) now.push_back(absl::StrCat("o", k));
    AnswerLines lines;
    int fresh = 0;
    const int edits = 1 + static_cast<int>(rng() % 5);
    for (int e = 0; e < edits; ++e) {
      const std::string before = now.empty() ? "" : absl::StrCat(absl::StrJoin(now, "\n"), "\n");
      const size_t at = rng() % (now.size() + 1);
      const size_t remove = std::min<size_t>(rng() % 3, now.size() - at);
      const size_t add = rng() % 3;
      now.erase(now.begin() + static_cast<ptrdiff_t>(at), now.begin() + static_cast<ptrdiff_t>(at + remove));
      for (size_t k = 0; k < add; ++k) now.insert(now.begin() + static_cast<ptrdiff_t>(at + k), absl::StrCat("n", ++fresh));
      const std::string after = now.empty() ? "" : absl::StrCat(absl::StrJoin(now, "\n"), "\n");
      lines.Record("/f", before, after, absl::StrCat("e", e));
    }
    for (int first = 1; first <= n; ++first) {
      for (int last = first; last <= n; ++last) {
        // Oracle: where original line `first` is, and whether first..last follow it.
        int pos = -1;
        for (size_t k = 0; k < now.size(); ++k) {
          if (now[k] == absl::StrCat("o", first)) pos = static_cast<int>(k);
        }
        bool whole = pos >= 0;
        for (int k = first; whole && k <= last; ++k) {
          whole = pos + (k - first) < static_cast<int>(now.size()) && now[pos + (k - first)] == absl::StrCat("o", k);
        }
        const AnswerLines::Mapped m = lines.Map("/f", first, last);
        ASSERT_EQ(m.ok, whole) << "round " << round << " lines " << first << "-" << last << " now "
                               << absl::StrJoin(now, ",");
        if (whole) {
          EXPECT_EQ(m.first, pos + 1);
          EXPECT_EQ(m.last, pos + 1 + (last - first));
        }
      }
    }
  }
}

}  // namespace
}  // namespace clada::core
