// Native peer of corskin's WebAssembly SIMD skinning kernels (issue 38): a C++ port of asm/kernels.ts'
// LBS (Magnenat-Thalmann et al. 1988), DQS (Kavan et al. 2008) and CoR (Le & Hodgins 2016,
// Algorithm 1) — the same memory layout, the same 4-lane arithmetic (GCC vector extensions, which
// g++ lowers to SSE or AVX2 + FMA by the target flags), one thread — and STREAM's triad
// (McCalpin 1995) for the memory bandwidth. Driven by bench/native/peers.ts, which writes the input
// and reads the JSON this prints; see bench/native/README.md.
//
//   skinning <dir> <reps>   time every kernel over the frames in <dir>/skinning.bin
//   skinning triad          the triad bandwidth, GB/s
//
// <dir>/skinning.bin (little-endian): int32 n, K, J, F; then f32 P[3n+4], N[3n+4], C[3n+4]
// (bind-space positions, normals, centers of rotation; 4 padding floats), u16 JI[K·n], f32 W[K·n],
// u8 CNT[n] (asm/kernels.ts' packed influences), and per frame f32 M[16J] (skinning matrices,
// column-major, divided by the frame's uniform scale s), Q[4J] (their rotation quaternions x, y, z,
// w), DQ[8J] (unit dual quaternions); then f32 s[F]: the positions are multiplied by s (a rig under
// one uniformly scaled node, as corskin's SIMD deformer runs it).
// The joint data is computed once by corskin (as its SIMD deformer does each frame, in JavaScript,
// for J joints: microseconds) so both sides time the same per-vertex work.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef float v4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));
#define SH(a, i, j, k, l) __builtin_shufflevector(a, a, i, j, k, l)

static inline v4 ld(const float *p) {
  v4 v;
  std::memcpy(&v, p, 16);
  return v;
}
static inline void st(float *p, v4 v) { std::memcpy(p, &v, 16); }
static inline v4 splat(float x) { return v4{x, x, x, x}; }
static inline float hsum(v4 v) {
  v4 a = v + SH(v, 2, 3, 0, 1);
  return (a + SH(a, 1, 0, 3, 2))[0];
}
static inline v4 signedBy(v4 ws, v4 a, v4 b) {
  v4 d = a * b;
  v4 e = d + SH(d, 2, 3, 0, 1);
  v4 f = e + SH(e, 1, 0, 3, 2);
  return (v4)((i4)ws ^ ((i4)f & i4{INT_MIN, INT_MIN, INT_MIN, INT_MIN}));
}
static inline v4 cross(v4 a, v4 b) { return SH(a, 1, 2, 0, 3) * SH(b, 2, 0, 1, 3) - SH(a, 2, 0, 1, 3) * SH(b, 1, 2, 0, 3); }
static inline v4 apply3(v4 c0, v4 c1, v4 c2, v4 v) { return c0 * SH(v, 0, 0, 0, 0) + c1 * SH(v, 1, 1, 1, 1) + c2 * SH(v, 2, 2, 2, 2); }
static inline v4 rotate(v4 q, v4 w, v4 s, v4 v) {
  v4 t = cross(q, v);
  return v + s * (w * t + cross(q, t));
}

struct Mesh {
  int n, K, J;
  std::vector<float> P, N, C;
  std::vector<uint16_t> JI;
  std::vector<float> W;
  std::vector<uint8_t> CNT;
};

// Outputs: 3 f32 per vertex, each store writing 4 lanes (4 floats of padding at the end).
struct Out {
  std::vector<float> p, n;
};

static inline void writeAffine(int i, v4 a0, v4 a1, v4 a2, v4 a3, const Mesh &m, Out &o) {
  st(&o.p[3 * i], apply3(a0, a1, a2, ld(&m.P[3 * i])) + a3);
  v4 c0 = cross(a1, a2), c1 = cross(a2, a0), c2 = cross(a0, a1);
  float det = hsum(a0 * c0);
  v4 r = apply3(c0, c1, c2, ld(&m.N[3 * i]));
  float l2 = hsum(r * r);
  float s = (det < 0 ? -1.f : 1.f) / (l2 > 0 ? __builtin_sqrtf(l2) : 1.f);
  st(&o.n[3 * i], r * splat(s));
}
static inline void writeRigid(int i, const float *M, const Mesh &m, Out &o) {
  v4 a0 = ld(M), a1 = ld(M + 4), a2 = ld(M + 8);
  st(&o.p[3 * i], apply3(a0, a1, a2, ld(&m.P[3 * i])) + ld(M + 12));
  st(&o.n[3 * i], apply3(a0, a1, a2, ld(&m.N[3 * i])));
}
static inline void writeRotated(int i, v4 q, v4 s, v4 c, v4 l, const Mesh &m, Out &o) {
  v4 w = SH(q, 3, 3, 3, 3);
  st(&o.p[3 * i], rotate(q, w, s, ld(&m.P[3 * i]) - c) + l);
  st(&o.n[3 * i], rotate(q, w, s, ld(&m.N[3 * i])));
}

static void lbs(const Mesh &m, const float *M, Out &o) {
  for (int i = 0; i < m.n; i++) {
    int c = m.CNT[i];
    size_t base = (size_t)m.K * i;
    v4 a0 = splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < c; k++) {
      v4 w = splat(m.W[base + k]);
      const float *j = M + 16 * m.JI[base + k];
      a0 += w * ld(j);
      a1 += w * ld(j + 4);
      a2 += w * ld(j + 8);
      a3 += w * ld(j + 12);
    }
    writeAffine(i, a0, a1, a2, a3, m, o);
  }
}

static void dqs(const Mesh &m, const float *M, const float *DQ, Out &o) {
  for (int i = 0; i < m.n; i++) {
    int c = m.CNT[i];
    size_t base = (size_t)m.K * i;
    if (c == 1) {
      writeRigid(i, M + 16 * m.JI[base], m, o);
      continue;
    }
    const float *d0 = DQ + 8 * m.JI[base];
    v4 w0 = splat(m.W[base]);
    v4 pivot = ld(d0);
    v4 b0 = w0 * pivot, be = w0 * ld(d0 + 4);
    for (int k = 1; k < c; k++) {
      const float *d = DQ + 8 * m.JI[base + k];
      v4 q = ld(d);
      v4 ws = signedBy(splat(m.W[base + k]), pivot, q);
      b0 += ws * q;
      be += ws * ld(d + 4);
    }
    v4 s = splat(2 / hsum(b0 * b0));
    v4 qv = b0, ev = be;
    qv[3] = 0;
    ev[3] = 0;
    v4 t = (ev * SH(b0, 3, 3, 3, 3) - qv * SH(be, 3, 3, 3, 3) + cross(qv, ev)) * s;
    writeRotated(i, b0, s, splat(0), t, m, o);
  }
}

static void cor(const Mesh &m, const float *M, const float *Q, Out &o) {
  for (int i = 0; i < m.n; i++) {
    int c = m.CNT[i];
    size_t base = (size_t)m.K * i;
    if (c == 1) {
      writeRigid(i, M + 16 * m.JI[base], m, o);
      continue;
    }
    v4 center = ld(&m.C[3 * i]);
    int j0 = m.JI[base];
    v4 w0 = splat(m.W[base]);
    const float *m0 = M + 16 * j0;
    v4 a0 = w0 * ld(m0), a1 = w0 * ld(m0 + 4), a2 = w0 * ld(m0 + 8), a3 = w0 * ld(m0 + 12);
    v4 pivot = ld(Q + 4 * j0);
    v4 qa = w0 * pivot;
    for (int k = 1; k < c; k++) {
      int j = m.JI[base + k];
      v4 ws = splat(m.W[base + k]);
      const float *mj = M + 16 * j;
      a0 += ws * ld(mj);
      a1 += ws * ld(mj + 4);
      a2 += ws * ld(mj + 8);
      a3 += ws * ld(mj + 12);
      v4 q = ld(Q + 4 * j);
      qa += signedBy(ws, pivot, q) * q;
    }
    v4 s = splat(2 / hsum(qa * qa));
    writeRotated(i, qa, s, center, apply3(a0, a1, a2, center) + a3, m, o);
  }
}

static double ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
static double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  size_t h = x.size() / 2;
  return x.size() % 2 ? x[h] : 0.5 * (x[h - 1] + x[h]);
}

template <class T> static void take(FILE *f, std::vector<T> &v, size_t count, const char *what) {
  v.resize(count);
  if (std::fread(v.data(), sizeof(T), count, f) != count) {
    std::fprintf(stderr, "skinning: skinning.bin ends before %s\n", what);
    std::exit(2);
  }
}

// STREAM's triad a = b + s·c over three 256 MiB arrays of doubles: 24 bytes per element moved.
static int triad() {
  const size_t N = size_t(1) << 25;
  std::vector<double> a(N, 0.0), b(N, 1.0), c(N, 2.0);
  std::vector<double> t;
  for (int r = 0; r < 11; r++) {
    auto t0 = std::chrono::steady_clock::now();
    double s = 3.0 + r;
    for (size_t i = 0; i < N; i++) a[i] = b[i] + s * c[i];
    auto t1 = std::chrono::steady_clock::now();
    if (r) t.push_back(24.0 * N / (ms(t0, t1) * 1e6));
  }
  std::printf("{\"triadGBs\": %.3f, \"check\": %.1f}\n", median(t), a[N / 2]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && std::string(argv[1]) == "triad") return triad();
  if (argc != 3) {
    std::fprintf(stderr, "usage: skinning <dir> <reps> | skinning triad\n");
    return 2;
  }
  std::string dir = argv[1];
  int reps = std::atoi(argv[2]);
  FILE *f = std::fopen((dir + "/skinning.bin").c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "skinning: cannot open %s/skinning.bin\n", dir.c_str());
    return 2;
  }
  int32_t h[4];
  if (std::fread(h, 4, 4, f) != 4) return 2;
  Mesh m{h[0], h[1], h[2], {}, {}, {}, {}, {}, {}};
  int F = h[3];
  take(f, m.P, 3 * m.n + 4, "P");
  take(f, m.N, 3 * m.n + 4, "N");
  take(f, m.C, 3 * m.n + 4, "C");
  take(f, m.JI, (size_t)m.K * m.n, "JI");
  take(f, m.W, (size_t)m.K * m.n, "W");
  take(f, m.CNT, m.n, "CNT");
  std::vector<float> M, Q, DQ;
  take(f, M, (size_t)16 * m.J * F, "M");
  take(f, Q, (size_t)4 * m.J * F, "Q");
  take(f, DQ, (size_t)8 * m.J * F, "DQ");
  std::vector<float> scale;
  take(f, scale, F, "s");
  std::fclose(f);

  Out o{std::vector<float>(3 * m.n + 4), std::vector<float>(3 * m.n + 4)};
  const char *names[] = {"lbs", "dqs", "cor"};
  std::printf("{");
  for (int k = 0; k < 3; k++) {
    auto frame = [&](int g) {
      const float *Mg = &M[(size_t)16 * m.J * g];
      if (k == 0) lbs(m, Mg, o);
      else if (k == 1) dqs(m, Mg, &DQ[(size_t)8 * m.J * g], o);
      else cor(m, Mg, &Q[(size_t)4 * m.J * g], o);
      if (scale[g] != 1)
        for (int e = 0; e < 3 * m.n; e++) o.p[e] *= scale[g];
    };
    for (int g = 0; g < F; g++) frame(g); // warm-up, as bench/frames.ts' frameMs
    std::vector<double> t;
    for (int r = 0; r < reps; r++)
      for (int g = 0; g < F; g++) {
        auto t0 = std::chrono::steady_clock::now();
        frame(g);
        t.push_back(ms(t0, std::chrono::steady_clock::now()));
      }
    // Frame 0's positions, for the check that the port computes what the kernel does.
    frame(0);
    FILE *out = std::fopen((dir + "/" + names[k] + ".f32").c_str(), "wb");
    std::fwrite(o.p.data(), 4, 3 * m.n, out);
    std::fclose(out);
    std::printf("%s\"%s\": %.6f", k ? ", " : "", names[k], median(t));
  }
  std::printf("}\n");
  return 0;
}
