// Trains one n-tuple shape from zero on the positions at one move of a game file and prints its
// held-out test loss beside the Edax shape's, and beside the loss of predicting the mean: the
// score procedure of `evalforge score`, called through the installed library.
//
//   train_shape GAMES [MOVE]      (GAMES: any game file evalforge reads; `evalforge data
//                                  generate --games 3000 --out games.txt` writes one)
#include <cstdio>
#include <exception>
#include <string>
#include "evalforge/backends/backend.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/install_paths.hpp"
#include "evalforge/data/games.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/runs/score_table.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s GAMES [MOVE]\n", argv[0]);
    return 2;
  }
  try {
    ef::set_networks_dir(EVALFORGE_NETWORKS_DIR);  // the installed networks, from find_package(evalforge)
    std::printf("networks: %s\n", ef::networks_dir().c_str());
    const ef::data::GameDatabase db = ef::data::load_games({argv[1]});
    ef::ScoreOptions options;
    options.moves = {argc == 3 ? std::stoi(argv[2]) : 30};
    // Four rows and the corners' 2x5 blocks: a shape of our own, next to the Edax shape.
    const ef::ntuple::Shape mine =
        ef::ntuple::make_shape("example",
                               {{"a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"},
                                {"a2", "b2", "c2", "d2", "e2", "f2", "g2", "h2"},
                                {"a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3"},
                                {"a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4"},
                                {"a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2"}},
                               "train_shape.cpp");
    const auto backend = ef::make_backend("cpu", 2);
    const auto rows = ef::score_table(db.games, {ef::ntuple::edax_shape(), mine}, options, *backend);
    for (const auto& row : rows) {
      std::printf("move %d: %zu fitness and %zu test positions\n", row.move, row.fitness_positions, row.test_positions);
      std::printf("  test MSE  edax %.3f  example %.3f  mean predictor %.3f\n", row.cells[0].mse, row.cells[1].mse,
                  row.constant_mse);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_shape: %s\n", e.what());
    return 1;
  }
  return 0;
}
