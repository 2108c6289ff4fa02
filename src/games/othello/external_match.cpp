#include "games/othello/external_match.hpp"
#include <fmt/format.h>
#include <optional>
#include <ostream>
#include "evalforge/core/error.hpp"
#include "games/othello/gtp_engine.hpp"
#include "gtp/external_engine.hpp"

namespace ef::play {

namespace {

constexpr int kForfeitScore = 64;

const char* gtp_color(int color) { return color == othello::kBlack ? "b" : "w"; }
const char* color_name(int color) { return color == othello::kBlack ? "black" : "white"; }

ExternalEngineOptions engine_options(const ExternalMatchOptions& o) {
  return {o.command,           o.games,        o.move_timeout_s,
          o.startup_timeout_s, o.max_restarts, {"protocol_version", "boardsize 8"}};
}

void validate(const ExternalMatchOptions& o) {
  validate_external_engine_options(engine_options(o));
  for (std::size_t k = 0; k < o.openings.size(); ++k) {
    othello::Position s;
    for (std::size_t i = 0; i < o.openings[k].size(); ++i) {
      const int m = o.openings[k][i];
      const u64 legal = games::Othello::moves(s);
      const bool ok =
          m == search::kPassMove ? (legal == 0 && !s.board.game_over()) : (m >= 0 && m < 64 && (legal >> m & 1));
      if (!ok)
        fail("external match: opening {}: move {} ({}) is not legal for {}", k + 1, i + 1,
             m >= -1 && m < 64 ? gtp_vertex(m) : std::to_string(m), color_name(s.board.side));
      s = m == search::kPassMove ? games::Othello::pass(s) : games::Othello::play(s, m);
    }
  }
}

}  // namespace

std::vector<ExternalGame> play_external_match(const OthelloAgent& agent, const ExternalMatchOptions& options,
                                              std::ostream* log) {
  std::vector<ExternalGame> results;
  play_external_match(agent, options, results, log);
  return results;
}

void play_external_match(const OthelloAgent& agent, const ExternalMatchOptions& options,
                         std::vector<ExternalGame>& results, std::ostream* log) {
  results.clear();
  validate(options);
  agent.validate();
  const ntuple::Evaluator evaluator = agent.ntuple_evaluator();
  const OthelloParams params = agent.params(&evaluator);
  std::vector<search::endgame::HashEntry> entries(std::size_t{1} << 20);
  search::endgame::HashTable table{entries.data(), entries.size() - 1, 0};
  std::vector<search::TranspositionEntry<games::OthelloKey>> midgame_entries(std::size_t{1}
                                                                             << search::kMidgameTableBits);
  search::OthelloTable midgame{midgame_entries.data(), midgame_entries.size() - 1, 0};

  ExternalEngine engine(engine_options(options));
  engine.start();

  for (int g = 0; g < options.games; ++g) {
    engine.ready_for_game(results.empty() ? "" : results.back().error, log);
    ExternalGame game;
    game.agent_black = g % 2 == 0;
    const int agent_color = game.agent_black ? othello::kBlack : othello::kWhite;
    const std::vector<int>* opening =
        options.openings.empty() ? nullptr
                                 : &options.openings[static_cast<std::size_t>(g / 2) % options.openings.size()];
    Rng rng = game_rng(options.seed, static_cast<u32>(g));
    u64 nodes = 0;
    othello::Position s;
    std::optional<std::string> error;

    const auto send = [&](const std::string& command, int ply) { return engine.send(command, ply, error); };
    // Our side's pass, `play C pass`. Some engines refuse every pass with an error and pass on
    // their own (GRhino's gtp-rhino: its board skips a side without a move), and GTP's next
    // play or genmove names the colour anyway. So a refused pass is noted and the game goes on;
    // a timeout or a dead engine still forfeits, and every move the engine plays is still
    // checked against our board, so an engine that lost track would forfeit there.
    const auto send_move = [&](int move, int ply) {
      const std::string command = fmt::format("play {} {}", gtp_color(s.board.side), gtp_vertex(move));
      if (move != search::kPassMove) return void(send(command, ply));
      std::optional<std::string> refused;
      const GtpResponse r = engine.send(command, ply, refused);
      if (!refused) return;
      if (r.status != GtpResponse::Status::kFailure) {
        error = refused;
        return;
      }
      ++game.refused_passes;
      if (log)
        *log << fmt::format("game {}: the engine refused '{}' at ply {} ({}); going on without it\n", g + 1, command,
                            ply, r.text);
    };
    const auto apply = [&](int move) {
      s = move == search::kPassMove ? games::Othello::pass(s) : games::Othello::play(s, move);
      game.moves.push_back(move);
    };

    send("clear_board", 1);
    if (opening)
      for (const int move : *opening) {
        if (error) break;
        send_move(move, static_cast<int>(game.moves.size()) + 1);
        apply(move);
      }
    while (!error && !s.board.game_over()) {
      const int ply = static_cast<int>(game.moves.size()) + 1;
      const int color = s.board.side;
      const u64 legal = games::Othello::moves(s);
      if (color == agent_color) {
        const int move = legal ? choose_move(params, s, rng, nodes, &table, &midgame) : search::kPassMove;
        send_move(move, ply);
        apply(move);
        continue;
      }
      const GtpResponse r = send(fmt::format("genmove {}", gtp_color(color)), ply);
      if (error) break;
      const std::string answer = engine_move_word(r.text);
      const int move = parse_gtp_vertex(answer);
      std::string why;
      if (answer == "resign")
        error = fmt::format("engine resigned at ply {}", ply);
      else if (move == search::kNoMove)
        why = "not an a1..h8 vertex";
      else if (move == search::kPassMove && legal)
        why = fmt::format("a pass, but {} has a legal move", color_name(color));
      else if (move >= 0 && !(legal >> move & 1))
        why = fmt::format("not a legal move for {}", color_name(color));
      if (!why.empty())
        error = fmt::format("engine played illegal move {} at ply {} ({})", answer.empty() ? "''" : answer, ply, why);
      if (error) break;
      apply(move);
    }

    if (error) {
      game.error = *error;
      game.black_score = game.agent_black ? kForfeitScore : -kForfeitScore;
      engine.forfeit();
    } else {
      game.completed = true;
      game.black_score = s.board.disc_diff_empties_to_winner();
    }
    if (log) {
      const int a = game.agent_score();
      const std::string result = game.completed
                                     ? fmt::format("{:+d} for the agent ({})", a,
                                                   a > 0   ? "win"
                                                   : a < 0 ? "loss"
                                                           : "draw")
                                     : fmt::format("forfeit by the engine, scored as an agent win: {}", game.error);
      *log << fmt::format("game {}/{}: {} plays {}, {} plies: {}\n", g + 1, options.games, agent.name,
                          color_name(agent_color), game.moves.size(), result);
      log->flush();
    }
    results.push_back(std::move(game));
  }
  engine.stop();
}

}  // namespace ef::play
