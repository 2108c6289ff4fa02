#include "games/hex/external_match.hpp"
#include <fmt/format.h>
#include <optional>
#include <ostream>
#include "evalforge/core/error.hpp"
#include "evalforge/engine/playout.hpp"
#include "games/hex/gtp_engine.hpp"
#include "gtp/external_engine.hpp"

namespace ef::play {

namespace {

const char* gtp_colour(int colour) { return colour == hex::kBlack ? "b" : "w"; }
const char* colour_name(int colour) { return colour == hex::kBlack ? "black" : "white"; }

}  // namespace

void play_hex_external_match(const HexPlayer& player, const HexExternalOptions& options,
                             std::vector<HexExternalGame>& results, std::ostream* log) {
  ExternalEngineOptions eo{options.command,        options.games,
                           options.move_timeout_s, options.startup_timeout_s,
                           options.max_restarts,   {"protocol_version", fmt::format("boardsize {}", options.size)}};
  if (options.swap) eo.setup.push_back("param_game allow_swap 1");
  for (const std::string& command : options.setup) {
    if (command.empty() || command.find_first_of("\r\n") != std::string::npos)
      fail("hex external match: setup command '{}' must be one non-empty line", command);
    eo.setup.push_back(command);
  }
  validate_external_engine_options(eo);
  if (options.size < 1 || options.size > hex::kMaxSide)
    fail("hex external match: board size {} is outside 1..{}", options.size, hex::kMaxSide);
  if (player.kind == HexPlayer::Kind::kAgent) player.agent.validate();

  HexTable table;
  ExternalEngine engine(std::move(eo));
  engine.start();
  const std::size_t first = results.size();
  for (int g = 0; g < options.games; ++g) {
    engine.ready_for_game(results.size() > first ? results.back().error : "", log);
    HexExternalGame game;
    game.agent_black = g % 2 == 0;
    const int agent_colour = game.agent_black ? hex::kBlack : hex::kWhite;
    Rng rng = game_rng(options.seed, static_cast<u32>(g));
    u64 nodes = 0;
    hex::Board s = hex::empty_board(options.size, options.swap);
    std::optional<std::string> error;
    const auto apply = [&](int move) {
      s = s.play(move);
      game.moves.push_back(move);
    };

    engine.send("clear_board", 1, error);
    while (!error && !s.terminal()) {
      const int ply = static_cast<int>(game.moves.size()) + 1;
      const int colour = s.side;
      if (colour == agent_colour) {
        const int move = table.choose(player, s, rng, nodes);
        engine.send(fmt::format("play {} {}", gtp_colour(colour), hex_gtp_cell(move)), ply, error);
        apply(move);
        continue;
      }
      const GtpResponse r = engine.send(fmt::format("genmove {}", gtp_colour(colour)), ply, error);
      if (error) break;
      const std::string answer = engine_move_word(r.text);
      const int move = parse_hex_gtp_cell(answer, options.size);
      std::string why;
      if (answer == "resign")
        error = fmt::format("engine resigned at ply {}", ply);
      else if (move < 0)
        why = fmt::format("not a cell of the {0}x{0} board", options.size);
      else if (move == hex::kSwapSquare && !s.swap_available())
        why = options.swap ? "the swap is only White's answer to Black's first move" : "the swap rule is off";
      else if (!s.legal(move))
        why = "occupied";
      if (!why.empty())
        error = fmt::format("engine played illegal move {} at ply {} ({})",
                            answer.empty() ? "''" : gtp_quote(answer, 16), ply, why);
      if (error) break;
      apply(move);
    }

    if (error) {
      game.error = *error;
      game.winner = agent_colour;
      engine.forfeit();
    } else {
      game.completed = true;
      game.winner = s.winner;
    }
    if (log) {
      const std::string result =
          game.completed ? fmt::format("{} won ({})", colour_name(game.winner), game.agent_won() ? "win" : "loss")
                         : fmt::format("forfeit by the engine, scored as a win: {}", game.error);
      *log << fmt::format("game {}/{}: {} plays {}, {} plies: {}\n", g + 1, options.games, player.spec,
                          colour_name(agent_colour), game.moves.size(), result);
      log->flush();
    }
    results.push_back(std::move(game));
  }
  engine.stop();
}

}  // namespace ef::play
