// Tournaments (runs/tournament.hpp): a round robin ranks a random player last by every rating,
// every recorded game replays legally from its opening to its recorded score, a gauntlet plays
// only the first agent's pairings, each opening is played twice per pairing with colours
// swapped, an interrupted-then-resumed run writes the same bytes as an uninterrupted one, a
// corrupt games.csv row is reported with its line, and config errors name the key.
#include "runs/tournament.hpp"
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include "data/generate.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "test_support.hpp"

using namespace ef;
namespace fs = std::filesystem;

namespace {

struct Row {
  unsigned id = 0;
  std::string black, white;
  int opening = 0, black_score = 0;
  std::string result, moves;
};

std::vector<Row> read_rows(const fs::path& file) {
  std::istringstream in(test::contents(file));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "game,black,white,opening,black_score,result,moves");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    if (line.back() == ',') f.push_back("");
    EXPECT_EQ(f.size(), 7u) << line;
    if (f.size() != 7) continue;
    rows.push_back({static_cast<unsigned>(std::stoul(f[0])), f[1], f[2], std::stoi(f[3]), std::stoi(f[4]), f[5], f[6]});
  }
  return rows;
}

class TournamentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ef-tournament-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A config with `tournament` lines and agents (each a block of key = value lines).
  std::string write_config(const std::string& tournament, const std::vector<std::string>& agents,
                           const std::string& name = "t.toml", const std::string& data = "") {
    const fs::path file = dir_ / name;
    std::ofstream out(file);
    out << "[tournament]\n" << tournament << "\n";
    if (!data.empty()) out << "[data]\n" << data << "\n";
    for (const auto& a : agents) out << "[[agent]]\n" << a << "\n";
    return file.string();
  }
  std::string round_robin(const std::string& extra = "") {
    return write_config(
        "openings = 4\nopening_moves = 6\nseed = 7\n" + extra,
        {"file = \"swh\"\nname = \"swh-2\"\ndepth = 2", "file = \"swh\"\nname = \"swh-1\"", "file = \"random\""});
  }

  play::TournamentOutcome run(const fs::path& out, const std::string& config, int chunk = 4096, int stop_after = -1,
                              bool accept_config_edits = false) {
    play::TournamentRunOptions o;
    o.accept_config_edits = accept_config_edits;
    o.backend = "cpu";
    o.threads = 2;
    o.chunk_games = chunk;
    if (stop_after >= 0) o.stop_requested = [calls = 0, stop_after]() mutable { return calls++ == stop_after; };
    o.resume_hint = "evalforge tournament --resume " + out.string();
    return play::run_tournament(out, config, o);
  }

  std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ef::Error";
    return "";
  }

  fs::path dir_;
};

TEST_F(TournamentTest, RoundRobinRanksRandomLastAndEveryGameReplays) {
  const std::string config = round_robin();
  const auto r = run(dir_ / "run", config);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.games_total, 3u * 2 * 4);
  const auto& s = r.standings;
  ASSERT_EQ(s.agents.size(), 3u);
  EXPECT_EQ(s.agents[2].name, "random");
  // Random ranks last in sequential Elo, Bradley-Terry and score.
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(s.agents[i].sequential_elo, s.agents[2].sequential_elo) << s.text;
    EXPECT_GT(s.agents[i].bt_elo, s.agents[2].bt_elo) << s.text;
    EXPECT_GT(s.agents[i].score, s.agents[2].score) << s.text;
    EXPECT_GT(s.los[i * 3 + 2], 0.9) << s.text;
  }
  EXPECT_EQ(s.ranking.back(), 2);
  for (const auto& a : s.agents) EXPECT_EQ(a.games, 16);
  EXPECT_NEAR(s.agents[0].bt_elo + s.agents[1].bt_elo + s.agents[2].bt_elo, 0.0, 1e-6);
  EXPECT_NEAR(s.agents[0].sequential_elo + s.agents[1].sequential_elo + s.agents[2].sequential_elo, 0.0, 1e-6);
  for (const auto& a : s.agents) {
    EXPECT_LE(a.score_low95, a.score);
    EXPECT_GE(a.score_high95, a.score);
    EXPECT_GT(a.bt_margin95, 0.0);
  }

  // The run directory: the config as given, the standings as returned.
  EXPECT_EQ(test::contents(dir_ / "run" / "config.toml"), test::contents(config));
  EXPECT_EQ(test::contents(dir_ / "run" / "standings.txt"), s.text);
  EXPECT_EQ(test::contents(dir_ / "run" / "standings.json"), s.json);
  const auto j = nlohmann::json::parse(s.json);
  EXPECT_EQ(j["order"].back(), "random");
  EXPECT_EQ(j["games"], 24);

  // Every game replays legally from its opening (passes implicit) to a finished board with the
  // recorded score and result, in id order, each id once.
  const auto openings = play::tournament_openings(play::load_tournament_config(config));
  ASSERT_EQ(openings.size(), 4u);
  for (const auto& o : openings) EXPECT_EQ(o.move_number(), 6);
  const auto rows = read_rows(dir_ / "run" / "games.csv");
  ASSERT_EQ(rows.size(), 24u);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& row = rows[k];
    EXPECT_EQ(row.id, k);
    othello::Board b = openings[row.opening].board;
    ASSERT_EQ(row.moves.size() % 2, 0u);
    for (std::size_t m = 0; m < row.moves.size(); m += 2) {
      ASSERT_FALSE(b.game_over()) << "game " << row.id;
      if (!b.can_move()) b.pass();
      const auto sq = parse_square(row.moves.substr(m, 2));
      ASSERT_TRUE(sq.has_value()) << row.moves;
      ASSERT_TRUE(b.play(*sq)) << "game " << row.id << ": illegal move " << row.moves.substr(m, 2);
    }
    EXPECT_TRUE(b.game_over()) << "game " << row.id;
    EXPECT_EQ(b.disc_diff_empties_to_winner(), row.black_score) << "game " << row.id;
    EXPECT_EQ(row.result, row.black_score > 0 ? "1" : (row.black_score < 0 ? "0" : "0.5"));
  }
}

TEST_F(TournamentTest, EachOpeningTwicePerPairingColoursSwapped) {
  const std::string config = round_robin();
  ASSERT_TRUE(run(dir_ / "run", config).complete);
  const auto rows = read_rows(dir_ / "run" / "games.csv");
  // (pairing, opening) -> the agents that played black.
  std::map<std::tuple<std::string, std::string, int>, std::multiset<std::string>> blacks;
  for (const Row& r : rows) {
    const auto key = std::make_tuple(std::min(r.black, r.white), std::max(r.black, r.white), r.opening);
    blacks[key].insert(r.black);
  }
  EXPECT_EQ(blacks.size(), 3u * 4);
  for (const auto& [key, b] : blacks) {
    EXPECT_EQ(b.size(), 2u);
    EXPECT_EQ(b.count(std::get<0>(key)), 1u);
    EXPECT_EQ(b.count(std::get<1>(key)), 1u);
  }
  // Game 2k and 2k+1 are the pair of one opening: same players, colours swapped.
  for (std::size_t k = 0; k + 1 < rows.size(); k += 2) {
    EXPECT_EQ(rows[k].black, rows[k + 1].white);
    EXPECT_EQ(rows[k].white, rows[k + 1].black);
    EXPECT_EQ(rows[k].opening, rows[k + 1].opening);
  }
}

TEST_F(TournamentTest, GauntletPlaysOnlyTheFirstAgentsPairings) {
  const std::string config =
      write_config("format = \"gauntlet\"\nopenings = 3\n",
                   {"file = \"swh\"\nname = \"hero\"", "file = \"random\"\nname = \"r1\"",
                    "file = \"random\"\nname = \"r2\"", "file = \"swh\"\nname = \"eps\"\nepsilon = 0.5"});
  const auto r = run(dir_ / "run", config);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.games_total, 3u * 2 * 3);
  const auto rows = read_rows(dir_ / "run" / "games.csv");
  ASSERT_EQ(rows.size(), 18u);
  std::map<std::string, int> games_of;
  for (const Row& row : rows) {
    EXPECT_TRUE(row.black == "hero" || row.white == "hero") << row.black << " vs " << row.white;
    EXPECT_NE(row.black, row.white);
    games_of[row.black == "hero" ? row.white : row.black]++;
  }
  EXPECT_EQ(games_of, (std::map<std::string, int>{{"eps", 6}, {"r1", 6}, {"r2", 6}}));
  EXPECT_EQ(r.standings.agents[0].games, 18);
  EXPECT_EQ(r.standings.cross_games[1 * 4 + 2], 0);  // r1 and r2 never met
  EXPECT_NE(r.standings.text.find("gauntlet"), std::string::npos);
}

TEST_F(TournamentTest, InterruptedThenResumedEqualsUninterrupted) {
  const std::string config = round_robin();
  ASSERT_TRUE(run(dir_ / "whole", config, 5).complete);

  // Stop after the first chunk of 5 games, then resume (with another chunk size).
  const auto first = run(dir_ / "parts", config, 5, /*stop_after=*/1);
  EXPECT_FALSE(first.complete);
  EXPECT_EQ(first.games_played, 5u);
  EXPECT_EQ(read_rows(dir_ / "parts" / "games.csv").size(), 5u);
  EXPECT_FALSE(fs::exists(dir_ / "parts" / "standings.txt"));
  // A second start in the same directory is refused.
  EXPECT_NE(error_of([&] { run(dir_ / "parts", config); }).find("--resume"), std::string::npos);
  test::expect_refused_while_held(dir_ / "parts", "tournament", [&] { run(dir_ / "parts", ""); });
  test::expect_edited_config_refused(dir_ / "parts", [&] { run(dir_ / "parts", ""); });
  const auto second = run(dir_ / "parts", "", 7, /*stop_after=*/1);  // one more chunk: 12 games
  EXPECT_FALSE(second.complete);
  EXPECT_EQ(second.games_played, 12u);
  // A write cut short: the last row loses its end; the resume drops it and plays it again.
  {
    std::string csv = test::contents(dir_ / "parts" / "games.csv");
    csv.resize(csv.size() - 9);
    write_atomically(dir_ / "parts" / "games.csv", csv);
  }
  const auto last = run(dir_ / "parts", "", 7);
  ASSERT_TRUE(last.complete);
  for (const char* f : {"games.csv", "standings.txt", "standings.json", "config.toml"})
    EXPECT_EQ(test::contents(dir_ / "whole" / f), test::contents(dir_ / "parts" / f)) << f;
  // Resuming a finished tournament plays nothing and writes the same standings again.
  const auto again = run(dir_ / "parts", "");
  ASSERT_TRUE(again.complete);
  EXPECT_EQ(again.standings.json, last.standings.json);
}

TEST_F(TournamentTest, CorruptRowsAreReportedWithTheirLine) {
  const std::string config = round_robin();
  ASSERT_FALSE(run(dir_ / "run", config, 6, 1).complete);
  const fs::path csv = dir_ / "run" / "games.csv";
  const std::string good = test::contents(csv);
  auto with_line = [&](int line_no, const std::function<std::string(std::string)>& edit) {
    std::istringstream in(good);
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n) out += (n == line_no ? edit(line) : line) + "\n";
    write_atomically(csv, out);
    return error_of([&] { run(dir_ / "run", ""); });
  };
  const std::string where = csv.string() + ":4: ";
  // A wrong score (the moves end elsewhere).
  EXPECT_NE(with_line(4,
                      [](std::string l) {
                        const auto p = l.rfind(',');
                        return l.substr(0, p + 3);  // only the first move
                      })
                .find(where + "the game is not finished"),
            std::string::npos);
  EXPECT_NE(with_line(4, [](std::string l) { return l + ",extra"; }).find(where + "expected 7"), std::string::npos);
  EXPECT_NE(with_line(4, [](std::string l) { return l.replace(0, l.find(','), "999"); }).find(where + "game id"),
            std::string::npos);
  EXPECT_NE(with_line(4, [](std::string) { return "1,swh-1,swh-2,0,0,0.5,"; }).find(where), std::string::npos);
  // An illegal move: a1 is never legal right after the opening.
  EXPECT_NE(with_line(4,
                      [](std::string l) {
                        auto f = l.rfind(',');
                        return l.substr(0, f + 1) + "a1" + l.substr(f + 3);
                      })
                .find("is illegal"),
            std::string::npos);
  // A duplicate row.
  EXPECT_NE(with_line(4,
                      [&](std::string) {
                        std::istringstream in(good);
                        std::string l;
                        std::getline(in, l);
                        std::getline(in, l);
                        std::getline(in, l);
                        return l;
                      })
                .find("already recorded on line 3"),
            std::string::npos);
  // A changed agent is refused rather than mixed into the results: as a hand edit of the config,
  // and, with the edit accepted, by the tournament's own check of its agents.
  write_atomically(csv, good);
  std::string cfg = test::contents(dir_ / "run" / "config.toml");
  cfg.replace(cfg.find("depth = 2"), 9, "depth = 3");
  write_atomically(dir_ / "run" / "config.toml", cfg);
  EXPECT_NE(error_of([&] { run(dir_ / "run", ""); }).find("].depth: 2 -> 3"), std::string::npos);
  EXPECT_NE(error_of([&] { run(dir_ / "run", "", 4096, -1, true); }).find("not the agent the tournament started with"),
            std::string::npos);
}

TEST_F(TournamentTest, ConfigErrorsNameTheKey) {
  const std::vector<std::string> two = {"file = \"swh\"", "file = \"random\""};
  auto err = [&](const std::string& t, const std::vector<std::string>& agents, const std::string& data = "") {
    const std::string file = write_config(t, agents, "bad.toml", data);
    return error_of([&] { play::load_tournament_agents(play::load_tournament_config(file)); });
  };
  EXPECT_NE(err("opennings = 4\n", two).find("tournament.opennings"), std::string::npos);
  EXPECT_NE(err("openings = 0\n", two).find("tournament.openings"), std::string::npos);
  EXPECT_NE(err("format = \"swiss\"\n", two).find("tournament.format"), std::string::npos);
  EXPECT_NE(err("opening_source = \"book\"\n", two).find("tournament.opening_source"), std::string::npos);
  EXPECT_NE(err("k_factor = -1\n", two).find("tournament.k_factor"), std::string::npos);
  EXPECT_NE(err("opening_source = \"dataset\"\n", two).find("data.files"), std::string::npos);
  EXPECT_NE(err("", two, "files = [\"x.txt\"]").find("data.files"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\""}).find("at least 2 agents"), std::string::npos);
  EXPECT_NE(err("format = \"gauntlet\"\n", {"file = \"swh\""}).find("gauntlet needs"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"", "file = \"no-such-agent.toml\""}).find("agent[1].file"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"", "name = \"x\""}).find("agent[1].file"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"\ndepth = 99", "file = \"random\""}).find("agent[0].depth"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"\nepsilon = 2", "file = \"random\""}).find("agent[0].epsilon"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"\nbogus = 1", "file = \"random\""}).find("agent[0].bogus"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"", "file = \"swh\"\ndepth = 2"}).find("agent[1].name"), std::string::npos);
  EXPECT_NE(err("", {"file = \"swh\"\nname = \"a,b\"", "file = \"random\""}).find("agent[0].name"), std::string::npos);
  // The message names the file too.
  EXPECT_NE(err("openings = 0\n", two).find("bad.toml"), std::string::npos);
}

TEST_F(TournamentTest, AgentFilesResolveAgainstTheConfigAndDatasetOpenings) {
  // An agent file beside the config (not in the working directory), and openings from dataset games.
  fs::create_directories(dir_ / "cfg");
  std::ofstream(dir_ / "cfg" / "eps.toml") << "name = \"eps-swh\"\nevaluator = \"swh\"\nepsilon = 0.2\n";
  data::GenerateOptions g;
  g.games = 30;
  g.threads = 1;
  data::write_transcripts(dir_ / "cfg" / "games.txt", data::generate_games(g));
  const std::string config =
      write_config("openings = 2\nopening_source = \"dataset\"\nopening_moves = 20\n",
                   {"file = \"eps.toml\"", "file = \"swh\""}, "cfg/t.toml", "files = [\"games.txt\"]");
  const auto c = play::load_tournament_config(config);
  const auto openings = play::tournament_openings(c);
  ASSERT_EQ(openings.size(), 2u);
  for (const auto& o : openings) EXPECT_EQ(o.move_number(), 20);
  const auto r = run(dir_ / "run", config);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.standings.agents[0].name, "eps-swh");
  EXPECT_EQ(r.games_total, 4u);
  // The resume finds the agent file and the data through source.toml, from any directory.
  EXPECT_TRUE(run(dir_ / "run", "").complete);
}

TEST_F(TournamentTest, CommandLine) {
  const std::string config = write_config("openings = 2\n", {"file = \"swh\"", "file = \"random\""});
  const std::string bin = EF_EVALFORGE_BIN;
  const auto [rc, out] = test::run_command(bin + " tournament --threads 2 --config " + config + " --out " +
                                           (dir_ / "run").string() + " 2>&1");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("Likelihood of superiority"), std::string::npos) << out;
  EXPECT_NE(out.find("standings.json"), std::string::npos) << out;
  const auto [rc2, out2] = test::run_command(bin + " tournament --resume " + (dir_ / "run").string() + " 2>&1");
  EXPECT_EQ(rc2, 0) << out2;
  EXPECT_NE(out2.find(test::contents(dir_ / "run" / "standings.txt")), std::string::npos) << out2;
  const auto [rc3, out3] = test::run_command(bin + " tournament --config " + (dir_ / "nope.toml").string() + " --out " +
                                             (dir_ / "x").string() + " 2>&1");
  EXPECT_EQ(rc3, 2) << out3;
  EXPECT_NE(out3.find("nope.toml"), std::string::npos) << out3;
}

// Ctrl-C: the chunk in flight is finished and kept, then the command stops with status 130.
TEST_F(TournamentTest, InterruptFinishesTheChunkAndExits130) {
  const std::string config = write_config(
      "openings = 300\n", {"file = \"swh\"\nname = \"d5\"\ndepth = 5", "file = \"swh\"\nname = \"d4\"\ndepth = 4"});
  const fs::path run_dir = dir_ / "run", csv = run_dir / "games.csv";
  // Start it in the background, wait for the first chunk's rows, send SIGINT, report the status.
  const std::string script = fmt::format(
      "'{}' tournament --threads 2 --chunk 4 --config '{}' --out '{}' > '{}' 2>&1 & pid=$!; "
      "for i in $(seq 400); do [ \"$(wc -l < '{}' 2>/dev/null || echo 0)\" -ge 2 ] && break; sleep 0.025; done; "
      "kill -INT $pid; wait $pid; echo $?",
      EF_EVALFORGE_BIN, config, run_dir.string(), (dir_ / "out.txt").string(), csv.string());
  std::ofstream(dir_ / "interrupt.sh") << script << "\n";
  const auto [rc, out] = test::run_command("bash '" + (dir_ / "interrupt.sh").string() + "'");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "130\n") << test::contents(dir_ / "out.txt");
  const auto rows = read_rows(csv);
  EXPECT_GT(rows.size(), 0u);
  EXPECT_LT(rows.size(), 600u);
  EXPECT_EQ(rows.size() % 4, 0u) << "whole chunks only";
  EXPECT_NE(test::contents(dir_ / "out.txt").find("stopped after"), std::string::npos)
      << test::contents(dir_ / "out.txt");
  EXPECT_FALSE(fs::exists(run_dir / "standings.txt"));
}

}  // namespace
