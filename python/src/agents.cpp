// Othello agents (agent files), a batch of games between two agents on a backend, and the exact
// endgame solver: thin bindings over games/othello/ and the backends.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include "backends/cpu/network_eval.hpp"
#include "common.hpp"
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/install_paths.hpp"
#include "evalforge/core/memory_check.hpp"
#include "evalforge/core/rng.hpp"
#include "evalforge/engine/round_robin.hpp"
#include "evalforge/games/othello/agent_file.hpp"
#include "evalforge/games/othello/endgame.hpp"
#include "evalforge/games/othello/game.hpp"
#include "evalforge/games/tictactoe/agent_file.hpp"
#include "evalforge/games/tictactoe/players.hpp"

namespace ef::py {

namespace {

const char* kind_name(play::OthelloEvaluator kind) {
  for (const auto& k : play::kOthelloEvaluators)
    if (k.kind == kind) return k.name;
  return "?";
}

// The solver's move ordering from an n-tuple agent, kept beside the agent it points into.
struct Ordering {
  play::OthelloAgent agent;
  std::optional<cpu::SolverOrdering> order;
};

// As the CLI's commands do: a batch of games that cannot fit is refused before it is built, as
// an error naming the argument (`what`) that sets its size.
template <class G>
void check_play_memory(std::string_view who, const char* what, double games) {
  (void)memory_limit_bytes();  // a bad EF_MEMORY_LIMIT_MB is named as such, not as `what`
  try {
    (void)check_memory(who, {play::play_batch_memory<G>(games), items_memory("result arrays", games, 3 * 4)},
                       fmt::format("a smaller {}", what));
  } catch (const Error& e) {
    fail_input(what, "{}", e.what());
  }
}

std::shared_ptr<Ordering> load_ordering(const std::string& spec) {
  auto o = std::make_shared<Ordering>();
  if (spec == "none") return o;
  // "builtin": the network the CLI's solver uses by default (networks/ordering/ of the source tree).
  const std::string file = spec == "builtin" ? (ef::networks_dir() / "ordering" / "edax.toml").string() : spec;
  o->agent = play::load_agent(file);
  if (o->agent.kind != play::OthelloEvaluator::kNtuple)
    fail_input("ordering", "{}: the agent's evaluator is not an n-tuple network", file);
  o->order.emplace(o->agent.ntuple_evaluator());
  return o;
}

// "static:DEPTH" (the seed paper's static evaluator at that minimax depth), or what
// load_tictactoe_agent takes: "random", "perfect", "static" (4 plies) or an agent file (a network
// saved by `evalforge tictactoe --save-agents`, docs/tictactoe.md "Playing a network").
play::TicTacToeAgent tictactoe_player(const std::string& spec, const char* what) {
  play::TicTacToeAgent a;
  if (spec.rfind("static:", 0) == 0) {
    int depth = 0;
    const std::string n = spec.substr(7);
    const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), depth);
    if (n.empty() || ec != std::errc{} || p != n.data() + n.size())
      fail_input(what, "'{}': the depth is not a whole number", spec);
    a = play::tictactoe_agent(play::TicTacToeEvaluator::kStatic, depth);
  } else if (spec == "random" || spec == "perfect" || spec == "static" || std::filesystem::exists(spec)) {
    a = play::load_tictactoe_agent(spec);
  } else {
    fail_input(what,
               "'{}' is not a Tic-Tac-Toe player (expected random, perfect, static, static:DEPTH or an agent file)",
               spec);
  }
  a.validate();
  return a;
}

}  // namespace

void bind_agents(py::module_& m) {
  py::class_<Agent>(m, "Agent",
                    "An Othello agent: an evaluator (n-tuple network, SWH, features or random) and its search "
                    "limits, as agent files hold them (load_agent, Agent.save).")
      .def_property_readonly("name", [](const Agent& a) { return a.agent->name; })
      .def_property_readonly(
          "kind", [](const Agent& a) { return kind_name(a.agent->kind); },
          "The evaluator: 'ntuple', 'swh', 'features' or 'random'")
      .def_property_readonly("depth", [](const Agent& a) { return a.agent->limits.depth; })
      .def_property_readonly("exact_empties", [](const Agent& a) { return a.agent->limits.exact_empties; })
      .def_property_readonly("epsilon", [](const Agent& a) { return a.agent->epsilon; })
      .def_property_readonly(
          "networks",
          [](const Agent& a) {
            py::list out;
            for (const auto& n : a.agent->networks) out.append(to_numpy(std::vector<i32>(n.weights)));
            return out;
          },
          "An n-tuple agent's networks: int32 weights (fixed point, 2^-16 discs) each")
      .def_property_readonly(
          "network_of_move",
          [](const Agent& a) {
            return to_numpy(std::vector<int>(a.agent->network_of_move.begin(), a.agent->network_of_move.end()));
          },
          "For each move number 0..60, the index of the network it uses")
      .def(
          "save", [](const Agent& a, const std::filesystem::path& file) { return play::save_agent(*a.agent, file); },
          py::arg("file"),
          "Writes the agent file (TOML) and, for an n-tuple agent, its .efnet beside it; returns the network "
          "file's path (empty for other kinds)")
      .def("__repr__", [](const Agent& a) {
        return fmt::format("<Agent {} ({}, depth {}, exact {})>", a.agent->name, kind_name(a.agent->kind),
                           a.agent->limits.depth, a.agent->limits.exact_empties);
      });

  m.def(
      "load_agent",
      [](const py::object& spec) {
        const std::string s = py::str(py::module_::import("os").attr("fspath")(spec)).cast<std::string>();
        // Off the Python thread: an agent's network file can be gigabytes, and Ctrl-C must answer.
        return Agent{
            run_interruptible([s] { return std::make_shared<const play::OthelloAgent>(play::load_agent(s)); })};
      },
      py::arg("spec"), "'random', 'swh', or an agent file (as `evalforge match`/`league` read them)");

  m.def(
      "play",
      [](const Agent& a, const Agent& b, int openings, int opening_plies, u64 seed, const std::string& backend,
         int threads) {
        if (openings < 1) fail_input("openings", "{} (expected at least 1)", openings);
        if (opening_plies < 0 || opening_plies > 40)
          fail_input("opening_plies", "{} is outside [0, 40]", opening_plies);
        check_play_memory<games::Othello>("play", "openings", 2.0 * openings);
        const auto records =
            run_interruptible([agent_a = a.agent, agent_b = b.agent, openings, opening_plies, seed, backend, threads] {
              auto be = make_backend(backend, threads);
              const int ha = be->add_agent(*agent_a), hb = be->add_agent(*agent_b);
              const std::vector<play::Pairing> pairs{{ha, hb}};
              // Opening o: opening_plies uniformly random moves keyed (seed, kOpening, o).
              const auto jobs = play::paired_games<games::Othello>(
                  pairs, openings,
                  [&](std::size_t, int o) {
                    Rng rng(seed, Purpose::kOpening, static_cast<u32>(o));
                    return othello::random_opening(rng, opening_plies);
                  },
                  seed);
              std::vector<play::GameRecordOf<games::Othello>> played(jobs.size());
              be->play(jobs, played);
              return played;
            });
        std::vector<int> score, result, plies;
        for (std::size_t k = 0; k < records.size(); ++k) {
          score.push_back(k % 2 == 0 ? records[k].black_score : -records[k].black_score);
          result.push_back(play::pair_first_result<games::Othello>(records[k], k));
          plies.push_back(records[k].plies);
        }
        py::dict out;
        out["score"] = to_numpy(std::move(score));
        out["result"] = to_numpy(std::move(result));
        out["plies"] = to_numpy(std::move(plies));
        return out;
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("openings") = 10, py::arg("opening_plies") = 8,
      py::arg("seed") = 1, py::arg("backend") = "cpu", py::arg("threads") = 0,
      R"doc(Plays a batch of Othello games between agents a and b on a backend: every opening
(opening_plies random moves, keyed by seed) twice, colours swapped; game 2k has a move first.
Returns {'score': a's final disc difference, 'result': +1 won / 0 drawn / -1 lost for a,
'plies': moves played}, int arrays with one entry per game.)doc");

  m.def(
      "solve",
      [](u64 black, u64 white, int side, const std::string& ordering, int table_bits) {
        if (side != 0 && side != 1) fail_input("side", "{} (expected 0 = black to move or 1 = white)", side);
        if (black & white) fail_input("board", "a square holds both a black and a white disc");
        if (table_bits < 0 || table_bits > 28) fail_input("table_bits", "{} is outside [0, 28]", table_bits);
        // As `evalforge solve` does: a table that cannot fit is refused before it is allocated.
        (void)memory_limit_bytes();  // a bad EF_MEMORY_LIMIT_MB is named as such, not as table_bits
        try {
          (void)check_memory(
              "solve",
              {{fmt::format("endgame table (2^{} entries x {} B)", table_bits, sizeof(search::endgame::HashEntry)),
                table_bits ? std::ldexp(1.0, table_bits) * sizeof(search::endgame::HashEntry) : 0.0}},
              "a smaller table_bits");
        } catch (const Error& e) {
          fail_input("table_bits", "{}", e.what());
        }
        const auto o = run_interruptible([ordering] { return load_ordering(ordering); });
        const search::SolveResult r = run_interruptible([o, black, white, side, table_bits] {
          const othello::Board board = othello::Board::from_colors(black, white, side);
          std::vector<search::endgame::HashEntry> entries(table_bits ? std::size_t{1} << table_bits : 0);
          search::endgame::HashTable table{entries.data(), entries.empty() ? 0 : entries.size() - 1, 0};
          return search::solve_endgame(board.player, board.opponent, -64, 64, entries.empty() ? nullptr : &table,
                                       o->order ? &*o->order : nullptr);
        });
        py::dict out;
        out["score"] = r.score;
        out["best_move"] = r.best_move;
        out["nodes"] = r.nodes;
        return out;
      },
      py::arg("black"), py::arg("white"), py::arg("side") = 0, py::kw_only(), py::arg("ordering") = "builtin",
      py::arg("table_bits") = 20,
      R"doc(Solves an Othello position exactly (as `evalforge solve`): black and white are bitboards
(bit i = square i, a1 = 0), side 0 = black to move. Returns {'score': the exact final disc
difference for the side to move, 'best_move': its square (-1 and below: pass or game over), 'nodes'}.
ordering: 'builtin' (the solver's default network), 'none', or an n-tuple agent file.)doc");

  m.def(
      "play_tictactoe",
      [](const std::string& a, const std::string& b, int games, u64 seed, const std::string& backend, int threads) {
        if (games < 1) fail_input("games", "{} (expected at least 1)", games);
        check_play_memory<games::TicTacToe>("play_tictactoe", "games", 2.0 * games);
        const play::TicTacToeAgent pa = tictactoe_player(a, "a"), pb = tictactoe_player(b, "b");
        const auto records = run_interruptible([pa, pb, games, seed, backend, threads] {
          auto be = make_backend(backend, threads);
          const std::vector<play::Pairing> pairs{{be->add_agent(pa), be->add_agent(pb)}};
          // Every game from the empty board; the stream key (seed, game) varies the random moves.
          const auto jobs = play::paired_games<games::TicTacToe>(
              pairs, games, [](std::size_t, int) { return games::TicTacToe::State{}; }, seed);
          std::vector<play::GameRecordOf<games::TicTacToe>> played(jobs.size());
          be->play(jobs, played);
          return played;
        });
        std::vector<int> result, plies;
        for (std::size_t k = 0; k < records.size(); ++k) {
          result.push_back(play::pair_first_result<games::TicTacToe>(records[k], k));
          plies.push_back(records[k].plies);
        }
        py::dict out;
        out["result"] = to_numpy(std::move(result));
        out["plies"] = to_numpy(std::move(plies));
        return out;
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("games") = 10, py::arg("seed") = 1, py::arg("backend") = "cpu",
      py::arg("threads") = 0,
      R"doc(Plays Tic-Tac-Toe between two players on a backend (the playout engine of every registered
game): 'random', 'perfect', 'static' (4 plies), 'static:DEPTH' (the seed paper's static evaluator,
minimax to DEPTH plies) or a Tic-Tac-Toe agent file (an evolved network saved by
`evalforge tictactoe --save-agents`). `games` pairs of games from the empty board, colours swapped; game 2k has a move
first. Returns {'result': +1 won / 0 drawn / -1 lost for a, 'plies'}, int arrays.)doc");
}

}  // namespace ef::py
