#include "evalforge/games/tictactoe/agent_file.hpp"
#include <fmt/format.h>
#include <cmath>
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/tictactoe/fitness_matches.hpp"

namespace ef::play {

namespace fs = std::filesystem;

namespace {

struct EvaluatorName {
  TicTacToeEvaluator kind;
  const char* name;
};
constexpr EvaluatorName kEvaluators[] = {{TicTacToeEvaluator::kNetwork, "network"},
                                         {TicTacToeEvaluator::kStatic, "static"},
                                         {TicTacToeEvaluator::kRandom, "random"},
                                         {TicTacToeEvaluator::kPerfect, "perfect"}};

const char* evaluator_name(TicTacToeEvaluator kind) {
  for (const auto& e : kEvaluators)
    if (e.kind == kind) return e.name;
  fail("tictactoe agent: evaluator kind {} has no name", static_cast<u32>(kind));
}

// Whether the evaluator searches to a depth the file chooses: random plays no search, perfect
// always searches to the end.
bool takes_depth(TicTacToeEvaluator kind) {
  return kind == TicTacToeEvaluator::kNetwork || kind == TicTacToeEvaluator::kStatic;
}

}  // namespace

std::string ttt_bits_to_hex(const ga::BitString& bits) {
  std::string out;
  for (std::size_t i = 0; i < bits.size(); i += 4) {
    int v = 0;
    for (std::size_t k = 0; k < 4; ++k) v = 2 * v + (i + k < bits.size() ? bits[i + k] : 0);
    out += "0123456789abcdef"[v];
  }
  return out;
}

ga::BitString ttt_bits_from_hex(const std::string& hex, int bits, const std::string& where) {
  const std::size_t digits = (static_cast<std::size_t>(bits) + 3) / 4;
  // Counted before the digits are read, so that a huge value is refused without being expanded.
  if (hex.size() != digits)
    fail("{}: {} hex digits for a network of {} bits (expected {})", where, hex.size(), bits, digits);
  ga::BitString b;
  for (char h : hex) {
    int v;
    if (h >= '0' && h <= '9')
      v = h - '0';
    else if (h >= 'a' && h <= 'f')
      v = h - 'a' + 10;
    else
      fail("{}: '{}' is not a hex digit (0-9, a-f)", where, h);
    for (int k = 3; k >= 0; --k) b.push_back(static_cast<unsigned char>(v >> k & 1));
  }
  for (std::size_t i = static_cast<std::size_t>(bits); i < b.size(); ++i)
    if (b[i]) fail("{}: the last hex digit sets bits beyond the network's {}", where, bits);
  b.resize(static_cast<std::size_t>(bits));
  return b;
}

ga::BitString ttt_network_bits(const tictactoe::Network& n) {
  using namespace tictactoe;
  ga::BitString bits;
  auto put = [&](signed char value) {
    const int g = value + 16;  // decode_network's gene -> value is g - 16
    if (g < 0 || g >= 1 << kGeneBits) fail("network value {} (half units) is outside -16..15: no gene gives it", value);
    for (int k = kGeneBits - 1; k >= 0; --k) bits.push_back(static_cast<unsigned char>(g >> k & 1));
  };
  // The gene order of decode_network.
  if (n.topology == Topology::kFull)
    for (int i = 0; i < kHidden1; ++i)
      for (int j = 0; j < 9; ++j) put(n.w1[i][j]);
  for (int i = 0; i < kHidden1; ++i) put(n.t1[i]);
  for (int k = 0; k < kHidden2; ++k)
    for (int i = 0; i < kHidden1; ++i) put(n.w2[k][i]);
  for (int k = 0; k < kHidden2; ++k) put(n.t2[k]);
  for (int k = 0; k < kHidden2; ++k) put(n.w3[k]);
  if (n.topology == Topology::kFull) put(n.t3);
  return bits;
}

TicTacToeAgent load_tictactoe_agent(const std::string& spec) {
  if (spec == "perfect") return tictactoe_agent(TicTacToeEvaluator::kPerfect, kTicTacToeMaxDepth);
  if (spec == "random") return tictactoe_agent(TicTacToeEvaluator::kRandom, 1);
  if (spec == "static") return static_agent(4);
  if (!fs::is_regular_file(spec))
    fail(
        "{}: no such agent file (a Tic-Tac-Toe agent is a .toml file, or one of the built-ins: perfect, random, "
        "static)",
        spec);
  const toml::table root = parse_toml_file(spec);
  TableReader r(root, spec, "");
  r.allow({"name", "evaluator", "depth", "epsilon", "topology", "bits"});
  TicTacToeAgent a;
  a.name = fs::path(spec).stem().string();
  r.text("name", a.name);
  if (!r.has("evaluator")) fail("{}: missing (expected network, static, random or perfect)", r.where("evaluator"));
  std::string kind;
  r.text("evaluator", kind);
  const EvaluatorName* known = nullptr;
  for (const auto& e : kEvaluators)
    if (kind == e.name) known = &e;
  if (!known) fail("{}: '{}' (expected network, static, random or perfect)", r.where("evaluator"), kind);
  a.params.kind = known->kind;
  if (takes_depth(a.params.kind)) {
    // Required: a network plays as well as the depth it was evolved at, so no default guesses it.
    if (!r.has("depth")) fail("{}: missing (minimax plies, 1..{})", r.where("depth"), kTicTacToeMaxDepth);
    r.integer("depth", a.params.depth, 1, kTicTacToeMaxDepth);
  } else if (r.has("depth")) {
    fail("{}: not for evaluator = \"{}\" ({})", r.where("depth"), kind,
         a.params.kind == TicTacToeEvaluator::kPerfect ? "it searches to the end of every line" : "it does not search");
  }
  // The depth the built-ins and tictactoe_agent() give these kinds (unused by their moves).
  if (a.params.kind == TicTacToeEvaluator::kPerfect) a.params.depth = kTicTacToeMaxDepth;
  if (a.params.kind == TicTacToeEvaluator::kRandom) a.params.depth = 1;
  double epsilon = 0;
  r.real("epsilon", epsilon, 0.0, 1.0);
  a.params.epsilon_ppm = static_cast<u32>(std::llround(epsilon * 1e6));
  if (a.params.kind == TicTacToeEvaluator::kNetwork) {
    std::string topology = "full", hex;
    r.text("topology", topology);
    tictactoe::Topology t;
    if (topology == "full")
      t = tictactoe::Topology::kFull;
    else if (topology == "paper")
      t = tictactoe::Topology::kPaper;
    else
      fail("{}: '{}' (expected full or paper)", r.where("topology"), topology);
    if (!r.has("bits")) fail("{}: missing (a network agent needs its bit string in hex)", r.where("bits"));
    r.text("bits", hex);
    a.params.network =
        tictactoe::decode_network(ttt_bits_from_hex(hex, tictactoe::network_bits(t), r.where("bits")).data(), t);
  } else {
    for (const char* key : {"topology", "bits"})
      if (r.has(key)) fail("{}: only for evaluator = \"network\"", r.where(key));
  }
  try {
    a.validate();
  } catch (const Error& e) {
    fail("{}: {}", spec, e.what());
  }
  return a;
}

void save_tictactoe_agent(const TicTacToeAgent& agent, const fs::path& file) {
  agent.validate();
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec) fail("{}: cannot create the directory: {}", file.parent_path().string(), ec.message());
  }
  const TicTacToeParams& p = agent.params;
  if (p.random_ties)
    fail("{}: agent '{}' draws among equal moves; an agent file holds a player that breaks ties by the lowest square",
         file.string(), agent.name);
  std::string t = "# evalforge Tic-Tac-Toe agent (docs/tictactoe.md, \"Playing a network\")\n";
  t += fmt::format("name = {}\nevaluator = \"{}\"\n", toml_quote(agent.name), evaluator_name(p.kind));
  if (takes_depth(p.kind)) t += fmt::format("depth = {}\n", p.depth);
  // Six decimals hold every ppm exactly (and always read as a TOML float, "0.000000" too).
  t += fmt::format("epsilon = {:.6f}\n", p.epsilon_ppm / 1e6);
  if (p.kind == TicTacToeEvaluator::kNetwork)
    t += fmt::format("topology = \"{}\"\nbits = \"{}\"\n", tictactoe::topology_name(p.network.topology),
                     ttt_bits_to_hex(ttt_network_bits(p.network)));
  write_atomically(file, t);
}

}  // namespace ef::play
