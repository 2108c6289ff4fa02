// Hex evaluation by network characteristics (Takada et al. 2014, "Development of Computer Hex
// Strategy Using Network Characteristics"; docs/method.md section 4), and the classic
// electrical-resistance evaluation (Anshelevich's Hexy, Queenbee) as a reference evaluator.
// EF_HD throughout: header-only, no allocation, no recursion, fixed-size arrays, and double
// arithmetic in one fixed order, so a CUDA thread and a CPU thread get the same bits (the build
// turns off FMA contraction; log is our own, below, because libm's and CUDA's differ in ulps).
//
// Position network of colour c (build_network)
//  - Nodes: the empty cells and c's stones -- with options.groups (the default) one node per
//    group of connected stones, numbered by its lowest square -- in ascending square order
//    (nodes 0 .. N-3), then c's two edges: node N-2 is edge 0 (row 1 for Black, column a for
//    White), node N-1 edge 1. The opponent's stones are not nodes.
//  - Edges (undirected, no multi-edges): cell-cell adjacency; an edge node to every node cell
//    on that edge's line; BRIDGES (options.bridges): two node cells that are not adjacent and
//    have exactly two common neighbour cells, both empty (on a hex grid these are the six
//    offsets (1,1), (2,-1), (1,-2) and their negatives; the two carriers are always on the
//    board when both ends are); EDGE BRIDGES (options.edge_bridges): a node cell not on the
//    edge's line that has exactly two neighbours on it, both empty, gets an edge to that edge
//    node (these are the cells of the second line, less the one at the obtuse end).
//
// Characteristics (network_stats), N = number of nodes, edge nodes included:
//  - d: hops between the two edge nodes; kNoPath when they are not connected (c has lost:
//    the opponent has joined its edges, so no empty/own path is left).
//  - L_i = (1 / r_i) * sum of d(i, j) over the r_i nodes j != i reachable from i; with a
//    connected network r_i = N - 1, which is the paper's Eq 1. L = mean of L_i over the nodes
//    with r_i > 0 (0 if there are none) (Eq 2). Cells cut off by opponent stones therefore
//    neither count as infinitely far nor pull L down.
//  - b_i = 2 / ((N-1)(N-2)) * sum over unordered pairs {s, t} (s != i != t, s and t connected)
//    of sigma_st(i) / sigma_st (Eq 3), by Brandes' algorithm; unconnected pairs add nothing but
//    the normalisation keeps the full N. b_i = 0 when N < 3. C = mean of b_i over all N nodes
//    (Eq 4).
//  - Shortest-path network G_p: the nodes v with d_s(v) + d_t(v) = d (s, t the edge nodes),
//    b'_v = sigma_s(v) * sigma_t(v) / sigma_st, the share of the sigma_st shortest edge-to-edge
//    paths that pass through v. gp_nodes counts G_p's nodes including the two edge nodes,
//    gp_paths = sigma_st, and C' = mean of b'_v over G_p's nodes other than the edge nodes
//    (the edges lie on every path, b' = 1, and would only dilute C'). Disconnected: gp_nodes 0,
//    gp_paths 0, C' 0.
//
// Evaluators (the search's contract, engine/alphabeta.hpp: a value for the side to move c):
//  - BetweennessEvaluator: Ev_c = C_opp / C_c + gamma * C'_opp / C'_c, value =
//    sign * kScale * log(Ev_c). For Black this is the paper's Ev = C_W / C_B (Eq 8) and
//    Ev' = Ev + gamma C'_W / C'_B (Eq 11); for White it is the same formula with the colours
//    swapped, not the negation of Black's (with gamma != 0 the two are not antisymmetric;
//    with gamma == 0 they are, exactly: the value is then computed as log C_opp - log C_c).
//    sign = +1 reads "a colour is better when its own average betweenness is smaller than the
//    opponent's"; sign = -1 the opposite. The source's direction is garbled and is to be settled
//    from game records (docs/method.md section 4).
//  - ResistanceEvaluator: value = kScale * log(R_opp / R_c) (as log R_opp - log R_c).
//  - Both: a colour whose edges are disconnected (it has lost) makes the value -kClamp for it
//    (+kClamp if it is the opponent), whatever sign is; otherwise values are clamped to
//    [-kClamp, kClamp], kClamp = 2^29, and exact(+-1) = +-(2^30 - 1) outranks every one of them
//    while staying inside search::kInfinity = 2^30. Unreachable ill-defined cases (a zero
//    C or C' for a connected colour, which cannot occur since d >= 2 puts an interior node on
//    every edge-to-edge path) give 0 rather than a division by zero.
//
// Resistance model (effective_resistance): cell resistance r = 1 if empty, own_resistance
// (default 1e-4, a stand-in for Hexy's 0 that keeps the linear system regular) for c's stone,
// removed for the opponent's; adjacent cells a, b are joined by a resistor r(a) + r(b), each
// edge node to each of its edge cells by r(cell). Edge 0 is held at potential 1, edge 1 at 0;
// the cells connected to edge 0 through non-opponent cells are the unknowns (the others get a
// decoupled identity row), ordered row * n + col so the symmetric positive definite Laplacian
// has half-bandwidth n; it is solved by banded Gaussian elimination without pivoting (valid for
// SPD), in a fixed order, in a 169 x 14 double band (19 KB). R = 1 / (current out of edge 0);
// kNoConnection when edge 1 is not reached.
#pragma once
#include "evalforge/core/hd.hpp"
#include "evalforge/games/hex/game.hpp"

namespace ef::hex {

constexpr int kMaxCells = kMaxSide * kMaxSide;
constexpr int kMaxNodes = kMaxCells + 2;
// Directed arcs: a cell has at most 6 neighbours, 6 bridges and 2 edge-node arcs; an edge
// node at most n adjacent cells and n - 1 edge-bridged ones.
constexpr int kMaxArcs = kMaxCells * 14 + 4 * kMaxSide;
constexpr unsigned char kNone = 255;     // "no node" / "no square" in the byte maps
constexpr int kNoPath = 1 << 20;         // d when the edge nodes are not connected
constexpr double kNoConnection = 1e300;  // effective resistance when the edges are not connected

struct NetworkOptions {
  bool bridges = true;
  bool edge_bridges = true;
  // Each group of c's connected stones is one node (H-search's unit: Anshelevich's groups),
  // so that own stones shorten the colour's own paths; off, every stone is its own node, as
  // interchangeable with an empty cell as the plain definition makes it.
  bool groups = true;
};

// Adjacency in CSR form: the neighbours of node v are arc[first[v] .. first[v + 1]).
struct PositionNetwork {
  int colour = kBlack;
  int n = 0;                                // board side
  int nodes = 0;                            // N, edge nodes included
  int edge[2] = {0, 0};                     // node numbers of edge 0 and edge 1 (N-2, N-1)
  int arcs = 0;                             // directed arcs: twice the number of edges
  unsigned char square_of_node[kMaxNodes];  // kNone for the edge nodes
  unsigned char node_of_square[kSquares];   // kNone for squares that are not nodes
  short first[kMaxNodes + 1];
  unsigned char arc[kMaxArcs];

  EF_HD int degree(int v) const { return first[v + 1] - first[v]; }
  // Whether u-v is an edge (a scan of u's list; for tests and asserts, not inner loops).
  EF_HD bool connected(int u, int v) const {
    for (int k = first[u]; k < first[u + 1]; ++k)
      if (arc[k] == v) return true;
    return false;
  }
};

namespace detail {

// Bridge offsets (dcol, drow) and their two carriers, computed from the index so that no
// namespace-scope table is needed (device code cannot read host arrays). Offsets k and k + 3
// are negatives of each other.
EF_HD_INLINE void bridge_offset(int k, int& dc, int& dr, int& c1c, int& c1r, int& c2c, int& c2r) {
  const int s = k < 3 ? 1 : -1;
  const int m = k % 3;
  if (m == 0) {  // (1,1) via (1,0), (0,1)
    dc = s;
    dr = s;
    c1c = s;
    c1r = 0;
    c2c = 0;
    c2r = s;
  } else if (m == 1) {  // (2,-1) via (1,0), (1,-1)
    dc = 2 * s;
    dr = -s;
    c1c = s;
    c1r = 0;
    c2c = s;
    c2r = -s;
  } else {  // (1,-2) via (0,-1), (1,-1)
    dc = s;
    dr = -2 * s;
    c1c = 0;
    c1r = -s;
    c2c = s;
    c2r = -s;
  }
}

// The six neighbour offsets in a fixed order: (1,0), (-1,0), (0,1), (0,-1), (1,-1), (-1,1).
EF_HD_INLINE void neighbour_offset(int k, int& dc, int& dr) {
  const int s = (k & 1) ? -1 : 1;
  const int m = k >> 1;
  dc = m == 1 ? 0 : s;
  dr = m == 0 ? 0 : (m == 1 ? s : -s);
}

EF_HD_INLINE bool inside(int col, int row, int n) { return col >= 0 && row >= 0 && col < n && row < n; }

// The distance of `square`'s line from colour's edge `e` (0 on the edge's own line).
EF_HD_INLINE int line_from_edge(int colour, int e, int square, int n) {
  const int line = colour == kBlack ? row_of(square) : col_of(square);
  return e == 0 ? line : n - 1 - line;
}

// Whether cell `square` (a node) is edge-bridged to edge e: off the edge's line, exactly two
// of its neighbours lie on it, and both are empty.
EF_HD_INLINE bool edge_bridged(const Board& b, int colour, int e, int square) {
  if (line_from_edge(colour, e, square, b.n) != 1) return false;  // only the second line has such neighbours
  const Cells on_line = neighbours(Cells::bit(square), b.on_board) & edge_cells(colour, e, b.n);
  return on_line.count() == 2 && (on_line & b.empty()) == on_line;
}

// Deterministic natural logarithm of a positive normal double: x = 2^e m with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716, summed as
// an odd series to s^23 (the next term is below 1e-18 relative), in Horner form. libm and
// CUDA's log may differ in the last ulp, which could move a rounded evaluator value by one.
EF_HD_INLINE double det_log(double x) {
  u64 bits;
#if defined(__CUDA_ARCH__)
  bits = static_cast<u64>(__double_as_longlong(x));
#else
  __builtin_memcpy(&bits, &x, sizeof bits);
#endif
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const u64 mbits = (bits & ((u64{1} << 52) - 1)) | (u64{1023} << 52);
  double m;
#if defined(__CUDA_ARCH__)
  m = __longlong_as_double(static_cast<long long>(mbits));
#else
  __builtin_memcpy(&m, &mbits, sizeof m);
#endif
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e += 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23.0;
  for (int k = 21; k >= 1; k -= 2) p = p * s2 + 1.0 / static_cast<double>(k);
  const double ln2 = 0.6931471805599453;
  return static_cast<double>(e) * ln2 + 2.0 * s * p;
}

}  // namespace detail

// Builds colour's position network of `b` into `g` (see the header comment for the edge rules):
// a node per empty cell and per own stone -- or, with options.groups, per group of connected
// own stones, numbered by its lowest square (node_of_square maps every stone of a group to it,
// square_of_node gives that lowest square) -- in ascending square order, then the two edge
// nodes. A group node is adjacent to every node one of its stones is adjacent to; bridges and
// edge bridges are those of its stones (the carriers still empty); an edge node joins every
// node with a cell on its line or edge-bridged to it. Lists are in ascending node order,
// without repeats. (The order of arcs changes no value: path counts are integers, exact in
// doubles, and Brandes sums level by level in node order.)
EF_HD_INLINE void build_network(const Board& b, int colour, const NetworkOptions& options, PositionNetwork& g) {
  const int n = b.n;
  const Cells empty = b.empty();
  const Cells own = b.stones[colour];
  const Cells members = b.on_board.without(b.stones[colour ^ 1]);
  g.colour = colour;
  g.n = n;
  for (int s = 0; s < kSquares; ++s) g.node_of_square[s] = kNone;
  Cells cells_of[kMaxCells];  // the cells of each non-edge node
  int count = 0;
  for (Cells m = members; m.any() && count < kMaxCells; m.drop_lowest()) {
    const int sq = m.lowest();
    if (sq >= kSquares) break;
    if (g.node_of_square[sq] != kNone) continue;  // a stone of a group already numbered
    Cells group = Cells::bit(sq);
    if (options.groups && own.has(sq))
      for (Cells frontier = group; frontier.any();) {
        frontier = neighbours(frontier, own).without(group);
        group |= frontier;
      }
    for (Cells k = group; k.any(); k.drop_lowest())
      if (k.lowest() < kSquares) g.node_of_square[k.lowest()] = static_cast<unsigned char>(count);
    cells_of[count] = group;
    g.square_of_node[count++] = static_cast<unsigned char>(sq);
  }
  g.edge[0] = count;
  g.edge[1] = count + 1;
  g.square_of_node[count] = kNone;
  g.square_of_node[count + 1] = kNone;
  g.nodes = count + 2;
  Cells to_edge[2];
  for (int e = 0; e < 2; ++e) {
    to_edge[e] = members & edge_cells(colour, e, n);
    if (options.edge_bridges)
      for (Cells m = members; m.any(); m.drop_lowest())
        if (detail::edge_bridged(b, colour, e, m.lowest())) to_edge[e].set(m.lowest());
  }
  // Node sets as bitsets (<= 171 nodes), then listed in ascending order.
  auto add = [](u64* set, int v) { set[v >> 6] |= u64{1} << (v & 63); };
  int a = 0;
  for (int v = 0; v < count; ++v) {
    u64 near[3] = {0, 0, 0};
    const Cells nb = neighbours(cells_of[v], members).without(cells_of[v]);
    for (Cells k = nb; k.any(); k.drop_lowest()) add(near, g.node_of_square[k.lowest()]);
    if (options.bridges)
      for (Cells x = cells_of[v]; x.any(); x.drop_lowest()) {
        const int col = col_of(x.lowest()), row = row_of(x.lowest());
        for (int k = 0; k < 6; ++k) {
          int dc, dr, c1c, c1r, c2c, c2r;
          detail::bridge_offset(k, dc, dr, c1c, c1r, c2c, c2r);
          if (!detail::inside(col + dc, row + dr, n)) continue;
          const unsigned char w = g.node_of_square[square_of(col + dc, row + dr)];
          if (w != kNone && w != v && empty.has(square_of(col + c1c, row + c1r)) &&
              empty.has(square_of(col + c2c, row + c2r)))
            add(near, w);
        }
      }
    for (int e = 0; e < 2; ++e)
      if ((to_edge[e] & cells_of[v]).any()) add(near, g.edge[e]);
    g.first[v] = static_cast<short>(a);
    for (int i = 0; i < 3; ++i)
      for (u64 m = near[i]; m && a < kMaxArcs; m &= m - 1) g.arc[a++] = static_cast<unsigned char>(64 * i + ctz64(m));
  }
  for (int e = 0; e < 2; ++e) {
    u64 near[3] = {0, 0, 0};
    for (Cells m = to_edge[e]; m.any(); m.drop_lowest()) add(near, g.node_of_square[m.lowest()]);
    g.first[count + e] = static_cast<short>(a);
    for (int i = 0; i < 3; ++i)
      for (u64 m = near[i]; m && a < kMaxArcs; m &= m - 1) g.arc[a++] = static_cast<unsigned char>(64 * i + ctz64(m));
  }
  g.first[count + 2] = static_cast<short>(a);
  g.arcs = a;
}

// Breadth-first search from `source`: dist[v] in hops (-1 if unreachable), sigma[v] the number
// of shortest source-v paths (as double: they overflow integers on open boards), order[] the
// nodes in BFS order. Returns how many nodes were reached (the source included).
EF_HD_INLINE int bfs(const PositionNetwork& g, int source, int* dist, double* sigma, unsigned char* order) {
  for (int v = 0; v < g.nodes; ++v) {
    dist[v] = -1;
    sigma[v] = 0.0;
  }
  dist[source] = 0;
  sigma[source] = 1.0;
  order[0] = static_cast<unsigned char>(source);
  int head = 0, tail = 1;
  while (head < tail) {
    const int v = order[head++];
    const int dv = dist[v] + 1;
    for (int k = g.first[v]; k < g.first[v + 1]; ++k) {
      const int w = g.arc[k];
      if (dist[w] < 0) {
        dist[w] = dv;
        order[tail++] = static_cast<unsigned char>(w);
      }
      if (dist[w] == dv) sigma[w] += sigma[v];
    }
  }
  return tail;
}

// Node sets as 3-word bitsets (kMaxNodes <= 192), for the level-synchronous Brandes below.
struct NodeSet {
  u64 w[3] = {0, 0, 0};
  EF_HD_INLINE void set(int v) { w[v >> 6] |= u64{1} << (v & 63); }
  EF_HD_INLINE bool any() const { return (w[0] | w[1] | w[2]) != 0; }
  EF_HD_INLINE int count() const { return popcount64(w[0]) + popcount64(w[1]) + popcount64(w[2]); }
};

// One step of a level-by-level breadth-first search: the nodes adjacent to `frontier` not yet
// in `seen`, which then joins them.
EF_HD_INLINE NodeSet next_level(const NodeSet* adj, const NodeSet& frontier, NodeSet& seen) {
  NodeSet next;
  for (int i = 0; i < 3; ++i)
    for (u64 m = frontier.w[i]; m; m &= m - 1) {
      const NodeSet& a = adj[64 * i + ctz64(m)];
      next.w[0] |= a.w[0];
      next.w[1] |= a.w[1];
      next.w[2] |= a.w[2];
    }
  for (int i = 0; i < 3; ++i) {
    next.w[i] &= ~seen.w[i];
    seen.w[i] |= next.w[i];
  }
  return next;
}

// Brandes' algorithm over all sources. raw[v] (if not null) gets the unnormalised betweenness
// B(v) = sum over unordered connected pairs {s, t}, s != v != t, of sigma_st(v) / sigma_st;
// mean_distance gets L (header comment). Returns C, the mean over nodes of
// b_v = 2 B(v) / ((N-1)(N-2)).
//
// Same mathematics as the textbook form (bfs() above, then dependencies in reverse BFS order),
// arranged for speed: each BFS runs level by level on bitsets, so sigma[w] sums only over w's
// predecessors (adj[w] & previous level) and the backward pass over v's successors
// (adj[v] & next level), without testing every arc's distances; and the dependency is pulled,
// delta_v = sigma_v * sum over successors w of (1 + delta_w) / sigma_w, one division per node.
// Sums run in ascending node order within a level, so the result is a fixed function of g.
EF_HD_INLINE double brandes(const PositionNetwork& g, double* raw, double& mean_distance) {
  const int N = g.nodes;
  NodeSet adj[kMaxNodes];
  // The words of adj[v] that can be non-zero: nodes are numbered in square order, so a cell's
  // neighbours span one or two words, and skipping the others saves unpredictable loop exits.
  unsigned char wlo[kMaxNodes], whi[kMaxNodes];
  for (int v = 0; v < N; ++v) {
    adj[v] = NodeSet{};
    int lo = 2, hi = 0;
    for (int k = g.first[v]; k < g.first[v + 1]; ++k) {
      const int w = g.arc[k];
      adj[v].set(w);
      if ((w >> 6) < lo) lo = w >> 6;
      if ((w >> 6) > hi) hi = w >> 6;
    }
    wlo[v] = static_cast<unsigned char>(lo);
    whi[v] = static_cast<unsigned char>(hi);
  }
  double sigma[kMaxNodes], coeff[kMaxNodes], acc[kMaxNodes];
  NodeSet level[kMaxNodes];  // level[k]: the nodes k hops from the source
  for (int v = 0; v < N; ++v) acc[v] = 0.0;
  double l_sum = 0.0;
  int l_count = 0;
  for (int s = 0; s < N; ++s) {
    NodeSet seen;
    seen.set(s);
    level[0] = seen;
    sigma[s] = 1.0;
    int depth = 0;  // deepest non-empty level
    int reached = 1, d_sum = 0;
    for (;;) {
      const NodeSet& cur = level[depth];
      const NodeSet next = next_level(adj, cur, seen);
      if (!next.any()) break;
      ++depth;
      level[depth] = next;
      const int c = next.count();
      reached += c;
      d_sum += depth * c;
      for (int i = 0; i < 3; ++i)
        for (u64 m = next.w[i]; m; m &= m - 1) {
          const int w = 64 * i + ctz64(m);
          double sum = 0.0;
          for (int j = wlo[w]; j <= whi[w]; ++j)
            for (u64 p = adj[w].w[j] & cur.w[j]; p; p &= p - 1) sum += sigma[64 * j + ctz64(p)];
          sigma[w] = sum;
        }
    }
    if (reached > 1) {
      l_sum += static_cast<double>(d_sum) / static_cast<double>(reached - 1);
      ++l_count;
    }
    // The deepest level has no successors: delta = 0.
    for (int i = 0; i < 3; ++i)
      for (u64 m = level[depth].w[i]; m; m &= m - 1) {
        const int w = 64 * i + ctz64(m);
        coeff[w] = 1.0 / sigma[w];
      }
    for (int k = depth - 1; k >= 1; --k) {
      const NodeSet& below = level[k + 1];
      for (int i = 0; i < 3; ++i)
        for (u64 m = level[k].w[i]; m; m &= m - 1) {
          const int v = 64 * i + ctz64(m);
          double sum = 0.0;
          for (int j = wlo[v]; j <= whi[v]; ++j)
            for (u64 p = adj[v].w[j] & below.w[j]; p; p &= p - 1) sum += coeff[64 * j + ctz64(p)];
          const double delta = sigma[v] * sum;
          acc[v] += delta;
          coeff[v] = (1.0 + delta) / sigma[v];
        }
    }
  }
  mean_distance = l_count > 0 ? l_sum / static_cast<double>(l_count) : 0.0;
  // Every unordered pair was counted from both ends.
  double total = 0.0;
  for (int v = 0; v < N; ++v) {
    const double B = acc[v] * 0.5;
    if (raw) raw[v] = B;
    total += B;
  }
  if (N < 3) return 0.0;
  return (2.0 * total / (static_cast<double>(N - 1) * static_cast<double>(N - 2))) / static_cast<double>(N);
}

// Normalised betweenness b_v (Eq 3) of every node into out[0 .. N).
EF_HD_INLINE void betweenness(const PositionNetwork& g, double* out) {
  double L;
  brandes(g, out, L);
  const int N = g.nodes;
  const double norm = N < 3 ? 0.0 : 2.0 / (static_cast<double>(N - 1) * static_cast<double>(N - 2));
  for (int v = 0; v < N; ++v) out[v] = out[v] * norm;
}

// The shortest-path network: out[v] = b'_v for G_p's nodes (1 for the two edge nodes), 0 for
// the others. Sets d (kNoPath if disconnected), paths = sigma_st, and returns G_p's node count
// (edge nodes included; 0 if disconnected).
EF_HD_INLINE int shortest_path_network(const PositionNetwork& g, double* out, int& d, double& paths) {
  int ds[kMaxNodes], dt[kMaxNodes];
  double ss[kMaxNodes], st[kMaxNodes];
  unsigned char order[kMaxNodes];
  bfs(g, g.edge[0], ds, ss, order);
  bfs(g, g.edge[1], dt, st, order);
  for (int v = 0; v < g.nodes; ++v) out[v] = 0.0;
  d = ds[g.edge[1]];
  if (d < 0) {
    d = kNoPath;
    paths = 0.0;
    return 0;
  }
  paths = ss[g.edge[1]];
  int count = 0;
  for (int v = 0; v < g.nodes; ++v)
    if (ds[v] >= 0 && dt[v] >= 0 && ds[v] + dt[v] == d) {
      out[v] = (ss[v] * st[v]) / paths;
      ++count;
    }
  return count;
}

struct NetworkStats {
  int nodes = 0;          // N
  int d = kNoPath;        // edge-to-edge hops
  double L = 0.0;         // average shortest path length
  double C = 0.0;         // average betweenness
  double C_prime = 0.0;   // average b' over G_p less the edge nodes
  int gp_nodes = 0;       // G_p's nodes, edge nodes included
  double gp_paths = 0.0;  // number of shortest edge-to-edge paths
};

// All of a network's characteristics (header comment).
// L and C from breadth-first distances alone, without path counts. Each shortest s-t path has
// d(s,t) - 1 interior nodes and the shares sigma_st(v) / sigma_st of one pair sum to 1 over its
// paths, so the sum over v of B(v) is the sum over connected unordered pairs of (d(s,t) - 1):
// the mean betweenness (Eq 4) needs only the distance sums that L needs anyway. The sums are
// integers, so C is exact up to the final division, and equal to brandes()'s up to rounding
// (tested); this is what the evaluator uses, at under half of Brandes' cost (per-node values
// still need brandes()).
EF_HD_INLINE double mean_betweenness_from_distances(const PositionNetwork& g, double& mean_distance) {
  const int N = g.nodes;
  NodeSet adj[kMaxNodes];
  for (int v = 0; v < N; ++v) {
    adj[v] = NodeSet{};
    for (int k = g.first[v]; k < g.first[v + 1]; ++k) adj[v].set(g.arc[k]);
  }
  double l_sum = 0.0;
  int l_count = 0;
  i64 interior = 0;  // sum over ordered connected pairs of d - 1
  for (int s = 0; s < N; ++s) {
    NodeSet seen, frontier;
    seen.set(s);
    frontier.set(s);
    int reached = 1, d_sum = 0;
    for (int depth = 1;; ++depth) {
      const NodeSet next = next_level(adj, frontier, seen);
      if (!next.any()) break;
      const int c = next.count();
      reached += c;
      d_sum += depth * c;
      frontier = next;
    }
    if (reached > 1) {
      l_sum += static_cast<double>(d_sum) / static_cast<double>(reached - 1);
      ++l_count;
    }
    interior += d_sum - (reached - 1);
  }
  mean_distance = l_count > 0 ? l_sum / static_cast<double>(l_count) : 0.0;
  if (N < 3) return 0.0;
  // B summed over nodes = interior / 2 (each unordered pair counted from both ends).
  return (static_cast<double>(interior) / (static_cast<double>(N - 1) * static_cast<double>(N - 2))) /
         static_cast<double>(N);
}

EF_HD_INLINE void network_stats(const PositionNetwork& g, NetworkStats& s) {
  s.nodes = g.nodes;
  s.C = mean_betweenness_from_distances(g, s.L);
  double bp[kMaxNodes];
  s.gp_nodes = shortest_path_network(g, bp, s.d, s.gp_paths);
  s.C_prime = 0.0;
  if (s.gp_nodes > 2) {
    double sum = 0.0;
    for (int v = 0; v < g.nodes; ++v)
      if (v != g.edge[0] && v != g.edge[1]) sum += bp[v];
    s.C_prime = sum / static_cast<double>(s.gp_nodes - 2);
  }
}

// A resistor added to the circuit beyond the adjacent cells (resistance over virtual
// connections, games/hex/vc_search.hpp): between cells a and b, or between cell a and the
// colour's edge 0 / 1 (b = kLinkEdge0 / kLinkEdge1), as if they were adjacent.
constexpr int kLinkEdge0 = -1, kLinkEdge1 = -2;
struct ResistorLink {
  int a = 0, b = 0;  // squares (b may be kLinkEdge0 / kLinkEdge1)
};

// The widest link kept by the circuit with links (below): 27 cells apart in row * n + col
// order, two rows of the largest board (a bridge or an edge template is at most 2 n - 1 apart).
constexpr int kMaxLinkWidth = 2 * kMaxSide + 1;

namespace detail {

// effective_resistance with `links` extra resistors, in a band of half-width up to kBand: the
// half-width is n, or the widest link's |row * n + col| distance when that is more; a link wider
// than kBand is left out. Links whose cells are not joined to edge 0 carry no current and are
// left out too.
template <int kBand>
EF_HD_INLINE double resistance_with_links(const Board& b, int colour, double own_resistance, const ResistorLink* links,
                                          int num_links) {
  static_assert(kBand >= kMaxSide, "the band holds the adjacent cells at least");
  const int n = b.n;
  const Cells own = b.stones[colour];
  const Cells members = b.on_board.without(b.stones[colour ^ 1]);
  // The cells joined to edge 0 through non-opponent cells: the unknowns. The rest would make
  // the Laplacian singular (floating components) and carry no current anyway. (A link never
  // joins more: its two cells are joined through member cells already.)
  Cells comp = members & edge_cells(colour, 0, n);
  for (Cells frontier = comp; frontier.any();) {
    frontier = neighbours(frontier, members).without(comp);
    comp |= frontier;
  }
  if (!(comp & edge_cells(colour, 1, n)).any()) return kNoConnection;

  const int M = n * n;
  auto index = [n](int sq) { return row_of(sq) * n + col_of(sq); };
  // A cell-to-cell link's distance in that order (0 for a link to an edge: no band needed).
  auto width = [&](const ResistorLink& l) {
    if (l.b == kLinkEdge0 || l.b == kLinkEdge1) return 0;
    return index(l.a) > index(l.b) ? index(l.a) - index(l.b) : index(l.b) - index(l.a);
  };
  auto usable = [&](const ResistorLink& l) {
    if (!comp.has(l.a)) return false;
    if (l.b == kLinkEdge0 || l.b == kLinkEdge1) return true;
    return l.a != l.b && comp.has(l.b) && width(l) <= kBand;  // a == b: no resistor
  };
  int band = n;
  for (int i = 0; i < num_links; ++i)
    if (usable(links[i]) && width(links[i]) > band) band = width(links[i]);
  double U[kMaxCells][kBand + 1];  // U[k][j] = A(k, k + j), the upper band
  double rhs[kMaxCells], x[kMaxCells];
  double g0[kMaxCells];  // conductance to edge 0 (for the current)
  for (int k = 0; k < M; ++k) {
    for (int j = 0; j <= band; ++j) U[k][j] = 0.0;
    rhs[k] = 0.0;
    g0[k] = 0.0;
  }
  auto cell_r = [&](int sq) { return own.has(sq) ? own_resistance : 1.0; };
  for (int k = 0; k < M; ++k) {
    const int col = k % n, row = k / n;
    const int sq = square_of(col, row);
    if (!comp.has(sq)) {
      U[k][0] = 1.0;  // decoupled: potential 0, no current
      continue;
    }
    const double r = cell_r(sq);
    double diag = 0.0;
    for (int t = 0; t < 6; ++t) {
      int dc, dr;
      neighbour_offset(t, dc, dr);
      if (!inside(col + dc, row + dr, n)) continue;
      const int nsq = square_of(col + dc, row + dr);
      if (!comp.has(nsq)) continue;  // neighbours of comp's cells that are members are in comp
      const double gij = 1.0 / (r + cell_r(nsq));
      diag += gij;
      const int kk = (row + dr) * n + (col + dc);
      if (kk > k) U[k][kk - k] = -gij;
    }
    if (on_edge(colour, 0, sq, n)) {
      g0[k] = 1.0 / r;
      diag += g0[k];
      rhs[k] = g0[k];  // edge 0 at potential 1
    }
    if (on_edge(colour, 1, sq, n)) diag += 1.0 / r;  // edge 1 at potential 0
    U[k][0] = diag;
  }
  // The links, each a resistor r(a) + r(b) (r(a) to an edge), in parallel with what is there.
  for (int i = 0; i < num_links; ++i) {
    const ResistorLink& l = links[i];
    if (!usable(l)) continue;
    const int ka = index(l.a);
    if (l.b == kLinkEdge0 || l.b == kLinkEdge1) {
      const double g = 1.0 / cell_r(l.a);
      U[ka][0] += g;
      if (l.b == kLinkEdge0) {
        g0[ka] += g;
        rhs[ka] += g;
      }
      continue;
    }
    const int kb = index(l.b);
    const double g = 1.0 / (cell_r(l.a) + cell_r(l.b));
    U[ka][0] += g;
    U[kb][0] += g;
    U[ka < kb ? ka : kb][ka < kb ? kb - ka : ka - kb] -= g;
  }
  // Banded elimination; the trailing submatrix stays symmetric, so the upper band suffices.
  for (int k = 0; k < M; ++k) {
    const double piv = U[k][0];
    const int reach = (M - 1 - k) < band ? (M - 1 - k) : band;
    for (int i = 1; i <= reach; ++i) {
      if (U[k][i] == 0.0) continue;
      const double f = U[k][i] / piv;
      for (int j = i; j <= reach; ++j) U[k + i][j - i] -= f * U[k][j];
      rhs[k + i] -= f * rhs[k];
    }
  }
  for (int k = M - 1; k >= 0; --k) {
    const int reach = (M - 1 - k) < band ? (M - 1 - k) : band;
    double sum = rhs[k];
    for (int j = 1; j <= reach; ++j) sum -= U[k][j] * x[k + j];
    x[k] = sum / U[k][0];
  }
  double current = 0.0;
  for (int k = 0; k < M; ++k)
    if (g0[k] != 0.0) current += g0[k] * (1.0 - x[k]);
  return current > 0.0 ? 1.0 / current : kNoConnection;
}

}  // namespace detail

// Effective resistance between colour's two edges (header comment); kNoConnection if the
// opponent has cut them apart.
EF_HD_INLINE double effective_resistance(const Board& b, int colour, double own_resistance = 1e-4) {
  return detail::resistance_with_links<kMaxSide>(b, colour, own_resistance, nullptr, 0);
}

// The same circuit with extra resistors (ResistorLink): links between cells up to kMaxLinkWidth
// apart in row * n + col order are kept, wider ones left out. Host code (a 169 x 28 double band,
// 38 KB).
inline double effective_resistance(const Board& b, int colour, double own_resistance, const ResistorLink* links,
                                   int num_links) {
  return detail::resistance_with_links<kMaxLinkWidth>(b, colour, own_resistance, links, num_links);
}

constexpr double kScale = 1 << 20;    // evaluator units per unit of natural log
constexpr i32 kClamp = i32{1} << 29;  // |heuristic value| <= kClamp
constexpr i32 kExactWin = (i32{1} << 30) - 1;

// kScale * v rounded half away from zero, clamped to [-kClamp, kClamp] (NaN -> 0).
EF_HD_INLINE i32 scaled_value(double v) {
  if (v != v) return 0;
  double x = v * kScale;
  const double lim = static_cast<double>(kClamp);
  if (x > lim) x = lim;
  if (x < -lim) x = -lim;
  return x >= 0.0 ? static_cast<i32>(x + 0.5) : -static_cast<i32>(-x + 0.5);
}

EF_HD_INLINE i32 exact_value(int score) { return score > 0 ? kExactWin : (score < 0 ? -kExactWin : 0); }

// The paper's evaluation (header comment): from the side to move's view.
struct BetweennessEvaluator {
  double gamma = 0.0;
  NetworkOptions options;
  int sign = +1;
  // The orientation of the C' term: +1 is Eq. 11's, C'_opp / C'_c (a colour is better when its
  // own C' is the smaller); -1 uses C'_c / C'_opp, the direction self-play records point to
  // (docs/hex.md: the winner's C' is the larger).
  int c_prime_sign = +1;

  EF_HD i32 eval(const Board& b) const {
    const int c = b.side;
    NetworkStats s[2];
    {
      PositionNetwork g;
      build_network(b, c, options, g);
      network_stats(g, s[0]);
      build_network(b, c ^ 1, options, g);
      network_stats(g, s[1]);
    }
    const NetworkStats& mine = s[0];
    const NetworkStats& theirs = s[1];
    if (mine.d == kNoPath) return -kClamp;
    if (theirs.d == kNoPath) return kClamp;
    if (!(mine.C > 0.0) || !(theirs.C > 0.0)) return 0;  // unreachable when connected
    double v;
    if (gamma == 0.0) {
      v = detail::det_log(theirs.C) - detail::det_log(mine.C);  // exactly antisymmetric
    } else {
      if (!(mine.C_prime > 0.0) || !(theirs.C_prime > 0.0)) return 0;
      const double cp = c_prime_sign > 0 ? theirs.C_prime / mine.C_prime : mine.C_prime / theirs.C_prime;
      const double ev = theirs.C / mine.C + gamma * cp;
      if (!(ev > 0.0)) return sign > 0 ? -kClamp : kClamp;  // a negative gamma can drive Ev to 0
      v = detail::det_log(ev);
    }
    return scaled_value(sign < 0 ? -v : v);
  }
  EF_HD i32 exact(int score) const { return exact_value(score); }
};

// The resistance evaluation from the two effective resistances, the side to move's (`mine`) and
// the opponent's: kScale * log(theirs / mine), -kClamp when the side to move is cut off,
// +kClamp when the opponent is.
EF_HD_INLINE i32 resistance_value(double mine, double theirs) {
  if (mine >= kNoConnection) return -kClamp;
  if (theirs >= kNoConnection) return kClamp;
  return scaled_value(detail::det_log(theirs) - detail::det_log(mine));
}

// The electrical-resistance evaluation: kScale * log(R_opp / R_c) for the side to move c.
struct ResistanceEvaluator {
  double own_resistance = 1e-4;

  EF_HD i32 eval(const Board& b) const {
    const int c = b.side;
    return resistance_value(effective_resistance(b, c, own_resistance), effective_resistance(b, c ^ 1, own_resistance));
  }
  EF_HD i32 exact(int score) const { return exact_value(score); }
};

}  // namespace ef::hex
