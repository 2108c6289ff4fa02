#include "evalforge/games/othello/agent_file.hpp"
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>
#include <cstring>
#include "core/bytes.hpp"
#include "core/name_table.hpp"
#include "core/toml_reader.hpp"
#include "evalforge/core/error.hpp"
#include "evalforge/core/files.hpp"
#include "evalforge/games/othello/shape.hpp"
#include "evalforge/games/othello/squares.hpp"
#include "games/othello/feature_weights.hpp"
#include "games/othello/probcut.hpp"

namespace ef::play {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'E', 'F', 'N', 'E', 'T', '0', '0', '1'};

const char* kind_name(OthelloEvaluator k) {
  if (const auto* e = entry_of(kOthelloEvaluators, k)) return e->name;
  fail("agent: evaluator kind {} is not in kOthelloEvaluators (games/othello/players.hpp)", static_cast<u32>(k));
}

// The file unpacked. Its cap (FileKind::kNetwork, core/files.cpp: far above any real agent,
// 61 Edax-size networks being ~55 MB) bounds both the file and what it unpacks to, and the magic
// is checked as soon as the first bytes are unpacked: a file of another kind is refused without
// being unpacked whole.
std::string gunzip_file(const fs::path& file) {
  // A regular file only, refused before a byte is read: a FIFO would block, /dev/zero never ends.
  const int fd = open_regular_file(file, FileKind::kNetwork);
  const std::uint64_t max_bytes = file_kind_limit(FileKind::kNetwork).max_bytes;
  gzFile in = gzdopen(fd, "rb");  // gzclose closes fd
  if (!in) {
    ::close(fd);
    fail("{}: cannot read", file.string());
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(in, buf, sizeof buf);
    if (n < 0) {
      int errnum = 0;
      const std::string msg = gzerror(in, &errnum);
      gzclose(in);
      fail("{}: corrupt compressed data ({})", file.string(), msg);
    }
    if (n == 0) break;
    const bool had_magic = out.size() >= sizeof kMagic;
    out.append(buf, static_cast<std::size_t>(n));
    if (!had_magic && out.size() >= sizeof kMagic && std::memcmp(out.data(), kMagic, sizeof kMagic) != 0) {
      gzclose(in);
      fail("{}: not an evalforge network file (expected EFNET001 after decompression)", file.string());
    }
    if (out.size() > max_bytes) {
      gzclose(in);
      fail("{}: decompresses to more than {} bytes; not an evalforge network file", file.string(), max_bytes);
    }
  }
  gzclose(in);
  return out;
}

ntuple::Geometry geometry_from_masks(const std::vector<u64>& masks, const std::string& where) {
  std::vector<std::vector<std::string>> tuples;
  for (u64 m : masks) {
    std::vector<std::string> t;
    for (u64 r = m; r; r &= r - 1) t.push_back(square_name(ctz64(r)));
    tuples.push_back(std::move(t));
  }
  return ntuple::make_shape("network", tuples, where).geometry();
}

}  // namespace

void save_networks(const OthelloAgent& agent, const fs::path& file) {
  agent.validate();
  // The .efnet layout (agent_file.hpp) is what files users have hold: ByteWriter writes it
  // little-endian, byte for byte what the memcpy-based writer before it wrote on x86/ARM.
  ByteWriter w;
  w.put_bytes(std::string_view(kMagic, sizeof kMagic));
  w.put<u32>(static_cast<u32>(agent.geometries.size()));
  for (std::size_t g = 0; g < agent.geometries.size(); ++g) {
    w.put_string(g < agent.geometry_names.size() ? agent.geometry_names[g] : "");
    const ntuple::Geometry& geo = agent.geometries[g];
    w.put<u32>(static_cast<u32>(geo.num_tuples));
    for (int i = 0; i < geo.num_tuples; ++i) w.put<u64>(geo.mask[i]);
  }
  w.put<u32>(static_cast<u32>(agent.networks.size()));
  for (const Network& n : agent.networks) {
    w.put<u32>(static_cast<u32>(n.geometry));
    w.put<u32>(static_cast<u32>(n.weights.size()));
    w.put_array<i32>(n.weights);
  }
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) w.put<u32>(static_cast<u32>(agent.network_of_move[t]));
  w.put<u32>(crc32_of(w.bytes()));
  std::string b = w.take();
  // Compress in memory, then write atomically.
  uLongf packed_size = compressBound(static_cast<uLong>(b.size())) + 64;
  std::string packed;
  {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      fail("{}: zlib initialisation failed", file.string());
    packed.resize(packed_size);
    z.next_in = reinterpret_cast<Bytef*>(b.data());
    z.avail_in = static_cast<uInt>(b.size());
    z.next_out = reinterpret_cast<Bytef*>(packed.data());
    z.avail_out = static_cast<uInt>(packed.size());
    const int rc = deflate(&z, Z_FINISH);
    packed.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) fail("{}: compression failed", file.string());
  }
  write_atomically(file, packed);
}

void load_networks(OthelloAgent& agent, const fs::path& file) {
  const std::string b = gunzip_file(file);
  if (b.size() < sizeof kMagic + 4 || std::memcmp(b.data(), kMagic, sizeof kMagic) != 0)
    fail("{}: not an evalforge network file (expected EFNET001 after decompression)", file.string());
  ByteReader c(b, file.string());
  c.bytes(sizeof kMagic, "magic");
  const u32 want_crc = ByteReader(std::string_view(b).substr(b.size() - 4), file.string()).get<u32>("checksum");
  if (want_crc != crc32_of(std::string_view(b).substr(0, b.size() - 4)))
    fail("{}: checksum mismatch (the file is corrupt)", file.string());
  const u32 geometries = c.get<u32>("geometry count");
  if (geometries == 0 || geometries > 1024) c.bad(fmt::format("{} geometries (expected 1..1024)", geometries));
  agent.geometries.clear();
  agent.geometry_names.clear();
  for (u32 g = 0; g < geometries; ++g) {
    const u32 len = c.get<u32>("name length");
    if (len > 4096) c.bad("geometry name too long");
    agent.geometry_names.emplace_back(c.bytes(len, "geometry name"));
    const u32 tuples = c.get<u32>("tuple count");
    if (tuples == 0 || tuples > static_cast<u32>(ntuple::kMaxTuples))
      c.bad(fmt::format("geometry {} has {} tuples (expected 1..{})", g, tuples, ntuple::kMaxTuples));
    std::vector<u64> masks;
    for (u32 i = 0; i < tuples; ++i) masks.push_back(c.get<u64>("tuple mask"));
    agent.geometries.push_back(geometry_from_masks(masks, fmt::format("{}: geometry {}", file.string(), g)));
  }
  const u32 networks = c.get<u32>("network count");
  if (networks == 0 || networks > 1024) c.bad(fmt::format("{} networks (expected 1..1024)", networks));
  agent.networks.clear();
  for (u32 n = 0; n < networks; ++n) {
    Network net;
    const u32 g = c.get<u32>("network geometry");
    if (g >= geometries) c.bad(fmt::format("network {} names geometry {} of {}", n, g, geometries));
    net.geometry = static_cast<int>(g);
    const u32 count = c.get<u32>("weight count");
    if (count != agent.geometries[g].num_weights())
      c.bad(fmt::format("network {} has {} weights, its geometry {}", n, count, agent.geometries[g].num_weights()));
    net.weights = c.get_array<i32>(count, "weights");
    agent.networks.push_back(std::move(net));
  }
  for (int t = 0; t < ntuple::kMoveNumbers; ++t) {
    const u32 n = c.get<u32>("network of move");
    if (n >= networks) c.bad(fmt::format("move {} names network {} of {}", t, n, networks));
    agent.network_of_move[t] = static_cast<int>(n);
  }
  if (c.remaining() != 4) c.bad("trailing bytes before the checksum");
}

OthelloAgent load_agent(const std::string& spec) {
  if (spec == "random") return random_agent();
  if (spec == "swh") return swh_agent();
  if (!fs::is_regular_file(spec))
    fail("{}: no such agent file (an agent is a .toml file, or one of the built-ins: swh, random)", spec);
  const toml::table root = parse_toml_file(spec);
  TableReader r(root, spec, "");
  r.allow({"name", "evaluator", "depth", "exact_empties", "search", "probcut", "epsilon", "network", "chromosome",
           "material"});
  OthelloAgent a;
  a.name = fs::path(spec).stem().string();
  r.text("name", a.name);
  std::string kind = "ntuple";
  r.text("evaluator", kind);
  const auto* known = entry_named(kOthelloEvaluators, kind);
  if (!known) fail("{}: evaluator '{}' (expected {})", r.where("evaluator"), kind, names_of(kOthelloEvaluators));
  a.kind = known->kind;
  r.integer("depth", a.limits.depth, 1, kMaxDepth);
  r.integer("exact_empties", a.limits.exact_empties, -1, kMaxExactEmpties);
  std::string algorithm = "pvs";
  r.text("search", algorithm);
  if (algorithm == "pvs")
    a.limits.algorithm = search::MidgameSearch::kPvs;
  else if (algorithm == "alphabeta")
    a.limits.algorithm = search::MidgameSearch::kAlphaBeta;
  else
    fail("{}: search '{}' (expected pvs or alphabeta)", r.where("search"), algorithm);
  r.real("epsilon", a.epsilon, 0.0, 1.0);
  if (r.has("probcut")) {
    std::string file;
    r.text("probcut", file);
    fs::path p = file;
    if (p.is_relative()) p = fs::path(spec).parent_path() / p;
    try {
      a.probcut = load_probcut(p);
    } catch (const Error& e) {
      fail("{}: {}", r.where("probcut"), e.what());
    }
    a.probcut_file = p.string();
  }
  if (a.kind == OthelloEvaluator::kFeatures) {
    std::string chromosome, material = "flips";
    r.text("chromosome", chromosome);
    r.text("material", material);
    if (chromosome.empty()) fail("{}: a features agent needs a chromosome", r.where("chromosome"));
    if (material != "flips" && material != "discs")
      fail("{}: '{}' (expected flips or discs)", r.where("material"), material);
    a.features = features::parse_chromosome(
        chromosome, material == "flips" ? features::Material::kFlips : features::Material::kDiscs,
        r.where("chromosome"));
  } else if (r.has("chromosome") || r.has("material")) {
    fail("{}: chromosome and material are for evaluator = \"features\"", spec);
  }
  if (a.kind == OthelloEvaluator::kNtuple) {
    std::string network;
    r.text("network", network);
    if (network.empty()) fail("{}: an ntuple agent needs a network file", r.where("network"));
    fs::path p = network;
    if (p.is_relative()) p = fs::path(spec).parent_path() / p;
    try {
      load_networks(a, p);
    } catch (const Error& e) {
      fail("{}: {}", r.where("network"), e.what());
    }
  } else if (r.has("network")) {
    fail("{}: network is for evaluator = \"ntuple\"", spec);
  }
  try {
    a.validate();
  } catch (const Error& e) {
    fail("{}: {}", spec, e.what());
  }
  return a;
}

fs::path save_agent(const OthelloAgent& agent, const fs::path& file) {
  agent.validate();
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec) fail("{}: cannot create the directory: {}", file.parent_path().string(), ec.message());
  }
  std::string t = "# evalforge agent\n";
  t += fmt::format("name = {}\nevaluator = \"{}\"\ndepth = {}\nexact_empties = {}\nepsilon = {}\n",
                   toml_quote(agent.name), kind_name(agent.kind), agent.limits.depth, agent.limits.exact_empties,
                   agent.epsilon);
  if (agent.limits.algorithm == search::MidgameSearch::kAlphaBeta) t += "search = \"alphabeta\"\n";
  if (agent.probcut) {
    fs::path params = file;
    params.replace_extension(".probcut.toml");
    ProbCutFit fit;
    fit.params = *agent.probcut;
    for (int d = 0; d <= search::kProbCutMaxDepth; ++d)
      for (int ph = 0; ph < search::kProbCutPhases; ++ph)
        if (fit.params.sigma[d][ph] > 0) fit.cells.push_back(ProbCutCell{d, ph, 0, 0, 0, 0, 0});
    save_probcut(fit, params);
    t += fmt::format("probcut = {}\n", toml_quote(params.filename().string()));
  }
  fs::path network;
  if (agent.kind == OthelloEvaluator::kNtuple) {
    network = file;
    network.replace_extension(".efnet");
    save_networks(agent, network);
    t += fmt::format("network = {}\n", toml_quote(network.filename().string()));
  }
  if (agent.kind == OthelloEvaluator::kFeatures)
    t += fmt::format("chromosome = \"{}\"\nmaterial = \"{}\"\n", features::format_chromosome(agent.features),
                     agent.features.kind == features::Material::kFlips ? "flips" : "discs");
  write_atomically(file, t);
  return network;
}

// FNV-1a (core/bytes.hpp) over everything that decides how an agent plays (its name excepted),
// value by value: the fingerprints in existing source.toml files stay valid. (The midgame search
// algorithm is left out: pvs and alphabeta play the same moves, engine/pvs.hpp.)
std::string agent_fingerprint(const OthelloAgent& a) {
  Fnv1a f;
  f.add_value(static_cast<u32>(a.kind));
  f.add_value(a.limits.depth);
  f.add_value(a.limits.exact_empties);
  f.add_value(a.epsilon_ppm());
  if (a.probcut) f.add_value(*a.probcut);  // selective search plays other moves (only when set: old fingerprints hold)
  if (a.kind == OthelloEvaluator::kFeatures) {  // field by field: the struct may have padding
    const features::Weights& w = a.features;
    f.add_value(w.o);
    f.add_value(w.e);
    for (int k = 0; k < 3; ++k) {
      f.add_value(w.material[k]);
      f.add_value(w.mobility[k]);
      f.add_value(w.corners[k]);
    }
    f.add_value(static_cast<int>(w.kind));
    if (w.positional)  // only then: the fingerprints of the blog's chromosomes hold
      for (const int g : features::to_genes(w)) f.add_value(g);
  }
  if (a.kind == OthelloEvaluator::kNtuple) {
    for (const auto& g : a.geometries) {
      f.add_value(g.num_tuples);
      for (int i = 0; i < g.num_tuples; ++i) f.add_value(g.mask[i]);
    }
    for (const auto& n : a.networks) {
      f.add_value(n.geometry);
      f.add_value(n.weights.size());
      for (const i32 w : n.weights) f.add_value(w);
    }
    for (const int m : a.network_of_move) f.add_value(m);
  }
  return fmt::format("{:016x}", f.value());
}

}  // namespace ef::play
